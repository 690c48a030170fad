"""Decision trees grown greedily by impurity decrease (CART), as in scikit-learn.

A node ``t`` holding the (weighted) training points ``D_t`` is split on the
feature ``j`` and threshold ``s`` that maximise the impurity decrease

.. math::

    \\Delta(j, s) = \\frac{W_t}{W}\\Big(i(t) - \\frac{W_L}{W_t}\\, i(L)
                   - \\frac{W_R}{W_t}\\, i(R)\\Big),

equation ``eq-tree-impurity-decrease``, where ``L = {x in D_t : x_j <= s}``,
``R = D_t \\ L`` and ``W`` are sums of sample weights. Because ``i(t)`` and
``W_t`` are fixed within a node, the search only needs the *proxy*
``-(W_L i(L) + W_R i(R))``; for the squared error it reduces to
``S_L^2 / W_L + S_R^2 / W_R`` with ``S`` the weighted sum of the targets
(equation ``eq-tree-sse-proxy``).

How the tree is grown
---------------------
Instead of recursing node by node, all nodes of one depth ("level") are split
at once with vectorised numpy:

1. each feature is sorted **once**; for every feature we keep the sample
   indices ordered by (node, feature value), so each node owns one contiguous
   segment of every sorted row;
2. on a level, cumulative sums along the sorted rows give the left-child
   statistics of every candidate threshold of every (feature, node) pair in
   one pass, from which the proxy of every candidate split follows;
3. a segmented maximum picks the best candidate of every node;
4. a stable partition of every sorted row (again cumulative sums) moves the
   samples of each split node into the segments of its two children, keeping
   every row sorted, so nothing is ever sorted again.

Agreement with scikit-learn
---------------------------
The rules are scikit-learn's (``sklearn/tree/_splitter.pyx``): features are
stored in single precision (float32); candidate thresholds are the midpoints
``x_(p-1)/2 + x_(p)/2`` between consecutive distinct sorted values (values
closer than ``1e-7`` count as equal); a point goes left when
``x <= threshold``; ``min_samples_leaf`` counts points, not weight; points of
zero weight are ignored; a node becomes a leaf when it is at ``max_depth``,
has fewer than ``max(min_samples_split, 2 * min_samples_leaf)`` points, is
pure (impurity ``<= 2.2e-16``), or has no admissible split; and the proxy is
evaluated with the same floating-point formula. Within one feature the first
(left-most) best threshold wins, as in scikit-learn.

The one deliberate difference is the order in which features are examined.
scikit-learn visits the features of every node in a random order (even when
``max_features=None``) and keeps the first *strictly* better split; this tree
visits them in index order when all features are used (in a random order only
when ``max_features`` subsamples them). Hence two candidate splits with
*exactly* equal proxies on different features can be resolved differently:

* if they induce the same partition of the node (typical in small nodes, where
  several features separate the same few points), training-set predictions are
  identical but the thresholds differ, so predictions on *new* points can
  differ. For regression on a continuous target this is the only kind of tie,
  and with ``min_samples_leaf >= 10`` nodes are large enough that it does not
  occur: predictions on new points are then identical too;
* if they induce different partitions, even training predictions of a
  depth-limited tree can differ. This happens in classification, where the
  proxy is a function of small integer class counts, so that two features can
  tie exactly even in nodes of a few dozen points (whatever
  ``min_samples_leaf``). scikit-learn fitted with two different
  ``random_state`` values then differs from itself in the same way; whenever
  its answer does not depend on ``random_state``, this tree gives the same.

Regression leaf values are weighted means computed with a different summation
order than scikit-learn's, so they agree to about 1e-15 relative, not bit for
bit; classification values agree exactly for integer sample weights.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ._base import BaseEstimator, ClassifierMixin, RegressorMixin
from ._validation import (
    check_array,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_X_y,
)

__all__ = [
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "Tree",
    "gini_impurity",
    "entropy_impurity",
    "squared_error_impurity",
]

TREE_LEAF = -1  # children_left / children_right of a leaf
TREE_UNDEFINED = -2  # feature / threshold of a leaf
FEATURE_THRESHOLD = np.float32(1e-7)  # feature values closer than this are "equal"
EPSILON = np.finfo(np.float64).eps  # a node with impurity <= EPSILON is pure


# --------------------------------------------------------------------------------------
# Impurities (small pure functions; the chapters call them directly)
# --------------------------------------------------------------------------------------
def gini_impurity(counts: Any, W: Any = None, axis: int = -1) -> np.ndarray:
    r"""Gini impurity of nodes with (weighted) class counts ``counts``.

    Parameters
    ----------
    counts : array of shape (..., K)
        Weighted number of points of each of the ``K`` classes in a node.
    W : array of shape (...), optional
        Total weight of the node; defaults to the sum of ``counts`` over the classes.
    axis : int, default=-1
        Axis of ``counts`` that runs over the classes.

    Returns
    -------
    ndarray of shape (...)
        :math:`i_G(t) = 1 - \sum_k p_k^2` with :math:`p_k = c_k / W`.

    Notes
    -----
    Equation ``eq-tree-gini``. Evaluated as ``1 - (sum_k c_k^2) / W^2`` with the
    sum accumulated class by class, exactly as scikit-learn does, so that both
    rank candidate splits identically.
    """
    c = np.moveaxis(np.asarray(counts, dtype=float), axis, 0)
    W = c.sum(0) if W is None else np.asarray(W, dtype=float)
    sq = np.zeros(c.shape[1:])
    for c_k in c:
        sq = sq + c_k * c_k
    return 1.0 - sq / (W * W)  # eq-tree-gini


def entropy_impurity(counts: Any, W: Any = None, axis: int = -1) -> np.ndarray:
    r"""Entropy impurity (in bits) of nodes with (weighted) class counts ``counts``.

    Parameters
    ----------
    counts : array of shape (..., K)
        Weighted number of points of each class in a node.
    W : array of shape (...), optional
        Total weight of the node; defaults to the sum of ``counts`` over the classes.
    axis : int, default=-1
        Axis of ``counts`` that runs over the classes.

    Returns
    -------
    ndarray of shape (...)
        :math:`i_H(t) = -\sum_{k: p_k > 0} p_k \log_2 p_k`.

    Notes
    -----
    Equation ``eq-tree-entropy``; terms are accumulated class by class, as in
    scikit-learn.
    """
    c = np.moveaxis(np.asarray(counts, dtype=float), axis, 0)
    W = c.sum(0) if W is None else np.asarray(W, dtype=float)
    H = np.zeros(c.shape[1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        for c_k in c:
            p = c_k / W
            H = H - np.where(c_k > 0.0, p * (np.log(p) / np.log(2.0)), 0.0)  # eq-tree-entropy
    return H


def squared_error_impurity(S: Any, Q: Any, W: Any) -> np.ndarray:
    r"""Weighted variance of the targets in a node from its sufficient statistics.

    Parameters
    ----------
    S, Q, W : arrays
        :math:`S = \sum w_i y_i`, :math:`Q = \sum w_i y_i^2` and :math:`W = \sum w_i`
        over the points of the node.

    Returns
    -------
    ndarray
        :math:`i(t) = Q/W - (S/W)^2`, the mean squared error of predicting the
        node mean (equation ``eq-tree-sse``).
    """
    S, Q, W = (np.asarray(a, dtype=float) for a in (S, Q, W))
    return Q / W - (S / W) ** 2  # eq-tree-sse


# --------------------------------------------------------------------------------------
# Criteria: per-sample statistics, node impurity and the split proxy
# --------------------------------------------------------------------------------------
class _SquaredError:
    """Squared-error criterion. Statistics ``Z = w y`` (shape (1, N)) and ``Q = w y^2``."""

    def __init__(self, y: np.ndarray, w: np.ndarray) -> None:
        self.Z = (w * y)[None, :]  # the sums S_L, S_R come from cumulative sums of w*y
        self.Q = w * y * y

    def node_stats(self, idx: np.ndarray, node: np.ndarray, n_nodes: int, w: np.ndarray):
        """Sums ``S`` (1, J), weights ``W`` (J,) and impurities of J nodes (``node`` labels ``idx``)."""
        S = np.bincount(node, weights=self.Z[0, idx], minlength=n_nodes)[None, :]
        Q = np.bincount(node, weights=self.Q[idx], minlength=n_nodes)
        W = np.bincount(node, weights=w[idx], minlength=n_nodes)
        return S, W, squared_error_impurity(S[0], Q, W)

    @staticmethod
    def value(S: np.ndarray, W: np.ndarray) -> np.ndarray:
        return S[0] / W  # leaf prediction: weighted mean of y

    @staticmethod
    def proxy(SL: np.ndarray, WL: np.ndarray, SR: np.ndarray, WR: np.ndarray) -> np.ndarray:
        return SL[0] * SL[0] / WL + SR[0] * SR[0] / WR  # eq-tree-sse-proxy


class _ClassCounts:
    """Gini or entropy criterion. Statistics ``Z = w * onehot(y)`` (shape (K, N)): class counts."""

    def __init__(self, y: np.ndarray, w: np.ndarray, n_classes: int, criterion: str) -> None:
        self.K = n_classes
        self.y = y
        self.Z = np.zeros((n_classes, y.shape[0]))
        self.Z[y, np.arange(y.shape[0])] = w
        self.impurity = gini_impurity if criterion == "gini" else entropy_impurity

    def node_stats(self, idx: np.ndarray, node: np.ndarray, n_nodes: int, w: np.ndarray):
        """Class counts ``C`` (K, J), weights ``W`` (J,) and impurities of J nodes."""
        C = np.bincount(self.y[idx] * n_nodes + node, weights=w[idx],
                        minlength=n_nodes * self.K).reshape(self.K, n_nodes)
        W = np.bincount(node, weights=w[idx], minlength=n_nodes)
        return C, W, self.impurity(C, W, axis=0)

    @staticmethod
    def value(C: np.ndarray, W: np.ndarray) -> np.ndarray:
        return (C / W).T  # leaf prediction: class proportions, shape (J, K)

    def proxy(self, CL: np.ndarray, WL: np.ndarray, CR: np.ndarray, WR: np.ndarray) -> np.ndarray:
        # -(W_R i(R) + W_L i(L)), evaluated in scikit-learn's order
        return -WR * self.impurity(CR, WR, axis=0) - WL * self.impurity(CL, WL, axis=0)


# --------------------------------------------------------------------------------------
# The fitted tree
# --------------------------------------------------------------------------------------
class Tree:
    """Array representation of a fitted binary tree (scikit-learn's ``tree_`` layout).

    Nodes are numbered in depth-first pre-order (a node, then its left
    subtree, then its right subtree), node ``0`` being the root, as in
    scikit-learn.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    children_left, children_right : ndarray of int, shape (node_count,)
        Ids of the children; ``-1`` for a leaf.
    feature : ndarray of int, shape (node_count,)
        Feature tested at the node; ``-2`` for a leaf.
    threshold : ndarray of float64, shape (node_count,)
        A point goes left when ``x[feature] <= threshold`` (``x`` rounded to
        float32); ``-2.0`` for a leaf.
    value : ndarray of float64
        Prediction stored at each node (leaves and internal nodes). For a
        regressor shape ``(node_count,)``: the weighted mean of ``y``. For a
        classifier shape ``(node_count, n_classes)``: the weighted class
        proportions. Predictions read ``value`` at the leaves, so a caller may
        overwrite leaf values after fitting (as gradient boosting does).
    impurity : ndarray of float64, shape (node_count,)
        Impurity of the training points in the node.
    n_node_samples : ndarray of int, shape (node_count,)
        Number of training points (of positive weight) in the node.
    weighted_n_node_samples : ndarray of float64, shape (node_count,)
        Their total weight.
    depth : ndarray of int, shape (node_count,)
        Depth of each node (root = 0).
    max_depth : int
        Depth of the deepest leaf.
    n_leaves : int
        Number of leaves.
    n_features : int
        Number of features seen in ``fit``.
    """

    def __init__(self, *, children_left, children_right, feature, threshold, value, impurity,
                 n_node_samples, weighted_n_node_samples, depth, n_features) -> None:
        self.children_left = children_left
        self.children_right = children_right
        self.feature = feature
        self.threshold = threshold
        self.value = value
        self.impurity = impurity
        self.n_node_samples = n_node_samples
        self.weighted_n_node_samples = weighted_n_node_samples
        self.depth = depth
        self.n_features = n_features

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.children_left == TREE_LEAF))

    def apply(self, X32: np.ndarray) -> np.ndarray:
        """Leaf id of every row of ``X32`` (rounded to float32 first; all rows descend together)."""
        X32 = np.asarray(X32, dtype=np.float32)
        node = np.zeros(X32.shape[0], dtype=np.intp)
        rows = np.arange(X32.shape[0])
        for _ in range(self.max_depth):
            nd = node[rows]
            inner = self.children_left[nd] != TREE_LEAF
            rows, nd = rows[inner], nd[inner]
            if rows.size == 0:
                break
            go_left = X32[rows, self.feature[nd]] <= self.threshold[nd]  # x_j <= s goes left
            node[rows] = np.where(go_left, self.children_left[nd], self.children_right[nd])
        return node


def _segment_ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + l)`` for every pair ``(s, l)`` (vectorised)."""
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    return np.repeat(starts - offsets, lengths) + np.arange(total)


def _grow(X: np.ndarray, crit, w: np.ndarray, unit_weights: bool, max_depth: int,
          min_samples_split: int, min_samples_leaf: int, max_features: int,
          rng: np.random.Generator) -> Tree:
    """Grow a tree level by level on float32 features ``X`` (rows of positive weight only)."""
    N, d = X.shape
    XT = np.ascontiguousarray(X.T)  # (d, N): one feature per contiguous row
    XT_flat = XT.ravel()
    msl = min_samples_leaf

    # -- 1. sort every feature once: S[j] lists the samples by increasing x_j ----------
    S = np.argsort(XT, axis=1)  # (ties are never split, so their order is irrelevant)
    n = N  # number of samples still in open (splittable) nodes

    # Nodes are created in breadth-first order; per-node arrays are filled in lists.
    all_idx = np.arange(N)
    T, W, imp = crit.node_stats(all_idx, np.zeros(N, dtype=np.intp), 1, w)
    parent_list, is_left_list, depth_list = [np.array([-1])], [np.array([False])], [np.array([0])]
    n_list, W_list, imp_list, value_list = [np.array([N])], [W], [imp], [crit.value(T, W)]
    split_nodes, split_feature, split_threshold = [], [], []
    n_nodes = 1

    # open nodes of the current level: global id, segment start and size, statistics
    is_open = (N >= min_samples_split) & (imp > EPSILON) & (max_depth > 0)
    ids = np.array([0])[is_open]
    start, size = np.array([0])[is_open], np.array([N])[is_open]
    T, W = T[:, is_open], W[is_open]
    depth = 0
    while ids.size:
        J = ids.size

        # -- 2. choose the (feature, node) pairs to search, node-major --------------
        if max_features >= d:
            pair_node = np.repeat(np.arange(J), d)
            pair_feat = np.tile(np.arange(d), J)
        else:
            # random visiting order per node; visit max_features features, and more
            # if all of those are constant in the node (scikit-learn's rule)
            order = np.argsort(rng.random((J, d)), axis=1)
            lo = XT_flat[order * N + S[order, start[:, None]]]  # smallest value in node
            hi = XT_flat[order * N + S[order, (start + size - 1)[:, None]]]
            nonconstant = hi > lo + FEATURE_THRESHOLD
            first_nc = np.where(nonconstant.any(1), nonconstant.argmax(1), d - 1)
            n_visit = np.maximum(max_features, first_nc + 1)
            visit = np.arange(d)[None, :] < n_visit[:, None]
            pair_node = np.repeat(np.arange(J), n_visit)
            pair_feat = order[visit]
        P = pair_node.size
        plen = size[pair_node]
        pstart = np.cumsum(plen) - plen  # start of each pair in the concatenated layout
        pos = _segment_ranges(pair_feat * n + start[pair_node], plen)  # into S (flat)
        samples = S.ravel()[pos]
        E = samples.size
        x = XT_flat[np.repeat(pair_feat * N, plen) + samples]  # sorted feature values (float32)

        # -- 3. left statistics of every candidate split by cumulative sums -----------
        Zc = np.zeros((crit.Z.shape[0], E + 1))
        for Z_k, Zc_k in zip(crit.Z, Zc):  # one statistic (class count, or w*y) at a time
            np.cumsum(Z_k[samples], out=Zc_k[1:])
        NL = np.arange(E) - np.repeat(pstart, plen)  # points left of the threshold
        NR = np.repeat(plen, plen) - NL
        SL = Zc[:, :-1] - np.repeat(Zc[:, pstart], plen, axis=1)  # left sums: split before e
        if unit_weights:
            WL = NL.astype(float)
        else:
            Wc = np.zeros(E + 1)
            np.cumsum(w[samples], out=Wc[1:])
            WL = Wc[:-1] - np.repeat(Wc[pstart], plen)
        SR = np.repeat(T[:, pair_node], plen, axis=1) - SL  # S_R = S_t - S_L
        WR = np.repeat(W[pair_node], plen) - WL
        valid = (NL >= msl) & (NR >= msl) & (WL > 0) & (WR > 0)
        valid[1:] &= x[1:] > x[:-1] + FEATURE_THRESHOLD  # only between distinct values
        valid[0] = False
        with np.errstate(divide="ignore", invalid="ignore"):
            proxy = np.where(valid, crit.proxy(SL, WL, SR, WR), -np.inf)

        # -- 4. best split of every node: segmented maxima, first one wins ------------
        pair_best = np.maximum.reduceat(proxy, pstart)
        n_pairs = np.bincount(pair_node, minlength=J)
        node_pstart = np.cumsum(n_pairs) - n_pairs  # first pair of each node
        node_best = np.maximum.reduceat(pair_best, node_pstart)
        is_best_pair = pair_best == node_best[pair_node]
        best_pair = np.minimum.reduceat(np.where(is_best_pair, np.arange(P), P), node_pstart)
        hit = proxy == np.repeat(pair_best, plen)
        first_hit = np.minimum.reduceat(np.where(hit, np.arange(E), E), pstart)
        splits = np.flatnonzero(node_best > -np.inf)  # nodes with an admissible split

        # -- 5. record the splits; send samples to the children -----------------------
        bp = best_pair[splits]
        e = first_hit[bp]  # first element of the right child in the concatenated layout
        f = pair_feat[bp]
        threshold = x[e - 1].astype(np.float64) / 2.0 + x[e].astype(np.float64) / 2.0
        NL_best = e - pstart[bp]
        split_nodes.append(ids[splits])
        split_feature.append(f)
        split_threshold.append(threshold)

        # child of every open sample: 2r (left) or 2r + 1 (right) for the r-th split node
        n_split = splits.size
        child = np.full(N, -1, dtype=np.intp)  # -1: the sample's node is a leaf
        left_pos = _segment_ranges(f * n + start[splits], NL_best)
        right_pos = _segment_ranges(f * n + start[splits] + NL_best, size[splits] - NL_best)
        child[S.ravel()[left_pos]] = np.repeat(2 * np.arange(n_split), NL_best)
        child[S.ravel()[right_pos]] = np.repeat(2 * np.arange(n_split) + 1, size[splits] - NL_best)

        # statistics of the new nodes
        in_child = np.flatnonzero(child >= 0)
        cT, cW, cimp = crit.node_stats(in_child, child[in_child], 2 * n_split, w)
        cN = np.concatenate([NL_best[:, None], (size[splits] - NL_best)[:, None]], 1).ravel()
        child_ids = n_nodes + np.arange(2 * n_split)
        n_nodes += 2 * n_split
        parent_list.append(np.repeat(ids[splits], 2))
        is_left_list.append(np.tile([True, False], n_split))
        depth_list.append(np.full(2 * n_split, depth + 1))
        n_list.append(cN)
        W_list.append(cW)
        imp_list.append(cimp)
        value_list.append(crit.value(cT, cW))

        # -- 6. which children stay open, and the stable partition of every row -------
        depth += 1
        opened = (depth < max_depth) & (cN >= min_samples_split) & (cimp > EPSILON)
        n_open = int(opened.sum())
        new_size = cN[opened]
        n_new = int(new_size.sum())
        if n_new:
            # key of a sample = rank of its open child (closed ones last); a *stable*
            # sort of each feature's row by this key moves every sample into its
            # child's segment and keeps each segment sorted by the feature (numpy
            # sorts 16-bit keys by a linear-time radix sort)
            key_type = np.uint16 if n_open < np.iinfo(np.uint16).max else np.uint32
            rank = np.full(2 * n_split + 1, n_open, dtype=key_type)
            rank[:-1][opened] = np.arange(n_open)
            key = rank[child]  # child = -1 (closed) -> rank[-1] = n_open, sorted last
            S_new = np.empty((d, n_new), dtype=S.dtype)
            for j in range(d):
                S_new[j] = S[j][np.argsort(key[S[j]], kind="stable")[:n_new]]
            S, n = S_new, n_new
        ids = child_ids[opened]
        start = np.cumsum(new_size) - new_size
        size = new_size
        T, W = cT[:, opened], cW[opened]

    return _assemble(n_nodes, d, parent_list, is_left_list, depth_list, n_list, W_list,
                     imp_list, value_list, split_nodes, split_feature, split_threshold)


def _assemble(n_nodes, d, parent_list, is_left_list, depth_list, n_list, W_list, imp_list,
              value_list, split_nodes, split_feature, split_threshold) -> Tree:
    """Turn the breadth-first node lists into a :class:`Tree` numbered in pre-order."""
    parent = np.concatenate(parent_list)
    is_left = np.concatenate(is_left_list)
    depth = np.concatenate(depth_list)
    left = np.full(n_nodes, TREE_LEAF, dtype=np.intp)
    right = np.full(n_nodes, TREE_LEAF, dtype=np.intp)
    child_ids = np.arange(1, n_nodes)
    left[parent[1:][is_left[1:]]] = child_ids[is_left[1:]]
    right[parent[1:][~is_left[1:]]] = child_ids[~is_left[1:]]
    feature = np.full(n_nodes, TREE_UNDEFINED, dtype=np.intp)
    threshold = np.full(n_nodes, float(TREE_UNDEFINED))
    if split_nodes:
        feature[np.concatenate(split_nodes)] = np.concatenate(split_feature)
        threshold[np.concatenate(split_nodes)] = np.concatenate(split_threshold)

    # pre-order ids: subtree sizes bottom-up, then offsets top-down, one depth at a time
    # (breadth-first ids are sorted by depth, so each depth is a contiguous range)
    inner = left != TREE_LEAF
    bounds = np.searchsorted(depth, np.arange(depth.max() + 2))
    levels = [np.arange(bounds[k], bounds[k + 1]) for k in range(depth.max() + 1)]
    levels = [at[inner[at]] for at in levels]
    size = np.ones(n_nodes, dtype=np.intp)
    for at in reversed(levels):
        size[at] += size[left[at]] + size[right[at]]
    pre = np.zeros(n_nodes, dtype=np.intp)
    for at in levels:
        pre[left[at]] = pre[at] + 1
        pre[right[at]] = pre[at] + 1 + size[left[at]]

    def reorder(a):
        out = np.empty_like(a)
        out[pre] = a
        return out

    new_left = reorder(np.where(inner, pre[left], TREE_LEAF))
    new_right = reorder(np.where(inner, pre[right], TREE_LEAF))
    return Tree(children_left=new_left, children_right=new_right, feature=reorder(feature),
                threshold=reorder(threshold), value=reorder(np.concatenate(value_list)),
                impurity=reorder(np.concatenate(imp_list)),
                n_node_samples=reorder(np.concatenate(n_list).astype(np.intp)),
                weighted_n_node_samples=reorder(np.concatenate(W_list)),
                depth=reorder(depth), n_features=d)


# --------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------
def _to_float32(X: np.ndarray, name: str = "X") -> np.ndarray:
    if np.abs(X).max() > np.finfo(np.float32).max:
        raise ValueError(f"{name} contains values too large for float32 (|x| > 3.4e38).")
    return X.astype(np.float32)


def _resolve_max_features(max_features: Any, d: int) -> int:
    """Number of features searched per node, from None, int, float fraction, "sqrt", "log2"."""
    if max_features is None:
        return d
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(d)))
        if max_features == "log2":
            return max(1, int(np.log2(d)))
    elif isinstance(max_features, (numbers.Integral, np.integer)) and not isinstance(max_features, bool):
        return check_int(max_features, "max_features", low=1, high=d)
    elif isinstance(max_features, (numbers.Real, np.floating)) and not isinstance(max_features, bool):
        if 0.0 < max_features <= 1.0:
            return max(1, int(max_features * d))
        raise ValueError(f"max_features as a float must be in (0, 1], got {max_features}.")
    raise ValueError(
        "max_features must be None, an int in [1, n_features], a float in (0, 1], "
        f"'sqrt' or 'log2'; got {max_features!r}."
    )


