r"""A data-parallel histogram tree: rows on several machines, histograms summed, one tree.

The rows of the training set are split into *shards*, one per worker. A shard is a
tuple ``(codes, g, h)``: the bin codes of its rows (:func:`ensemble_ref.math.histograms.bin_features`,
with cut points shared by all workers) and their gradients and Hessians. The tree is
grown level by level, as ``ensemble_ref.XGBRegressor`` grows it:

1. every worker routes its rows through the tree grown so far and builds the
   gradient/Hessian histograms of its rows for the nodes of the current level
   (:func:`shard_histograms`);
2. the histograms are summed over the workers, the *all-reduce*
   (:func:`ensemble_ref.math.histograms.sum_histograms`);
3. the best split of every node is found on the sum
   (:func:`ensemble_ref.math.histograms.best_split`, the book's gain ``eq-xgb-gain``),
   and is sent back with the next request.

Only histograms travel to the driver (``2 d B`` numbers per node) and only the
splits travel back; no row leaves its worker. How the work reaches the workers is
the caller's choice: :func:`build_histogram_tree` takes a ``map_shards`` function,
:func:`local_map` (a plain loop, the single-process version) or
:func:`dask_map` (Dask futures). This module imports no Dask: a client is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ensemble_ref import leaf_weight
from ensemble_ref.math.histograms import best_split, gradient_histogram, sum_histograms

__all__ = ["HistogramTree", "shard_histograms", "build_histogram_tree", "local_map", "dask_map"]

_LEAF = -1
_MIN_BRACKET = 1e-6  # a node splits when its best bracket (twice the gain + gamma) exceeds this


@dataclass
class HistogramTree:
    """A tree grown from histograms, stored as parallel node arrays (node 0 is the root).

    Node ``i`` is a leaf when ``children_left[i] == -1``; otherwise a row goes left
    when its code of feature ``feature[i]`` is ``<= bin[i]``, i.e. when
    ``x[feature[i]] < threshold[i]``. The nodes are numbered breadth-first, as in
    ``ensemble_ref.XGBRegressor``'s trees, whose arrays of the same names can be
    compared with these.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    bin: np.ndarray
    threshold: np.ndarray
    G: np.ndarray
    H: np.ndarray
    weight: np.ndarray
    value: np.ndarray
    gain: np.ndarray
    depth: np.ndarray
    allreduce_numbers: list = field(default_factory=list)  # numbers per worker, per level

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.children_left == _LEAF

    def apply_codes(self, codes: np.ndarray) -> np.ndarray:
        """Leaf id of each row, from its bin codes."""
        return _route(codes, self.children_left, self.children_right, self.feature, self.bin)

    def predict(self, X: Any) -> np.ndarray:
        """What the tree adds to the score of each row of ``X`` (``learning_rate * weight``)."""
        X = np.asarray(X, dtype=np.float64)
        node = np.zeros(X.shape[0], dtype=np.intp)
        for _ in range(int(self.depth.max())):
            f = np.maximum(self.feature[node], 0)
            left = X[np.arange(X.shape[0]), f] < self.threshold[node]
            child = np.where(left, self.children_left[node], self.children_right[node])
            node = np.where(child == _LEAF, node, child)
        return self.value[node]


def _route(codes: np.ndarray, left: np.ndarray, right: np.ndarray, feature: np.ndarray,
           bins: np.ndarray) -> np.ndarray:
    """Node reached by each row when the tree's splits are followed until a leaf."""
    n = codes.shape[0]
    node = np.zeros(n, dtype=np.intp)
    rows = np.arange(n)
    while True:
        split = left[node] != _LEAF
        if not split.any():
            return node
        go_left = codes[rows, np.maximum(feature[node], 0)] <= bins[node]
        node = np.where(split, np.where(go_left, left[node], right[node]), node)


