r"""Self-checks for the coding exercises of the chapter *Gradient boosting in practice*.

Each check calls your function on fresh random cases drawn from a seeded
generator (change ``random_state`` for new ones) and on a few edge cases, and
compares every answer with the formula of the chapter as implemented in
``ensemble_ref.math``. When all cases agree it prints one line starting with
``✔``; at the first disagreement it raises an ``AssertionError`` that names the
formula (by its equation in the chapter), shows the case, the expected answer
and yours, and, when your answer matches a usual mistake, says which::

    >>> import numpy as np
    >>> from ensembles_verified.selfcheck import check_ordered_target_statistic
    >>> from ensemble_ref.math.target_statistics import ordered_target_statistic
    >>> check_ordered_target_statistic(ordered_target_statistic)  # doctest: +ELLIPSIS
    ✔ check_ordered_target_statistic: your function agrees with eq-modern-ts ... on all ... cases.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ensemble_ref.math.sampling import goss_counts
from ensemble_ref.math.target_statistics import greedy_target_statistic, ordered_target_statistic

from .engine import _check_callable

__all__ = ["check_goss_weights", "check_ordered_target_statistic"]


def _rng(random_state: Any) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return np.random.default_rng(int(random_state))
    raise TypeError("random_state must be a non-negative int or a numpy.random.Generator, got "
                    f"{random_state!r}.")


def _fmt(value: Any) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return f"{arr.item():.10g}" if arr.dtype.kind == "f" else repr(arr.item())
    with np.printoptions(precision=6, threshold=30, linewidth=90, suppress=True):
        return np.array2string(arr, separator=", ")


def _as_numbers(received: Any, where: str, expected_text: str) -> np.ndarray:
    if received is None:
        raise AssertionError(f"{where}\n  expected: {expected_text}\n  got: None "
                             "(does your function return its result?)")
    got = np.asarray(received)
    if got.dtype.kind not in "biuf":
        raise AssertionError(f"{where}\n  expected: {expected_text}\n  got: {received!r}, "
                             "which is not an array of numbers")
    return got.astype(float)


# --- GOSS --------------------------------------------------------------------------------------


def _goss_cases(rng: np.random.Generator) -> list[tuple[np.ndarray, float, float]]:
    cases = [(rng.normal(size=n) * rng.exponential(size=n), a, b)
             for n, a, b in [(10, 0.2, 0.2), (20, 0.1, 0.3), (50, 0.2, 0.1), (37, 0.3, 0.25),
                             (100, 0.05, 0.5)]]
    cases.append((np.array([-5.0, 0.1, 4.0, -0.2, 0.3, 3.0, -0.05, 0.02, 1.0, -1.5]), 0.2, 0.3))
    return cases


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
    random_state : int or numpy.random.Generator, default=0
        Seeds the random cases.

    Notes
    -----
    The sample is random, so the check compares what is determined: which rows
    get weight 1, how many rows get the factor and its value, that the sampled rows
    come from the small-gradient rows, and that the sample changes with ``rng``.
    Recognised mistakes: no reweighting (factor 1), the inverted factor
    :math:`b/(1-a)`, and the top rows chosen by :math:`g_i` instead of :math:`|g_i|`.
    """
    name, formula = "check_goss_weights", "eq-modern-goss (GOSS weights)"
    _check_callable(student_fn, 4, name)
    rng = _rng(random_state)
    cases = _goss_cases(rng)
    for number, (g, a, b) in enumerate(cases, start=1):
        n = g.size
        top_k, other_k, factor = goss_counts(n, a, b)
        order = np.argsort(-np.abs(g), kind="stable")
        top, rest = set(order[:top_k].tolist()), order[top_k:]
        where = (f"{name}: {formula}, case {number} of {len(cases)}:\n"
                 f"  your_function(g={_fmt(g)}, a={a}, b={b}, rng)\n"
                 f"  (N = {n}: top_k = {top_k}, other_k = {other_k}, factor (N - top_k)/other_k = "
                 f"{factor:.6g})")
        expected_text = (f"1 on rows {sorted(top)}, {factor:.6g} on {other_k} other rows, 0 elsewhere")
        try:
            received = student_fn(g.copy(), a, b, np.random.default_rng(number))
        except Exception as exc:
            raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}") from exc
        w = _as_numbers(received, where, expected_text)
        if w.shape != (n,):
            raise AssertionError(f"{where}\n  expected shape ({n},): {expected_text}\n"
                                 f"  got shape {w.shape}: {_fmt(w)}")
        got_top = set(np.flatnonzero(np.isclose(w, 1.0, rtol=1e-12, atol=0)).tolist())
        if not top <= got_top:
            hint = ""
            by_sign = set(np.argsort(-g, kind="stable")[:top_k].tolist())
            if by_sign <= got_top:
                hint = "\n  your weight-1 rows are those of largest g, not of largest |g|."
            raise AssertionError(f"{where}\n  expected weight 1 exactly on the rows of largest |g|: "
                                 f"{sorted(top)}\n  got weight 1 on rows {sorted(got_top)}{hint}")
        sampled = np.flatnonzero(~np.isin(np.arange(n), list(top)) & (w != 0))
        if not np.allclose(w[sampled], factor, rtol=1e-9) or sampled.size != other_k:
            values = np.unique(np.round(w[sampled], 12))
            hint = ""
            if np.allclose(values, 1.0):
                hint = "\n  your sampled rows keep weight 1: the factor (1 - a)/b is missing."
            elif np.allclose(values, 1.0 / factor):
                hint = "\n  your factor is inverted: it is b/(1 - a), not (1 - a)/b."
            raise AssertionError(f"{where}\n  expected {other_k} rows outside the top with weight "
                                 f"{factor:.10g}\n  got {sampled.size} rows with weights "
                                 f"{_fmt(values)}{hint}")
        if not set(sampled.tolist()) <= set(rest.tolist()):
            raise AssertionError(f"{where}\n  the sampled rows must come from the rows outside the top")
    # the sample must depend on the generator
    g = rng.normal(size=200)
    draws = {tuple(np.flatnonzero(np.asarray(student_fn(g.copy(), 0.1, 0.1,
                                                        np.random.default_rng(s))) != 0))
             for s in range(5)}
    if len(draws) == 1:
        raise AssertionError(f"{name}: {formula}: five different generators rng gave the same sample "
                             "of 200 rows; draw the small-gradient rows with rng.")
    print(f"\u2714 {name}: your function agrees with {formula} on all {len(cases)} cases "
          "and its sample changes with rng.")


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
    random_state : int or numpy.random.Generator, default=0
        Seeds the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.target_statistics.ordered_target_statistic`.
    Recognised mistakes: the row's own target included, the greedy TS (all rows),
    the rows *after* the row in the permutation, and the prior left out.
    """
    name, formula = "check_ordered_target_statistic", "eq-modern-ts (ordered target statistic)"
    _check_callable(student_fn, 5, name)
    rng = _rng(random_state)
    cases = _ts_cases(rng)

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
                ("leaving out the prior p (a p replaced by 0)", no_prior)]
    for number, case in enumerate(cases, start=1):
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in case.items())
        where = f"{name}: {formula}, case {number} of {len(cases)}:\n  your_function({shown})"
        expected = ordered_target_statistic(**case)
        fresh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case.items()}
        try:
            received = student_fn(*fresh.values())
        except Exception as exc:
            raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}") from exc
        got = _as_numbers(received, where, _fmt(expected))
        if got.shape != expected.shape:
            raise AssertionError(f"{where}\n  expected shape {expected.shape}: {_fmt(expected)}\n"
                                 f"  got shape {got.shape}: {_fmt(got)}")
        ok = np.isfinite(got) & np.isclose(got, expected, rtol=1e-9, atol=1e-12)
        if ok.all():
            continue
        first = int(np.flatnonzero(~ok)[0])
        hint = ""
        for description, wrong in mistakes:
            guess = np.asarray(wrong(**case), dtype=float)
            if guess.shape == got.shape and np.allclose(got, guess, rtol=1e-7, atol=1e-10):
                hint = f"\n  your answer is what {description} gives."
                break
        raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  got:      {_fmt(got)}\n"
                             f"  first difference at row {first}: expected {expected[first]:.10g}, "
                             f"got {got[first]:.10g}{hint}")
    print(f"\u2714 {name}: your function agrees with {formula} on all {len(cases)} cases.")
