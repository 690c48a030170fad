r"""The bins of ``tree_method="hist"``: cut points at quantiles, codes by binary search.

A feature with more than ``max_bin`` distinct values is cut at its quantiles of levels
``1/max_bin, ..., (max_bin - 1)/max_bin`` (duplicates removed), and a value's code is
the number of cut points at or below it, so that "code :math:`\le b`" is
":math:`x <` ``cuts[b]``"; a feature with fewer distinct values keeps one bin per value.
These are the bins of :class:`~ensemble_ref.trees.engine.Codes` (the booster) and of
:func:`quantile_bins` (the shards of the data-parallel tree,
:mod:`ensemble_ref.ensembles.distributed`), the same as
:func:`ensemble_ref.math.histograms.quantile_cuts` and
:func:`~ensemble_ref.math.histograms.bin_features`. Each feature is sorted once; the
distinct values and the quantiles are read from the sorted copy, and the codes are
found with ``numpy.searchsorted``.
"""

from __future__ import annotations

import numpy as np

from ..core.validation import check_array, check_int

__all__ = ["sorted_present", "distinct_sorted", "feature_cuts", "feature_codes", "quantile_bins"]


def sorted_present(x: np.ndarray) -> np.ndarray:
    """The values of ``x`` that are not missing (NaN), sorted."""
    s = np.sort(x)  # NaN sorts last
    return s[:s.size - int(np.count_nonzero(np.isnan(s)))]


def distinct_sorted(s: np.ndarray) -> np.ndarray:
    """The distinct values of the sorted array ``s`` (``numpy.unique`` without sorting again)."""
    if s.size == 0:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def feature_cuts(s: np.ndarray, u: np.ndarray, max_bin: int) -> np.ndarray | None:
    """The cut points of a feature with the sorted present values ``s`` and distinct values
    ``u``: its unique quantiles when it has more than ``max_bin`` distinct values, None when
    it keeps one bin per distinct value."""
    if u.size <= max_bin:
        return None
    return np.unique(np.quantile(s, np.arange(1, max_bin) / max_bin))


def feature_codes(x: np.ndarray, cuts: np.ndarray | None, u: np.ndarray) -> np.ndarray:
    """The code of every value of ``x``: its bin (``cuts``) or the rank of its value among the
    distinct values ``u`` (``cuts=None``); ``x < cuts[c]`` exactly when the code is ``<= c``.
    A missing value gets ``len(cuts)`` or ``len(u)``."""
    if cuts is not None:
        return np.searchsorted(cuts, x, side="right")
    return np.searchsorted(u, x)


def quantile_bins(X, max_bin: int = 256) -> tuple[list[np.ndarray], np.ndarray]:
    """The cut points and codes of every feature of ``X``, in one pass per feature.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite values.
    max_bin : int, default=256
        Largest number of bins per feature (>= 2).

    Returns
    -------
    cuts : list of ndarray
        Those of :func:`ensemble_ref.math.histograms.quantile_cuts`: the quantiles, or the
        midpoints between consecutive distinct values of a feature with at most
        ``max_bin`` of them.
    codes : ndarray of shape (n_samples, n_features)
        Those of :func:`~ensemble_ref.math.histograms.bin_features`, in the smallest
        unsigned type, stored feature by feature (``codes.T`` is C-contiguous: the layout
        the histogram grower reads).
    """
    X = check_array(X)
    max_bin = check_int(max_bin, "max_bin", low=2)
    n, d = X.shape
    dtype = np.uint8 if max_bin <= 256 else np.uint16 if max_bin <= 65536 else np.uint32
    codes_T = np.empty((d, n), dtype=dtype)
    cuts = []
    for j in range(d):
        x = X[:, j]
        s = np.sort(x)
        u = distinct_sorted(s)
        c = feature_cuts(s, u, max_bin)
        if c is None:
            c = u[:-1] + (u[1:] - u[:-1]) / 2.0  # one bin per distinct value
        codes_T[j] = np.searchsorted(c, x, side="right")
        cuts.append(c)
    return cuts, codes_T.T
