r"""The tree of ``tree_method="hist"``, grown level by level from gradient histograms.

The split rule is that of :mod:`ensemble_ref.trees.second_order_tree` (read its
docstring): the same candidates, float32 rounding and pre-pruning, scored and chosen
by the one split selector of :mod:`ensemble_ref.trees.second_order_rules`. Two things
differ, both as in the library, whose ``hist`` and ``exact`` updaters scan differently:
the sums of the candidates come from histograms, and the scans of a feature are those of
xgboost's ``hist``: always upwards with the missing values on the right, and downwards
with them on the left only in a node that holds missing values of the feature. So a
feature without missing values in training sends a missing value **right**
(``default_left`` False), where ``exact`` sends it left; of equal candidates the first
in this order wins. At each level of the tree:

1. every node has three histograms of shape ``(n_features, W)``: for each feature and
   bin, the sums :math:`G_{jb}, H_{jb}` of equation ``eq-scale-histogram`` over the node's
   rows falling in the bin, and their number (with missing values, the last of the ``W``
   bins holds them). The rows' side builds them (:mod:`ensemble_ref.trees.second_order_rows`)
   only for the *smaller* child of every split; the larger child's are its parent's minus
   the smaller child's (``histograms._sibling_histogram``), so below the root a level reads
   at most half of its rows. With unit Hessians (the squared error) :math:`H_{jb}` is the count.
2. the candidates of a node and feature are its non-empty bins but the last present
   one ("bins :math:`\le b`" against the rest of the present values); their left sums
   :math:`G_L = \sum_{b' \le b} G_{jb'}` are cumulative sums over the non-empty bins,
   the empty ones adding nothing.
3. every candidate's bracket of equation ``eq-xgb-gain`` is computed with the node's
   term rounded to float32, as the library does. Rounding to float32 is monotone, so the
   largest rounded bracket of a node and feature is the rounding of the largest bracket:
   only those maxima are rounded to find each node's best feature and direction, and
   then the candidates of that one feature, to find the first best one in scan order.

The level loop (:func:`grow_levels`) does not see the rows: it sends each level's
splits to whoever holds them and receives their histograms. The booster's rows are in
this process (:func:`grow_hist_tree`), the data-parallel tree's on the workers
(:mod:`ensemble_ref.ensembles.distributed`); both run this loop.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ..math import histograms
from .engine import MISSING, Codes, segment_ranges
from .second_order_rows import Bins, LevelRows, LevelSplits
from .second_order_rules import (
    LEFT,
    PRESENT_LEFT,
    RIGHT,
    RIGHT_MISSING,
    TreeParams,
    candidate_brackets,
    parent_terms,
    round32,
    select,
)
from .second_order_tree import SecondOrderTree, _finish_tree, _Node

__all__ = ["grow_hist_tree", "grow_levels"]

_FITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Codes -> Bins


def _running_sums(x: np.ndarray) -> np.ndarray:
    """``np.cumsum(x)``; of floats, by blocks of 8 (numpy adds floats one after the other,
    columns of a view ``(n / 8, 8)`` are added eight at a time)."""
    if x.dtype.kind != "f" or x.size < 8192:
        return x.cumsum()
    B = np.zeros((-(-x.size // 8), 8))
    B.reshape(-1)[:x.size] = x
    for j in range(1, 8):
        B[:, j] += B[:, j - 1]  # sums within each block
    B[1:] += np.cumsum(B[:-1, -1])[:, None]  # plus the sums of the blocks before
    return B.reshape(-1)[:x.size]


class _HistScan:
    """Every candidate split of every node of one level, from the level's histograms.

    ``hist``: counts, G and H histograms of shape (nodes, features, W); ``stats``: the
    nodes' (G, H, n); ``coding``: ``any_missing`` (the last bin holds the missing values).
    Every feature is scanned upwards with the missing values right (``RIGHT``, then
    ``RIGHT_MISSING``: present left, missing right); downwards with them left (``LEFT``)
    only in the nodes holding some of its missing values, as xgboost's ``hist`` does.
    """

    def __init__(self, hist: list, stats: tuple, coding, features: np.ndarray,
                 p: TreeParams, unit: bool) -> None:
        C, HG, HH = hist
        m, d, W = C.shape
        self.m, self.d, self.W, self.p, self.unit = m, d, W, p, unit
        self.nz = nz = (C > 0).ravel().nonzero()[0]  # non-empty bins, segment (node, feature) by segment
        self.start = np.searchsorted(nz, np.arange(0, m * d * W, W))  # every segment has rows
        end = np.concatenate([self.start[1:], [nz.size]])
        self.count = end - self.start
        PG, PH = _running_sums(HG.reshape(-1)[nz]), _running_sums(HH.reshape(-1)[nz])
        bG, bH = PG[self.start - 1], PH[self.start - 1]  # the sums before each segment
        bG[0] = bH[0] = 0
        self.any_missing = coding.any_missing
        self.n_missing = C[:, :, -1].ravel() if self.any_missing else np.zeros(m * d, np.int64)
        self.last = end - 1 - (self.n_missing > 0)  # the last present bin (start - 1: none)
        kill = np.concatenate([self.last, (end - 1)[self.n_missing > 0]])  # no candidate there
        self.NG, self.NH = PG[self.last] - bG, PH[self.last] - bH  # sums of the present values
        none = self.last < self.start
        self.NG[none], self.NH[none] = 0, 0
        G, H, n = stats
        self.G, self.H, self.n = G.repeat(d), H.repeat(d), n.repeat(d)  # per segment
        self.parent32 = parent_terms(G, H, p).repeat(d)
        Gs, Hs = self._rep(self.G), self._rep(self.H)
        GL, HL = PG - self._rep(bG), PH - self._rep(bH)  # present values up to each bin
        # missing right, scanning upwards: every feature (the library's forward scan)
        self.directions = {RIGHT: self._direction(GL, HL, Gs - GL, Hs - HL, kill)}
        backward = self.n_missing > 0  # missing left, downwards: where the node has some
        if backward.any():
            GR, HR = self._rep(self.NG + bG) - PG, self._rep(self.NH + bH) - PH  # present above
            kill = np.concatenate([kill, np.flatnonzero(~self._rep(backward))])
            self.directions[LEFT] = self._direction(Gs - GR, Hs - HR, GR, HR, kill)

    def _rep(self, a: np.ndarray) -> np.ndarray:
        """A value per segment repeated for each of its non-empty bins."""
        return a.repeat(self.count)

    def _direction(self, GL, HL, GR, HR, kill: np.ndarray) -> tuple:
        """(G_L, H_L, brackets) of the candidates in one direction of the missing values."""
        v = candidate_brackets(GL, HL, GR, HR, self._rep(self.parent32), self.p, unit=self.unit)
        v[kill] = -np.inf  # the last present bin, the missing values: no candidate
        return GL, HL, v

    def _best_by_kind(self) -> np.ndarray:
        """best[kind, k, s]: the best rounded bracket of each kind of feature k in node s."""
        best = np.full((4, self.m, self.d), -np.inf)
        for code, (_, _, v) in self.directions.items():
            best[code] = round32(np.maximum.reduceat(v, self.start)).reshape(self.m, self.d)
        if self.any_missing:  # present left, missing right: the last candidate of the forward
            ok = (self.n_missing > 0) & (self.n_missing < self.n)  # scan (the backward scan's
            b = round32(candidate_brackets(self.NG, self.NH, self.G - self.NG,  # last, the same
                                           self.H - self.NH, self.parent32, self.p, ok=ok,
                                           unit=self.unit))  # split mirrored, never beats it)
            best[RIGHT_MISSING] = b.reshape(self.m, self.d)
        return best.transpose(0, 2, 1)

    def best(self) -> dict | None:
        """The best split of every node that splits, as arrays over those nodes (None: none)."""
        split, k, kind, bracket = select(self._best_by_kind(), self.p)
        slots = split.nonzero()[0]
        if slots.size == 0:
            return None
        k, kind, best = k[slots], kind[slots], bracket[slots]
        seg = slots * self.d + k
        out = dict(slots=slots, k=k, kind=kind, bracket32=best, default_left=kind >= LEFT,
                   GL=np.empty(slots.size), HL=np.empty(slots.size),
                   c_lo=np.empty(slots.size, dtype=np.intp), c_other=np.empty(slots.size, dtype=np.intp))
        for code in np.unique(kind).tolist():
            at = np.flatnonzero(kind == code)
            s = seg[at]
            if code in self.directions:
                GL, HL, v = self.directions[code]
                e = self._entry(v, s, best[at], downwards=code == LEFT)
                values = GL[e], HL[e], self.nz[e] % self.W, self.nz[e + 1] % self.W
            else:  # RIGHT_MISSING: present left, missing right
                values = (self.NG[s], self.NH[s], PRESENT_LEFT, self.nz[self.last[s]] % self.W)
            for name, value in zip(("GL", "HL", "c_lo", "c_other"), values):
                out[name][at] = value
        return out

    def _entry(self, v: np.ndarray, seg: np.ndarray, best: np.ndarray, downwards: bool) -> np.ndarray:
        """The first candidate of each segment ``seg`` whose rounded bracket is ``best``, scanning
        upwards (missing right) or downwards (missing left)."""
        idx = segment_ranges(self.start[seg], self.count[seg])
        hit = round32(v[idx]) == best.repeat(self.count[seg])
        first = self.count[seg].cumsum() - self.count[seg]
        if downwards:
            return np.maximum.reduceat(np.where(hit, idx, -1), first)
        return np.minimum.reduceat(np.where(hit, idx, np.iinfo(np.intp).max), first)


@np.errstate(divide="ignore", invalid="ignore")  # H + lambda = 0: masked out
def grow_levels(source: Any, coding: Any, features: np.ndarray, p: TreeParams) -> list:
    r"""Grow a tree level by level from the histograms of the rows held by ``source``.

    Parameters
    ----------
    source : object
        Whoever holds the rows: ``start()`` gives the root's ``(G, H, n, unit)`` and its
        histograms (``eq-scale-histogram``); ``split(splits, n_small, level)`` moves the
        rows to the children of the level's
        :class:`~ensemble_ref.trees.second_order_rows.LevelSplits` and gives the histograms
        of the ``n_small`` smaller children (nothing when 0); ``finish(level)`` is told the
        node ids of the last level; ``buffers`` is a dict for the level histograms.
    coding : object
        The thresholds of the codes (``threshold``, ``missing_threshold``) and the flag
        ``any_missing``, as in :class:`~ensemble_ref.trees.engine.Codes`.
    features : ndarray of int
        The features the tree may split on (rows of the histograms).
    p : TreeParams

    Returns
    -------
    list of _Node
        The nodes, numbered breadth-first, for ``_finish_tree()``:
        every split is the best candidate of ``eq-xgb-gain`` chosen by
        :func:`~ensemble_ref.trees.second_order_rules.select`; the larger child's histograms
        are its parent's minus the smaller child's.
    """
    (G, H, n, unit), hist = source.start()
    nodes = [_Node(G, H, n, 0)]
    level, stats = np.zeros(1, dtype=np.intp), (np.array([G]), np.array([H]), np.array([n]))
    for depth in range(p.max_depth):
        best = _HistScan(hist, stats, coding, features, p, unit).best()
        if best is None:
            break
        n_left = _left_counts(hist[0], best, coding.any_missing)
        best["small_left"] = n_left <= stats[2][best["slots"]] - n_left
        more = depth + 1 < p.max_depth
        splits = LevelSplits(np.full(level.size, -1, dtype=np.intp), features[best["k"]],
                             best["c_lo"], best["default_left"], best["small_left"])
        splits.target[best["slots"]] = np.arange(best["slots"].size)
        small = source.split(splits, best["slots"].size if more else 0, level)
        level, stats = _record(nodes, level, stats, best, n_left, features, coding)
        if more:
            hist = _next_histograms(source.buffers, depth, hist, small, best["slots"])
    source.finish(level)
    return nodes


def _left_counts(C: np.ndarray, best: dict, missing: bool) -> np.ndarray:
    """The number of rows going left at every split, from the counts histograms ``C``."""
    Cs = C[best["slots"], best["k"]]  # (splits, W)
    present = Cs[:, :Cs.shape[1] - missing].cumsum(axis=1)
    at = np.minimum(best["c_lo"], present.shape[1] - 1)  # PRESENT_LEFT: every present code
    n_left = np.where(at >= 0, present[np.arange(at.size), np.maximum(at, 0)], 0)
    if missing:
        n_left += np.where(best["default_left"], Cs[:, -1], 0)
    return n_left.astype(np.intp)


def _next_histograms(buffers: dict, depth: int, parent: list, small: list,
                     split: np.ndarray) -> list:
    """The histograms of the next level: the smaller children's (``small``), then the
    larger ones', their parents' (``parent[split]``) minus the smaller children's; in
    buffers reused level after level (fresh memory would cost more than the histograms)."""
    out, ns = [], split.size
    for i, (P, S) in enumerate(zip(parent, small)):
        if out and S is small[0]:  # unit Hessians: H is the count
            out.append(out[0])
            continue
        dtype = np.int32 if S.dtype.kind == "i" else S.dtype  # counts: half the memory
        key = (depth % 2, i, np.dtype(dtype).str, S.shape[1:])
        if key not in buffers or buffers[key].shape[0] < 2 * ns:
            buffers[key] = np.empty((2 * ns,) + S.shape[1:], dtype=dtype)
        level = buffers[key][:2 * ns]
        level[:ns] = S
        level[ns:] = histograms._sibling_histogram(P if ns == P.shape[0] else P[split],
                                                   level[:ns], out=level[ns:])
        out.append(level)
    return out


def _record(nodes: list, level: np.ndarray, stats: tuple, best: dict, n_left: np.ndarray,
            features: np.ndarray, coding: Any) -> tuple:
    """Record the splits, create the children; the next level's node ids and (G, H, n).

    The children are numbered breadth-first (by their parents' ids, left before right),
    the numbers the finished tree keeps; the smaller children take the first slots.
    """
    G, H, n = (a[best["slots"]] for a in stats)
    GL, HL = best["GL"], best["HL"]
    GR, HR, n_right = G - GL, H - HL, n - n_left
    order = np.argsort(level[best["slots"]])
    left = np.empty(order.size, dtype=np.intp)
    left[order] = len(nodes) + 2 * np.arange(order.size)
    ints = np.stack([level[best["slots"]], best["kind"], features[best["k"]], best["c_lo"],
                     best["c_other"], best["default_left"], n_left, n_right], axis=1)
    floats = np.stack([best["bracket32"], GL, HL, GR, HR], axis=1)
    for (node_id, kind, f, c_lo, c_other, dl, nl, nr), (b32, *children) in zip(
            ints[order].tolist(), floats[order].tolist()):
        if kind == RIGHT or kind == LEFT:
            threshold = coding.threshold(f, c_lo, c_other)
        else:
            threshold = coding.missing_threshold(f, c_other, kind == RIGHT_MISSING)
        nodes[node_id].split(nodes, f, threshold, bool(dl), c_lo, b32, children, (nl, nr))
    sl = best["small_left"]
    pick = lambda a, b: np.concatenate([np.where(sl, a, b), np.where(sl, b, a)])  # noqa: E731
    return pick(left, left + 1), (pick(GL, GR), pick(HL, HR), pick(n_left, n_right))


class _LocalRows:
    """The booster's rows, all in this process (the ``source`` of :func:`grow_levels`);
    they record the leaf of every row in ``leaves``."""

    def __init__(self, rows: LevelRows, leaves: np.ndarray | None) -> None:
        self.rows, self.leaves, self.buffers = rows, leaves, rows.bins.buffers

    def start(self) -> tuple:
        """The root's ``(G, H, n, unit)`` and histograms."""
        return self.rows.totals(), self.rows.histograms(1)

    def split(self, s: LevelSplits, n_small: int, level: np.ndarray) -> list | None:
        """Move the rows to their children; the smaller children's histograms."""
        if n_small or self.leaves is not None:
            self.rows.advance(s, self.leaves, level)
        return self.rows.histograms(n_small) if n_small else None

    def finish(self, level: np.ndarray) -> None:
        """Record the leaf of every row still in the last level."""
        if self.leaves is not None:
            self.rows.finish(self.leaves, level)


def _bins(data: Codes) -> Bins:
    """The bins of the fit whose features are ``data`` (made at its first tree)."""
    if data not in _FITS:
        codes = data.codes
        top = np.where(codes == MISSING, -1, codes).max() if data.any_missing else codes.max()
        W = int(top) + 1 + data.any_missing  # with missing values, one more bin for them
        _FITS[data] = Bins(codes, W, MISSING if data.any_missing else None)
    return _FITS[data]


def grow_hist_tree(data: Codes, g: np.ndarray, h: np.ndarray, rows: np.ndarray,
                   features: np.ndarray, p: TreeParams,
                   leaves: np.ndarray | None = None) -> SecondOrderTree:
    r"""Grow one tree of ``tree_method="hist"`` level by level from gradient histograms.

    Parameters
    ----------
    data : Codes
        The features of the fit as quantile bins (``Codes(X, "hist", max_bin)``).
    g, h : ndarray of shape (n_samples,)
        Gradients and Hessians of the loss at the current scores (``eq-xgb-taylor``).
    rows : ndarray of int
        The samples of this tree (sorted), all of them or a subsample.
    features : ndarray of int
        The features this tree may split on (sorted).
    p : TreeParams
        ``max_depth``, :math:`\lambda` (``reg_lambda``), :math:`\tau` (``tau``), ``min_child_weight``.
    leaves : ndarray of int, optional
        An array with a place for every sample; it receives at ``rows`` the leaf of each
        row, the node ``tree.apply`` gives it (so the booster need not route the rows again).

    Returns
    -------
    SecondOrderTree
        The best splits of ``eq-xgb-gain`` in the scan order of xgboost's ``hist`` (a
        feature without missing values sends them right), pre-pruned (a split needs
        ``Gain >= 0``), nodes numbered breadth-first.
    """
    source = _LocalRows(LevelRows(_bins(data), g, h, rows, features), leaves)
    return _finish_tree(grow_levels(source, data, features, p), p)
