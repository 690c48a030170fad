r"""Answer checks: check a number or a small formula without being shown the answer.

A derivation or experiment exercise that ends in a number or a formula has a
*question* here, registered under the exercise's label. Enter your answer and
the check compares it with the answer computed at the moment of the check, from
the book's reference implementation; it never prints the answer::

    >>> from ensemble_ref.harness.answers import check_answer
    >>> check_answer("ex-oob-subsample", "(1 - 1/N)**m")  # doctest: +SKIP
    ✔ ex-oob-subsample: right (your formula agrees with the answer on 40 random values of N, m).

A wrong answer raises an ``AssertionError`` that says which quantity was asked
for, the tolerance of the comparison, your own value and, when your value is
what a usual mistake gives, which mistake; it never contains the answer.

**Variants.** Most questions have parameters (the size of a data set, an error
rate). Without a seed the parameters are the book's; an instructor can give
every student a seed, and ``variant(label, seed)`` shows that student's values
(``check_answer(label, answer, seed=seed)`` then checks against them). The
coding exercises' self-checks take the same seed as ``random_state``, so a
variant fixes their cases too. ``tools/variants.py`` writes a class's variants
and their answer key.

**Formulas.** A formula answer is a Python expression in the question's
variables, with ``+ - * / **`` (``^`` is read as a power), numbers, parentheses
and the functions ``exp``, ``log`` (natural), ``sqrt``, ``abs``, ``comb`` and the
constants ``e`` and ``pi``. It is compared with the answer at random values of
the variables, so any equivalent form is accepted.
"""

from __future__ import annotations

import ast
import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from scipy import special

__all__ = ["Question", "QUESTIONS", "check_answer", "variant", "answer_key", "describe"]


@dataclass(frozen=True)
class Question:
    """One checkable answer of an exercise.

    Parameters
    ----------
    label : str
        The exercise's label.
    asks : str
        What the answer is, in words, with ``{name}`` placeholders for the parameters.
    book : dict
        The parameters of the book's version.
    answer : callable
        ``answer(**parameters)`` for a number; for a formula,
        ``answer(**parameters, **variables)`` evaluated on arrays of variables.
    draw : callable or None
        ``draw(rng) -> dict``: the parameters of a variant (``None``: no variants).
    variables : dict
        For a formula: each variable's name and the range ``(low, high, integer)``
        its random test values are drawn from. Empty for a number.
    rtol : float
        Relative tolerance of the comparison.
    mistakes : tuple of (str, callable)
        Usual mistakes: a description and the function (same arguments as
        ``answer``) giving the value the mistake produces.
    formula : str
        For a formula question, one right formula (for the answer key).
    """

    label: str
    asks: str
    book: dict
    answer: Callable[..., Any]
    draw: Callable[[np.random.Generator], dict] | None = None
    variables: dict = field(default_factory=dict)
    rtol: float = 1e-3
    mistakes: tuple = ()
    formula: str = ""


def _p_oob(N):
    return (1.0 - 1.0 / N) ** N


QUESTIONS: dict[str, Question] = {}


def _register(q: Question) -> None:
    QUESTIONS[q.label] = q


# --- chapter 1 ---------------------------------------------------------------------------------
_register(Question(
    "ex-intro-majority-bound",
    "the largest possible error of the majority vote of three classifiers that each err "
    "with probability {eps}",
    book={"eps": 0.23},
    answer=lambda eps: min(1.5 * eps, 1.0),
    draw=lambda rng: {"eps": round(float(rng.uniform(0.05, 0.45)), 3)},
    mistakes=(("the error of independent classifiers, 3 eps^2 - 2 eps^3",
               lambda eps: 3 * eps**2 - 2 * eps**3),
              ("the members' own error eps", lambda eps: eps),
              ("3 eps, the union bound without the factor 1/2", lambda eps: min(3 * eps, 1.0))),
))

# --- chapter 2 ---------------------------------------------------------------------------------
_VAR_F = 0.5 - 2 / math.pi + 1 / 3  # the variance of sin(2 pi X) + 2X, X uniform on [0, 1]
_register(Question(
    "ex-bv-mean",
    "the variance of the mean predictor at any x, for N = {N} training points and noise "
    "standard deviation sigma = {sigma}",
    book={"N": 40, "sigma": 0.35},
    answer=lambda N, sigma: (_VAR_F + sigma**2) / N,
    draw=lambda rng: {"N": int(rng.integers(10, 200)),
                      "sigma": round(float(rng.uniform(0.1, 1.0)), 2)},
    mistakes=(("sigma^2 / N, the noise alone", lambda N, sigma: sigma**2 / N),
              ("Var f(X) / N, without the noise", lambda N, sigma: _VAR_F / N),
              ("a variance with E f(X)^2 in place of Var f(X)",
               lambda N, sigma: (_VAR_F + 1 + sigma**2) / N)),
))

