r"""A data-parallel histogram tree: rows on several machines, histograms summed, one tree.

The rows of the training set are split into *shards*, one per worker. A shard is a
tuple ``(codes, g, h)``: the bin codes of its rows (:func:`ensemble_ref.math.histograms.bin_features`
or :func:`ensemble_ref.trees.binning.quantile_bins`, with cut points shared by all
workers) and their gradients and Hessians. The tree is grown level by level by the
histogram grower of ``ensemble_ref.XGBRegressor(tree_method="hist")``
(:func:`ensemble_ref.trees.second_order_hist.grow_levels`), whose rows are here on the
workers:

1. the driver sends the splits of the level to every worker, which moves its rows to
   their children and builds the gradient/Hessian histograms of its rows in the smaller
   child of every split (the root at first) with the booster's own code
   (:mod:`ensemble_ref.trees.second_order_rows`; :func:`shard_histograms`);
2. the histograms are summed over the workers, the *all-reduce*
   (:func:`ensemble_ref.math.histograms.sum_histograms`); the larger children's are
   their parents' minus the smaller ones';
3. the best split of every node is chosen on the sums by the one split selector of
   :mod:`ensemble_ref.trees.second_order_rules` (the book's gain ``eq-xgb-gain``), and
   is sent with the next request.

Only histograms travel to the driver (``2 d B`` numbers per node, three when the
Hessians are not all 1) and only the splits travel back; no row leaves its worker. How
the work reaches the workers is the caller's choice: :func:`build_histogram_tree` takes a
``map_shards`` function, :func:`local_map` (a plain loop, the single-process version) or
:func:`dask_map` (Dask futures). This module imports no Dask: a client is passed in.
"""

from __future__ import annotations

import uuid
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..core.growers import check_cuts_match, check_shard, check_shards
from ..core.validation import check_float, check_int
from ..math.histograms import sum_histograms
from ..trees.second_order_hist import grow_levels
from ..trees.second_order_rows import Bins, LevelRows
from ..trees.second_order_rules import TreeParams
from ..trees.second_order_tree import _finish_tree

__all__ = ["HistogramTree", "shard_histograms", "build_histogram_tree", "local_map", "dask_map"]

_LEAF = -1


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
        codes = np.asarray(codes)
        node = np.zeros(codes.shape[0], dtype=np.intp)
        rows = np.arange(codes.shape[0])
        for _ in range(int(self.depth.max())):
            go_left = codes[rows, np.maximum(self.feature[node], 0)] <= self.bin[node]
            child = np.where(go_left, self.children_left[node], self.children_right[node])
            node = np.where(self.children_left[node] == _LEAF, node, child)
        return node

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


# --- the workers' side ---------------------------------------------------------------------

_SHARDS: dict = {}  # id(codes) -> [codes (weak), Bins, tree token, LevelRows]: a worker's state


def _bins(codes: Any, n_bins: int) -> Bins:
    """The shard's codes in the grower's layout (made once per shard and kept while it lives)."""
    entry = _SHARDS.get(id(codes))
    if entry is not None and entry[0]() is codes:
        return entry[1]
    array = np.asarray(codes)
    if array.ndim != 2 or array.dtype.kind not in "iu":
        raise TypeError(f"a shard's codes must be a 2-D integer array, got {array.dtype} "
                        f"of shape {array.shape}.")
    if array.size and (array.min() < 0 or array.max() >= n_bins):
        raise ValueError(f"a shard's codes must lie in 0, ..., {n_bins - 1} (one bin per cut "
                         f"point and one more), got [{array.min()}, {array.max()}].")
    bins = Bins(array.T, n_bins)
    if isinstance(codes, np.ndarray):
        _SHARDS[id(codes)] = [weakref.ref(codes), bins, None, None]
        weakref.finalize(codes, _SHARDS.pop, id(codes), None)
    return bins


