r"""The tree of ``tree_method="hist"``, grown level by level from gradient histograms.

The split rule is that of :mod:`ensemble_ref.trees.second_order_tree` (read its
docstring): the same candidates, scan order, ties, directions of missing values,
float32 rounding and pre-pruning, so the same trees (but for ties broken by the rounding
of sums added in another order). Only the way the sums of the candidates are obtained
differs. At each level of the tree:

1. every node has three histograms of shape ``(n_features, W)``: for each feature and
   bin, the sums :math:`G_{jb}, H_{jb}` of equation ``eq-scale-histogram`` over the node's
   rows falling in the bin, and their number (the last of the ``W`` bins holds the
   missing values). They are built, with ``histograms._bin_sums`` (the sums of
   :func:`~ensemble_ref.math.histograms.gradient_histogram`) over the flat index
   ``(node, feature, bin)`` of every value, only for the *smaller* child of every split;
   the larger child's are its parent's minus the smaller child's
   (``histograms._sibling_histogram``), so below the root a level reads at most half
   of its rows. With unit Hessians (the squared error) :math:`H_{jb}` is the count.
2. the candidates of a node and feature are its non-empty bins but the last present
   one ("bins :math:`\le b`" against the rest of the present values); their left sums
   :math:`G_L = \sum_{b' \le b} G_{jb'}` are cumulative sums over the non-empty bins,
   the empty ones adding nothing.
3. every candidate's bracket of equation ``eq-xgb-gain`` is computed with the node's
   term rounded to float32, as the library does. Rounding to float32 is monotone, so the
   largest rounded bracket of a node and feature is the rounding of the largest bracket:
   only those maxima are rounded to find each node's best feature and direction, and
   then the candidates of that one feature, to find the first best one in scan order.

The formulas are those of :mod:`ensemble_ref.math.second_order` and
:mod:`ensemble_ref.math.histograms`, called through their modules.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..math import histograms
from ..math import second_order as formulas
from .engine import MIN_BRACKET, MISSING, Codes, round32, segment_ranges
from .second_order_tree import SecondOrderTree, TreeParams, _finish_tree, _Node

__all__ = ["grow_hist_tree"]

_FITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Codes -> _Bins
RIGHT, RIGHT_MISSING, LEFT, LEFT_MISSING = range(4)  # the scan order of a feature's candidates


class _Bins:
    """The bins of a fit's features, ``W`` per feature (the last one for missing values),
    and what every tree of the fit reuses: the root's counts and the arrays of two levels'
    histograms (fresh memory for every level would cost more than the histograms)."""

    def __init__(self, data: Codes) -> None:
        missing = data.codes == MISSING
        self.W = W = int(np.where(missing, -1, data.codes).max()) + 2
        self.bins = np.where(missing, W - 1, data.codes).T.astype(np.intp)  # (n, d_all)
        self.every = self.bins + np.arange(self.bins.shape[1]) * W
        self.root_counts, self.buffers = None, {}

    def index(self, features: np.ndarray) -> np.ndarray:
        """``index[i, k] = k W + bin``: the flat (feature, bin) of sample ``i`` in ``features[k]``."""
        if features.size == self.bins.shape[1]:
            return self.every
        return self.bins[:, features] + np.arange(features.size) * self.W

    def root(self, index: np.ndarray, rows: np.ndarray, g: np.ndarray, h: np.ndarray,
             unit: bool) -> list:
        """The root's histograms; its counts are the same for every tree that has every row."""
        shape = (1, index.shape[1], self.W)
        if rows.size < index.shape[0]:
            return _histograms(index[rows].ravel(), shape, g[rows], h[rows], unit)
        if index is not self.every:
            return _histograms(index.ravel(), shape, g, h, unit)
        if self.root_counts is None:
            self.root_counts = histograms._bin_sums(index.ravel(), None, int(np.prod(shape)))
        return _histograms(index.ravel(), shape, g, h, unit, self.root_counts)

    def children(self, depth: int, parent: list, small: list, split: np.ndarray) -> list:
        """The histograms of the next level: the smaller children's (``small``), then the
        larger ones', their parents' (``parent[split]``) minus the smaller children's."""
        out, ns = [], split.size
        for i, (P, S) in enumerate(zip(parent, small)):
            if out and S is small[0]:  # unit Hessians: H is the count
                out.append(out[0])
                continue
            dtype = np.int32 if S.dtype.kind == "i" else S.dtype  # counts: half the memory
            key = (depth % 2, i, np.dtype(dtype).str, S.shape[1:])
            if key not in self.buffers or self.buffers[key].shape[0] < 2 * ns:
                self.buffers[key] = np.empty((2 * ns,) + S.shape[1:], dtype=dtype)
            level = self.buffers[key][:2 * ns]
            level[:ns] = S
            level[ns:] = histograms._sibling_histogram(P if ns == P.shape[0] else P[split],
                                                       level[:ns], out=level[ns:])
            out.append(level)
        return out


