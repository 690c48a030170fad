"""Unit tests for ensemble_ref.math.bootstrap (theorem thm-oob)."""

import math

import numpy as np
import pytest

from ensemble_ref import (
    bootstrap_indices,
    oob_fraction_exact,
    oob_fractions,
    oob_gap_bounds,
    oob_mask,
)


def decimal_power(N: int) -> float:
    """(1 - 1/N)^N in 50-digit decimal arithmetic: the reference value."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 50
        return float((1 - Decimal(1) / Decimal(N)) ** N)


@pytest.mark.parametrize("N", [1, 2, 3, 10, 1000, 10**6, 10**9])
def test_exact_fraction_to_full_precision(N):
    assert oob_fraction_exact(N) == pytest.approx(decimal_power(N), rel=1e-14, abs=0)


def test_naive_power_loses_digits_for_large_n():
    # The reason for exp(N log1p(-1/N)): the direct power is off in the 8th digit at N = 1e9.
    N = 10**9
    assert abs((1 - 1 / N) ** N - decimal_power(N)) > 1e-9


def test_exact_fraction_small_cases_by_enumeration():
    # Enumerate all N^N bootstrap samples for N = 3 and count the misses of point 0.
    import itertools

    N = 3
    misses = sum(0 not in s for s in itertools.product(range(N), repeat=N))
    assert oob_fraction_exact(N) == pytest.approx(misses / N**N)


def test_exact_fraction_vectorised_and_increasing():
    N = np.arange(1, 2000)
    P = oob_fraction_exact(N)
    assert P.shape == N.shape
    assert np.all(np.diff(P) > 0)
    assert np.all(P < math.exp(-1))


def test_gap_bounds_bracket_the_gap():
    N = np.array([2, 3, 7, 50, 10**4, 10**7])
    gap = math.exp(-1) - oob_fraction_exact(N)
    lower, upper = oob_gap_bounds(N)
    assert np.all(lower <= gap) and np.all(gap <= upper)
    assert np.all(np.abs(N * gap - 1 / (2 * math.e)) <= 1 / (2 * math.e * (N - 1)))


@pytest.mark.parametrize("bad", [0, -3, 2.5, "10", np.array([3, 0])])
def test_exact_fraction_rejects_bad_n(bad):
    with pytest.raises(ValueError, match="n_samples"):
        oob_fraction_exact(bad)


def test_gap_bounds_reject_n_below_two():
    with pytest.raises(ValueError, match="n_samples"):
        oob_gap_bounds(1)


def test_bootstrap_indices_reproducible_and_in_range():
    a = bootstrap_indices(50, np.random.default_rng(3))
    b = bootstrap_indices(50, np.random.default_rng(3))
    assert np.array_equal(a, b)
    assert a.shape == (50,) and a.min() >= 0 and a.max() < 50
    assert bootstrap_indices(50, 3, n_draws=7).shape == (7,)


def test_bootstrap_indices_are_uniform():
    counts = np.bincount(bootstrap_indices(10, np.random.default_rng(0), n_draws=100_000),
                         minlength=10)
    # Each count is Binomial(100000, 0.1): sd = 94.9; 5 sd is a safe, still decisive bound.
    assert np.all(np.abs(counts - 10_000) < 5 * math.sqrt(100_000 * 0.1 * 0.9))


@pytest.mark.parametrize("kwargs, match", [
    ({"n_samples": 0, "rng": 0}, "n_samples"),
    ({"n_samples": 5.0, "rng": 0}, "n_samples"),
    ({"n_samples": 5, "rng": "seed"}, "rng"),
    ({"n_samples": 5, "rng": 0, "n_draws": 0}, "n_draws"),
])
def test_bootstrap_indices_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        bootstrap_indices(**kwargs)


def test_oob_mask():
    mask = oob_mask(np.array([0, 0, 2]), 4)
    assert mask.tolist() == [False, True, False, True]
    with pytest.raises(ValueError, match="indices"):
        oob_mask(np.array([0, 4]), 4)
    with pytest.raises(ValueError, match="indices"):
        oob_mask(np.array([0.5]), 4)


def test_oob_fractions_mean_matches_theorem():
    f = oob_fractions(20, 20_000, np.random.default_rng(1))
    assert np.all((f >= 0) & (f <= 1))
    se = f.std(ddof=1) / math.sqrt(f.size)
    assert abs(f.mean() - oob_fraction_exact(20)) < 4 * se
    # and a wrong value (off by one percentage point) would be rejected by the same test
    assert abs(f.mean() - (oob_fraction_exact(20) + 0.01)) > 4 * se
