r"""The tree of the second-order booster, grown level by level on coded features.

At each node the best split maximises the bracket of ``eq-xgb-gain`` over every
feature and every threshold between two codes (:class:`~ensemble_ref.trees.engine.Codes`:
ranks for ``tree_method="exact"``), scanning as xgboost's ``exact`` updater does: for a
feature with missing values, first with the missing values on the right (upwards), then
on the left (downwards), plus the split of "missing" from "present"; for a feature
without missing values in training only on the left, so that a missing value met later
goes **left** (xgboost's ``hist`` sends it right: :mod:`ensemble_ref.trees.second_order_hist`).
A later candidate replaces an earlier one only if strictly better, a higher feature
only if strictly better. The bracket is rounded to float32 as the library rounds it,
so that candidates differing only by rounding tie.

A node is split on its best candidate when the bracket exceeds ``1e-6`` and both
children have hessian sums of at least ``min_child_weight``. Then the two tree
methods prune as xgboost's updaters do:

* ``exact`` grows to ``max_depth`` and afterwards removes, from the bottom up, every
  split whose ``Gain`` (equation ``eq-xgb-gain``, with :math:`\tau`) is negative and
  whose two children are leaves (a split with a small gain survives if a split below
  it is worth keeping);
* ``hist`` pre-prunes: a node is split only when its best candidate has
  ``Gain >= 0`` (xgboost's ``loss_chg >= min_split_loss``).

The candidates are scored and each node's split chosen by the one split selector of
:mod:`ensemble_ref.trees.second_order_rules`, which also holds these rules of the
library; the formulas come from :mod:`ensemble_ref.math.second_order` (called through
the module, so that the one definition is the one the tree runs).

The booster grows its ``hist`` trees from gradient histograms
(:mod:`ensemble_ref.trees.second_order_hist`) with the same split rule but the scans of
xgboost's ``hist``: on the same codes the two growers make the same partitions of the
training rows (but for ties), and differ in the default direction of a feature without
missing values. Every grower, the data-parallel one of
:mod:`ensemble_ref.ensembles.distributed` included, finishes its trees with this module's
pruning and breadth-first numbering (``_finish_tree()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..math import second_order as formulas
from .engine import MISSING, Codes, child_key_type, partition, segment_ids
from .second_order_rules import TreeParams, node_weights, split_gains
from .second_order_scan import _LevelScan

__all__ = ["SecondOrderTree", "TreeParams", "grow_tree"]

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
        The book's ``Gain`` (with :math:`\\tau` subtracted) of each split; 0 at leaves.
    n_node_samples : ndarray of int
        Number of training samples (of the round's subsample) in each node.
    depth : ndarray of int
        Depth of each node (the root has depth 0).
    train_leaf : ndarray of int or None
        While the booster fits: the leaf of each training sample when the tree grew on all
        of them (its training predictions without :meth:`apply`); None otherwise.
    code : ndarray of int or None
        The code boundary of each split (codes ``<= code`` go left; -1 at leaves): the
        bin of ``tree_method="hist"``.
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
    code: np.ndarray | None = field(default=None, repr=False)

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
                 "right", "code", "bracket32")

    def __init__(self, G: float, H: float, n: int, depth: int) -> None:
        self.G, self.H, self.n, self.depth = G, H, n, depth
        self.feature, self.threshold, self.default_left = UNDEFINED, -2.0, False
        self.left = self.right = TREE_LEAF
        self.code = -1  # the split's code boundary
        self.bracket32 = 0.0  # the split's bracket as compared (float32)

    def split(self, nodes: list, feature: int, threshold: float, default_left: bool, code: int,
              bracket32: float, children: tuple, sizes: tuple) -> list:
        """Record a split and append the two children (``children``: G_L, H_L, G_R, H_R;
        ``sizes``: their numbers of rows); their ids."""
        self.feature, self.threshold, self.default_left = feature, threshold, default_left
        self.code, self.bracket32 = code, bracket32
        self.left, self.right = len(nodes), len(nodes) + 1
        GL, HL, GR, HR = children
        nodes += [_Node(GL, HL, sizes[0], self.depth + 1), _Node(GR, HR, sizes[1], self.depth + 1)]
        return [self.left, self.right]


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
                new_level += _split_node(nodes, node_id, split, int(n_left), int(n_right), features)
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
                features: np.ndarray) -> list:
    """Record a split and create the two children; their ids."""
    f_k, c_lo, default_left, threshold, bracket32, children = split
    return nodes[node_id].split(nodes, int(features[f_k]), threshold, default_left, c_lo,
                                bracket32, children, (n_left, n_right))


def _prune(nodes: list, tau: float) -> None:
    """Undo, bottom-up, every split with negative Gain whose children are both leaves
    (xgboost's ``prune`` updater, on the bracket as the library stored it)."""
    # Children have larger ids than their parents, so one backward pass prunes bottom-up.
    for node in reversed(nodes):
        if node.left == TREE_LEAF:
            continue
        both_leaves = nodes[node.left].left == TREE_LEAF and nodes[node.right].left == TREE_LEAF
        if both_leaves and formulas._gain(node.bracket32, tau) < 0:
            node.left = node.right = TREE_LEAF
            node.feature, node.threshold, node.default_left, node.code = UNDEFINED, -2.0, False, -1


def _breadth_first(nodes: list) -> tuple[list, dict]:
    """The nodes reachable from the root, numbered breadth-first (left before right), as
    the library numbers them: the old ids in the new order, and old id -> new id."""
    keep, new_id = [0], {0: 0}
    for old in keep:
        for child in (nodes[old].left, nodes[old].right):
            if child != TREE_LEAF:
                new_id[child] = len(keep)
                keep.append(child)
    return keep, new_id


def _finish_tree(nodes: list, p: TreeParams, leaf: np.ndarray | None = None) -> SecondOrderTree:
    """Prune (``exact``), renumber the surviving nodes breadth-first and pack them into
    arrays, with the weights and gains of :mod:`~ensemble_ref.trees.second_order_rules`;
    ``leaf`` (the node of each training sample) is mapped to the surviving leaves. Every
    grower (exact, histogram, data-parallel) finishes its trees here."""
    children = [(nd.left, nd.right) for nd in nodes]
    if not p.pre_prune:
        _prune(nodes, p.tau)
    keep, new_id = _breadth_first(nodes)
    kept = [nodes[i] for i in keep]
    G, H = np.array([nd.G for nd in kept]), np.array([nd.H for nd in kept])
    left = np.array([new_id.get(nd.left, TREE_LEAF) for nd in kept], dtype=np.intp)
    right = np.array([new_id.get(nd.right, TREE_LEAF) for nd in kept], dtype=np.intp)
    split = left != TREE_LEAF
    gain = np.zeros(len(kept))
    gain[split] = split_gains(G[left[split]], H[left[split]], G[right[split]], H[right[split]], p)
    weight = node_weights(G, H, p)
    return SecondOrderTree(
        children_left=left, children_right=right,
        feature=np.array([nd.feature for nd in kept], dtype=np.intp),
        threshold=np.array([nd.threshold for nd in kept], dtype=np.float64),
        default_left=np.array([nd.default_left for nd in kept], dtype=bool),
        G=G, H=H, weight=weight, value=weight.copy(), gain=gain,
        n_node_samples=np.array([nd.n for nd in kept], dtype=np.intp),
        depth=np.array([nd.depth for nd in kept], dtype=np.intp),
        train_leaf=None if leaf is None else _surviving(children, new_id)[leaf],
        code=np.array([nd.code for nd in kept], dtype=np.int64),
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
