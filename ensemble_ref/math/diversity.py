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
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.validation import check_array, check_attributes, check_reals, check_shape

__all__ = ["MemberDiversity", "member_diversity", "member_correctness", "mean_pairwise_correlation"]


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
    M = C.shape[0]
    return float((R.sum() - np.trace(R)) / (M * (M - 1)))


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
