r"""A second-order tree you can read whole: the XGBoost tree grown recursively.

This module is the chapter *XGBoost*'s algorithm ``alg-xgb-tree`` (tree method
``exact``) in Python, for reading rather than for speed: the booster
:class:`~ensemble_ref.ensembles.xgboost_style.XGBRegressor` grows the same trees with
:func:`ensemble_ref.trees.second_order_tree.grow_tree`, level by level and vectorised.

* :func:`candidate_splits` lists the splits of a node on one feature, with the
  missing values on either side, in xgboost's order;
* :func:`best_second_order_split` scores those of every feature by the Gain of
  ``eq-xgb-gain`` and keeps the best;
* :func:`grow_second_order_tree` calls it recursively down to ``max_depth``, undoes
  on the way back up every split with a negative Gain and two leaves below it, and
  gives each node the weight :math:`w^* = -G/(H + \lambda)` of ``eq-xgb-leaf-weight``;
* :func:`predict_second_order` sends points down the tree;
  :func:`nodes_breadth_first` lists its nodes in the booster's order.

The formulas are :mod:`ensemble_ref.math.second_order`'s, called through the module.
Conventions (the booster's and xgboost's): a point goes left when ``x_j < s``, a missing
value (NaN) goes to the node's default side; thresholds are midpoints between
consecutive distinct values of the node.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, NamedTuple

import numpy as np

from ..core.growers import check_gradient_data
from ..math import second_order as formulas
from .engine import MIN_BRACKET

__all__ = ["SecondOrderNode", "SecondOrderSplit", "candidate_splits", "best_second_order_split",
           "grow_second_order_tree", "predict_second_order", "nodes_breadth_first"]


@dataclass
class SecondOrderNode:
    """A node: the sums G, H of its points' gradients and Hessians, its weight and size;
    a split (its Gain, with tau, eq-xgb-gain) and two children unless a leaf."""

    G: float
    H: float
    weight: float
    n: int
    gain: float = 0.0
    feature: int = -1
    threshold: float = np.nan
    default_left: bool = False  # where a missing value goes
    left: "SecondOrderNode | None" = None
    right: "SecondOrderNode | None" = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None


class SecondOrderSplit(NamedTuple):
    """A candidate split: its Gain before tau (as compared, in single precision), feature,
    threshold, and whether the missing values go left."""

    gain: np.float32
    feature: int
    threshold: float
    default_left: bool


def _threshold(x_sorted: np.ndarray, i: int) -> float:
    """The threshold sending the ``i`` smallest present values left (``x < threshold``).

    Between two values, their midpoint (the larger value when the two are neighbouring
    floats, which have no midpoint); before or after all of them (a split of the present
    values from the missing ones), xgboost's ``v -+ (|v| + 1e-6)``. These are the
    booster's thresholds, so that new points beyond the node's values go the same way.
    """
    if i == 0:
        return x_sorted[0] - (abs(x_sorted[0]) + MIN_BRACKET)
    if i == x_sorted.size:
        return x_sorted[-1] + (abs(x_sorted[-1]) + MIN_BRACKET)
    lo, hi = x_sorted[i - 1], x_sorted[i]
    mid = lo + (hi - lo) / 2.0
    return mid if mid > lo else hi


def candidate_splits(x: np.ndarray, g: np.ndarray, h: np.ndarray,
                try_right: bool) -> Iterator[tuple[float, float, float, bool]]:
    """Every split of a node on one feature, as (G_L, H_L, threshold, default_left).

    Parameters
    ----------
    x, g, h : ndarray of shape (n,)
        The feature (NaN: missing), gradients and Hessians of the node's points.
    try_right : bool
        Whether to try the missing values on the right child too.

    Yields
    ------
    tuple
        The sums G_L, H_L of the left child, the threshold and whether the missing
        values go left. The present values, sorted, are cut after the first ``i`` of
        them (between two distinct values, or before or after all of them); the missing
        values join the right child (``i`` upwards), then the left child (``i``
        downwards): xgboost's two scans, whose order decides ties. Both children hold
        a point.
    """
    missing = np.isnan(x)
    order = np.argsort(x[~missing], kind="stable")
    x_sorted = x[~missing][order]
    G_first = np.concatenate([[0.0], np.cumsum(g[~missing][order])])  # G of the first i
    H_first = np.concatenate([[0.0], np.cumsum(h[~missing][order])])
    n_present, n_missing = x_sorted.size, int(missing.sum())
    cuts = [i for i in range(n_present + 1)
            if i in (0, n_present) or x_sorted[i - 1] < x_sorted[i]]
    scans = ([(False, cuts)] if try_right else []) + [(True, cuts[::-1])]
    for default_left, scan in scans:
        G_missing, H_missing = (g[missing].sum(), h[missing].sum()) if default_left else (0.0, 0.0)
        for i in scan:
            if 0 < i + default_left * n_missing < n_present + n_missing:
                yield G_first[i] + G_missing, H_first[i] + H_missing, _threshold(x_sorted, i), default_left


def _as_compared(gain: float, G: float, H: float, lam: float) -> np.float32:
    """A Gain before tau (eq-xgb-gain) of a split of the node (G, H), as xgboost compares it.

    The library subtracts the node's own score G^2/(H + lambda) stored in single
    precision, and stores the result in single precision; the booster does the same,
    and so does this tree, so that splits whose Gains differ only by rounding tie (two
    features can cut a small node into the same two groups, whose sums, added in
    different orders, differ in the last bits) and a Gain within rounding of the
    threshold or of tau goes the same way.
    """
    score = -2.0 * formulas.structure_score([G], [H], lam)  # G^2/(H + lambda), eq-xgb-structure-score
    return np.float32(gain + (score - float(np.float32(score))) / 2)  # Gain = bracket / 2


def best_second_order_split(g: np.ndarray, h: np.ndarray, X: np.ndarray, lam: float = 1.0,
                            min_child_weight: float = 1.0,
                            try_right: list[bool] | None = None) -> SecondOrderSplit | None:
    """The split of a node with the largest Gain (eq-xgb-gain), or None.

    Parameters
    ----------
    g, h : ndarray of shape (n,)
        Gradients and Hessians of the node's points.
    X : ndarray of shape (n, d)
        Their features; NaN marks a missing value.
    lam, min_child_weight : float
        The penalty lambda on the leaf weights; the smallest Hessian sum H of a child.
    try_right : list of bool, optional
        Per feature, whether to try the missing values on the right too (xgboost does
        when the feature has missing values and two distinct values in the training
        data). By default, when the node has missing values.

    Returns
    -------
    SecondOrderSplit or None
        The first of the best candidates (the lowest feature, then the order of
        :func:`candidate_splits`), their Gains rounded as xgboost rounds them
        (``_as_compared()``); None when its Gain before tau is at most ``5e-7``
        (xgboost's ``1e-6`` on its bracket, twice the Gain). Tau acts later, by pruning.
    """
    G, H = g.sum(), h.sum()
    best = None
    for j in range(X.shape[1]):
        right_too = np.isnan(X[:, j]).any() if try_right is None else try_right[j]
        for G_L, H_L, threshold, default_left in candidate_splits(X[:, j], g, h, right_too):
            G_R, H_R = G - G_L, H - H_L
            if min(H_L, H_R) >= min_child_weight:
                gain = _as_compared(formulas.split_gain(G_L, H_L, G_R, H_R, lam), G, H, lam)
                if best is None or gain > best.gain:
                    best = SecondOrderSplit(gain, j, threshold, default_left)
    return best if best is not None and best.gain > MIN_BRACKET / 2 else None


def _node_weight(G: float, H: float, lam: float, min_child_weight: float) -> float:
    """w* = -G/(H + lambda) (eq-xgb-leaf-weight); 0 for a node lighter than
    ``min_child_weight`` (xgboost's rule; only the root can be one)."""
    if H < min_child_weight or H <= 0:
        return 0.0
    return float(formulas.leaf_weight(G, H, lam))


def grow_second_order_tree(g, h, X, lam: float = 1.0, tau: float = 0.0, max_depth: int = 6,
                           min_child_weight: float = 1.0) -> SecondOrderNode:
    """Grow one tree of the second-order booster (alg-xgb-tree, tree method exact).

    Parameters
    ----------
    g, h : array-like of shape (n,)
        Gradients and Hessians of the loss at the current scores (eq-xgb-taylor).
    X : array-like of shape (n, d)
        Features; NaN marks a missing value.
    lam, tau : float, default=1.0 and 0.0
        The penalties lambda on the leaf weights and tau per leaf (eq-xgb-objective).
    max_depth : int, default=6
        The depth at which a node stops splitting.
    min_child_weight : float, default=1.0
        The smallest Hessian sum H of a child.

    Returns
    -------
    SecondOrderNode
        The root. A node's weight is w* (eq-xgb-leaf-weight), before the learning rate.

    Notes
    -----
    A node is split on its best candidate (:func:`best_second_order_split`); after its
    children are grown, the split is undone when both are leaves and its Gain (with
    tau) is negative. This is xgboost's pruning from the bottom up: a split with a
    negative Gain survives when a split below it is worth keeping.
    """
    g, h, X = check_gradient_data(g, h, X, lam=lam, tau=tau, max_depth=max_depth,
                                  min_child_weight=min_child_weight)
    # xgboost tries the missing values on the right for a feature with missing values and
    # two distinct present values in the training data (not in the node)
    present = [x[~np.isnan(x)] for x in X.T]
    try_right = [p.size < X.shape[0] and np.unique(p).size > 1 for p in present]

    def grow(rows: np.ndarray, depth: int) -> SecondOrderNode:
        G, H = g[rows].sum(), h[rows].sum()
        leaf = SecondOrderNode(G, H, _node_weight(G, H, lam, min_child_weight), rows.size)
        split = None if depth == max_depth else best_second_order_split(
            g[rows], h[rows], X[rows], lam, min_child_weight, try_right)
        if split is None:
            return leaf
        x = X[rows, split.feature]
        go_left = np.where(np.isnan(x), split.default_left, x < split.threshold)
        left, right = grow(rows[go_left], depth + 1), grow(rows[~go_left], depth + 1)
        if left.is_leaf and right.is_leaf and split.gain < tau:
            return leaf  # pruned: its Gain with tau, split.gain - tau (eq-xgb-gain), is negative
        gain = formulas.split_gain(left.G, left.H, right.G, right.H, lam, tau)  # eq-xgb-gain
        return replace(leaf, gain=float(gain), feature=split.feature, threshold=split.threshold,
                       default_left=split.default_left, left=left, right=right)

    return grow(np.arange(g.size), 0)


def predict_second_order(tree: SecondOrderNode, X) -> np.ndarray:
    """The weight of the leaf each row of ``X`` falls into (NaN: the default side)."""
    def leaf_weight_of(x: np.ndarray) -> float:
        node = tree
        while not node.is_leaf:
            value = x[node.feature]
            go_left = node.default_left if np.isnan(value) else value < node.threshold
            node = node.left if go_left else node.right
        return node.weight

    return np.array([leaf_weight_of(x) for x in np.asarray(X, dtype=float)])


def nodes_breadth_first(tree: SecondOrderNode) -> list[SecondOrderNode]:
    """The nodes level by level, left to right: the order of the booster's node arrays."""
    nodes = [tree]
    for node in nodes:
        if not node.is_leaf:
            nodes += [node.left, node.right]
    return nodes
