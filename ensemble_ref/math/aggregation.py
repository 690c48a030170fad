"""Aggregating the members of a parallel ensemble: staged and out-of-bag errors.

A bagged ensemble predicts by averaging its members' outputs ``h_t(x)``
(class-probability vectors or one-hot votes for a classifier, numbers for a
regressor). Two questions of the chapters *Bagging, pasting and out-of-bag
estimation* and *Random forests* need the members' outputs one by one:

* how the error of the ensemble made of the **first** ``M`` members changes
  with ``M`` (:func:`staged_errors`);
* the **out-of-bag** estimate (equation ``eq-oob-estimate``): point ``i`` is
  predicted by the average over the members whose training sample missed it,

  .. math:: \\hat f^{\\mathrm{OOB}}(x_i) = \\frac{1}{|\\mathcal M_i|}
            \\sum_{t \\in \\mathcal M_i} h_t(x_i),
            \\qquad \\mathcal M_i = \\{t : c_{ti} = 0\\},

  where :math:`c_{ti}` is the number of times member ``t`` drew point ``i``;
  points with :math:`\\mathcal M_i = \\emptyset` have no OOB prediction and
  are left out of the OOB error (:func:`oob_error`, :func:`oob_error_curve`).

The functions take the members' outputs as one array, so that they apply to
any ensemble and to hand-made examples alike.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..core.validation import (
    check_int,
    check_integers,
    check_reals,
    check_sequence,
    check_shape,
    check_size,
)
from . import crowds
from .bootstrap import oob_fraction_exact

__all__ = [
    "in_bag_counts",
    "one_hot_votes",
    "staged_errors",
    "oob_aggregate",
    "oob_error",
    "oob_error_curve",
    "oob_expected_error",
]


def in_bag_counts(samples: Sequence[np.ndarray], n_samples: int) -> np.ndarray:
    """Count how many times each member drew each training point.

    Parameters
    ----------
    samples : sequence of 1-D int arrays
        ``samples[t]`` lists the (possibly repeated) indices member ``t`` was
        trained on, e.g. a fitted bagging ensemble's ``estimators_samples_``.
    n_samples : int
        ``N``, the size of the training set.

    Returns
    -------
    ndarray of int, shape (T, N)
        ``c[t, i]``: the number of copies of point ``i`` in member ``t``'s
        sample. Point ``i`` is out of bag for member ``t`` when ``c[t, i] == 0``.
    """
    N = check_int(n_samples, "n_samples", low=1)
    samples = check_sequence(list(samples) if isinstance(samples, np.ndarray) else samples,
                             "samples", "members' index arrays")
    c = np.zeros((len(samples), N), dtype=np.int64)
    for t, idx in enumerate(samples):
        idx = check_integers(idx, f"samples[{t}]", 0, N - 1,
                             message=f"hold indices in [0, {N - 1}] for n_samples={N}")
        check_shape(idx, f"samples[{t}]", (None,))
        c[t] = np.bincount(idx, minlength=N)  # c_ti = copies of point i drawn by member t
    return c


def one_hot_votes(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Turn class indices into one-hot votes.

    Parameters
    ----------
    labels : int array of any shape, values in ``0..n_classes-1``
    n_classes : int

    Returns
    -------
    ndarray of float, shape ``labels.shape + (n_classes,)``
        Averaging one-hot votes and taking the arg-max is majority (hard) voting.
    """
    K = check_int(n_classes, "n_classes", low=1)
    labels = check_integers(labels, "labels", 0, K - 1, message=f"be class indices in [0, {K - 1}]")
    check_size(float(labels.size) * K, "n_classes")
    return (labels[..., None] == np.arange(K)).astype(np.float64)


_OUTPUT_SHAPES = ("(n_members, n_samples) for a regressor or (n_members, n_samples, n_classes) "
                  "for a classifier")


