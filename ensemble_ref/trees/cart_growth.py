"""How CART trees are grown: all the nodes of one depth at a time, on presorted features.

1. every feature is sorted **once** per ``fit``
   (:class:`~ensemble_ref.trees.engine.SortedColumns`); the samples of each node occupy
   one contiguous segment of every sorted row;
2. on a level, cumulative sums along the sorted rows give the left-child statistics
   of every candidate threshold of every (feature, node) pair in one pass, from which
   the split score of every candidate follows (:mod:`ensemble_ref.math.impurity`);
3. a segmented maximum picks the best candidate of every node (the first, left-most,
   best threshold of the first best feature);
4. the samples of each split node are moved into the segments of its two children:
   when every feature is searched, by a stable partition of every sorted row
   (:func:`~ensemble_ref.trees.engine.partition`), so nothing is sorted again; when a node
   searches only ``max_features`` of them (a random forest), only the searched features
   are sorted, inside the node, all nodes at once
   (:meth:`~ensemble_ref.trees.engine.SortedColumns.sort_segments`), so a level costs
   ``max_features``, not ``n_features``, passes over its samples.

The trees of a forest (or of bagging) on the same features grow in the same loop: the data
hold one copy of the samples per tree (:func:`~ensemble_ref.trees.engine.stacked`), the
first level one root per tree, and a level costs one pass of NumPy calls for all the trees
instead of one per tree (on small data sets these calls, not the arithmetic, are the cost).
A tree's nodes keep their samples in the order of the tree grown alone, it draws its
features from its own generator, and its prefix sums start at its own first sample, so
every sum, every tie and every tree is that of the tree grown alone.

The rules that make the result scikit-learn's (float32 features, midpoint thresholds,
values closer than 1e-7 being equal) are those of :mod:`ensemble_ref.trees.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..math import gradient_boosting as leaf
from ..math import impurity as formulas
from .engine import (
    FEATURE_THRESHOLD,
    SortedColumns,
    block_cumsum,
    child_key_type,
    exact_integers,
    midpoint32,
    partition,
    segment_ranges,
)
from .tree_arrays import NodeRecords, assemble_trees

__all__ = ["SquaredError", "ClassCounts", "GrowParams", "grow"]

EPSILON = np.finfo(np.float64).eps  # a node with impurity <= EPSILON is pure
_ONE_BLOCK = np.zeros(1, dtype=np.intp)  # the prefix sums of a level of one tree: one block


# --- criteria: per-sample statistics, node impurity and split score ------------------------------


class SquaredError:
    """Squared-error criterion. Statistics ``Z = w y`` (shape (1, N)) and ``Q = w y^2``."""

    def __init__(self, y: np.ndarray, w: np.ndarray) -> None:
        self.Z = (w * y)[None, :]  # the sums S_L, S_R come from cumulative sums of w*y
        self.Q = w * y * y
        self.w_int = exact_integers(w)  # weights as integers when they are whole numbers

    def node_stats(self, idx: np.ndarray, node: np.ndarray, n_nodes: int, w: np.ndarray):
        """Sums ``S`` (1, J), weights ``W`` (J,) and impurities of J nodes (``node`` labels ``idx``)."""
        S = np.bincount(node, weights=np.take(self.Z[0], idx), minlength=n_nodes)[None, :]
        Q = np.bincount(node, weights=np.take(self.Q, idx), minlength=n_nodes)
        W = np.bincount(node, weights=np.take(w, idx), minlength=n_nodes)
        return S, W, formulas.squared_error_impurity(S[0], Q, W)

    @staticmethod
    def value(S: np.ndarray, W: np.ndarray) -> np.ndarray:
        return leaf._leaf_mean(S[0], W)  # leaf prediction: weighted mean of y

    @staticmethod
    def proxy(SL: np.ndarray, WL: np.ndarray, SR: np.ndarray, WR: np.ndarray) -> np.ndarray:
        return formulas._sse_proxy(SL[0], WL, SR[0], WR)


class ClassCounts:
    """Gini or entropy criterion. Statistics ``Z = w * onehot(y)`` (shape (K, N)): class counts."""

    def __init__(self, y: np.ndarray, w: np.ndarray, n_classes: int, criterion: str) -> None:
        self.K = n_classes
        self.y = y
        self.w_int = exact_integers(w)  # whole weights: class counts summed as integers
        self.Z = np.zeros((n_classes, y.shape[0]), dtype=float if self.w_int is None else np.int64)
        self.Z[y, np.arange(y.shape[0])] = w if self.w_int is None else self.w_int
        self.impurity = (formulas.gini_impurity if criterion == "gini"
                         else formulas.entropy_impurity)

    def node_stats(self, idx: np.ndarray, node: np.ndarray, n_nodes: int, w: np.ndarray):
        """Class counts ``C`` (K, J), weights ``W`` (J,) and impurities of J nodes."""
        C = np.bincount(np.take(self.y, idx) * n_nodes + node, weights=np.take(w, idx),
                        minlength=n_nodes * self.K).reshape(self.K, n_nodes)
        W = np.bincount(node, weights=np.take(w, idx), minlength=n_nodes)
        return C, W, self.impurity(C, W, axis=0)

    @staticmethod
    def value(C: np.ndarray, W: np.ndarray) -> np.ndarray:
        return leaf._leaf_mean(C, W).T  # leaf prediction: class proportions, shape (J, K)

    def proxy(self, CL: np.ndarray, WL: np.ndarray, CR: np.ndarray, WR: np.ndarray) -> np.ndarray:
        return formulas._weighted_children(self.impurity, CL, WL, CR, WR)


# --- growing ---------------------------------------------------------------------------------------


@dataclass
class GrowParams:
    """The stopping rules of one tree, already resolved to counts."""

    max_depth: int
    min_samples_split: int
    min_samples_leaf: int
    max_features: int


@dataclass
class _Open:
    """The open (splittable) nodes of a level: trees, ids, segments and statistics."""

    tree: np.ndarray
    ids: np.ndarray
    start: np.ndarray
    size: np.ndarray
    T: np.ndarray  # criterion sums, shape (n_stats, J)
    W: np.ndarray  # weights, shape (J,)


def grow(data: SortedColumns, w: np.ndarray, crit, p: GrowParams, rngs: list) -> list[dict]:
    """Grow ``len(rngs)`` trees level by level, together, on the samples of positive weight
    ``w`` of the presorted ``data``; returns the arrays of every tree (see
    :class:`ensemble_ref.trees.cart.Tree`).

    ``data`` holds a copy of the training samples per tree
    (:func:`~ensemble_ref.trees.engine.stacked`), and ``w`` and ``crit`` hold every copy's
    weights and statistics: tree ``b`` grows on the samples ``b N + i``, draws its nodes'
    features from ``rngs[b]`` in the order it would alone, and sums over each node's own
    samples only (prefix sums start again at every tree), so each is the tree grown alone.
    """
    B, d = len(rngs), data.XT.shape[0]
    nodes = NodeRecords()
    level, members = _roots(crit, w, data.n_samples // B, B, p, nodes)
    # all features searched: partition every presorted row; a subsample: sort on demand
    S = data.restrict(_mask(members, data.n_samples)) if p.max_features >= d else None
    unit_weights = bool(np.all(w[w > 0] == 1.0))
    depth = 0
    while level.ids.size:
        pair_node, pair_feat, samples, x = _search_pairs(data, S, members, level, p.max_features,
                                                         rngs)
        plen = level.size[pair_node]
        pstart = plen.cumsum() - plen  # start of each pair in the concatenated layout
        proxy = _candidate_scores(samples, x, crit, w, unit_weights, level, pair_node, pstart,
                                  plen, p.min_samples_leaf)
        splits, bp, e = _pick_best(proxy, pair_node, pstart, plen, level.ids.size)
        NL = e - pstart[bp]  # points in each left child
        nodes.record_splits(level.ids[splits], pair_feat[bp], midpoint32(x[e - 1], x[e]))
        cstart = np.array([pstart[bp], e]).T.ravel()  # children's segments in `samples`:
        cN = np.array([NL, level.size[splits] - NL]).T.ravel()  # left, right, left, ...
        child = np.full(data.n_samples, -1, dtype=np.intp)
        child[samples[segment_ranges(cstart, cN)]] = np.arange(2 * splits.size).repeat(cN)
        in_child = np.flatnonzero(child >= 0)  # node sums in the order of the samples
        cT, cW, cimp = crit.node_stats(in_child, child[in_child], 2 * splits.size, w)
        is_left = np.arange(2 * splits.size) % 2 == 0  # left, right, left, ...
        c_tree = level.tree[splits].repeat(2)
        child_ids = nodes.add(c_tree, level.ids[splits].repeat(2), is_left,
                              np.full(2 * splits.size, depth + 1), cN, cW, cimp, crit.value(cT, cW))
        depth += 1
        opened = (depth < p.max_depth) & (cN >= p.min_samples_split) & (cimp > EPSILON)
        size = cN[opened]
        members = samples[segment_ranges(cstart[opened], size)]
        if S is not None and size.sum():
            # key of a sample = rank of its open child (closed ones last, rank n_open)
            rank = np.full(2 * splits.size + 1, size.size, dtype=child_key_type(size.size))
            rank[:-1][opened] = np.arange(size.size)
            S = partition(S, rank[child], int(size.sum()))
        level = _Open(c_tree[opened], child_ids[opened], size.cumsum() - size, size, cT[:, opened],
                      cW[opened])
    return assemble_trees(nodes, B, d)


def _mask(members: np.ndarray, n: int) -> np.ndarray:
    """``members`` of ``range(n)`` as a boolean mask."""
    keep = np.zeros(n, dtype=bool)
    keep[members] = True
    return keep


def _roots(crit, w: np.ndarray, N: int, B: int, p: GrowParams, nodes: NodeRecords):
    """One root per tree ``b``, on its samples ``b N + i`` of positive weight; the open ones
    and their samples, in increasing order."""
    kept = np.flatnonzero(w > 0)
    tree = kept // N
    size = np.bincount(tree, minlength=B)
    T, W, imp = crit.node_stats(kept, tree, B, w)
    trees = np.arange(B)
    nodes.add(trees, np.full(B, -1), np.zeros(B, dtype=bool), np.zeros(B, dtype=np.intp), size, W,
              imp, crit.value(T, W))
    is_open = (size >= p.min_samples_split) & (imp > EPSILON) & (p.max_depth > 0)
    n = size[is_open]
    level = _Open(trees[is_open], trees[is_open], n.cumsum() - n, n, T[:, is_open], W[is_open])
    return level, kept[is_open[tree]]


def _sorted_pairs(data: SortedColumns, S: np.ndarray | None, members: np.ndarray, level: _Open,
                  pair_node: np.ndarray, pair_feat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The samples of every (node, feature) pair sorted by the feature, and their values.

    Read from the partitioned rows ``S`` when there are, else sorted now.
    """
    start, plen = level.start[pair_node], level.size[pair_node]
    if S is None:
        return data.sort_segments(members, start, plen, pair_feat)
    samples = np.take(S, segment_ranges(pair_feat * S.shape[1] + start, plen))
    return samples, np.take(data.XT, np.repeat(pair_feat * data.n_samples, plen) + samples)


