"""The fast engine shared by every tree of the package: CART, the stump, the second-order tree.

Every tree is grown on **presorted** features: each feature is sorted once per
``fit`` (a booster sorts, or bins, once for all its rounds), and the samples of a
node occupy one contiguous *segment* of every sorted row. A level of the tree is
then searched with prefix sums along the rows, and the samples are moved into the
segments of their children by a stable sort on small integer keys (numpy sorts
16-bit keys with a linear-time radix sort), which keeps every segment sorted. When a
node searches only a few features (a random forest), those are sorted inside the node
instead, by one sort of 64-bit keys ``(pair, rank)`` for all nodes of a level
(:meth:`SortedColumns.sort_segments`); a forest sorts the features once for all its
trees. Prefix sums of whole-number weights (class counts, bootstrap counts) are taken
in integers (:func:`exact_integers`): the same numbers, much faster.

This module is also the **only place for the details that make the trees agree
with the libraries** bit for bit:

* scikit-learn stores features in float32 (:func:`to_float32`), treats values
  closer than ``1e-7`` as equal (``FEATURE_THRESHOLD``) and splits at the
  midpoint of two float32 values computed in float64 (:func:`midpoint32`);
* xgboost codes every feature as ranks (``exact``) or quantile bins (``hist``,
  :mod:`ensemble_ref.trees.binning`), with missing values last, thresholds at midpoints
  compared as ``x < s``, and the thresholds ``v +- (|v| + 1e-6)`` of "missing versus
  present" splits (:class:`Codes`); how xgboost chooses its splits (float32 gains, scan
  order, ties, ``min_child_weight``) is in :mod:`ensemble_ref.trees.second_order_rules`.

The formulas of the splits themselves (impurities, gains) are in
``ensemble_ref.math``; the growers are :mod:`ensemble_ref.trees.cart_growth`
and :mod:`ensemble_ref.trees.second_order_tree`.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .binning import distinct_sorted, feature_codes, feature_cuts, sorted_present
from .second_order_rules import MIN_BRACKET, round32

__all__ = ["FEATURE_THRESHOLD", "SortedColumns", "Codes", "presort", "to_float32", "midpoint32", "descend",
           "segment_ranges", "exact_integers", "partition", "stacked", "block_cumsum",
           "segment_prefix_sums", "segment_ids", "segment_argmax", "row_blocks", "Scratch", "masked_eval", "round32",
           "child_key_type", "MISSING", "MIN_BRACKET"]

FEATURE_THRESHOLD = np.float32(1e-7)  # scikit-learn: feature values closer than this are equal


# --- scikit-learn's storage and thresholds ---------------------------------------------------


def to_float32(X: np.ndarray, name: str = "X") -> np.ndarray:
    """``X`` in single precision, as scikit-learn's trees store it; rejects ``|x| > 3.4e38``."""
    if X.size and np.nanmax(np.abs(X)) > np.finfo(np.float32).max:
        raise ValueError(f"{name} contains values too large for float32 (|x| > 3.4e38).")
    return X.astype(np.float32)


