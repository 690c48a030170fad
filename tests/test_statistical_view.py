"""Unit tests for the statistical view of boosting in ensemble_ref.math.boosting_theory.

The population minimiser of the exponential loss (half the log-odds, chapter AdaBoost),
incremental forward stagewise regression and the mixed differences of a fitted function
(chapter Gradient boosting), each against an independent computation: a numerical
minimiser, steps worked by hand and soft thresholding, polynomials whose differences
are known, and boosted trees of known depth.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from ensemble_ref import GradientBoostingRegressor
from ensemble_ref.math.boosting_theory import (
    exponential_population_minimizer,
    forward_stagewise_path,
    mixed_difference,
)

# --- half the log-odds ------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.01, 0.2, 0.5, 0.7, 0.999])
def test_population_minimizer_minimises_the_expected_exponential_loss(p):
    risk = lambda F: p * np.exp(-F) + (1 - p) * np.exp(F)  # noqa: E731
    numeric = minimize_scalar(risk, bracket=(-1, 1), method="brent", options={"xtol": 1e-12}).x
    F_star = exponential_population_minimizer(p)
    assert isinstance(F_star, float)
    assert F_star == pytest.approx(numeric, abs=1e-6)
    assert risk(F_star) == pytest.approx(2 * np.sqrt(p * (1 - p)), rel=1e-12)
    assert risk(np.log(p / (1 - p))) == pytest.approx(1.0, rel=1e-12)  # the log-odds: back to 1


def test_population_minimizer_is_half_the_log_odds_and_inverts_the_link():
    p = np.array([0.1, 0.25, 0.5, 0.8, 0.95])
    F = exponential_population_minimizer(p)
    np.testing.assert_allclose(F, 0.5 * np.log(p / (1 - p)), rtol=1e-15, atol=0)
    np.testing.assert_allclose(1 / (1 + np.exp(-2 * F)), p, rtol=1e-14)
    np.testing.assert_allclose(exponential_population_minimizer(1 - p), -F, atol=1e-15)
    assert exponential_population_minimizer(0.8) == pytest.approx(np.log(2), rel=1e-15)


@pytest.mark.parametrize("bad, error", [(0.0, ValueError), (1.0, ValueError), (-0.1, ValueError),
                                        (np.nan, ValueError), ("0.5", TypeError)])
def test_population_minimizer_refuses_what_is_not_a_probability_in_the_open_interval(bad, error):
    with pytest.raises(error):
        exponential_population_minimizer(bad)


# --- forward stagewise regression ------------------------------------------------------------

X3 = np.column_stack([[1.0, 0, 0], [0, 1.0, 0], [2 / 3, 2 / 3, 1 / 3]])
Y3 = np.array([1.0, 0.6, 0.0])


def test_stagewise_steps_by_hand():
    # correlations with y: 1, 0.6, 16/15; x_3 first, twice, then x_1, then x_3 again
    path = forward_stagewise_path(X3, Y3, 0.15, 4)
    expected = [[0, 0, 0], [0, 0, 0.15], [0, 0, 0.3], [0.15, 0, 0.3], [0.15, 0, 0.45]]
    np.testing.assert_allclose(path, expected, atol=1e-12)


def test_stagewise_moves_a_coefficient_down_when_its_correlation_is_negative():
    # correlations -1, 0.5: x_1 down three times (the tie at -0.5, 0.5 goes to the lower index)
    path = forward_stagewise_path(np.eye(2), [-1.0, 0.5], 0.25, 4)
    np.testing.assert_allclose(path, [[0, 0], [-0.25, 0], [-0.5, 0], [-0.75, 0], [-0.75, 0.25]],
                               atol=0)
    # the input is not modified and ties go to the lowest index
    y = np.array([1.0, 1.0])
    assert forward_stagewise_path(np.eye(2), y, 0.5, 1)[1].tolist() == [0.5, 0.0]
    assert y.tolist() == [1.0, 1.0]


def _orthonormal(seed, n=30, d=4):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, d))
    X = np.linalg.qr(A - A.mean(axis=0))[0]
    y = X @ rng.normal(scale=2.0, size=d) + rng.normal(size=n)
    return X, y - y.mean()


def _soft_threshold_of_norm(z, b):
    """The lasso with orthonormal columns: soft thresholds of z whose l1 norms are b."""
    kinks = np.append(np.sort(np.abs(z))[::-1], 0.0)
    norms = np.array([np.maximum(np.abs(z) - a, 0).sum() for a in kinks])
    a = np.interp(b, norms, kinks)  # the threshold a of each norm
    return np.sign(z) * np.maximum(np.abs(z)[None, :] - a[:, None], 0)


@pytest.mark.parametrize("seed", range(6))
def test_stagewise_is_within_one_step_of_the_lasso_for_orthonormal_columns(seed):
    X, y = _orthonormal(seed)
    z, s = X.T @ y, 0.02
    path = forward_stagewise_path(X, y, s, int(np.abs(z).sum() / s) + 50)
    largest = np.abs(z[None, :] - path).max(axis=1)
    covered = np.concatenate([[True], np.cumprod(largest[:-1] >= s).astype(bool)])
    lasso = _soft_threshold_of_norm(z, np.abs(path[covered]).sum(axis=1))
    assert np.abs(path[covered] - lasso).max() <= s + 1e-12
    # afterwards the iterates stay within s of least squares
    assert np.all(np.abs(path[~covered] - z) < s + 1e-12)
    # each step changes the l1 arc length by exactly s
    np.testing.assert_allclose(np.abs(np.diff(path, axis=0)).sum(axis=1), s, rtol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_lars_path_penalty_is_the_soft_threshold_over_n(seed):
    # scikit-learn's lasso is (1 / 2N) ||y - X b||^2 + alpha ||b||_1: with orthonormal columns its
    # knots are the soft thresholds of z = X^T y at a = N alpha, and the first alpha is max |z| / N
    from sklearn.linear_model import lars_path

    X, y = _orthonormal(seed)
    z = X.T @ y
    alphas, active, knots = lars_path(X, y, method="lasso")
    N = X.shape[0]
    assert alphas[0] == pytest.approx(np.abs(z).max() / N, rel=1e-12)
    soft = np.sign(z)[:, None] * np.maximum(np.abs(z)[:, None] - N * alphas[None, :], 0)
    np.testing.assert_allclose(knots, soft, atol=1e-12)
    assert sorted(active) == list(range(X.shape[1]))
    assert list(active) == list(np.argsort(-np.abs(z)))  # features enter by decreasing |z_j|


def test_stagewise_path_against_lars_where_a_lasso_coefficient_turns_back():
    from sklearn.linear_model import lars_path

    knots = lars_path(X3, Y3, method="lasso")[2]
    np.testing.assert_allclose(knots.T, [[0, 0, 0], [0, 0, 0.2], [0.4, 0, 0.6], [1, 0.6, 0]], atol=1e-12)
    path = forward_stagewise_path(X3, Y3, 1e-3, 3000)
    norms = np.abs(knots).sum(axis=0)
    t = np.abs(path).sum(axis=1)
    inside = t <= norms[-1]
    lasso = np.array([np.interp(t[inside], norms, row) for row in knots]).T
    assert abs(np.abs(path[inside] - lasso).max() - 12 / 35) < 5e-3
    np.testing.assert_allclose(path[-1], [1, 0.6, 0], atol=2e-3)  # both end at least squares


@pytest.mark.parametrize("kwargs, error", [
    (dict(X=np.eye(2), y=[1.0], step=0.1, n_steps=2), ValueError),
    (dict(X=np.eye(2), y=[1.0, 2.0], step=0.0, n_steps=2), ValueError),
    (dict(X=np.eye(2), y=[1.0, 2.0], step=0.1, n_steps=-1), ValueError),
    (dict(X=np.eye(2), y=[1.0, np.inf], step=0.1, n_steps=2), ValueError),
    (dict(X=[1.0, 2.0], y=[1.0, 2.0], step=0.1, n_steps=2), ValueError),
    (dict(X=np.eye(2), y=[1.0, 2.0], step=0.1, n_steps=2.5), TypeError),
])
def test_stagewise_refuses_bad_arguments(kwargs, error):
    with pytest.raises(error):
        forward_stagewise_path(**kwargs)


def test_stagewise_with_no_steps_is_zero():
    np.testing.assert_array_equal(forward_stagewise_path(X3, Y3, 0.1, 0), np.zeros((1, 3)))


# --- mixed differences ----------------------------------------------------------------------

POINTS = np.random.default_rng(3).uniform(-1, 1, (25, 3))


def test_mixed_differences_of_polynomials():
    u, v, w = 0.5, -0.25, 2.0
    product = lambda Z: Z[:, 0] * Z[:, 1] * Z[:, 2]  # noqa: E731
    np.testing.assert_allclose(mixed_difference(product, POINTS, [0, 1, 2], [u, v, w]), u * v * w,
                               atol=1e-13)
    np.testing.assert_allclose(mixed_difference(product, POINTS, [0, 1], [u, v]), u * v * POINTS[:, 2],
                               atol=1e-13)
    square = lambda Z: Z[:, 0] ** 2 + Z[:, 1]  # noqa: E731
    np.testing.assert_allclose(mixed_difference(square, POINTS, [0], [u]), 2 * u * POINTS[:, 0] + u**2,
                               atol=1e-13)
    additive = lambda Z: np.sin(Z[:, 0]) + Z[:, 1] ** 3 + np.exp(Z[:, 2])  # noqa: E731
    np.testing.assert_allclose(mixed_difference(additive, POINTS, [0, 2], [u, w]), 0.0, atol=1e-13)


def test_a_function_of_one_feature_has_exactly_zero_mixed_differences():
    one = lambda Z: np.where(Z[:, 1] <= 0.1, 0.3, 0.7) + 0.1  # noqa: E731  a stump on feature 1
    for features in ([0, 1], [1, 2], [0, 1, 2]):
        steps = [0.4] * len(features)
        assert np.all(mixed_difference(one, POINTS, features, steps) == 0)


def test_boosted_stumps_are_additive_and_deeper_trees_are_not():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (300, 3))
    y = X[:, 0] + X[:, 1] + 2 * X[:, 0] * X[:, 1] + 0.1 * rng.normal(size=300)
    at = rng.uniform(0, 0.5, (50, 3))
    stumps = GradientBoostingRegressor(n_estimators=60, max_depth=1).fit(X, y)
    depth2 = GradientBoostingRegressor(n_estimators=60, max_depth=2).fit(X, y)
    for tree in stumps.estimators_:
        assert np.all(mixed_difference(tree.predict, at, [0, 1], [0.5, 0.5]) == 0)
    assert np.abs(mixed_difference(stumps.predict, at, [0, 1], [0.5, 0.5])).max() < 1e-12
    assert np.abs(mixed_difference(depth2.predict, at, [0, 1], [0.5, 0.5])).max() > 0.1
    # depth 2 bounds the order: no difference of order 3
    assert np.abs(mixed_difference(depth2.predict, at, [0, 1, 2], [0.5] * 3)).max() < 1e-12


@pytest.mark.parametrize("args, error", [
    ((lambda Z: Z[:, 0], POINTS, [1, 0], [0.1, 0.1]), ValueError),    # not increasing
    ((lambda Z: Z[:, 0], POINTS, [0, 0], [0.1, 0.1]), ValueError),    # repeated
    ((lambda Z: Z[:, 0], POINTS, [0, 3], [0.1, 0.1]), ValueError),    # no such feature
    ((lambda Z: Z[:, 0], POINTS, [0, 1], [0.1]), ValueError),         # one step per feature
    ((lambda Z: Z[:, 0], POINTS, [0, 1], [0.1, 0.0]), ValueError),    # a zero step
    ((lambda Z: Z[:, 0], POINTS, [], []), ValueError),                # no feature
    ((lambda Z: Z[:, :2], POINTS, [0, 1], [0.1, 0.1]), ValueError),   # not one value per row
    ((lambda Z: Z[:, 0], POINTS, [0.5, 1], [0.1, 0.1]), TypeError),   # not integers
    (("predict", POINTS, [0, 1], [0.1, 0.1]), TypeError),             # not a callable
])
def test_mixed_difference_refuses_bad_arguments(args, error):
    with pytest.raises(error):
        mixed_difference(*args)
