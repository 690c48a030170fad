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

_BLOCK = 2**14  # values per call of bincount: a few features at a time when nodes are small


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
        Counts (int64), gradient sums and Hessian sums (the counts themselves when ``unit``).
        One ``bincount`` (``histograms._bin_sums``) per statistic and block of features:
        one feature at a time for many rows, several for few.
    """
    W, k, m, n = bins.W, features.size, n_slots, rows.size
    everything, new = n == bins.n, bins.scratch
    root = everything and m == 1 and k == bins.bins.shape[0]  # counts: the same for every tree
    count = not (root and bins.root_counts is not None)
    w = [g, h][:2 - unit] if everything else [x.take(rows) for x in [g, h][:2 - unit]]
    step = max(1, min(k, _BLOCK // max(n, 1)))
    flat, picked = new("flat", (step, n), np.intp), new("picked", (step, n), bins.bins.dtype)
    base = None if slot is None or m == 1 else slot * W  # flat index (feature, node, bin)
    sums: list[list] = [[] for _ in range(len(w) + count)]  # G, (H), (C) of every block
    for a in range(0, k, step):
        nb = min(step, k - a)
        codes, f = bins.columns(features[a:a + nb]), flat[:nb]
        if not everything:
            np.take(codes[0] if nb == 1 else codes, rows, axis=-1,
                    out=picked[0] if nb == 1 else picked[:nb])
            codes = picked[:nb]
        np.copyto(f, codes) if base is None else np.add(codes, base, out=f)
        if nb > 1:
            f += (np.arange(nb) * (m * W))[:, None]
        for out, x in zip(sums, w + [None] * count):
            out.append(histograms._bin_sums(f.ravel(), _tiled(x, nb, new), nb * m * W))
    hist = [np.concatenate(x).reshape(k, m, W).transpose(1, 0, 2).copy() for x in sums]
    C = hist.pop() if count else bins.root_counts.copy()
    if root and count:
        bins.root_counts = C.copy()
    return [C, hist[0], C if unit else hist[1]]


def _tiled(x: np.ndarray | None, nb: int, new: Scratch) -> np.ndarray | None:
    """``x`` repeated ``nb`` times (the weights of a block of ``nb`` features; None: counts)."""
    if nb == 1 or x is None:
        return x
    out = new("tiled", (nb, x.size), x.dtype)
    out[...] = x
    return out.ravel()


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
