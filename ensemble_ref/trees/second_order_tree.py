r"""The tree of the second-order booster, grown level by level on coded features.

At each node the best split maximises the bracket of ``eq-xgb-gain`` over every
feature and every threshold between two codes (:class:`~ensemble_ref.trees.engine.Codes`:
ranks for ``tree_method="exact"``, quantile bins for ``"hist"``), scanning as xgboost
does: for a feature with missing values, first with the missing values on the right
(upwards), then on the left (downwards), plus the split of "missing" from "present";
a later candidate replaces an earlier one only if strictly better, a higher feature
only if strictly better. The bracket is rounded to float32 as the library rounds it,
so that candidates differing only by rounding tie.

A node is split on its best candidate when the bracket exceeds ``1e-6`` and both
children have hessian sums of at least ``min_child_weight``. Then the two tree
methods prune as xgboost's updaters do:

* ``exact`` grows to ``max_depth`` and afterwards removes, from the bottom up, every
  split whose ``Gain`` (equation ``eq-xgb-gain``, with :math:`\gamma`) is negative and
  whose two children are leaves (a split with a small gain survives if a split below
  it is worth keeping);
* ``hist`` pre-prunes: a node is split only when its best candidate has
  ``Gain >= 0`` (xgboost's ``loss_chg >= min_split_loss``).

The formulas come from :mod:`ensemble_ref.math.second_order` (called through the
module, so that the one definition is the one the tree runs).

The booster grows its ``hist`` trees with the same rule from gradient histograms
(:mod:`ensemble_ref.trees.second_order_hist`), faster; on quantile bins this module's
:func:`grow_tree` gives the same trees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..math import second_order as formulas
from .engine import MIN_BRACKET, MISSING, Codes, child_key_type, masked_eval, partition, round32, segment_prefix_sums

__all__ = ["SecondOrderTree", "grow_tree"]

TREE_LEAF = -1
UNDEFINED = -2


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
        return self.children_left == TREE_LEAF

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
            node = np.where(self.children_left[node] == TREE_LEAF, node, child)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The tree's contribution ``value[leaf]`` for each row of ``X``."""
        return self.value[self.apply(X)]


# --- growing one tree --------------------------------------------------------------------------


class _Node:
    __slots__ = ("G", "H", "n", "depth", "feature", "threshold", "default_left", "left",
                 "right", "bracket", "bracket32")

    def __init__(self, G: float, H: float, n: int, depth: int) -> None:
        self.G, self.H, self.n, self.depth = G, H, n, depth
        self.feature, self.threshold, self.default_left = UNDEFINED, -2.0, False
        self.left = self.right = TREE_LEAF
        self.bracket = self.bracket32 = 0.0  # the split's bracket, exact and as compared


@dataclass
class TreeParams:
    """What one tree needs of the booster's parameters (validated once per fit)."""

    max_depth: int
    reg_lambda: float
    gamma: float
    min_child_weight: float
    pre_prune: bool  # hist: split only when Gain >= 0


def grow_tree(data: Codes, g: np.ndarray, h: np.ndarray, rows: np.ndarray,
              features: np.ndarray, p: TreeParams) -> SecondOrderTree:
    """Grow one tree level by level on the samples ``rows`` and the (sorted) ``features``."""
    # S[k] lists the samples sorted by feature features[k] within each node of the level;
    # the nodes of a level occupy the same column ranges ("segments") in every row.
    S = data.order[features]
    if rows.size < g.size:
        in_sample = np.zeros(g.size, dtype=bool)
        in_sample[rows] = True
        S = S[in_sample[S]].reshape(features.size, rows.size)
    codes = data.codes[features]  # codes[k, i]: code of sample i in feature features[k]
    nodes = [_Node(float(g[rows].sum()), float(h[rows].sum()), rows.size, 0)]
    level, bounds = [0], np.array([0, rows.size])  # node ids of the level and their segments
    for _ in range(p.max_depth):
        scan = _LevelScan(data, codes, S, g, h, features, [nodes[i] for i in level], bounds, p)
        key = np.full(g.size, np.iinfo(child_key_type(2 * len(level))).max,
                      dtype=child_key_type(2 * len(level)))
        new_level, sizes = [], []
        for s, node_id in enumerate(level):
            split = scan.best_split(s)
            if split is None:
                continue
            seg_rows = S[0, bounds[s]:bounds[s + 1]]
            go_left = _split_node(nodes, node_id, split, codes[split[0], seg_rows], features, p)
            key[seg_rows] = len(new_level) + np.where(go_left, 0, 1)  # index of the child
            new_level += [nodes[node_id].left, nodes[node_id].right]
            sizes += [int(go_left.sum()), seg_rows.size - int(go_left.sum())]
        if not new_level:
            break
        S = partition(S, key, int(np.sum(sizes)))  # each child's samples stay sorted
        level, bounds = new_level, np.concatenate([[0], np.cumsum(sizes)])
    return _finish_tree(nodes, p)


