r"""Shapley values of tree models: the path-dependent TreeSHAP algorithm, and its definition.

The Shapley value of feature :math:`i` for the prediction :math:`f(x)` of a model with
features :math:`\mathcal F = \{1, \dots, d\}` is

.. math::

    \phi_i = \sum_{S \subseteq \mathcal F \setminus \{i\}} \frac{|S|!\,(d - |S| - 1)!}{d!}
             \bigl(f_x(S \cup \{i\}) - f_x(S)\bigr),

(equation ``eq-shapley-value``), where :math:`f_x(S)` is
the prediction when only the features in :math:`S` are known. For a tree, the
*path-dependent* :math:`f_x(S)` follows :math:`x` at a split on a feature of :math:`S`
and, at a split on any other feature, averages both branches weighted by their *cover*
(the training weight that reached each child; equation ``eq-shapley-path``):
:func:`brute_force_shap` computes this
definition by enumerating the :math:`2^d` subsets. The values add up:
:math:`\sum_i \phi_i = f(x) - f_x(\emptyset)`, the expected value being the
cover-weighted mean of the leaves.

:func:`tree_shap` is Algorithm 2 of Lundberg, Erion and Lee (2018), *Consistent
individualized feature attribution for tree ensembles*, written as its pseudo-code:
``RECURSE`` walks the tree once, keeping the *path* ``m`` of the distinct features met
so far; each element holds the feature ``d``, the fraction ``z`` of the cover that
follows the path when the feature is unknown, the fraction ``o`` (1 or 0) when it is
known, and a weight ``w``. ``EXTEND`` adds a feature to the path and updates the
weights of all subset sizes at once (the weight of a subset of size :math:`s` among
:math:`l` features is :math:`s!(l - s)!/(l + 1)!`); ``UNWIND`` removes one (undoing
``EXTEND``), so that the sum of the unwound weights at a leaf is the Shapley weight of
that feature over every subset of the others. The cost is :math:`O(L D^2)` per tree and
point (``L`` leaves, depth ``D``) instead of :math:`O(L 2^d)`.

A tree is given as node arrays (:class:`TreeArrays`); :func:`ensemble_shap` sums the
members of a weighted ensemble plus its base score, and :func:`shap_values` reads the
trees of ``ensemble_ref``'s own estimators. These two run the same sums vectorised, every
leaf of every tree over arrays of rows (:mod:`ensemble_ref.math.shapley_engine`), tested
equal to :func:`tree_shap` to :math:`10^{-12}` of the values' scale; :func:`tree_shap`
stays the readable reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import factorial
from typing import Any

import numpy as np

from ..core.validation import check_array, check_attributes, check_choice, check_int, check_sequence, check_shape
from . import shapley_engine

__all__ = ["TreeArrays", "tree_shap", "expected_value", "brute_force_shap", "ensemble_shap", "shap_values"]


@dataclass
class TreeArrays:
    """One binary tree as node arrays (node 0 the root, ``children_left == -1`` at a leaf).

    ``value`` is what a leaf predicts (shape ``(nodes,)``, or ``(nodes, K)`` for K
    outputs), ``cover`` the training weight reaching each node. A point goes left at
    node ``j`` when ``x[feature[j]] <= threshold[j]`` (``rule="<="``: scikit-learn,
    lightgbm, ``ensemble_ref``'s CART) or ``<`` (``rule="<"``: xgboost), a missing value
    (NaN) when ``default_left[j]``; ``float32=True`` rounds ``x`` to float32 first.
    """

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    cover: np.ndarray
    default_left: np.ndarray | None = None
    rule: str = "<="
    float32: bool = False

    def goes_left(self, j: int, x: np.ndarray) -> bool:
        """Whether ``x`` follows the left child at node ``j``."""
        v = x[self.feature[j]]
        if np.isnan(v):
            return bool(self.default_left is not None and self.default_left[j])
        return bool(v <= self.threshold[j]) if self.rule == "<=" else bool(v < self.threshold[j])


def _tree_arrays(tree: Any) -> TreeArrays:
    check_attributes(tree, "tree", ("children_left", "children_right", "feature", "threshold", "value",
                                    "cover"), "a TreeArrays (node arrays of one tree)")
    check_choice(tree.rule, "rule", ("<=", "<"))
    return tree


def _points(tree: TreeArrays, X: Any, n_features: int) -> np.ndarray:
    X = check_array(X, "X", allow_nan=True, n_features=n_features)
    return X.astype(np.float32).astype(np.float64) if tree.float32 else X


# --- Algorithm 2 -------------------------------------------------------------------------

def _extend(m: list, pz: float, po: float, pi: int) -> list:
    """EXTEND: the path ``m`` with feature ``pi`` added (zero fraction ``pz``, one fraction ``po``)."""
    m = [list(e) for e in m]
    l = len(m)
    m.append([pi, pz, po, 1.0 if l == 0 else 0.0])  # [d, z, o, w]
    for i in range(l - 1, -1, -1):
        m[i + 1][3] += po * m[i][3] * (i + 1) / (l + 1)
        m[i][3] = pz * m[i][3] * (l - i) / (l + 1)
    return m


def _unwind(m: list, i: int) -> list:
    """UNWIND: the path ``m`` with its element ``i`` removed (the inverse of EXTEND)."""
    l = len(m) - 1
    z, o = m[i][1], m[i][2]
    out = [list(e) for e in m[:l]]
    n = m[l][3]
    for j in range(l - 1, -1, -1):
        if o != 0:
            t = out[j][3]
            out[j][3] = n * (l + 1) / ((j + 1) * o)
            n = t - out[j][3] * z * (l - j) / (l + 1)
        else:
            out[j][3] = out[j][3] * (l + 1) / (z * (l - j))
    for j in range(i, l):
        out[j][:3] = m[j + 1][:3]
    return out


def _recurse(tree: TreeArrays, x: np.ndarray, phi: np.ndarray, j: int, m: list,
             pz: float, po: float, pi: int) -> None:
    """RECURSE: node ``j`` reached with the path ``m``, entering through feature ``pi``."""
    m = _extend(m, pz, po, pi)
    if tree.children_left[j] < 0:  # a leaf: credit every feature of the path
        for i in range(1, len(m)):
            w = sum(e[3] for e in _unwind(m, i))
            phi[m[i][0]] += w * (m[i][2] - m[i][1]) * tree.value[j]
        return
    left, right = tree.children_left[j], tree.children_right[j]
    hot, cold = (left, right) if tree.goes_left(j, x) else (right, left)
    iz = io = 1.0
    d = tree.feature[j]
    k = next((k for k in range(1, len(m)) if m[k][0] == d), None)
    if k is not None:  # the feature was met above: undo it, keep its fractions
        iz, io = m[k][1], m[k][2]
        m = _unwind(m, k)
    _recurse(tree, x, phi, hot, m, iz * tree.cover[hot] / tree.cover[j], io, d)
    _recurse(tree, x, phi, cold, m, iz * tree.cover[cold] / tree.cover[j], 0.0, d)


def tree_shap(tree: TreeArrays, X: Any, n_features: int) -> np.ndarray:
    """Path-dependent Shapley values of one tree's predictions (TreeSHAP, Algorithm 2).

    Parameters
    ----------
    tree : TreeArrays
    X : array-like of shape (n, n_features)
        NaN is a missing value (``tree.default_left``).
    n_features : int

    Returns
    -------
    ndarray of shape (n, n_features), or (n, n_features, K) for K outputs
        :math:`\\phi_i(x)` of the Shapley value (``eq-shapley-value``); each row adds up
        to ``f(x) - expected_value(tree)``.
    """
    tree = _tree_arrays(tree)
    d = check_int(n_features, "n_features", low=1)
    X = _points(tree, X, d)
    phi = np.zeros((X.shape[0], d) + np.shape(tree.value)[1:])
    for r, x in enumerate(X):
        _recurse(tree, x, phi[r], 0, [], 1.0, 1.0, -1)
    return phi


def expected_value(tree: TreeArrays) -> np.ndarray | float:
    """:math:`f_x(\\emptyset)`: the leaves' values averaged with their covers."""
    tree = _tree_arrays(tree)
    leaf = np.asarray(tree.children_left) < 0
    cover = np.asarray(tree.cover, dtype=float)
    return np.tensordot(cover[leaf], np.asarray(tree.value, dtype=float)[leaf], axes=1) / cover[leaf].sum()


# --- the definition ----------------------------------------------------------------------

def _known(tree: TreeArrays, x: np.ndarray, S: set, j: int = 0) -> np.ndarray | float:
    """:math:`f_x(S)`: follow ``x`` on the features of ``S``, average the others by cover."""
    if tree.children_left[j] < 0:
        return tree.value[j]
    left, right = tree.children_left[j], tree.children_right[j]
    if tree.feature[j] in S:
        return _known(tree, x, S, left if tree.goes_left(j, x) else right)
    return (tree.cover[left] * _known(tree, x, S, left)
            + tree.cover[right] * _known(tree, x, S, right)) / tree.cover[j]


def brute_force_shap(tree: TreeArrays, X: Any, n_features: int) -> np.ndarray:
    """Shapley values by their definition, enumerating the :math:`2^d` subsets (``d <= 10``).

    The value of a subset :math:`S` is the tree's path-dependent :math:`f_x(S)`; the
    result is what :func:`tree_shap` computes, at a cost exponential in ``d``.
    """
    tree = _tree_arrays(tree)
    d = check_int(n_features, "n_features", low=1, high=10)
    X = _points(tree, X, d)
    phi = np.zeros((X.shape[0], d) + np.shape(tree.value)[1:])
    for r, x in enumerate(X):
        for i in range(d):
            others = [k for k in range(d) if k != i]
            for size in range(d):
                weight = factorial(size) * factorial(d - size - 1) / factorial(d)
                for S in combinations(others, size):
                    phi[r, i] += weight * (_known(tree, x, {*S, i}) - _known(tree, x, set(S)))
    return phi


# --- ensembles ---------------------------------------------------------------------------

def ensemble_shap(trees: Any, X: Any, n_features: int, weights: Any = None,
                  base_score: Any = 0.0) -> tuple[np.ndarray, Any]:
    """Shapley values of ``base_score + sum_m weights[m] * tree_m(x)``, and its expected value.

    The Shapley value is linear in the model: the members' values, weighted, add up.
    They are computed by the vectorised engine (:mod:`ensemble_ref.math.shapley_engine`),
    which equals :func:`tree_shap` on every member up to rounding. Returns
    ``(phi, expected)`` with ``phi.sum(axis=1) = f(X) - expected``.
    """
    trees = [_tree_arrays(t) for t in check_sequence(trees, "trees", "TreeArrays")]
    weights = np.ones(len(trees)) if weights is None else check_shape(
        np.asarray(weights, dtype=float), "weights", (len(trees),))
    d = check_int(n_features, "n_features", low=1)
    phi = shapley_engine._phi(trees, check_array(X, "X", allow_nan=True, n_features=d), d, weights)
    expected = base_score + sum(w * expected_value(t) for w, t in zip(weights, trees))
    return phi, expected


def _cart(tree: Any) -> TreeArrays:
    """A CART ``tree_`` (``ensemble_ref``'s or scikit-learn's): ``x <= threshold`` in float32."""
    return TreeArrays(tree.children_left, tree.children_right, tree.feature, tree.threshold,
                      np.asarray(tree.value), tree.weighted_n_node_samples, float32=True)


def _second_order(tree: Any) -> TreeArrays:
    """A tree of the second-order booster: ``x < threshold``, its cover the hessian sum ``H``."""
    return TreeArrays(tree.children_left, tree.children_right, tree.feature, tree.threshold,
                      tree.value, tree.H, tree.default_left, rule="<")


def shap_values(model: Any, X: Any) -> tuple[np.ndarray, Any]:
    """Path-dependent Shapley values of a fitted ``ensemble_ref`` tree model, and its expected value.

    What is explained is the model's raw output: a regression tree's prediction, a
    classification tree's class proportions (one column per class), the average of a
    bagging or forest's trees, gradient boosting's score ``F(x)`` (its ``init_`` plus
    ``learning_rate`` times every tree), a second-order booster's margin (one per
    class for K > 2). Returns ``(phi, expected)``: ``phi`` of shape ``(n, d)`` (or
    ``(n, d, K)``) and ``phi.sum(axis=1) = output(X) - expected``.
    """
    check_attributes(model, "model", ("n_features_in_",), "a fitted ensemble_ref tree model")
    d = model.n_features_in_
    if hasattr(model, "trees_"):  # XGBRegressor, XGBClassifier
        trees, K = [_second_order(t) for t in model.trees_], int(np.size(model.base_margin_))
        if K == 1:
            return ensemble_shap(trees, X, d, base_score=float(model.base_margin_))
        per_class = [ensemble_shap(trees[k::K], X, d, base_score=model.base_margin_[k]) for k in range(K)]
        return np.stack([p for p, _ in per_class], axis=-1), np.array([e for _, e in per_class])
    if hasattr(model, "estimators_"):
        members = check_sequence(list(model.estimators_), "model.estimators_", "fitted trees")
        for member in members:
            check_attributes(member, "model's member", ("tree_",), "a tree (an ensemble of trees)")
        trees = [_cart(t.tree_) for t in members]
        if hasattr(model, "init_"):  # gradient boosting: F = F_0 + nu sum_m h_m
            return ensemble_shap(trees, X, d, np.full(len(trees), model.learning_rate), model.init_)
        return ensemble_shap(trees, X, d, np.full(len(trees), 1.0 / len(trees)))  # bagging, forests
    check_attributes(model, "model", ("tree_",), "a fitted tree or an ensemble of trees")
    return ensemble_shap([_cart(model.tree_)], X, d)
