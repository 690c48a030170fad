"""Tests for ensemble_ref.losses: values, first and second derivatives, conventions."""

import numpy as np
import pytest

from ensemble_ref import (
    Loss,
    absolute_error,
    absolute_error_gradient,
    absolute_error_hessian,
    exponential_loss,
    exponential_loss_gradient,
    exponential_loss_hessian,
    get_loss,
    log_loss,
    log_loss_gradient,
    log_loss_hessian,
    sigmoid,
    squared_error,
    squared_error_gradient,
    squared_error_hessian,
)

rng = np.random.default_rng(20260101)
F = rng.normal(scale=2.0, size=50)
Y_REAL = rng.normal(size=50)
Y_01 = rng.integers(0, 2, size=50).astype(float)
Y_PM = 2 * Y_01 - 1

SMOOTH = [
    ("squared_error", Y_REAL),
    ("log_loss", Y_01),
    ("exponential", Y_PM),
]


@pytest.mark.parametrize("name, y", SMOOTH)
def test_derivatives_match_central_differences(name, y):
    L = get_loss(name)
    step = 1e-5
    num_grad = (L.value(y, F + step) - L.value(y, F - step)) / (2 * step)
    num_hess = (L.gradient(y, F + step) - L.gradient(y, F - step)) / (2 * step)
    np.testing.assert_allclose(L.gradient(y, F), num_grad, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(L.hessian(y, F), num_hess, rtol=1e-6, atol=1e-8)


def test_absolute_error_derivatives_away_from_the_kink():
    y = Y_REAL
    Fk = np.where(np.abs(F - y) < 1e-3, F + 0.1, F)  # stay away from F = y
    step = 1e-6
    num_grad = (absolute_error(y, Fk + step) - absolute_error(y, Fk - step)) / (2 * step)
    np.testing.assert_allclose(absolute_error_gradient(y, Fk), num_grad, atol=1e-8)
    assert np.all(absolute_error_hessian(y, Fk) == 0.0)
    assert absolute_error_gradient(1.0, 1.0) == -1.0  # the subgradient chosen at the kink


def test_closed_forms():
    np.testing.assert_allclose(squared_error(Y_REAL, F), 0.5 * (Y_REAL - F) ** 2)
    np.testing.assert_allclose(squared_error_gradient(Y_REAL, F), F - Y_REAL)
    assert np.all(squared_error_hessian(Y_REAL, F) == 1.0)
    p = 1 / (1 + np.exp(-F))
    np.testing.assert_allclose(log_loss(Y_01, F), -(Y_01 * np.log(p) + (1 - Y_01) * np.log(1 - p)),
                               rtol=1e-12)
    np.testing.assert_allclose(log_loss_gradient(Y_01, F), p - Y_01, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(log_loss_hessian(Y_01, F), p * (1 - p), rtol=1e-12)
    np.testing.assert_allclose(exponential_loss(Y_PM, F), np.exp(-Y_PM * F))
    np.testing.assert_allclose(exponential_loss_gradient(Y_PM, F), -Y_PM * np.exp(-Y_PM * F))
    np.testing.assert_allclose(exponential_loss_hessian(Y_PM, F), np.exp(-Y_PM * F))


def test_log_loss_is_finite_and_accurate_for_extreme_scores():
    F_big = np.array([-800.0, -40.0, 40.0, 800.0])
    y = np.array([1.0, 1.0, 0.0, 0.0])  # all badly wrong: loss ~ |F|
    np.testing.assert_allclose(log_loss(y, F_big), np.abs(F_big), rtol=1e-15)
    np.testing.assert_allclose(log_loss(1 - y, F_big), np.exp(-np.abs(F_big)), rtol=1e-12)
    h = log_loss_hessian(y, F_big)
    assert np.all(np.isfinite(h)) and h[1] == pytest.approx(np.exp(-40.0), rel=1e-12)
    np.testing.assert_allclose(sigmoid(F_big), [0.0, np.exp(-40.0), 1.0, 1.0], rtol=1e-12,
                               atol=0)


def test_sigmoid_symmetry_and_scalar():
    np.testing.assert_allclose(sigmoid(-F), 1 - sigmoid(F), atol=1e-15)
    assert sigmoid(0.0) == 0.5 and isinstance(sigmoid(0.0), float)


def test_factor_two_relative_to_scikit_learn_metrics():
    from sklearn.metrics import log_loss as sk_log_loss
    from sklearn.metrics import mean_squared_error

    assert 2 * np.mean(squared_error(Y_REAL, F)) == pytest.approx(mean_squared_error(Y_REAL, F))
    # sklearn's log_loss is the mean of ours (the deviance, reported by GB, is twice it)
    assert np.mean(log_loss(Y_01, F)) == pytest.approx(sk_log_loss(Y_01, sigmoid(F)), rel=1e-12)


@pytest.mark.parametrize("name, y, best", [
    ("squared_error", Y_REAL, np.mean(Y_REAL)),
    ("absolute_error", Y_REAL, np.median(Y_REAL)),
    ("log_loss", Y_01, np.log(Y_01.mean() / (1 - Y_01.mean()))),
    ("exponential", Y_PM, 0.5 * np.log((Y_PM > 0).sum() / (Y_PM < 0).sum())),
])
def test_best_constant_of_each_loss(name, y, best):
    # The constant minimising the empirical risk: the initial model of boosting.
    L = get_loss(name)
    risk = lambda c: np.sum(L.value(y, np.full_like(y, c)))  # noqa: E731
    grid = best + np.linspace(-0.5, 0.5, 2001)
    assert risk(best) <= min(risk(c) for c in grid) + 1e-12
    if name != "absolute_error":  # smooth: the gradient sum vanishes there
        assert abs(np.sum(L.gradient(y, np.full_like(y, best)))) < 1e-9


def test_loss_registry():
    L = get_loss("log_loss")
    assert isinstance(L, Loss) and L.value is log_loss and L.hessian is log_loss_hessian
    with pytest.raises(ValueError, match="loss must be one of"):
        get_loss("hinge")


@pytest.mark.parametrize("fn, y, F, match", [
    (squared_error, [1.0, 2.0], [1.0], "same shape"),
    (squared_error, [np.nan], [1.0], "y must not contain NaN"),
    (squared_error, [1.0], [np.inf], "F must not contain NaN"),
    (log_loss, [0.0, 2.0], [0.0, 0.0], "only the labels 0 and 1"),
    (exponential_loss, [0.0, 1.0], [0.0, 0.0], "only the labels -1 and \\+1"),
])
def test_bad_input(fn, y, F, match):
    with pytest.raises(ValueError, match=match):
        fn(y, F)
    with pytest.raises(TypeError, match="real numbers"):
        fn(["a"], [1.0])
