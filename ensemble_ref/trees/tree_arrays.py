"""The nodes a level-wise grower creates, turned into the arrays of fitted trees.

A grower creates the nodes of one depth at a time, for one tree or for many trees grown
together (a forest), and records each level's nodes in :class:`NodeRecords`: node ids run
breadth-first over all the trees, and each node knows its tree. :func:`assemble_trees` then
numbers every tree's nodes in depth-first pre-order, as scikit-learn does (a node, its left
subtree, its right subtree), all trees at once, and returns one dict of arrays per tree
(see :class:`ensemble_ref.trees.cart.Tree`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["TREE_LEAF", "TREE_UNDEFINED", "NodeRecords", "assemble_trees"]

TREE_LEAF = -1  # children_left / children_right of a leaf
TREE_UNDEFINED = -2  # feature / threshold of a leaf

_FIELDS = ("tree", "parent", "is_left", "depth", "n", "W", "imp", "value")


class NodeRecords:
    """The nodes created so far, level by level: per-level arrays of each field."""

    def __init__(self) -> None:
        self.lists: dict[str, list] = {name: [] for name in _FIELDS}
        self.split_nodes, self.split_feature, self.split_threshold = [], [], []
        self.count = 0

    def add(self, tree, parent, is_left, depth, n, W, imp, value) -> np.ndarray:
        """Append one level's nodes (``tree``: the tree of each); their ids."""
        for name, a in zip(_FIELDS, (tree, parent, is_left, depth, n, W, imp, value)):
            self.lists[name].append(np.asarray(a))
        ids = self.count + np.arange(len(n))
        self.count += len(n)
        return ids

    def record_splits(self, ids, feature, threshold) -> None:
        self.split_nodes.append(ids)
        self.split_feature.append(feature)
        self.split_threshold.append(threshold)

    def field(self, name: str) -> np.ndarray:
        return np.concatenate(self.lists[name])


def assemble_trees(rec: NodeRecords, n_trees: int, d: int) -> list[dict]:
    """The breadth-first records as the arrays of ``n_trees`` trees, each numbered in pre-order."""
    tree, parent, is_left, depth = (rec.field(f) for f in ("tree", "parent", "is_left", "depth"))
    n_nodes = tree.size
    # children are recorded in pairs, the left one first: a right child's id is its sibling's + 1
    lefts = np.flatnonzero(is_left)
    left = np.full(n_nodes, TREE_LEAF, dtype=np.intp)
    left[parent.take(lefts)] = lefts
    feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
    threshold = np.full(n_nodes, float(TREE_UNDEFINED))
    if rec.split_nodes:
        at = np.concatenate(rec.split_nodes)
        feature[at] = np.concatenate(rec.split_feature)
        threshold[at] = np.concatenate(rec.split_threshold)

    # pre-order: by tree, then by the path from the root (a node before its subtree, a left
    # subtree before the right one), all trees in one sort
    order = np.lexsort((depth, *reversed(_path_keys(parent, is_left, depth)), tree))
    dest = np.empty(n_nodes, dtype=np.intp)  # position of every node among all trees' pre-ordered nodes
    dest[order] = np.arange(n_nodes)
    per_tree = np.bincount(tree, minlength=n_trees)
    pre = dest - (np.cumsum(per_tree) - per_tree).take(tree)  # position within its tree
    inner = left != TREE_LEAF
    child = np.where(inner, left, 0)  # (a leaf reads node 0, then is set to TREE_LEAF)
    local = (np.where(inner, pre.take(child), TREE_LEAF),
             np.where(inner, pre.take(child + inner), TREE_LEAF))  # the right child: left + 1

    def reorder(a):
        return a.take(order, axis=0)

    arrays = dict(children_left=reorder(local[0]), children_right=reorder(local[1]),
                  feature=reorder(feature), threshold=reorder(threshold),
                  value=reorder(rec.field("value")), impurity=reorder(rec.field("imp")),
                  n_node_samples=reorder(rec.field("n").astype(np.intp)),
                  weighted_n_node_samples=reorder(rec.field("W")), depth=reorder(depth))
    if n_trees == 1:
        return [dict(arrays, n_features=d)]
    bounds = np.concatenate([[0], np.cumsum(per_tree)]).tolist()  # each tree's nodes, in turn
    return [dict({name: a[lo:hi] for name, a in arrays.items()}, n_features=d)
            for lo, hi in zip(bounds[:-1], bounds[1:])]


_PATH_BITS = 62  # steps of a path held by one int64 key


def _path_keys(parent: np.ndarray, is_left: np.ndarray, depth: np.ndarray) -> list[np.ndarray]:
    """Every node's path from its root as int64 keys, 62 steps a key, most significant first:
    a right step is the bit 1, and the path is padded with left steps (0).

    Sorting by the keys, then by depth, puts a node before its subtree (its left child has
    its keys and a larger depth) and its left subtree before its right one: the pre-order.
    Nodes are numbered by depth, each after its parent, so one pass per depth sets them.
    """
    D = int(depth.max())
    keys = [np.zeros(depth.size, dtype=np.int64) for _ in range(max(1, -(-D // _PATH_BITS)))]
    bounds = np.searchsorted(depth, np.arange(D + 2))
    for k in range(1, D + 1):
        a, b = bounds[k], bounds[k + 1]
        up = parent[a:b]
        for key in keys:
            key[a:b] = key.take(up)
        c, bit = divmod(k - 1, _PATH_BITS)
        keys[c][a:b] += (~is_left[a:b]).astype(np.int64) << (_PATH_BITS - 1 - bit)
    return keys
