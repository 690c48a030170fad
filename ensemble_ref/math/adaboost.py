r"""AdaBoost's formulas as pure functions (chapter *AdaBoost*).

One round of AdaBoost with weights :math:`D_t` summing to 1 and a weak learner
:math:`h_t` computes

* the weighted error :math:`\epsilon_t = \sum_i D_t(i) [h_t(x_i) \ne y_i]`
  (equation ``eq-adaboost-eps``, ``_weighted_error``);
* the vote :math:`\alpha_t = \tfrac{\nu}{2}\big[\ln\frac{1 - \epsilon_t}{\epsilon_t} + \ln(K - 1)\big]`
  (equation ``eq-adaboost-alpha``, :func:`adaboost_alpha`);
* the new weights :math:`D_{t+1}(i) = D_t(i) e^{-\alpha_t y_i h_t(x_i)} / Z_t` with the
  normaliser :math:`Z_t` (equations ``eq-adaboost-weights`` and ``eq-adaboost-z``,
  :func:`adaboost_weights`);

and SAMME codes a predicted class :math:`k` as the vector with 1 in place :math:`k`
and :math:`-1/(K - 1)` elsewhere (equation ``eq-samme-loss``, :func:`samme_codes`).
Each formula is one private vectorised function, called by
:class:`ensemble_ref.ensembles.adaboost.AdaBoostClassifier` in its loop, with a thin
validating public wrapper for the chapters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import (
    as_output,
    check_float,
    check_int,
    check_integers,
    check_reals,
    check_same_shape,
    check_shape,
    check_values,
)
from . import mixture

__all__ = [
    "adaboost_alpha",
    "adaboost_normalizer",
    "adaboost_weights",
    "adaboost_product_bound",
    "adaboost_exponential_bound",
    "samme_codes",
]


# --- the formulas, unvalidated (the estimator's loop) ------------------------------------------


def _weighted_error(D, wrong):
    """epsilon_t = sum of the weights of the misclassified points."""
    return float(D[wrong].sum())  # eq-adaboost-eps


def _alpha(eps, K, nu):
    """The vote (nu/2) [ln((1 - eps)/eps) + ln(K - 1)]; +inf at eps = 0, -inf at eps = 1."""
    with np.errstate(divide="ignore"):  # eps = 0 or 1 give the limits +inf and -inf
        return 0.5 * nu * (np.log1p(-eps) - np.log(eps) + np.log(K - 1.0))  # eq-adaboost-alpha


def _reweight(D, yh, alpha):
    """(D_{t+1}, Z_t) from D_t, the margins y_i h_t(x_i) in {-1, +1} and the vote alpha_t.

    Computed in log space: ``D_t(i) exp(-alpha_t y_i h_t(x_i))`` can underflow (or
    overflow) for a large vote although the normalised weights are representable.
    """
    with np.errstate(divide="ignore"):  # a point of weight 0 keeps log-weight -inf
        log_D = np.log(D) - alpha * yh  # log of D_t(i) exp(-alpha_t y_i h_t(x_i))
    top = log_D.max()
    D = np.exp(log_D - top)  # D_t(i) exp(-alpha_t y_i h_t(x_i)) / e^top
    Z = float(D.sum())  # eq-adaboost-z: Z_t / e^top
    D = D / Z  # eq-adaboost-weights: D_{t+1}
    with np.errstate(over="ignore"):  # Z_t itself may exceed float64 for a huge vote
        return D, Z * float(np.exp(top))


def _samme_codes(index, K):
    """Rows with 1 at the class ``index[i]`` and -1/(K - 1) elsewhere (K = 2: +-1)."""
    codes = np.full((index.shape[0], K), -1.0 / (K - 1))
    codes.ravel()[np.arange(0, codes.size, K) + index] = 1.0  # (flat: twice as fast as [i, index])
    return codes


def _proba(F, K):
    """Class probabilities from the exponential-loss link: p = sigma(2F) (K = 2, F of shape
    (n,)), p_k proportional to exp(F_k / (K - 1)) (SAMME scores of shape (n, K))."""
    scores = np.column_stack([-F, F]) if K == 2 else F  # the full SAMME score matrix
    Z = scores / (K - 1)  # population minimiser of the exponential loss (FHT 2000)
    # where a score is +inf (a perfect learner's infinite vote) the limit puts all the
    # probability, in equal shares, on the classes that reach it
    infinite = np.isposinf(Z).any(axis=1, keepdims=True)
    Z = np.where(infinite, np.where(np.isposinf(Z), 0.0, -np.inf), Z)
    return mixture._softmax(Z)


# --- the public, validating functions ----------------------------------------------------------


def _errors(eps: Any) -> np.ndarray:
    """Weighted errors as floats in [0, 1]."""
    return check_reals(eps, "eps", 0.0, 1.0, message="contain weighted errors in [0, 1]")


def adaboost_weights(D: Any, y: Any, h: Any, alpha: float) -> tuple[np.ndarray, float]:
    r"""One reweighting of AdaBoost: :math:`D_{t+1}(i) = D_t(i)\, e^{-\alpha y_i h(x_i)} / Z_t`.

    Parameters
    ----------
    D : array-like of shape (n_samples,)
        Current weights :math:`D_t` (non-negative, positive sum).
    y, h : array-like of shape (n_samples,)
        Labels and predictions of the weak learner, both in :math:`\{-1, +1\}`.
    alpha : float
        The learner's vote :math:`\alpha_t`.

    Returns
    -------
    (ndarray of shape (n_samples,), float)
        :math:`D_{t+1}`, summing to 1, and the normaliser :math:`Z_t` (equations
        ``eq-adaboost-weights`` and ``eq-adaboost-z``).
    """
    D = check_reals(D, "D", 0.0, None, vector=True)
    y, h = (check_values(check_reals(a, name), name, (-1.0, 1.0)) for a, name in ((y, "y"), (h, "h")))
    check_same_shape(D=D, y=y, h=h)
    return _reweight(D / D.sum(), y * h, check_float(alpha, "alpha"))


def samme_codes(index: Any, n_classes: int) -> np.ndarray:
    r"""SAMME codes of predicted classes, shape (n_samples, n_classes).

    Row ``i`` is 1 at class ``index[i]`` and :math:`-1/(K - 1)` elsewhere (equation
    ``eq-samme-loss``); for :math:`K = 2` the second column is :math:`\pm 1`.
    """
    K = check_int(n_classes, "n_classes", low=2)
    index = check_integers(index, "index", 0, K - 1, message=f"hold class indices in [0, {K - 1}]")
    return _samme_codes(check_shape(index, "index", (None,)), K)


def adaboost_alpha(eps: Any, n_classes: int = 2, learning_rate: float = 1.0
                   ) -> np.ndarray | float:
    r"""The vote of a weak learner with weighted error ``eps``.

    Parameters
    ----------
    eps : float or array of float in [0, 1]
        Weighted error :math:`\epsilon_t`.
    n_classes : int, default=2
        Number of classes :math:`K \ge 2` (SAMME adds :math:`\ln(K - 1)`).
    learning_rate : float, default=1.0
        Shrinkage :math:`\nu > 0` multiplying the vote.

    Returns
    -------
    float or ndarray
        :math:`\alpha = \tfrac{\nu}{2}\left[\ln\frac{1 - \epsilon}{\epsilon} + \ln(K - 1)\right]`;
        ``+inf`` for :math:`\epsilon = 0` and ``-inf`` for :math:`\epsilon = 1`.

    Notes
    -----
    Equation ``eq-adaboost-alpha``: the minimiser over :math:`\alpha` of the
    exponential loss :math:`(1 - \epsilon) e^{-\alpha} + \epsilon e^{\alpha}` (for
    :math:`K = 2`, :math:`\nu = 1`). It is positive exactly when
    :math:`\epsilon < 1 - 1/K`.
    """
    eps = _errors(eps)
    K = check_int(n_classes, "n_classes", low=2)
    nu = check_float(learning_rate, "learning_rate", low=0.0, low_open=True)
    return as_output(_alpha(eps, K, nu))


def adaboost_normalizer(eps: Any, alpha: Any) -> np.ndarray | float:
    r"""The normaliser :math:`Z = (1 - \epsilon) e^{-\alpha} + \epsilon e^{\alpha}`.

    Parameters
    ----------
    eps : float or array of float in [0, 1]
        Weighted error of the round.
    alpha : float or array of float
        The vote given to the learner.

    Returns
    -------
    float or ndarray
        :math:`Z_t = \sum_i D_t(i) e^{-\alpha_t y_i h_t(x_i)}` written with the error
        (equation ``eq-adaboost-z``). At the optimal vote it equals
        :math:`2\sqrt{\epsilon(1 - \epsilon)}`; at :math:`\epsilon = 0,\ \alpha = \infty`
        it is 0.
    """
    eps = _errors(eps)
    alpha = check_reals(alpha, "alpha", allow_inf=True)
    # Terms with a zero weight are zero even when the exponential is infinite.
    right = np.where(eps < 1, (1 - eps) * np.exp(-np.where(eps < 1, alpha, 0.0)), 0.0)
    wrong = np.where(eps > 0, eps * np.exp(np.where(eps > 0, alpha, 0.0)), 0.0)
    Z = right + wrong  # eq-adaboost-z
    return as_output(Z)


def adaboost_product_bound(eps: Any) -> np.ndarray:
    r"""Training-error bound after each round, :math:`\prod_{s \le t} 2\sqrt{\epsilon_s(1 - \epsilon_s)}`.

    Parameters
    ----------
    eps : array of float in [0, 1], shape (M,)
        The weighted errors :math:`\epsilon_1, \dots, \epsilon_M` of the :math:`M`
        rounds (e.g. ``estimator_errors_``).

    Returns
    -------
    ndarray, shape (M,)
        Entry ``t`` is :math:`\prod_{s \le t} Z_s` with the optimal votes
        (equation ``eq-adaboost-bound``).
    """
    eps = np.atleast_1d(_errors(eps))
    return np.cumprod(2.0 * np.sqrt(eps * (1.0 - eps)))  # prod_t Z_t, Z_t = 2 sqrt(eps(1-eps))


def adaboost_exponential_bound(eps: Any) -> np.ndarray:
    r"""The weaker bound :math:`\exp(-2 \sum_{s \le t} \gamma_s^2)`, edges :math:`\gamma_s = \tfrac12 - \epsilon_s`.

    Parameters
    ----------
    eps : array of float in [0, 1], shape (M,)
        The weighted errors of the rounds.

    Returns
    -------
    ndarray, shape (M,)
        Entry ``t`` is :math:`e^{-2\sum_{s \le t}\gamma_s^2}`, which is at least the
        product bound because :math:`2\sqrt{\epsilon(1 - \epsilon)} = \sqrt{1 - 4\gamma^2}
        \le e^{-2\gamma^2}` (equation ``eq-adaboost-bound``).
    """
    eps = np.atleast_1d(_errors(eps))
    gamma = 0.5 - eps  # edge over random guessing
    return np.exp(-2.0 * np.cumsum(gamma**2))
