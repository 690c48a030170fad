"""The answers of the answer checks, for instructors: not shipped with the book's runtime.

``ensembles_verified.question_bank`` holds what a check needs (the question, its
parameters, the precision, the hints); the answers and the usual mistakes live
here, in the repository's tooling, and reach the runtime only as slow, salted
digests of their rounded values (``python -m tools.answer_digests``). For every
question: the function that computes the answer from the book's formulas, the
functions that compute what each usual mistake gives (keyed as the question's
hints), and, for a formula question, one right formula.

``answer_key(label, seed)`` is the answer of a variant (a number, or a right
formula); ``python -m tools.variants`` writes a class's answer key with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ensembles_verified.question_bank import QUESTIONS

__all__ = ["ANSWERS", "Answer", "answer_key", "answer_value", "mistake_values"]


@dataclass(frozen=True)
class Answer:
    """The answer of one question: ``answer(**parameters)`` (for a formula,
    ``answer(**parameters, **variables)`` on arrays), the usual mistakes by hint key
    (same arguments) and, for a formula, one right formula."""

    answer: Callable[..., Any]
    mistakes: dict = field(default_factory=dict)
    formula: str = ""


def _p_oob(N):
    return (1.0 - 1.0 / N) ** N


def _gini(c):
    c = np.asarray(c, dtype=float)
    return 1.0 - np.sum((c / c.sum()) ** 2)


def _gini_decrease(left0, left1, right0, right1):
    left, right = np.array([left0, left1]), np.array([right0, right1])
    node = left + right
    W, WL, WR = node.sum(), left.sum(), right.sum()
    return float(_gini(node) - WL / W * _gini(left) - WR / W * _gini(right))


def _split_ends(n0, n1, W_L):
    """The Gini decreases of the two extreme splits of sizes (W_L, n0 + n1 - W_L): as many points
    of class 1 sent left as possible, and as few."""
    most, fewest = min(n1, W_L), max(0, W_L - n0)
    return [_gini_decrease(W_L - x, x, n0 - W_L + x, n1 - x) for x in (most, fewest)]


def _p_blind(d, k, m):
    return math.comb(d - k, m) / math.comb(d, m)


def _useful_at_most(p, s, j):
    """At most j of s independent nodes not blind, each blind with probability p."""
    return sum(math.comb(s, i) * (1 - p) ** i * p ** (s - i) for i in range(j + 1))


def _samme_factor(K, eps, nu):
    """The SAMME loss after the step nu beta* relative to the loss before it (K = 2: AdaBoost)."""
    beta = nu * (K - 1) ** 2 / K * math.log((1 - eps) * (K - 1) / eps)
    return (1 - eps) * math.exp(-beta / (K - 1)) + eps * math.exp(beta / (K - 1) ** 2)


def _odds_threshold(odds):
    """The accuracy whose odds are ``odds``."""
    return float(odds / (1 + odds))


def _goss_sd(N, a, b, c):
    """The sd of GOSS's estimate of the full sum (k of the n rows outside the top sampled,
    gradients +c and -c), and what three usual mistakes give: draws with replacement, rows
    kept independently, the sample's sum without the factor."""
    from ensemble_ref.math.sampling import goss_counts

    top_k, k, factor = goss_counts(N, a, b)
    n = N - top_k
    fpc = (n - k) / (n - 1)
    return (factor * c * math.sqrt(k * fpc), factor * c * math.sqrt(k),
            c * math.sqrt(n * (n - k) / k), c * math.sqrt(k * fpc))


def _em_step(y1, y2, y3, y4, m1, m2, pi1):
    """The responsibilities of expert 1 for the four targets, with the gate as prior and
    without it (the experts: constants m1 and m2, variance 1)."""
    y = np.array([y1, y2, y3, y4])
    d1, d2 = np.exp(-0.5 * (y - m1) ** 2), np.exp(-0.5 * (y - m2) ** 2)
    return pi1 * d1 / (pi1 * d1 + (1 - pi1) * d2), d1 / (d1 + d2)


def _grid_gap(M, p):
    """The smallest variance of shares on the grid k/M with mean p: (p - a)(b - p), a and b the
    grid's neighbours of p (chapter 13)."""
    a = math.floor(M * p + 1e-12) / M
    return (p - a) * (a + 1 / M - p)


_VAR_F = 0.5 - 2 / math.pi + 1 / 3  # the variance of sin(2 pi X) + 2X, X uniform on [0, 1]