def _shard_rows(shard: tuple, token: str, steps: list, n_bins: int) -> LevelRows:
    """The shard's rows moved through the splits ``steps`` of the tree ``token``.

    A worker keeps the rows of the last level it was asked for; any other request (a new
    tree, a shard it did not see) starts from the root and replays the splits, the same
    computation, so the histograms never depend on what a worker remembers.
    """
    codes, g, h = check_shard(shard, lambda c: _bins(c, n_bins).n)
    bins = _bins(codes, n_bins)
    entry = _SHARDS.get(id(codes))
    rows = entry[3] if entry is not None and entry[2] == token else None
    if rows is None or rows.g is not g or rows.depth > len(steps):
        rows = LevelRows(bins, g, h, np.arange(bins.n), np.arange(bins.bins.shape[0]))
    for s in steps[rows.depth:]:
        rows.advance(s)
    if entry is not None:
        entry[2], entry[3] = token, rows
    return rows


def shard_histograms(shard: tuple, token: str, steps: list, n_bins: int) -> tuple:
    """One worker's part of a level: the histograms of its rows in the nodes wanted.

    Parameters
    ----------
    shard : tuple (codes, g, h)
        The worker's rows: bin codes of shape (n_k, d), gradients and Hessians.
    token : str
        The tree being grown.
    steps : list of LevelSplits
        The splits of every level grown so far
        (:class:`~ensemble_ref.trees.second_order_rows.LevelSplits`).
    n_bins : int
        Width of the histograms (bins per feature).

    Returns
    -------
    tuple (totals, C, G, H)
        ``totals``: the shard's ``(G, H, n, unit)`` at the root (None below it); then the
        histograms of shape (nodes, d, n_bins) of the root, or of the smaller child of
        every split of the last level: counts, gradient sums and Hessian sums (None when
        every Hessian is 1: the counts are then the Hessian sums).
    """
    rows = _shard_rows(shard, token, steps, n_bins)
    C, G, H = rows.histograms(steps[-1].c_lo.size if steps else 1)
    return (None if steps else rows.totals()), C, G, (None if H is C else H)


def local_map(function: Callable, shards: Sequence, *args: Any) -> list:
    """``[function(shard, *args) for shard in shards]``: every shard in this process."""
    return [function(shard, *args) for shard in shards]


def dask_map(client: Any) -> Callable:
    """A ``map_shards`` that runs ``function`` on the workers holding the shards.

    ``shards`` must then be Dask futures (``client.scatter(list_of_shards)``); each call
    is pinned to the worker that holds its shard (``workers=``, with
    ``allow_other_workers=False``), so no row leaves its worker and only the results
    (histograms) come back. Left to itself, Dask's scheduler now and then copies a
    shard to another worker and runs the call there.
    """
    def map_shards(function: Callable, shards: Sequence, *args: Any) -> list:
        holders = client.who_has(list(shards))
        futures = [client.submit(function, shard, *args, pure=False,
                                 workers=list(holders[shard.key]), allow_other_workers=False)
                   for shard in shards]
        return client.gather(futures)
    return map_shards


# --- the driver's side ---------------------------------------------------------------------


class _Shards:
    """The rows of the tree, on the workers: what the histogram grower asks of its rows."""

    def __init__(self, shards: Sequence, map_shards: Callable, n_bins: int, n_features: int) -> None:
        self.shards, self.map, self.n_bins = check_shards(shards), map_shards, n_bins
        self.n_features = n_features
        self.token, self.steps, self.buffers, self.numbers = uuid.uuid4().hex, [], {}, []

    def _allreduce(self) -> tuple[list, list]:
        """Every worker's part of the level, and the histograms summed over the workers."""
        parts = self.map(shard_histograms, self.shards, self.token, self.steps, self.n_bins)
        C = sum_histograms([part[1] for part in parts]).astype(np.int64)  # counts: exact
        G = sum_histograms([part[2] for part in parts])
        unit = all(part[3] is None for part in parts)
        H = C if unit else sum_histograms([part[1] if part[3] is None else part[3]
                                           for part in parts])
        self.numbers.append(sum(a.size for a in parts[0][1:] if a is not None))
        return [part[0] for part in parts], [C, G, H]

    def start(self) -> tuple:
        """The root's ``(G, H, n, unit)``, summed over the workers, and its histograms."""
        totals, hist = self._allreduce()
        check_cuts_match(self.n_features, hist[0].shape[1])  # (nodes, features, bins)
        G, H = 0.0, 0.0
        for t in totals:
            G, H = G + t[0], H + t[1]
        return (G, H, sum(t[2] for t in totals), all(t[3] for t in totals)), hist

    def split(self, s: Any, n_small: int, level: np.ndarray) -> list | None:
        """Send the level's splits with the next request; the smaller children's histograms
        (no request at the last level: the workers need not move their rows)."""
        self.steps.append(s)
        return self._allreduce()[1] if n_small else None

    def finish(self, level: np.ndarray) -> None:
        """Nothing: the leaves of the workers' rows are not needed."""


