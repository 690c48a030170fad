r"""Self-checks for the book's coding exercises.

A coding exercise asks for a small function (the out-of-bag probability, an
AdaBoost weight update, an XGBoost leaf weight, ...). Pass your function to the
matching check: it is called on fixed cases and its answers are compared with the
reference implementation in ``ensemble_ref``. When every case agrees, the check
prints one line starting with ``✔``; otherwise it raises an ``AssertionError``
that shows the call, the expected value and the value received::

    >>> from ensemble_ref.selfcheck import check_oob_fraction
    >>> def oob_fraction(N):
    ...     return (1 - 1 / N) ** N
    >>> check_oob_fraction(oob_fraction)
    ✔ check_oob_fraction: your function agrees with ensemble_ref.oob_fraction_exact on all 8 cases.

Each check documents the signature it calls. Arrays are passed as fresh copies,
so a function that modifies its arguments in place does not change the cases.
Two answers agree when ``|received - expected| <= atol + rtol * |expected|``
elementwise (with the shapes equal); the tolerances allow for a different but
correct order of floating-point operations, nothing more.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

__all__ = [
    "check_majority_vote",
    "check_ambiguity",
    "check_bias_variance",
    "check_oob_prediction",
    "check_informative_count_pmf",
    "check_condorcet_bound",
    "check_soft_vote",
    "check_log_odds_weights",
    "check_gradient_histogram",
    "check_histogram_gains",
    "check_oob_fraction",
    "check_condorcet",
    "check_variance_of_average",
    "check_prob_no_informative",
    "check_gini_impurity",
    "check_adaboost_alpha",
    "check_adaboost_weight_update",
    "check_loss_gradient",
    "check_loss_hessian",
    "check_newton_leaf_value",
    "check_weighted_median",
    "check_leaf_weight",
    "check_split_gain",
]


# --- the engine ---------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        x = arr.item()
        if not isinstance(x, float):
            return repr(x)
        text = f"{x:.12g}"
        return text if any(c in text for c in ".eni") else text + ".0"
    with np.printoptions(precision=10, threshold=20, linewidth=100):
        return np.array2string(arr, separator=", ")


def _call_text(kwargs: dict) -> str:
    return "your_function(" + ", ".join(f"{k}={_fmt(v)}" for k, v in kwargs.items()) + ")"


def _fresh(kwargs: dict) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}


def _check_callable(student_fn: Any, n_args: int, name: str) -> None:
    if not callable(student_fn):
        raise TypeError(f"{name} expects your function itself (a callable), got "
                        f"{type(student_fn).__name__}; pass the name without parentheses.")
    try:
        signature = inspect.signature(student_fn)
    except (TypeError, ValueError):  # builtins without a signature: let the call decide
        return
    try:
        signature.bind(*range(n_args))
    except TypeError:
        shown = getattr(student_fn, '__name__', 'your_function')
        raise TypeError(f"{name} calls your function with {n_args} positional argument(s), "
                        f"but its signature is {shown}{signature}.") from None


def _seed(random_state: Any) -> tuple[np.random.Generator, str]:
    """The generator of the random cases, and how to draw the same cases again.

    ``None`` draws a fresh seed (new cases on every call); an integer, such as
    the seed of a student's variant, gives the same cases every time.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state, "the same generator state repeats these cases"
    if random_state is None:
        random_state = int(np.random.SeedSequence().entropy % 2**31)
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)) \
            or random_state < 0:
        raise TypeError("random_state must be None, a non-negative int or a numpy.random.Generator, "
                        f"got {random_state!r}.")
    seed = int(random_state)
    return np.random.default_rng(seed), f"random_state={seed} repeats these cases"


def _matches(got: np.ndarray, value: Any, rtol: float, atol: float) -> bool:
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return v.shape == got.shape and bool(np.all(np.abs(got - v) <= atol + rtol * np.abs(v)))


