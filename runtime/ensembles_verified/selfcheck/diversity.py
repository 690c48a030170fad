r"""Self-checks for the coding exercises of the chapter *Diversity, selection and uncertainty*.

Each check calls your function on random cases drawn from a seeded generator
(another ``random_state`` gives other cases, ``None`` new ones on every call) and
on a few edge cases, and compares every answer with the formula of the chapter as
implemented in :mod:`ensemble_ref.math.diversity` and
:mod:`ensemble_ref.math.uncertainty`. When all cases agree it prints one line
starting with ``✔``; at the first disagreement it raises an ``AssertionError``
that shows the case, names the formula (by its equation in the chapter), shows
the expected answer and yours, and, when your answer matches a usual mistake,
says which.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ensemble_ref.math.diversity import q_statistic
from ensemble_ref.math.uncertainty import conformal_quantile

from .engine import _run, _seed

__all__ = ["check_q_statistic", "check_conformal_quantile"]


def _q_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n in (8, 30, 200):
        while True:  # two members with every kind of pair present, so Q is defined
            a, b = (rng.random((2, n)) < rng.uniform(0.5, 0.9, size=(2, 1))).astype(int)
            if len({(u, v) for u, v in zip(a, b)}) == 4:
                break
        cases.append({"right_1": a, "right_2": b})
    cases.append({"right_1": np.array([1, 1, 0, 0, 1, 0]), "right_2": np.array([1, 1, 0, 0, 0, 1])})
    return cases


def _q(a, b, product=True):
    n11, n00 = np.sum(a * b), np.sum((1 - a) * (1 - b))
    n10, n01 = np.sum(a * (1 - b)), np.sum((1 - a) * b)
    return (n11 * n00 - n01 * n10) / (n11 * n00 + n01 * n10) if product else \
        (n11 + n00 - n01 - n10) / (n11 + n00 + n01 + n10)


def check_q_statistic(student_fn: Callable[[np.ndarray, np.ndarray], float], random_state: Any = 0) -> None:
    r"""Check ``student_fn(right_1, right_2)``: Yule's Q statistic of two members.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(right_1, right_2) -> float``, where ``right_m[i]`` is 1 when member
        ``m`` is right on point ``i`` and 0 otherwise. It returns
        :math:`(N^{11}N^{00} - N^{01}N^{10}) / (N^{11}N^{00} + N^{01}N^{10})`.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.diversity.q_statistic` (equation ``eq-div-q``).
    Recognised mistakes: the share of agreements minus the share of disagreements
    (sums in place of products), and the sign of the discordant product flipped in the numerator.
    """
    rng, repeat = _seed(random_state)
    _run("check_q_statistic", student_fn, _q_cases(rng),
         lambda right_1, right_2: q_statistic(np.vstack([right_1, right_2]))[0, 1],
         "ensemble_ref.math.diversity.q_statistic",
         formula="Q = (N11 N00 - N01 N10) / (N11 N00 + N01 N10) (eq-div-q)",
         mistakes=[("agreements minus disagreements: sums of the counts where products belong",
                    lambda right_1, right_2: _q(right_1, right_2, product=False)),
                   ("the sign of the discordant product in the numerator",
                    lambda right_1, right_2: 1.0)],
         repeat=repeat, single=True)


def _quantile_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"scores": rng.exponential(size=n), "delta": delta}
             for n, delta in [(19, 0.1), (9, 0.2), (50, 0.05), (99, 0.1), (7, 0.3)]]
    cases.append({"scores": np.arange(1.0, 10.0), "delta": 0.5})       # rank exactly 5
    cases.append({"scores": rng.exponential(size=5), "delta": 0.2})    # rank ceil(4.8) = 5 = n: the largest
    return cases


def check_conformal_quantile(student_fn: Callable[[np.ndarray, float], float], random_state: Any = 0) -> None:
    r"""Check ``student_fn(scores, delta)``: the conformal quantile of split conformal prediction.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(scores, delta) -> float``: the :math:`\lceil (1-\delta)(n+1) \rceil`-th smallest of
        the ``n`` scores (the cases keep that rank at most ``n``; above it the answer is ``numpy.inf``).
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.uncertainty.conformal_quantile` (equation
    ``eq-unc-quantile``). Recognised mistakes: numpy's empirical quantile of the
    ``n`` scores (``np.quantile(scores, 1 - delta)``), and the rank :math:`\lceil (1-\delta) n \rceil`.
    """
    rng, repeat = _seed(random_state)

    def rank_n(scores, delta):
        return float(np.sort(scores)[int(np.ceil((1 - delta) * len(scores))) - 1])

    _run("check_conformal_quantile", student_fn, _quantile_cases(rng), conformal_quantile,
         "ensemble_ref.math.uncertainty.conformal_quantile",
         formula="the ceil((1 - delta)(n + 1))-th smallest score, inf if that rank exceeds n (eq-unc-quantile)",
         mistakes=[("numpy's quantile of the n scores, without the finite-sample correction",
                    lambda scores, delta: float(np.quantile(scores, 1 - delta))),
                   ("a rank that leaves out the test point's place", rank_n)],
         repeat=repeat, single=True)
