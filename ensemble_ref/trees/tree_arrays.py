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
    left = np.full(n_nodes, TREE_LEAF, dtype=np.intp)
    right = np.full(n_nodes, TREE_LEAF, dtype=np.intp)
    child = np.flatnonzero(parent >= 0)
    left[parent[child[is_left[child]]]] = child[is_left[child]]
    right[parent[child[~is_left[child]]]] = child[~is_left[child]]
    feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
    threshold = np.full(n_nodes, float(TREE_UNDEFINED))
    if rec.split_nodes:
        feature[np.concatenate(rec.split_nodes)] = np.concatenate(rec.split_feature)
        threshold[np.concatenate(rec.split_nodes)] = np.concatenate(rec.split_threshold)

    # pre-order ids: subtree sizes bottom-up, then offsets top-down, one depth at a time
    # (ids are breadth-first over all trees, so each depth is a contiguous range)
    inner = left != TREE_LEAF
    bounds = np.searchsorted(depth, np.arange(depth.max() + 2))
    levels = [np.arange(bounds[k], bounds[k + 1]) for k in range(depth.max() + 1)]
    levels = [at[inner[at]] for at in levels]
    size = np.ones(n_nodes, dtype=np.intp)
    for at in reversed(levels):
        size[at] += size[left[at]] + size[right[at]]
    pre = np.zeros(n_nodes, dtype=np.intp)  # roots: 0
    for at in levels:
        pre[left[at]] = pre[at] + 1
        pre[right[at]] = pre[at] + 1 + size[left[at]]

    per_tree = np.bincount(tree, minlength=n_trees)
    first = np.cumsum(per_tree) - per_tree
    dest = first[tree] + pre  # position of every node among all trees' pre-ordered nodes
    local = np.where(inner, pre[np.maximum(left, 0)], TREE_LEAF), np.where(inner, pre[right], TREE_LEAF)

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
