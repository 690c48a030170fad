r"""The tree of the second-order booster, grown level by level on coded features.

At each node the best split maximises the bracket of ``eq-xgb-gain`` over every
feature and every threshold between two codes (:class:`~ensemble_ref.trees.engine.Codes`:
ranks for ``tree_method="exact"``, quantile bins for ``"hist"``), scanning as xgboost
does: for a feature with missing values, first with the missing values on the right
(upwards), then on the left (downwards), plus the split of "missing" from "present";
a later candidate replaces an earlier one only if strictly better, a higher feature
only if strictly better. The bracket is rounded to float32 as the library rounds it,
so that candidates differing only by rounding tie.

A node is split on its best candidate when the bracket exceeds ``1e-6`` and both
children have hessian sums of at least ``min_child_weight``. Then the two tree
methods prune as xgboost's updaters do:

* ``exact`` grows to ``max_depth`` and afterwards removes, from the bottom up, every
  split whose ``Gain`` (equation ``eq-xgb-gain``, with :math:`\gamma`) is negative and
  whose two children are leaves (a split with a small gain survives if a split below
  it is worth keeping);
* ``hist`` pre-prunes: a node is split only when its best candidate has
  ``Gain >= 0`` (xgboost's ``loss_chg >= min_split_loss``).

The formulas come from :mod:`ensemble_ref.math.second_order` (called through the
module, so that the one definition is the one the tree runs).

The booster grows its ``hist`` trees with the same rule from gradient histograms
(:mod:`ensemble_ref.trees.second_order_hist`), faster; on quantile bins this module's
:func:`grow_tree` gives the same trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..math import second_order as formulas
from .engine import (
    MIN_BRACKET,
    MISSING,
    Codes,
    child_key_type,
    partition,
    round32,
    row_blocks,
    segment_argmax,
    segment_ids,
    segment_prefix_sums,
)

__all__ = ["SecondOrderTree", "grow_tree"]

TREE_LEAF = -1
UNDEFINED = -2


@dataclass
class SecondOrderTree:
    """A fitted tree of the second-order booster, stored as parallel node arrays.

    Node 0 is the root; node ``i`` is a leaf when ``children_left[i] == -1``.
    A sample goes left at node ``i`` when ``x[feature[i]] < threshold[i]``, or,
    when that value is missing (NaN), when ``default_left[i]``.

    Attributes
    ----------
    children_left, children_right : ndarray of int
        Child node ids (-1 at leaves).
    feature : ndarray of int
        Split feature (-2 at leaves).
    threshold : ndarray of float
        Split threshold (-2.0 at leaves).
    default_left : ndarray of bool
        Direction of missing values.
    G, H : ndarray of float
        Gradient and hessian sums of the training samples in each node.
    weight : ndarray of float
        :math:`w^* = -G/(H + \\lambda)` of each node (0 when ``H < min_child_weight``).
    value : ndarray of float
        ``learning_rate * weight``: what a leaf adds to the score.
    gain : ndarray of float
        The book's ``Gain`` (with :math:`\\gamma` subtracted) of each split; 0 at leaves.
    n_node_samples : ndarray of int
        Number of training samples (of the round's subsample) in each node.
    depth : ndarray of int
        Depth of each node (the root has depth 0).
    train_leaf : ndarray of int or None
        While the booster fits: the leaf of each training sample when the tree grew on all
        of them (its training predictions without :meth:`apply`); None otherwise.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    default_left: np.ndarray
    G: np.ndarray
    H: np.ndarray
    weight: np.ndarray
    value: np.ndarray
    gain: np.ndarray
    n_node_samples: np.ndarray
    depth: np.ndarray
    train_leaf: np.ndarray | None = field(default=None, repr=False)

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.children_left.size)

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.children_left == TREE_LEAF

    @property
    def n_leaves(self) -> int:
        """Number of leaves :math:`T`."""
        return int(self.is_leaf.sum())

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of each row of ``X`` (a validated float array, NaN = missing)."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        for _ in range(int(self.depth.max())):
            f = np.maximum(self.feature[node], 0)
            x = X[rows, f]
            go_left = np.where(np.isnan(x), self.default_left[node], x < self.threshold[node])
            child = np.where(go_left, self.children_left[node], self.children_right[node])
            node = np.where(self.children_left[node] == TREE_LEAF, node, child)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The tree's contribution ``value[leaf]`` for each row of ``X``."""
        return self.value[self.apply(X)]


