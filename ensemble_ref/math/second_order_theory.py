r"""Brute-force references for the second-order (XGBoost) objective (chapter *XGBoost*).

The booster in :mod:`ensemble_ref.ensembles.xgboost_style` computes leaf weights, structure
scores and split gains from closed forms. This module computes the same
quantities *without* those closed forms, so that the chapter can check them:

* :func:`taylor_remainder` is the error of the second-order expansion of a loss
  (equation ``eq-xgb-taylor``), and :func:`log_loss_remainder_bound` its bound
  for the log loss, :math:`|R| \le |f|^3 / (36\sqrt3)`, built on
  :func:`log_loss_third_derivative`;
* :func:`regularised_objective` and :func:`second_order_objective` evaluate the
  objective of one new tree, with the true loss or with its quadratic model
  (equations ``eq-xgb-objective`` and ``eq-xgb-quadratic``), for any leaf
  weights;
* :func:`minimise_leaf_objective` and :func:`minimise_leaf_loss` find the best
  weight of one leaf by numerical minimisation (Brent's method), from the
  per-point gradients or from the loss itself;
* :func:`split_objective_decreases` and :func:`best_split_brute_force` try every
  threshold of every feature, and both directions for missing values, and
  measure how much each split lowers the minimised quadratic objective.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar

from ..core.validation import (
    check_array,
    check_float,
    check_integers,
    check_reals,
    check_same_shape,
    check_shape,
)
from . import losses
from .losses import Loss, get_loss

__all__ = [
    "taylor_remainder",
    "log_loss_third_derivative",
    "log_loss_remainder_bound",
    "regularised_objective",
    "second_order_objective",
    "minimise_leaf_objective",
    "minimise_leaf_loss",
    "split_objective_decreases",
    "best_split_brute_force",
    "BruteForceSplit",
]


def _resolve_loss(loss: Any) -> Loss:
    """A :class:`~ensemble_ref.math.losses.Loss` from itself or from its name."""
    if isinstance(loss, Loss):
        return loss
    return get_loss(loss)


def _leaves(leaf_index: Any, w: Any, n_samples: int) -> tuple[np.ndarray, np.ndarray]:
    """A leaf assignment ``q`` (one int in ``0..J-1`` per point) and leaf weights ``w`` (length ``J``)."""
    w = check_reals(w, "w", vector=True)
    q = check_integers(leaf_index, "leaf_index", 0, w.size - 1,
                       message=f"lie in [0, {w.size - 1}] for {w.size} leaf weights")
    return check_shape(q, "leaf_index", (n_samples,)), w


# --- the second-order expansion -------------------------------------------------------------


def taylor_remainder(loss: Any, y: Any, F: Any, f: Any) -> np.ndarray:
    r"""Error of the second-order Taylor model of a loss, one value per point.

    Parameters
    ----------
    loss : str or Loss
        A name accepted by :func:`ensemble_ref.math.losses.get_loss` or a
        :class:`~ensemble_ref.math.losses.Loss`.
    y : array-like of shape (n_samples,)
        Targets or labels in the loss's convention.
    F : array-like of shape (n_samples,)
        Current scores :math:`\hat y_i^{(t-1)}`.
    f : float or array-like of shape (n_samples,)
        The step :math:`f_t(x_i)` added to the scores.

    Returns
    -------
    ndarray of shape (n_samples,)
        :math:`R_i = l(y_i, F_i + f_i) - \bigl[l(y_i, F_i) + g_i f_i + \tfrac12 h_i f_i^2\bigr]`.

    Notes
    -----
    Equation ``eq-xgb-taylor``: the booster replaces :math:`l(y_i, F_i + f_i)`
    by the bracket, so :math:`R_i` is exactly what it neglects. The difference
    of two loss values of size about one is computed in floating point, so
    :math:`R_i` carries an absolute rounding error of a few times
    :math:`10^{-16}`.
    """
    L = _resolve_loss(loss)
    y = check_reals(y, "y", vector=True)
    F = check_reals(F, "F", vector=True)
    f = check_reals(f, "f")
    if f.ndim == 0:
        f = np.full_like(F, float(f))
    check_shape(f, "f", (None,), at_least=1)
    check_same_shape(y=y, F=F, f=f)
    g = L.gradient(y, F)  # g_i = dl/dF
    h = L.hessian(y, F)  # h_i = d^2 l / dF^2
    return L.value(y, F + f) - (L.value(y, F) + g * f + 0.5 * h * f ** 2)  # eq-xgb-taylor


def log_loss_third_derivative(F: Any) -> np.ndarray | float:
    r"""Third derivative of the log loss in the score, :math:`p(1-p)(1-2p)` with :math:`p = \sigma(F)`.

    Parameters
    ----------
    F : float or array-like
        Scores (log-odds).

    Returns
    -------
    float or ndarray
        :math:`\partial^3 l / \partial F^3`, the same for both labels (the label
        enters the log loss linearly). In absolute value it is at most
        :math:`1/(6\sqrt3)`, reached at :math:`p = \tfrac12 \pm 1/(2\sqrt3)`.
    """
    F = check_reals(F, "F")
    p = losses._sigmoid(F)  # sigma(F)
    q = losses._sigmoid(-F)  # 1 - sigma(F), without cancellation
    out = p * q * (q - p)  # p (1 - p) (1 - 2p)
    return float(out) if out.ndim == 0 else out


def log_loss_remainder_bound(f: Any) -> np.ndarray | float:
    r"""Bound on the Taylor remainder of the log loss: :math:`|R| \le |f|^3 / (36\sqrt3)`.

    Parameters
    ----------
    f : float or array-like
        Steps added to the score.

    Returns
    -------
    float or ndarray
        :math:`\max_F |l'''(F)| \, |f|^3 / 3! = |f|^3 / (36\sqrt3)` (theorem
        ``thm-xgb-taylor``), valid for every score and both labels.
    """
    f = check_reals(f, "f")
    out = np.abs(f) ** 3 / (36.0 * np.sqrt(3.0))  # sup|l'''| |f|^3 / 6
    return float(out) if out.ndim == 0 else out


# --- the objective of one new tree ----------------------------------------------------------


def regularised_objective(loss: Any, y: Any, F: Any, leaf_index: Any, w: Any, lam: float = 1.0,
                          tau: float = 0.0) -> float:
    r"""Regularised objective after adding one tree with leaves ``leaf_index`` and weights ``w``.

    Parameters
    ----------
    loss : str or Loss
        A name accepted by :func:`ensemble_ref.math.losses.get_loss` or a
        :class:`~ensemble_ref.math.losses.Loss`.
    y : array-like of shape (n_samples,)
        Targets or labels in the loss's convention.
    F : array-like of shape (n_samples,)
        Scores of the ensemble before the new tree.
    leaf_index : array-like of int, shape (n_samples,)
        The leaf :math:`q(x_i) \in \{0, \dots, J-1\}` of each point.
    w : array-like of shape (J,)
        Leaf weights.
    lam, tau : float, default=1.0 and 0.0
        The penalties :math:`\lambda \ge 0` (ridge) and :math:`\tau \ge 0` (per leaf).

    Returns
    -------
    float
        :math:`\sum_i l(y_i, F_i + w_{q(x_i)}) + \tau J + \tfrac12 \lambda \sum_j w_j^2`,
        equation ``eq-xgb-objective`` restricted to the new tree (the penalties
        of the earlier trees are constants).
    """
    L = _resolve_loss(loss)
    y = check_reals(y, "y", vector=True)
    F = check_reals(F, "F", vector=True)
    check_same_shape(y=y, F=F)
    q, w = _leaves(leaf_index, w, y.size)
    lam, tau = check_float(lam, "lam", low=0.0), check_float(tau, "tau", low=0.0)
    J = w.size
    loss_sum = float(np.sum(L.value(y, F + w[q])))  # sum_i l(y_i, F_i + w_q(x_i))
    return loss_sum + tau * J + 0.5 * lam * float(w @ w)  # + Omega(f), eq-xgb-objective


def second_order_objective(g: Any, h: Any, leaf_index: Any, w: Any, lam: float = 1.0,
                           tau: float = 0.0) -> float:
    r"""Quadratic model of the objective, summed point by point, for any leaf weights.

    Parameters
    ----------
    g, h : array-like of shape (n_samples,)
        Per-point gradients :math:`g_i` and hessians :math:`h_i`.
    leaf_index : array-like of int, shape (n_samples,)
        The leaf of each point.
    w : array-like of shape (J,)
        Leaf weights.
    lam, tau : float, default=1.0 and 0.0
        The penalties :math:`\lambda` and :math:`\tau`.

    Returns
    -------
    float
        :math:`\sum_i \bigl[g_i w_{q(x_i)} + \tfrac12 h_i w_{q(x_i)}^2\bigr] + \tau J
        + \tfrac12\lambda \sum_j w_j^2` (equation ``eq-xgb-quadratic``), without
        grouping the points by leaf.
    """
    g = check_reals(g, "g", vector=True)
    h = check_reals(h, "h", vector=True)
    check_same_shape(g=g, h=h)
    q, w = _leaves(leaf_index, w, g.size)
    lam, tau = check_float(lam, "lam", low=0.0), check_float(tau, "tau", low=0.0)
    wq = w[q]
    return float(np.sum(g * wq + 0.5 * h * wq ** 2)) + tau * w.size + 0.5 * lam * float(w @ w)


# --- one leaf, by numerical minimisation -----------------------------------------------------


def _brent(fun, scale: float) -> tuple[float, float]:
    """Minimise a convex function of one variable with Brent's method."""
    res = minimize_scalar(fun, bracket=(0.0, scale), method="brent", options={"xtol": 1e-12})
    return float(res.x), float(res.fun)