# --- chapter 3 ---------------------------------------------------------------------------------
_register(Question(
    "ex-crowds-three",
    "the accuracy p in (1/2, 1) at which the gain p^2 (3 - 2p) - p of three voters is largest",
    book={},
    answer=lambda: 0.5 + math.sqrt(3) / 6,
    rtol=1e-4,
    mistakes=(("the accuracy where the majority's accuracy is largest (p = 1)", lambda: 1.0),
              ("3/4, the middle of (1/2, 1)", lambda: 0.75)),
))


def _hoeffding_T(p, delta):
    return math.log(1 / delta) / (2 * (p - 0.5) ** 2)


_register(Question(
    "ex-crowds-hoeffding",
    "the (real) number of independent voters of accuracy p = {p} beyond which Hoeffding's "
    "bound guarantees a majority error of at most {delta}",
    book={"p": 0.62, "delta": 0.02},
    answer=_hoeffding_T,
    draw=lambda rng: {"p": round(float(rng.uniform(0.55, 0.8)), 3),
                      "delta": float(rng.choice([0.01, 0.02, 0.05, 0.1]))},
    mistakes=(("the crowd size the bound eq-condorcet-bound requires",
               lambda p, delta: 2 * math.log(2 * delta) / math.log(1 - 4 * (p - 0.5) ** 2)),
              ("ln(1/delta) / (p - 1/2)^2, without the factor 2",
               lambda p, delta: math.log(1 / delta) / (p - 0.5) ** 2)),
))

# --- chapter 3b --------------------------------------------------------------------------------


def _gini(c):
    c = np.asarray(c, dtype=float)
    return 1.0 - np.sum((c / c.sum()) ** 2)


def _gini_decrease(left0, left1, right0, right1):
    left, right = np.array([left0, left1]), np.array([right0, right1])
    node = left + right
    W, WL, WR = node.sum(), left.sum(), right.sum()
    return float(_gini(node) - WL / W * _gini(left) - WR / W * _gini(right))


def _draw_split(rng):
    while True:
        c = {k: int(v) for k, v in zip(("left0", "left1", "right0", "right1"),
                                       rng.integers(1, 30, 4))}
        if _gini_decrease(**c) > 1e-3:
            return c


_register(Question(
    "ex-tree-gini-concave",
    "the Gini decrease of the split of a node into a left child with class counts "
    "({left0}, {left1}) and a right child with class counts ({right0}, {right1})",
    book={"left0": 17, "left1": 4, "right0": 6, "right1": 13},
    answer=_gini_decrease,
    draw=_draw_split,
    mistakes=(("the unweighted decrease i(t) - (i(L) + i(R))/2",
               lambda left0, left1, right0, right1: float(
                   _gini([left0 + right0, left1 + right1])
                   - (_gini([left0, left1]) + _gini([right0, right1])) / 2)),),
))

# --- chapter 4 ---------------------------------------------------------------------------------
_register(Question(
    "ex-oob-subsample",
    "the probability that a given point is out of bag when m points are drawn with "
    "replacement from N (a formula in N and m)",
    book={},
    answer=lambda N, m: (1.0 - 1.0 / N) ** m,
    variables={"N": (2, 500, True), "m": (1, 800, True)},
    rtol=1e-9,
    formula="(1 - 1/N)**m",
    mistakes=(("the limit exp(-m/N)", lambda N, m: np.exp(-m / N)),
              ("(1 - 1/N)^N, the full bootstrap", lambda N, m: (1.0 - 1.0 / N) ** N),
              ("(1 - m/N), drawing without replacement", lambda N, m: 1.0 - m / N)),
))
_register(Question(
    "ex-oob-enough-members",
    "the number of members M = ln N / (-ln(1 - P_N)) (a real number) beyond which the expected "
    "number of points without an out-of-bag member is at most one, for N = {N}",
    book={"N": 200},
    answer=lambda N: math.log(N) / -math.log(1 - _p_oob(N)),
    draw=lambda rng: {"N": int(rng.integers(50, 5000))},
    rtol=2e-4,
    mistakes=(("the limiting constant, ln N / (-ln(1 - 1/e))",
               lambda N: math.log(N) / -math.log(1 - math.exp(-1))),
              ("ln N / P_N", lambda N: math.log(N) / _p_oob(N))),
))