def _search_pairs(data: SortedColumns, S: np.ndarray | None, members: np.ndarray, level: _Open,
                  max_features: int, rngs: list):
    """The (node, feature) pairs searched on this level, node-major, with their sorted samples."""
    J, d = level.ids.size, data.XT.shape[0]
    if max_features >= d:
        pair_node, pair_feat = np.repeat(np.arange(J), d), np.tile(np.arange(d), J)
        return (pair_node, pair_feat, *_sorted_pairs(data, S, members, level, pair_node, pair_feat))
    # random visiting order per node; visit max_features features, and more if all of
    # those are constant in the node (scikit-learn's rule)
    order = np.argsort(_draws(level.tree, rngs, d), axis=1)
    pair_node, pair_feat = np.repeat(np.arange(J), max_features), order[:, :max_features].ravel()
    samples, x = _sorted_pairs(data, S, members, level, pair_node, pair_feat)
    last = np.cumsum(level.size[pair_node]) - 1  # last position of each pair
    lo, hi = x[last - level.size[pair_node] + 1], x[last]  # smallest, largest value in node
    needy = ~(hi > lo + FEATURE_THRESHOLD).reshape(J, max_features).any(1)
    if not needy.any():
        return pair_node, pair_feat, samples, x
    # nodes whose first features are all constant visit the next ones up to the first
    # non-constant feature (all of them if there is none)
    n_visit = np.full(J, max_features)
    n_visit[needy] = _first_nonconstant(data, members, level, np.flatnonzero(needy),
                                        order[needy, max_features:]) + max_features + 1
    visit = np.arange(d)[None, :] < n_visit[:, None]
    pair_node, pair_feat = np.repeat(np.arange(J), n_visit), order[visit]
    return (pair_node, pair_feat, *_sorted_pairs(data, S, members, level, pair_node, pair_feat))


