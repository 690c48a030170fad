r"""The fast engine of path-dependent TreeSHAP: every leaf of every tree at once, over arrays of rows.

:func:`ensemble_ref.math.shapley.tree_shap` is Algorithm 2 as the paper writes it, one
point and one node at a time; it is the reference this engine is tested against
(``tests/test_treeshap.py``: equal to :math:`10^{-12}` of the values' scale), and
:func:`ensemble_ref.math.shapley.ensemble_shap` (so also ``shap_values``) runs the engine.

The engine computes the same sums in another order, leaf by leaf. Unfolding the
path-dependent :math:`f_x(S)` (equation ``eq-shapley-path``), a leaf :math:`\ell` of value
:math:`v_\ell` whose path from the root splits on the distinct features :math:`P` adds to
:math:`f_x(S)` the product :math:`v_\ell \prod_{j \in P \cap S} o_j(x) \prod_{j \in P
\setminus S} z_j`, where :math:`z_j` is the product of the cover fractions
:math:`W_{\text{child}}/W_t` of the path's splits on feature :math:`j` (a feature met
several times on the path is merged into one element) and :math:`o_j(x) \in \{0, 1\}`
the product of the indicators that :math:`x` follows those splits. The Shapley value is
linear in the game, so each leaf is a game of its own on the players :math:`P`, and its
share of :math:`\phi_i` (equation ``eq-shapley-value``) is

.. math::

    v_\ell\,(o_i - z_i) \sum_{S \subseteq P \setminus \{i\}} \frac{|S|!\,(|P| - |S| - 1)!}{|P|!}
    \prod_{j \in S} o_j \prod_{j \in P \setminus S \setminus \{i\}} z_j .

The sum is Algorithm 2's: ``EXTEND`` over the elements of :math:`P` gives the weights
:math:`w_0, \dots, w_{|P|}` of the subset sizes, ``UNWIND`` of element :math:`i` and the sum
of what remains give the sum above. Here both run on arrays of shape
``(rows, leaves)``, the leaves grouped by the number :math:`|P|` of their distinct
features, so a loop step of Python serves every row and every leaf of every tree. Since
:math:`o_i` is 0 or 1, ``UNWIND`` has two cases: :math:`o_i = 1`, the recurrence of the
paper; :math:`o_i = 0`, where ``EXTEND`` multiplied every weight by :math:`z_i`, so
:math:`(o_i - z_i)` times the unwound sum is :math:`-\sum_{k < |P|} w_k (|P| + 1)/(|P| - k)`,
the same for every such :math:`i` (and 0, as it must be, when :math:`z_i = 0`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

__all__: list[str] = []

_CHUNK = 1 << 20  # rows x leaves x (edges + elements) x outputs of one group computed at once


def _goes_left(tree: Any, X: np.ndarray, X32: np.ndarray) -> np.ndarray:
    """``(n, nodes)``: whether each row follows the left child at each node (False at a leaf)."""
    Xt = X32 if tree.float32 else X
    left = np.asarray(tree.children_left)
    out = np.zeros((X.shape[0], left.size), dtype=bool)
    split = np.flatnonzero(left >= 0)
    v = Xt[:, np.asarray(tree.feature)[split]]
    t = np.asarray(tree.threshold, dtype=float)[split]
    out[:, split] = (v <= t) if tree.rule == "<=" else (v < t)
    if tree.default_left is not None:  # NaN goes left where the default says so, else right
        out[:, split] |= np.isnan(v) & np.asarray(tree.default_left, dtype=bool)[split]
    return out


def _leaf_paths(tree: Any) -> list[tuple[int, tuple]]:
    """Every leaf with the edges ``(node, went_left, child)`` from the root down to it."""
    left, right = tree.children_left, tree.children_right
    leaves, stack = [], [(0, ())]
    while stack:
        j, edges = stack.pop()
        if left[j] < 0:
            leaves.append((j, edges))
            continue
        stack.append((right[j], edges + ((j, False, right[j]),)))
        stack.append((left[j], edges + ((j, True, left[j]),)))
    return leaves


def _elements(tree: Any, edges: tuple) -> tuple[list, list, list]:
    """The path's distinct features, their zero fractions ``z``, and the element of each edge."""
    features, z, slot = [], [], []
    for j, _, child in edges:
        f = int(tree.feature[j])
        if f not in features:
            features.append(f)
            z.append(1.0)
        s = features.index(f)
        z[s] = z[s] * tree.cover[child] / tree.cover[j]
        slot.append(s)
    return features, z, slot


def _leaf_table(trees: list, weights: np.ndarray, K: int) -> dict:
    """The leaves of all trees grouped by their number of distinct features (0 left out).

    Node ids are numbered across the trees (tree ``m``'s node ``j`` is ``offset_m + j``);
    a group holds per leaf its edges, their elements, the features, ``z``, and its value
    times the tree's weight.
    """
    groups: dict = defaultdict(list)
    offset = 0
    for tree, weight in zip(trees, weights):
        value = np.reshape(np.asarray(tree.value, dtype=float), (len(tree.children_left), K))
        for leaf, edges in _leaf_paths(tree):
            features, z, slot = _elements(tree, edges)
            if features:
                nodes = [offset + j for j, _, _ in edges]
                groups[len(features)].append((nodes, [e[1] for e in edges], slot, features, z,
                                              weight * value[leaf]))
        offset += len(tree.children_left)
    return {size: _stack(rows, offset) for size, rows in groups.items()}