def _run(name: str, student_fn: Callable, cases: Sequence[dict], reference: Callable,
         reference_name: str, *, formula: str = "", rtol: float = 1e-9, atol: float = 1e-12,
         mistakes: Sequence[tuple[str, Callable]] = (), repeat: str = "") -> None:
    """Call ``student_fn(**case)`` (positionally) and ``reference(**case)`` on every case.

    A failure names the case, the formula (``formula``, by its equation label),
    the expected value and the value received, and, when the value received is
    what one of ``mistakes`` (pairs of a description and a function of the same
    arguments) gives, that mistake.
    """
    _check_callable(student_fn, len(cases[0]), name)
    tail = f"\n  ({repeat})" if repeat else ""
    rule = f"\n  formula: {formula}" if formula else ""
    for number, case in enumerate(cases, start=1):
        where = f"{name}: case {number} of {len(cases)}, {_call_text(case)}{rule}"
        expected = np.asarray(reference(**_fresh(case)), dtype=float)
        try:
            received = student_fn(*_fresh(case).values())
        except Exception as exc:  # the student's error, reported with the case that caused it
            raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}{tail}") from exc
        if received is None:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  received: None "
                                 f"(does your function return its result?){tail}")
        try:
            got = np.asarray(received)
        except (TypeError, ValueError):  # ragged sequences
            got = np.asarray(None)
        if got.dtype.kind not in "biuf":
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  received: "
                                 f"{received!r}, which is not a number or an array of numbers{tail}")
        got = got.astype(float)
        if got.shape != expected.shape:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)} (shape "
                                 f"{expected.shape})\n  received: {_fmt(got)} (shape {got.shape})"
                                 f"{tail}")
        same_nan = np.isnan(expected) & np.isnan(got)
        ok = same_nan | (np.isfinite(got) & (np.abs(got - expected) <= atol + rtol * np.abs(expected)))
        if not ok.all():
            detail = ""
            if got.ndim:
                first = int(np.flatnonzero(~ok.ravel())[0])
                detail = (f"\n  first difference at index {first}: expected "
                          f"{expected.ravel()[first]:.12g}, received {got.ravel()[first]:.12g}")
            hint = ""
            for description, wrong in mistakes:
                try:
                    with np.errstate(all="ignore"):
                        value = wrong(**_fresh(case))
                except Exception:  # a mistake that cannot be evaluated on this case
                    continue
                if _matches(got, value, max(rtol, 1e-9), max(atol, 1e-12)) and \
                        not _matches(expected, value, rtol, atol):
                    hint = f"\n  your value is what {description} gives."
                    break
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}   ({reference_name})\n"
                                 f"  received: {_fmt(got)}{detail}\n  tolerance: |received - "
                                 f"expected| <= {atol:g} + {rtol:g} |expected|{hint}{tail}")
    print(f"\u2714 {name}: your function agrees with {reference_name} on all {len(cases)} cases.")


def _grid(**axes: Sequence) -> list[dict]:
    """Every combination of the given values, as keyword dictionaries (in order)."""
    cases = [{}]
    for key, values in axes.items():
        cases = [{**case, key: v} for case in cases for v in values]
    return cases


# --- why ensembles work (chapters 1 and 2) ------------------------------------------------


def _votes_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"votes": np.array([[1, -1, 1], [1, 1, -1], [-1, 1, -1]], dtype=float)},
             {"votes": np.array([[1.0, -1.0]])}]
    for _ in range(12):
        T = 2 * int(rng.integers(1, 8)) + 1
        n = int(rng.integers(1, 12))
        cases.append({"votes": rng.choice(np.array([-1.0, 1.0]), size=(T, n))})
    return cases