def shard_histograms(shard: tuple, left: np.ndarray, right: np.ndarray, feature: np.ndarray,
                     bins: np.ndarray, level: np.ndarray, n_bins: int) -> np.ndarray:
    """One worker's part of a level: the histograms of its rows for the nodes of ``level``.

    Parameters
    ----------
    shard : tuple (codes, g, h)
        The worker's rows: bin codes of shape (n_k, d), gradients and Hessians.
    left, right, feature, bins : arrays over the nodes grown so far
        The tree so far (``left[i] == -1`` for a node not split, yet or ever).
    level : int array
        Ids of the nodes whose histograms are wanted.
    n_bins : int
        Width of the histograms.

    Returns
    -------
    ndarray of shape (len(level), d, n_bins, 2)
    """
    codes, g, h = shard
    node = _route(codes, left, right, feature, bins)
    position = np.full(left.size, -1, dtype=np.intp)
    position[level] = np.arange(len(level))
    return gradient_histogram(codes, g, h, n_bins, nodes=position[node], n_nodes=len(level))


def local_map(function: Callable, shards: Sequence, *args: Any) -> list:
    """``[function(shard, *args) for shard in shards]``: every shard in this process."""
    return [function(shard, *args) for shard in shards]


def dask_map(client: Any) -> Callable:
    """A ``map_shards`` that runs ``function`` on the workers holding the shards.

    ``shards`` must then be Dask futures (``client.scatter(list_of_shards)``); each call
    is submitted where its shard lives and only the results (histograms) come back.
    """
    def map_shards(function: Callable, shards: Sequence, *args: Any) -> list:
        futures = [client.submit(function, shard, *args, pure=False) for shard in shards]
        return client.gather(futures)
    return map_shards


def build_histogram_tree(shards: Sequence, cuts: Sequence[np.ndarray], *, max_depth: int = 3,
                         reg_lambda: float = 1.0, gamma: float = 0.0,
                         min_child_weight: float = 1.0, learning_rate: float = 1.0,
                         map_shards: Callable | None = None) -> HistogramTree:
    r"""Grow one tree from histograms summed over shards.

    Parameters
    ----------
    shards : list
        The shards ``(codes, g, h)``, or handles to them that ``map_shards`` understands
        (Dask futures for :func:`dask_map`).
    cuts : list of arrays
        The cut points shared by all shards (:func:`ensemble_ref.math.histograms.quantile_cuts`);
        they give the thresholds and the histograms' width.
    max_depth, reg_lambda, gamma, min_child_weight, learning_rate
        As in ``ensemble_ref.XGBRegressor``.
    map_shards : callable, default=:func:`local_map`
        ``map_shards(function, shards, *args)`` returns ``[function(shard, *args), ...]``.

    Returns
    -------
    HistogramTree
        Grown level by level: a node splits on the best candidate of its summed
        histogram when the bracket of ``eq-xgb-gain`` exceeds ``1e-6`` (and both
        children have Hessian sums ``>= min_child_weight``); then, from the bottom up,
        a split whose two children are leaves is removed while its Gain is negative;
        leaf weights are :func:`~ensemble_ref.math.second_order.leaf_weight` (0 when ``H < min_child_weight``).
        These are the rules of ``ensemble_ref.XGBRegressor``.
    """
    if map_shards is None:
        map_shards = local_map
    if not isinstance(max_depth, (int, np.integer)) or isinstance(max_depth, bool):
        raise TypeError(f"max_depth must be an int, got {type(max_depth).__name__}.")
    if max_depth < 1:
        raise ValueError(f"max_depth must be >= 1, got {max_depth}.")
    n_bins = 1 + max(len(c) for c in cuts)
    nodes = _grow(shards, n_bins, max_depth, reg_lambda, gamma, min_child_weight, map_shards)
    _prune(nodes, gamma)
    return _assemble(nodes, cuts, reg_lambda, gamma, min_child_weight, learning_rate)