def _split_node(nodes: list, node_id: int, split: tuple, c: np.ndarray, features: np.ndarray,
                p: TreeParams) -> np.ndarray:
    """Record a split, create the two children; which samples (codes ``c``) go left."""
    node = nodes[node_id]
    f_k, c_lo, default_left, threshold, bracket32, (GL, HL, GR, HR) = split
    go_left = np.where(c == MISSING, default_left, c <= c_lo)
    n_left = int(go_left.sum())
    node.feature, node.threshold = int(features[f_k]), threshold
    node.default_left = default_left
    node.bracket = float(formulas._bracket(GL, HL, GR, HR, p.reg_lambda))
    node.bracket32 = bracket32
    node.left, node.right = len(nodes), len(nodes) + 1
    nodes.append(_Node(GL, HL, n_left, node.depth + 1))
    nodes.append(_Node(GR, HR, c.size - n_left, node.depth + 1))
    return go_left


class _LevelScan:
    """Every candidate split of every node of one level, with xgboost's scan order."""

    def __init__(self, data: Codes, codes: np.ndarray, S: np.ndarray, g: np.ndarray,
                 h: np.ndarray, features: np.ndarray, level_nodes: list, bounds: np.ndarray,
                 p: TreeParams) -> None:
        self.data, self.features, self.bounds, self.p = data, features, bounds, p
        self.nodes = level_nodes
        self.C = codes.ravel()[S + (np.arange(S.shape[0]) * codes.shape[1])[:, None]]  # sorted
        self.present = self.C != MISSING if data.any_missing else None  # None: all present
        self.forward = data.need_forward[features]
        self._prefix_sums(S, g, h)
        self._brackets()

    def _prefix_sums(self, S: np.ndarray, g: np.ndarray, h: np.ndarray) -> None:
        """PG, PH: sums of g, h over the present values up to each position, per node."""
        # missing values do not enter the scans over present values; unit hessians (squared
        # error) are summed as integers
        self.PG, self.PH = (segment_prefix_sums(v, S, self.bounds, self.present) for v in (g, h))
        self.last = self.bounds[1:] - 1
        self.NG, self.NH = self.PG[:, self.last], self.PH[:, self.last]  # sums over present values

    def _candidates(self, GL, HL, GR, HR, parent, ok):
        """Rounded brackets of the candidates where ``ok`` and both children are heavy enough."""
        lam, mcw = self.p.reg_lambda, self.p.min_child_weight
        ok = ok & (HL >= mcw) & (HR >= mcw)  # with lam > 0, H >= mcw >= 0 gives H + lam > 0:
        ok = ok if lam > 0 and mcw >= 0 else ok & (HL + lam > 0) & (HR + lam > 0)
        return np.where(ok, round32(formulas._bracket(GL, HL, GR, HR, lam, parent)), -np.inf)

    def _brackets(self) -> None:
        lam, sizes = self.p.reg_lambda, np.diff(self.bounds)
        self.G = np.array([nd.G for nd in self.nodes])
        self.H = np.array([nd.H for nd in self.nodes])
        Gn, Hn = np.repeat(self.G, sizes)[:-1], np.repeat(self.H, sizes)[:-1]
        self.parent32 = round32(formulas._score(self.G, self.H, lam))
        Pn = np.repeat(self.parent32, sizes)[:-1]
        # A threshold may follow position r when r + 1 is in the same node and holds a
        # larger present value.
        cand = self.C[:, 1:] != self.C[:, :-1]
        if self.present is not None:
            cand &= self.present[:, 1:]
        cand[:, self.last[:-1]] = False
        PG, PH = self.PG[:, :-1], self.PH[:, :-1]
        NG, NH = np.repeat(self.NG, sizes, axis=1)[:, :-1], np.repeat(self.NH, sizes, axis=1)[:, :-1]

        def left(ok, PG, PH, NG, NH, Gn, Hn, Pn):  # missing left: right = present above r
            GR, HR = NG - PG, NH - PH
            return self._candidates(Gn - GR, Hn - HR, GR, HR, Pn, ok)

        def right(ok, PG, PH, Gn, Hn, Pn):  # missing values on the right (scan upwards)
            return self._candidates(PG, PH, Gn - PG, Hn - PH, Pn, ok)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.gain_left = masked_eval(cand, left, PG, PH, NG, NH, Gn, Hn, Pn)
            self.gain_right = (masked_eval(cand & self.forward[:, None], right, PG, PH, Gn, Hn, Pn)
                               if self.forward.any() else None)
            self.n_missing = None
            if self.data.any_missing:  # splits of "present" from "missing"
                self.n_missing = np.add.reduceat((~self.present).astype(np.int32),
                                                 self.bounds[:-1], axis=1)
                ok = (self.n_missing > 0) & (self.n_missing < sizes)
                self.gain_missing = self._candidates(self.NG, self.NH, self.G - self.NG,
                                                     self.H - self.NH, self.parent32, ok)

    def _scan_order(self, s: int) -> tuple[np.ndarray, list]:
        """Candidates of node ``s`` per feature in the library's scan order, and their kinds."""
        a, b = self.bounds[s], self.bounds[s + 1]
        L = b - 1 - a  # candidate positions a, ..., b - 2
        parts, kinds = [], []
        if self.gain_right is not None:  # missing right, upwards
            parts.append(self.gain_right[:, a:b - 1])
            kinds.append(("right", L))
            if self.n_missing is not None:
                parts.append(np.where(self.forward, self.gain_missing[:, s], -np.inf)[:, None])
                kinds.append(("right-missing", 1))
        parts.append(self.gain_left[:, a:b - 1][:, ::-1])  # missing left, downwards
        kinds.append(("left", L))
        if self.n_missing is not None:
            parts.append(self.gain_missing[:, s][:, None])
            kinds.append(("left-missing", 1))
        return np.concatenate(parts, axis=1), kinds

    def best_split(self, s: int) -> tuple | None:
        """The best split of node ``s``: (feature index, c_lo, default_left, threshold,
        rounded bracket, (G_L, H_L, G_R, H_R)); None when no candidate qualifies."""
        seq, kinds = self._scan_order(s)
        if seq.shape[1] == 0:
            return None
        k_best = np.argmax(seq, axis=1)  # first best candidate of each feature
        best = seq[np.arange(seq.shape[0]), k_best]
        f_k = int(np.argmax(best))  # lowest feature among the best
        bracket = float(best[f_k])
        if not bracket > MIN_BRACKET:
            return None
        if self.p.pre_prune and formulas._gain(bracket, self.p.gamma) < 0:
            return None  # hist: xgboost splits only when loss_chg >= min_split_loss
        k = int(k_best[f_k])
        for kind, length in kinds:
            if k < length:
                break
            k -= length
        return (f_k, *self._decode(s, f_k, kind, k), bracket, self._children(s, f_k, kind, k))

    def _decode(self, s: int, f_k: int, kind: str, k: int) -> tuple[int, bool, float]:
        """Code boundary ``c_lo``, direction of missing values and threshold of a candidate."""
        a, b = self.bounds[s], self.bounds[s + 1]
        f, C = int(self.features[f_k]), self.C
        if kind in ("right", "left"):
            r = a + (k if kind == "right" else b - 2 - a - k)  # split between r and r + 1
            c_lo = int(C[f_k, r])
            return c_lo, kind == "left", self.data.threshold(f, c_lo, int(C[f_k, r + 1]))
        n_present = b - a - int(self.n_missing[f_k, s])
        if kind == "right-missing":  # present left, missing right
            threshold = self.data.missing_threshold(f, int(C[f_k, a + n_present - 1]), True)
            return np.iinfo(np.int32).max - 1, False, threshold
        return -1, True, self.data.missing_threshold(f, int(C[f_k, a]), False)

    def _children(self, s: int, f_k: int, kind: str, k: int) -> tuple:
        """(G_L, H_L, G_R, H_R) of a candidate."""
        a, b = self.bounds[s], self.bounds[s + 1]
        G, H = float(self.G[s]), float(self.H[s])
        NG, NH = float(self.NG[f_k, s]), float(self.NH[f_k, s])
        if kind in ("right", "left"):
            r = a + (k if kind == "right" else b - 2 - a - k)
            GLr, HLr = float(self.PG[f_k, r]), float(self.PH[f_k, r])  # present values up to r
            GL, HL = (GLr, HLr) if kind == "right" else (G - (NG - GLr), H - (NH - HLr))
        else:
            GL, HL = (NG, NH) if kind == "right-missing" else (G - NG, H - NH)
        return GL, HL, G - GL, H - HL


