r"""Second-order gradient boosting: the XGBoost objective, written out (chapter *XGBoost*).

At round :math:`m` the booster adds a tree :math:`f` to the current scores
:math:`F(x_i)`. Expanding the loss to second order around :math:`F(x_i)`, with
:math:`g_i = \partial_F L(y_i, F(x_i))` and :math:`h_i = \partial_F^2 L(y_i, F(x_i))`
(equation ``eq-xgb-taylor``), and adding the penalty
:math:`\Omega(f) = \gamma T + \tfrac12\lambda\sum_j w_j^2` of a tree with :math:`T`
leaves of weights :math:`w_j`, the objective of a fixed tree structure is a sum of
independent quadratics, one per leaf :math:`j` with :math:`G_j = \sum_{i \in I_j} g_i`,
:math:`H_j = \sum_{i \in I_j} h_i`:

.. math:: \tilde{\mathcal L} = \sum_j \Big[G_j w_j + \tfrac12 (H_j + \lambda) w_j^2\Big] + \gamma T.

* leaf weight (``eq-xgb-leaf-weight``): :math:`w_j^* = -G_j / (H_j + \lambda)`;
* structure score (``eq-xgb-structure-score``):
  :math:`\tilde{\mathcal L}^* = -\tfrac12 \sum_j G_j^2 / (H_j + \lambda) + \gamma T`;
* split gain (``eq-xgb-gain``): :math:`\text{Gain} = \tfrac12\Big[\frac{G_L^2}{H_L + \lambda}
  + \frac{G_R^2}{H_R + \lambda} - \frac{(G_L + G_R)^2}{H_L + H_R + \lambda}\Big] - \gamma`,
  the decrease of the structure score when a leaf is split in two.

:func:`leaf_weight`, :func:`structure_score`, :func:`split_gain` and
:func:`quadratic_objective` are these formulas as pure functions;
:class:`XGBRegressor` (squared error) and :class:`XGBClassifier` (logistic loss)
grow trees with them.

**Tree growth.** Trees grow level by level to ``max_depth``. At each node the
exact method scans, for every feature, the sorted values and evaluates the gain
of every threshold between two different values (``tree_method="exact"``); the
histogram method does the same on at most ``max_bin`` quantile bins per feature
(``tree_method="hist"``). A node is split on its best candidate when that
candidate's bracket exceeds ``1e-6`` and both children have hessian sums of at
least ``min_child_weight``. The penalty :math:`\gamma` acts as in the xgboost
library, whose rule depends on the tree method:

* ``tree_method="exact"`` grows, then prunes: after growth, every split whose
  ``Gain`` (with :math:`\gamma`) is negative and whose two children are leaves is
  removed, repeatedly, from the bottom up, so a split with a small gain survives
  if a split below it is worth keeping (the library's ``prune`` updater);
* ``tree_method="hist"`` pre-prunes: a node is split only when its best
  candidate has ``Gain >= 0`` (the library's ``loss_chg >= min_split_loss``, as
  its ``hist`` and ``approx`` methods do), so a split with a negative gain is
  never made, whatever lies below it.

**Missing values.** ``NaN`` marks a missing feature value. Each split learns a
default direction: the scan is run with the missing values on the right and on
the left, and the better one is kept, so a candidate split can also separate
"missing" from "present".

**Relation to the xgboost library** (measured with xgboost 3.2; see the tests).

* ``gamma``. The library compares the bracket *without* the factor
  :math:`\tfrac12` with its ``gamma`` (its reported ``gain`` is that bracket, and
  a split is pruned when ``gain < gamma``). In this module ``gamma`` is the
  book's :math:`\gamma`, so **xgboost's** ``gamma`` **equals twice the book's**:
  ``XGBRegressor(gamma=c)`` here reproduces ``xgboost.XGBRegressor(gamma=2 * c)``.
* ``base_score``. With ``base_score=None`` xgboost 3.x estimates the intercept
  from the data: the (weighted) mean of ``y`` for squared error, and for the
  logistic loss the (weighted) mean of the 0/1 labels as a probability, i.e. the
  initial score :math:`\operatorname{logit}(\bar y)`. Both are the loss-minimising
  constants, and ``base_score=None`` here does the same. A number passes through
  unchanged (a probability for the classifier), as in the library.
* Arithmetic. The library stores gradients, predictions and gains in float32; this
  module works in float64. When two candidate splits have gains closer than
  float32 resolution (about :math:`10^{-7}` relative) the two can choose
  differently; on continuous data this does not happen in practice, and the tests
  compare predictions to :math:`10^{-5}` on float32-representable data. Ties in
  float64 are broken as the library does: lowest feature index, then the order of
  its scans (missing-right scan upwards, then missing-left scan downwards).
* Thresholds are midpoints between consecutive distinct values, compared as
  ``x < threshold``; a split separating only missing from present values gets
  the library's threshold ``v ± (|v| + 1e-6)`` beyond the node's extreme value ``v``.
* The library's hessian floor for the logistic loss, :math:`h_i \ge 10^{-16}`, is
  kept; a node whose hessian sum is below ``min_child_weight`` gets weight 0 (the
  library's rule, relevant only for the root).
* Row subsampling draws exactly ``round(subsample * n)`` rows without replacement
  (the library flips a coin per row), and ``colsample_bytree`` draws
  ``max(1, int(colsample_bytree * n_features))`` features per tree; neither
  reproduces the library's random numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from ._base import BaseEstimator, ClassifierMixin, RegressorMixin
from ._validation import (
    check_array,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from .losses import log_loss, sigmoid, squared_error

__all__ = [
    "leaf_weight",
    "structure_score",
    "split_gain",
    "quadratic_objective",
    "SecondOrderTree",
    "XGBRegressor",
    "XGBClassifier",
]

# A split is made only when the bracket exceeds this (the library's kRtEps).
_MIN_BRACKET = 1e-6
_TREE_LEAF = -1
_UNDEFINED = -2


# --- the mathematics as small pure functions ---------------------------------------------


def _real(value: Any, name: str) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain real numbers, got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must not contain NaN or infinity.")
    return arr


def _check_lam(lam: Any, H: np.ndarray, name: str = "H") -> float:
    lam = check_float(lam, "lam", low=0.0)
    if (H + lam <= 0).any():
        raise ValueError(f"{name} + lam must be positive, got {name} + lam = {H + lam}.")
    return lam


def _out(a: np.ndarray) -> np.ndarray | float:
    return float(a) if a.ndim == 0 else a


def leaf_weight(G: Any, H: Any, lam: float = 1.0) -> np.ndarray | float:
    r"""The optimal leaf weight :math:`w^* = -G / (H + \lambda)`.

    Parameters
    ----------
    G, H : float or array of float
        Sums of the gradients and hessians of the samples in the leaf.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0` on the leaf weight; :math:`H + \lambda` must be positive.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Equation ``eq-xgb-leaf-weight``: the minimiser of the quadratic
    :math:`G w + \tfrac12 (H + \lambda) w^2` (see :func:`quadratic_objective`), i.e.
    one Newton step from the current scores with a ridge penalty.
    """
    G, H = np.broadcast_arrays(_real(G, "G"), _real(H, "H"))
    lam = _check_lam(lam, H)
    return _out(-G / (H + lam))  # eq-xgb-leaf-weight


def quadratic_objective(w: Any, G: Any, H: Any, lam: float = 1.0) -> np.ndarray | float:
    r"""Second-order model of a leaf's objective, :math:`G w + \tfrac12 (H + \lambda) w^2`.

    Parameters
    ----------
    w : float or array of float
        Leaf weight(s).
    G, H : float or array of float
        Gradient and hessian sums of the leaf.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0`.

    Returns
    -------
    float or ndarray
        The leaf's term of :math:`\tilde{\mathcal L}` (equation ``eq-xgb-taylor``), minimised
        by :func:`leaf_weight` with minimum :math:`-\tfrac12 G^2/(H + \lambda)`.
    """
    w, G, H = np.broadcast_arrays(_real(w, "w"), _real(G, "G"), _real(H, "H"))
    lam = check_float(lam, "lam", low=0.0)
    return _out(G * w + 0.5 * (H + lam) * w**2)


def structure_score(G: Any, H: Any, lam: float = 1.0, gamma: float = 0.0) -> float:
    r"""The objective of a tree structure at its optimal weights.

    Parameters
    ----------
    G, H : array of float, shape (T,)
        Gradient and hessian sums of the :math:`T` leaves.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0`.
    gamma : float, default=0.0
        Penalty :math:`\gamma \ge 0` per leaf.

    Returns
    -------
    float
        :math:`-\tfrac12 \sum_j G_j^2 / (H_j + \lambda) + \gamma T` (equation
        ``eq-xgb-structure-score``); smaller is better.
    """
    G, H = np.broadcast_arrays(np.atleast_1d(_real(G, "G")), np.atleast_1d(_real(H, "H")))
    lam = _check_lam(lam, H)
    gamma = check_float(gamma, "gamma", low=0.0)
    return float(-0.5 * np.sum(G**2 / (H + lam)) + gamma * G.size)  # eq-xgb-structure-score


def split_gain(G_L: Any, H_L: Any, G_R: Any, H_R: Any, lam: float = 1.0,
               gamma: float = 0.0) -> np.ndarray | float:
    r"""The gain of splitting a leaf into a left and a right part.

    Parameters
    ----------
    G_L, H_L, G_R, H_R : float or array of float
        Gradient and hessian sums of the two parts.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0`.
    gamma : float, default=0.0
        Penalty :math:`\gamma \ge 0` per leaf (the book's; the xgboost library's
        ``gamma`` is twice this, see the module notes).

    Returns
    -------
    float or ndarray
        :math:`\tfrac12\big[G_L^2/(H_L + \lambda) + G_R^2/(H_R + \lambda) -
        (G_L + G_R)^2/(H_L + H_R + \lambda)\big] - \gamma` (equation ``eq-xgb-gain``), the
        structure score of the unsplit leaf minus that of the two children.

    Notes
    -----
    With :math:`\lambda = 0` the bracket is never negative (Titu's lemma, the
    Cauchy-Schwarz inequality in Engel form: :math:`a^2/x + b^2/y \ge (a + b)^2/(x + y)`).
    With :math:`\lambda > 0` each child pays its own :math:`\lambda`, and the lemma
    only gives the bracket :math:`\ge (G_L + G_R)^2/(H + 2\lambda) - (G_L + G_R)^2/(H + \lambda)
    = -\lambda G^2 / ((H + \lambda)(H + 2\lambda))`, :math:`G = G_L + G_R`, :math:`H = H_L + H_R`:
    splitting two children with equal gradient means can *increase* the
    regularised objective (e.g. :math:`G_L = G_R = 1`, :math:`H_L = H_R = 1`,
    :math:`\lambda = 1` gives :math:`-1/3`).
    """
    G_L, H_L, G_R, H_R = np.broadcast_arrays(_real(G_L, "G_L"), _real(H_L, "H_L"),
                                             _real(G_R, "G_R"), _real(H_R, "H_R"))
    lam = _check_lam(lam, H_L, "H_L")
    _check_lam(lam, H_R, "H_R")
    gamma = check_float(gamma, "gamma", low=0.0)
    return _out(0.5 * _bracket(G_L, H_L, G_R, H_R, lam) - gamma)  # eq-xgb-gain


def _bracket(G_L, H_L, G_R, H_R, lam):
    """The bracket of eq-xgb-gain (twice the score decrease), unvalidated, for the inner loop."""
    G, H = G_L + G_R, H_L + H_R
    return G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam) - G**2 / (H + lam)


def _bracket32(G_L, H_L, G_R, H_R, parent32, lam):
    """The bracket rounded to float32 as the library rounds it before comparing candidates.

    ``parent32`` is the node's term G^2/(H + lambda), already rounded to float32.
    Candidates that differ only by rounding (e.g. two features inducing the same
    partition) then tie, and the tie rule decides as in the library.
    """
    children = G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam)
    return (children - parent32).astype(np.float32).astype(np.float64)


# --- the tree ------------------------------------------------------------------------------


@dataclass
class SecondOrderTree:
    """A fitted tree of the second-order booster, stored as parallel node arrays.

    Node 0 is the root; node ``i`` is a leaf when ``children_left[i] == -1``.
    A sample goes left at node ``i`` when ``x[feature[i]] < threshold[i]``, or,
    when that value is missing (NaN), when ``default_left[i]``.

    Attributes
    ----------
    children_left, children_right : ndarray of int
        Child node ids (-1 at leaves).
    feature : ndarray of int
        Split feature (-2 at leaves).
    threshold : ndarray of float
        Split threshold (-2.0 at leaves).
    default_left : ndarray of bool
        Direction of missing values.
    G, H : ndarray of float
        Gradient and hessian sums of the training samples in each node.
    weight : ndarray of float
        :math:`w^* = -G/(H + \\lambda)` of each node (0 when ``H < min_child_weight``).
    value : ndarray of float
        ``learning_rate * weight``: what a leaf adds to the score.
    gain : ndarray of float
        The book's ``Gain`` (with :math:`\\gamma` subtracted) of each split; 0 at leaves.
    n_node_samples : ndarray of int
        Number of training samples (of the round's subsample) in each node.
    depth : ndarray of int
        Depth of each node (the root has depth 0).
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    default_left: np.ndarray
    G: np.ndarray
    H: np.ndarray
    weight: np.ndarray
    value: np.ndarray
    gain: np.ndarray
    n_node_samples: np.ndarray
    depth: np.ndarray

    @property
    def node_count(self) -> int:
        """Number of nodes."""
        return int(self.children_left.size)

    @property
    def is_leaf(self) -> np.ndarray:
        """Boolean mask of the leaves."""
        return self.children_left == _TREE_LEAF

    @property
    def n_leaves(self) -> int:
        """Number of leaves :math:`T`."""
        return int(self.is_leaf.sum())

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf id of each row of ``X`` (a validated float array, NaN = missing)."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        for _ in range(int(self.depth.max())):
            f = np.maximum(self.feature[node], 0)
            x = X[rows, f]
            go_left = np.where(np.isnan(x), self.default_left[node], x < self.threshold[node])
            child = np.where(go_left, self.children_left[node], self.children_right[node])
            node = np.where(self.children_left[node] == _TREE_LEAF, node, child)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The tree's contribution ``value[leaf]`` for each row of ``X``."""
        return self.value[self.apply(X)]


# --- features as integer codes -------------------------------------------------------------


_MISSING = np.iinfo(np.int32).max  # code of a missing value, sorted after every real code


class _Codes:
    """Each feature as integer codes whose order is the order of the values.

    ``exact``: code = rank of the value among the feature's distinct values.
    ``hist``: code = index of the quantile bin (at most ``max_bin`` bins); a
    feature with at most ``max_bin`` distinct values keeps one bin per value, so
    ``hist`` then equals ``exact``. Missing values get the code ``_MISSING``.
    Splitting between codes ``c_lo < c_hi`` sends codes ``<= c_lo`` left.
    """

    def __init__(self, X: np.ndarray, method: str, max_bin: int) -> None:
        n, d = X.shape
        self.codes = np.empty((d, n), dtype=np.int32)  # features as rows
        self.values: list[np.ndarray] = []  # distinct values (exact) of each feature
        self.cuts: list[np.ndarray | None] = []  # bin edges (hist) or None
        self.need_forward = np.zeros(d, dtype=bool)
        for j in range(d):
            x = X[:, j]
            missing = np.isnan(x)
            u = np.unique(x[~missing])
            if method == "hist" and u.size > max_bin:
                cuts = np.unique(np.quantile(x[~missing], np.arange(1, max_bin) / max_bin))
                code = np.searchsorted(cuts, x, side="right")  # x < cuts[c]  <=>  code <= c
                self.cuts.append(cuts)
            else:
                code = np.searchsorted(u, x)
                self.cuts.append(None)
            self.values.append(u)
            self.codes[j] = np.where(missing, _MISSING, code)
            # The missing-right scan is only needed when the feature has missing values
            # and is not constant (the library's rule).
            self.need_forward[j] = missing.any() and u.size > 1
        self.any_missing = bool(self.need_forward.any() or np.isnan(X).any())
        self.order = np.argsort(self.codes, axis=1, kind="stable")  # missing last

    def threshold(self, f: int, c_lo: int, c_hi: int) -> float:
        """Threshold sending codes ``<= c_lo`` left and ``>= c_hi`` right."""
        if self.cuts[f] is not None:
            return float(self.cuts[f][c_lo])
        lo, hi = self.values[f][c_lo], self.values[f][c_hi]
        mid = lo + (hi - lo) / 2.0
        return float(hi if mid <= lo else mid)  # lo < threshold <= hi, even for adjacent floats

    def missing_threshold(self, f: int, c: int, present_left: bool) -> float:
        """Threshold of a split of present (all on one side) from missing values.

        ``c`` is the largest (present left) or smallest (present right) code in the node.
        """
        if self.cuts[f] is not None:
            return np.inf if present_left else -np.inf
        v = self.values[f][c]
        gap = abs(v) + _MIN_BRACKET  # the library's v +- (|v| + 1e-6)
        return float(v + gap if present_left else v - gap)


# --- growing one tree ----------------------------------------------------------------------


class _Node:
    __slots__ = ("G", "H", "n", "depth", "feature", "threshold", "default_left", "left",
                 "right", "bracket", "bracket32")

    def __init__(self, G: float, H: float, n: int, depth: int) -> None:
        self.G, self.H, self.n, self.depth = G, H, n, depth
        self.feature, self.threshold, self.default_left = _UNDEFINED, -2.0, False
        self.left = self.right = _TREE_LEAF
        self.bracket = self.bracket32 = 0.0  # the split's bracket, exact and as compared


def _grow_tree(data: _Codes, g: np.ndarray, h: np.ndarray, rows: np.ndarray,
               features: np.ndarray, p: dict) -> SecondOrderTree:
    """Grow one tree level by level on the samples ``rows`` and the (sorted) ``features``."""
    lam, mcw = p["reg_lambda"], p["min_child_weight"]
    # S[k] lists the samples sorted by feature features[k] within each node of the level;
    # the nodes of a level occupy the same column ranges ("segments") in every row.
    S = data.order[features]
    if rows.size < g.size:
        in_sample = np.zeros(g.size, dtype=bool)
        in_sample[rows] = True
        S = S[in_sample[S]].reshape(features.size, rows.size)
    codes = data.codes[features]  # codes[k, i]: code of sample i in feature features[k]
    forward = data.need_forward[features]
    nodes = [_Node(float(g[rows].sum()), float(h[rows].sum()), rows.size, 0)]
    level, bounds = [0], np.array([0, rows.size])  # node ids of the level and their segments
    for depth in range(p["max_depth"]):
        splits = _best_splits(data, codes, S, g, h, forward, features,
                              [nodes[i] for i in level], bounds, lam, mcw)
        # Create the children of the nodes that split, and route their samples.
        # Small integer keys let numpy's stable sort use radix sort.
        key_type = np.int16 if 2 * len(level) < np.iinfo(np.int16).max else np.int32
        key = np.full(g.size, np.iinfo(key_type).max, dtype=key_type)
        new_level, sizes = [], []
        for s, (node_id, split) in enumerate(zip(level, splits)):
            if split is None:
                continue
            if p["tree_method"] == "hist" and 0.5 * split[4] - p["gamma"] < 0:
                continue  # hist pre-prunes: a split with Gain < 0 is never made
            node = nodes[node_id]
            f_k, c_lo, default_left, threshold, bracket32, (GL, HL, GR, HR) = split
            seg_rows = S[0, bounds[s]:bounds[s + 1]]
            c = codes[f_k, seg_rows]
            go_left = np.where(c == _MISSING, default_left, c <= c_lo)
            key[seg_rows] = len(new_level) + np.where(go_left, 0, 1)  # index of the child
            n_left = int(go_left.sum())
            node.feature, node.threshold = int(features[f_k]), threshold
            node.default_left = default_left
            node.bracket, node.bracket32 = float(_bracket(GL, HL, GR, HR, lam)), bracket32
            node.left, node.right = len(nodes), len(nodes) + 1
            nodes.append(_Node(GL, HL, n_left, depth + 1))
            nodes.append(_Node(GR, HR, seg_rows.size - n_left, depth + 1))
            new_level += [node.left, node.right]
            sizes += [n_left, seg_rows.size - n_left]
        if not new_level:
            break
        # Stable sort by child keeps each child's samples sorted by every feature.
        keys = key[S]
        S = np.take_along_axis(S, np.argsort(keys, axis=1, kind="stable"), axis=1)
        S = S[:, :int(np.sum(sizes))]
        level, bounds = new_level, np.concatenate([[0], np.cumsum(sizes)])
    return _finish_tree(nodes, p)


def _best_splits(data: _Codes, codes: np.ndarray, S: np.ndarray, g: np.ndarray,
                 h: np.ndarray, forward: np.ndarray, features: np.ndarray,
                 level_nodes: list, bounds: np.ndarray, lam: float, mcw: float) -> list:
    """The best split of every node of a level (None where no split qualifies)."""
    n_feat, m = S.shape
    C = np.take_along_axis(codes, S, axis=1)  # codes in sorted order
    present = C != _MISSING
    gS, hS = g[S], h[S]
    if data.any_missing:  # missing values do not enter the scans over present values
        gS, hS = np.where(present, gS, 0.0), np.where(present, hS, 0.0)
    PG, PH = np.cumsum(gS, axis=1), np.cumsum(hS, axis=1)
    sizes = np.diff(bounds)
    # Restart the prefix sums at each segment (node).
    before = bounds[:-1] - 1
    base_G = np.where(before >= 0, PG[:, np.maximum(before, 0)], 0.0)
    base_H = np.where(before >= 0, PH[:, np.maximum(before, 0)], 0.0)
    PG -= np.repeat(base_G, sizes, axis=1)
    PH -= np.repeat(base_H, sizes, axis=1)
    last = bounds[1:] - 1
    NG, NH = PG[:, last], PH[:, last]  # sums over the present values of each node
    G = np.array([nd.G for nd in level_nodes])
    H = np.array([nd.H for nd in level_nodes])
    Gn, Hn = np.repeat(G, sizes)[:-1], np.repeat(H, sizes)[:-1]  # node totals per position
    parent32 = (G**2 / (H + lam)).astype(np.float32).astype(np.float64)
    Pn = np.repeat(parent32, sizes)[:-1]
    # A threshold may follow position r when r + 1 is in the same node and holds a
    # larger present value.
    cand = (C[:, 1:] != C[:, :-1]) & present[:, 1:]
    cand[:, last[:-1]] = False
    with np.errstate(divide="ignore", invalid="ignore"):
        # Missing values on the left (scan from the largest value down): right = present above r.
        GR = np.repeat(NG, sizes, axis=1)[:, :-1] - PG[:, :-1]
        HR = np.repeat(NH, sizes, axis=1)[:, :-1] - PH[:, :-1]
        GL, HL = Gn - GR, Hn - HR
        ok = cand & (HL >= mcw) & (HR >= mcw) & (HL + lam > 0) & (HR + lam > 0)
        gain_left = np.where(ok, _bracket32(GL, HL, GR, HR, Pn, lam), -np.inf)  # eq-xgb-gain
        gain_right = None
        if forward.any():  # missing values on the right (scan upwards): left = present up to r
            GL2, HL2 = PG[:, :-1], PH[:, :-1]
            GR2, HR2 = Gn - GL2, Hn - HL2
            ok2 = cand & forward[:, None] & (HL2 >= mcw) & (HR2 >= mcw)
            ok2 &= (HL2 + lam > 0) & (HR2 + lam > 0)
            gain_right = np.where(ok2, _bracket32(GL2, HL2, GR2, HR2, Pn, lam), -np.inf)
        # Splits of "present" from "missing" (only in nodes with missing values).
        n_missing = (np.add.reduceat((~present).astype(np.int32), bounds[:-1], axis=1)
                     if data.any_missing else None)
        if n_missing is not None:
            GM, HM = G - NG, H - NH
            okm = (n_missing > 0) & (n_missing < sizes) & (NH >= mcw) & (HM >= mcw)
            okm &= (NH + lam > 0) & (HM + lam > 0)
            gain_missing = np.where(okm, _bracket32(NG, NH, GM, HM, parent32, lam), -np.inf)

    splits = []
    for s, node in enumerate(level_nodes):
        a, b = bounds[s], bounds[s + 1]
        L = b - 1 - a  # candidate positions a, ..., b - 2
        # The library's scan order per feature: missing-right upwards (if needed), then
        # missing-left downwards; a later candidate replaces an earlier one only if
        # strictly better, and a higher feature only if strictly better.
        parts, kinds = [], []
        if gain_right is not None:
            parts.append(gain_right[:, a:b - 1])
            kinds.append(("right", L))
            if n_missing is not None:
                parts.append(np.where(forward, gain_missing[:, s], -np.inf)[:, None])
                kinds.append(("right-missing", 1))
        parts.append(gain_left[:, a:b - 1][:, ::-1])
        kinds.append(("left", L))
        if n_missing is not None:
            parts.append(gain_missing[:, s][:, None])
            kinds.append(("left-missing", 1))
        seq = np.concatenate(parts, axis=1)
        if seq.shape[1] == 0:
            splits.append(None)
            continue
        k_best = np.argmax(seq, axis=1)  # first best candidate of each feature
        best = seq[np.arange(n_feat), k_best]
        f_k = int(np.argmax(best))  # lowest feature among the best
        bracket = float(best[f_k])
        if not bracket > _MIN_BRACKET:
            splits.append(None)
            continue
        k = int(k_best[f_k])
        for kind, length in kinds:
            if k < length:
                break
            k -= length
        f = int(features[f_k])
        if kind in ("right", "left"):
            r = a + (k if kind == "right" else L - 1 - k)  # split between r and r + 1
            c_lo, c_hi = int(C[f_k, r]), int(C[f_k, r + 1])
            threshold = data.threshold(f, c_lo, c_hi)
            GLr, HLr = float(PG[f_k, r]), float(PH[f_k, r])  # present values up to r
            if kind == "right":
                GL_, HL_, default_left = GLr, HLr, False
            else:  # missing values join the left side
                GL_, HL_ = node.G - (NG[f_k, s] - GLr), node.H - (NH[f_k, s] - HLr)
                default_left = True
        else:
            n_present = b - a - int(n_missing[f_k, s])
            if kind == "right-missing":  # present left, missing right
                c_lo, default_left = np.iinfo(np.int32).max - 1, False
                threshold = data.missing_threshold(f, int(C[f_k, a + n_present - 1]), True)
                GL_, HL_ = float(NG[f_k, s]), float(NH[f_k, s])
            else:  # missing left, present right
                c_lo, default_left = -1, True
                threshold = data.missing_threshold(f, int(C[f_k, a]), False)
                GL_, HL_ = node.G - float(NG[f_k, s]), node.H - float(NH[f_k, s])
        stats = (GL_, HL_, node.G - GL_, node.H - HL_)
        splits.append((f_k, c_lo, default_left, threshold, bracket, stats))
    return splits


def _node_weight(G: float, H: float, lam: float, mcw: float) -> float:
    """w* = -G / (H + lambda); 0 when H < min_child_weight or H + lambda <= 0 (the library's rule)."""
    if H < mcw or H <= 0 or H + lam <= 0:
        return 0.0
    return -G / (H + lam)  # eq-xgb-leaf-weight


def _finish_tree(nodes: list, p: dict) -> SecondOrderTree:
    """Prune splits with negative Gain from the bottom up and pack the nodes into arrays.

    (After ``hist`` growth every split already has ``Gain >= 0``, so nothing is pruned.)
    """
    gamma = p["gamma"]
    # Children have larger ids than their parents, so one backward pass prunes bottom-up.
    for node in reversed(nodes):
        if node.left == _TREE_LEAF:
            continue
        both_leaves = nodes[node.left].left == _TREE_LEAF and nodes[node.right].left == _TREE_LEAF
        if both_leaves and 0.5 * node.bracket32 - gamma < 0:  # Gain < 0: undo the split
            node.left = node.right = _TREE_LEAF
            node.feature, node.threshold, node.default_left = _UNDEFINED, -2.0, False
    # Renumber the surviving nodes breadth-first.
    keep, new_id = [0], {0: 0}
    for old in keep:
        for child in (nodes[old].left, nodes[old].right):
            if child != _TREE_LEAF:
                new_id[child] = len(keep)
                keep.append(child)
    kept = [nodes[i] for i in keep]
    weight = np.array([_node_weight(nd.G, nd.H, p["reg_lambda"], p["min_child_weight"])
                       for nd in kept])
    is_split = np.array([nd.left != _TREE_LEAF for nd in kept])
    return SecondOrderTree(
        children_left=np.array([new_id.get(nd.left, _TREE_LEAF) for nd in kept], dtype=np.intp),
        children_right=np.array([new_id.get(nd.right, _TREE_LEAF) for nd in kept], dtype=np.intp),
        feature=np.array([nd.feature for nd in kept], dtype=np.intp),
        threshold=np.array([nd.threshold for nd in kept], dtype=np.float64),
        default_left=np.array([nd.default_left for nd in kept], dtype=bool),
        G=np.array([nd.G for nd in kept]),
        H=np.array([nd.H for nd in kept]),
        weight=weight,
        value=p["learning_rate"] * weight,
        gain=np.where(is_split, 0.5 * np.array([nd.bracket for nd in kept]) - gamma, 0.0),
        n_node_samples=np.array([nd.n for nd in kept], dtype=np.intp),
        depth=np.array([nd.depth for nd in kept], dtype=np.intp),
    )


# --- the boosters ------------------------------------------------------------------------


class _SecondOrderBooster(BaseEstimator):
    """Shared fitting loop of :class:`XGBRegressor` and :class:`XGBClassifier`."""

    _loss = None  # set by the subclasses

    def __init__(self, n_estimators: int = 100, learning_rate: float = 0.3, max_depth: int = 6,
                 reg_lambda: float = 1.0, gamma: float = 0.0, min_child_weight: float = 1.0,
                 subsample: float = 1.0, colsample_bytree: float = 1.0,
                 base_score: float | None = None, tree_method: str = "exact",
                 max_bin: int = 256, random_state: Any = None) -> None:
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.base_score = base_score
        self.tree_method = tree_method
        self.max_bin = max_bin
        self.random_state = random_state

    def _validate_params(self) -> dict:
        if self.tree_method not in ("exact", "hist"):
            raise ValueError(f"tree_method must be 'exact' or 'hist', got {self.tree_method!r}.")
        return {
            "n_estimators": check_int(self.n_estimators, "n_estimators", low=1),
            "learning_rate": check_float(self.learning_rate, "learning_rate", low=0.0,
                                         low_open=True),
            "max_depth": check_int(self.max_depth, "max_depth", low=1),
            "reg_lambda": check_float(self.reg_lambda, "reg_lambda", low=0.0),
            "gamma": check_float(self.gamma, "gamma", low=0.0),
            "min_child_weight": check_float(self.min_child_weight, "min_child_weight", low=0.0),
            "subsample": check_float(self.subsample, "subsample", low=0.0, high=1.0,
                                     low_open=True),
            "colsample_bytree": check_float(self.colsample_bytree, "colsample_bytree", low=0.0,
                                            high=1.0, low_open=True),
            "max_bin": check_int(self.max_bin, "max_bin", low=2),
            "tree_method": self.tree_method,
        }

    def _fit(self, X: np.ndarray, y: np.ndarray, sample_weight: Any) -> None:
        p = self._validate_params()
        rng = check_random_state(self.random_state)
        n, d = X.shape
        sw = check_sample_weight(sample_weight, n)
        self.n_features_in_ = d
        self.base_score_ = self._base_score(y, sw)
        self.base_margin_ = self._margin_of(self.base_score_)
        data = _Codes(X, self.tree_method, p["max_bin"])
        n_rows = n if p["subsample"] == 1.0 else max(1, int(round(p["subsample"] * n)))
        n_cols = max(1, int(p["colsample_bytree"] * d))
        F = np.full(n, self.base_margin_)  # current scores F_{m-1}(x_i)
        self.trees_, losses = [], []
        for m in range(p["n_estimators"]):
            g, h = self._gradients(y, F)  # eq-xgb-taylor: first and second derivatives
            g, h = sw * g, sw * h
            rows = (np.arange(n) if n_rows == n else np.sort(rng.choice(n, n_rows, replace=False)))
            features = (np.arange(d) if n_cols == d
                        else np.sort(rng.choice(d, n_cols, replace=False)))
            tree = _grow_tree(data, g, h, rows, features, p)
            F = F + tree.predict(X)  # F_m = F_{m-1} + eta f_m
            self.trees_.append(tree)
            losses.append(np.average(self._loss(y, F), weights=sw))
        self.train_loss_ = np.array(losses)

    def _raw_scores(self, X: Any) -> Iterator[np.ndarray]:
        self._check_is_fitted("trees_")
        X = check_array(X, allow_nan=True, n_features=self.n_features_in_)
        F = np.full(X.shape[0], self.base_margin_)
        for tree in self.trees_:
            F = F + tree.predict(X)
            yield F

    def _margin(self, X: Any) -> np.ndarray:
        self._check_is_fitted("trees_")
        X = check_array(X, allow_nan=True, n_features=self.n_features_in_)
        return self.base_margin_ + sum(tree.predict(X) for tree in self.trees_)


_BOOSTER_DOC = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds (trees).
    learning_rate : float, default=0.3
        Shrinkage :math:`\\eta > 0` applied to every leaf weight.
    max_depth : int, default=6
        Maximum depth of each tree.
    reg_lambda : float, default=1.0
        L2 penalty :math:`\\lambda \\ge 0` on the leaf weights.
    gamma : float, default=0.0
        The book's penalty :math:`\\gamma \\ge 0` per leaf: a split is kept only if its
        ``Gain`` is not negative, checked after growth from the bottom up
        (``"exact"``) or before each split is made (``"hist"``). The xgboost
        library's ``gamma`` is **twice** this value.
    min_child_weight : float, default=1.0
        Minimum hessian sum :math:`H` of each child of a split.
    subsample : float in (0, 1], default=1.0
        Fraction of the rows (drawn without replacement) that grows each tree.
    colsample_bytree : float in (0, 1], default=1.0
        Fraction of the features that each tree may split on.
    base_score : float, optional
        Initial prediction (a probability for the classifier). ``None`` estimates
        it from the data as xgboost 3.x does (see the module notes).
    tree_method : {"exact", "hist"}, default="exact"
        Scan every distinct value, or at most ``max_bin`` quantile bins, per feature;
        also the rule of ``gamma``: prune after growth, or refuse the split.
    max_bin : int, default=256
        Number of bins of ``tree_method="hist"``.
    random_state : None, int or numpy.random.Generator
        Seed of the row and feature subsampling.

    Attributes
    ----------
    trees_ : list of SecondOrderTree
        The fitted trees with their node statistics (``G``, ``H``, ``weight``,
        ``gain``, ...).
    base_score_ : float
        The initial prediction used.
    base_margin_ : float
        The initial raw score :math:`F_0`.
    train_loss_ : ndarray of shape (n_estimators,)
        Mean (weighted) training loss after each round, with the losses of
        :mod:`ensemble_ref.losses`.
    n_features_in_ : int
"""


class XGBRegressor(RegressorMixin, _SecondOrderBooster):
    __doc__ = r"""Second-order boosting of regression trees for the squared error.

    The loss is :math:`\tfrac12 (y - F)^2`.

    Gradients :math:`g_i = F(x_i) - y_i` and hessians :math:`h_i = 1` (times the
    sample weight): the leaf weight :math:`-G/(H + \lambda)` is a shrunken mean
    residual. See the module docstring for the algorithm and its relation to
    ``xgboost.XGBRegressor(objective="reg:squarederror")``.
    """ + _BOOSTER_DOC

    _loss = staticmethod(squared_error)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "XGBRegressor":
        """Fit ``n_estimators`` trees to ``(X, y)``; ``X`` may contain NaN (missing values).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real targets (finite).
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies each sample's gradient and hessian.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, y_numeric=True, allow_nan=True)
        self._fit(X, y, sample_weight)
        return self

    def _base_score(self, y: np.ndarray, sw: np.ndarray) -> float:
        if self.base_score is None:
            return float(np.average(y, weights=sw))  # the constant minimising the squared error
        return check_float(self.base_score, "base_score")

    @staticmethod
    def _margin_of(score: float) -> float:
        return score

    @staticmethod
    def _gradients(y: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return F - y, np.ones_like(F)  # g_i, h_i of the squared error

    def predict(self, X: Any) -> np.ndarray:
        """Predicted values :math:`F_0 + \\sum_m \\eta f_m(x)`."""
        return self._margin(X)

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the predictions after each round."""
        for F in self._raw_scores(X):
            yield F.copy()


class XGBClassifier(ClassifierMixin, _SecondOrderBooster):
    __doc__ = r"""Second-order boosting of regression trees for the logistic loss (two classes).

    Scores are log-odds :math:`F`; with :math:`p_i = \sigma(F(x_i))` the gradients
    are :math:`g_i = p_i - y_i` and the hessians :math:`h_i = p_i (1 - p_i)` (floored
    at ``1e-16``), :math:`y_i \in \{0, 1\}` coding ``classes_[1]`` as 1. See the
    module docstring for the algorithm and its relation to
    ``xgboost.XGBClassifier(objective="binary:logistic")``.
    """ + _BOOSTER_DOC + """    classes_ : ndarray of shape (2,)
"""

    _loss = staticmethod(log_loss)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "XGBClassifier":
        """Fit ``n_estimators`` trees to ``(X, y)``; ``y`` must have exactly two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            May contain NaN (missing values).
        y : array-like of shape (n_samples,)
            Labels of exactly two classes (any values).
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies each sample's gradient and hessian.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, allow_nan=True)
        self.classes_, y01 = check_labels(y, n_classes=2)
        self._fit(X, y01.astype(np.float64), sample_weight)
        return self

    def _base_score(self, y: np.ndarray, sw: np.ndarray) -> float:
        if self.base_score is None:
            return float(np.average(y, weights=sw))  # fraction of class 1: the best constant
        return check_float(self.base_score, "base_score", low=0.0, high=1.0, low_open=True,
                           high_open=True)

    @staticmethod
    def _margin_of(score: float) -> float:
        return float(np.log(score) - np.log1p(-score))  # logit of the base probability

    @staticmethod
    def _gradients(y: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = sigmoid(F)
        return p - y, np.maximum(p * (1.0 - p), 1e-16)  # g_i, h_i of the log loss

    def decision_function(self, X: Any) -> np.ndarray:
        """The raw score (log-odds of ``classes_[1]``) of each row."""
        return self._margin(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities of ``classes_[0]`` and ``classes_[1]``, shape (n_samples, 2)."""
        p = sigmoid(self._margin(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where the score is positive, else ``classes_[0]``."""
        F = self._margin(X)  # checks that the model is fitted before classes_ is read
        return self.classes_[(F > 0).astype(np.intp)]

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the class probabilities after each round."""
        for F in self._raw_scores(X):
            p = sigmoid(F)
            yield np.column_stack([1.0 - p, p])