# --- growing one tree --------------------------------------------------------------------------


class _Node:
    __slots__ = ("G", "H", "n", "depth", "feature", "threshold", "default_left", "left",
                 "right", "bracket", "bracket32")

    def __init__(self, G: float, H: float, n: int, depth: int) -> None:
        self.G, self.H, self.n, self.depth = G, H, n, depth
        self.feature, self.threshold, self.default_left = UNDEFINED, -2.0, False
        self.left = self.right = TREE_LEAF
        self.bracket = self.bracket32 = 0.0  # the split's bracket, exact and as compared


@dataclass
class TreeParams:
    """What one tree needs of the booster's parameters (validated once per fit)."""

    max_depth: int
    reg_lambda: float
    gamma: float
    min_child_weight: float
    pre_prune: bool  # hist: split only when Gain >= 0


def grow_tree(data: Codes, g: np.ndarray, h: np.ndarray, rows: np.ndarray,
              features: np.ndarray, p: TreeParams) -> SecondOrderTree:
    """Grow one tree level by level on the samples ``rows`` and the (sorted) ``features``."""
    # S[k] lists the samples sorted by feature features[k] within each node of the level;
    # the nodes of a level occupy the same column ranges ("segments") in every row.
    S = data.order[features]
    if rows.size < g.size:
        in_sample = np.zeros(g.size, dtype=bool)
        in_sample[rows] = True
        S = S[in_sample[S]].reshape(features.size, rows.size)
    codes = data.codes[features]  # codes[k, i]: code of sample i in feature features[k]
    nodes = [_Node(float(g[rows].sum()), float(h[rows].sum()), rows.size, 0)]
    level, bounds = [0], np.array([0, rows.size])  # node ids of the level and their segments
    leaf = np.full(g.size, TREE_LEAF, dtype=np.intp)  # the leaf of each sample, once known
    for _ in range(p.max_depth):
        scan = _LevelScan(data, codes, S, g, h, features, [nodes[i] for i in level], bounds, p)
        splits = [scan.best_split(s) for s in range(len(level))]
        _record_leaves(leaf, S[0], bounds, level, splits)
        key, sizes = _child_keys(codes, S[0], bounds, splits, g.size)
        new_level = []
        for node_id, split in zip(level, splits):
            if split is not None:
                n_left, n_right = sizes[len(new_level):len(new_level) + 2]
                new_level += _split_node(nodes, node_id, split, int(n_left), int(n_right), features, p)
        if not new_level:
            break
        S = partition(S, key, int(np.sum(sizes)))  # each child's samples stay sorted
        level, bounds = new_level, np.concatenate([[0], np.cumsum(sizes)])
    else:
        _record_leaves(leaf, S[0], bounds, level, [None] * len(level))
    return _finish_tree(nodes, p, leaf if rows.size == g.size else None)


def _record_leaves(leaf: np.ndarray, S0: np.ndarray, bounds: np.ndarray, level: list,
                   splits: list) -> None:
    """``leaf[i] = node`` for the samples of the nodes of the level that are not split."""
    seg = segment_ids(bounds)
    closed = np.array([split is None for split in splits])[seg]
    leaf[S0[closed]] = np.asarray(level)[seg[closed]]


def _child_keys(codes: np.ndarray, S0: np.ndarray, bounds: np.ndarray, splits: list,
                n: int) -> tuple[np.ndarray, np.ndarray]:
    """The rank of each sample's child (samples of closed nodes: the largest key) and the
    sizes of the children, in the order of the level's splits (left, right, left, ...)."""
    is_split = np.array([split is not None for split in splits])
    parts = np.array([split[:3] if split is not None else (0, 0, False) for split in splits],
                     dtype=np.int64).reshape(len(splits), 3)
    f_k, c_lo, default_left = parts[:, 0], parts[:, 1], parts[:, 2].astype(bool)
    seg = segment_ids(bounds)
    c = codes[f_k[seg], S0]
    go_right = np.where(c == MISSING, ~default_left[seg], c > c_lo[seg])
    child = 2 * (np.cumsum(is_split) - 1)[seg] + go_right  # left child 2j, right 2j + 1
    key_type = child_key_type(2 * int(is_split.sum()))
    key = np.full(n, np.iinfo(key_type).max, dtype=key_type)
    key[S0[is_split[seg]]] = child[is_split[seg]]
    return key, np.bincount(child[is_split[seg]], minlength=2 * int(is_split.sum()))


