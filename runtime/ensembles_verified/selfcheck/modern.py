r"""Self-checks for the coding exercises of the chapter *Gradient boosting in practice*.

Each check calls your function on random cases drawn from a seeded generator
(another ``random_state`` gives other cases, ``None`` new ones on every call) and
on a few edge cases, and compares every answer with the formula of the chapter as
implemented in ``ensemble_ref.math``. When all cases agree it prints one line starting with
``✔``; at the first disagreement it raises an ``AssertionError`` that names the
formula (by its equation in the chapter), shows the case, the expected answer
and yours, and, when your answer matches a usual mistake, says which::

    >>> import numpy as np
    >>> from ensembles_verified.selfcheck import check_ordered_target_statistic
    >>> from ensemble_ref.math.target_statistics import ordered_target_statistic
    >>> check_ordered_target_statistic(ordered_target_statistic)  # doctest: +ELLIPSIS
    ✔ check_ordered_target_statistic: your function agrees with ...ordered_target_statistic on all ... cases.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ensemble_ref.math.sampling import goss_counts
from ensemble_ref.math.target_statistics import greedy_target_statistic, ordered_target_statistic

from .engine import _fmt, _run, _seed

__all__ = ["check_goss_weights", "check_ordered_target_statistic"]


# --- GOSS --------------------------------------------------------------------------------------


def _goss_cases(rng: np.random.Generator) -> tuple[list[dict], np.ndarray]:
    """The cases (each with its own generator ``rng``), and the gradients of the last five.

    The last five cases differ only by their generator: their samples must differ.
    """
    cases = [(rng.normal(size=n) * rng.exponential(size=n), a, b)
             for n, a, b in [(10, 0.2, 0.2), (20, 0.1, 0.3), (50, 0.2, 0.1), (37, 0.3, 0.25),
                             (100, 0.05, 0.5)]]
    cases.append((np.array([-5.0, 0.1, 4.0, -0.2, 0.3, 3.0, -0.05, 0.02, 1.0, -1.5]), 0.2, 0.3))
    shared = rng.normal(size=200)
    cases += [(shared, 0.1, 0.1)] * 5
    return [{"g": g, "a": a, "b": b, "rng": np.random.default_rng(number)}
            for number, (g, a, b) in enumerate(cases, start=1)], shared


def _goss_plan(g: np.ndarray, a: float, b: float) -> tuple[list[int], int, float]:
    """The rows of weight 1 (largest |g|, ties to the lower index), other_k and the factor."""
    top_k, other_k, factor = goss_counts(g.size, a, b)
    return sorted(np.argsort(-np.abs(g), kind="stable")[:top_k].tolist()), other_k, factor


def _goss_expected(g: np.ndarray, a: float, b: float, rng: np.random.Generator) -> str:
    top, other_k, factor = _goss_plan(g, a, b)
    return f"1 on rows {top}, {factor:.6g} on {other_k} other rows, 0 elsewhere"


def _goss_formula(g: np.ndarray, a: float, b: float, rng: np.random.Generator) -> str:
    top_k, other_k, factor = goss_counts(g.size, a, b)
    return (f"eq-modern-goss (GOSS weights) with N = {g.size}: top_k = {top_k}, other_k = "
            f"{other_k}, factor (N - top_k)/other_k = {factor:.6g}")


def _goss_compare(w: np.ndarray, expected: str, case: dict) -> tuple[str, str, str] | None:
    """What one sample must get right: the rows of weight 1, and the number and weight of the others."""
    g, a, b = case["g"], case["a"], case["b"]
    top, other_k, factor = _goss_plan(g, a, b)
    if w.shape != g.shape:
        return f"{expected} (shape {g.shape})", f"{_fmt(w)} (shape {w.shape})", ""
    got_top = set(np.flatnonzero(np.isclose(w, 1.0, rtol=1e-12, atol=0)).tolist())
    if not set(top) <= got_top:
        by_sign = set(np.argsort(-g, kind="stable")[:len(top)].tolist())
        hint = "\n  your weight-1 rows are those of largest g, not of largest |g|." if by_sign <= got_top else ""
        return (f"weight 1 exactly on the rows of largest |g|: {top}",
                f"weight 1 on rows {sorted(got_top)}", hint)
    sampled = np.flatnonzero(~np.isin(np.arange(g.size), top) & (w != 0))
    if sampled.size == other_k and np.allclose(w[sampled], factor, rtol=1e-9):
        return None
    values = np.unique(np.round(w[sampled], 12))
    hint = ""
    if np.allclose(values, 1.0):
        hint = "\n  your sampled rows keep weight 1: the factor that makes the sample unbiased is missing."
    elif np.allclose(values, 1.0 / factor):
        hint = "\n  your factor is inverted: each sampled row stands for more rows than itself."
    return (f"{other_k} rows outside the top with weight {factor:.10g}",
            f"{sampled.size} rows with weights {_fmt(values)}", hint)


def check_goss_weights(student_fn: Callable[[np.ndarray, float, float, np.random.Generator], Any],
                       random_state: Any = 0) -> None:
    r"""Check ``student_fn(g, a, b, rng)``: one GOSS sample as a weight per row (``eq-modern-goss``).

    Parameters
    ----------
    student_fn : callable
        ``student_fn(g, a, b, rng) -> ndarray`` of shape (N,): 1 for the
        ``top_k = max(1, floor(aN))`` rows of largest :math:`|g_i|`, the factor
        ``(N - top_k) / other_k`` for ``other_k = floor(bN)`` rows drawn without
        replacement from the others with the generator ``rng``, and 0 for the rest.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    The sample is random, so the check compares what is determined: which rows
    get weight 1, how many rows get the factor and its value, that the sampled rows
    come from the small-gradient rows, and, on the last five cases (the same
    gradients with five generators), that the sample changes with ``rng``.
    Reference: :func:`ensemble_ref.math.sampling.goss_weights` (its counts,
    :func:`ensemble_ref.math.sampling.goss_counts`). Recognised mistakes: no
    reweighting (factor 1), the inverted factor :math:`b/(1-a)`, the top rows
    chosen by :math:`g_i` instead of :math:`|g_i|`, and a sample drawn without ``rng``.
    """
    rng, repeat = _seed(random_state)
    cases, shared = _goss_cases(rng)
    samples = []

    def compare(w, expected, case):
        failure = _goss_compare(w, expected, case)
        if failure is not None or case["g"] is not shared:
            return failure
        samples.append(tuple(np.flatnonzero(w != 0).tolist()))
        if len(samples) < 5 or len(set(samples)) > 1:
            return None
        return ("a sample that changes with rng", "the same sample as with the generators of the four "
                "cases before", "\n  five different generators rng gave the same sample of 200 rows; "
                "draw the small-gradient rows with rng.")

    _run("check_goss_weights", student_fn, cases, _goss_expected,
         "ensemble_ref.math.sampling.goss_weights", formula=_goss_formula, compare=compare,
         repeat=repeat)


# --- ordered target statistics --------------------------------------------------------------------


def _ts_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, levels, a in [(6, 2, 1.0), (12, 3, 1.0), (20, 5, 2.0), (40, 4, 0.5), (30, 10, 1.0)]:
        cases.append({"categories": rng.integers(0, levels, n),
                      "y": rng.integers(0, 2, n).astype(float),
                      "permutation": rng.permutation(n), "prior": float(rng.uniform(0.2, 0.8)),
                      "prior_weight": a})
    cases.append({"categories": np.array(["a", "b", "a", "a", "c", "b"]),
                  "y": np.array([1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
                  "permutation": np.array([3, 0, 5, 1, 2, 4]), "prior": 0.5, "prior_weight": 1.0})
    cases.append({"categories": np.zeros(5, dtype=int), "y": np.array([2.0, -1.0, 0.5, 3.0, 1.0]),
                  "permutation": np.arange(5), "prior": 1.0, "prior_weight": 3.0})
    return cases


def check_ordered_target_statistic(student_fn: Callable[..., Any], random_state: Any = 0) -> None:
    r"""Check ``student_fn(categories, y, permutation, prior, prior_weight)`` (``eq-modern-ts``).

    Parameters
    ----------
    student_fn : callable
        Returns, for every row :math:`i` (in the original order), the ordered
        target statistic :math:`(\sum_{j \text{ before } i,\ x_j = x_i} y_j + a p) /
        (\#\{j \text{ before } i,\ x_j = x_i\} + a)`, where "before" means earlier in
        ``permutation`` (``permutation[k]`` is the row that comes k-th).
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.target_statistics.ordered_target_statistic`.
    Recognised mistakes: the row's own target included, the greedy TS (all rows),
    the rows *after* the row in the permutation, and the prior left out.
    """
    rng, repeat = _seed(random_state)

    def with_own(categories, y, permutation, prior, prior_weight):
        own = ordered_target_statistic(categories, y, permutation, prior, prior_weight)
        _, inv = np.unique(categories, return_inverse=True)
        position = np.empty(len(y), dtype=int)
        position[permutation] = np.arange(len(y))
        before = np.array([np.sum((inv == inv[i]) & (position < position[i])) for i in range(len(y))])
        return (own * (before + prior_weight) + y) / (before + 1 + prior_weight)

    def after(categories, y, permutation, prior, prior_weight):
        return ordered_target_statistic(categories, y, np.asarray(permutation)[::-1], prior, prior_weight)

    def no_prior(categories, y, permutation, prior, prior_weight):
        return ordered_target_statistic(categories, y, permutation, 0.0, prior_weight)

    mistakes = [("including the row's own target (rows up to and including it)", with_own),
                ("the greedy TS over all rows", lambda categories, y, permutation, prior, prior_weight:
                 greedy_target_statistic(categories, y, prior, prior_weight)),
                ("using the rows after it in the permutation", after),
                ("leaving out the prior", no_prior)]
    _run("check_ordered_target_statistic", student_fn, _ts_cases(rng), ordered_target_statistic,
         "ensemble_ref.math.target_statistics.ordered_target_statistic",
         formula="eq-modern-ts, (sum of y_j + a p) / (#j + a) over the rows j of the same category "
                 "before the row in the permutation", mistakes=mistakes, repeat=repeat)