def _draws(tree: np.ndarray, rngs: list, d: int) -> np.ndarray:
    """``d`` uniform numbers per node of the level (whose trees ``tree`` are increasing), each
    tree's from its own generator: what ``rngs[b].random((J_b, d))`` draws for its J_b nodes."""
    if tree[0] == tree[-1]:  # (one tree: all at once)
        return rngs[tree[0]].random((tree.size, d))
    u = np.empty((tree.size, d))
    bounds = np.searchsorted(tree, np.arange(len(rngs) + 1))
    for b in np.flatnonzero(np.diff(bounds)):
        rngs[b].random(out=u[bounds[b]:bounds[b + 1]])
    return u


def _first_nonconstant(data, members, level, nodes, features) -> np.ndarray:
    """For each of ``nodes``, the index in its row of ``features`` of the first feature that
    is not constant in the node (the last index if all are constant)."""
    k = features.shape[1]
    pair_node, pair_feat = np.repeat(nodes, k), features.ravel()
    plen = level.size[pair_node]
    vals = np.take(data.XT, np.repeat(pair_feat * data.n_samples, plen)
                   + np.take(members, segment_ranges(level.start[pair_node], plen)))
    pstart = np.cumsum(plen) - plen
    lo, hi = np.minimum.reduceat(vals, pstart), np.maximum.reduceat(vals, pstart)
    nonconstant = (hi > lo + FEATURE_THRESHOLD).reshape(nodes.size, k)
    return np.where(nonconstant.any(1), nonconstant.argmax(1), k - 1)


