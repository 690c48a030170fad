"""Unit tests for ensemble_ref.crowds (Condorcet, Cantelli, correlated voters)."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ensemble_ref import (
    beta_difficulty_parameters,
    cantelli_bound,
    cantelli_extremal,
    conditionally_independent_votes,
    condorcet_bound,
    correlated_majority_accuracy,
    correlated_votes,
    majority_error,
    majority_lower_bound,
    mean_vote_variance,
)


def exact_majority_error(p: Fraction, T: int, tie: Fraction) -> Fraction:
    """Majority error in rational arithmetic: the reference value."""
    total = Fraction(0)
    for t in range(T + 1):  # t = number of correct votes
        term = comb(T, t) * p**t * (1 - p) ** (T - t)
        if 2 * t < T:
            total += term
        elif 2 * t == T:
            total += tie * term
    return total


# --- majority_error and condorcet_bound -------------------------------------------------


@pytest.mark.parametrize("T", [1, 2, 3, 4, 7, 10, 15])
@pytest.mark.parametrize("p", [Fraction(1, 10), Fraction(1, 2), Fraction(3, 5), Fraction(9, 10)])
def test_majority_error_matches_rational_arithmetic(T, p):
    for ties, w in [("coin", Fraction(1, 2)), ("wrong", Fraction(1))]:
        expected = float(exact_majority_error(p, T, w))
        assert majority_error(float(p), T, ties=ties) == pytest.approx(expected, rel=1e-12, abs=1e-300)


def test_majority_error_large_crowd_keeps_relative_precision():
    # Odd T: the error is the binomial lower tail P[S <= (T-1)/2].
    T, p = 1001, 0.6
    assert majority_error(p, T) == pytest.approx(stats.binom.cdf((T - 1) // 2, T, p), rel=1e-9)
    assert 0 < majority_error(p, T) < 1e-9


def test_majority_error_broadcasts_and_is_symmetric_for_odd_T():
    p = np.linspace(0.05, 0.95, 7)
    T = np.array([[1], [5], [21]])
    err = majority_error(p, T)
    assert err.shape == (3, 7)
    # Relabelling right and wrong: an odd crowd of accuracy 1 - p errs when one of accuracy p is right.
    assert np.allclose(majority_error(1 - p, T), 1 - err)
    assert np.allclose(err[0], 1 - p)  # a single voter errs with probability 1 - p


def test_majority_error_decreases_with_odd_T_when_p_above_half():
    T = np.arange(1, 200, 2)
    err = majority_error(0.55, T)
    assert np.all(np.diff(err) < 0)


def test_coin_ties_make_an_even_crowd_as_good_as_one_voter_less():
    # With coin-flip ties, T = 2k voters err exactly as often as 2k - 1 voters.
    for k in range(1, 8):
        assert majority_error(0.63, 2 * k) == pytest.approx(majority_error(0.63, 2 * k - 1))


@settings(max_examples=200, deadline=None)
@given(eps=st.floats(0.0, 0.5), T=st.integers(1, 301))
def test_condorcet_bound_dominates_the_exact_error(eps, T):
    p = 0.5 + eps
    assert majority_error(p, T) <= condorcet_bound(p, T) * (1 + 1e-12) + 1e-300


def test_condorcet_bound_fails_for_even_crowds_whose_ties_count_as_errors():
    # The docstring's counterexample: T = 2, ties wrong: error 1 - p^2 > 2 p (1 - p).
    p = np.array([0.51, 0.6, 0.9])
    assert np.allclose(majority_error(p, 2, ties="wrong"), 1 - p**2)
    assert np.all(majority_error(p, 2, ties="wrong") > condorcet_bound(p, 2))


def test_condorcet_bound_values():
    assert condorcet_bound(0.5, 9) == 0.5
    assert condorcet_bound(1.0, 3) == 0.0
    assert condorcet_bound(0.6, 2) == pytest.approx(0.5 * (1 - 4 * 0.01))


@pytest.mark.parametrize("bad, exc", [
    (dict(p=1.2, T=3), ValueError), (dict(p=np.nan, T=3), ValueError),
    (dict(p=0.6, T=0), ValueError), (dict(p=0.6, T=2.5), TypeError),
    (dict(p="a", T=3), TypeError), (dict(p=0.6, T=3, ties="half"), ValueError),
])
def test_majority_error_rejects_bad_input(bad, exc):
    with pytest.raises(exc, match="p|T|ties"):
        majority_error(**bad)


def test_condorcet_bound_rejects_voters_worse_than_a_coin():
    with pytest.raises(ValueError, match="p must lie in"):
        condorcet_bound(0.4, 3)


# --- Cantelli ---------------------------------------------------------------------------


@pytest.mark.parametrize("dist", [stats.norm(1, 2), stats.expon(scale=3), stats.uniform(-1, 4),
                                  stats.binom(10, 0.3), stats.t(5)])
def test_cantelli_bounds_both_tails_of_known_distributions(dist):
    mu, var = dist.mean(), dist.var()
    lam = np.linspace(0.05, 6, 60) * np.sqrt(var)
    upper = dist.sf(mu + lam) + dist.pmf(mu + lam) if hasattr(dist, "pmf") else dist.sf(mu + lam)
    lower = dist.cdf(mu - lam)
    bound = cantelli_bound(var, lam)
    assert np.all(upper <= bound + 1e-12) and np.all(lower <= bound + 1e-12)
    assert np.all(bound <= np.minimum(1, var / lam**2) + 1e-15)  # never worse than Chebyshev


@pytest.mark.parametrize("mu, var, lam", [(0.0, 1.0, 0.5), (2.0, 0.3, 1.7), (-1.0, 4.0, 4.0)])
def test_cantelli_extremal_attains_the_bound(mu, var, lam):
    values, probs = cantelli_extremal(mu, var, lam)
    assert probs.sum() == pytest.approx(1.0)
    assert probs @ values == pytest.approx(mu)
    assert probs @ (values - mu) ** 2 == pytest.approx(var)
    assert probs[values >= mu + lam - 1e-12].sum() == pytest.approx(cantelli_bound(var, lam))


def test_cantelli_rejects_bad_input():
    with pytest.raises(ValueError, match="lam"):
        cantelli_bound(1.0, 0.0)
    with pytest.raises(ValueError, match="variance"):
        cantelli_bound(-1.0, 1.0)
    with pytest.raises(ValueError, match="variance"):
        cantelli_extremal(0.0, 0.0, 1.0)


# --- correlated voters ------------------------------------------------------------------


@pytest.mark.parametrize("p, c, n", [(0.6, 0.2, 5), (0.7, 0.05, 12), (0.55, 0.5, 1), (0.8, 0.0, 9)])
def test_mean_vote_variance_matches_the_beta_binomial(p, c, n):
    # Exchangeable voters with a Beta difficulty: Var(S/n) from scipy's beta-binomial.
    if c == 0:
        expected = stats.binom(n, p).var() / n**2
    else:
        expected = stats.betabinom(n, *beta_difficulty_parameters(p, c)).var() / n**2
    assert mean_vote_variance(p, c, n) == pytest.approx(expected, rel=1e-12)


def test_mean_vote_variance_limits_and_validation():
    assert mean_vote_variance(0.7, 1.0, 50) == pytest.approx(0.21)  # clones: one voter's variance
    assert mean_vote_variance(0.7, -1 / 4, 5) == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match="-1/\\(n-1\\)"):
        mean_vote_variance(0.7, -0.5, 5)


@settings(max_examples=100, deadline=None)
@given(p=st.floats(0.51, 0.99), c=st.floats(0.01, 0.99), n=st.integers(1, 60))
def test_majority_lower_bound_holds_for_the_beta_crowd(p, c, n):
    # Cantelli's bound is a valid lower bound on P[mean vote > 1/2] (ties counted as wrong).
    exact = correlated_majority_accuracy(p, c, n, ties="wrong")
    assert majority_lower_bound(p, c, n) <= exact + 1e-12


def test_majority_lower_bound_limits():
    assert majority_lower_bound(0.6, 0.0) == 1.0  # independent voters: Condorcet
    assert majority_lower_bound(0.6, 0.3, 10**9) == pytest.approx(majority_lower_bound(0.6, 0.3))
    # For a finite crowd the bound is below its limit (sigma^2 is larger).
    assert majority_lower_bound(0.6, 0.3, 11) < majority_lower_bound(0.6, 0.3)
    with pytest.raises(ValueError, match="p must lie in"):
        majority_lower_bound(0.5, 0.3, 11)


def test_correlated_votes_have_the_requested_accuracy_and_correlation():
    p, c, n, K = 0.65, 0.3, 6, 40_000
    X = correlated_votes(n, p, c, K, random_state=3)
    assert X.shape == (K, n) and X.dtype == np.int8 and set(np.unique(X)) <= {0, 1}
    assert abs(X.mean() - p) < 4 * np.sqrt(p * (1 - p) * (1 + (n - 1) * c) / (n * K))
    C = np.corrcoef(X, rowvar=False)
    c_hat = C[~np.eye(n, dtype=bool)].mean()
    assert abs(c_hat - c) < 0.02  # each pair's correlation has s.e. about 1/sqrt(K) = 0.005
    # The simulated majority accuracy matches the exact beta-binomial value.
    maj = (X.sum(axis=1) > n / 2).mean()
    exact = correlated_majority_accuracy(p, c, n, ties="wrong")
    assert abs(maj - exact) < 4 * np.sqrt(exact * (1 - exact) / K)


def test_correlated_votes_extremes_and_determinism():
    X0 = correlated_votes(5, 0.7, 0.0, 20_000, random_state=1)
    C = np.corrcoef(X0, rowvar=False)
    assert np.abs(C[~np.eye(5, dtype=bool)]).max() < 0.04  # independent voters
    X1 = correlated_votes(5, 0.7, 1.0, 1000, random_state=1)
    assert np.all(X1 == X1[:, :1])  # clones always agree
    assert np.array_equal(correlated_votes(4, 0.6, 0.2, 50, 7), correlated_votes(4, 0.6, 0.2, 50, 7))


def test_conditionally_independent_votes_validation():
    with pytest.raises(ValueError, match="theta"):
        conditionally_independent_votes(np.array([0.5, 1.5]), 3, 0)
    with pytest.raises(ValueError, match="n_voters"):
        conditionally_independent_votes(np.array([0.5]), 0, 0)
    with pytest.raises(ValueError, match="c must be in"):
        correlated_votes(3, 0.6, 1.5, 10, 0)


def test_correlated_majority_accuracy_limits():
    # c = 0 is Condorcet's independent crowd.
    assert correlated_majority_accuracy(0.6, 0.0, 7) == pytest.approx(1 - majority_error(0.6, 7))
    # The infinite crowd is right exactly when the difficulty is above one half.
    a, b = beta_difficulty_parameters(0.6, 0.2)
    assert correlated_majority_accuracy(0.6, 0.2) == pytest.approx(stats.beta.sf(0.5, a, b))
    assert correlated_majority_accuracy(0.6, 0.2, 2001) == pytest.approx(
        correlated_majority_accuracy(0.6, 0.2), abs=2e-3)
    assert correlated_majority_accuracy(0.6, 1.0, 9) == 0.6  # clones
