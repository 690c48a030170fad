"""Self-checks of the chapters on bagging and random forests (see :mod:`ensembles_verified.selfcheck`)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .engine import _run, _seed

__all__ = ["check_oob_fraction", "check_oob_prediction", "check_prob_no_informative",
           "check_informative_count_pmf", "check_variance_of_average", "check_gini_impurity"]


# --- bagging and random forests ----------------------------------------------------------


def check_oob_fraction(student_fn: Callable[[int], float], random_state: Any = None) -> None:
    r"""Check ``student_fn(N)``: the probability that a point is out of bag.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(N) -> float`` for an integer ``N >= 2``: the probability
        that a given point is missing from a bootstrap sample of ``N`` draws
        from ``N`` points.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.bootstrap.oob_fraction_exact`, :math:`(1 - 1/N)^N`
    (equation ``eq-oob-exact``), on ``N`` from 2 to :math:`10^5`.
    """
    from ensemble_ref import oob_fraction_exact

    rng, repeat = _seed(random_state)
    Ns = [2, 3, 4, 10, 100, 100_000] + [int(n) for n in rng.integers(5, 5000, 6)]
    _run("check_oob_fraction", student_fn, [{"N": N} for N in Ns],
         lambda N: oob_fraction_exact(N), "ensemble_ref.oob_fraction_exact",
         formula="eq-oob-exact, (1 - 1/N)^N", rtol=1e-8,
         mistakes=[("the large-N limit, not the value at this N", lambda N: np.exp(-1.0)),
                   ("the in-bag probability, the complement of the one asked", lambda N: 1 - (1 - 1 / N) ** N),
                   ("one draw short", lambda N: (1 - 1 / N) ** (N - 1))],
         repeat=repeat)


def _oob_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"in_bag": np.array([[1, 0, 2], [0, 1, 1]]), "outputs": np.array([[1.0, 2.0, 3.0],
                                                                             [4.0, 5.0, 6.0]])}]
    for _ in range(10):
        T, N = int(rng.integers(1, 12)), int(rng.integers(2, 15))
        in_bag = np.stack([np.bincount(rng.integers(0, N, N), minlength=N) for _ in range(T)])
        cases.append({"in_bag": in_bag, "outputs": rng.normal(size=(T, N))})
    return cases


def check_oob_prediction(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                         random_state: Any = None) -> None:
    r"""Check ``student_fn(in_bag, outputs)``: the out-of-bag prediction of every training point.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(in_bag, outputs) -> ndarray`` of shape (N,), for ``in_bag``
        of shape (T, N) (how many copies of point ``i`` member ``t`` drew) and
        ``outputs`` of shape (T, N) (member ``t``'s prediction at point ``i``):
        the average of the outputs of the members for which the point is out of
        bag, and ``nan`` for a point that every member drew.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.aggregation.oob_aggregate` (equation
    ``eq-oob-estimate``). Recognised mistakes: the average over all members,
    the average over the members that drew the point, and 0 in place of nan.
    """
    from ensemble_ref import oob_aggregate

    rng, repeat = _seed(random_state)

    def in_bag_mean(in_bag, outputs):
        w = (in_bag > 0).astype(float)
        with np.errstate(all="ignore"):
            return (w * outputs).sum(axis=0) / w.sum(axis=0)

    def zero_for_none(in_bag, outputs):
        return np.nan_to_num(oob_aggregate(in_bag, outputs)[0], nan=0.0)

    _run("check_oob_prediction", student_fn, _oob_cases(rng),
         lambda in_bag, outputs: oob_aggregate(in_bag, outputs)[0],
         "ensemble_ref.math.aggregation.oob_aggregate",
         formula="eq-oob-estimate, the mean of f_t(x_i) over the members t with in_bag[t, i] == 0 "
                 "(nan when there is none)",
         mistakes=[("the average over all members (the bagged prediction)",
                    lambda in_bag, outputs: outputs.mean(axis=0)),
                   ("the average over the members that drew the point", in_bag_mean),
                   ("0 instead of nan for a point no member left out", zero_for_none)],
         repeat=repeat)


def check_prob_no_informative(student_fn: Callable[[int, int, int], float],
                              random_state: Any = None) -> None:
    r"""Check ``student_fn(d, k, m)``: the probability that a random feature subset is blind.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(d, k, m) -> float``: the probability that ``m`` features
        drawn without replacement from ``d``, of which ``k`` are informative,
        contain no informative feature.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.random_subspace.prob_no_informative`,
    :math:`\binom{d-k}{m}/\binom{d}{m}` (equation ``eq-rf-blind``), including
    the edge cases ``k = 0`` (probability 1) and ``m > d - k`` (probability 0).
    """
    from ensemble_ref import prob_no_informative

    rng, repeat = _seed(random_state)
    triples = [(10, 2, 3), (10, 0, 4), (10, 7, 4), (500, 5, 22), (5, 1, 1), (8, 3, 6)]
    for _ in range(8):
        d = int(rng.integers(2, 80))
        triples.append((d, int(rng.integers(0, d + 1)), int(rng.integers(1, d + 1))))
    cases = [{"d": d, "k": k, "m": m} for d, k, m in triples]
    _run("check_prob_no_informative", student_fn, cases,
         lambda d, k, m: prob_no_informative(d, k, m), "ensemble_ref.prob_no_informative",
         formula="eq-rf-blind, C(d - k, m) / C(d, m)",
         mistakes=[("drawing the candidates with replacement", lambda d, k, m: (1 - k / d) ** m)],
         repeat=repeat)


def check_informative_count_pmf(student_fn: Callable[[int, int, int], np.ndarray],
                                random_state: Any = None) -> None:
    r"""Check ``student_fn(d, k, m)``: the distribution of the number of informative candidates.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(d, k, m) -> ndarray`` of shape ``(min(k, m) + 1,)``: entry
        ``j`` is the probability that exactly ``j`` of ``m`` features drawn
        without replacement from ``d``, ``k`` of them informative, are informative.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.random_subspace.informative_count_pmf`, the
    hypergeometric law :math:`\binom{k}{j}\binom{d-k}{m-j}/\binom{d}{m}` (entry 0 is
    equation ``eq-rf-blind``). Recognised mistake: the binomial law of drawing with
    replacement.
    """
    from math import comb

    from ensemble_ref import informative_count_pmf

    rng, repeat = _seed(random_state)
    triples = [(10, 2, 3), (10, 0, 4), (6, 6, 2), (20, 5, 4)]
    for _ in range(8):
        d = int(rng.integers(2, 60))
        triples.append((d, int(rng.integers(0, d + 1)), int(rng.integers(1, d + 1))))

    def binomial(d, k, m):
        q = k / d
        return np.array([comb(m, j) * q**j * (1 - q) ** (m - j) for j in range(min(k, m) + 1)])

    _run("check_informative_count_pmf", student_fn, [{"d": d, "k": k, "m": m} for d, k, m in triples],
         lambda d, k, m: informative_count_pmf(d, k, m),
         "ensemble_ref.math.random_subspace.informative_count_pmf",
         formula="the hypergeometric law C(k, j) C(d - k, m - j) / C(d, m), j = 0..min(k, m) "
                 "(entry 0: eq-rf-blind)",
         mistakes=[("the binomial law (drawing with replacement)", binomial)], repeat=repeat)


def check_variance_of_average(student_fn: Callable[[float, float, int], float],
                              random_state: Any = None) -> None:
    r"""Check ``student_fn(sigma2, rho, M)``: the variance of an average of correlated predictors.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(sigma2, rho, M) -> float``: the variance of the average of
        ``M`` predictors, each of variance ``sigma2``, with pairwise correlation
        ``rho``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.bias_variance.variance_of_average`,
    :math:`\rho\sigma^2 + (1 - \rho)\sigma^2/M` (equation ``eq-var-average``),
    including ``M = 1``, ``rho = 0``, ``rho = 1`` and a negative correlation.
    """
    from ensemble_ref import variance_of_average

    rng, repeat = _seed(random_state)
    triples = [(1.0, 0.0, 10), (1.0, 1.0, 10), (2.5, 0.3, 1), (4.0, -0.2, 5), (1.0, 0.5, 2)]
    for _ in range(8):
        M = int(rng.integers(1, 200))
        triples.append((float(rng.uniform(0.1, 5)), float(rng.uniform(0, 1)), M))
    cases = [{"sigma2": s2, "rho": rho, "M": M} for s2, rho, M in triples]
    _run("check_variance_of_average", student_fn, cases,
         lambda sigma2, rho, M: variance_of_average(sigma2, rho, M),
         "ensemble_ref.variance_of_average",
         formula="eq-var-average, rho sigma^2 + (1 - rho) sigma^2 / M",
         mistakes=[("the variance of an average of independent members (the correlation left out)",
                    lambda sigma2, rho, M: sigma2 / M),
                   ("the averaged part counted whole, not only its uncorrelated share",
                    lambda sigma2, rho, M: rho * sigma2 + sigma2 / M)],
         repeat=repeat)


def check_gini_impurity(student_fn: Callable[[np.ndarray], float], random_state: Any = None
                        ) -> None:
    r"""Check ``student_fn(counts)``: the Gini impurity of a node.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(counts) -> float`` for a 1-D array of the (possibly weighted)
        numbers of points of each class in the node.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.impurity.gini_impurity`,
    :math:`1 - \sum_k p_k^2` with :math:`p_k = c_k / \sum_j c_j` (equation
    ``eq-tree-gini``), for pure, balanced, multi-class and weighted nodes.
    """
    from ensemble_ref.math.impurity import gini_impurity

    rng, repeat = _seed(random_state)
    counts = [[5, 5], [10, 0], [7], [3, 3, 3], [0.5, 1.5], [0, 4, 0, 12]]
    for _ in range(8):
        c = rng.integers(0, 20, int(rng.integers(2, 6))).astype(float)
        c[0] += 1
        counts.append(list(c))
    counts.append(list(rng.uniform(0.1, 2.0, 3)))
    cases = [{"counts": np.array(c, dtype=float)} for c in counts]
    _run("check_gini_impurity", student_fn, cases, lambda counts: gini_impurity(counts),
         "ensemble_ref.math.impurity.gini_impurity",
         formula="eq-tree-gini, 1 - sum_k p_k^2 with p_k = c_k / sum_j c_j",
         mistakes=[("the proportions not squared", lambda counts: 0.0 * counts.sum()),
                   ("the entropy in bits (eq-tree-entropy)",
                    lambda counts: float(-np.sum((q := counts[counts > 0] / counts.sum())
                                                 * np.log2(q))))],
         repeat=repeat)