# --- chapter 5 ---------------------------------------------------------------------------------


def _p_blind(d, k, m):
    return math.comb(d - k, m) / math.comb(d, m)


_register(Question(
    "ex-rf-per-tree",
    "the probability that every one of the s = {s} internal nodes of a tree is blind when the "
    "m = {m} candidates are drawn anew at every split, from d = {d} features of which k = {k} "
    "are informative",
    book={"d": 12, "k": 2, "m": 3, "s": 15},
    answer=lambda d, k, m, s: _p_blind(d, k, m) ** s,
    draw=lambda rng: {"d": int(rng.integers(10, 30)), "k": int(rng.integers(1, 4)),
                      "m": int(rng.integers(2, 5)), "s": int(rng.integers(3, 16))},
    mistakes=(("the per-tree probability P_blind", lambda d, k, m, s: _p_blind(d, k, m)),
               ("(1 - k/d)^(m s), drawing with replacement",
                lambda d, k, m, s: (1 - k / d) ** (m * s))),
))

# --- chapter 6 ---------------------------------------------------------------------------------


def _weighted_vote_accuracy(a1, a2, a3, a4, a5):
    a = np.array([a1, a2, a3, a4, a5])
    w = np.log(a / (1 - a))
    right = (np.arange(32)[:, None] >> np.arange(5)) & 1  # every pattern of right members
    prob = np.prod(np.where(right == 1, a, 1 - a), axis=1)
    score = (np.where(right == 1, 1.0, -1.0) * w).sum(axis=1)
    return float(prob[score > 0].sum() + 0.5 * prob[score == 0].sum())


def _unweighted_accuracy(a1, a2, a3, a4, a5):
    a = np.array([a1, a2, a3, a4, a5])
    right = (np.arange(32)[:, None] >> np.arange(5)) & 1
    prob = np.prod(np.where(right == 1, a, 1 - a), axis=1)
    return float(prob[right.sum(axis=1) >= 3].sum())


def _draw_accuracies(rng):
    """Five accuracies, decreasing, none of which dictates the weighted vote alone."""
    while True:
        a = np.round(np.sort(rng.uniform(0.55, 0.9, 5))[::-1], 2)
        w = np.log(a / (1 - a))
        if w[0] < w[1:].sum() - 0.05:
            return dict(zip(("a1", "a2", "a3", "a4", "a5"), a.tolist()))


_register(Question(
    "ex-vote-weights",
    "the accuracy of the log-odds weighted vote of five independent members right with "
    "probabilities ({a1}, {a2}, {a3}, {a4}, {a5})",
    book={"a1": 0.8, "a2": 0.7, "a3": 0.7, "a4": 0.6, "a5": 0.6},
    answer=_weighted_vote_accuracy,
    draw=_draw_accuracies,
    rtol=1e-4,
    mistakes=(("the unweighted majority's accuracy", _unweighted_accuracy),
              ("the best member's accuracy", lambda a1, a2, a3, a4, a5: max(a1, a2, a3, a4, a5))),
))

# --- chapter 7 ---------------------------------------------------------------------------------
_register(Question(
    "ex-adaboost-rounds",
    "the number of rounds ln N / (2 gamma^2) (a real number) beyond which AdaBoost's training "
    "error is zero, for N = {N} points and weak learners of edge at least gamma = {gamma}",
    book={"N": 350, "gamma": 0.07},
    answer=lambda N, gamma: math.log(N) / (2 * gamma**2),
    draw=lambda rng: {"N": int(rng.integers(100, 5000)),
                      "gamma": round(float(rng.uniform(0.03, 0.2)), 3)},
    mistakes=(("ln N / gamma^2, without the factor 2", lambda N, gamma: math.log(N) / gamma**2),
              ("ln N / (2 gamma), gamma not squared", lambda N, gamma: math.log(N) / (2 * gamma))),
))
_register(Question(
    "ex-adaboost-samme",
    "the SAMME step beta* of eq-samme-beta for K = {K} classes and weighted error "
    "epsilon = {eps}",
    book={"K": 4, "eps": 0.41},
    answer=lambda K, eps: (K - 1) ** 2 / K * (math.log((1 - eps) / eps) + math.log(K - 1)),
    draw=lambda rng: {"K": int(rng.integers(3, 8)), "eps": round(float(rng.uniform(0.2, 0.6)), 3)},
    mistakes=(("the vote of AdaBoostClassifier, (1/2)[ln((1 - eps)/eps) + ln(K - 1)]",
               lambda K, eps: 0.5 * (math.log((1 - eps) / eps) + math.log(K - 1))),
              ("the two-class step, without ln(K - 1)",
               lambda K, eps: (K - 1) ** 2 / K * math.log((1 - eps) / eps))),
))

