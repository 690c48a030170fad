"""The criteria of CART trees grown on coded features, sample by sample of a level.

The criteria of :mod:`ensemble_ref.trees.cart_growth` hold their statistics per training
sample, for the one weight vector of a tree. A forest grown in one loop
(:mod:`ensemble_ref.trees.coded_growth`) gives every (tree, sample) element of a level its
own weight, so these criteria compute the statistics from the elements' weights ``w`` and
targets ``t``: the *rows* summed by the histograms of
:mod:`ensemble_ref.trees.coded_candidates` (the criterion's sums, then the weights), the
nodes' sums and impurities, with the formulas of :mod:`ensemble_ref.math.impurity`.
"""

from __future__ import annotations

import numpy as np

from ..math import gradient_boosting as leaf
from ..math import impurity as formulas

__all__ = ["CodedSquaredError", "CodedClassCounts"]


class CodedSquaredError:
    """Squared error. Rows ``w y'`` and ``w``; ``y'`` is ``y`` minus its tree's offset."""

    n_sums = 1

    def __init__(self, y: np.ndarray, offsets: np.ndarray) -> None:
        self.y, self.offsets = y, offsets

    def targets(self, sample: np.ndarray, tree: np.ndarray) -> np.ndarray:
        return self.y[sample] - self.offsets[tree]

    @staticmethod
    def rows(w: np.ndarray, t: np.ndarray) -> np.ndarray:
        return np.stack([w * t, w])  # the sums S and W come from w y' and w

    fold = 1  # the histograms' bins are the codes

    @staticmethod
    def code_table(coded) -> np.ndarray:
        return coded.codes

    @staticmethod
    def histogram(rows, bins, at, n_bins, counts: bool) -> list:
        """Sums (one array per row) of the rows of the samples ``at`` in their ``bins``, then
        their counts."""
        sums = [np.bincount(bins, weights=np.take(r, at), minlength=n_bins) for r in rows[:2]]
        return sums + [np.bincount(bins, minlength=n_bins)] * counts

    @staticmethod
    def node_stats(rows, t, node, n_nodes):
        """Sums ``S`` (1, J), weights ``W`` and impurities of the nodes ``node`` labels."""
        S = np.bincount(node, weights=rows[0], minlength=n_nodes)
        Q = np.bincount(node, weights=rows[0] * t, minlength=n_nodes)  # w y'^2
        W = np.bincount(node, weights=rows[1], minlength=n_nodes)
        return S[None, :], W, formulas.squared_error_impurity(S, Q, W)

    @staticmethod
    def children_stats(left, T, W, rows, t, child, n_children):
        """Sums, weights and impurities of the children (left, right, left, ...) of split
        nodes with sums ``T``, weights ``W`` and left sums ``left`` (S_L, W_L)."""
        cS, cW = _left_right(left[0], T[0]), _left_right(left[1], W)
        Q = np.bincount(child, weights=rows[0] * t, minlength=n_children + 2)[:n_children]
        return cS[None, :], cW, formulas.squared_error_impurity(cS, Q, cW)

    @staticmethod
    def value(S: np.ndarray, W: np.ndarray) -> np.ndarray:
        return leaf._leaf_mean(S[0], W)

    @staticmethod
    def proxy(SL, WL, SR, WR) -> np.ndarray:
        return formulas._sse_proxy(SL[0], WL, SR[0], WR)


class CodedClassCounts:
    """Gini or entropy. Rows: the weight of each class (``w`` where ``y = k``), then ``w``."""

    def __init__(self, y: np.ndarray, n_classes: int, criterion: str) -> None:
        self.y, self.n_sums, self.fold = y, n_classes, n_classes
        self.impurity = formulas.gini_impurity if criterion == "gini" else formulas.entropy_impurity

    def targets(self, sample: np.ndarray, tree: np.ndarray) -> np.ndarray:
        return self.y[sample]

    def rows(self, w: np.ndarray, t: np.ndarray) -> np.ndarray:
        R = np.zeros((self.n_sums + 1, w.size))
        R[t, np.arange(w.size)] = w
        R[-1] = w
        return R

    def code_table(self, coded) -> np.ndarray:
        """``code * K + y``: a histogram of these counts every class of every code at once."""
        if getattr(self, "_table", None) is None:
            self._table = coded.codes.astype(np.int64) * self.n_sums + self.y
        return self._table

    def histogram(self, rows, bins, at, n_bins, counts: bool) -> list:
        """Class weights, weights (then counts) of the bins, one array each; ``bins``:
        bin * K + class."""
        K = self.n_sums
        H = np.bincount(bins, weights=np.take(rows[K], at), minlength=n_bins * K).reshape(n_bins, K)
        sums = [H[:, k] for k in range(K)] + [H.sum(axis=1)]
        if counts:
            sums.append(np.bincount(bins, minlength=n_bins * K).reshape(n_bins, K).sum(axis=1))
        return sums

    def node_stats(self, rows, t, node, n_nodes):
        """Class counts ``C`` (K, J), weights ``W`` and impurities of the nodes ``node`` labels."""
        C = np.bincount(t * n_nodes + node, weights=rows[self.n_sums],
                        minlength=n_nodes * self.n_sums).reshape(self.n_sums, n_nodes)
        W = np.bincount(node, weights=rows[self.n_sums], minlength=n_nodes)
        return C, W, self.impurity(C, W, axis=0)

    def children_stats(self, left, T, W, rows, t, child, n_children):
        """Class counts, weights and impurities of the children (left, right, left, ...) of
        split nodes with counts ``T``, weights ``W`` and left sums ``left`` (C_L, W_L)."""
        K = self.n_sums
        C = np.stack([_left_right(left[k], T[k]) for k in range(K)])
        cW = _left_right(left[K], W)
        return C, cW, self.impurity(C, cW, axis=0)

    @staticmethod
    def value(C: np.ndarray, W: np.ndarray) -> np.ndarray:
        return leaf._leaf_mean(C, W).T

    def proxy(self, CL, WL, CR, WR) -> np.ndarray:
        return formulas._weighted_children(self.impurity, CL, WL, CR, WR)


def _left_right(left: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Left and right sums of split nodes, interleaved: left, right, left, ..."""
    out = np.empty(2 * left.size)
    out[0::2] = left
    out[1::2] = total - left
    return out
