"""Self-checks of the chapters on why ensembles work, crowds and voting (see :mod:`ensembles_verified.selfcheck`)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .engine import _grid, _run, _seed

__all__ = ["check_majority_vote", "check_ambiguity", "check_bias_variance", "check_condorcet",
           "check_condorcet_bound", "check_soft_vote", "check_log_odds_weights"]


# --- why ensembles work (chapters 1 and 2) ------------------------------------------------


def _votes_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"votes": np.array([[1, -1, 1], [1, 1, -1], [-1, 1, -1]], dtype=float)},
             {"votes": np.array([[1.0, -1.0]])}]
    for _ in range(12):
        M = 2 * int(rng.integers(1, 8)) + 1
        n = int(rng.integers(1, 12))
        cases.append({"votes": rng.choice(np.array([-1.0, 1.0]), size=(M, n))})
    return cases


def check_majority_vote(student_fn: Callable[[np.ndarray], np.ndarray], random_state: Any = None
                        ) -> None:
    r"""Check ``student_fn(votes)``: the majority vote of an odd number of classifiers.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(votes) -> ndarray`` for ``votes`` of shape (M, n) holding
        the labels :math:`h_m(x_i) \in \{-1, +1\}` of ``M`` (odd) members on ``n``
        points: the ensemble's label :math:`\operatorname{sign}\sum_m h_m(x_i)`
        for every point, shape (n,).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    Reference: the hard vote of equation ``eq-ensemble`` (unweighted), as
    :func:`ensemble_ref.math.aggregation.one_hot_votes` counts it.
    """
    rng, repeat = _seed(random_state)

    def reference(votes):
        return np.where(votes.sum(axis=0) > 0, 1.0, -1.0)

    _run("check_majority_vote", student_fn, _votes_cases(rng), reference,
         "ensemble_ref: the sign of the sum of the votes",
         formula="eq-ensemble, H(x) = sign(sum_t h_t(x)) for labels -1, +1",
         mistakes=[("the vote of the first member alone", lambda votes: votes[0]),
                   ("the mean vote, not its sign", lambda votes: votes.mean(axis=0)),
                   ("the sum over the points instead of over the members (the wrong axis)",
                    lambda votes: np.sign(votes.sum(axis=1)))],
         repeat=repeat)


def _spread_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"h": np.array([[1.0, 2.0], [1.0, 2.0]])},            # identical members: no spread
             {"h": np.array([[0.0, 1.0, -1.0], [2.0, 1.0, 1.0], [1.0, 1.0, 0.0]])}]
    for _ in range(12):
        M, n = int(rng.integers(2, 9)), int(rng.integers(1, 10))
        cases.append({"h": rng.normal(scale=rng.uniform(0.1, 3), size=(M, n))})
    return cases


def check_ambiguity(student_fn: Callable[[np.ndarray], np.ndarray], random_state: Any = None
                    ) -> None:
    r"""Check ``student_fn(h)``: the ambiguity of the members of an average.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(h) -> ndarray`` for ``h`` of shape (M, n), the predictions
        :math:`h_m(x_i)` of ``M`` regressors on ``n`` points: the ambiguity
        :math:`\frac1M\sum_m (h_m(x_i) - H(x_i))^2` at every point, with
        :math:`H` the average of the members (shape (n,)).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: the ambiguity term of exercise ``ex-intro-ambiguity`` (the
    members' average squared error minus the ensemble's). Recognised mistakes:
    the divisor ``M - 1`` and the spread around zero instead of around ``H``.
    """
    rng, repeat = _seed(random_state)
    _run("check_ambiguity", student_fn, _spread_cases(rng),
         lambda h: ((h - h.mean(axis=0)) ** 2).mean(axis=0),
         "ensemble_ref: the mean squared distance of the members to their average",
         formula="ambiguity (1/M) sum_m (h_m(x) - H(x))^2, H = (1/M) sum_m h_m (eq-ensemble)",
         mistakes=[("the sample variance with divisor M - 1", lambda h: h.var(axis=0, ddof=1)),
                   ("the mean of the squares, without subtracting H",
                    lambda h: (h ** 2).mean(axis=0)),
                   ("the spread over the points instead of over the members (axis=1)",
                    lambda h: h.var(axis=1))],
         repeat=repeat)


def _bv_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for _ in range(10):
        R, n = int(rng.integers(2, 40)), int(rng.integers(1, 15))
        f = rng.normal(size=n)
        bias = rng.normal(scale=rng.uniform(0, 1), size=n)
        cases.append({"predictions": f + bias + rng.normal(scale=rng.uniform(0.05, 2), size=(R, n)),
                      "f_test": f})
    return cases


def check_bias_variance(student_fn: Callable[[np.ndarray, np.ndarray], Any],
                        random_state: Any = None) -> None:
    r"""Check ``student_fn(predictions, f_test)``: unbiased estimates of bias² and variance.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(predictions, f_test) -> (bias2, variance)`` for the
        predictions of shape (R, n) of ``R`` independently trained predictors at
        ``n`` test points and the regression function ``f_test`` (shape (n,)):
        the two estimates averaged over the test points, with the sample
        variance :math:`s^2(x)` (divisor ``R - 1``) and the corrected bias
        :math:`(\bar f_R(x) - f(x))^2 - s^2(x)/R`.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.bias_variance.decompose_predictions`
    (equations ``eq-bv-decomposition`` and ``eq-bv-bias-correction``).
    Recognised mistakes: the plug-in bias without the correction and the
    variance with divisor ``R``.
    """
    from ensemble_ref import decompose_predictions

    rng, repeat = _seed(random_state)

    def reference(predictions, f_test):
        d = decompose_predictions(predictions, f_test, 0.0)
        return np.array([d.bias2, d.variance])

    def plug_in(predictions, f_test):
        return np.array([np.mean((predictions.mean(axis=0) - f_test) ** 2),
                         np.mean(predictions.var(axis=0, ddof=1))])

    def biased_var(predictions, f_test):
        R = predictions.shape[0]
        s2 = predictions.var(axis=0)
        return np.array([np.mean((predictions.mean(axis=0) - f_test) ** 2 - s2 / R), s2.mean()])

    _run("check_bias_variance", student_fn, _bv_cases(rng), reference,
         "ensemble_ref.math.bias_variance.decompose_predictions",
         formula="eq-bv-bias-correction: bias2 = mean_x[(fbar_R - f)^2 - s^2/R], "
                 "variance = mean_x s^2 (divisor R - 1)",
         rtol=1e-8, atol=1e-12,
         mistakes=[("the plug-in bias, without the correction for the noise of the estimated mean", plug_in),
                   ("the variance with divisor R instead of R - 1", biased_var)],
         repeat=repeat)


# --- voting --------------------------------------------------------------------------------


def check_condorcet(student_fn: Callable[[float, int], float], random_state: Any = None) -> None:
    r"""Check ``student_fn(p, M)``: the error of a majority of independent voters.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p, M) -> float`` for an **odd** number of voters ``M``, each
        correct independently with probability ``p``: the probability that the
        majority vote is wrong (fewer than ``M/2`` voters correct).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.crowds.majority_error` (equation ``eq-condorcet-exact``),
    for voters better and worse than a coin and crowds of 1 to 101.
    """
    from math import comb

    from ensemble_ref import majority_error

    rng, repeat = _seed(random_state)
    cases = _grid(p=(0.55, 0.9, 0.45), M=(1, 3, 11, 101))
    cases += [{"p": float(rng.uniform(0.3, 0.95)), "M": 2 * int(rng.integers(0, 30)) + 1}
              for _ in range(8)]

    def at_most_half(p, M):
        return sum(comb(M, t) * p**t * (1 - p) ** (M - t) for t in range(M + 1) if 2 * t <= M + 1)

    _run("check_condorcet", student_fn, cases, lambda p, M: majority_error(p, M),
         "ensemble_ref.majority_error",
         formula="eq-condorcet-exact, sum over k < M/2 of C(M, k) p^k (1 - p)^(M - k)",
         rtol=1e-8, atol=1e-15,
         mistakes=[("the majority's accuracy, not its error",
                    lambda p, M: 1 - majority_error(p, M)),
                   ("a sum that also counts k = (M + 1)/2 correct votes as an error", at_most_half),
                   ("the error of one voter", lambda p, M: 1 - p)],
         repeat=repeat)


def check_condorcet_bound(student_fn: Callable[[float, int], float], random_state: Any = None
                          ) -> None:
    r"""Check ``student_fn(p, M)``: the Chernoff bound on the error of an independent majority.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p, M) -> float`` for ``1/2 <= p <= 1`` and ``M >= 1``: the bound
        :math:`\tfrac12 (1 - 4\gamma^2)^{M/2}` with :math:`\gamma = p - \tfrac12`.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.crowds.condorcet_bound` (equation
    ``eq-condorcet-bound``). Recognised mistakes: Hoeffding's weaker
    :math:`e^{-2M\gamma^2}`, the bound without its factor 1/2, and the exponent
    :math:`M` in place of :math:`M/2`.
    """
    from ensemble_ref import condorcet_bound

    rng, repeat = _seed(random_state)
    cases = [{"p": p, "M": M} for p, M in [(0.5, 7), (1.0, 3), (0.6, 1), (0.7, 25)]]
    cases += [{"p": float(rng.uniform(0.5, 1.0)), "M": int(rng.integers(1, 200))} for _ in range(10)]
    _run("check_condorcet_bound", student_fn, cases, lambda p, M: condorcet_bound(p, M),
         "ensemble_ref.math.crowds.condorcet_bound",
         formula="eq-condorcet-bound, (1/2) (1 - 4 gamma^2)^(M/2) with gamma = p - 1/2",
         rtol=1e-9, atol=1e-15,
         mistakes=[("Hoeffding's bound, not this one", lambda p, M: np.exp(-2 * M * (p - 0.5) ** 2)),
                   ("the bound without its factor 1/2",
                    lambda p, M: (1 - 4 * (p - 0.5) ** 2) ** (M / 2)),
                   ("an exponent twice too large",
                    lambda p, M: 0.5 * (1 - 4 * (p - 0.5) ** 2) ** M)],
         repeat=repeat)


def _soft_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for _ in range(10):
        M, n, K = int(rng.integers(1, 7)), int(rng.integers(1, 10)), int(rng.integers(2, 5))
        P = rng.dirichlet(np.full(K, 0.7), size=(M, n))
        cases.append({"probas": P, "weights": rng.uniform(0.1, 3.0, M)})
    return cases


def check_soft_vote(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                    random_state: Any = None) -> None:
    r"""Check ``student_fn(probas, weights)``: the weighted soft vote.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(probas, weights) -> ndarray`` of shape (n, K), for ``probas``
        of shape (M, n, K) (member ``m``'s class probabilities at point ``i``)
        and positive ``weights`` of shape (M,): the weighted average of the
        members' probabilities, :math:`\sum_m w_m p_m(x) / \sum_m w_m`.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: equation ``eq-soft-vote`` (``numpy.average`` over the members).
    Recognised mistakes: the weights not normalised, the weights ignored, and
    the average over the points instead of the members.
    """
    rng, repeat = _seed(random_state)
    _run("check_soft_vote", student_fn, _soft_cases(rng),
         lambda probas, weights: np.average(probas, axis=0, weights=weights),
         "ensemble_ref: numpy.average(probas, axis=0, weights=weights)",
         formula="eq-soft-vote, sum_m w_m p_m(x) / sum_m w_m",
         mistakes=[("the weighted sum, not normalised by the total weight",
                    lambda probas, weights: np.tensordot(weights, probas, axes=1)),
                   ("the unweighted average of the members",
                    lambda probas, weights: probas.mean(axis=0))],
         repeat=repeat)


def check_log_odds_weights(student_fn: Callable[[np.ndarray], np.ndarray],
                           random_state: Any = None) -> None:
    r"""Check ``student_fn(p)``: the optimal voting weights of independent voters.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p) -> ndarray``, for the accuracies ``p`` (shape (M,), in
        (0, 1)) of independent two-class voters: the weights
        :math:`w_t = \ln\frac{p_t}{1 - p_t}` of the weighted majority that is
        most often right.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: the log-odds weights of exercise ``ex-vote-weights``
    (equation ``eq-hard-vote`` with these weights). Recognised mistakes: the
    accuracies themselves, the odds without the logarithm, and the inverted ratio.
    """
    rng, repeat = _seed(random_state)
    cases = [{"p": np.array([0.5, 0.9])}, {"p": np.array([0.6, 0.6, 0.6])}]
    cases += [{"p": rng.uniform(0.3, 0.99, int(rng.integers(1, 9)))} for _ in range(10)]
    _run("check_log_odds_weights", student_fn, cases, lambda p: np.log(p / (1 - p)),
         "ensemble_ref: the log-odds ln(p / (1 - p))",
         formula="the optimal weights w_t = ln(p_t / (1 - p_t)) for eq-hard-vote",
         mistakes=[("the accuracies p_t themselves", lambda p: p),
                   ("the odds, without the logarithm", lambda p: p / (1 - p)),
                   ("the ratio inside the logarithm inverted", lambda p: np.log((1 - p) / p))],
         repeat=repeat)
