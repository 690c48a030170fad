r"""The leaf values of gradient boosting as pure functions (chapter *Gradient boosting*).

A leaf :math:`R_{jm}` of the round-:math:`m` tree gets the best step for the loss
(equation ``eq-gb-leaf``): the lower weighted median of the residuals
:math:`y_i - F_{m-1}(x_i)` for the absolute error (:func:`weighted_median`), one
Newton step :math:`\sum_i w_i r_i / \sum_i w_i h_i` for the log loss
(:func:`newton_leaf_value`). The private versions are what
:mod:`ensemble_ref.ensembles.gradient_boosting` runs in its loop over leaves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import check_sample_weight

__all__ = ["weighted_median", "newton_leaf_value"]


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
    v = np.asarray(values)
    if v.dtype.kind not in "biuf":
        raise TypeError(f"values must contain real numbers, got dtype {v.dtype}.")
    v = v.astype(np.float64)
    if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
        raise ValueError("values must be a non-empty 1-D array of finite numbers.")
    w = check_sample_weight(weights, v.size, name="weights")
    return _weighted_median(v, w)


def newton_leaf_value(residual: Any, hessian: Any, weights: Any = None) -> float:
    r"""One Newton step for a leaf: :math:`\sum_i w_i r_i / \sum_i w_i h_i`.

    Parameters
    ----------
    residual : array-like of shape (n,)
        Negative gradients :math:`r_i = -g_i` of the leaf's samples.
    hessian : array-like of shape (n,)
        Second derivatives :math:`h_i \ge 0`.
    weights : array-like of shape (n,), optional
        Sample weights.

    Returns
    -------
    float
        The minimiser of the second-order expansion
        :math:`\sum_i w_i (-r_i \gamma + \tfrac12 h_i \gamma^2)` (equation
        ``eq-gb-leaf``); ``0.0`` when :math:`\sum_i w_i h_i < 10^{-150}`, where the
        loss is flat and no step improves it (scikit-learn's rule).
    """
    r = np.asarray(residual, dtype=np.float64)
    h = np.asarray(hessian, dtype=np.float64)
    if r.shape != h.shape or r.ndim != 1 or not (np.isfinite(r).all() and np.isfinite(h).all()):
        raise ValueError("residual and hessian must be finite 1-D arrays of the same length.")
    if r.size == 0:
        raise ValueError("residual and hessian must hold at least one value (an empty leaf has no "
                         "Newton step).")
    if (h < 0).any():
        raise ValueError("hessian must be non-negative.")
    w = check_sample_weight(weights, r.size, name="weights")
    return _newton_step(r, h, w)