# --- chapter 8 ---------------------------------------------------------------------------------
_register(Question(
    "ex-gb-linear-ols",
    "the fraction of the least-squares correction y_OLS - y_bar that boosting lines with "
    "learning rate nu = {nu} has made after M = {M} stages",
    book={"nu": 0.15, "M": 7},
    answer=lambda nu, M: 1 - (1 - nu) ** M,
    draw=lambda rng: {"nu": round(float(rng.uniform(0.05, 0.5)), 2), "M": int(rng.integers(2, 30))},
    mistakes=(("M nu, the stages added without compounding", lambda nu, M: M * nu),
              ("(1 - nu)^M, the part that remains", lambda nu, M: (1 - nu) ** M)),
))

# --- chapter 9 ---------------------------------------------------------------------------------
_register(Question(
    "ex-xgb-shrunken-mean",
    "the optimal weight of a leaf of the half squared error with n = {n} points whose residuals "
    "have mean {rbar}, for lambda = {lam}",
    book={"n": 13, "rbar": 0.74, "lam": 2.5},
    answer=lambda n, rbar, lam: n / (n + lam) * rbar,
    draw=lambda rng: {"n": int(rng.integers(2, 60)), "rbar": round(float(rng.normal()), 2),
                      "lam": round(float(rng.uniform(0.5, 10)), 1)},
    mistakes=(("the mean residual, without the shrinkage", lambda n, rbar, lam: rbar),
              ("-n rbar / (n + lambda), the sign of the gradient",
               lambda n, rbar, lam: -n / (n + lam) * rbar),
              ("rbar / (1 + lambda), lambda not divided among the points",
               lambda n, rbar, lam: rbar / (1 + lam))),
))


# --- chapter 9b --------------------------------------------------------------------------------


def _goss_factor(N, a, b):
    from ..math.sampling import goss_counts

    return goss_counts(N, a, b)[2]


def _draw_goss(rng):
    while True:
        p = {"N": int(rng.integers(20, 200)), "a": float(rng.choice([0.1, 0.15, 0.2, 0.3])),
             "b": float(rng.choice([0.05, 0.1, 0.15, 0.2]))}
        if abs(_goss_factor(**p) - (1 - p["a"]) / p["b"]) > 0.01 * _goss_factor(**p):
            return p


_register(Question(
    "ex-modern-goss-proof",
    "the factor M/m that makes GOSS unbiased for N = {N} rows, a = {a} and b = {b}",
    book={"N": 43, "a": 0.2, "b": 0.15},
    answer=_goss_factor,
    draw=_draw_goss,
    rtol=1e-6,
    mistakes=(("(1 - a)/b, which is M/m only when aN and bN are integers",
               lambda N, a, b: (1 - a) / b),
              ("b/(1 - a), the inverted factor", lambda N, a, b: b / (1 - a))),
))

# --- chapter 10 --------------------------------------------------------------------------------
_register(Question(
    "ex-moe-constant-gate",
    "the gate's M-step weight pi_1 of the first expert when the responsibilities of the first "
    "expert over N = {N} inputs add up to {r1}",
    book={"N": 37, "r1": 11.3},
    answer=lambda N, r1: r1 / N,
    draw=lambda rng: {"N": int(rng.integers(20, 400)), "r1": round(float(rng.uniform(2, 15)), 2)},
    mistakes=(("the sum of the responsibilities, not divided by N", lambda N, r1: r1),),
))

