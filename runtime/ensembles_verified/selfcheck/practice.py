r"""Self-checks for the coding exercises of the chapter *Ensembles on real data*.

Each check calls your function on random cases drawn from a seeded generator
(another ``random_state`` gives other cases, ``None`` new ones on every call) and
on a few edge cases, and compares every answer with the chapter's formula. When
all cases agree it prints one line starting with ``✔``; at the first disagreement
it raises an ``AssertionError`` that shows the case, names the formula (by its
equation or section in the chapter) and, when your answer matches a usual mistake,
says which.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from scipy import stats

from .engine import _run, _seed

__all__ = ["check_undo_weight", "check_exact_interval"]


def _undo(p_w: np.ndarray, w: float) -> np.ndarray:
    """eq-real-weighted-odds: the odds of p_w divided by w, turned back into a probability."""
    p_w = np.asarray(p_w, dtype=float)
    return p_w / (p_w + w * (1 - p_w))


def check_undo_weight(student_fn: Callable[[np.ndarray, float], np.ndarray], random_state: Any = None) -> None:
    r"""Check ``student_fn(p_w, w)``: the probabilities of a model fitted without the weight ``w``.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p_w, w) -> array``: given the probabilities ``p_w`` (an array in
        :math:`(0, 1)`) of a model fitted with weight ``w > 0`` on every positive, the
        probabilities of equation ``eq-real-weighted-odds``, whose odds are those of
        ``p_w`` divided by ``w``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Recognised mistakes: the probability divided by ``w`` instead of the odds, and the
    odds multiplied by ``w`` (the weight applied a second time).
    """
    rng, repeat = _seed(random_state)
    cases = [{"p_w": np.array([0.5, 0.2, 0.9]), "w": 4.0}]
    for w in (2.0, 15.7, 0.5, float(np.round(rng.uniform(1, 30), 2))):
        cases.append({"p_w": np.round(rng.uniform(0.01, 0.99, size=5), 3), "w": w})
    _run("check_undo_weight", student_fn, cases, _undo, "p_w / (p_w + w (1 - p_w))",
         formula="the odds of a weighted fit (eq-real-weighted-odds)",
         mistakes=[("the probability divided by w, instead of its odds", lambda p_w, w: p_w / w),
                   ("the odds multiplied by w: the weight applied a second time",
                    lambda p_w, w: _undo(p_w, 1 / w))],
         repeat=repeat)


def _clopper_pearson(k: int, n: int, level: float) -> np.ndarray:
    """The exact (Clopper-Pearson) interval of a binomial proportion, from the Beta quantiles."""
    a = (1 - level) / 2
    low = stats.beta.ppf(a, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0
    return np.array([low, high])


def _wald(k: int, n: int, level: float) -> np.ndarray:
    z, p = stats.norm.ppf(1 - (1 - level) / 2), k / n
    return np.array([p - z * np.sqrt(p * (1 - p) / n), p + z * np.sqrt(p * (1 - p) / n)])


def _no_plus_one(k: int, n: int, level: float) -> np.ndarray:
    a = (1 - level) / 2
    low = stats.beta.ppf(a, k, n - k) if 0 < k < n else (0.0 if k == 0 else stats.beta.ppf(a, k, 1))
    high = stats.beta.ppf(1 - a, k, n - k) if 0 < k < n else (1.0 if k == n else stats.beta.ppf(1 - a, 1, n))
    return np.array([low, high])


def check_exact_interval(student_fn: Callable[[int, int, float], Any], random_state: Any = None) -> None:
    r"""Check ``student_fn(k, n, level)``: the exact two-sided interval of a binomial proportion.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(k, n, level) -> (low, high)``: the Clopper-Pearson interval of
        confidence ``level`` for ``k`` successes out of ``n`` (low = 0 when k = 0,
        high = 1 when k = n), as the chapter's section on the Khan data writes it.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Recognised mistakes: the normal (Wald) interval, the Beta parameters without the
    ``+ 1``, and the whole of ``1 - level`` put in each tail.
    """
    rng, repeat = _seed(random_state)
    cases = [{"k": 20, "n": 20, "level": 0.95}, {"k": 0, "n": 20, "level": 0.95},
             {"k": 15, "n": 20, "level": 0.95}]
    for _ in range(4):
        n = int(rng.integers(5, 200))
        cases.append({"k": int(rng.integers(1, n)), "n": n, "level": float(rng.choice([0.9, 0.95, 0.99]))})
    _run("check_exact_interval", student_fn, cases, _clopper_pearson,
         "the Beta quantiles of the Clopper-Pearson interval", rtol=1e-7, atol=1e-9,
         formula="the exact (Clopper-Pearson) interval of the section on the Khan data (sec-real-khan)",
         mistakes=[("the normal (Wald) interval p ± z sqrt(p (1 - p) / n)", _wald),
                   ("the Beta parameters without the + 1", _no_plus_one),
                   ("the whole of 1 - level in each tail", lambda k, n, level: _clopper_pearson(k, n, 2 * level - 1))],
         repeat=repeat)