def minimise_leaf_objective(g: Any, h: Any, lam: float = 1.0) -> tuple[float, float]:
    r"""Minimise one leaf's quadratic objective numerically, from the per-point terms.

    Parameters
    ----------
    g, h : array-like of shape (n_samples,)
        Gradients and hessians of the points in the leaf (:math:`h_i \ge 0`).
    lam : float, default=1.0
        :math:`\lambda \ge 0`. The sum :math:`\sum_i h_i + \lambda` must be positive.

    Returns
    -------
    (w, value) : tuple of float
        The minimiser and the minimum of
        :math:`\sum_i (g_i w + \tfrac12 h_i w^2) + \tfrac12\lambda w^2`, found by
        Brent's method (``scipy.optimize.minimize_scalar``), which only
        evaluates this sum: no closed form is used.

    Notes
    -----
    Brent's method locates the minimiser to about :math:`10^{-8}` relative
    accuracy; the minimum value, at which the function is flat, is accurate to
    a few units of rounding.
    """
    g = check_reals(g, "g", vector=True)
    h = check_reals(h, "h", vector=True)
    check_same_shape(g=g, h=h)
    check_reals(h, "h", 0.0, None, message="be non-negative (the losses of the book are convex)")
    lam = check_float(lam, "lam", low=0.0)
    check_reals(h.sum() + lam, "sum(h) + lam", 0.0, None, low_open=True,
                message="be positive, otherwise the leaf objective has no minimum; use lam > 0")

    def objective(w: float) -> float:
        return float(np.sum(g * w + 0.5 * h * w * w)) + 0.5 * lam * w * w

    scale = 1.0 / (1.0 + float(np.max(np.abs(g))))
    return _brent(objective, scale)