ANSWERS: dict[str, Answer] = {
    "ex-intro-majority-bound": Answer(
        lambda eps1, eps2, eps3: min((eps1 + eps2 + eps3) / 2, eps1 + eps2 + eps3 - max(eps1, eps2, eps3)),
        {"markov": lambda eps1, eps2, eps3: (eps1 + eps2 + eps3) / 2,
         "independent": lambda eps1, eps2, eps3: (eps1 * eps2 + eps1 * eps3 + eps2 * eps3
                                                  - 2 * eps1 * eps2 * eps3),
         "worst-member": lambda eps1, eps2, eps3: max(eps1, eps2, eps3),
         "union": lambda eps1, eps2, eps3: min(eps1 + eps2 + eps3, 1.0)}),
    "ex-bv-mean": Answer(
        lambda N, sigma: (_VAR_F + sigma**2) * (1 + 1 / N),
        {"variance-only": lambda N, sigma: (_VAR_F + sigma**2) / N,
         "no-noise": lambda N, sigma: _VAR_F + (_VAR_F + sigma**2) / N,
         "no-bias": lambda N, sigma: sigma**2 + (_VAR_F + sigma**2) / N}),
    "ex-crowds-three": Answer(
        lambda: 0.5 + math.sqrt(3) / 6, {"p-one": lambda: 1.0, "middle": lambda: 0.75}),
    "ex-crowds-hoeffding": Answer(
        lambda delta: math.log(1 / delta) / math.log(1 / (2 * delta)),
        {"same": lambda delta: 1.0,
         "inverted": lambda delta: math.log(1 / (2 * delta)) / math.log(1 / delta),
         "no-two": lambda delta: 2 * math.log(1 / delta) / math.log(1 / (2 * delta))}),
    "ex-tree-gini-concave": Answer(
        lambda n0, n1, W_L: max(_split_ends(n0, n1, W_L)),
        {"other-end": lambda n0, n1, W_L: min(_split_ends(n0, n1, W_L)),
         "pure": lambda n0, n1, W_L: float(_gini([n0, n1]))}),
    "ex-oob-subsample": Answer(
        lambda N, n: (1.0 - 1.0 / N) ** n,
        {"limit": lambda N, n: np.exp(-n / N), "full-bootstrap": lambda N, n: (1.0 - 1.0 / N) ** N,
         "no-replacement": lambda N, n: 1.0 - n / N},
        formula="(1 - 1/N)**n"),
    "ex-pasting-size": Answer(
        lambda N, n: math.log(1 - n / N) / math.log(1 - 1 / N),
        {"limit": lambda N, n: -N * math.log(1 - n / N), "same-size": lambda N, n: float(n),
         "in-for-out": lambda N, n: math.log(n / N) / math.log(1 - 1 / N)}),
    "ex-oob-enough-members": Answer(
        lambda N, n: math.log(N) / math.log(N / n),
        {"bootstrap": lambda N, n: math.log(N) / -math.log(1 - _p_oob(N)),
         "in-for-out": lambda N, n: math.log(N) / -math.log(1 - n / N),
         "no-log": lambda N, n: math.log(N) / (1 - n / N)}),
    "ex-rf-per-tree": Answer(
        lambda d, k, m, s, j: _useful_at_most(_p_blind(d, k, m), s, j),
        {"per-tree": lambda d, k, m, s, j: _p_blind(d, k, m),
         "all-blind": lambda d, k, m, s, j: _p_blind(d, k, m) ** s,
         "exactly": lambda d, k, m, s, j: (math.comb(s, j) * (1 - _p_blind(d, k, m)) ** j
                                           * _p_blind(d, k, m) ** (s - j)),
         "replacement": lambda d, k, m, s, j: _useful_at_most((1 - k / d) ** m, s, j)}),
    "ex-vote-three": Answer(
        lambda q1: (1.5 - q1) ** 2 / 2 - 0.25 + (q1 - 0.5) ** 2,
        {"one-way": lambda q1: (q1 - 0.5) ** 2 / 2,
         "whole-triangle": lambda q1: (1.5 - q1) ** 2 / 2 + (q1 - 0.5) ** 2 / 2,
         "three-uniform": lambda q1: 1 / 8}),
    "ex-vote-weights": Answer(
        lambda **a: _odds_threshold(np.prod([x / (1 - x) for x in a.values()])),
        {"largest-other": lambda **a: max(a.values()),
         "odds-sum": lambda **a: _odds_threshold(sum(x / (1 - x) for x in a.values()))}),
    "ex-adaboost-rounds": Answer(
        lambda n_plus, n_minus, gamma: math.log(2 * max(n_plus, n_minus)) / (2 * gamma**2),
        {"uniform": lambda n_plus, n_minus, gamma: math.log(n_plus + n_minus) / (2 * gamma**2),
         "heavier": lambda n_plus, n_minus, gamma: math.log(2 * min(n_plus, n_minus)) / (2 * gamma**2),
         "no-two": lambda n_plus, n_minus, gamma: math.log(2 * max(n_plus, n_minus)) / gamma**2}),
    "ex-adaboost-samme": Answer(
        lambda K, eps, nu: _samme_factor(K, eps, nu),
        {"no-shrink": lambda K, eps, nu: _samme_factor(K, eps, 1.0),
         "power": lambda K, eps, nu: _samme_factor(K, eps, 1.0) ** nu,
         "chord": lambda K, eps, nu: 1 - nu + nu * _samme_factor(K, eps, 1.0),
         "two-class": lambda K, eps, nu: _samme_factor(2, eps, nu)}),
    "ex-gb-linear-ols": Answer(
        lambda nu, q: math.log(q) / (2 * math.log(1 - nu)),
        {"not-squared": lambda nu, q: math.log(q) / math.log(1 - nu),
         "small-nu": lambda nu, q: math.log(1 / q) / (2 * nu)}),
    "ex-xgb-shrunken-mean": Answer(
        lambda n1, v, r1, n2, r2, lam: (v * n1 * r1 + n2 * r2) / (v * n1 + n2 + lam),
        {"unweighted": lambda n1, v, r1, n2, r2, lam: (n1 * r1 + n2 * r2) / (n1 + n2 + lam),
         "weights-in-G-only": lambda n1, v, r1, n2, r2, lam: (v * n1 * r1 + n2 * r2) / (n1 + n2 + lam),
         "no-shrink": lambda n1, v, r1, n2, r2, lam: (v * n1 * r1 + n2 * r2) / (v * n1 + n2),
         "sign": lambda n1, v, r1, n2, r2, lam: -(v * n1 * r1 + n2 * r2) / (v * n1 + n2 + lam)}),
    "ex-modern-goss-proof": Answer(
        lambda N, a, b, c: _goss_sd(N, a, b, c)[0],
        {"replacement": lambda N, a, b, c: _goss_sd(N, a, b, c)[1],
         "bernoulli": lambda N, a, b, c: _goss_sd(N, a, b, c)[2],
         "no-factor": lambda N, a, b, c: _goss_sd(N, a, b, c)[3],
         "variance": lambda N, a, b, c: _goss_sd(N, a, b, c)[0] ** 2}),
    "ex-moe-constant-gate": Answer(
        lambda **p: float(np.mean(_em_step(**p)[0])),
        {"no-prior": lambda **p: float(np.mean(_em_step(**p)[1])),
         "hard": lambda **p: float(np.mean(_em_step(**p)[0] > 0.5)),
         "not-divided": lambda **p: float(np.sum(_em_step(**p)[0]))}),
    "ex-moe-balance-proof": Answer(
        lambda: 7 / 8,
        {"agree": lambda: 1.0, "example": lambda: 2 * (0.6 * 0.6 * 0.55 + 0.4 * (0.6 * 0.45 + 0.4)),
         "share-bound": lambda: 0.5, "no-factor": lambda: 7 / 16}),
    "ex-div-kw": Answer(
        lambda M, p: 2 * M / (M - 1) * (p * (1 - p) - _grid_gap(M, p)),
        {"uncapped": lambda M, p: 2 * M / (M - 1) * p * (1 - p),
         "no-factor": lambda M, p: 2 * (p * (1 - p) - _grid_gap(M, p))}),
    "ex-scale-workers": Answer(
        lambda N, B, C: math.log2(N / (4 * B * (C - 1))),
        {"limit": lambda N, B, C: math.log2(N / (4 * B * C)),
         "no-ring": lambda N, B, C: math.log2(N / (2 * B * C)),
         "no-hessian": lambda N, B, C: math.log2(N / (2 * B * (C - 1))),
         "nodes-so-far": lambda N, B, C: math.log2(N / (4 * B * (C - 1)) + 1) - 1}),
}


def answer_value(label: str, params: dict, values: dict | None = None) -> Any:
    """The answer at the parameters (and, for a formula, at the variables' values)."""
    with np.errstate(all="ignore"):
        return ANSWERS[label].answer(**params, **(values or {}))


def mistake_values(label: str, params: dict, values: dict | None = None) -> dict:
    """What each usual mistake gives at the parameters (``None`` where it cannot be evaluated)."""
    out = {}
    for key, fn in ANSWERS[label].mistakes.items():
        try:
            with np.errstate(all="ignore"):
                out[key] = fn(**params, **(values or {}))
        except (ValueError, ZeroDivisionError, OverflowError):
            out[key] = None
    return out


def answer_key(label: str, seed: int | None = None) -> Any:
    """The answer of a variant: a number, or one right formula for a formula question."""
    from ensembles_verified.answers import variant

    if QUESTIONS[label].variables:
        return ANSWERS[label].formula
    return float(answer_value(label, variant(label, seed)))
