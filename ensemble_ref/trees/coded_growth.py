"""How CART trees are grown on coded features, level by level, many trees at once.

The rules are those of :mod:`ensemble_ref.trees.cart_growth` (the same candidates, scores,
ties and stopping rules, hence the same trees); what differs is how a level is searched.
The features are coded once per ``fit`` (:class:`~ensemble_ref.trees.value_codes.ValueCodes`),
and the left sums of every candidate threshold come from histograms of the codes
(:mod:`ensemble_ref.trees.coded_candidates`), so nothing is sorted after the codes are made.

Every tree of a forest (or of bagging) is grown in the same loop: the first level holds one
root per tree, each with the samples its bootstrap drew (the *elements* of the level are
(tree, sample) pairs, with the tree's weight of the sample), so a level costs one pass of
NumPy calls for the whole forest rather than one per tree. Each tree draws its nodes'
features from its own generator, in the order it would alone, and each node's sums run over
its own samples only: every tree is the tree grown alone with its weights and seed
(``tests/test_forest.py`` checks it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cart_growth import EPSILON, GrowParams
from .coded_candidates import (
    Candidates,
    bincount_candidates,
    first_best,
    next_codes,
    nonconstant,
    product_candidates,
    product_sums,
)
from .engine import exact_integers, midpoint32, segment_ranges
from .tree_arrays import NodeRecords, assemble_trees
from .value_codes import ValueCodes

__all__ = ["grow_coded"]

SUBTRACT = 32  # children's product sums by subtraction when their parent holds this many samples
PRODUCT_COST = 20.0  # a feature joins the product when (values - 1) * rows <= this * m / d


@dataclass
class _Level:
    """The open nodes of a level (tree, id, segment of the elements, sums) and the elements
    (sample, weight, target) in the nodes' segments."""

    tree: np.ndarray
    ids: np.ndarray
    start: np.ndarray
    size: np.ndarray
    T: np.ndarray
    W: np.ndarray
    sample: np.ndarray
    w: np.ndarray
    t: np.ndarray
    L: list | None = None  # the product sums of the nodes (one array per row), with product features
    known: np.ndarray | None = None  # the nodes whose product sums L holds


class _Plan:
    """What every level of one fit shares: the rows, the product features and their
    thermometer matrix, whether counts are summed."""

    def __init__(self, coded: ValueCodes, crit, weights: list, p: GrowParams) -> None:
        positive = np.concatenate([w[w > 0] for w in weights])
        unit = bool(np.all(positive == 1.0))
        self.whole = exact_integers(positive) is not None
        self.counts = not self.whole or (p.min_samples_leaf > 1 and not unit)
        self.n_sums = crit.n_sums
        self.n_rows = crit.n_sums + 1 + self.counts  # sums, weights, (counts)
        self.occupancy = self.n_rows - 1 if self.counts else crit.n_sums
        d = coded.n_values.size
        share = min(p.max_features, d) / d
        small = (coded.n_values - 1) * self.n_rows <= PRODUCT_COST * share
        self.product = np.flatnonzero(small & ~coded.close & (coded.n_values > 1))
        self.kind = np.full(d, 2)  # how each feature's sums are found (see _pair_candidates)
        self.kind[self.product] = np.where(coded.n_values[self.product] == 2, 0, 1)
        self.therm = coded.thermometer(self.product) if self.product.size else None
        self.key_width = int(coded.n_values.max())

    def exact_sums(self, rows: np.ndarray) -> None:
        """Whether every sum of ``rows`` (those of the roots) is exact in any order: whole
        numbers, or halves (integers less a mid-range), below 2**52."""
        self.exact = bool(np.abs(rows).sum() < 2.0**52 and np.array_equal(2 * rows, np.round(2 * rows)))

    def rows(self, crit, level: _Level) -> np.ndarray:
        R = crit.rows(level.w, level.t)
        return np.vstack([R, np.ones((1, level.w.size))]) if self.counts else R

    def histogram(self, crit, rows):
        def sums(bins, at, n_bins):
            return crit.histogram(rows, bins, at, n_bins, self.counts)
        return sums