def _resolve_min_samples(value: Any, name: str, N: int, low_int: int) -> int:
    """``min_samples_split`` / ``min_samples_leaf`` as a count (an int, or a fraction of N)."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        return check_int(value, name, low=low_int)
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
        if 0.0 < value <= 1.0:
            return max(low_int, int(np.ceil(value * N)))
        raise ValueError(f"{name} as a float must be in (0, 1], got {value}.")
    raise TypeError(f"{name} must be an int >= {low_int} or a float in (0, 1], got {value!r}.")


class _BaseDecisionTree(BaseEstimator):
    """Parameter handling, growing and leaf look-up shared by both trees."""

    def _grow_tree(self, X: np.ndarray, crit, w: np.ndarray) -> None:
        N, d = X.shape
        if self.max_depth is None:
            max_depth = np.iinfo(np.int32).max
        else:
            max_depth = check_int(self.max_depth, "max_depth", low=1)
        min_samples_leaf = _resolve_min_samples(self.min_samples_leaf, "min_samples_leaf", N, 1)
        min_samples_split = _resolve_min_samples(self.min_samples_split, "min_samples_split", N, 2)
        min_samples_split = max(min_samples_split, 2 * min_samples_leaf)
        max_features = _resolve_max_features(self.max_features, d)
        rng = check_random_state(self.random_state)
        X32 = _to_float32(X)
        positive = w > 0  # points of zero weight play no part, as in scikit-learn
        self.n_features_in_ = d
        self.max_features_ = max_features
        self.tree_ = _grow(X32[positive], crit(positive), w[positive],
                           bool(np.all(w[positive] == 1.0)), max_depth, min_samples_split,
                           min_samples_leaf, max_features, rng)

    def _validate_X_predict(self, X: Any) -> np.ndarray:
        self._check_is_fitted("tree_")
        return _to_float32(check_array(X, "X", n_features=self.n_features_in_))

    def apply(self, X: Any) -> np.ndarray:
        """Index (into ``tree_`` arrays) of the leaf each row of ``X`` falls into.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        X32 = self._validate_X_predict(X)
        return self.tree_.apply(X32)

    def get_depth(self) -> int:
        """Depth of the tree (the root alone has depth 0)."""
        self._check_is_fitted("tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the tree."""
        self._check_is_fitted("tree_")
        return self.tree_.n_leaves


class DecisionTreeRegressor(RegressorMixin, _BaseDecisionTree):
    """Regression tree minimising the squared error (CART).

    Parameters
    ----------
    max_depth : int or None, default=None
        Maximum depth; ``None`` grows until leaves are pure or too small to split.
    min_samples_split : int or float, default=2
        Minimum number of points a node needs to be split (a float is a
        fraction of the training set, rounded up).
    min_samples_leaf : int or float, default=1
        Minimum number of points in each child of a split.
    max_features : None, int, float, "sqrt" or "log2", default=None
        Number of features drawn at random (without replacement) and searched
        at every node; ``None`` searches all of them.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the feature draws (only used when ``max_features`` subsamples).

    Attributes
    ----------
    tree_ : Tree
        The fitted tree; ``tree_.value`` has shape ``(node_count,)`` and holds the
        weighted mean of ``y`` in each node.
    n_features_in_ : int
    max_features_ : int

    Notes
    -----
    Each split maximises the decrease of the weighted squared error,
    equivalently ``S_L^2/W_L + S_R^2/W_R`` (equations
    ``eq-tree-impurity-decrease`` and ``eq-tree-sse-proxy``); a leaf predicts
    the weighted mean ``S_t / W_t`` of its targets. See the module docstring
    for how the tree is grown and how it matches scikit-learn's
    ``DecisionTreeRegressor``: identical training predictions, and identical
    predictions on new points whenever ``min_samples_leaf >= 10``.

    Like scikit-learn's, the impurity is evaluated as ``Q/W - (S/W)^2``
    (:func:`squared_error_impurity`), which loses precision when the targets
    have a large common offset (``|mean(y)|`` many orders of magnitude above
    their spread); subtract the mean of ``y`` first in that case.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> y = np.array([0., 0., 0., 0., 1., 1., 1., 1.])
    >>> float(DecisionTreeRegressor(max_depth=1).fit(X, y).tree_.threshold[0])
    3.5
    """

    def __init__(self, max_depth: int | None = None, min_samples_split: int | float = 2,
                 min_samples_leaf: int | float = 1, max_features: Any = None,
                 random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "DecisionTreeRegressor":
        """Grow the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights with a positive sum; points of weight 0 are ignored.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, y_numeric=True)
        w = check_sample_weight(sample_weight, X.shape[0])
        self._grow_tree(X, lambda keep: _SquaredError(y[keep], w[keep]), w)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Value of the leaf each row falls into (``tree_.value[apply(X)]``)."""
        leaves = self.apply(X)
        return self.tree_.value[leaves]


class DecisionTreeClassifier(ClassifierMixin, _BaseDecisionTree):
    """Classification tree minimising the Gini impurity or the entropy (CART).

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity ``i(t)``; ``"log_loss"`` is a synonym of ``"entropy"``.
    max_depth : int or None, default=None
        Maximum depth; ``None`` grows until leaves are pure or too small to split.
    min_samples_split : int or float, default=2
        Minimum number of points a node needs to be split.
    min_samples_leaf : int or float, default=1
        Minimum number of points in each child of a split.
    max_features : None, int, float, "sqrt" or "log2", default=None
        Number of features drawn at random and searched at every node.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the feature draws (only used when ``max_features`` subsamples).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted class labels.
    n_classes_ : int
    tree_ : Tree
        The fitted tree; ``tree_.value`` has shape ``(node_count, n_classes)``
        and holds the weighted class proportions of each node.
    n_features_in_ : int
    max_features_ : int

    Notes
    -----
    Each split maximises the impurity decrease (equation
    ``eq-tree-impurity-decrease``) with the Gini impurity
    ``1 - sum_k p_k^2`` (``eq-tree-gini``) or the entropy
    ``-sum_k p_k log2 p_k`` (``eq-tree-entropy``). ``predict_proba`` returns
    the class proportions of the leaf and ``predict`` the most frequent class
    (ties to the smallest label). See the module docstring for how the tree
    matches scikit-learn's ``DecisionTreeClassifier``.
    """

    def __init__(self, criterion: str = "gini", max_depth: int | None = None,
                 min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
                 max_features: Any = None, random_state: Any = None) -> None:
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "DecisionTreeClassifier":
        """Grow the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any sortable values; at least two distinct classes).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights with a positive sum; points of weight 0 are ignored.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y)
        classes, y_encoded = check_labels(y)
        w = check_sample_weight(sample_weight, X.shape[0])
        return self._fit_encoded(X, y_encoded, w, classes)

    def _fit_encoded(self, X: np.ndarray, y_encoded: np.ndarray, w: np.ndarray,
                     classes: np.ndarray) -> "DecisionTreeClassifier":
        """Fit on validated data with labels already encoded as ``0..len(classes)-1``.

        Ensembles use it so that every member knows all classes, even those
        missing from its bootstrap sample.
        """
        if self.criterion not in ("gini", "entropy", "log_loss"):
            raise ValueError(
                f"criterion must be 'gini', 'entropy' or 'log_loss', got {self.criterion!r}."
            )
        impurity = "gini" if self.criterion == "gini" else "entropy"
        self.classes_ = classes
        self.n_classes_ = classes.size
        self._grow_tree(
            X, lambda keep: _ClassCounts(y_encoded[keep], w[keep], classes.size, impurity), w
        )
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class proportions of the leaf each row falls into, shape (n_samples, n_classes)."""
        leaves = self.apply(X)
        return self.tree_.value[leaves]

    def predict(self, X: Any) -> np.ndarray:
        """Most frequent class of the leaf each row falls into (ties to the smallest label)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
