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
from .engine import MISSING, Codes, child_key_type, partition, segment_ids
from .second_order_scan import _LevelScan

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
