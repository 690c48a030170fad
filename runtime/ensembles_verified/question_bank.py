"""The question bank of the answer checks: every question, its parameters and its answer.

Each derivation or experiment exercise that ends in a number or a formula has a
:class:`~ensembles_verified.question.Question` here, registered under the
exercise's label in ``QUESTIONS``: what it asks, the book's parameters, how a
variant draws its own, the function that computes the answer from the book's
formulas, and the usual mistakes. ``ensembles_verified.answers`` checks
answers against it.
"""

from __future__ import annotations

import math

import numpy as np

from .question import Question

__all__ = ["QUESTIONS"]


def _p_oob(N):
    return (1.0 - 1.0 / N) ** N


QUESTIONS: dict[str, Question] = {}


def _register(q: Question) -> None:
    QUESTIONS[q.label] = q


# --- chapter 1 -----------------------------------------------------------------------------------
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

_VAR_F = 0.5 - 2 / math.pi + 1 / 3  # the variance of sin(2 pi X) + 2X, X uniform on [0, 1]
# --- chapter 2 -----------------------------------------------------------------------------------
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

# --- chapter 3 -----------------------------------------------------------------------------------
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


# --- chapter 4 -----------------------------------------------------------------------------------
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

# --- chapter 5 -----------------------------------------------------------------------------------
_register(Question(
    "ex-oob-subsample",
    "the probability that a given point is out of bag when n points are drawn with "
    "replacement from N (a formula in N and n)",
    book={},
    answer=lambda N, n: (1.0 - 1.0 / N) ** n,
    variables={"N": (2, 500, True), "n": (1, 800, True)},
    rtol=1e-9,
    formula="(1 - 1/N)**n",
    mistakes=(("the limit exp(-n/N)", lambda N, n: np.exp(-n / N)),
              ("(1 - 1/N)^N, the full bootstrap", lambda N, n: (1.0 - 1.0 / N) ** N),
              ("(1 - n/N), drawing without replacement", lambda N, n: 1.0 - n / N)),
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



def _p_blind(d, k, m):
    return math.comb(d - k, m) / math.comb(d, m)


# --- chapter 6 -----------------------------------------------------------------------------------
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


# --- chapter 7 -----------------------------------------------------------------------------------
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

# --- chapter 8 -----------------------------------------------------------------------------------
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

# --- chapter 9 -----------------------------------------------------------------------------------
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

# --- chapter 10 ----------------------------------------------------------------------------------
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




def _goss_factor(N, a, b):
    from ensemble_ref.math.sampling import goss_counts

    return goss_counts(N, a, b)[2]


def _draw_goss(rng):
    while True:
        p = {"N": int(rng.integers(20, 200)), "a": float(rng.choice([0.1, 0.15, 0.2, 0.3])),
             "b": float(rng.choice([0.05, 0.1, 0.15, 0.2]))}
        if abs(_goss_factor(**p) - (1 - p["a"]) / p["b"]) > 0.01 * _goss_factor(**p):
            return p


# --- chapter 11 ----------------------------------------------------------------------------------
_register(Question(
    "ex-modern-goss-proof",
    "the factor |A^c|/|B| that makes GOSS unbiased for N = {N} rows, a = {a} and b = {b}",
    book={"N": 43, "a": 0.2, "b": 0.15},
    answer=_goss_factor,
    draw=_draw_goss,
    rtol=1e-6,
    mistakes=(("(1 - a)/b, which is |A^c|/|B| only when aN and bN are integers",
               lambda N, a, b: (1 - a) / b),
              ("b/(1 - a), the inverted factor", lambda N, a, b: b / (1 - a))),
))

# --- chapter 12 ----------------------------------------------------------------------------------
_register(Question(
    "ex-moe-constant-gate",
    "the gate's M-step weight pi_1 of the first expert when the responsibilities of the first "
    "expert over N = {N} inputs add up to {r1}",
    book={"N": 37, "r1": 11.3},
    answer=lambda N, r1: r1 / N,
    draw=lambda rng: {"N": int(rng.integers(20, 400)), "r1": round(float(rng.uniform(2, 15)), 2)},
    mistakes=(("the sum of the responsibilities, not divided by N", lambda N, r1: r1),),
))

# --- chapter 14 ----------------------------------------------------------------------------------
_register(Question(
    "ex-scale-workers",
    "the number of workers C* at which building the histograms of a level takes as long as "
    "its ring all-reduce, with the ring's factor 2 (C - 1)/C taken at its limit 2, for N = {N} rows, "
    "B = {B} bins, q = {q} node(s) and a = c",
    book={"N": 10**8, "B": 256, "q": 1},
    answer=lambda N, B, q: N / (4 * B * q),
    draw=lambda rng: {"N": int(10 ** rng.integers(6, 10)),
                      "B": int(rng.choice([32, 64, 128, 256])), "q": int(2 ** rng.integers(0, 8))},
    rtol=1e-3,
    mistakes=(("N / (2 B q), the all-reduce without the ring's factor 2 (C - 1)/C",
               lambda N, B, q: N / (2 * B * q)),
              ("N / (4 B), the root level whatever q", lambda N, B, q: N / (4 * B))),
))