# --- chapter 11 --------------------------------------------------------------------------------
_register(Question(
    "ex-scale-workers",
    "the number of workers K* at which building the histograms of a level takes as long as "
    "its ring all-reduce, for N = {N} rows, B = {B} bins, m = {m} node(s) and a = c",
    book={"N": 10**8, "B": 256, "m": 1},
    answer=lambda N, B, m: N / (4 * B * m),
    draw=lambda rng: {"N": int(10 ** rng.integers(6, 10)),
                      "B": int(rng.choice([32, 64, 128, 256])), "m": int(2 ** rng.integers(0, 8))},
    rtol=1e-3,
    mistakes=(("N / (2 B m), the all-reduce without the ring's factor 2 (K - 1)/K",
               lambda N, B, m: N / (2 * B * m)),
              ("N / (4 B), the root level whatever m", lambda N, B, m: N / (4 * B))),
))


# --- the checks --------------------------------------------------------------------------------

_FUNCTIONS = {"exp": np.exp, "log": np.log, "ln": np.log, "sqrt": np.sqrt, "abs": np.abs,
              "comb": lambda n, k: special.comb(n, k, exact=False)}
_CONSTANTS = {"e": math.e, "pi": math.pi}
_OPS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
        ast.Pow: np.power}


def _parse(text: str, names: tuple[str, ...], label: str) -> ast.Expression:
    if not isinstance(text, str):
        raise TypeError(f"{label}: a formula answer must be a string such as \"(1 - 1/N)**N\", "
                        f"got {type(text).__name__}.")
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"{label}: your formula {text!r} is not a valid expression ({exc.msg}).") \
            from None
    allowed = set(names) | set(_FUNCTIONS) | set(_CONSTANTS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in allowed:
            raise ValueError(f"{label}: your formula uses {node.id!r}; it may use the variables "
                             f"{', '.join(names) or '(none)'} and the functions "
                             f"{', '.join(_FUNCTIONS)}.")
        if not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name,
                                 ast.Call, ast.Load, ast.USub, ast.UAdd, *_OPS)):
            raise ValueError(f"{label}: your formula may only use numbers, the variables, + - * / "
                             f"** and the functions {', '.join(_FUNCTIONS)}; it contains "
                             f"{type(node).__name__}.")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id in _FUNCTIONS and not node.keywords):
            raise ValueError(f"{label}: only the functions {', '.join(_FUNCTIONS)} may be called.")
    return tree


def _evaluate(node: ast.AST, values: dict) -> Any:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, values)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ValueError(f"the formula contains {node.value!r}, which is not a number.")
        return float(node.value)
    if isinstance(node, ast.Name):
        return values[node.id] if node.id in values else _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp):
        x = _evaluate(node.operand, values)
        return -x if isinstance(node.op, ast.USub) else x
    if isinstance(node, ast.BinOp):
        return _OPS[type(node.op)](_evaluate(node.left, values), _evaluate(node.right, values))
    if isinstance(node, ast.Call):
        return _FUNCTIONS[node.func.id](*[_evaluate(a, values) for a in node.args])
    raise ValueError(f"unexpected {type(node).__name__}")  # pragma: no cover - _parse refuses it


def _question(label: str) -> Question:
    if label not in QUESTIONS:
        raise KeyError(f"no answer check is registered for {label!r}; the exercises with one are "
                       f"{', '.join(sorted(QUESTIONS))}.")
    return QUESTIONS[label]


def _variant_rng(label: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), zlib.crc32(label.encode())])


def variant(label: str, seed: int | None = None) -> dict:
    """The parameters of an exercise: the book's (``seed=None``) or those of a student's seed.

    Parameters
    ----------
    label : str
        The exercise's label, e.g. ``"ex-oob-enough-members"``.
    seed : int or None
        The seed an instructor gave you, or ``None`` for the book's values.

    Returns
    -------
    dict
        The parameters by name (empty for a question without parameters).
    """
    q = _question(label)
    if seed is None or q.draw is None:
        return dict(q.book)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be a non-negative int or None, got {seed!r}.")
    return q.draw(_variant_rng(label, int(seed)))


def describe(label: str, seed: int | None = None) -> str:
    """What the question asks for, with the parameters of the variant filled in."""
    q = _question(label)
    return q.asks.format(**variant(label, seed))


def _fmt_params(params: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in params.items())


def _close(a: Any, b: Any, rtol: float) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(np.isfinite(a)) and np.all(np.abs(a - b) <= rtol * np.abs(b) + 1e-12))


