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
    left[np.take(parent, lefts)] = lefts
    feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
    threshold = np.full(n_nodes, float(TREE_UNDEFINED))
    if rec.split_nodes:
        feature[np.concatenate(rec.split_nodes)] = np.concatenate(rec.split_feature)
        threshold[np.concatenate(rec.split_nodes)] = np.concatenate(rec.split_threshold)

    # pre-order ids: subtree sizes bottom-up, then offsets top-down, one depth at a time
    # (ids are breadth-first over all trees, so each depth is a contiguous range)
    inner = left != TREE_LEAF
    bounds = np.searchsorted(depth, np.arange(depth.max() + 2))
    levels = [a + np.flatnonzero(inner[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    size = np.ones(n_nodes, dtype=np.intp)
    for at in reversed(levels):
        child = np.take(left, at)
        size[at] += np.take(size, child) + np.take(size, child + 1)
    pre = np.zeros(n_nodes, dtype=np.intp)  # roots: 0
    for at in levels:
        child, below = np.take(left, at), np.take(pre, at) + 1
        pre[child] = below
        pre[child + 1] = below + np.take(size, child)

    per_tree = np.bincount(tree, minlength=n_trees)
    first = np.cumsum(per_tree) - per_tree
    dest = np.take(first, tree) + pre  # position of every node among all trees' pre-ordered nodes
    child = np.maximum(left, 0)
    pre_left = np.take(pre, child)
    local = (np.where(inner, pre_left, TREE_LEAF),
             np.where(inner, pre_left + np.take(size, child), TREE_LEAF))  # the right child follows the left subtree

    def reorder(a):
        out = np.empty_like(a)
        out[dest] = a
        return out

    arrays = dict(children_left=reorder(local[0]), children_right=reorder(local[1]),
                  feature=reorder(feature), threshold=reorder(threshold),
                  value=reorder(rec.field("value")), impurity=reorder(rec.field("imp")),
                  n_node_samples=reorder(rec.field("n").astype(np.intp)),
                  weighted_n_node_samples=reorder(rec.field("W")), depth=reorder(depth))
    cuts = np.cumsum(per_tree)[:-1]
    split = {name: np.split(a, cuts) for name, a in arrays.items()}
    return [dict({name: split[name][t] for name in arrays}, n_features=d) for t in range(n_trees)]