def grow_coded(coded: ValueCodes, crit, weights: list[np.ndarray], rngs: list,
               p: GrowParams) -> list[dict]:
    """Grow one tree per weight vector of ``weights`` (a sample of weight 0 is left out),
    tree ``b`` drawing its nodes' features from ``rngs[b]``; the arrays of every tree
    (see :class:`ensemble_ref.trees.cart.Tree`)."""
    rec = NodeRecords()
    plan = _Plan(coded, crit, weights, p)
    level = _roots(crit, weights, p, rec)
    depth = 0
    plan.exact_sums(plan.rows(crit, level))
    while level.ids.size:
        rows = plan.rows(crit, level)
        chosen = _choose(coded, crit, plan, level, rows, rngs, p)
        depth += 1
        level = _split(coded, crit, plan, level, rows, chosen, rec, depth, p)
    return assemble_trees(rec, len(weights), coded.n_values.size)


def _roots(crit, weights: list[np.ndarray], p: GrowParams, rec: NodeRecords) -> _Level:
    """One root per tree, holding the samples of positive weight, in increasing order."""
    sample = [np.flatnonzero(w > 0) for w in weights]
    size = np.array([s.size for s in sample])
    tree = np.arange(len(weights))
    el_tree = np.repeat(tree, size)
    sample = np.concatenate(sample)
    w = np.concatenate([wt[wt > 0] for wt in weights]).astype(float)
    t = crit.targets(sample, el_tree)
    T, W, imp = crit.node_stats(crit.rows(w, t), t, el_tree, tree.size)
    ids = rec.add(tree, np.full(tree.size, -1), np.zeros(tree.size, dtype=bool),
                  np.zeros(tree.size, dtype=np.intp), size, W, imp, crit.value(T, W))
    is_open = (size >= p.min_samples_split) & (imp > EPSILON) & (p.max_depth > 0)
    keep = is_open[el_tree]
    return _Level(tree[is_open], ids[is_open], np.cumsum(size[is_open]) - size[is_open],
                  size[is_open], T[:, is_open], W[is_open], sample[keep], w[keep], t[keep])


def _visit_order(level: _Level, rngs: list, d: int, draw: bool) -> np.ndarray:
    """Each node's features in the order it visits them: random when it draws (each tree
    from its own generator, for its nodes in order), else by index."""
    if not draw:
        return np.broadcast_to(np.arange(d), (level.ids.size, d))
    bounds = np.searchsorted(level.tree, np.arange(len(rngs) + 1))
    u = np.empty((level.ids.size, d))
    for t in np.flatnonzero(np.diff(bounds)):
        rngs[t].random(out=u[bounds[t]:bounds[t + 1]])  # what rng.random((J_t, d)) draws
    return np.argsort(u, axis=1)


def _choose(coded, crit, plan: _Plan, level: _Level, rows, rngs, p: GrowParams):
    """The best split (node, feature, code, next code) of every node that has one."""
    J, d = level.ids.size, coded.n_values.size
    m = min(p.max_features, d)
    order = _visit_order(level, rngs, d, m < d)
    pn, pr, pf = np.repeat(np.arange(J), m), np.tile(np.arange(m), J), order[:, :m].ravel()
    if plan.therm is not None:
        _complete_sums(plan, level, rows)
    L = level.L
    occupied, total = ((L[plan.occupancy], level.size if plan.counts else level.W)
                       if L is not None else (None, None))
    keep = _scorer(crit, plan, level, p)
    product = (L, occupied, total)
    best, varies = _pair_candidates(coded, crit, plan, level, rows, product, keep, pn, pr, pf)
    if m < d:
        # a node whose drawn features are all constant visits the next ones, up to the first
        # that is not (scikit-learn's rule); only that one can split the node
        needy = np.flatnonzero(np.bincount(pn[varies], minlength=J) == 0)
        if needy.size:
            ok = nonconstant(coded, level.sample, level.start, level.size, needy, order[needy, m:])
            has = ok.any(axis=1)
            k = ok.argmax(axis=1)[has]
            extra = (needy[has], m + k, order[needy[has], m + k])
            more, _ = _pair_candidates(coded, crit, plan, level, rows, product, keep, *extra)
            best = Candidates.join([best, more], plan.n_rows)
    best = best.take(np.argsort(best.node, kind="stable"))
    best = best.take(first_best(best.node, best.key, best.score))
    unknown = np.flatnonzero(best.next_code < 0)  # product features: the next code present
    if unknown.size:
        best.next_code[unknown] = next_codes(coded, plan.therm, occupied, best.node[unknown],
                                             best.feature[unknown], best.code[unknown])
    return best