def _outputs(outputs: np.ndarray, y: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """The members' outputs as finite floats, shape (T, N) or (T, N, K), and the targets ``y``:
    class indices for classifier outputs, finite reals for regressor outputs."""
    F = check_reals(outputs, "outputs")
    check_shape(F, "outputs", (None,) * (3 if F.ndim == 3 else 2), at_least=1, described=_OUTPUT_SHAPES)
    if y is None:
        return F, None
    y = check_shape(np.asarray(y), "y", (F.shape[1],), described=f"({F.shape[1]},) to match outputs")
    if F.ndim == 3:
        K = F.shape[2]
        return F, check_integers(y, "y", 0, K - 1,
                                 message=f"hold class indices in [0, {K - 1}] for classifier outputs")
    return F, check_reals(y, "y")


def _errors(mean_outputs: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-point loss of aggregated outputs: 0-1 loss of the arg-max, or squared error."""
    if mean_outputs.ndim == y.ndim + 1:  # classifier: arg-max of the averaged scores
        return (_argmax_last(mean_outputs) != y).astype(np.float64)
    return (mean_outputs - y) ** 2


def _cumsum_members(F: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.cumsum(F, axis=0, out=out)`` of float members' outputs: the same sums (each member
    added to the sum of those before it), a member at a time when a member holds 64 numbers or
    more (numpy accumulates along the first axis about ten times slower than it adds two rows).
    ``out`` may be ``F`` itself (an array of one's own: no fresh pages to fault in)."""
    if F.dtype != np.float64 or F.shape[0] * 64 > F.size:
        return np.cumsum(F, axis=0, out=out)
    out = np.empty_like(F) if out is None else out
    out[0] = F[0]
    for t in range(1, F.shape[0]):
        np.add(out[t - 1], F[t], out=out[t])
    return out


def _argmax_last(A: np.ndarray) -> np.ndarray:
    """``np.argmax(A, axis=-1)`` (the first largest), compared column by column for 2 to 8 classes
    without NaN (numpy's arg-max along a short last axis is ten times slower); numpy's otherwise."""
    K = A.shape[-1]
    if not (A.dtype.kind == "f" and 1 < K <= 8) or np.isnan(A).any():
        return np.argmax(A, axis=-1)
    best, index = A[..., 0], np.zeros(A.shape[:-1], dtype=np.intp)
    for k in range(1, K):
        better = A[..., k] > best  # strictly: a tie keeps the first
        index[better] = k
        if k + 1 < K:
            best = np.maximum(best, A[..., k])
    return index


def staged_errors(outputs: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Error of the ensemble made of the first ``M`` members, for ``M = 1..T``.

    Parameters
    ----------
    outputs : ndarray, shape (T, N) or (T, N, K)
        Member ``t``'s output on point ``i``: a number (regression) or a vector
        of class scores (class probabilities, or :func:`one_hot_votes` for hard
        voting).
    y : ndarray, shape (N,)
        Targets (regression) or class indices ``0..K-1``.

    Returns
    -------
    ndarray, shape (T,)
        Entry ``M-1`` is the mean squared error, or the misclassification rate
        of the arg-max (ties go to the lowest class index), of the average of
        members ``1..M``.
    """
    F, y = _outputs(outputs, y)  # (F: a copy of the outputs, check_reals's own)
    T = F.shape[0]
    mean_M = _cumsum_members(F, out=F)  # (in place: no fresh pages)
    mean_M /= np.arange(1, T + 1).reshape((T,) + (1,) * (F.ndim - 1))
    return _errors(mean_M, y[None]).mean(axis=1)


def oob_aggregate(in_bag: np.ndarray, outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average each point's outputs over the members for which it is out of bag.

    Parameters
    ----------
    in_bag : ndarray of int, shape (T, N)
        Copies of each point in each member's sample (:func:`in_bag_counts`).
    outputs : ndarray, shape (T, N) or (T, N, K)
        Every member's output on every training point.

    Returns
    -------
    oob_mean : ndarray, shape (N,) or (N, K)
        :math:`\\hat f^{\\mathrm{OOB}}(x_i)`, equation ``eq-oob-estimate``.
        Rows of points that are in bag for every member have no OOB
        prediction and are set to NaN, so they cannot be used by mistake.
    n_oob : ndarray of int, shape (N,)
        :math:`|\\mathcal M_i|`, the number of members for which point ``i``
        is out of bag.
    """
    F, _ = _outputs(outputs, None)
    c = _counts(in_bag, F)
    oob = (c == 0).astype(np.float64)  # 1 when member t never drew point i
    n_oob = oob.sum(axis=0).astype(np.int64)  # |M_i|
    w = oob.reshape(oob.shape + (1,) * (F.ndim - 2))
    total = (w * F).sum(axis=0)  # sum over t in M_i of h_t(x_i)
    return _oob_mean(total, n_oob), n_oob


def _counts(in_bag: np.ndarray, F: np.ndarray) -> np.ndarray:
    """The in-bag counts (T, N) of the members whose outputs are ``F``: non-negative integers."""
    check_shape(np.asarray(in_bag), "in_bag", F.shape[:2], described=f"{F.shape[:2]} to match outputs")
    return check_integers(in_bag, "in_bag", low=0, bool_ok=True, message="hold non-negative integer counts")


def _oob_mean(total: np.ndarray, n_oob: np.ndarray) -> np.ndarray:
    """sum_{t in M_i} h_t(x_i) / |M_i| per point (rows of shape () or (K,)); NaN when M_i is empty."""
    with np.errstate(invalid="ignore", divide="ignore"):
        oob_mean = total / n_oob.reshape((-1,) + (1,) * (total.ndim - 1))  # eq-oob-estimate
    oob_mean[n_oob == 0] = np.nan
    return oob_mean


def oob_error(in_bag: np.ndarray, outputs: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """Out-of-bag error: the error of the OOB predictions over the points that have one.

    Returns
    -------
    error : float
        Mean squared error (regression) or misclassification rate
        (classification) of :func:`oob_aggregate`'s predictions, averaged over
        the points with at least one OOB member.
    n_used : int
        The number of such points. A ``ValueError`` is raised when there is
        none (every point was drawn by every member).
    """
    F, y = _outputs(outputs, y)
    oob_mean, n_oob = oob_aggregate(in_bag, F)
    used = n_oob > 0
    check_integers(int(used.sum()), "the number of out-of-bag points", low=1,
                   message="be at least 1 (no point is out of bag for any member: the OOB error is "
                           "undefined)")
    return float(_errors(oob_mean[used], y[used]).mean()), int(used.sum())


def oob_error_curve(in_bag: np.ndarray, outputs: np.ndarray, y: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """OOB error of the ensemble of the first ``M`` members, for ``M = 1..T``.

    Returns
    -------
    errors : ndarray, shape (T,)
        The OOB error after ``M`` members (over the points that have an OOB
        member among the first ``M``); NaN for the values of ``M`` at which no
        point has one yet.
    coverage : ndarray, shape (T,)
        The fraction of training points that have at least one OOB member
        among the first ``M``; its expectation is ``1 - (1 - P_N)^M``.
    """
    F, y = _outputs(outputs, y)
    c = _counts(in_bag, F)
    oob = (c == 0).astype(np.float64)
    n_oob_M = _cumsum_members(oob)  # |M_i| using members 1..M
    w = oob.reshape(oob.shape + (1,) * (F.ndim - 2))
    total_M = _cumsum_members(w * F)
    has = n_oob_M > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_M = total_M / n_oob_M.reshape(n_oob_M.shape + (1,) * (F.ndim - 2))
    loss = _errors(np.where(has.reshape(has.shape + (1,) * (F.ndim - 2)), mean_M, 0.0), y[None])
    n_has = has.sum(axis=1)
    errors = np.full(F.shape[0], np.nan)
    ok = n_has > 0
    errors[ok] = (loss * has).sum(axis=1)[ok] / n_has[ok]
    return errors, has.mean(axis=1)


def oob_expected_error(staged_risk: np.ndarray, n_samples: int) -> np.ndarray:
    r"""Expected OOB error of the first ``m`` members predicted from the risks of smaller ensembles.

    A point is out of bag for each of ``m`` members independently with
    probability :math:`P_N = (1 - 1/N)^N`, so its number of OOB members is
    binomial; given that it has ``k >= 1`` of them, its expected OOB loss is the
    risk :math:`R(k)` of a ``k``-member ensemble (proposition
    ``prop-oob-target`` of the book). Hence

    .. math:: \mathbb E\bigl[\widehat{\mathrm{Err}}^{\mathrm{OOB}}_m\bigr]
              = \sum_{k=1}^{m} \pi_{mk} R(k), \qquad
              \pi_{mk} = \frac{\binom{m}{k} P_N^k (1-P_N)^{m-k}}{1 - (1 - P_N)^m},

    equation ``eq-oob-mixture``.

    Parameters
    ----------
    staged_risk : ndarray, shape (T,)
        ``R(1), ..., R(T)``: the risk (e.g. the test error, from
        :func:`staged_errors`) of the ensembles of the first ``k`` members.
    n_samples : int
        ``N``, the size of the training set.

    Returns
    -------
    ndarray, shape (T,)
        Entry ``m-1`` is the predicted mean OOB error of the first ``m`` members.
    """
    R = check_reals(staged_risk, "staged_risk", vector=True)
    N = check_int(n_samples, "n_samples", low=2)
    P = oob_fraction_exact(N)
    k = np.arange(1, R.size + 1)
    pi = crowds._binomial_pmf(k[:, None], k[None, :], P) * (k[None, :] <= k[:, None])  # pi_mk, k <= m
    return pi @ R / pi.sum(axis=1)  # eq-oob-mixture, normalised by 1 - (1 - P_N)^m