def _split_node(nodes: list, node_id: int, split: tuple, n_left: int, n_right: int,
                features: np.ndarray, p: TreeParams) -> list:
    """Record a split and create the two children; their ids."""
    node = nodes[node_id]
    f_k, _c_lo, default_left, threshold, bracket32, (GL, HL, GR, HR) = split
    node.feature, node.threshold = int(features[f_k]), threshold
    node.default_left = default_left
    node.bracket = float(formulas._bracket(GL, HL, GR, HR, p.reg_lambda))
    node.bracket32 = bracket32
    node.left, node.right = len(nodes), len(nodes) + 1
    nodes.append(_Node(GL, HL, n_left, node.depth + 1))
    nodes.append(_Node(GR, HR, n_right, node.depth + 1))
    return [node.left, node.right]


RIGHT, RIGHT_MISSING, LEFT, LEFT_MISSING = range(4)  # the kinds of candidates, in scan order


class _LevelScan:
    """Every candidate split of every node of one level, with xgboost's scan order."""

    def __init__(self, data: Codes, codes: np.ndarray, S: np.ndarray, g: np.ndarray,
                 h: np.ndarray, features: np.ndarray, level_nodes: list, bounds: np.ndarray,
                 p: TreeParams) -> None:
        self.data, self.codes, self.S, self.features, self.bounds, self.p = (
            data, codes, S, features, bounds, p)
        self.new = data.scratch  # the level's large arrays live in buffers of the fit
        self.G = np.array([nd.G for nd in level_nodes])
        self.H = np.array([nd.H for nd in level_nodes])
        self.seg, self.last = segment_ids(bounds), bounds[1:] - 1
        self.forward = data.need_forward[features]
        self._candidate_positions()
        # PG, PH: sums of g, h over the present values up to each position, per node;
        # NG, NH: the sums over the node's present values
        self.PG = segment_prefix_sums(g, S, bounds, self.present, self.new, "PG")
        self.PH = segment_prefix_sums(h, S, bounds, self.present, self.new, "PH")
        self.NG, self.NH = self.PG[:, self.last], self.PH[:, self.last]
        self.parent32 = round32(formulas._score(self.G, self.H, p.reg_lambda))
        self.sizes = np.diff(bounds)
        self.Gn, self.Hn, self.parent_n = self.G[self.seg], self.H[self.seg], self.parent32[self.seg]
        with np.errstate(divide="ignore", invalid="ignore"):
            self._best_of_each_kind()
        # per node: the first best kind of each feature, then the lowest feature among the best
        self.kind = np.argmax(self.best, axis=0)
        best = np.take_along_axis(self.best, self.kind[None], axis=0)[0]
        self.f_best = np.argmax(best, axis=0)
        self.bracket = best[self.f_best, np.arange(self.G.size)]

    def _candidate_positions(self) -> None:
        """cand[k, r]: a threshold may follow position r, because r + 1 is in the same node
        and holds a larger present value; present[k, r]: the value is not missing."""
        self.cand = self.new("cand", self.S.shape, bool)
        self.cand[...] = True
        self.cand[:, self.last] = False
        self.present, self.n_missing = None, None  # None: all present
        read = np.flatnonzero(self.data.need_codes[self.features])  # features with ties or NaN
        if read.size == 0:
            return
        C = self.codes[read[:, None], self.S[read]]  # the codes in sorted order
        self.cand[read, :-1] &= C[:, 1:] != C[:, :-1]
        if self.data.any_missing:
            self.present = np.ones(self.S.shape, dtype=bool)
            self.present[read] = C != MISSING
            self.cand[read, :-1] &= self.present[read, 1:]
            self.n_missing = np.add.reduceat(~self.present, self.bounds[:-1], axis=1, dtype=np.intp)

    def _rounded_brackets(self, GL, HL, GR, HR, parent, ok, out) -> np.ndarray:
        """Brackets rounded to float32 (as the library stores them) into ``out``; -inf where
        not ``ok`` or a child is lighter than ``min_child_weight``."""
        lam, mcw = self.p.reg_lambda, self.p.min_child_weight
        np.copyto(out, formulas._bracket(GL, HL, GR, HR, lam, parent), casting="same_kind")
        ok = ok & (HL >= mcw) & (HR >= mcw)  # with lam > 0, H >= mcw >= 0 gives H + lam > 0:
        ok = ok if lam > 0 and mcw >= 0 else ok & (HL + lam > 0) & (HR + lam > 0)
        np.copyto(out, -np.inf, where=~ok)
        return out

    def _best_of_each_kind(self) -> None:
        """best[kind, k, s]: the best rounded bracket of feature k in node s among the
        candidates of each kind; at[scan, k, s]: the position of the scan's best (the
        first one met: upwards the first, downwards the last)."""
        shape = self.NG.shape
        self.best = np.full((4, *shape), -np.inf, dtype=np.float32)
        self.at = np.zeros((2, *shape), dtype=np.intp)
        F = np.flatnonzero(self.forward)  # missing right, upwards
        if F.size:
            right = self._scan(F, self._right_children)
            self.best[RIGHT, F], self.at[0, F] = segment_argmax(right, self.bounds)
        left = self._scan(None, self._left_children)  # missing left, downwards
        self.best[LEFT], self.at[1] = segment_argmax(left, self.bounds, last=True)
        if self.n_missing is not None:  # splits of "present" from "missing"
            ok = (self.n_missing > 0) & (self.n_missing < np.diff(self.bounds))
            gain = self._rounded_brackets(self.NG, self.NH, self.G - self.NG, self.H - self.NH,
                                          self.parent32, ok, np.empty(shape, np.float32))
            self.best[RIGHT_MISSING, F], self.best[LEFT_MISSING] = gain[F], gain

    def _scan(self, rows: np.ndarray | None, children) -> np.ndarray:
        """Rounded brackets at every position of the features ``rows`` (None: all), where
        ``children(k)`` gives (G_L, H_L, G_R, H_R) for the features ``k``."""
        n_rows = self.S.shape[0] if rows is None else rows.size
        out = self.new("brackets", (n_rows, self.S.shape[1]), np.float32)
        for block in row_blocks(n_rows, self.S.shape[1]):  # small temporaries, in cache
            k = block if rows is None else rows[block]
            self._rounded_brackets(*children(k), self.parent_n, self.cand[k], out[block])
        return out

    def _hessian_sums(self, k) -> tuple[np.ndarray, np.ndarray]:
        """PH and NH of the features ``k``; one row for all of them when the hessian sums
        are the same for every feature (equal whole hessians, no missing values)."""
        return (self.PH[:1], self.NH[:1]) if self.PH.strides[0] == 0 else (self.PH[k], self.NH[k])

    def _right_children(self, k) -> tuple:
        """Missing values right: the left child holds the present values up to r."""
        (PG, (PH, _)) = self.PG[k], self._hessian_sums(k)
        return PG, PH, self.Gn - PG, self.Hn - PH

    def _left_children(self, k) -> tuple:
        """Missing values left: the right child holds the present values above r."""
        PH, NH = self._hessian_sums(k)
        GR = np.repeat(self.NG[k], self.sizes, axis=1) - self.PG[k]
        HR = np.repeat(NH, self.sizes, axis=1) - PH
        return self.Gn - GR, self.Hn - HR, GR, HR

    def best_split(self, s: int) -> tuple | None:
        """The best split of node ``s``: (feature index, c_lo, default_left, threshold,
        rounded bracket, (G_L, H_L, G_R, H_R)); None when no candidate qualifies."""
        bracket = float(self.bracket[s])
        if not bracket > MIN_BRACKET:
            return None
        if self.p.pre_prune and formulas._gain(bracket, self.p.gamma) < 0:
            return None  # hist: xgboost splits only when loss_chg >= min_split_loss
        f_k = int(self.f_best[s])
        kind = int(self.kind[f_k, s])
        r = int(self.at[0 if kind == RIGHT else 1, f_k, s])
        return (f_k, *self._decode(s, f_k, kind, r), bracket, self._children(s, f_k, kind, r))

    def _decode(self, s: int, f_k: int, kind: int, r: int) -> tuple[int, bool, float]:
        """Code boundary ``c_lo``, direction of missing values and threshold of a candidate."""
        f, code, S = int(self.features[f_k]), self.codes[f_k], self.S[f_k]
        if kind in (RIGHT, LEFT):  # split between positions r and r + 1
            c_lo = int(code[S[r]])
            return c_lo, kind == LEFT, self.data.threshold(f, c_lo, int(code[S[r + 1]]))
        a, b = self.bounds[s], self.bounds[s + 1]
        if kind == RIGHT_MISSING:  # present left, missing right
            n_present = b - a - int(self.n_missing[f_k, s])
            threshold = self.data.missing_threshold(f, int(code[S[a + n_present - 1]]), True)
            return np.iinfo(np.int32).max - 1, False, threshold
        return -1, True, self.data.missing_threshold(f, int(code[S[a]]), False)

    def _children(self, s: int, f_k: int, kind: int, r: int) -> tuple:
        """(G_L, H_L, G_R, H_R) of a candidate."""
        G, H = float(self.G[s]), float(self.H[s])
        NG, NH = float(self.NG[f_k, s]), float(self.NH[f_k, s])
        if kind in (RIGHT, LEFT):
            GLr, HLr = float(self.PG[f_k, r]), float(self.PH[f_k, r])  # present values up to r
            GL, HL = (GLr, HLr) if kind == RIGHT else (G - (NG - GLr), H - (NH - HLr))
        else:
            GL, HL = (NG, NH) if kind == RIGHT_MISSING else (G - NG, H - NH)
        return GL, HL, G - GL, H - HL


