"""The fast engine shared by every tree of the package: CART, the stump, the second-order tree.

Every tree is grown on **presorted** features: each feature is sorted once per
``fit`` (a booster sorts, or bins, once for all its rounds), and the samples of a
node occupy one contiguous *segment* of every sorted row. A level of the tree is
then searched with prefix sums along the rows, and the samples are moved into the
segments of their children by a stable sort on small integer keys (numpy sorts
16-bit keys with a linear-time radix sort), which keeps every segment sorted.

This module is also the **only place for the details that make the trees agree
with the libraries** bit for bit:

* scikit-learn stores features in float32 (:func:`to_float32`), treats values
  closer than ``1e-7`` as equal (``FEATURE_THRESHOLD``) and splits at the
  midpoint of two float32 values computed in float64 (:func:`midpoint32`);
* xgboost codes every feature as ranks (``exact``) or quantile bins (``hist``),
  with missing values last, thresholds at midpoints compared as ``x < s``, and
  the thresholds ``v +- (|v| + 1e-6)`` of "missing versus present" splits
  (:class:`Codes`).

The formulas of the splits themselves (impurities, gains) are in
``ensemble_ref.math``; the growers are :mod:`ensemble_ref.trees.cart_growth`
and :mod:`ensemble_ref.trees.second_order_tree`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FEATURE_THRESHOLD", "SortedColumns", "Codes", "presort", "to_float32", "midpoint32",
           "segment_ranges", "partition", "child_key_type", "MISSING", "MIN_BRACKET"]

FEATURE_THRESHOLD = np.float32(1e-7)  # scikit-learn: feature values closer than this are equal
MIN_BRACKET = 1e-6  # xgboost's kRtEps: a split needs a bracket above it


# --- scikit-learn's storage and thresholds ---------------------------------------------------


def to_float32(X: np.ndarray, name: str = "X") -> np.ndarray:
    """``X`` in single precision, as scikit-learn's trees store it; rejects ``|x| > 3.4e38``."""
    if X.size and np.nanmax(np.abs(X)) > np.finfo(np.float32).max:
        raise ValueError(f"{name} contains values too large for float32 (|x| > 3.4e38).")
    return X.astype(np.float32)


def midpoint32(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """scikit-learn's threshold between two float32 values: ``lo/2 + hi/2`` in float64."""
    return lo.astype(np.float64) / 2.0 + hi.astype(np.float64) / 2.0


# --- presorting and segments -------------------------------------------------------------------


def presort(A: np.ndarray, stable: bool = False) -> np.ndarray:
    """Row ``j`` lists the samples by increasing ``A[j]`` (``A`` holds one feature per row)."""
    return np.argsort(A, axis=1, kind="stable" if stable else None)


class SortedColumns:
    """The features of one ``fit`` in float32, one per contiguous row, each sorted once.

    Attributes
    ----------
    XT : ndarray of float32, shape (n_features, n_samples)
    order : ndarray of int, shape (n_features, n_samples)
        ``order[j]`` lists the samples by increasing ``XT[j]``.
    """

    def __init__(self, X32: np.ndarray) -> None:
        self.XT = np.ascontiguousarray(X32.T)
        self.order = presort(self.XT)  # ties are never split, so their order is irrelevant

    @property
    def n_samples(self) -> int:
        return int(self.XT.shape[1])

    def restrict(self, keep: np.ndarray) -> np.ndarray:
        """The sorted rows restricted to the samples where ``keep`` is True (still sorted)."""
        if keep.all():
            return self.order
        S = self.order
        return S[keep[S]].reshape(S.shape[0], int(keep.sum()))


def segment_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for every pair ``(s, l)`` (vectorised)."""
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(total)


def child_key_type(n_children: int) -> type:
    """The smallest unsigned integer type for child keys (16 bits: numpy's radix sort)."""
    return np.uint16 if n_children < np.iinfo(np.uint16).max else np.uint32


def partition(S: np.ndarray, key: np.ndarray, n_keep: int) -> np.ndarray:
    """Move every sample into its child's segment, keeping each segment sorted.

    ``key[i]`` is the rank of sample ``i``'s child (samples of closed nodes carry
    the largest key); a *stable* sort of every row by key, truncated to the
    ``n_keep`` samples of open children, is the new sorted layout.
    """
    S_new = np.empty((S.shape[0], n_keep), dtype=S.dtype)
    for j in range(S.shape[0]):
        S_new[j] = S[j][np.argsort(key[S[j]], kind="stable")[:n_keep]]
    return S_new


# --- xgboost's feature codes -------------------------------------------------------------------


MISSING = np.iinfo(np.int32).max  # code of a missing value, sorted after every real code


class Codes:
    """Each feature as integer codes whose order is the order of the values.

    ``exact``: code = rank of the value among the feature's distinct values.
    ``hist``: code = index of the quantile bin (at most ``max_bin`` bins); a
    feature with at most ``max_bin`` distinct values keeps one bin per value, so
    ``hist`` then equals ``exact``. Missing values get the code ``MISSING``.
    Splitting between codes ``c_lo < c_hi`` sends codes ``<= c_lo`` left.
    """

    def __init__(self, X: np.ndarray, method: str, max_bin: int) -> None:
        n, d = X.shape
        self.codes = np.empty((d, n), dtype=np.int32)  # features as rows
        self.values: list[np.ndarray] = []  # distinct values (exact) of each feature
        self.cuts: list[np.ndarray | None] = []  # bin edges (hist) or None
        self.need_forward = np.zeros(d, dtype=bool)
        for j in range(d):
            x = X[:, j]
            missing = np.isnan(x)
            u = np.unique(x[~missing])
            if method == "hist" and u.size > max_bin:
                cuts = np.unique(np.quantile(x[~missing], np.arange(1, max_bin) / max_bin))
                code = np.searchsorted(cuts, x, side="right")  # x < cuts[c]  <=>  code <= c
                self.cuts.append(cuts)
            else:
                code = np.searchsorted(u, x)
                self.cuts.append(None)
            self.values.append(u)
            self.codes[j] = np.where(missing, MISSING, code)
            # The missing-right scan is only needed when the feature has missing values
            # and is not constant (the library's rule).
            self.need_forward[j] = missing.any() and u.size > 1
        self.any_missing = bool(self.need_forward.any() or np.isnan(X).any())
        self.order = presort(self.codes, stable=True)  # missing last

    def threshold(self, f: int, c_lo: int, c_hi: int) -> float:
        """Threshold sending codes ``<= c_lo`` left and ``>= c_hi`` right."""
        if self.cuts[f] is not None:
            return float(self.cuts[f][c_lo])
        lo, hi = self.values[f][c_lo], self.values[f][c_hi]
        mid = lo + (hi - lo) / 2.0
        return float(hi if mid <= lo else mid)  # lo < threshold <= hi, even for adjacent floats

    def missing_threshold(self, f: int, c: int, present_left: bool) -> float:
        """Threshold of a split of present (all on one side) from missing values.

        ``c`` is the largest (present left) or smallest (present right) code in the node.
        """
        if self.cuts[f] is not None:
            return np.inf if present_left else -np.inf
        v = self.values[f][c]
        gap = abs(v) + MIN_BRACKET  # the library's v +- (|v| + 1e-6)
        return float(v + gap if present_left else v - gap)
