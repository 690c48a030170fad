"""Strength and correlation of an ensemble's members: the inputs of the correlated-voters bound.

For members :math:`h_1, \\dots, h_M` and points :math:`(x_i, y_i)`, let
:math:`X_{m i} = \\mathbb 1[h_m(x_i) = y_i]` say whether member ``m`` is right
on point ``i``. The correlated-voters bound (equations ``eq-crowd-variance``
and ``eq-crowd-bound``, :func:`ensemble_ref.math.crowds.majority_lower_bound`) needs

* the mean accuracy (*strength*) :math:`\\bar p = \\frac1M \\sum_m \\bar X_m`, and
* the average pairwise correlation
  :math:`c = \\frac{1}{M(M-1)} \\sum_{m \\ne m'} \\operatorname{corr}(X_m, X_{m'})`

of the correctness indicators (equivalently of the errors
:math:`1 - X_m`, which have the same correlations), both estimated on the
given points.

The chapter *Diversity, selection and uncertainty* adds, on the same indicators,
the pairwise measures of Kuncheva and Whitaker: the Q statistic :func:`q_statistic`
(``eq-div-q``), the disagreement :func:`disagreement` (``eq-div-disagreement``) and
the double fault :func:`double_fault` (``eq-div-double-fault``), with Cohen's kappa
between two members' labels :func:`kappa_statistic` (``eq-div-kappa``), each
averaged over the pairs by :func:`pair_mean`. For regression it adds the
error-ambiguity decomposition :func:`error_ambiguity` (``eq-div-ambiguity``), the
members' gradient of negative correlation learning :func:`ncl_gradient`
(``eq-div-ncl``) and Caruana's forward selection with replacement
:func:`forward_selection` (``alg-div-selection``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.validation import (
    check_array,
    check_attributes,
    check_int,
    check_reals,
    check_shape,
    check_values,
)

__all__ = ["MemberDiversity", "member_diversity", "member_correctness", "mean_pairwise_correlation",
           "pair_mean", "q_statistic", "disagreement", "double_fault", "kappa_statistic",
           "ErrorAmbiguity", "error_ambiguity", "ncl_gradient", "forward_selection"]


class MemberDiversity(NamedTuple):
    """Mean accuracy :math:`\\bar p` and average pairwise error correlation :math:`c`."""

    mean_accuracy: float
    mean_correlation: float


def mean_pairwise_correlation(correct: Any) -> float:
    r"""Average Pearson correlation of the rows of an (M, n) matrix, over the pairs m != m'.

    Parameters
    ----------
    correct : array-like of shape (n_members, n_points)
        Correctness indicators :math:`X_{mi}` (or any real-valued outputs).

    Returns
    -------
    float
        :math:`c = \frac{1}{M(M-1)} \sum_{m \neq m'} \operatorname{corr}(X_m, X_{m'})`,
        with correlations over the empirical distribution of the points.

    Raises
    ------
    ValueError
        If there are fewer than two members, or a member is constant on the
        points (always right or always wrong), for which a correlation is undefined.
    """
    C = check_array(correct, "correct", ensure_2d=False)
    check_shape(C, "correct", (None, None), at_least=2, described="(n_members >= 2, n_points >= 2)")
    D = C - C.mean(axis=1, keepdims=True)
    sd = np.sqrt(np.mean(D * D, axis=1))
    check_reals(sd, "the standard deviation of each member's row of correct", 0.0, None, low_open=True,
                message=f"be positive, but {int(np.sum(sd == 0))} member(s) are right on all points or "
                        "wrong on all points, so their correlation with the others is undefined; use "
                        "more (or harder) points")
    R = (D @ D.T) / C.shape[1] / np.outer(sd, sd)  # corr(X_m, X_m')
    return _pair_mean(R)


def member_correctness(ensemble: Any, X: Any, y: Any) -> np.ndarray:
    """Correctness indicators ``X[m, i] = (h_m(x_i) == y_i)`` of every member, shape (M, n).

    Parameters
    ----------
    ensemble : fitted ensemble or list of fitted classifiers
        An object with ``estimators_`` (bagging, forests, voting, stacking, or
        scikit-learn's ensembles), or a list of classifiers.
    X : array-like of shape (n_points, n_features)
    y : array-like of shape (n_points,)
        True labels.

    Notes
    -----
    Members of an ensemble are often trained on labels encoded as
    ``0..K-1`` (all ensembles of this package, and scikit-learn's). A member
    whose ``classes_`` differ from the ensemble's ``classes_`` is taken to
    predict such codes, which are mapped back through ``classes_``.
    """
    if isinstance(ensemble, (list, tuple)):
        members, classes = list(ensemble), None
    else:
        check_attributes(ensemble, "ensemble", ("estimators_",),
                         "a fitted ensemble (with estimators_) or a list of fitted classifiers")
        members, classes = list(ensemble.estimators_), getattr(ensemble, "classes_", None)
    X = check_array(X, "X")
    y = check_shape(np.asarray(y), "y", (X.shape[0],), described=f"({X.shape[0]},) to match X")
    rows = []
    for member in members:
        labels = np.asarray(member.predict(X))
        member_classes = getattr(member, "classes_", None)
        if classes is not None and member_classes is not None and not np.array_equal(
                np.asarray(member_classes), np.asarray(classes)):
            labels = np.asarray(classes)[labels.astype(np.intp)]  # codes 0..K-1 -> labels
        rows.append(labels == y)
    return np.array(rows)


def member_diversity(ensemble: Any, X: Any, y: Any) -> MemberDiversity:
    """Mean accuracy and average pairwise error correlation of an ensemble's members on ``(X, y)``.

    Parameters
    ----------
    ensemble : fitted ensemble or list of fitted classifiers
        See :func:`member_correctness`.
    X : array-like of shape (n_points, n_features)
    y : array-like of shape (n_points,)

    Returns
    -------
    MemberDiversity
        ``(mean_accuracy, mean_correlation)``: :math:`\\bar p` and :math:`c`, ready
        for :func:`ensemble_ref.math.crowds.majority_lower_bound`. Unpacks as a pair:
        ``strength, correlation = member_diversity(forest, X, y)``.

    Notes
    -----
    Both are empirical: averages over the given points (use held-out points to
    estimate the population quantities of equation ``eq-crowd-variance``).
    """
    correct = member_correctness(ensemble, X, y)
    return MemberDiversity(float(correct.mean()), mean_pairwise_correlation(correct))


# --- pairwise measures of the oracle outputs (chapter "Diversity, selection and uncertainty") ---


def _pair_mean(S):
    """Average of the off-diagonal entries of an (M, M) matrix: the mean over pairs m != m'."""
    M = S.shape[0]
    return float((S.sum() - np.trace(S)) / (M * (M - 1)))


def pair_mean(S: Any) -> float:
    r"""Average of a pairwise measure over the pairs of distinct members.

    Parameters
    ----------
    S : array-like of shape (M, M)
        A pairwise measure :math:`S_{mm'}` (:func:`q_statistic`, :func:`disagreement`, ...).

    Returns
    -------
    float
        :math:`\frac{1}{M(M-1)} \sum_{m \ne m'} S_{mm'}` (the diagonal is ignored).
    """
    S = check_array(S, "S")
    check_shape(S, "S", (S.shape[0], S.shape[0]), at_least=2, described="(M, M) with M >= 2")
    return _pair_mean(S)


def _correct_matrix(correct: Any) -> np.ndarray:
    """The (M, n) table of right (1) / wrong (0) as floats, checked."""
    C = check_array(correct, "correct")
    check_shape(C, "correct", (None, None), at_least=(1, 1), described="(n_members, n_points)")
    return check_values(C, "correct", (0.0, 1.0))


def _pair_counts(C):
    """Counts N11, N10, N01, N00 of every pair (m, m'): both right, only m right, only m' right, both wrong."""
    W = 1.0 - C
    return C @ C.T, C @ W.T, W @ C.T, W @ W.T


def _q_statistic(C):
    """Yule's Q of every pair, eq-div-q."""
    n11, n10, n01, n00 = _pair_counts(C)
    return (n11 * n00 - n01 * n10) / (n11 * n00 + n01 * n10)  # eq-div-q


def q_statistic(correct: Any) -> np.ndarray:
    r"""Yule's Q statistic of every pair of members (equation ``eq-div-q``).

    Parameters
    ----------
    correct : array-like of shape (M, n)
        Oracle outputs: ``correct[m, i] = 1`` when member ``m`` is right on point ``i``, 0 otherwise.

    Returns
    -------
    ndarray of shape (M, M)
        :math:`Q_{mm'} = \frac{N^{11}N^{00} - N^{01}N^{10}}{N^{11}N^{00} + N^{01}N^{10}}`, with
        :math:`N^{ab}` the number of points where member ``m`` is ``a`` (1 right, 0 wrong)
        and member ``m'`` is ``b``. In [-1, 1]; 0 for members whose errors are independent
        in the table, 1 when one member never errs where the other is right.

    Raises
    ------
    ValueError
        If the denominator is 0 for some pair (e.g. a member that is never wrong).
    """
    C = _correct_matrix(correct)
    n11, n10, n01, n00 = _pair_counts(C)
    check_reals(n11 * n00 + n01 * n10, "N11 N00 + N01 N10 of every pair", 0.0, None, low_open=True,
                message="be positive (Q is 0/0 for a pair where no point has both right and both "
                        "wrong, nor one right and the other wrong); use more points")
    return _q_statistic(C)


def disagreement(correct: Any) -> np.ndarray:
    r"""Disagreement of every pair: the share of points where exactly one is right (``eq-div-disagreement``).

    Parameters
    ----------
    correct : array-like of shape (M, n)
        Oracle outputs (1 right, 0 wrong).

    Returns
    -------
    ndarray of shape (M, M)
        :math:`\mathrm{dis}_{mm'} = (N^{01} + N^{10}) / n`.
    """
    C = _correct_matrix(correct)
    _, n10, n01, _ = _pair_counts(C)
    return (n01 + n10) / C.shape[1]  # eq-div-disagreement


def double_fault(correct: Any) -> np.ndarray:
    r"""Double fault of every pair: the share of points where both are wrong (``eq-div-double-fault``).

    Parameters
    ----------
    correct : array-like of shape (M, n)
        Oracle outputs (1 right, 0 wrong).

    Returns
    -------
    ndarray of shape (M, M)
        :math:`\mathrm{DF}_{mm'} = N^{00} / n`; the diagonal is each member's error rate.
    """
    C = _correct_matrix(correct)
    return _pair_counts(C)[3] / C.shape[1]  # eq-div-double-fault


def kappa_statistic(labels: Any) -> np.ndarray:
    r"""Cohen's kappa between the labels of every pair of members (equation ``eq-div-kappa``).

    Parameters
    ----------
    labels : array-like of shape (M, n)
        Predicted labels of ``M`` classifiers on ``n`` points (any hashable labels).

    Returns
    -------
    ndarray of shape (M, M)
        :math:`\kappa_{mm'} = (p_o - p_e) / (1 - p_e)`, with :math:`p_o` the share of points
        where the two agree and :math:`p_e = \sum_k \hat\pi_{mk} \hat\pi_{m'k}` the agreement
        expected by chance from their label frequencies :math:`\hat\pi_{mk}`. Equals
        ``sklearn.metrics.cohen_kappa_score(labels[m], labels[m'])``.

    Raises
    ------
    ValueError
        If :math:`p_e = 1` for a pair (both always predict the same single label).
    """
    L = np.asarray(labels)
    check_shape(L, "labels", (None, None), at_least=(1, 1), described="(n_members, n_points)")
    _, codes = np.unique(L, return_inverse=True)
    onehot = np.eye(codes.max() + 1)[codes.reshape(L.shape)]      # (M, n, K)
    agree = np.einsum("mik,jik->mj", onehot, onehot) / L.shape[1]  # p_o
    freq = onehot.mean(axis=1)                                      # pi_mk
    chance = freq @ freq.T                                          # p_e
    check_reals(1.0 - chance, "1 - p_e of every pair", 0.0, None, low_open=True,
                message="be positive (kappa is 0/0 for two members that always predict one and "
                        "the same label)")
    return (agree - chance) / (1.0 - chance)  # eq-div-kappa


# --- regression ensembles: ambiguity, negative correlation, selection --------------------------


class ErrorAmbiguity(NamedTuple):
    """Mean squared errors of the ensemble and of its members, and the ambiguity (``eq-div-ambiguity``)."""

    ensemble_error: float
    member_error: float
    ambiguity: float


def _member_table(predictions: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    P = check_array(predictions, "predictions")
    y = check_reals(y, "y", vector=True)
    check_shape(P, "predictions", (None, y.size), at_least=(1, 1),
                described=f"(n_members, {y.size}) to match y")
    return P, y


def error_ambiguity(predictions: Any, y: Any, weights: Any = None) -> ErrorAmbiguity:
    r"""The error-ambiguity decomposition of a weighted average (equation ``eq-div-ambiguity``).

    Parameters
    ----------
    predictions : array-like of shape (M, n)
        Members' predictions :math:`h_m(x_i)`.
    y : array-like of shape (n,)
        Targets.
    weights : array-like of shape (M,), optional
        Convex weights :math:`w_m \ge 0`, :math:`\sum_m w_m = 1`; uniform by default.

    Returns
    -------
    ErrorAmbiguity
        Averages over the points of :math:`(\bar f - y)^2` (computed from
        :math:`\bar f = \sum_m w_m h_m` directly), of :math:`\sum_m w_m (h_m - y)^2` and of
        the ambiguity :math:`\sum_m w_m (h_m - \bar f)^2`. Krogh and Vedelsby's identity:
        ``ensemble_error == member_error - ambiguity``, to rounding.
    """
    P, y = _member_table(predictions, y)
    M = P.shape[0]
    w = np.full(M, 1.0 / M) if weights is None else check_reals(weights, "weights", 0.0, None, vector=True)
    check_shape(w, "weights", (M,), described=f"({M},), one per member")
    check_reals(abs(w.sum() - 1.0), "sum(weights) - 1", None, 1e-9, message="be 0: weights sum to one")
    f_bar = w @ P
    return ErrorAmbiguity(float(np.mean((f_bar - y) ** 2)),
                          float(np.mean(w @ (P - y) ** 2)),
                          float(np.mean(w @ (P - f_bar) ** 2)))  # eq-div-ambiguity


def _ncl_gradient(P, y, xi):
    """Liu and Yao's per-member gradient (h_m - y) - xi (h_m - f_bar), eq-div-ncl."""
    f_bar = P.mean(axis=0)
    return (P - y) - xi * (P - f_bar)  # eq-div-ncl


def ncl_gradient(predictions: Any, y: Any, xi: float) -> np.ndarray:
    r"""Negative correlation learning: each member's error signal (equation ``eq-div-ncl``).

    Parameters
    ----------
    predictions : array-like of shape (M, n)
        Members' outputs :math:`h_m(x_i)`.
    y : array-like of shape (n,)
    xi : float in [0, 1]
        The penalty strength :math:`\xi` (Liu and Yao write :math:`\lambda`).

    Returns
    -------
    ndarray of shape (M, n)
        :math:`(h_m - y) - \xi (h_m - \bar f)`, the derivative of member ``m``'s loss
        :math:`\tfrac12 (h_m - y)^2 + \xi p_m`, :math:`p_m = (h_m - \bar f)\sum_{m' \ne m}(h_{m'} - \bar f)`,
        with :math:`\bar f` held fixed (Liu and Yao). :math:`\xi = 0` trains the members
        independently; :math:`\xi = 1` gives every member the ensemble's error :math:`\bar f - y`.
    """
    P, y = _member_table(predictions, y)
    xi = float(check_reals(xi, "xi", 0.0, 1.0, ndim=0))
    return _ncl_gradient(P, y, xi)


def forward_selection(predictions: Any, y: Any, n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Caruana's forward ensemble selection with replacement (algorithm ``alg-div-selection``).

    Parameters
    ----------
    predictions : array-like of shape (K, n)
        Predictions of a library of ``K`` models on a validation set.
    y : array-like of shape (n,)
        Validation targets.
    n_steps : int >= 1
        Number of additions :math:`S`.

    Returns
    -------
    counts : ndarray of int, shape (K,)
        How many times each model was added; the selected ensemble is the average
        with weights ``counts / n_steps``.
    path : ndarray of shape (n_steps,)
        Validation mean squared error of the selected average after each step.

    Notes
    -----
    Each step adds the model (possibly one already chosen) whose addition gives the
    smallest validation mean squared error of the average; ties go to the lowest index.
    """
    P, y = _member_table(predictions, y)
    S = check_int(n_steps, "n_steps", low=1)
    counts = np.zeros(P.shape[0], dtype=np.intp)
    total, path = np.zeros(P.shape[1]), np.empty(S)
    for s in range(S):
        mse = np.mean(((total + P) / (s + 1) - y) ** 2, axis=1)  # the average with each candidate added
        k = int(np.argmin(mse))
        counts[k] += 1
        total += P[k]
        path[s] = mse[k]
    return counts, path