def check_majority_vote(student_fn: Callable[[np.ndarray], np.ndarray], random_state: Any = None
                        ) -> None:
    r"""Check ``student_fn(votes)``: the majority vote of an odd number of classifiers.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(votes) -> ndarray`` for ``votes`` of shape (T, n) holding
        the labels :math:`h_t(x_i) \in \{-1, +1\}` of ``T`` (odd) members on ``n``
        points: the ensemble's label :math:`\operatorname{sign}\sum_t h_t(x_i)`
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
                   ("the vote of the last point's column order (votes.sum(axis=1))",
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
    from ..math.bias_variance import decompose_predictions

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
         mistakes=[("the plug-in bias (fbar_R - f)^2 without the correction -s^2/R", plug_in),
                   ("the variance with divisor R instead of R - 1", biased_var)],
         repeat=repeat)


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
    from ..math.bootstrap import oob_fraction_exact

    rng, repeat = _seed(random_state)
    Ns = [2, 3, 4, 10, 100, 100_000] + [int(n) for n in rng.integers(5, 5000, 6)]
    _run("check_oob_fraction", student_fn, [{"N": N} for N in Ns],
         lambda N: oob_fraction_exact(N), "ensemble_ref.oob_fraction_exact",
         formula="eq-oob-exact, (1 - 1/N)^N", rtol=1e-8,
         mistakes=[("the limit e^{-1} (the formula for N -> infinity)", lambda N: np.exp(-1.0)),
                   ("the in-bag probability 1 - (1 - 1/N)^N", lambda N: 1 - (1 - 1 / N) ** N),
                   ("(1 - 1/N)^(N - 1), one draw short", lambda N: (1 - 1 / N) ** (N - 1))],
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
    from ..math.aggregation import oob_aggregate

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
    from ..math.random_subspace import prob_no_informative

    rng, repeat = _seed(random_state)
    triples = [(10, 2, 3), (10, 0, 4), (10, 7, 4), (500, 5, 22), (5, 1, 1), (8, 3, 6)]
    for _ in range(8):
        d = int(rng.integers(2, 80))
        triples.append((d, int(rng.integers(0, d + 1)), int(rng.integers(1, d + 1))))
    cases = [{"d": d, "k": k, "m": m} for d, k, m in triples]
    _run("check_prob_no_informative", student_fn, cases,
         lambda d, k, m: prob_no_informative(d, k, m), "ensemble_ref.prob_no_informative",
         formula="eq-rf-blind, C(d - k, m) / C(d, m)",
         mistakes=[("drawing with replacement, (1 - k/d)^m", lambda d, k, m: (1 - k / d) ** m)],
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

    from ..math.random_subspace import informative_count_pmf

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
    from ..math.bias_variance import variance_of_average

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
         mistakes=[("sigma^2 / M, the formula for independent members",
                    lambda sigma2, rho, M: sigma2 / M),
                   ("rho sigma^2 + sigma^2 / M, without the factor (1 - rho)",
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
    from ..math.impurity import gini_impurity

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
         mistakes=[("1 - sum_k p_k (the square is missing)", lambda counts: 0.0 * counts.sum()),
                   ("the entropy in bits (eq-tree-entropy)",
                    lambda counts: float(-np.sum((q := counts[counts > 0] / counts.sum())
                                                 * np.log2(q))))],
         repeat=repeat)


# --- voting --------------------------------------------------------------------------------


def check_condorcet(student_fn: Callable[[float, int], float], random_state: Any = None) -> None:
    r"""Check ``student_fn(p, T)``: the error of a majority of independent voters.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p, T) -> float`` for an **odd** number of voters ``T``, each
        correct independently with probability ``p``: the probability that the
        majority vote is wrong (fewer than ``T/2`` voters correct).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.crowds.majority_error` (equation ``eq-condorcet-exact``),
    for voters better and worse than a coin and crowds of 1 to 101.
    """
    from math import comb

    from ..math.crowds import majority_error

    rng, repeat = _seed(random_state)
    cases = _grid(p=(0.55, 0.9, 0.45), T=(1, 3, 11, 101))
    cases += [{"p": float(rng.uniform(0.3, 0.95)), "T": 2 * int(rng.integers(0, 30)) + 1}
              for _ in range(8)]

    def at_most_half(p, T):
        return sum(comb(T, t) * p**t * (1 - p) ** (T - t) for t in range(T + 1) if 2 * t <= T + 1)

    _run("check_condorcet", student_fn, cases, lambda p, T: majority_error(p, T),
         "ensemble_ref.majority_error",
         formula="eq-condorcet-exact, sum over t < T/2 of C(T, t) p^t (1 - p)^(T - t)",
         rtol=1e-8, atol=1e-15,
         mistakes=[("the accuracy of the majority, 1 - error",
                    lambda p, T: 1 - majority_error(p, T)),
                   ("a sum that also counts t = (T + 1)/2 correct votes as an error", at_most_half),
                   ("the error of one voter, 1 - p", lambda p, T: 1 - p)],
         repeat=repeat)


def check_condorcet_bound(student_fn: Callable[[float, int], float], random_state: Any = None
                          ) -> None:
    r"""Check ``student_fn(p, T)``: the Chernoff bound on the error of an independent majority.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p, T) -> float`` for ``1/2 <= p <= 1`` and ``T >= 1``: the bound
        :math:`\tfrac12 (1 - 4\epsilon^2)^{T/2}` with :math:`\epsilon = p - \tfrac12`.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.crowds.condorcet_bound` (equation
    ``eq-condorcet-bound``). Recognised mistakes: Hoeffding's weaker
    :math:`e^{-2T\epsilon^2}`, the bound without its factor 1/2, and the exponent
    :math:`T` in place of :math:`T/2`.
    """
    from ..math.crowds import condorcet_bound

    rng, repeat = _seed(random_state)
    cases = [{"p": p, "T": T} for p, T in [(0.5, 7), (1.0, 3), (0.6, 1), (0.7, 25)]]
    cases += [{"p": float(rng.uniform(0.5, 1.0)), "T": int(rng.integers(1, 200))} for _ in range(10)]
    _run("check_condorcet_bound", student_fn, cases, lambda p, T: condorcet_bound(p, T),
         "ensemble_ref.math.crowds.condorcet_bound",
         formula="eq-condorcet-bound, (1/2) (1 - 4 eps^2)^(T/2) with eps = p - 1/2",
         rtol=1e-9, atol=1e-15,
         mistakes=[("Hoeffding's bound exp(-2 T eps^2)", lambda p, T: np.exp(-2 * T * (p - 0.5) ** 2)),
                   ("the bound without its factor 1/2",
                    lambda p, T: (1 - 4 * (p - 0.5) ** 2) ** (T / 2)),
                   ("the exponent T instead of T/2",
                    lambda p, T: 0.5 * (1 - 4 * (p - 0.5) ** 2) ** T)],
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
         mistakes=[("sum_m w_m p_m(x), without dividing by sum_m w_m",
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
        ``student_fn(p) -> ndarray``, for the accuracies ``p`` (shape (T,), in
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
                   ("the odds p_t / (1 - p_t) without the logarithm", lambda p: p / (1 - p)),
                   ("ln((1 - p_t) / p_t), the inverted ratio", lambda p: np.log((1 - p) / p))],
         repeat=repeat)


# --- AdaBoost ------------------------------------------------------------------------------


def check_adaboost_alpha(student_fn: Callable[[float], float], random_state: Any = None) -> None:
    r"""Check ``student_fn(eps)``: AdaBoost's vote for a learner with weighted error ``eps``.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(eps) -> float`` for two classes and ``0 < eps < 1``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.adaboost.adaboost_alpha` with ``n_classes=2``,
    :math:`\alpha = \tfrac12 \ln\frac{1 - \epsilon}{\epsilon}` (equation
    ``eq-adaboost-alpha``); the cases include ``eps = 1/2`` (vote 0) and
    ``eps > 1/2`` (negative vote).
    """
    from ..math.adaboost import adaboost_alpha

    rng, repeat = _seed(random_state)
    values = [0.01, 0.25, 0.5, 0.6, 0.95] + [float(e) for e in rng.uniform(0.01, 0.99, 6)]
    _run("check_adaboost_alpha", student_fn, [{"eps": eps} for eps in values],
         lambda eps: adaboost_alpha(eps), "ensemble_ref.adaboost_alpha",
         formula="eq-adaboost-alpha, (1/2) ln((1 - eps) / eps)",
         mistakes=[("ln((1 - eps) / eps), without the factor 1/2",
                    lambda eps: np.log((1 - eps) / eps)),
                   ("(1/2) ln(eps / (1 - eps)), the inverted ratio",
                    lambda eps: 0.5 * np.log(eps / (1 - eps)))],
         repeat=repeat)


def _weight_update_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    specs = [(6, 0.3, None), (12, 0.6, -0.2)]
    specs += [(int(rng.integers(3, 30)), float(rng.uniform(0.1, 0.5)),
               None if rng.random() < 0.6 else float(rng.normal())) for _ in range(6)]
    for n, p_wrong, alpha in specs:
        w = rng.random(n) + 0.05
        w /= w.sum()  # D_t: a distribution over the training points
        y = rng.choice(np.array([-1.0, 1.0]), size=n)
        wrong = rng.random(n) < p_wrong
        wrong[:2] = [True, False]  # at least one point right and one wrong
        h = np.where(wrong, -y, y)
        if alpha is None:  # the optimal vote for this round's weighted error
            eps = float(w[wrong].sum())
            alpha = 0.5 * np.log((1 - eps) / eps)
        cases.append({"w": w, "y": y, "h": h, "alpha": float(alpha)})
    return cases


def _reweight(w, y, h, alpha):
    w = w * np.exp(-alpha * y * h)
    return w / w.sum()


def check_adaboost_weight_update(student_fn: Callable[..., np.ndarray], random_state: Any = None
                                 ) -> None:
    r"""Check ``student_fn(w, y, h, alpha)``: one round of AdaBoost's reweighting.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(w, y, h, alpha) -> ndarray`` with ``w`` the current weights
        :math:`D_t` (positive, summing to 1), ``y`` the labels and ``h`` the
        weak learner's predictions (arrays of :math:`\pm 1`), and ``alpha`` the
        learner's vote. It returns the next weights
        :math:`D_{t+1}(i) = D_t(i)\, e^{-\alpha y_i h(x_i)} / Z_t`, normalised to sum to 1.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.adaboost.adaboost_weights`, the book's update
    (equations ``eq-adaboost-weights`` and ``eq-adaboost-z``), the function AdaBoost
    itself runs. The cases use the optimal vote and other votes, including a negative one.
    """
    from ..math.adaboost import adaboost_weights

    def reference(w, y, h, alpha):
        return adaboost_weights(w, y, h, alpha)[0]

    rng, repeat = _seed(random_state)
    _run("check_adaboost_weight_update", student_fn, _weight_update_cases(rng), reference,
         "ensemble_ref.math.adaboost.adaboost_weights",
         formula="eq-adaboost-weights, D_t(i) exp(-alpha y_i h(x_i)) / Z_t (eq-adaboost-z)",
         mistakes=[("the update without dividing by Z_t",
                    lambda w, y, h, alpha: w * np.exp(-alpha * y * h)),
                   ("exp(+alpha y_i h(x_i)), the sign flipped: the right points gain",
                    lambda w, y, h, alpha: _reweight(w, y, h, -alpha)),
                   ("exp(-2 alpha y_i h(x_i)): beta = 2 alpha in the place of alpha",
                    lambda w, y, h, alpha: _reweight(w, y, h, 2 * alpha))],
         repeat=repeat)


# --- losses --------------------------------------------------------------------------------


def _loss_cases(loss: str, rng: np.random.Generator) -> list[dict]:
    F = np.array([-30.0, -4.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.5, 30.0])
    if loss in ("log_loss",):
        labels = np.array([0.0, 1.0])
    elif loss == "exponential":
        labels = np.array([-1.0, 1.0])
        F = F[np.abs(F) <= 8]  # e^{30} would dwarf every tolerance
    else:
        labels = np.array([-1.3, 0.0, 2.0])
    cases = [{"y": np.full(F.shape, label), "F": F.copy()} for label in labels]
    for _ in range(4):  # random labels and raw scores
        n = int(rng.integers(1, 12))
        y = rng.choice(labels, size=n) if loss != "squared_error" else rng.normal(size=n)
        cases.append({"y": y.astype(float), "F": rng.normal(scale=3.0, size=n)})
    return cases


_LOSS_FORMULAS = {
    ("log_loss", "gradient"): "eq-loss-logistic: dL/dF = sigmoid(F) - y for L = log(1 + e^F) - yF",
    ("log_loss", "hessian"): "eq-loss-logistic: d2L/dF2 = sigmoid(F) (1 - sigmoid(F))",
    ("squared_error", "gradient"): "eq-loss-squared: dL/dF = F - y for L = (y - F)^2 / 2",
    ("squared_error", "hessian"): "eq-loss-squared: d2L/dF2 = 1",
    ("exponential", "gradient"): "the exponential loss: dL/dF = -y e^{-yF}",
    ("exponential", "hessian"): "the exponential loss: d2L/dF2 = e^{-yF} (y^2 = 1)",
}


def _sigmoid(F):
    return 0.5 * (1 + np.tanh(0.5 * F))


def _check_loss_part(part: str, student_fn: Callable, loss: str, random_state: Any) -> None:
    from ..math.losses import get_loss

    name = f"check_loss_{part}"
    choices = ("squared_error", "log_loss", "exponential")
    if loss not in choices:
        raise ValueError(f"loss must be one of {choices}, got {loss!r}.")
    reference = getattr(get_loss(loss), part)
    mistakes = []
    if part == "gradient":
        mistakes.append(("the negative gradient (the pseudo-residual)",
                         lambda y, F: -reference(y, F)))
        if loss == "log_loss":
            mistakes.append(("sigmoid(F), without the label", lambda y, F: _sigmoid(F)))
    elif loss == "log_loss":
        mistakes += [("1, the squared error's hessian", lambda y, F: np.ones_like(F)),
                     ("sigmoid(F) (1 - y), a hessian that depends on the label",
                      lambda y, F: _sigmoid(F) * (1 - y))]
    rng, repeat = _seed(random_state)
    _run(name, student_fn, _loss_cases(loss, rng), lambda y, F: reference(y, F),
         f"ensemble_ref.math.losses.{reference.__name__}", formula=_LOSS_FORMULAS[loss, part],
         rtol=1e-7, atol=1e-12, mistakes=mistakes, repeat=repeat)


def check_loss_gradient(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                        loss: str = "log_loss", random_state: Any = None) -> None:
    r"""Check ``student_fn(y, F)``: the gradient :math:`\partial L(y, F) / \partial F`.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(y, F) -> ndarray``, vectorised: one value per sample.
    loss : {"log_loss", "squared_error", "exponential"}, default="log_loss"
        The loss, with the conventions of :mod:`ensemble_ref.math.losses`: labels in
        {0, 1} and :math:`L = \log(1 + e^F) - yF` for the log loss; labels
        :math:`\pm 1` and :math:`L = e^{-yF}` for the exponential loss;
        :math:`L = \tfrac12 (y - F)^2` for the squared error.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: the loss's ``gradient`` in :mod:`ensemble_ref.math.losses` (equation
    ``eq-xgb-taylor``), on raw scores from -30 to 30.
    """
    _check_loss_part("gradient", student_fn, loss, random_state)


def check_loss_hessian(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                       loss: str = "log_loss", random_state: Any = None) -> None:
    r"""Check ``student_fn(y, F)``: the hessian :math:`\partial^2 L(y, F) / \partial F^2`.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(y, F) -> ndarray``, vectorised: one value per sample.
    loss : {"log_loss", "squared_error", "exponential"}, default="log_loss"
        As in :func:`check_loss_gradient`.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: the loss's ``hessian`` in :mod:`ensemble_ref.math.losses`.
    """
    _check_loss_part("hessian", student_fn, loss, random_state)


# --- gradient boosting ---------------------------------------------------------------------


def check_newton_leaf_value(student_fn: Callable[[np.ndarray, np.ndarray], float],
                            random_state: Any = None) -> None:
    r"""Check ``student_fn(residual, hessian)``: the Newton step of a gradient-boosting leaf.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(residual, hessian) -> float`` for the negative gradients
        :math:`r_i` and the second derivatives :math:`h_i > 0` of the leaf's samples.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.gradient_boosting.newton_leaf_value`,
    :math:`\sum_i r_i / \sum_i h_i` (equation ``eq-gb-leaf``), on log-loss leaves
    (:math:`r_i = y_i - p_i`, :math:`h_i = p_i(1 - p_i)`) and others.
    """
    from ..math.gradient_boosting import newton_leaf_value

    rng, repeat = _seed(random_state)
    cases = []
    for n in (1, 4, 9, 30) + tuple(int(k) for k in rng.integers(2, 40, 4)):
        p = rng.uniform(0.05, 0.95, n)
        y = (rng.random(n) < 0.6).astype(float)
        cases.append({"residual": y - p, "hessian": p * (1 - p)})  # a log-loss leaf
    cases.append({"residual": np.array([0.5, -1.5, 2.0]), "hessian": np.array([1.0, 1.0, 1.0])})
    _run("check_newton_leaf_value", student_fn, cases,
         lambda residual, hessian: newton_leaf_value(residual, hessian),
         "ensemble_ref.math.gradient_boosting.newton_leaf_value",
         formula="eq-gb-leaf (Newton step), sum_i r_i / sum_i h_i",
         mistakes=[("the mean residual, the first-order (gradient) leaf",
                    lambda residual, hessian: residual.mean()),
                   ("the mean of the per-sample steps r_i / h_i",
                    lambda residual, hessian: np.mean(residual / hessian)),
                   ("-sum_i r_i / sum_i h_i, the sign of the gradient",
                    lambda residual, hessian: -residual.sum() / hessian.sum())],
         repeat=repeat)


def _upper_median(values, weights):
    order = np.argsort(values, kind="stable")
    cdf = np.cumsum(weights[order])
    return float(values[order][np.argmax(cdf > cdf[-1] / 2)])


def check_weighted_median(student_fn: Callable[[np.ndarray, np.ndarray], float],
                          random_state: Any = None) -> None:
    r"""Check ``student_fn(values, weights)``: the lower weighted median.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(values, weights) -> float``: the smallest value whose
        cumulative weight, with the values sorted increasingly, reaches half of
        the total weight (it minimises :math:`\sum_i w_i |v_i - c|`; when the
        minimisers form an interval, it is the interval's left end, as in
        scikit-learn).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.gradient_boosting.weighted_median` (the leaf
    value for the absolute error, equation ``eq-gb-leaf``), with unsorted values,
    repeated values, uniform and skewed weights, and an even number of equal
    weights (where the left end of the interval is required).
    """
    from ..math.gradient_boosting import weighted_median

    rng, repeat = _seed(random_state)
    pairs = [([3, 1, 2], [1, 1, 1]), ([1, 2, 3, 4], [1, 1, 1, 1]), ([1, 2, 3, 4], [1, 1, 1, 5]),
             ([10, 0, 5], [0.2, 0.5, 0.3]), ([2, 2, 7, 1], [1, 3, 1, 1])]
    for _ in range(8):
        n = int(rng.integers(1, 15))
        pairs.append((list(np.round(rng.normal(size=n), 2)), list(rng.integers(1, 5, n))))
    cases = [{"values": np.array(v, dtype=float), "weights": np.array(w, dtype=float)}
             for v, w in pairs]
    _run("check_weighted_median", student_fn, cases,
         lambda values, weights: weighted_median(values, weights),
         "ensemble_ref.math.gradient_boosting.weighted_median",
         formula="eq-gb-leaf (absolute error): the smallest v whose cumulative weight reaches "
                 "half the total",
         mistakes=[("the unweighted median", lambda values, weights: float(np.median(values))),
                   ("the weighted mean", lambda values, weights: float(np.average(values,
                                                                                  weights=weights))),
                   ("the right end of the interval of minimisers (cumulative weight > half)",
                    _upper_median)],
         repeat=repeat)


# --- second-order boosting (XGBoost) -------------------------------------------------------


def check_leaf_weight(student_fn: Callable[[float, float, float], float],
                      random_state: Any = None) -> None:
    r"""Check ``student_fn(G, H, lam)``: the optimal weight of a leaf.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(G, H, lam) -> float``: the weight minimising
        :math:`G w + \tfrac12 (H + \lambda) w^2`, for the sums ``G`` and ``H`` of
        the gradients and hessians in the leaf and the penalty ``lam``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.leaf_weight`,
    :math:`w^* = -G/(H + \lambda)` (equation ``eq-xgb-leaf-weight``), including
    ``lam = 0`` and ``G = 0``.
    """
    from ..math.second_order import leaf_weight

    rng, repeat = _seed(random_state)
    triples = [(-3.0, 2.0, 1.0), (0.0, 3.0, 1.0), (-12.0, 3.0, 0.0), (2.0, 0.25, 5.0)]
    triples += [(float(rng.normal(scale=10)), float(rng.uniform(0.1, 50)), float(rng.uniform(0, 5)))
                for _ in range(8)]
    cases = [{"G": G, "H": H, "lam": lam} for G, H, lam in triples]
    _run("check_leaf_weight", student_fn, cases, lambda G, H, lam: leaf_weight(G, H, lam),
         "ensemble_ref.math.second_order.leaf_weight",
         formula="eq-xgb-leaf-weight, w* = -G / (H + lambda)",
         mistakes=[("-G / H, without lambda", lambda G, H, lam: -G / H),
                   ("G / (H + lambda), the sign flipped", lambda G, H, lam: G / (H + lam))],
         repeat=repeat)


def check_split_gain(student_fn: Callable[..., float], random_state: Any = None) -> None:
    r"""Check ``student_fn(G_L, H_L, G_R, H_R, lam, gamma)``: the gain of a split.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(G_L, H_L, G_R, H_R, lam, gamma) -> float``: the decrease of
        the regularised objective when a leaf is split into a left part (gradient
        and hessian sums ``G_L``, ``H_L``) and a right part (``G_R``, ``H_R``),
        with penalties ``lam`` on the weights and ``gamma`` per leaf.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.split_gain`,
    :math:`\tfrac12\big[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} -
    \frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\big] - \gamma` (equation ``eq-xgb-gain``),
    including splits that do not pay for their ``gamma`` (negative gain).
    """
    from ..math.second_order import split_gain

    def bracket(G_L, H_L, G_R, H_R, lam):
        return 0.5 * (G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam)
                      - (G_L + G_R) ** 2 / (H_L + H_R + lam))

    rng, repeat = _seed(random_state)
    rows = [(-4.0, 3.0, 5.0, 4.0, 1.0, 0.0), (-4.0, 3.0, 5.0, 4.0, 1.0, 0.5),
            (2.0, 1.0, 2.0, 1.0, 1.0, 0.0), (-10.0, 5.0, 1.0, 2.0, 0.0, 0.1)]
    rows += [(float(rng.normal(scale=5)), float(rng.uniform(0.1, 20)), float(rng.normal(scale=5)),
              float(rng.uniform(0.1, 20)), float(rng.uniform(0, 3)), float(rng.uniform(0, 2)))
             for _ in range(8)]
    cases = [{"G_L": a, "H_L": b, "G_R": c, "H_R": d, "lam": lam, "gamma": gamma}
             for a, b, c, d, lam, gamma in rows]
    _run("check_split_gain", student_fn, cases,
         lambda G_L, H_L, G_R, H_R, lam, gamma: split_gain(G_L, H_L, G_R, H_R, lam, gamma),
         "ensemble_ref.math.second_order.split_gain",
         formula="eq-xgb-gain, (1/2)[G_L^2/(H_L + lam) + G_R^2/(H_R + lam) - "
                 "(G_L + G_R)^2/(H_L + H_R + lam)] - gamma",
         mistakes=[("the bracket without the factor 1/2",
                    lambda G_L, H_L, G_R, H_R, lam, gamma: 2 * bracket(G_L, H_L, G_R, H_R, lam)
                    - gamma),
                   ("the gain without gamma",
                    lambda G_L, H_L, G_R, H_R, lam, gamma: bracket(G_L, H_L, G_R, H_R, lam)),
                   ("the gain without lambda",
                    lambda G_L, H_L, G_R, H_R, lam, gamma: bracket(G_L, H_L, G_R, H_R, 0.0)
                    - gamma)],
         repeat=repeat)


# --- ensembles at scale: histograms ----------------------------------------------------------


def _histogram_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"codes": np.array([[0], [1], [1], [2]]), "g": np.array([1.0, -2.0, 0.5, 3.0]),
              "h": np.array([1.0, 1.0, 1.0, 1.0]), "n_bins": 4}]
    for _ in range(8):
        n, d, B = int(rng.integers(1, 40)), int(rng.integers(1, 4)), int(rng.integers(2, 9))
        cases.append({"codes": rng.integers(0, B, (n, d)), "g": rng.normal(size=n),
                      "h": rng.uniform(0.1, 1.0, n), "n_bins": B})
    return cases


def check_gradient_histogram(student_fn: Callable[..., np.ndarray], random_state: Any = None
                             ) -> None:
    r"""Check ``student_fn(codes, g, h, n_bins)``: the gradient histogram of one node.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(codes, g, h, n_bins) -> ndarray`` of shape (d, n_bins, 2), for
        the bin codes ``codes`` (shape (n, d), values in ``0 .. n_bins - 1``) and the
        gradients and hessians ``g``, ``h`` (shape (n,)) of the node's rows:
        ``out[j, b] = (G, H)``, the sums of ``g`` and of ``h`` over the rows whose
        feature ``j`` falls in bin ``b``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.histograms.gradient_histogram` (equation
    ``eq-scale-histogram``) for a single node. Recognised mistakes: counts in the
    place of the hessian sums, and G and H swapped.
    """
    from ..math.histograms import gradient_histogram

    rng, repeat = _seed(random_state)

    def reference(codes, g, h, n_bins):
        return gradient_histogram(codes, g, h, n_bins)[0]

    _run("check_gradient_histogram", student_fn, _histogram_cases(rng), reference,
         "ensemble_ref.math.histograms.gradient_histogram",
         formula="eq-scale-histogram, out[j, b] = (sum of g_i, sum of h_i) over the rows i with "
                 "codes[i, j] == b",
         mistakes=[("the number of rows in the place of the hessian sum",
                    lambda codes, g, h, n_bins: reference(codes, g, np.ones_like(h), n_bins)),
                   ("(H, G): the two sums swapped",
                    lambda codes, g, h, n_bins: reference(codes, g, h, n_bins)[..., ::-1])],
         repeat=repeat)


def _gains(hist, lam, gamma, cumulative=True):
    G, H = hist[:, 0], hist[:, 1]
    GL, HL = (np.cumsum(G)[:-1], np.cumsum(H)[:-1]) if cumulative else (G[:-1], H[:-1])
    GR, HR = G.sum() - GL, H.sum() - HL
    return 0.5 * (GL**2 / (HL + lam) + GR**2 / (HR + lam) - G.sum() ** 2 / (H.sum() + lam)) - gamma


def check_histogram_gains(student_fn: Callable[[np.ndarray, float, float], np.ndarray],
                          random_state: Any = None) -> None:
    r"""Check ``student_fn(hist, lam, gamma)``: the gain of every split of one feature's histogram.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(hist, lam, gamma) -> ndarray`` of shape (n_bins - 1,), for the
        histogram ``hist`` of shape (n_bins, 2) of one feature in one node
        (``hist[b] = (G_b, H_b)``): entry ``b`` is the gain (equation ``eq-xgb-gain``) of the
        split "bins ``0 .. b`` go left, the others right".
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.split_gain` on the cumulative
    sums of the histogram (how :func:`ensemble_ref.math.histograms.best_split` scans
    a feature). Recognised mistakes: a single bin in the place of the cumulative sum,
    and the gain without gamma.
    """
    from ..math.second_order import split_gain

    rng, repeat = _seed(random_state)
    cases = [{"hist": np.array([[1.0, 1.0], [-2.0, 1.0], [3.0, 2.0]]), "lam": 1.0, "gamma": 0.0}]
    for _ in range(8):
        B = int(rng.integers(2, 12))
        hist = np.column_stack([rng.normal(size=B) * 3, rng.uniform(0.1, 5, B)])
        cases.append({"hist": hist, "lam": float(rng.uniform(0, 3)), "gamma": float(rng.uniform(0, 1))})

    def reference(hist, lam, gamma):
        G, H = np.cumsum(hist[:, 0]), np.cumsum(hist[:, 1])
        return np.array([split_gain(G[b], H[b], G[-1] - G[b], H[-1] - H[b], lam, gamma)
                         for b in range(len(hist) - 1)])

    _run("check_histogram_gains", student_fn, cases, reference,
         "ensemble_ref.math.second_order.split_gain on the cumulative sums",
         formula="eq-xgb-gain with G_L, H_L the sums of bins 0..b (cumulative) and G_R = G - G_L, "
                 "H_R = H - H_L",
         mistakes=[("the gain of bin b alone against the rest (no cumulative sum)",
                    lambda hist, lam, gamma: _gains(hist, lam, gamma, cumulative=False)),
                   ("the gain without gamma", lambda hist, lam, gamma: _gains(hist, lam, 0.0))],
         repeat=repeat)