class _Cuts:
    """Thresholds from the cut points shared by the shards (bins ``<= b`` go left:
    ``x < cuts[f][b]``); shards have no missing values."""

    any_missing = False

    def __init__(self, cuts: Sequence[np.ndarray]) -> None:
        if not isinstance(cuts, (list, tuple)) or not cuts:
            raise TypeError(f"cuts must be a non-empty list of arrays, got {type(cuts).__name__}.")
        self.cuts = [np.asarray(c, dtype=np.float64) for c in cuts]

    def threshold(self, f: int, c_lo: int, c_other: int) -> float:
        """The threshold sending bins ``<= c_lo`` left: the cut point above them."""
        return float(self.cuts[f][c_lo])

    def missing_threshold(self, f: int, c: int, present_left: bool) -> float:
        """Present against missing values (binned codes): every present value on one side."""
        return np.inf if present_left else -np.inf


def build_histogram_tree(shards: Sequence, cuts: Sequence[np.ndarray], *, max_depth: int = 3,
                         reg_lambda: float = 1.0, tau: float = 0.0,
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
    max_depth, reg_lambda, tau, min_child_weight, learning_rate
        As in ``ensemble_ref.XGBRegressor``: ``tau`` is the book's penalty per leaf
        :math:`\tau` of ``eq-xgb-objective`` (xgboost's ``gamma`` is :math:`2\tau`),
        ``learning_rate`` its :math:`\nu`.
    map_shards : callable, default=:func:`local_map`
        ``map_shards(function, shards, *args)`` returns ``[function(shard, *args), ...]``.

    Returns
    -------
    HistogramTree
        The tree of ``ensemble_ref.XGBRegressor(tree_method="hist")`` on these bins, grown
        by its grower: a node splits on the best candidate of its summed histograms when
        the bracket of ``eq-xgb-gain`` exceeds ``1e-6``, both children have Hessian sums
        ``>= min_child_weight`` and its ``Gain`` is not negative; leaf weights are
        :func:`~ensemble_ref.math.second_order.leaf_weight` (0 when ``H < min_child_weight``).
        ``allreduce_numbers`` holds the numbers each worker sent, level by level.
    """
    p = TreeParams(max_depth=check_int(max_depth, "max_depth", low=1),
                   reg_lambda=check_float(reg_lambda, "reg_lambda", low=0.0),
                   tau=check_float(tau, "tau", low=0.0),
                   min_child_weight=check_float(min_child_weight, "min_child_weight", low=0.0),
                   pre_prune=True)
    nu = check_float(learning_rate, "learning_rate", low=0.0, low_open=True)
    coding = _Cuts(cuts)
    source = _Shards(shards, local_map if map_shards is None else map_shards,
                     1 + max(c.size for c in coding.cuts), len(coding.cuts))
    tree = _finish_tree(grow_levels(source, coding, np.arange(len(coding.cuts)), p), p)
    return HistogramTree(
        children_left=tree.children_left, children_right=tree.children_right,
        feature=tree.feature, bin=np.where(tree.is_leaf, -1, tree.code).astype(np.intp),
        threshold=tree.threshold, G=tree.G, H=tree.H, weight=tree.weight,
        value=nu * tree.weight, gain=tree.gain, depth=tree.depth,
        allreduce_numbers=source.numbers)