def check_answer(label: str, answer: Any, seed: int | None = None) -> None:
    """Check your answer to an exercise, without being shown the right one.

    Parameters
    ----------
    label : str
        The exercise's label (shown under its title), e.g. ``"ex-bv-mean"``.
    answer : number or str
        A number (or a string such as ``"3/8"``) for a numeric question; a
        formula in the question's variables, as a string, for a formula question.
    seed : int or None
        Your variant's seed, if an instructor gave you one; ``None`` for the
        values printed in the book.

    Raises
    ------
    AssertionError
        When the answer is wrong: the message says what was asked, how the
        comparison was made and your value, and names a usual mistake when your
        value matches one. It never contains the right answer.
    """
    q = _question(label)
    params = variant(label, seed)
    for_whom = f" (variant of seed {seed}: {_fmt_params(params)})" if seed is not None and q.draw \
        else (f" ({_fmt_params(params)})" if params else "")
    if not q.variables:
        if isinstance(answer, str):
            tree = _parse(answer, (), label)
            try:
                with np.errstate(all="ignore"):
                    value = float(_evaluate(tree, {}))
            except (ValueError, TypeError, ZeroDivisionError) as exc:
                raise ValueError(f"{label}: your answer {answer!r} cannot be evaluated ({exc}).") \
                    from None
        else:
            try:
                value = float(np.asarray(answer, dtype=float).reshape(()))
            except (TypeError, ValueError):
                raise TypeError(f"{label}: the answer must be a single number or a string such as "
                                f"\"3/8\", got {answer!r}.") from None
        with np.errstate(all="ignore"):
            right = float(q.answer(**params))
        if _close(value, right, q.rtol):
            print(f"\u2714 {label}: right, your answer {value:.6g} agrees with the answer computed "
                  f"now to a relative tolerance of {q.rtol:g}{for_whom}.")
            return
        hint = ""
        for description, wrong in q.mistakes:
            with np.errstate(all="ignore"):
                w = float(wrong(**params))
            if _close(value, w, q.rtol) and not _close(w, right, q.rtol):
                hint = f"\n  your value is what {description} gives."
                break
        raise AssertionError(
            f"\u2718 {label}: your answer {value:.6g} is not {q.asks.format(**params)}.\n"
            f"  The check computed the answer now from ensemble_ref and compared it with yours to a "
            f"relative tolerance of {q.rtol:g}{for_whom}; it does not show the answer.{hint}")
    # a formula: compare at random values of the variables
    names = tuple(q.variables)
    tree = _parse(answer, names, label)
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    values = {}
    for name, (low, high, integer) in q.variables.items():
        values[name] = (rng.integers(low, high + 1, 40).astype(float) if integer
                        else rng.uniform(low, high, 40))
    try:
        with np.errstate(all="ignore"):
            got = np.broadcast_to(np.asarray(_evaluate(tree, values), dtype=float), (40,))
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        raise ValueError(f"{label}: your formula {answer!r} cannot be evaluated ({exc}).") from None
    with np.errstate(all="ignore"):
        right = np.asarray(q.answer(**params, **values), dtype=float)
    ok = np.isfinite(got) & (np.abs(got - right) <= q.rtol * np.abs(right) + 1e-12)
    if ok.all():
        print(f"\u2714 {label}: right, your formula agrees with the answer on 40 random values of "
              f"{', '.join(names)}.")
        return
    first = int(np.flatnonzero(~ok)[0])
    at = ", ".join(f"{n} = {values[n][first]:g}" for n in names)
    hint = ""
    for description, wrong in q.mistakes:
        with np.errstate(all="ignore"):
            w = np.asarray(wrong(**params, **values), dtype=float)
        if _close(got, w, q.rtol) and not _close(w, right, q.rtol):
            hint = f"\n  your formula is {description}."
            break
    raise AssertionError(
        f"\u2718 {label}: your formula {answer!r} is not {q.asks.format(**params)}.\n"
        f"  It was compared with the answer at 40 random values of {', '.join(names)}; at {at} "
        f"yours gives {got[first]:.6g}, which differs by more than a relative {q.rtol:g}. The check "
        f"does not show the answer.{hint}")


def answer_key(label: str, seed: int | None = None) -> Any:
    """The answer of a variant, for an instructor's answer key: a number, or a right formula.

    Never used by the checks' messages.
    """
    q = _question(label)
    if q.variables:
        return q.formula
    return float(q.answer(**variant(label, seed)))