def minimise_leaf_loss(loss: Any, y: Any, F: Any, lam: float = 1.0) -> tuple[float, float]:
    r"""Minimise one leaf's *true* regularised loss numerically.

    Parameters
    ----------
    loss : str or Loss
        A name accepted by :func:`ensemble_ref.math.losses.get_loss` or a
        :class:`~ensemble_ref.math.losses.Loss`.
    y, F : array-like of shape (n_samples,)
        Labels and current scores of the points in the leaf.
    lam : float, default=1.0
        :math:`\lambda \ge 0`.

    Returns
    -------
    (w, value) : tuple of float
        The minimiser and the minimum of
        :math:`\sum_i l(y_i, F_i + w) + \tfrac12\lambda w^2`, by Brent's method.
        For the squared error this is the Newton weight :math:`-G/(H+\lambda)`;
        for the log loss the Newton weight is only its first Newton step.

    Raises
    ------
    ValueError
        For the log loss with ``lam = 0`` and a leaf whose labels are all equal:
        the loss then decreases without bound and has no minimiser.
    """
    L = _resolve_loss(loss)
    y = check_reals(y, "y", vector=True)
    F = check_reals(F, "F", vector=True)
    check_same_shape(y=y, F=F)
    lam = check_float(lam, "lam", low=0.0)
    if L.name in ("log_loss", "exponential") and np.unique(y).size == 1:
        check_reals(lam, "lam", 0.0, None, low_open=True, message="be positive when the leaf has a "
                    "single label: with lam = 0 the loss then has no minimiser")
    if L.name == "absolute_error":
        check_reals(lam, "lam", 0.0, None, low_open=True, message="be positive for the absolute "
                    "error, whose minimisers with lam = 0 form an interval (use a median)")

    def objective(w: float) -> float:
        return float(np.sum(L.value(y, F + w))) + 0.5 * lam * w * w

    return _brent(objective, 1.0)