def _bins(data: Codes) -> _Bins:
    """The bins of the fit whose features are ``data`` (made at its first tree)."""
    if data not in _FITS:
        _FITS[data] = _Bins(data)
    return _FITS[data]


def _histograms(flat: np.ndarray, shape: tuple, g: np.ndarray, h: np.ndarray, unit: bool,
                C: np.ndarray | None = None) -> list:
    """Counts, ``G`` and ``H`` histograms of shape ``(n_slots, d, W)``; ``flat`` holds the
    flat bin of every value of the rows of ``g`` and ``h`` (``d`` per row)."""
    size, d = int(np.prod(shape)), shape[1]
    C = histograms._bin_sums(flat, None, size) if C is None else C
    G = histograms._bin_sums(flat, g.repeat(d), size)
    H = C if unit else histograms._bin_sums(flat, h.repeat(d), size)
    return [a.reshape(shape) for a in (C, G, H)]


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
    """Every candidate split of every node of one level, from the level's histograms."""

    def __init__(self, hist: list, stats: tuple, data: Codes, features: np.ndarray,
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
        self.n_missing = C[:, :, -1].ravel()
        self.last = end - 1 - (self.n_missing > 0)  # the last present bin (start - 1: none)
        kill = np.concatenate([self.last, (end - 1)[self.n_missing > 0]])  # no candidate there
        self.NG, self.NH = PG[self.last] - bG, PH[self.last] - bH  # sums of the present values
        none = self.last < self.start
        self.NG[none], self.NH[none] = 0, 0
        G, H, n = stats
        self.G, self.H, self.n = G.repeat(d), H.repeat(d), n.repeat(d)  # per segment
        self.parent32 = round32(formulas._score(G, H, p.reg_lambda)).repeat(d)
        Gs, Hs = self._rep(self.G), self._rep(self.H)
        GR, HR = self._rep(self.NG + bG) - PG, self._rep(self.NH + bH) - PH  # present above
        self.directions = {LEFT: self._direction(Gs - GR, Hs - HR, GR, HR, kill)}  # missing left
        self.forward = data.need_forward[features]
        if self.forward.any():  # missing right (scan upwards): features with missing values
            self.forward = np.tile(self.forward, m)
            GL, HL = PG - self._rep(bG), PH - self._rep(bH)
            kill = np.concatenate([kill, np.flatnonzero(~self._rep(self.forward))])
            self.directions[RIGHT] = self._direction(GL, HL, Gs - GL, Hs - HL, kill)
        self.any_missing = data.any_missing

    def _rep(self, a: np.ndarray) -> np.ndarray:
        """A value per segment repeated for each of its non-empty bins."""
        return a.repeat(self.count)

    def _valid(self, HL: np.ndarray, HR: np.ndarray) -> np.ndarray | None:
        """Where both children are heavy enough (None: everywhere, unit Hessians)."""
        lam, mcw = self.p.reg_lambda, self.p.min_child_weight
        if self.unit and mcw <= 1:  # a candidate has a row on each side
            return None
        ok = (HL >= mcw) & (HR >= mcw)  # with lam > 0, H >= mcw >= 0 gives H + lam > 0
        return ok if lam > 0 else ok & (HL + lam > 0) & (HR + lam > 0)

    def _direction(self, GL, HL, GR, HR, kill: np.ndarray) -> tuple:
        """(G_L, H_L, brackets) of the candidates in one direction of the missing values."""
        v = formulas._bracket(GL, HL, GR, HR, self.p.reg_lambda, self._rep(self.parent32))
        ok = self._valid(HL, HR)
        v = v if ok is None else np.where(ok, v, -np.inf)
        v[kill] = -np.inf  # the last present bin, the missing values: no candidate
        return GL, HL, v

    def _kinds(self) -> tuple[list, np.ndarray]:
        """The kinds of candidates there are, in the scan order, and the best rounded bracket
        of each segment for each kind."""
        best = {code: round32(np.maximum.reduceat(v, self.start))
                for code, (_, _, v) in self.directions.items()}
        if self.any_missing:  # splits of "present" from "missing"
            GL, HL, GR, HR = self.NG, self.NH, self.G - self.NG, self.H - self.NH
            ok = (self.n_missing > 0) & (self.n_missing < self.n)
            valid = self._valid(HL, HR)
            ok = ok if valid is None else ok & valid
            b = round32(formulas._bracket(GL, HL, GR, HR, self.p.reg_lambda, self.parent32))
            best[LEFT_MISSING] = np.where(ok, b, -np.inf)
            if RIGHT in self.directions:  # present left, missing right: the forward features
                best[RIGHT_MISSING] = np.where(self.forward, best[LEFT_MISSING], -np.inf)
        kinds = sorted(best)
        return kinds, np.array([best[code] for code in kinds])

    def best(self) -> dict | None:
        """The best split of every node that splits, as arrays over those nodes (None: none)."""
        kinds, K = self._kinds()
        seg_best = K.max(axis=0).reshape(self.m, self.d)
        best = seg_best.max(axis=1)
        split = best > MIN_BRACKET
        if self.p.pre_prune:  # hist: xgboost splits only when loss_chg >= min_split_loss
            split &= formulas._gain(best, self.p.gamma) >= 0
        slots = split.nonzero()[0]
        if slots.size == 0:
            return None
        best = best[slots]
        k = (seg_best[slots] == best[:, None]).argmax(axis=1)  # the lowest feature among the best
        seg = slots * self.d + k
        kind = np.array(kinds)[(K[:, seg] == best).argmax(axis=0)]  # the first in scan order
        out = dict(slots=slots, k=k, kind=kind, bracket32=best, default_left=kind >= LEFT,
                   GL=np.empty(slots.size), HL=np.empty(slots.size),
                   c_lo=np.empty(slots.size, dtype=np.intp), c_other=np.empty(slots.size, dtype=np.intp))
        for code in kinds:
            at = np.flatnonzero(kind == code) if len(kinds) > 1 else slice(None)
            s = seg[at]
            if code in self.directions:
                GL, HL, v = self.directions[code]
                e = self._entry(v, s, best[at], downwards=code == LEFT)
                values = GL[e], HL[e], self.nz[e] % self.W, self.nz[e + 1] % self.W
            elif code == RIGHT_MISSING:  # present left, missing right
                values = (self.NG[s], self.NH[s], np.iinfo(np.int32).max - 1,
                          self.nz[self.last[s]] % self.W)
            else:  # missing left, present right
                values = self.G[s] - self.NG[s], self.H[s] - self.NH[s], -1, self.nz[self.start[s]] % self.W
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
        ``max_depth``, :math:`\lambda` (``reg_lambda``), :math:`\gamma`, ``min_child_weight``.
    leaves : ndarray of int, optional
        An array with a place for every sample; it receives at ``rows`` the leaf of each
        row, the node ``tree.apply`` gives it (so the booster need not route the rows again).

    Returns
    -------
    SecondOrderTree
        The tree of :func:`ensemble_ref.trees.second_order_tree.grow_tree` on the same bins:
        the same splits (the best bracket of ``eq-xgb-gain`` in xgboost's scan order), the
        same pre-pruning (a split needs ``Gain >= 0``), nodes numbered breadth-first.
    """
    bins = _bins(data)
    index = bins.index(features)
    unit = bool(np.all(h[rows] == 1.0))  # squared error: the Hessian sums are counts
    nodes = [_Node(float(g[rows].sum()), float(h[rows].sum()), rows.size, 0)]
    level, stats = np.zeros(1, dtype=np.intp), (np.array([nodes[0].G]), np.array([nodes[0].H]),
                                                np.array([rows.size]))
    slot = np.zeros(rows.size, dtype=np.intp)  # the position of each row's node in the level
    hist = bins.root(index, rows, g, h, unit)
    for depth in range(p.max_depth):
        best = _HistScan(hist, stats, data, features, p, unit).best()
        if best is None:
            break
        rows, slot, n_left = _partition(data, rows, slot, level, stats[2], best, features, leaves,
                                        unit)
        level, stats = _record(nodes, level, stats, best, n_left, features, data, p)
        if depth + 1 < p.max_depth:
            ns = best["slots"].size
            small = np.flatnonzero(slot < ns)  # the rows of the smaller children
            rows_small = rows[small]
            flat = index[rows_small]
            flat += (slot[small] * flat.shape[1] * bins.W)[:, None]
            small = _histograms(flat.ravel(), (ns,) + hist[0].shape[1:], g[rows_small],
                                h[rows_small], unit)
            hist = bins.children(depth, hist, small, best["slots"])
    if leaves is not None:
        leaves[rows] = level[slot]
    return _finish_tree(nodes, p)


def _partition(data: Codes, rows: np.ndarray, slot: np.ndarray, level: np.ndarray, n: np.ndarray,
               best: dict, features: np.ndarray, leaves: np.ndarray | None, unit: bool) -> tuple:
    """The rows of the split nodes, the slot of each one's child in the next level (the
    smaller children first, then the larger ones) and the number of rows going left."""
    ns, t = best["slots"].size, slot  # t: the split of each row's node
    if ns < n.size:
        t = np.full(n.size, -1, dtype=np.intp)
        t[best["slots"]] = np.arange(ns)
        t = t[slot]
        keep = t >= 0
        if leaves is not None:  # the rows of the nodes not split are in leaves
            leaves[rows[~keep]] = level[slot[~keep]]
        rows, t = rows[keep], t[keep]
    column = features[best["k"]] * data.codes.shape[1]
    c = data.codes.ravel()[column[t] + rows]
    go_left = c <= best["c_lo"][t]
    if data.any_missing:
        go_left = np.where(c == MISSING, best["default_left"][t], go_left)
    if unit:  # the Hessian sums are the counts
        n_left = best["HL"].astype(np.intp)
    else:
        n_left = np.bincount(t, weights=go_left, minlength=ns).astype(np.intp)
    best["small_left"] = small_left = n_left <= n[best["slots"]] - n_left
    return rows, t + ns * (go_left != small_left[t]), n_left


def _record(nodes: list, level: np.ndarray, stats: tuple, best: dict, n_left: np.ndarray,
            features: np.ndarray, data: Codes, p: TreeParams) -> tuple:
    """Record the splits, create the children; the next level's node ids and (G, H, n).

    The children are numbered breadth-first (by their parents' ids, left before right),
    the numbers the finished tree keeps.
    """
    G, H, n = (a[best["slots"]] for a in stats)
    GL, HL = best["GL"], best["HL"]
    GR, HR, n_right = G - GL, H - HL, n - n_left
    bracket = formulas._bracket(GL, HL, GR, HR, p.reg_lambda)
    order = np.argsort(level[best["slots"]])
    left = np.empty(order.size, dtype=np.intp)
    left[order] = len(nodes) + 2 * np.arange(order.size)
    ints = np.stack([level[best["slots"]], best["kind"], features[best["k"]], best["c_lo"],
                     best["c_other"], best["default_left"], n_left, n_right], axis=1)
    floats = np.stack([bracket, best["bracket32"], GL, HL, GR, HR], axis=1)
    for (node_id, kind, f, c_lo, c_other, dl, nl, nr), (b, b32, gl, hl, gr, hr) in zip(
            ints[order].tolist(), floats[order].tolist()):
        node, dl = nodes[node_id], bool(dl)
        if kind == RIGHT or kind == LEFT:
            node.threshold = data.threshold(f, c_lo, c_other)
        else:
            node.threshold = data.missing_threshold(f, c_other, kind == RIGHT_MISSING)
        node.feature, node.default_left, node.bracket, node.bracket32 = f, dl, b, b32
        node.left, node.right = len(nodes), len(nodes) + 1
        nodes += [_Node(gl, hl, nl, node.depth + 1), _Node(gr, hr, nr, node.depth + 1)]
    sl = best["small_left"]
    pick = lambda a, b: np.concatenate([np.where(sl, a, b), np.where(sl, b, a)])  # noqa: E731
    return pick(left, left + 1), (pick(GL, GR), pick(HL, HR), pick(n_left, n_right))
