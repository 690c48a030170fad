r"""Small pieces of boosting theory that the chapters check numerically.

The estimators live in :mod:`ensemble_ref.ensembles.adaboost` and
:mod:`ensemble_ref.ensembles.gradient_boosting`, the losses in :mod:`ensemble_ref.math.losses`.
This module holds what a derivation needs *besides* them, so that a chapter can
compare the estimators with an independent computation:

* :func:`best_stump_brute_force` tries every decision stump on every point, the
  slow reference for the sort-and-cumulative-sum search of
  :class:`~ensemble_ref.trees.stump.DecisionStump` (chapter *AdaBoost*);
* :func:`reweight_misclassified` is the weight update in the form most texts
  write it, :math:`w_i \leftarrow w_i e^{\beta [h(x_i) \ne y_i]}` followed by
  normalisation (equation ``eq-adaboost-literature``);
* :func:`samme_exponential_loss` is the multi-class exponential loss minimised
  by SAMME (equation ``eq-samme-loss``);
* :func:`line_search` and :func:`squared_error_step` find the step
  :math:`\rho` minimising :math:`\sum_i L(y_i, F_i + \rho\, h_i)` (equation
  ``eq-gb-line-search``), numerically for any loss and in closed form for the
  squared error;
* :class:`~ensemble_ref.ensembles.linear_boosting.LinearBoostingRegressor` boosts linear least-squares learners, whose
  sum stays a linear function (chapter *Gradient boosting*).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from ..core.validation import (
    check_dtype,
    check_float,
    check_int,
    check_integers,
    check_labels,
    check_nonzero,
    check_reals,
    check_same_shape,
    check_sample_weight,
    check_shape,
    check_X_y,
)
from . import adaboost
from .losses import Loss, get_loss

__all__ = [
    "best_stump_brute_force",
    "reweight_misclassified",
    "samme_exponential_loss",
    "line_search",
    "squared_error_step",
]


# --- decision stumps by exhaustive search -----------------------------------------------


def best_stump_brute_force(X: Any, y: Any, sample_weight: Any = None
                           ) -> tuple[float, int, float]:
    r"""Smallest weighted 0-1 error of any decision stump, by evaluating every stump.

    A stump predicts a label :math:`a` when :math:`x_j \le \theta` and a label
    :math:`b` otherwise. Every feature :math:`j`, every threshold :math:`\theta`
    halfway between two consecutive distinct values of feature :math:`j` (plus
    :math:`\theta = +\infty`, the constant classifiers) and every pair of labels
    :math:`(a, b)` is tried, and its weighted error is computed point by point:
    :math:`O(d\, n^2 K^2)` work instead of the :math:`O(d\, n \log n)` of a sorted
    search. It is meant as a reference on small data.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class labels (at least two distinct values).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; normalised to sum 1. Uniform when omitted.

    Returns
    -------
    error : float
        :math:`\min_{j, \theta, a, b} \sum_i w_i [h(x_i) \ne y_i]` with
        :math:`\sum_i w_i = 1` (equation ``eq-stump-error``).
    feature : int
        A feature attaining the minimum (the lowest index among ties).
    threshold : float
        A threshold attaining it for that feature (the smallest among ties).

    Notes
    -----
    Equation ``eq-stump-error`` of the chapter *AdaBoost*.
    """
    X, y = check_X_y(X, y)
    classes, y_enc = check_labels(y)
    w = check_sample_weight(sample_weight, X.shape[0])
    w = w / w.sum()
    K = classes.size
    # wrong[k, i] = w_i if point i does not have label k: the cost of predicting k there
    wrong = np.array([np.where(y_enc != k, w, 0.0) for k in range(K)])
    best = (np.inf, -1, np.inf)
    for j in range(X.shape[1]):
        v = np.unique(X[:, j])
        thresholds = np.append((v[:-1] + v[1:]) / 2.0, np.inf)  # midpoints, then "constant"
        left = X[:, j][None, :] <= thresholds[:, None]  # left[m, i]: point i goes left at theta_m
        cost_left = left.astype(float) @ wrong.T  # cost_left[m, a]: error on the left if it says a
        cost_right = (~left).astype(float) @ wrong.T
        err = cost_left[:, :, None] + cost_right[:, None, :]  # err[m, a, b]
        m = int(np.argmin(err.min(axis=(1, 2))))
        e = float(err[m].min())
        if e < best[0] - 1e-15:
            best = (e, j, float(thresholds[m]))
    return best


# --- the AdaBoost weight update as most texts write it ------------------------------------


def reweight_misclassified(weights: Any, misclassified: Any, beta: float) -> np.ndarray:
    r"""Multiply the weights of the misclassified points by :math:`e^{\beta}` and normalise.

    Parameters
    ----------
    weights : array-like of shape (n_samples,)
        Current weights :math:`w_i \ge 0` with a positive sum.
    misclassified : array-like of bool, shape (n_samples,)
        :math:`[h(x_i) \ne y_i]`.
    beta : float
        The vote in the "no one half" convention,
        :math:`\beta = \ln\frac{1 - \epsilon}{\epsilon}` (plus :math:`\ln(K - 1)` in SAMME).

    Returns
    -------
    ndarray of shape (n_samples,)
        :math:`w_i e^{\beta [h(x_i) \ne y_i]} / \sum_k w_k e^{\beta [h(x_k) \ne y_k]}`,
        summing to 1.

    Notes
    -----
    Equation ``eq-adaboost-literature``. Because
    :math:`e^{-\alpha y h(x)} = e^{-\alpha} e^{2\alpha [h(x) \ne y]}`, this is the
    book's update (equation ``eq-adaboost-weights``) with :math:`\beta = 2\alpha`:
    the common factor :math:`e^{-\alpha}` disappears in the normalisation.
    """
    w = check_shape(np.asarray(weights), "weights", (None,), described="(n_samples,)")
    w = check_sample_weight(w, w.shape[0], name="weights")
    wrong = check_dtype(misclassified, "misclassified", "b", "booleans")
    check_shape(wrong, "misclassified", w.shape)
    beta = check_float(beta, "beta")
    # the book's update with alpha = beta / 2: e^{-alpha y h} = e^{-alpha} e^{beta [h != y]}
    return adaboost._reweight(w / w.sum(), np.where(wrong, -1.0, 1.0), 0.5 * beta)[0]


# --- SAMME ----------------------------------------------------------------------------------


def samme_exponential_loss(y: Any, F: Any, n_classes: int) -> np.ndarray:
    r"""The multi-class exponential loss of SAMME, one value per sample.

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        Class indices in ``0, ..., n_classes - 1``.
    F : array-like of shape (n_samples, n_classes)
        Class scores :math:`F_k(x_i)`.
    n_classes : int
        :math:`K \ge 2`.

    Returns
    -------
    ndarray of shape (n_samples,)
        :math:`\exp\bigl(-\tfrac1K \sum_k Y_{ik} F_k(x_i)\bigr)` with the SAMME
        coding :math:`Y_{ik} = 1` if :math:`k = y_i` and :math:`-1/(K - 1)`
        otherwise (equation ``eq-samme-loss``).
    """
    K = check_int(n_classes, "n_classes", low=2)
    y = check_integers(y, "y", 0, K - 1, message=f"hold class indices in [0, {K - 1}]")
    check_shape(y, "y", (None,))
    F = check_shape(check_reals(F, "F"), "F", (y.shape[0], K))
    Y = adaboost._samme_codes(y, K)  # SAMME code of the labels
    return np.exp(-np.sum(Y * F, axis=1) / K)  # eq-samme-loss


# --- line search ------------------------------------------------------------------------------


def _resolve_loss(loss: Any) -> Loss:
    if isinstance(loss, Loss):
        return loss
    return get_loss(loss)


def line_search(loss: Any, y: Any, F: Any, direction: Any, *, xtol: float = 1e-10) -> float:
    r"""The step :math:`\rho` minimising :math:`\sum_i L(y_i, F_i + \rho\, h_i)`, numerically.

    Parameters
    ----------
    loss : str or Loss
        A name accepted by :func:`ensemble_ref.math.losses.get_loss`
        (``"squared_error"``, ``"absolute_error"``, ``"log_loss"``,
        ``"exponential"``) or a :class:`~ensemble_ref.math.losses.Loss`.
    y : array-like of shape (n_samples,)
        Targets or labels in the loss's convention.
    F : array-like of shape (n_samples,)
        Current scores :math:`F_{m-1}(x_i)`.
    direction : array-like of shape (n_samples,)
        The new learner's outputs :math:`h_m(x_i)`, not all zero.
    xtol : float, default=1e-10
        Relative tolerance on :math:`\rho` passed to Brent's method.

    Returns
    -------
    float
        :math:`\rho^\star = \arg\min_\rho \sum_i L(y_i, F_i + \rho h_i)`
        (equation ``eq-gb-line-search``), found by
        ``scipy.optimize.minimize_scalar`` (Brent's method). The losses of the
        book are convex in :math:`\rho`, so the minimum found is global.

    Raises
    ------
    ValueError
        If the direction is zero everywhere, or (exponential and log loss) the
        loss decreases without bound along it, which happens exactly when
        :math:`y_i h_i \ge 0` for every point or :math:`y_i h_i \le 0` for every
        point (labels written as :math:`\pm 1`).

    Notes
    -----
    Brent's method only evaluates the function, so near a smooth minimum it
    locates :math:`\rho^\star` to about the square root of machine precision
    (:math:`\approx 10^{-8}` relative), not to full precision.
    """
    L = _resolve_loss(loss)
    y, F, h = check_reals(y, "y"), check_reals(F, "F"), check_reals(direction, "direction")
    check_same_shape(y=y, F=F, direction=h)
    check_shape(y, "y", (None,))
    check_nonzero(h, "direction")
    xtol = check_float(xtol, "xtol", low=0.0, low_open=True)

    def total(rho: float) -> float:
        return float(np.sum(L.value(y, F + rho * h)))  # sum_i L(y_i, F_i + rho h_i)

    if L.name in ("exponential", "log_loss"):
        # Both losses decrease towards 0 along h when h never disagrees with the labels:
        # then there is no minimiser.
        margin = (np.where(L.name == "log_loss", 2 * y - 1, y)) * h  # y_i h_i with y_i = +-1
        check_integers(int(min(np.sum(margin > 0), np.sum(margin < 0))),
                       "the number of points where direction agrees, and disagrees, in sign with "
                       "the label", low=1, message="be at least 1: otherwise the loss has no minimum "
                       "along direction (it decreases without bound)")
    scale = 1.0 / np.max(np.abs(h))
    res = minimize_scalar(total, bracket=(0.0, scale), method="brent", options={"xtol": xtol})
    rho = float(res.x)
    return rho


def squared_error_step(residuals: Any, direction: Any) -> float:
    r"""Closed-form line search for the squared error: :math:`\rho = \langle r, h\rangle / \langle h, h\rangle`.

    Parameters
    ----------
    residuals : array-like of shape (n_samples,)
        :math:`r_i = y_i - F_{m-1}(x_i)`.
    direction : array-like of shape (n_samples,)
        :math:`h_m(x_i)`, not all zero.

    Returns
    -------
    float
        The minimiser of :math:`\sum_i (r_i - \rho h_i)^2` (equation ``eq-gb-step-squared``).
    """
    r, h = check_reals(residuals, "residuals"), check_reals(direction, "direction")
    check_same_shape(residuals=r, direction=h)
    check_shape(r, "residuals", (None,))
    hh = float(h @ h)
    check_reals(hh, "the squared norm of direction", 0.0, None, low_open=True,
                message="be positive: direction must not be zero everywhere")
    return float(r @ h) / hh  # eq-gb-step-squared


# --- boosting linear learners ------------------------------------------------------------
