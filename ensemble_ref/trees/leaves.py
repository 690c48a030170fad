"""The leaves of many trees at once: an ensemble's rows descend all its trees together.

:meth:`ensemble_ref.trees.cart.Tree.apply` moves every row of one tree down one level per
step (:func:`~ensemble_ref.trees.engine.descend`), a few NumPy calls a step. An ensemble
that asks each of its trees in turn pays those calls once per tree; on a few hundred rows
the calls, not the arithmetic, are the cost.
Here the nodes of a group of trees are laid end to end (each tree's children shifted by the
nodes before it) and the pairs (tree, row) descend together: the same comparisons
(``x_j <= s`` goes left, ``x`` in float32, a leaf its own child) and so the same leaves,
with the calls paid once per group. A group holds about ``PAIRS`` pairs, as many trees as
that allows (one at least), so its arrays stay in the cache.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from .cart import DecisionTreeClassifier, DecisionTreeRegressor
from .engine import descend, to_float32

__all__ = ["PAIRS", "tree_leaves", "tree_values", "package_trees"]

PAIRS = 2**14  # (tree, row) pairs that descend together


def tree_leaves(trees: Sequence, X32: np.ndarray,
                rows: Sequence[np.ndarray] | None = None) -> Iterator[np.ndarray]:
    """For each tree ``b`` of ``trees`` (:class:`~ensemble_ref.trees.cart.Tree`), in order, the
    leaf of every row of ``X32`` (of the rows ``rows[b]`` when given):
    ``trees[b].apply(X32[rows[b]])``, computed a group of trees at a time."""
    X32 = np.asarray(X32, dtype=np.float32)
    n, d = X32.shape
    flat = X32.ravel()
    counts = [n if rows is None else len(r) for r in (rows or [None] * len(trees))]
    start = 0
    while start < len(trees):
        stop, pairs = start + 1, counts[start]
        while stop < len(trees) and pairs + counts[stop] <= PAIRS:
            pairs += counts[stop]
            stop += 1
        group = range(start, stop)
        picked = [np.arange(n) if rows is None else np.asarray(rows[b], dtype=np.intp) for b in group]
        yield from _descend([trees[b] for b in group], flat, d, picked)
        start = stop


def _descend(trees: list, flat: np.ndarray, d: int, rows: list[np.ndarray]) -> list[np.ndarray]:
    """The leaves of ``rows[b]`` in tree ``b``, all pairs moved one level per step."""
    routes = [tree._routing() for tree in trees]  # feature, threshold, children (leaves their own)
    sizes = np.array([tree.node_count for tree in trees])
    offset = np.cumsum(sizes) - sizes
    feature = np.concatenate([r[0] for r in routes])
    threshold = np.concatenate([r[1] for r in routes])
    children = np.concatenate([r[2] + o for r, o in zip(routes, offset)])
    lengths = [r.size for r in rows]
    base = np.concatenate(rows) * d
    node = descend(flat, base, np.repeat(offset, lengths), feature, threshold, children,
                   max(tree.max_depth for tree in trees))
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    return [node[lo:hi] - o for lo, hi, o in zip(bounds[:-1], bounds[1:], offset)]


def package_trees(members: Sequence, n_classes: int | None = None) -> bool:
    """Whether ``members`` are all regression trees of the package (``n_classes`` None), or all
    its classification trees fitted on the classes ``0, ..., n_classes - 1``."""
    if n_classes is None:
        return all(type(m) is DecisionTreeRegressor for m in members)
    return all(type(m) is DecisionTreeClassifier and np.array_equal(m.classes_, np.arange(n_classes))
               for m in members)


def tree_values(members: Sequence, X: np.ndarray, rows: Sequence[np.ndarray] | None = None
                ) -> Iterator[np.ndarray]:
    """Each fitted tree's leaf values on the rows of the validated ``X`` (``rows[b]`` for tree
    ``b``): its ``predict`` (regression) or ``predict_proba`` (classes ``0..K-1``) there."""
    leaves = tree_leaves([m.tree_ for m in members], to_float32(X), rows)
    for member, at in zip(members, leaves):
        yield member.tree_.value.take(at, axis=0)