def _node_weight(G: float, H: float, lam: float, mcw: float) -> float:
    """w* of a node; 0 when H < min_child_weight or H + lambda <= 0 (the library's rule)."""
    if H < mcw or H <= 0 or H + lam <= 0:
        return 0.0
    return float(formulas._leaf_weight(G, H, lam))


def _prune(nodes: list, gamma: float) -> None:
    """Undo, bottom-up, every split with negative Gain whose children are both leaves."""
    # Children have larger ids than their parents, so one backward pass prunes bottom-up.
    for node in reversed(nodes):
        if node.left == TREE_LEAF:
            continue
        both_leaves = nodes[node.left].left == TREE_LEAF and nodes[node.right].left == TREE_LEAF
        if both_leaves and formulas._gain(node.bracket32, gamma) < 0:
            node.left = node.right = TREE_LEAF
            node.feature, node.threshold, node.default_left = UNDEFINED, -2.0, False


def _finish_tree(nodes: list, p: TreeParams) -> SecondOrderTree:
    """Prune (exact), renumber the surviving nodes breadth-first and pack them into arrays."""
    if not p.pre_prune:
        _prune(nodes, p.gamma)
    keep, new_id = [0], {0: 0}
    for old in keep:
        for child in (nodes[old].left, nodes[old].right):
            if child != TREE_LEAF:
                new_id[child] = len(keep)
                keep.append(child)
    kept = [nodes[i] for i in keep]
    weight = np.array([_node_weight(nd.G, nd.H, p.reg_lambda, p.min_child_weight)
                       for nd in kept])
    is_split = np.array([nd.left != TREE_LEAF for nd in kept])
    bracket = np.array([nd.bracket for nd in kept])
    return SecondOrderTree(
        children_left=np.array([new_id.get(nd.left, TREE_LEAF) for nd in kept], dtype=np.intp),
        children_right=np.array([new_id.get(nd.right, TREE_LEAF) for nd in kept], dtype=np.intp),
        feature=np.array([nd.feature for nd in kept], dtype=np.intp),
        threshold=np.array([nd.threshold for nd in kept], dtype=np.float64),
        default_left=np.array([nd.default_left for nd in kept], dtype=bool),
        G=np.array([nd.G for nd in kept]), H=np.array([nd.H for nd in kept]),
        weight=weight, value=weight.copy(),
        gain=np.where(is_split, formulas._gain(bracket, p.gamma), 0.0),
        n_node_samples=np.array([nd.n for nd in kept], dtype=np.intp),
        depth=np.array([nd.depth for nd in kept], dtype=np.intp),
    )
