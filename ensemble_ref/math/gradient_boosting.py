r"""The leaf values of gradient boosting as pure functions (chapter *Gradient boosting*).

A leaf :math:`R_{jm}` of the round-:math:`m` tree gets as its value :math:`w_{jm}` the
best step for the loss (equation ``eq-gb-leaf``; ESL writes :math:`\gamma_{jm}`): the
lower weighted median of the residuals :math:`y_i - F_{m-1}(x_i)` for the absolute
error (:func:`weighted_median`), one Newton step
:math:`\sum_i \omega_i r_i / \sum_i \omega_i h_i` (sample weights :math:`\omega_i`) for the log loss
(:func:`newton_leaf_value`), the weighted mean of the residuals for the squared error
(``_leaf_mean``, also the value of every CART leaf). The private versions are what
:mod:`ensemble_ref.ensembles.gradient_boosting` and the trees run in their loops over leaves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import check_reals, check_same_shape, check_sample_weight, check_shape

__all__ = ["weighted_median", "newton_leaf_value"]


def _leaf_mean(S, W):
    """Weighted mean S / W of a leaf's targets from their sums S = sum w y, W = sum w: the step
    of the squared error (eq-gb-leaf), a regression leaf's value, and, for one-hot targets
    (S the class counts), a classification leaf's class proportions."""
    return S / W  # eq-gb-leaf, squared error


def _weighted_median(v, w):
    """Lower weighted median: the smallest value whose cumulative weight reaches half."""
    order = np.argsort(v)
    cdf = np.cumsum(w[order])  # cumulative weight of the sorted values
    k = min(np.searchsorted(cdf, 0.5 * cdf[-1]), v.size - 1)  # first k with cdf[k] >= W / 2
    return float(v[order[k]])  # eq-gb-leaf, absolute error


def _newton_step(r, h, w):
    """sum w r / sum w h; 0 where the loss is flat (sum w h < 1e-150, scikit-learn's rule)."""
    numerator, denominator = np.sum(w * r), np.sum(w * h)
    if abs(denominator) < 1e-150:
        return 0.0
    return float(numerator / denominator)  # eq-gb-leaf, Newton step


def weighted_median(values: Any, weights: Any = None) -> float:
    r"""Lower weighted median: the smallest value whose cumulative weight reaches half the total.

    Parameters
    ----------
    values : array-like of shape (n,)
        Finite numbers (e.g. the residuals :math:`y_i - F(x_i)` of a leaf).
    weights : array-like of shape (n,), optional
        Non-negative weights with a positive sum; uniform by default.

    Returns
    -------
    float
        :math:`\min\{v_{(k)} : \sum_{i \le k} w_{(i)} \ge \tfrac12 \sum_i w_i\}` over the
        values sorted increasingly. It minimises :math:`\sum_i w_i |v_i - c|` over
        :math:`c` (equation ``eq-gb-leaf`` for the absolute error); when the
        minimiser is an interval it is its left end. This is scikit-learn's
        ``_weighted_percentile(values, weights, 50)``.
    """
    v = check_reals(values, "values", vector=True)
    w = check_sample_weight(weights, v.size, name="weights")
    return _weighted_median(v, w)


def newton_leaf_value(residual: Any, hessian: Any, weights: Any = None) -> float:
    r"""One Newton step for a leaf: :math:`\sum_i \omega_i r_i / \sum_i \omega_i h_i`.

    Parameters
    ----------
    residual : array-like of shape (n,)
        Negative gradients :math:`r_i = -g_i` of the leaf's samples.
    hessian : array-like of shape (n,)
        Second derivatives :math:`h_i \ge 0`.
    weights : array-like of shape (n,), optional
        Sample weights :math:`\omega_i`.

    Returns
    -------
    float
        The leaf value :math:`w` minimising the second-order expansion
        :math:`\sum_i \omega_i (-r_i w + \tfrac12 h_i w^2)` (equation
        ``eq-gb-newton``); ``0.0`` when :math:`\sum_i \omega_i h_i < 10^{-150}`, where the
        loss is flat and no step improves it (scikit-learn's rule).
    """
    r = check_reals(residual, "residual")
    h = check_reals(hessian, "hessian", 0.0, None, message="be non-negative")
    check_same_shape(residual=r, hessian=h)
    check_shape(r, "residual", (None,), at_least=1,
                described="(n,) with n >= 1 (an empty leaf has no Newton step)")
    w = check_sample_weight(weights, r.size, name="weights")
    return _newton_step(r, h, w)