def _stack(rows: list, n_nodes: int) -> dict:
    """One group's leaves as arrays; paths shorter than the longest end with edges that every
    row follows (node ``n_nodes``, a column of True), in element 0 (no change)."""
    E = max(len(r[0]) for r in rows)
    pad = lambda k, fill: np.array([r[k] + [fill] * (E - len(r[k])) for r in rows])  # noqa: E731
    return {"node": pad(0, n_nodes), "left": pad(1, True), "slot": pad(2, 0),
            "feature": np.array([r[3] for r in rows]), "z": np.array([r[4] for r in rows], dtype=float),
            "value": np.array([r[5] for r in rows])}


def _ones(G: np.ndarray, group: dict) -> np.ndarray:
    """``o``, shape ``(n, leaves, |P|)``: does the row follow every split of the element's feature?"""
    follows = G[:, group["node"]] == group["left"]  # (n, leaves, edges)
    L, P = group["z"].shape
    o = np.ones((G.shape[0], L, P), dtype=bool)
    leaf = np.arange(L)
    for e in range(follows.shape[2]):  # the elements of one edge position are distinct leaves
        o[:, leaf, group["slot"][:, e]] &= follows[:, :, e]
    return o


def _extend_all(o: np.ndarray, z: np.ndarray) -> np.ndarray:
    """EXTEND by every element in turn: the weights ``w``, shape ``(n, leaves, |P| + 1)``."""
    n, L, P = o.shape
    w = np.zeros((n, L, P + 1))
    w[..., 0] = 1.0  # the path's first element, the root's (z = o = 1)
    for l in range(1, P + 1):  # add element l - 1 to a path of l elements
        i = np.arange(l)
        below = w[..., :l].copy()
        w[..., :l] = below * (z[:, l - 1, None] * ((l - i) / (l + 1)))
        w[..., 1:l + 1] += below * (o[..., l - 1, None] * ((i + 1) / (l + 1)))
    return w


def _credits(w: np.ndarray, o: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``(o_i - z_i)`` times the sum of the weights UNWIND leaves without element ``i``: ``(n, leaves, |P|)``."""
    P = o.shape[2]
    k = np.arange(P)
    if_zero = -(w[..., :P] @ ((P + 1) / (P - k)))  # o_i = 0: the same for every such i
    nxt, total = np.repeat(w[..., P, None], P, axis=2), np.zeros(o.shape)
    for j in range(P - 1, -1, -1):  # o_i = 1: the paper's recurrence, for every i at once
        unwound = nxt * ((P + 1) / (j + 1))
        total += unwound
        nxt = w[..., j, None] - unwound * (z * ((P - j) / (P + 1))) if j else nxt
    return np.where(o, total * (1.0 - z), if_zero[..., None])


def _add(phi: np.ndarray, credit: np.ndarray, group: dict) -> None:
    """Add each leaf's credits times its value to the columns of the elements' features."""
    n, L, P = credit.shape
    features = group["feature"].ravel()
    order = np.argsort(features, kind="stable")
    columns, starts = np.unique(features[order], return_index=True)
    share = credit[..., None] * group["value"][None, :, None, :]  # (n, leaves, |P|, K)
    phi[:, columns] += np.add.reduceat(share.reshape(n, L * P, -1)[:, order], starts, axis=1)


def _phi(trees: list, X: np.ndarray, n_features: int, weights: np.ndarray) -> np.ndarray:
    """Path-dependent Shapley values of ``sum_m weights[m] * tree_m(x)``, every tree at once.

    ``trees`` are :class:`~ensemble_ref.math.shapley.TreeArrays` and ``X`` a validated
    array of ``n_features`` columns (NaN missing); the result has the shape of
    ``tree_shap``'s, ``(n, n_features)`` or ``(n, n_features) + value.shape[1:]``, and
    equals the weighted sum of ``tree_shap`` over the trees up to rounding.
    """
    trailing = np.shape(trees[0].value)[1:]
    K = int(np.prod(trailing, dtype=int))
    groups = _leaf_table(trees, weights, K)
    X32 = X.astype(np.float32).astype(np.float64)
    phi = np.zeros((X.shape[0], n_features, K))
    width = max([len(g["z"]) * (g["node"].shape[1] + g["z"].shape[1] + 1) * K for g in groups.values()], default=1)
    step = max(1, _CHUNK // width)
    for start in range(0, X.shape[0], step):
        rows = slice(start, start + step)
        G = np.hstack([_goes_left(t, X[rows], X32[rows]) for t in trees]
                      + [np.ones((len(X[rows]), 1), dtype=bool)])
        for group in groups.values():
            o = _ones(G, group)
            _add(phi[rows], _credits(_extend_all(o, group["z"]), o, group["z"]), group)
    return phi.reshape((X.shape[0], n_features) + trailing)
