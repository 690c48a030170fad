r"""The rows' side of the histogram grower: the bins, the node of every row, the histograms.

The histogram grower (:func:`ensemble_ref.trees.second_order_hist.grow_levels`) chooses
the splits from histograms; the rows stay where they are, in the booster's process or on the
workers of the data-parallel tree (:mod:`ensemble_ref.ensembles.distributed`). Whoever
holds rows holds a :class:`LevelRows`: at every level it receives the level's splits
(:class:`LevelSplits`), moves its rows to their children and returns the histograms of
its rows in the *smaller* child of every split, the sums :math:`G_{jb}, H_{jb}` of
equation ``eq-scale-histogram`` and the row counts per (node, feature, bin)
(:func:`node_histograms`); the grower gets the larger child's as its parent's minus
the smaller one's. The booster and every worker run this same code on the same
:class:`Bins`, so they add the same numbers in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..math import histograms
from .engine import Scratch

__all__ = ["Bins", "LevelSplits", "LevelRows", "node_histograms"]

_FEW = 2**17  # values: up to this many, one bincount for all the features (few calls)


def _smallest_unsigned(n_values: int) -> type:
    """The smallest unsigned integer type holding ``0, ..., n_values - 1``."""
    for t in (np.uint8, np.uint16, np.uint32):
        if n_values <= np.iinfo(t).max + 1:
            return t
    return np.uint64


class Bins:
    """The bin of every value, one contiguous row per feature, in the smallest unsigned type.

    Parameters
    ----------
    codes : int array of shape (n_features, n_samples)
        Bin codes ``0, ..., W - 1``; with ``missing_code``, that code marks a missing value.
    W : int
        Bins per feature in the histograms: the codes' and, with missing values, one more,
        the last, for them.
    missing_code : int, optional
        The code of a missing value (the engine's ``MISSING``); None: no missing values.
    """

    def __init__(self, codes: np.ndarray, W: int, missing_code: int | None = None) -> None:
        self.W, self.missing = int(W), missing_code is not None
        dtype = _smallest_unsigned(self.W)
        if self.missing:
            codes = np.where(codes == missing_code, self.W - 1, codes)
        self.bins = np.ascontiguousarray(codes, dtype=dtype)
        self.n = self.bins.shape[1]
        self.root_counts: np.ndarray | None = None  # the root's counts with every row and feature
        self.buffers: dict = {}  # the grower's level histograms, reused by every tree
        self.scratch = Scratch()  # the rows' work arrays, reused level after level

    def columns(self, features: np.ndarray) -> np.ndarray:
        """The rows of ``bins`` of ``features`` (a view when they are consecutive)."""
        if features.size and features[-1] - features[0] == features.size - 1:
            return self.bins[features[0]:features[-1] + 1]
        return self.bins[features]


def node_histograms(bins: Bins, rows: np.ndarray, slot: np.ndarray | None, n_slots: int,
                    features: np.ndarray, g: np.ndarray, h: np.ndarray, unit: bool) -> list:
    r"""Counts, :math:`G_{jb}` and :math:`H_{jb}` (``eq-scale-histogram``) of ``rows`` per node.

    Parameters
    ----------
    bins : Bins
    rows : ndarray of int
        The rows (increasing); each bin adds its rows in this order.
    slot : ndarray of int or None
        The node (``0, ..., n_slots - 1``) of each row; None: every row in node 0.
    n_slots : int
    features : ndarray of int
        The features (rows of ``bins.bins``) to build histograms of.
    g, h : ndarray
        Gradients and Hessians of all the rows of ``bins``.
    unit : bool
        Every Hessian of ``rows`` is 1: the Hessian sums are the counts (not built).

    Returns
    -------
    list of three ndarray of shape (n_slots, n_features, W)
        Counts, gradient sums and Hessian sums (the counts themselves when ``unit``), each
        the ``bincount`` of ``histograms._bin_sums``: of every value at once when there are
        few (the cost is the number of calls), one feature at a time when there are many
        (the cost is the memory).
    """
    k, n = features.size, rows.size
    everything = n == bins.n
    root = everything and n_slots == 1 and k == bins.bins.shape[0]  # its counts: every tree's
    count = not (root and bins.root_counts is not None)
    weights = [g, h][:2 - unit] if everything else [x.take(rows) for x in [g, h][:2 - unit]]
    stats = weights + [None] * count  # G, (H), (counts)
    grow = _few_values if n * k <= _FEW else _many_values
    hist = grow(bins, None if everything else rows, slot, n_slots, features, stats)
    C = hist.pop() if count else bins.root_counts.copy()
    if root and count:
        bins.root_counts = C.copy()
    return [C, hist[0], C if unit else hist[1]]


def _few_values(bins: Bins, rows: np.ndarray | None, slot: np.ndarray | None, m: int,
                features: np.ndarray, stats: list) -> list:
    """The histograms from one flat index ``(node, feature, bin)`` of every value, row by row."""
    W, k = bins.W, features.size
    codes = bins.columns(features)
    codes = codes if rows is None else codes.take(rows, axis=1)
    flat = np.add(codes.T, np.arange(k) * W, out=bins.scratch("few", codes.shape[::-1], np.intp))
    if slot is not None and m > 1:
        flat += (slot * (k * W))[:, None]
    flat = flat.ravel()
    return [histograms._bin_sums(flat, None if x is None else x.repeat(k), m * k * W)
            .reshape(m, k, W) for x in stats]


def _many_values(bins: Bins, rows: np.ndarray | None, slot: np.ndarray | None, m: int,
                 features: np.ndarray, stats: list) -> list:
    """The histograms one feature at a time, from a flat index ``(node, bin)`` of its values."""
    W, n = bins.W, bins.n if rows is None else rows.size
    flat = bins.scratch("flat", (n,), np.intp)
    picked = bins.scratch("picked", (n,), bins.bins.dtype)
    base = None if slot is None or m == 1 else slot * W
    out: list = []
    for j, f in enumerate(features.tolist()):
        codes = bins.bins[f] if rows is None else np.take(bins.bins[f], rows, out=picked)
        np.copyto(flat, codes) if base is None else np.add(codes, base, out=flat)
        sums = [histograms._bin_sums(flat, x, m * W).reshape(m, W) for x in stats]
        if j == 0:  # in the sums' own types (counts: integers)
            out = [np.empty((m, features.size, W), dtype=x.dtype) for x in sums]
        for o, x in zip(out, sums):
            o[:, j] = x
    return out


@dataclass
class LevelSplits:
    """The splits of one level, as the rows need them (a few numbers per split).

    Attributes
    ----------
    target : ndarray of int
        For every node of the level (its slot): the index of its split, -1 if it is a leaf.
    column, c_lo : ndarray of int
        Per split: the feature (row of the bins) and the code boundary; codes ``<= c_lo``
        go left.
    default_left : ndarray of bool
        Per split: the direction of the missing values.
    small_left : ndarray of bool
        Per split: the left child is the smaller one (it gets the slot of its split, the
        larger child that slot plus the number of splits).
    """

    target: np.ndarray
    column: np.ndarray
    c_lo: np.ndarray
    default_left: np.ndarray
    small_left: np.ndarray


class LevelRows:
    """The rows of one holder (a process, a worker's shard) and the node of each in the level.

    ``rows`` stay in increasing order, ``slot[i]`` is the slot of the node of ``rows[i]``
    in the level being grown; after :meth:`advance` the smaller children have the slots
    ``0, ..., n_splits - 1``.
    """

    def __init__(self, bins: Bins, g: np.ndarray, h: np.ndarray, rows: np.ndarray,
                 features: np.ndarray) -> None:
        self.bins, self.g, self.h, self.features = bins, g, h, features
        self.rows, self.slot, self.depth = rows, None, 0
        self.unit = bool(np.all(h[rows] == 1.0))  # squared error: the Hessian sums are counts

    def totals(self) -> tuple[float, float, int, bool]:
        """The root's sums ``G``, ``H``, its number of rows, and whether the Hessians are 1."""
        g, h = self.g[self.rows], self.h[self.rows]
        return float(g.sum()), float(h.sum()), int(self.rows.size), self.unit

    def histograms(self, n_slots: int) -> list:
        """The histograms of the nodes with slots ``0, ..., n_slots - 1`` (the root at first)."""
        if self.slot is None:
            return node_histograms(self.bins, self.rows, None, 1, self.features, self.g,
                                   self.h, self.unit)
        small = np.flatnonzero(self.slot < n_slots)
        return node_histograms(self.bins, self.rows.take(small), self.slot.take(small), n_slots,
                               self.features, self.g, self.h, self.unit)

    def advance(self, s: LevelSplits, leaves: np.ndarray | None = None,
                level: np.ndarray | None = None) -> None:
        """Move every row to its child; ``leaves[row] = level[slot]`` for the rows of the
        nodes that do not split (``level``: the node ids of the level's slots)."""
        b, rows, ns = self.bins, self.rows, s.c_lo.size
        if self.slot is None:  # the root: one split, every row
            codes = b.bins[s.column[0]]
            self.slot = _child_slots(s, b)[0].take(codes if rows.size == b.n else codes.take(rows))
            self.depth += 1
            return
        t = self.slot
        if (s.target < 0).any():
            t = s.target.take(t)
            keep = t >= 0
            if leaves is not None:
                leaves[rows[~keep]] = level[self.slot[~keep]]
            rows, t = rows[keep], t[keep]
        elif not np.array_equal(s.target, np.arange(ns)):
            t = s.target.take(t)
        at = (s.column * b.n).take(t)
        at += rows
        key = t * b.W
        key += b.bins.ravel().take(at)  # (split, code) of every row
        self.rows, self.slot = rows, _child_slots(s, b).ravel().take(key)
        self.depth += 1
    def finish(self, leaves: np.ndarray, level: np.ndarray) -> None:
        """``leaves[row] = level[slot]``: the node of every row still in the level."""
        leaves[self.rows] = level[self.slot] if self.slot is not None else level[0]


def _child_slots(s: LevelSplits, b: Bins) -> np.ndarray:
    """``slots[t, c]``: the slot of the child of split ``t`` that a row with code ``c`` goes
    to: ``t`` for the smaller child, ``t`` plus the number of splits for the larger one."""
    codes = np.arange(b.W)
    go_left = codes[None, :] <= s.c_lo[:, None]
    if b.missing:  # the last bin: the missing values, sent in the split's default direction
        go_left[:, -1] = s.default_left
    ns = s.c_lo.size
    return np.arange(ns)[:, None] + ns * (go_left != s.small_left[:, None])
