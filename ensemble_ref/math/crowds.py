r"""Majority votes of independent and correlated voters (chapter *The wisdom of crowds*).

A *voter* is a classifier seen through one random variable: :math:`X_m = 1` when
it is right on a random example, :math:`0` otherwise. A crowd of :math:`M`
voters (the book's number of members; the functions call it ``T`` or ``n``)
decides by majority; it is right when the mean vote
:math:`\bar X = \frac1M \sum_m X_m` exceeds :math:`\tfrac12`.

* **Independent voters** (Condorcet's jury theorem). With accuracy
  :math:`p = \tfrac12 + \gamma` each (an edge :math:`\gamma` over a coin), the
  majority of :math:`M` voters errs with probability :func:`majority_error` (a
  binomial sum, equation ``eq-condorcet-exact``), which is at most
  :func:`condorcet_bound` :math:`\tfrac12(1 - 4\gamma^2)^{M/2}` (equation
  ``eq-condorcet-bound``).
* **Any voters** (Cantelli's inequality, :func:`cantelli_bound`,
  equation ``eq-cantelli``). With mean accuracy :math:`\bar p`, mean edge
  :math:`\bar\gamma = \bar p - \tfrac12` and :math:`\sigma^2 = \operatorname{Var}\bar X`,
  the majority is right with probability at least
  :math:`\bar\gamma^2 / (\sigma^2 + \bar\gamma^2)` (:func:`majority_lower_bound`,
  equation ``eq-crowd-bound``).
* **Equicorrelated voters.** With accuracy :math:`p` each and average pairwise
  correlation :math:`c`, :math:`\sigma^2 = p(1-p)/M + \frac{M-1}{M} c\, p(1-p)`
  (:func:`mean_vote_variance`, equation ``eq-crowd-variance``).
* **A simulator** of such crowds (:func:`correlated_votes`): every example has
  its own difficulty :math:`\theta` drawn from a Beta distribution, and the voters
  are independent given :math:`\theta`. Its exact majority accuracy is
  :func:`correlated_majority_accuracy`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special, stats

from ..core.validation import (
    as_output,
    check_choice,
    check_equicorrelation,
    check_float,
    check_int,
    check_integers,
    check_random_state,
    check_reals,
)

__all__ = [
    "majority_error",
    "condorcet_bound",
    "cantelli_bound",
    "cantelli_extremal",
    "mean_vote_variance",
    "majority_lower_bound",
    "beta_difficulty_parameters",
    "conditionally_independent_votes",
    "correlated_votes",
    "correlated_majority_accuracy",
]

_TIES = ("coin", "wrong")


def _tie_weight(ties: str) -> float:
    """Weight of a tied vote in the error: 1/2 for a fair coin, 1 when a tie counts as wrong."""
    return 0.5 if check_choice(ties, "ties", _TIES) == "coin" else 1.0


# --- the binomial law of the votes: the package's one definition ---------------------------


def _binomial_pmf(n, t, p):
    """P[S = t] for S ~ Binomial(n, p), broadcast, in log space (0 for t > n when p < 1).

    ``gammaln`` gives the binomial coefficient and ``xlogy``/``xlog1py`` the powers,
    so that tiny probabilities keep their relative precision (eq-condorcet-exact).
    """
    log_comb = special.gammaln(n + 1) - special.gammaln(t + 1) - special.gammaln(n - t + 1)
    log_pmf = log_comb + special.xlogy(t, p) + special.xlog1py(n - t, -p)  # t > n: -inf
    return np.exp(log_pmf)  # C(n, t) p^t (1-p)^(n-t)


def _majority_tail(pmf, t, n, tie_weight):
    """P[S < n/2] + w P[S = n/2] from rows of probabilities of S = t (t = 0..n): the minority
    side of a vote of n, a tie counted with weight w (eq-condorcet-exact)."""
    return pmf[:, 2 * t < n].sum(axis=1) + tie_weight * pmf[:, 2 * t == n].sum(axis=1)


# --- independent voters: Condorcet's jury theorem ---------------------------------------


def majority_error(p: Any, T: Any, ties: str = "coin") -> float | np.ndarray:
    r"""Probability that the majority of ``T`` independent voters is wrong.

    Parameters
    ----------
    p : float or array
        Accuracy of each voter, in ``[0, 1]`` (:math:`p = \tfrac12 + \gamma`, with
        :math:`\gamma` the voter's edge over a coin).
    T : int or array of int
        Number of voters :math:`M`, ``T >= 1``. ``p`` and ``T`` are broadcast together.
    ties : {"coin", "wrong"}, default="coin"
        How a tie (possible only for even ``T``) is decided: by a fair coin, or
        counted as an error.

    Returns
    -------
    float or ndarray
        The binomial sum

        .. math:: \sum_{k < M/2} \binom{M}{k} p^k (1-p)^{M-k}
                  \;+\; w \binom{M}{M/2} \bigl(p(1-p)\bigr)^{M/2} [M \text{ even}],

        with :math:`k` the number of correct votes and :math:`w = 1/2` (coin)
        or :math:`1` (wrong).

    Notes
    -----
    Equation ``eq-condorcet-exact``. Each term is a binomial probability
    evaluated in log space (``gammaln`` for the binomial coefficient), and only
    positive terms are added, so tiny errors keep their relative precision.
    """
    tie_weight = _tie_weight(ties)
    p = check_reals(p, "p", 0.0, 1.0, bool_ok=False)
    T = check_integers(T, "T", low=1)
    p, T = np.broadcast_arrays(p, T)
    out = np.empty(p.shape)
    for n in np.unique(T):  # one table of binomial probabilities per crowd size
        sel = T == n
        t = np.arange(n + 1)  # number of correct votes
        pmf = _binomial_pmf(n, t, p[sel][:, None])  # C(n, t) p^t (1-p)^(n-t)
        out[sel] = _majority_tail(pmf, t, n, tie_weight)  # fewer than half right
    return as_output(out)


def condorcet_bound(p: Any, T: Any) -> float | np.ndarray:
    r"""Upper bound :math:`\tfrac12 (1 - 4\gamma^2)^{M/2}` on the majority error, :math:`\gamma = p - \tfrac12`.

    Parameters
    ----------
    p : float or array
        Accuracy of each voter, in ``[1/2, 1]``.
    T : int or array of int
        Number of voters :math:`M`, ``T >= 1``.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Equation ``eq-condorcet-bound``. It bounds :func:`majority_error` for
    every odd ``T``, and for even ``T`` when ties are decided by a fair coin.
    It does **not** bound the error of an even crowd whose ties count as
    errors (``ties="wrong"``): for ``T = 2`` that error is ``1 - p**2``, above
    the bound ``2 p (1 - p)`` for every ``p < 1``.
    """
    p = check_reals(p, "p", 0.5, 1.0, bool_ok=False)
    T = check_integers(T, "T", low=1)
    eps = p - 0.5  # the voter's edge gamma over a coin
    return as_output(0.5 * (1.0 - 4.0 * eps**2) ** (T / 2.0))  # eq-condorcet-bound


# --- Cantelli's inequality ---------------------------------------------------------------


def cantelli_bound(variance: Any, lam: Any) -> float | np.ndarray:
    r"""Cantelli's bound :math:`\sigma^2 / (\sigma^2 + a^2)` on a one-sided tail.

    For any random variable :math:`X` with variance :math:`\sigma^2` and any
    :math:`a > 0`, both :math:`P[X \ge \mathbb{E}X + a]` and
    :math:`P[X \le \mathbb{E}X - a]` are at most this value.

    Parameters
    ----------
    variance : float or array
        :math:`\sigma^2 \ge 0`.
    lam : float or array
        Distance :math:`a > 0` from the mean (the book writes this threshold
        :math:`a`; its :math:`\lambda` is the L2 penalty of the boosting chapters).

    Returns
    -------
    float or ndarray

    Notes
    -----
    Equation ``eq-cantelli``. The bound is attained by the two-point
    distribution of :func:`cantelli_extremal`.
    """
    var = check_reals(variance, "variance", 0.0, np.inf, bool_ok=False)
    lam = check_reals(lam, "lam", 0.0, np.inf, low_open=True, bool_ok=False)
    return as_output(var / (var + lam**2))  # eq-cantelli


def cantelli_extremal(mean: float, variance: float, lam: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    r"""The two-point distribution for which Cantelli's upper-tail bound is an equality.

    Parameters
    ----------
    mean : float
        :math:`\mu`.
    variance : float
        :math:`\sigma^2 > 0`.
    lam : float
        The threshold :math:`a > 0`.

    Returns
    -------
    values : ndarray of shape (2,)
        :math:`(\mu - \sigma^2/a,\; \mu + a)`.
    probabilities : ndarray of shape (2,)
        :math:`\bigl(a^2/(\sigma^2 + a^2),\; \sigma^2/(\sigma^2 + a^2)\bigr)`.

    Notes
    -----
    This distribution has mean :math:`\mu` and variance :math:`\sigma^2`, and
    :math:`P[X \ge \mu + a]` equals :func:`cantelli_bound` exactly: the
    proof's use of Markov's inequality on :math:`(X - \mu + u)^2` with
    :math:`u = \sigma^2/a` is tight when :math:`X - \mu + u` takes only
    the values :math:`0` and :math:`a + u`.
    """
    mu = check_float(mean, "mean")
    var = check_float(variance, "variance", low=0.0, low_open=True)
    lam = check_float(lam, "lam", low=0.0, low_open=True)
    values = np.array([mu - var / lam, mu + lam])  # X - mu + u is 0 or a + u, u = var/a
    probabilities = np.array([lam**2, var]) / (var + lam**2)
    return values, probabilities


# --- correlated voters ---------------------------------------------------------------


def mean_vote_variance(p: Any, c: Any, n: Any) -> float | np.ndarray:
    r"""Variance of the mean vote of ``n`` voters with accuracy ``p`` and average correlation ``c``.

    Parameters
    ----------
    p : float or array
        Accuracy of every voter, in ``[0, 1]``.
    c : float or array
        Average pairwise correlation of the votes, in ``[-1/(n-1), 1]`` (any
        value in ``[-1, 1]`` when ``n = 1``, where it plays no role).
    n : int or array of int
        Number of voters :math:`M`, ``n >= 1``.

    Returns
    -------
    float or ndarray
        .. math:: \sigma^2 = \frac{p(1-p)}{M} + \frac{M-1}{M}\, c\, p(1-p).

    Notes
    -----
    Equation ``eq-crowd-variance``. Expand
    :math:`\operatorname{Var}\bar X = M^{-2}\sum_{m,m'}\operatorname{Cov}(X_m, X_{m'})`:
    the :math:`M` diagonal terms are :math:`p(1-p)`, and the :math:`M(M-1)`
    off-diagonal ones average :math:`c\,p(1-p)`. A correlation below
    :math:`-1/(M-1)` would make the variance negative, so it is rejected.
    """
    p = check_reals(p, "p", 0.0, 1.0, bool_ok=False)
    c = check_reals(c, "c", -1.0, 1.0, bool_ok=False)
    n = check_integers(n, "n", low=1)
    p, c, n = np.broadcast_arrays(p, c, n)
    check_equicorrelation(c, n, "c", "n", "voters")
    v = p * (1 - p)  # variance of one vote
    return as_output(v / n + (n - 1) / n * c * v)  # eq-crowd-variance


def majority_lower_bound(p: Any, c: Any, n: Any = None) -> float | np.ndarray:
    r"""Cantelli lower bound :math:`\bar\gamma^2/(\sigma^2 + \bar\gamma^2)` on P(the majority is right).

    Parameters
    ----------
    p : float or array
        Mean accuracy :math:`\bar p` of the voters, in ``(1/2, 1]``.
    c : float or array
        Average pairwise correlation of the votes, in ``[0, 1]``.
    n : int, array of int or None, default=None
        Number of voters :math:`M`. ``None`` gives the limit :math:`M \to \infty`,
        where :math:`\sigma^2 \to c\,\bar p(1-\bar p)`.

    Returns
    -------
    float or ndarray
        .. math:: P\bigl[\bar X > \tfrac12\bigr] \;\ge\; \frac{\bar\gamma^2}{\sigma^2 + \bar\gamma^2},
                  \qquad \bar\gamma = \bar p - \tfrac12,

        with :math:`\sigma^2` from :func:`mean_vote_variance` and :math:`\bar\gamma`
        the voters' mean edge over a coin.

    Notes
    -----
    Equation ``eq-crowd-bound``: the event "the majority is not right" is
    :math:`\bar X \le \tfrac12 = \mathbb{E}\bar X - \bar\gamma`, whose probability
    Cantelli's inequality bounds by :math:`\sigma^2/(\sigma^2 + \bar\gamma^2)`.
    The limit (``n=None``) is the bound for an infinite crowd; for a finite
    crowd :math:`\sigma^2` is larger (when ``c < 1``) and the bound smaller,
    so the limiting value is **not** a lower bound for a finite crowd.
    The variance formula assumes every voter has accuracy :math:`\bar p`; with
    the exact variance of :math:`\bar X` the bound holds for any voters
    (use :func:`cantelli_bound` directly).
    """
    p = check_reals(p, "p", 0.5, 1.0, low_open=True, bool_ok=False)
    c = check_reals(c, "c", 0.0, 1.0, bool_ok=False)
    delta = p - 0.5  # the voters' mean edge gamma_bar over a coin
    if n is None:
        sigma2 = c * p * (1 - p)  # limit of eq-crowd-variance as M -> infinity
    else:
        sigma2 = np.asarray(mean_vote_variance(p, c, n))
    return as_output(delta**2 / (sigma2 + delta**2))  # 1 - cantelli_bound(sigma2, delta)


# --- a simulator of correlated voters ---------------------------------------------------


def beta_difficulty_parameters(p: float, c: float) -> tuple[float, float]:
    r"""Beta parameters ``(a, b)`` of a difficulty with mean ``p`` and votes of correlation ``c``.

    Parameters
    ----------
    p : float
        Mean accuracy, in ``(0, 1)``.
    c : float
        Pairwise correlation of the votes, in ``(0, 1)``.

    Returns
    -------
    (a, b) : tuple of float
        :math:`a = p(1/c - 1)`, :math:`b = (1-p)(1/c - 1)`.

    Notes
    -----
    If :math:`\theta \sim \mathrm{Beta}(a, b)` and the votes are independent
    Bernoulli(:math:`\theta`) given :math:`\theta`, then
    :math:`P[X_m = 1] = \mathbb{E}\theta = a/(a+b) = p` and
    :math:`\operatorname{Cov}(X_m, X_{m'}) = \operatorname{Var}\theta
    = p(1-p)/(a + b + 1)`, so the correlation is :math:`1/(a+b+1) = c`.
    """
    p = check_float(p, "p", low=0.0, high=1.0, low_open=True, high_open=True)
    c = check_float(c, "c", low=0.0, high=1.0, low_open=True, high_open=True)
    s = 1.0 / c - 1.0  # a + b, from c = 1 / (a + b + 1)
    return p * s, (1.0 - p) * s


def conditionally_independent_votes(theta: Any, n_voters: int,
                                    random_state: np.random.Generator | int | None
                                    ) -> np.ndarray:
    r"""Votes of ``n_voters`` voters that are independent given each example's difficulty.

    Parameters
    ----------
    theta : array of shape (n_trials,)
        Probability, on each example (trial), that a voter is right; in ``[0, 1]``.
    n_voters : int
        Number of voters :math:`M \ge 1`.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    ndarray of int8, shape (n_trials, n_voters)
        ``X[k, m] = 1`` when voter ``m`` is right on example ``k``.

    Notes
    -----
    Whatever the distribution of :math:`\theta`, the votes have accuracy
    :math:`\mathbb{E}\theta` and pairwise covariance :math:`\operatorname{Var}\theta`.
    """
    theta = check_reals(theta, "theta", 0.0, 1.0, vector=True, bool_ok=False)
    n = check_int(n_voters, "n_voters", low=1)
    rng = check_random_state(random_state)
    U = rng.random((theta.size, n))
    return (U < theta[:, None]).astype(np.int8)  # X_km ~ Bernoulli(theta_k), independent given theta


def correlated_votes(n_voters: int, p: float, c: float, n_trials: int,
                     random_state: np.random.Generator | int | None) -> np.ndarray:
    r"""Simulate a crowd of voters with accuracy ``p`` and pairwise vote correlation ``c``.

    Parameters
    ----------
    n_voters : int
        Number of voters :math:`M \ge 1`.
    p : float
        Accuracy of every voter, in ``[0, 1]``.
    c : float
        Pairwise correlation of the votes, in ``[0, 1]``: ``0`` gives independent
        voters, ``1`` gives clones that always agree.
    n_trials : int
        Number of examples (rows).
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    ndarray of int8, shape (n_trials, n_voters)
        ``X[k, m] = 1`` when voter ``m`` is right on example ``k``.

    Notes
    -----
    Each example gets a difficulty :math:`\theta_k \sim \mathrm{Beta}(a, b)`
    (:func:`beta_difficulty_parameters`) and the votes are independent
    Bernoulli(:math:`\theta_k`) given it. The limits are handled exactly:
    :math:`c = 0` gives :math:`\theta \equiv p`, and :math:`c = 1` gives
    :math:`\theta \in \{0, 1\}` with :math:`P[\theta = 1] = p`.
    """
    n = check_int(n_voters, "n_voters", low=1)
    p = check_float(p, "p", low=0.0, high=1.0)
    c = check_float(c, "c", low=0.0, high=1.0)
    K = check_int(n_trials, "n_trials", low=1)
    rng = check_random_state(random_state)
    if c == 0.0 or p in (0.0, 1.0):
        theta = np.full(K, p)  # no shared difficulty: independent voters
    elif c == 1.0:
        theta = (rng.random(K) < p).astype(float)  # all voters agree
    else:
        a, b = beta_difficulty_parameters(p, c)
        theta = rng.beta(a, b, size=K)  # difficulty of each example
    return conditionally_independent_votes(theta, n, rng)


def correlated_majority_accuracy(p: float, c: float, n: int | None = None,
                                 ties: str = "coin") -> float:
    r"""Exact probability that the majority of the crowd of :func:`correlated_votes` is right.

    Parameters
    ----------
    p : float
        Accuracy of every voter, in ``[0, 1]``.
    c : float
        Pairwise correlation of the votes, in ``[0, 1]``.
    n : int or None, default=None
        Number of voters :math:`M`; ``None`` gives the limit of an infinite crowd.
    ties : {"coin", "wrong"}, default="coin"
        How a tie (even :math:`M`) is decided.

    Returns
    -------
    float
        :math:`P[S > M/2] + w\,P[S = M/2]` where the number of correct votes
        :math:`S` is beta-binomial with the parameters of
        :func:`beta_difficulty_parameters` (binomial when ``c = 0``), and
        :math:`w = 1/2` (coin) or ``0`` (wrong). For ``n=None`` it is
        :math:`P[\theta > 1/2] + \tfrac12 P[\theta = 1/2]`, because
        :math:`\bar X \to \theta` as :math:`M \to \infty`.
    """
    p = check_float(p, "p", low=0.0, high=1.0)
    c = check_float(c, "c", low=0.0, high=1.0)
    tie_weight = 1.0 - _tie_weight(ties)  # weight of a tie in the accuracy
    if n is None:
        if c == 0.0 or p in (0.0, 1.0):  # theta = p
            return 1.0 if p > 0.5 else (0.5 if p == 0.5 else 0.0)
        if c == 1.0:  # theta in {0, 1}
            return p
        a, b = beta_difficulty_parameters(p, c)
        return float(stats.beta.sf(0.5, a, b))  # P[theta > 1/2]
    n = check_int(n, "n", low=1)
    t = np.arange(n + 1)  # number of correct votes
    if c == 0.0 or p in (0.0, 1.0):
        pmf = _binomial_pmf(n, t, p)
    elif c == 1.0:
        return p  # S is n (probability p) or 0
    else:
        pmf = stats.betabinom(n, *beta_difficulty_parameters(p, c)).pmf(t)
    # right: fewer than half of the votes wrong (S read from n down to 0: n - S wrong votes)
    return float(_majority_tail(pmf[None, ::-1], t, n, tie_weight)[0])
