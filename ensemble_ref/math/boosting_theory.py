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
  sum stays a linear function (chapter *Gradient boosting*);
* the statistical view of boosting: :func:`exponential_population_minimizer` is the
  score minimising the expected exponential loss at a point, half the log-odds
  (equation ``eq-exp-population-minimizer``, chapter *AdaBoost*);
  :func:`forward_stagewise_path` is incremental forward stagewise regression, whose
  path with a small step follows the lasso's when the lasso's coefficients move
  monotonically (equation ``eq-stagewise-step``); :func:`mixed_difference` is the
  mixed finite difference of a fitted function across several features, zero for a
  sum of trees whose depth is below the number of features (equation
  ``eq-mixed-difference``, chapter *Gradient boosting*).
"""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from ..core.validation import (
    as_output,
    check_array,
    check_callable,
    check_dtype,
    check_float,
    check_increasing,
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
    "exponential_population_minimizer",
    "forward_stagewise_path",
    "mixed_difference",
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


# --- the statistical view of boosting ----------------------------------------------------


def _half_log_odds(p):
    """F* = 1/2 ln(p / (1 - p)), the minimiser of p e^{-F} + (1 - p) e^{F}."""
    return 0.5 * np.log(p / (1 - p))  # eq-exp-population-minimizer


def _stagewise_step(beta, r, X, s):
    """One step s on the coefficient most correlated with the residual r, in its sign."""
    c = X.T @ r  # the features' inner products with the residual
    j = int(np.argmax(np.abs(c)))
    move = s * np.sign(c[j])  # eq-stagewise-step
    beta = beta.copy()
    beta[j] += move
    return beta, r - move * X[:, j]


def _mixed_difference(values):
    """Nested differences of values[b_1, ..., b_k, i], one axis (one feature) at a time."""
    for _ in range(values.ndim - 1):
        values = values[1] - values[0]  # eq-mixed-difference
    return values


def exponential_population_minimizer(p: Any) -> np.ndarray | float:
    r"""The score minimising the expected exponential loss at a point: half the log-odds.

    Parameters
    ----------
    p : float or array-like of float in (0, 1)
        The conditional probability :math:`p(x) = P(y = +1 \mid x)` of the label
        :math:`+1` (labels :math:`\pm 1`).

    Returns
    -------
    float or ndarray
        :math:`F^\star(x) = \arg\min_F \mathbb{E}[e^{-yF} \mid x]
        = \arg\min_F \bigl(p\, e^{-F} + (1 - p)\, e^{F}\bigr)
        = \tfrac12 \ln\frac{p}{1 - p}` (equation ``eq-exp-population-minimizer``).

    Notes
    -----
    Friedman, Hastie and Tibshirani (2000): AdaBoost's score estimates half the
    log-odds, so :math:`p = 1/(1 + e^{-2F^\star})`. At :math:`p = 0` or :math:`1`
    the expected loss decreases without bound and has no minimiser.
    """
    p = check_reals(p, "p", 0.0, 1.0, low_open=True, high_open=True,
                    message="be probabilities strictly between 0 and 1 (at 0 and 1 the expected "
                            "exponential loss has no minimiser)")
    return as_output(_half_log_odds(p))


def forward_stagewise_path(X: Any, y: Any, step: float, n_steps: int) -> np.ndarray:
    r"""Incremental forward stagewise regression: the coefficients after each of ``n_steps`` steps.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The features, used as given (no intercept is fitted): centre them and ``y``
        to stand for a model with an intercept, and scale the columns to norm 1 so
        that the inner products :math:`\mathbf{x}_j^\top r` compare correlations.
    y : array-like of shape (n_samples,)
        The target.
    step : float
        The step :math:`s > 0` added to one coefficient per step.
    n_steps : int
        Number of steps :math:`K \ge 0`.

    Returns
    -------
    ndarray of shape (n_steps + 1, n_features)
        Row :math:`k` is :math:`\beta^{(k)}`, from :math:`\beta^{(0)} = 0`. Step :math:`k`
        takes the feature most correlated with the residual :math:`r = y - X\beta^{(k-1)}`,
        :math:`j = \arg\max_l |\mathbf{x}_l^\top r|` (the lowest index among ties), and
        moves its coefficient by :math:`s\, \operatorname{sign}(\mathbf{x}_j^\top r)`
        (equation ``eq-stagewise-step``).

    Notes
    -----
    ESL, section 3.8.1: as :math:`s \to 0` the path is the lasso's when every lasso
    coefficient moves monotonically along the lasso path (an orthogonal design, for
    one); otherwise the two can part. It is boosting of one-feature linear learners
    with a fixed, small step in place of the learner's least-squares coefficient.
    """
    X = check_array(X)
    y = check_reals(y, "y", vector=True)
    check_shape(y, "y", (X.shape[0],), described=f"({X.shape[0]},), one target per row of X")
    s = check_float(step, "step", low=0.0, low_open=True)
    K = check_int(n_steps, "n_steps", low=0)
    path = np.zeros((K + 1, X.shape[1]))
    beta, r = path[0], y.copy()
    for k in range(1, K + 1):
        beta, r = _stagewise_step(beta, r, X, s)
        path[k] = beta
    return path


def mixed_difference(predict: Any, X: Any, features: Any, steps: Any) -> np.ndarray:
    r"""The mixed finite difference of a fitted function across several features, at each row.

    Parameters
    ----------
    predict : callable
        The function :math:`F`: maps an array of shape (n, n_features) to one value
        per row (a fitted model's ``predict``, or one member's).
    X : array-like of shape (n, n_features)
        The points :math:`x` at which the difference is taken.
    features : sequence of int, strictly increasing
        The features :math:`j_1 < \dots < j_k` (:math:`k \ge 1`).
    steps : sequence of float
        The steps :math:`u_1, \dots, u_k`, one per feature, none zero.

    Returns
    -------
    ndarray of shape (n,)
        :math:`\Delta_{j_1 \dots j_k} F(x) = \sum_{b \in \{0, 1\}^k} (-1)^{k - |b|}
        F\bigl(x + \textstyle\sum_l b_l u_l e_{j_l}\bigr)`, computed as nested differences
        along one feature at a time (equation ``eq-mixed-difference``). For
        :math:`k = 2`: :math:`F(x + u e_j + v e_k) - F(x + u e_j) - F(x + v e_k) + F(x)`.

    Notes
    -----
    The difference is zero at every point, for every step, exactly when :math:`F` is
    a sum of functions each of which leaves out one of the :math:`k` features. A
    tree of depth :math:`d` reads at most :math:`d` features on the path to each
    leaf, so every difference of order :math:`d + 1` of a sum of such trees is zero:
    boosted stumps are additive, :math:`\Delta_{jk} F = 0`. Nested differences of
    one stump give an exact zero in floating point, not only to rounding.
    """
    predict = check_callable(predict, "predict", "a function of X (e.g. a fitted model's predict)")
    X = check_array(X)
    j = check_integers(features, "features", 0, X.shape[1] - 1,
                       message=f"hold feature indices in [0, {X.shape[1] - 1}]")
    check_shape(j, "features", (None,), at_least=1)
    check_increasing(j, "features")
    u = check_shape(check_reals(steps, "steps"), "steps", j.shape,
                    described=f"({j.size},), one step per feature")
    check_reals(np.abs(u), "every step", 0.0, None, low_open=True,
                message="be non-zero (a zero step makes the difference zero whatever F)")
    corners = []
    for bits in product((0.0, 1.0), repeat=j.size):  # the first feature varies slowest
        shifted = X.copy()
        shifted[:, j] += np.asarray(bits) * u
        value = check_reals(predict(shifted), "predict(X)")
        corners.append(check_shape(value, "predict(X)", (X.shape[0],),
                                   described=f"({X.shape[0]},), one value per row"))
    return _mixed_difference(np.array(corners).reshape((2,) * j.size + (X.shape[0],)))
