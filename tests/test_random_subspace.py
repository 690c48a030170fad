"""Unit tests for ensemble_ref.random_subspace (equation eq-rf-blind)."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ensemble_ref import (
    breiman_max_features,
    informative_count_pmf,
    prob_no_informative,
    sample_feature_subsets,
    simulate_no_informative,
)


@pytest.mark.parametrize("d,k,m", [(5, 2, 2), (6, 1, 3), (7, 3, 4), (8, 2, 6), (6, 4, 3), (4, 0, 2)])
def test_prob_no_informative_by_enumeration(d, k, m):
    subsets = list(itertools.combinations(range(d), m))
    blind = sum(all(f >= k for f in s) for s in subsets)  # informative features are 0..k-1
    assert prob_no_informative(d, k, m) == pytest.approx(blind / len(subsets), rel=1e-12)


@pytest.mark.parametrize("d,k,m", [(102, 2, 10), (1000, 5, 31), (50, 10, 7), (30, 3, 27)])
def test_prob_no_informative_matches_hypergeometric(d, k, m):
    expected = stats.hypergeom(d, k, m).pmf(0)
    assert prob_no_informative(d, k, m) == pytest.approx(expected, rel=1e-10)


def test_prob_no_informative_edge_cases():
    assert prob_no_informative(10, 0, 3) == 1.0  # nothing to miss
    assert prob_no_informative(10, 3, 8) == 0.0  # only 7 noise features: 8 must hit one
    assert prob_no_informative(10, 10, 1) == 0.0
    assert prob_no_informative(10, 1, 1) == pytest.approx(0.9)


def test_pmf_sums_to_one_and_has_hypergeometric_mean():
    for d, k, m in [(20, 4, 6), (9, 9, 3), (12, 2, 11), (7, 0, 3)]:
        pmf = informative_count_pmf(d, k, m)
        assert pmf.shape == (min(k, m) + 1,)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.dot(np.arange(pmf.size), pmf) == pytest.approx(m * k / d, rel=1e-12)
        assert pmf[0] == pytest.approx(prob_no_informative(d, k, m), rel=1e-12)


def test_subsets_are_distinct_and_uniform():
    d, m, R = 6, 2, 30000
    S = sample_feature_subsets(d, m, R, np.random.default_rng(0))
    assert S.shape == (R, m)
    assert np.all(S[:, 0] != S[:, 1])
    assert S.min() >= 0 and S.max() < d
    # each of the 15 unordered pairs has probability 1/15: chi-square goodness of fit
    pairs = np.sort(S, axis=1)
    codes = pairs[:, 0] * d + pairs[:, 1]
    counts = np.array([np.sum(codes == a * d + b) for a, b in itertools.combinations(range(d), 2)])
    assert counts.sum() == R
    assert stats.chisquare(counts).pvalue > 1e-4


def test_subsets_are_reproducible_from_a_seed():
    a = sample_feature_subsets(20, 4, 50, 7)
    b = sample_feature_subsets(20, 4, 50, np.random.default_rng(7))
    assert np.array_equal(a, b)


@pytest.mark.parametrize("d,k,m", [(102, 2, 10), (12, 3, 3), (40, 1, 6)])
def test_simulation_agrees_with_exact_probability(d, k, m):
    R = 40000
    blind = simulate_no_informative(d, k, m, R, np.random.default_rng(1))
    p = prob_no_informative(d, k, m)
    assert blind.dtype == bool and blind.shape == (R,)
    assert abs(blind.mean() - p) <= 4 * math.sqrt(p * (1 - p) / R)


def test_breiman_max_features():
    for d in [1, 2, 3, 4, 8, 9, 10, 99, 100, 101, 10**6]:
        assert breiman_max_features(d) == max(1, int(math.floor(math.sqrt(d) + 1e-12)))
        assert breiman_max_features(d, "regression") == max(1, d // 3)
    assert breiman_max_features(10**12 - 1) == 10**6 - 1  # floor(sqrt) without float rounding


@pytest.mark.parametrize(
    "args,exc,name",
    [
        ((0, 0, 1), ValueError, "n_features"),
        ((5, 6, 1), ValueError, "n_informative"),
        ((5, -1, 1), ValueError, "n_informative"),
        ((5, 2, 0), ValueError, "max_features"),
        ((5, 2, 6), ValueError, "max_features"),
        ((5.0, 2, 1), TypeError, "n_features"),
        ((5, 2, 1.5), TypeError, "max_features"),
    ],
)
def test_bad_arguments_are_named(args, exc, name):
    with pytest.raises(exc, match=name):
        prob_no_informative(*args)
    with pytest.raises(exc, match=name):
        informative_count_pmf(*args)


def test_bad_simulation_arguments():
    with pytest.raises(ValueError, match="n_draws"):
        simulate_no_informative(10, 2, 3, 0, 0)
    with pytest.raises(TypeError, match="rng"):
        sample_feature_subsets(10, 3, 5, "seed")
    with pytest.raises(ValueError, match="task"):
        breiman_max_features(10, "ranking")