# --- splits, by exhaustive search -------------------------------------------------------------


def split_objective_decreases(x: Any, g: Any, h: Any, lam: float = 1.0, tau: float = 0.0
                              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Decrease of the minimised quadratic objective for every split of one feature.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        One feature; ``NaN`` marks a missing value.
    g, h : array-like of shape (n_samples,)
        Gradients and hessians of the points in the node.
    lam, tau : float, default=1.0 and 0.0
        The penalties :math:`\lambda` and :math:`\tau`.

    Returns
    -------
    thresholds : ndarray of shape (n_thresholds,)
        Midpoints between consecutive distinct observed values; a point goes
        left when :math:`x_i < \theta`.
    decrease_left, decrease_right : ndarray of shape (n_thresholds,)
        For each threshold, :math:`V(I) - V(I_L) - V(I_R) - \tau`, where
        :math:`V(S) = \min_w \sum_{i \in S}(g_i w + \tfrac12 h_i w^2) + \tfrac12\lambda w^2`
        is found numerically by :func:`minimise_leaf_objective`, with the points
        whose ``x`` is missing sent left (``decrease_left``) or right
        (``decrease_right``). Without missing values the two are equal.

    Notes
    -----
    This is the definition of the split gain (theorem ``thm-xgb-gain``),
    evaluated without its closed form: :math:`O(n)` numerical minimisations of
    :math:`O(n)` sums each, so use it on small nodes.
    """
    x = check_reals(x, "x", vector=True, allow_nan=True)
    g = check_reals(g, "g", vector=True)
    h = check_reals(h, "h", vector=True)
    check_same_shape(x=x, g=g, h=h)
    lam, tau = check_float(lam, "lam", low=0.0), check_float(tau, "tau", low=0.0)
    missing = np.isnan(x)
    values = np.unique(x[~missing])
    thresholds = 0.5 * (values[:-1] + values[1:])
    V_parent = minimise_leaf_objective(g, h, lam)[1]  # V(I)

    def V(mask: np.ndarray) -> float:
        return minimise_leaf_objective(g[mask], h[mask], lam)[1] if mask.any() else 0.0

    decrease = {True: np.empty(thresholds.size), False: np.empty(thresholds.size)}
    for k, theta in enumerate(thresholds):
        below = np.zeros_like(missing)
        below[~missing] = x[~missing] < theta
        for missing_left in (True, False):
            left = below | missing if missing_left else below
            decrease[missing_left][k] = V_parent - V(left) - V(~left) - tau
    return thresholds, decrease[True], decrease[False]


class BruteForceSplit(NamedTuple):
    """The best split of a node found by :func:`best_split_brute_force`."""

    feature: int
    """Index of the feature split on."""
    threshold: float
    """A point goes left when its value is below the threshold."""
    missing_left: bool
    """Whether points with a missing value go left."""
    decrease: float
    """Decrease of the minimised quadratic objective, :math:`\\tau` included."""


def best_split_brute_force(X: Any, g: Any, h: Any, lam: float = 1.0, tau: float = 0.0
                           ) -> BruteForceSplit:
    r"""Best split of a node over every feature, threshold and missing-value direction.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points of the node; ``NaN`` marks a missing value.
    g, h : array-like of shape (n_samples,)
        Their gradients and hessians.
    lam, tau : float, default=1.0 and 0.0
        The penalties :math:`\lambda` and :math:`\tau`.

    Returns
    -------
    BruteForceSplit
        The split with the largest decrease of the minimised quadratic
        objective (:func:`split_objective_decreases`). Ties are broken in favour
        of the lower feature index, then the smaller threshold, then missing
        values going right.

    Raises
    ------
    ValueError
        If no feature has two distinct observed values (no split exists).
    """
    X = check_array(X, "X", allow_nan=True)
    best: BruteForceSplit | None = None
    n_candidates = 0
    for j in range(X.shape[1]):
        thresholds, dec_left, dec_right = split_objective_decreases(X[:, j], g, h, lam, tau)
        n_candidates += thresholds.size
        for k, theta in enumerate(thresholds):
            for missing_left, dec in ((False, dec_right[k]), (True, dec_left[k])):
                if best is None or dec > best.decrease:
                    best = BruteForceSplit(j, float(theta), missing_left, float(dec))
    check_integers(n_candidates, "the number of candidate splits", low=1, message="be at least 1, "
                   "but X has no feature with two distinct observed values: no split exists")
    return best