def midpoint32(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """scikit-learn's threshold between two float32 values: ``lo/2 + hi/2`` in float64."""
    return lo.astype(np.float64) / 2.0 + hi.astype(np.float64) / 2.0


def descend(flat: np.ndarray, base: np.ndarray, node: np.ndarray, feature: np.ndarray,
            threshold: np.ndarray, children: np.ndarray, steps: int) -> np.ndarray:
    """Move rows down a tree ``steps`` levels, all together.

    Row ``i`` has its float32 values at ``flat[base[i]:]`` and stands at ``node[i]``; a step
    sends it to the left child when ``x_j <= s`` (``j = feature[node]``, ``s =
    threshold[node]``), else to the right one (a NaN goes right). ``children`` holds the
    (left, right) pair of every node, a leaf its own child on both sides, and a leaf's
    ``feature`` must be a valid column (``Tree._routing`` sets 0). Returns the nodes reached.
    """
    for _ in range(steps):
        go_left = flat.take(base + feature.take(node)) <= threshold.take(node)  # x_j <= s goes left
        node = children.take(2 * node + 1 - go_left)
    return node


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
    rank : ndarray of int, shape (n_features, n_samples)
        ``rank[j, i]`` is the position of sample ``i`` in ``order[j]``.
    sorted_values : ndarray of float32, shape (n_features, n_samples)
        ``XT[j, order[j]]``.
    """

    def __init__(self, X32: np.ndarray) -> None:
        self.XT = np.ascontiguousarray(X32.T)
        self.order = presort(self.XT)  # ties are never split, so their order is irrelevant
        d, N = self.order.shape
        self.rank = np.empty((d, N), dtype=np.int64)
        np.put_along_axis(self.rank, self.order, np.broadcast_to(np.arange(N), (d, N)), axis=1)
        self.sorted_values = np.take_along_axis(self.XT, self.order, axis=1)

    @property
    def n_samples(self) -> int:
        return int(self.XT.shape[1])

    def restrict(self, keep: np.ndarray) -> np.ndarray:
        """The sorted rows restricted to the samples where ``keep`` is True (still sorted)."""
        if keep.all():
            return self.order
        S = self.order
        return S[keep[S]].reshape(S.shape[0], int(keep.sum()))

    def sort_segments(self, members: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                      features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each segment ``members[starts[p]:starts[p] + lengths[p]]`` sorted by feature ``features[p]``.

        The segments are concatenated in the order of ``p``; returns the samples and their
        float32 values. One sort of the integer keys ``p * N + rank`` does all segments at
        once (a vectorised sort of 64-bit integers, no Python loop, no stable partition), so
        a node only pays for the features it searches.
        """
        N = self.n_samples
        flat_feature = np.repeat(features.astype(np.int64) * N, lengths)
        pair_offset = np.repeat(np.arange(features.size, dtype=np.int64) * N, lengths)
        key = pair_offset + np.take(self.rank, flat_feature + np.take(members, segment_ranges(starts, lengths)))
        key.sort()  # segments stay in place: only the ranks inside each one are reordered
        flat = flat_feature + (key - pair_offset)
        return np.take(self.order, flat), np.take(self.sorted_values, flat)


def stacked(data: SortedColumns, copies: int) -> SortedColumns:
    """``copies`` copies of ``data`` side by side, sorted by copying its sorts, not again.

    Sample ``b N + i`` of the result is sample ``i`` of copy ``b``, and each row lists the
    samples of copy 0 in their sorted order, then those of copy 1, ...: the trees of a forest
    grown together (:func:`~ensemble_ref.trees.cart_growth.grow`), tree ``b`` on copy ``b``,
    keep each node's samples in the segments and the order of the tree grown alone.
    """
    if copies == 1:
        return data
    d, N = data.order.shape
    shift = (np.arange(copies, dtype=np.int64) * N)[None, :, None]
    out = SortedColumns.__new__(SortedColumns)
    out.XT = np.tile(data.XT, copies)
    out.order = (data.order[:, None, :] + shift).reshape(d, copies * N)
    out.rank = (data.rank[:, None, :] + shift).reshape(d, copies * N)
    out.sorted_values = np.tile(data.sorted_values, copies)
    return out


def block_cumsum(V: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Prefix sums of the rows of ``V`` (K, E), shape (K, E + 1), read as differences of two
    columns of one block, a block starting at every column of ``starts`` (increasing,
    ``starts[0] = 0``): such a difference is, bit for bit, the one ``np.cumsum`` of the block
    alone gives. Float sums depend on where they start, so they start again at each block
    (column ``g`` is then the sum of ``V[:, s:g]``, ``s`` the last start at or before ``g``);
    integer sums are exact, so one pass over the row serves.
    """
    K, E = V.shape
    P = np.zeros((K, E + 1), dtype=V.dtype)
    whole = starts.size == 1 or V.dtype.kind in "iu"
    bounds = [0, E] if whole else np.append(starts, E).tolist()
    for V_k, P_k in zip(V, P):  # (row by row: numpy's cumsum into a row of a 2-d array is slow)
        for a, b in zip(bounds[:-1], bounds[1:]):  # (a call per block beats any padded layout)
            np.cumsum(V_k[a:b], out=P_k[a + 1:b + 1])
    if not whole:
        P[:, starts] = 0  # (where the previous block's total was written)
    return P


def exact_integers(w: np.ndarray) -> np.ndarray | None:
    """``w`` as int64 when every weight is a whole number (unit weights, bootstrap counts).

    Prefix sums of whole numbers are exact in float64 too (below 2**53), so summing them
    as integers gives the same numbers, an order of magnitude faster (numpy's integer
    cumulative sum is vectorised, its float one is not). None otherwise.
    """
    if w.size and (np.abs(w).sum() < 2.0**53) and np.array_equal(w, np.floor(w)):
        return w.astype(np.int64)
    return None


def segment_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for every pair ``(s, l)`` (vectorised)."""
    total = int(lengths.sum())
    offsets = lengths.cumsum() - lengths
    return (starts - offsets).repeat(lengths) + np.arange(total)


def child_key_type(n_children: int) -> type:
    """The smallest unsigned integer type for child keys, with room for one more key.

    numpy sorts 8- and 16-bit keys with a radix sort (one pass over the data for 8 bits,
    two for 16), so a shallow level moves its samples three times faster than a deep one.
    """
    for t in (np.uint8, np.uint16):
        if n_children < np.iinfo(t).max:
            return t
    return np.uint32


def partition(S: np.ndarray, key: np.ndarray, n_keep: int) -> np.ndarray:
    """Move every sample into its child's segment, keeping each segment sorted.

    ``key[i]`` is the rank of sample ``i``'s child (samples of closed nodes carry
    the largest key); a *stable* sort of every row by key, truncated to the
    ``n_keep`` samples of open children, is the new sorted layout.
    """
    d, N = S.shape
    if N <= _WHOLE_PARTITION:  # short rows: one sort of all of them (fewer calls, the same order)
        order = key.take(S).argsort(axis=1, kind="stable")[:, :n_keep]
        return S.take(order + (np.arange(d) * N)[:, None])
    S_new = np.empty((d, n_keep), dtype=S.dtype)
    for j in range(d):
        S_new[j] = np.take(S[j], np.argsort(np.take(key, S[j]), kind="stable")[:n_keep])
    return S_new


_WHOLE_PARTITION = 2500  # rows longer than this are sorted one at a time (faster then)


def segment_prefix_sums(w: np.ndarray, S: np.ndarray, bounds: np.ndarray,
                        present: np.ndarray | None = None, scratch: Scratch | None = None,
                        name: str = "prefix") -> np.ndarray:
    """Prefix sums of ``w[S]`` along each row, restarting at every segment ``bounds[s]:bounds[s + 1]``
    and skipping the positions where ``present`` is False; in integers when ``w`` is whole.

    With ``scratch`` the result (and the integer sums) live in its buffers ``name``: they
    are overwritten by the next call with the same name. Equal whole weights without
    ``present`` give a read-only view of one row (``P.strides[0] == 0``).
    """
    new = scratch or _fresh
    w_int = exact_integers(w)
    if w_int is not None and present is None and w_int.size and (w_int == w_int[0]).all():
        # equal whole weights (unit hessians): the sums are counts, the same in every row
        starts = np.repeat(bounds[:-1], np.diff(bounds))
        counts = w_int[0] * (np.arange(S.shape[1]) - starts + 1)
        return np.broadcast_to(counts.astype(float), S.shape)
    V = w if w_int is None else w_int
    # mode="clip" (the indices are valid): take's default mode copies through a temporary
    P = np.take(V, S, out=new(name if w_int is None else name + "-int", S.shape, V.dtype),
                mode="clip")
    if present is not None:
        np.copyto(P, 0, where=~present)
    np.cumsum(P, axis=1, out=P)
    before = bounds[:-1] - 1  # the sum up to the previous segment, subtracted
    P_before = np.where(before >= 0, P[:, np.maximum(before, 0)], 0).astype(P.dtype)
    P -= np.take(P_before, segment_ids(bounds), axis=1, out=new(name + "-before", S.shape, P.dtype),
                 mode="clip")
    if w_int is None:
        return P
    out = new(name, S.shape, float)
    np.copyto(out, P)
    return out


def _fresh(_name: str, shape: tuple, dtype) -> np.ndarray:
    return np.empty(shape, dtype)


def segment_ids(bounds: np.ndarray) -> np.ndarray:
    """The segment ``s`` of every position ``bounds[s] <= r < bounds[s + 1]``."""
    return np.repeat(np.arange(bounds.size - 1), np.diff(bounds))


def segment_argmax(A: np.ndarray, bounds: np.ndarray, last: bool = False
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of every segment of every row of ``A`` and the position of its first
    (``last``: its last) occurrence; a NaN is the maximum of its segment (position arbitrary).

    One ``reduceat`` finds the maxima; the positions holding them, in increasing order,
    are searched for the first one at or after each segment's start (or the last one
    before its end): no loop over the segments.
    """
    d, N = A.shape
    M = np.maximum.reduceat(A, bounds[:-1], axis=1)
    at = np.flatnonzero(A == np.repeat(M, np.diff(bounds), axis=1))
    row = np.arange(d)[:, None] * N
    if at.size == 0:
        return M, np.broadcast_to(bounds[:-1], M.shape).copy()
    i = np.searchsorted(at, row + (bounds[1:] if last else bounds[:-1])) - (1 if last else 0)
    pos = at[np.clip(i, 0, at.size - 1)] - row
    return M, np.clip(pos, bounds[:-1], bounds[1:] - 1)


def row_blocks(n_rows: int, row_length: int, block: int = 2**15) -> list[slice]:
    """Consecutive rows in groups of about ``block`` elements (at least one row).

    Arithmetic on a group at a time keeps its temporaries in the cache and below the
    allocator's threshold for fresh pages (see :class:`Scratch`), several times faster
    than whole arrays.
    """
    step = max(1, block // max(row_length, 1))
    return [slice(a, a + step) for a in range(0, n_rows, step)]


class Scratch:
    """Work arrays reused by every level of every tree of one ``fit``.

    Writing into a freshly allocated large array costs a page fault per 4 KiB page (the
    allocator hands large freed blocks back to the system), often more than the arithmetic
    done on it; a grower therefore keeps its per-level arrays in named buffers that live
    as long as the fit. ``scratch(name, shape, dtype)`` is the buffer ``name`` viewed with
    that shape (its content is whatever the last user left).
    """

    def __init__(self) -> None:
        self._flat: dict[str, np.ndarray] = {}

    def __call__(self, name: str, shape: tuple, dtype=float) -> np.ndarray:
        size = int(np.prod(shape))
        buf = self._flat.get(name)
        if buf is None or buf.size < size or buf.dtype != np.dtype(dtype):
            buf = self._flat[name] = np.empty(size, dtype)
        return buf[:size].reshape(shape)


def masked_eval(mask: np.ndarray, fn, *arrays, fill: float = -np.inf) -> np.ndarray:
    """``fn(mask, *arrays)``, a function that returns ``fill`` where ``mask`` is False.

    When at most a quarter of the mask is True (``hist``: one candidate per bin, not per
    sample), ``fn`` sees only those elements (with the mask ``True``; the arrays broadcast
    to the mask's shape): the same arithmetic element by element, so the same numbers, on
    a fraction of the data.
    """
    if 4 * np.count_nonzero(mask) >= mask.size:
        return fn(mask, *arrays)
    at = np.nonzero(mask)
    out = np.full(mask.shape, fill)
    out[at] = fn(True, *(np.broadcast_to(a, mask.shape)[at] for a in arrays))
    return out


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
        self.need_codes = np.zeros(d, dtype=bool)
        for j in range(d):
            x = X[:, j]
            s = sorted_present(x)
            u = distinct_sorted(s)
            cuts = feature_cuts(s, u, max_bin) if method == "hist" else None
            code = feature_codes(x, cuts, u)  # x < cuts[c]  <=>  code <= c
            self.cuts.append(cuts)
            self.values.append(u)
            self.codes[j] = np.where(np.isnan(x), MISSING, code) if s.size < n else code
            # The missing-right scan is only needed when the feature has missing values
            # and is not constant (the library's rule).
            self.need_forward[j] = s.size < n and u.size > 1
            # Without ties (binned, repeated values) and missing values, every neighbour in
            # a sorted segment is a candidate: the scans need not read the codes.
            self.need_codes[j] = u.size < n or cuts is not None
        self.any_missing = bool(self.need_forward.any() or np.isnan(X).any())
        self.scratch = Scratch()  # the growers' work arrays, reused by every tree of the fit

    @cached_property
    def order(self) -> np.ndarray:
        """``order[j]``: the samples by increasing code of feature ``j``, missing last (sorted
        at the first use: the histogram grower does not need it)."""
        return presort(self.codes, stable=True)

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