def _pair_candidates(coded, crit, plan: _Plan, level: _Level, rows, product, keep, pn, pr, pf):
    """What ``keep`` keeps of the candidates of the pairs (node ``pn``, visit rank ``pr``,
    feature ``pf``), and whether each pair's feature takes several values in its node."""
    L, occupied, total = product
    kind = np.take(plan.kind, pf)  # 0: two values, 1: product, 2: bincount
    parts, varies = [], np.zeros(pn.size, dtype=bool)
    for k in range(3):
        at = np.flatnonzero(kind == k)
        if at.size == 0:
            continue
        pairs = np.take(pn, at), np.take(pr, at), np.take(pf, at)
        if k < 2:  # (two values: one column each)
            c, v = product_candidates(coded, plan.therm, L, occupied, total, *pairs, plan.key_width, keep)
        else:
            c, v = bincount_candidates(coded, crit.code_table(coded), crit.fold,
                                       plan.histogram(crit, rows), plan.occupancy, plan.exact,
                                       level.sample, level.start, level.size, *pairs,
                                       plan.key_width, keep)
        parts.append(c)
        varies[at] = v
    return Candidates.join(parts, plan.n_rows), varies


def _scorer(crit, plan: _Plan, level: _Level, p: GrowParams):
    """Scores candidates (grouped by node) and keeps each node's first best."""
    msl = p.min_samples_leaf

    def keep(j, key, sums):
        SL, WL = sums[:plan.n_sums], sums[plan.n_sums]
        SR, WR = np.take(level.T, j, axis=1) - SL, np.take(level.W, j) - WL
        if msl == 1 and plan.whole:
            # (whole positive weights and msl = 1: both sides have a sample, so W_L, W_R > 0)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                score = crit.proxy(SL, WL, SR, WR)
        else:
            NL = sums[plan.n_sums + 1] if plan.counts else WL  # unit weights: counts are weights
            ok = (NL >= msl) & (np.take(level.size, j) - NL >= msl) & (WL > 0) & (WR > 0)
            score = np.full(j.size, -np.inf)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                score[ok] = crit.proxy(SL[:, ok], WL[ok], SR[:, ok], WR[ok])
        pick = first_best(j, key, score, ordered=True)  # (in a node: visit order, then code)
        return pick, np.take(score, pick)
    return keep


def _split(coded, crit, plan: _Plan, level: _Level, rows, chosen, rec: NodeRecords, depth: int,
           p: GrowParams) -> _Level:
    """Record the splits and the children; the next level: the open children, their
    samples moved into their segments (in the same order as before)."""
    node, f, code, nxt, left = chosen.node, chosen.feature, chosen.code, chosen.next_code, chosen.sums
    n_split = node.size
    if n_split == 0:
        return _Level(*(np.zeros(0, dtype=np.intp) for _ in range(4)), level.T[:, :0], level.W[:0],
                      level.sample[:0], level.w[:0], level.t[:0])
    rec.record_splits(level.ids[node], f, midpoint32(coded.value(f, code), coded.value(f, nxt)))
    J = level.ids.size
    first_child = np.full(J, 2 * n_split)  # (2 n_split: the samples of nodes that do not split)
    first_child[node] = 2 * np.arange(n_split)
    column, highest_left = np.zeros(J, dtype=np.intp), np.full(J, np.iinfo(np.intp).max)
    column[node], highest_left[node] = f * coded.n_samples, code
    owner = np.repeat(np.arange(J), level.size)  # (np.take of a node's array: the fastest gather)
    right = (np.take(coded.codes.ravel(), np.take(column, owner) + level.sample)
             > np.take(highest_left, owner))
    child = np.take(first_child, owner) + right  # left, right, left, ...
    if plan.exact:  # sums of whole numbers: the children's are the chosen candidate's, exactly
        cT, cW, cimp = crit.children_stats(left, np.take(level.T, node, axis=1), level.W[node], rows, level.t,
                                           child, 2 * n_split)
    else:  # (else summed again, each from its samples, so that a pure child has impurity 0)
        with np.errstate(divide="ignore", invalid="ignore"):  # the last two: nodes not split
            cT, cW, cimp = crit.node_stats(rows, level.t, child, 2 * n_split + 2)
        cT, cW, cimp = cT[:, :-2], cW[:-2], cimp[:-2]
    cn = np.bincount(child, minlength=2 * n_split + 2)[:-2]
    ids = rec.add(level.tree[node].repeat(2), level.ids[node].repeat(2),
                  np.arange(2 * n_split) % 2 == 0, np.full(2 * n_split, depth), cn, cW, cimp,
                  crit.value(cT, cW))
    opened = (depth < p.max_depth) & (cn >= p.min_samples_split) & (cimp > EPSILON)
    o = np.flatnonzero(opened)
    L = _children_sums(plan, level, rows, child, cn, node, o) if plan.therm is not None else None
    sample, w, t = _move(level, child, opened, cn)
    return _Level(level.tree[node].repeat(2)[o], ids[o], np.cumsum(cn[o]) - cn[o], cn[o],
                  np.take(cT, o, axis=1), cW[o], sample, w, t, *(L or (None, None)))