class _Nodes:
    """The node arrays of a growing tree, as lists (children are created in pairs, level by level)."""

    def __init__(self) -> None:
        self.left, self.right, self.feature, self.bins = [_LEAF], [_LEAF], [-2], [-1]
        self.G, self.H, self.bracket, self.depth = [0.0], [0.0], [0.0], [0]
        self.numbers: list[int] = []

    def add_leaf(self, G: float, H: float, depth: int) -> int:
        self.left.append(_LEAF), self.right.append(_LEAF), self.feature.append(-2), self.bins.append(-1)
        self.G.append(G), self.H.append(H), self.bracket.append(0.0), self.depth.append(depth)
        return len(self.left) - 1


def _grow(shards: Sequence, n_bins: int, max_depth: int, reg_lambda: float, gamma: float,
          min_child_weight: float, map_shards: Callable) -> _Nodes:
    """Split level by level on the best candidate of each node's summed histogram."""
    t = _Nodes()
    level = [0]
    for d in range(max_depth):
        hists = map_shards(shard_histograms, shards, np.array(t.left), np.array(t.right),
                           np.array(t.feature), np.array(t.bins), np.array(level), n_bins)
        total = sum_histograms(list(hists))          # the all-reduce
        t.numbers.append(int(total.size))
        if d == 0:
            t.G[0], t.H[0] = float(total[0, 0, :, 0].sum()), float(total[0, 0, :, 1].sum())
        new_level = []
        for k, node in enumerate(level):
            split = best_split(total[k], reg_lambda, gamma, min_child_weight)
            if split is None or not 2 * (split.gain + gamma) > _MIN_BRACKET:
                continue
            t.left[node], t.right[node] = len(t.left), len(t.left) + 1
            t.feature[node], t.bins[node] = split.feature, split.bin
            t.bracket[node] = 2 * (split.gain + gamma)
            for Gc, Hc in ((split.G_L, split.H_L), (split.G_R, split.H_R)):
                new_level.append(t.add_leaf(Gc, Hc, d + 1))
        if not new_level:
            break
        level = new_level
    return t


def _prune(t: _Nodes, gamma: float) -> None:
    """Remove, from the bottom up, splits of two leaves whose Gain is negative."""
    left, right = t.left, t.right
    for i in reversed(range(len(left))):  # children have larger ids than their parents
        if left[i] == _LEAF:
            continue
        if left[left[i]] == _LEAF and left[right[i]] == _LEAF and 0.5 * t.bracket[i] - gamma < 0:
            left[i] = right[i] = _LEAF
            t.feature[i], t.bins[i] = -2, -1


def _assemble(t: _Nodes, cuts: Sequence[np.ndarray], reg_lambda: float, gamma: float,
              min_child_weight: float, learning_rate: float) -> HistogramTree:
    """The surviving nodes, renumbered breadth-first, with their thresholds and leaf weights."""
    left, right = t.left, t.right
    keep, new_id = [0], {0: 0}
    for old in keep:
        for child in (left[old], right[old]):
            if child != _LEAF:
                new_id[child] = len(keep)
                keep.append(child)
    G_, H_ = np.array([t.G[i] for i in keep]), np.array([t.H[i] for i in keep])
    ok = (H_ >= min_child_weight) & (H_ > 0) & (H_ + reg_lambda > 0)
    weight = np.where(ok, leaf_weight(np.where(ok, G_, 0.0), np.where(ok, H_, 1.0), reg_lambda),
                      0.0)
    feat = np.array([t.feature[i] for i in keep], dtype=np.intp)
    b = np.array([t.bins[i] for i in keep], dtype=np.intp)
    threshold = np.array([float(cuts[f][c]) if f >= 0 else -2.0 for f, c in zip(feat, b)])
    is_split = feat >= 0
    return HistogramTree(
        children_left=np.array([new_id.get(left[i], _LEAF) for i in keep], dtype=np.intp),
        children_right=np.array([new_id.get(right[i], _LEAF) for i in keep], dtype=np.intp),
        feature=feat, bin=b, threshold=threshold, G=G_, H=H_, weight=weight,
        value=learning_rate * weight,
        gain=np.where(is_split, 0.5 * np.array([t.bracket[i] for i in keep]) - gamma, 0.0),
        depth=np.array([t.depth[i] for i in keep], dtype=np.intp), allreduce_numbers=t.numbers)