def _candidate_scores(samples, x, crit, w, unit_weights, level, pair_node, pstart, plen, msl):
    """Split score of every candidate position of every pair (-inf where inadmissible).

    ``samples`` and their values ``x`` list the pairs one after the other, each sorted.
    Only the positions between two distinct values are scored (on integer or one-hot
    columns, most positions sit inside a run of ties).
    """
    E = samples.size
    first_of_tree = _ONE_BLOCK  # each tree's prefix sums start at its first pair
    if level.tree[0] != level.tree[-1]:
        first_of_tree = np.take(pstart, np.flatnonzero(np.diff(np.take(level.tree, pair_node), prepend=-1)))
    Zc = block_cumsum(np.take(crit.Z, samples, axis=1), first_of_tree)
    between = np.empty(E, dtype=bool)  # a threshold between x[e - 1] and x[e] separates them
    between[0] = False
    np.greater(x[1:], x[:-1] + FEATURE_THRESHOLD, out=between[1:])
    between[pstart] = False  # the first position of a pair leaves its left side empty
    e = np.flatnonzero(between)  # split before position e
    pair = np.take(np.repeat(np.arange(pair_node.size), plen), e)
    first = np.take(pstart, pair)
    NL = e - first  # points left of the threshold
    SL = (np.take(Zc, e, axis=1) - np.take(Zc, first, axis=1)).astype(float, copy=False)
    if unit_weights:
        WL = NL.astype(float)  # left sums
    else:
        wv = w if crit.w_int is None else crit.w_int
        Wc = block_cumsum(np.take(wv, samples)[None, :], first_of_tree)[0]
        WL = (np.take(Wc, e) - np.take(Wc, first)).astype(float, copy=False)
    node = np.take(pair_node, pair)
    SR = np.take(level.T, node, axis=1) - SL  # S_R = S_t - S_L
    WR = np.take(level.W, node) - WL
    if not (msl == 1 and (unit_weights or crit.w_int is not None)):
        # (whole positive weights and msl = 1: both sides have a point, so W_L, W_R > 0)
        ok = (NL >= msl) & (np.take(plen, pair) - NL >= msl) & (WL > 0) & (WR > 0)
        e, SL, WL, SR, WR = e[ok], SL[:, ok], WL[ok], SR[:, ok], WR[ok]
    proxy = np.full(E, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        proxy[e] = crit.proxy(SL, WL, SR, WR)
    return proxy


def _pick_best(proxy, pair_node, pstart, plen, J):
    """Nodes with an admissible split, their best pair and its first best position."""
    P, E = pair_node.size, proxy.size
    pair_best = np.maximum.reduceat(proxy, pstart)
    n_pairs = np.bincount(pair_node, minlength=J)
    node_pstart = n_pairs.cumsum() - n_pairs  # first pair of each node
    node_best = np.maximum.reduceat(pair_best, node_pstart)
    is_best_pair = pair_best == node_best[pair_node]
    best_pair = np.minimum.reduceat(np.where(is_best_pair, np.arange(P), P), node_pstart)
    hit = proxy == pair_best.repeat(plen)
    first_hit = np.minimum.reduceat(np.where(hit, np.arange(E), E), pstart)
    splits = np.flatnonzero(node_best > -np.inf)
    bp = best_pair[splits]
    return splits, bp, first_hit[bp]  # first_hit: first element of the right child