def _complete_sums(plan: _Plan, level: _Level, rows) -> None:
    """The product sums of the nodes whose sums are not known yet (the roots, the children of
    small nodes), from their samples."""
    if level.L is None:
        level.L = [np.empty((level.ids.size, plan.therm.X.shape[1])) for _ in range(plan.n_rows)]
        level.known = np.zeros(level.ids.size, dtype=bool)
    todo = np.flatnonzero(~level.known)
    if todo.size == level.ids.size:
        level.L = product_sums(plan.therm, rows, level.sample, level.start, level.size)
    elif todo.size:
        e = segment_ranges(level.start[todo], level.size[todo])
        sums = product_sums(plan.therm, np.take(rows, e, axis=1), level.sample[e],
                            np.cumsum(level.size[todo]) - level.size[todo], level.size[todo])
        for L, S in zip(level.L, sums):
            L[todo] = S


def _children_sums(plan: _Plan, level: _Level, rows, child, cn, node, o):
    """The product sums of the open children ``o`` of nodes with at least ``SUBTRACT``
    samples: the smaller child's from its samples, the other's as its parent's minus the
    smaller child's; and which children have them (the others', from their own samples at
    the next level, cost less than the subtraction)."""
    big = level.size[node] >= SUBTRACT
    known = big[o // 2]
    if not big.any():
        return [np.empty((o.size, plan.therm.X.shape[1])) for _ in range(plan.n_rows)], known
    small = 2 * np.flatnonzero(big) + (cn[1::2] < cn[0::2])[big]
    is_small = np.zeros(2 * node.size + 2, dtype=bool)
    is_small[small] = True
    e = np.flatnonzero(np.take(is_small, child))  # node by node: each small child's samples in a row
    sums = product_sums(plan.therm, np.take(rows, e, axis=1), level.sample[e],
                        np.cumsum(cn[small]) - cn[small], cn[small])
    at = np.where(known, np.cumsum(big)[o // 2] - 1, 0)  # child c of split c // 2
    large = np.flatnonzero(known & ~is_small[o])
    out = []
    for S, L in zip(sums, level.L):
        C = np.take(S, at, axis=0)
        C[large] = np.take(L, node[o[large] // 2], axis=0) - C[large]
        out.append(C)
    return out, known


def _move(level: _Level, child, opened, cn) -> list[np.ndarray]:
    """The samples (and weights, targets) of the open children, each child's in a segment of
    its own in the same order as before: left child, then right child, node by node."""
    e = np.flatnonzero(np.take(np.append(opened, [False, False]), child))
    child = np.take(child, e)
    size = np.where(opened, cn, 0)
    is_left = (child & 1) == 0
    n_left = np.cumsum(is_left)
    rank = np.where(is_left, n_left, np.arange(1, e.size + 1) - n_left) - 1
    lefts, rights = size[0::2], size[1::2]
    offset = np.empty(size.size, dtype=np.intp)
    offset[0::2] = np.cumsum(rights) - rights  # left child: right samples of earlier nodes
    offset[1::2] = np.cumsum(lefts)  # right child: left samples up to its own node
    dest = np.take(offset, child) + rank
    moved = [np.empty(e.size, dtype=a.dtype) for a in (level.sample, level.w, level.t)]
    for new, old in zip(moved, (level.sample, level.w, level.t)):
        new[dest] = np.take(old, e)
    return moved