def _node_weight(G: float, H: float, lam: float, mcw: float) -> float:
    """w* of a node; 0 when H < min_child_weight or H + lambda <= 0 (the library's rule)."""
    if H < mcw or H <= 0 or H + lam <= 0:
        return 0.0
    return float(formulas._leaf_weight(G, H, lam))


def _prune(nodes: list, gamma: float) -> None:
    """Undo, bottom-up, every split with negative Gain whose children are both leaves."""
    # Children have larger ids than their parents, so one backward pass prunes bottom-up.
    for node in reversed(nodes):
        if node.left == TREE_LEAF:
            continue
        both_leaves = nodes[node.left].left == TREE_LEAF and nodes[node.right].left == TREE_LEAF
        if both_leaves and formulas._gain(node.bracket32, gamma) < 0:
            node.left = node.right = TREE_LEAF
            node.feature, node.threshold, node.default_left = UNDEFINED, -2.0, False


def _finish_tree(nodes: list, p: TreeParams, leaf: np.ndarray | None = None) -> SecondOrderTree:
    """Prune (exact), renumber the surviving nodes breadth-first and pack them into arrays;
    ``leaf`` (the node of each training sample) is mapped to the surviving leaves."""
    children = [(nd.left, nd.right) for nd in nodes]
    if not p.pre_prune:
        _prune(nodes, p.gamma)
    keep, new_id = [0], {0: 0}
    for old in keep:
        for child in (nodes[old].left, nodes[old].right):
            if child != TREE_LEAF:
                new_id[child] = len(keep)
                keep.append(child)
    kept = [nodes[i] for i in keep]
    weight = np.array([_node_weight(nd.G, nd.H, p.reg_lambda, p.min_child_weight)
                       for nd in kept])
    is_split = np.array([nd.left != TREE_LEAF for nd in kept])
    bracket = np.array([nd.bracket for nd in kept])
    return SecondOrderTree(
        children_left=np.array([new_id.get(nd.left, TREE_LEAF) for nd in kept], dtype=np.intp),
        children_right=np.array([new_id.get(nd.right, TREE_LEAF) for nd in kept], dtype=np.intp),
        feature=np.array([nd.feature for nd in kept], dtype=np.intp),
        threshold=np.array([nd.threshold for nd in kept], dtype=np.float64),
        default_left=np.array([nd.default_left for nd in kept], dtype=bool),
        G=np.array([nd.G for nd in kept]), H=np.array([nd.H for nd in kept]),
        weight=weight, value=weight.copy(),
        gain=np.where(is_split, formulas._gain(bracket, p.gamma), 0.0),
        n_node_samples=np.array([nd.n for nd in kept], dtype=np.intp),
        depth=np.array([nd.depth for nd in kept], dtype=np.intp),
        train_leaf=None if leaf is None else _surviving(children, new_id)[leaf],
    )


def _surviving(children: list, new_id: dict) -> np.ndarray:
    """The new id of every node that survives pruning, else of its nearest surviving ancestor."""
    owner = np.zeros(len(children), dtype=np.intp)
    for i, pair in enumerate(children):  # parents come before their children
        owner[i] = new_id.get(i, owner[i])
        for child in pair:
            if child != TREE_LEAF:
                owner[child] = owner[i]
    return owner
