r"""Self-checks for the coding exercises of the chapter *What did the ensemble learn?*

Each check calls your function on random cases drawn from a seeded generator
(another ``random_state`` gives other cases, ``None`` new ones on every call) and
on the chapter's worked example, and compares every answer with the reference in
:mod:`ensemble_ref.math.shapley`. When all cases agree it prints one line starting
with ``✔``; at the first disagreement it raises an ``AssertionError`` that shows the
case, names the formula (by its equation in the chapter) and, when your answer
matches a usual mistake, says which.
"""

from __future__ import annotations

from itertools import combinations
from math import comb, factorial
from typing import Any, Callable

import numpy as np

from ensemble_ref.math.shapley import TreeArrays, tree_shap

from .engine import _run, _seed

__all__ = ["check_tree_shapley"]


def _random_tree(rng: np.random.Generator, d: int, depth: int) -> TreeArrays:
    """A random tree: random splits (a feature may repeat on a path), covers shared between children."""
    left, right, feature, threshold, cover, value = [], [], [], [], [], []

    def node(level, weight):
        j = len(left)
        for column in (left, right, feature, threshold):
            column.append(-1)
        cover.append(weight)
        value.append(float(np.round(rng.normal(scale=10), 2)))
        if level == 0 or (level < depth and rng.random() < 0.8):
            feature[j], threshold[j] = int(rng.integers(d)), float(np.round(rng.normal(), 2))
            share = float(rng.uniform(0.2, 0.8))
            left[j] = node(level + 1, weight * share)
            right[j] = node(level + 1, weight * (1 - share))
        return j

    node(0, 100.0)
    return TreeArrays(np.array(left), np.array(right), np.array(feature), np.array(threshold, dtype=float),
                      np.array(value), np.array(cover))


def _shapley_cases(rng: np.random.Generator) -> list[dict]:
    worked = TreeArrays(np.array([1, 3, -1, -1, -1]), np.array([2, 4, -1, -1, -1]), np.array([0, 1, -2, -2, -2]),
                        np.array([0.5, 0.5, 0, 0, 0]), np.array([0.0, 0.0, 70.0, 10.0, 40.0]),
                        np.array([100.0, 60.0, 40.0, 20.0, 40.0]))
    cases = [{"tree": worked, "x": np.array([0.2, 0.8])}]
    for d, depth in [(3, 3), (4, 3), (3, 4), (5, 4), (2, 3)]:
        cases.append({"tree": _random_tree(rng, d, depth), "x": np.round(rng.normal(size=d), 2)})
    return cases


def _by_definition(tree: TreeArrays, x: np.ndarray, weight: Callable[[int, int], float],
                   use_cover: bool = True) -> np.ndarray:
    """eq-shapley-value with the subset weight ``weight(|S|, d)``; ``use_cover=False`` halves at unknown splits."""
    def f(S, j=0):
        if tree.children_left[j] < 0:
            return tree.value[j]
        l, r = tree.children_left[j], tree.children_right[j]
        if tree.feature[j] in S:
            return f(S, l if tree.goes_left(j, x) else r)
        wl, wr = (tree.cover[l], tree.cover[r]) if use_cover else (1.0, 1.0)
        return (wl * f(S, l) + wr * f(S, r)) / (wl + wr)

    d = len(x)
    phi = np.zeros(d)
    for i in range(d):
        others = [k for k in range(d) if k != i]
        for size in range(d):
            for S in combinations(others, size):
                phi[i] += weight(size, d) * (f({*S, i}) - f(set(S)))
    return phi


def _shapley_weight(size: int, d: int) -> float:
    return factorial(size) * factorial(d - size - 1) / factorial(d)


def _saabas(tree: TreeArrays, x: np.ndarray) -> np.ndarray:
    """The change of the cover-weighted mean at each split of x's path, credited to its feature."""
    def mean(j):
        if tree.children_left[j] < 0:
            return tree.value[j]
        l, r = tree.children_left[j], tree.children_right[j]
        return (tree.cover[l] * mean(l) + tree.cover[r] * mean(r)) / tree.cover[j]

    phi, j = np.zeros(len(x)), 0
    while tree.children_left[j] >= 0:
        child = tree.children_left[j] if tree.goes_left(j, x) else tree.children_right[j]
        phi[tree.feature[j]] += mean(child) - mean(j)
        j = child
    return phi


def check_tree_shapley(student_fn: Callable[[Any, np.ndarray], np.ndarray], random_state: Any = None) -> None:
    r"""Check ``student_fn(tree, x)``: the Shapley values of one point for one tree.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(tree, x) -> array of shape (d,)``, where ``tree`` is an
        :class:`ensemble_ref.math.shapley.TreeArrays` (``tree.goes_left(j, x)`` says
        where ``x`` goes at node ``j``) and ``x`` an array of ``d`` feature values. It
        returns :math:`\phi_1(x), \dots, \phi_d(x)` of equation ``eq-shapley-value``, with
        the tree's path-dependent :math:`f_x(S)` (equation ``eq-shapley-path``).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases (random trees with 2 to 5 features, a feature possibly
        split twice on a path, and the chapter's worked example).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.shapley.tree_shap`. Recognised mistakes:
    Saabas's path attribution, every subset weighted alike, and the two branches of
    an unknown feature's split averaged equally instead of by their covers.
    """
    rng, repeat = _seed(random_state)
    _run("check_tree_shapley", student_fn, _shapley_cases(rng),
         lambda tree, x: tree_shap(tree, x[None], len(x))[0],
         "ensemble_ref.math.shapley.tree_shap",
         formula="the Shapley value (eq-shapley-value) with the path-dependent f_x(S) (eq-shapley-path)",
         mistakes=[("Saabas's attribution: the changes of the node means along x's path",
                    _saabas),
                   ("every subset weighted alike, instead of by |S|! (d - |S| - 1)! / d!",
                    lambda tree, x: _by_definition(tree, x, lambda size, d: 2.0 ** (1 - d))),
                   ("the subsets of each size weighted by 1/C(d-1, |S|) but not divided by d",
                    lambda tree, x: _by_definition(tree, x, lambda size, d: 1.0 / comb(d - 1, size))),
                   ("the two branches of a split on an unknown feature averaged equally, not by cover",
                    lambda tree, x: _by_definition(tree, x, _shapley_weight, use_cover=False))],
         repeat=repeat)
