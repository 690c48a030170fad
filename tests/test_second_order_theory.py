"""Tests for ensemble_ref.second_order_theory: the brute-force references of the XGBoost chapter.

Each function is compared with an independent computation: a closed form written
out in the test, an explicit loop, or a finite difference.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_ref import log_loss, log_loss_hessian, squared_error
from ensemble_ref.math.second_order_theory import (
    BruteForceSplit,
    best_split_brute_force,
    log_loss_remainder_bound,
    log_loss_third_derivative,
    minimise_leaf_loss,
    minimise_leaf_objective,
    regularised_objective,
    second_order_objective,
    split_objective_decreases,
    taylor_remainder,
)


def closed_form_gain(gl, hl, gr, hr, lam, tau):
    """The textbook split gain, written out independently of the module."""
    def s(G, H):
        return G * G / (H + lam)
    return 0.5 * (s(gl, hl) + s(gr, hr) - s(gl + gr, hl + hr)) - tau


# --- Taylor remainder ---------------------------------------------------------------------


def test_squared_error_taylor_model_is_exact():
    rng = np.random.default_rng(0)
    y, F, f = rng.normal(size=(3, 50))
    R = taylor_remainder("squared_error", y, F, f)
    assert np.max(np.abs(R)) < 1e-12


def test_log_loss_remainder_within_bound_and_cubic():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, size=200).astype(float)
    F = rng.normal(scale=3, size=200)
    f = rng.uniform(-2, 2, size=200)
    R = taylor_remainder("log_loss", y, F, f)
    assert np.all(np.abs(R) <= log_loss_remainder_bound(f) + 1e-15)
    # halving the step divides the remainder by about 8 where l'''(F) != 0
    F0 = np.array([1.0, -2.0])
    y0 = np.array([1.0, 0.0])
    r1 = taylor_remainder("log_loss", y0, F0, 1e-2)
    r2 = taylor_remainder("log_loss", y0, F0, 5e-3)
    assert np.allclose(r1 / r2, 8.0, rtol=1e-2)
    # and R / f^3 tends to l'''(F) / 6
    assert np.allclose(r2 / 5e-3 ** 3, log_loss_third_derivative(F0) / 6, rtol=1e-2)


def test_log_loss_remainder_is_quartic_at_zero_score():
    # l'''(0) = 0, so the remainder at F = 0 is -f^4/192 + O(f^6)
    f = np.array([0.2, 0.1])
    R = taylor_remainder("log_loss", np.zeros(2), np.zeros(2), f)
    assert np.allclose(R, -f ** 4 / 192, rtol=2e-2)


def test_third_derivative_matches_finite_difference_of_hessian():
    F = np.linspace(-6, 6, 41)
    eps = 1e-5
    fd = (log_loss_hessian(np.zeros_like(F), F + eps) - log_loss_hessian(np.zeros_like(F), F - eps)) / (2 * eps)
    assert np.allclose(log_loss_third_derivative(F), fd, atol=1e-9)


def test_third_derivative_maximum():
    F = np.linspace(-5, 5, 200001)
    d = np.abs(log_loss_third_derivative(F))
    assert abs(d.max() - 1 / (6 * np.sqrt(3))) < 1e-9
    p = 1 / (1 + np.exp(-F[np.argmax(d)]))
    assert min(abs(p - (0.5 - 0.5 / np.sqrt(3))), abs(p - (0.5 + 0.5 / np.sqrt(3)))) < 1e-4


# --- objectives --------------------------------------------------------------------------


def test_regularised_objective_matches_loop():
    rng = np.random.default_rng(2)
    y, F = rng.normal(size=(2, 30))
    q = rng.integers(0, 4, size=30)
    w = rng.normal(size=4)
    lam, tau = 0.7, 0.3
    total = sum(0.5 * (y[i] - F[i] - w[q[i]]) ** 2 for i in range(30))
    total += tau * 4 + 0.5 * lam * sum(wj ** 2 for wj in w)
    assert np.isclose(regularised_objective("squared_error", y, F, q, w, lam, tau), total)


def test_second_order_objective_differs_from_true_one_by_a_constant_for_squared_error():
    rng = np.random.default_rng(3)
    y, F = rng.normal(size=(2, 25))
    q = rng.integers(0, 3, size=25)
    g, h = F - y, np.ones(25)
    const = float(np.sum(squared_error(y, F)))
    for _ in range(3):
        w = rng.normal(size=3)
        true = regularised_objective("squared_error", y, F, q, w, 1.5, 0.2)
        model = second_order_objective(g, h, q, w, 1.5, 0.2)
        assert np.isclose(true, model + const, atol=1e-12)


# --- one leaf ----------------------------------------------------------------------------


def test_minimise_leaf_objective_matches_closed_form():
    rng = np.random.default_rng(4)
    g = rng.normal(size=40)
    h = rng.uniform(0.05, 0.25, size=40)
    for lam in (0.0, 1.0, 10.0):
        w, v = minimise_leaf_objective(g, h, lam)
        G, H = g.sum(), h.sum()
        assert np.isclose(w, -G / (H + lam), rtol=1e-7)
        assert np.isclose(v, -G * G / (2 * (H + lam)), rtol=1e-12)


def test_minimise_leaf_loss_squared_error_is_newton_and_log_loss_is_stationary():
    rng = np.random.default_rng(5)
    y, F = rng.normal(size=(2, 20))
    w, _ = minimise_leaf_loss("squared_error", y, F, 2.0)
    assert np.isclose(w, np.sum(y - F) / (20 + 2.0), rtol=1e-7)
    yb = (rng.uniform(size=20) < 0.3).astype(float)
    Fb = rng.normal(size=20)
    w, v = minimise_leaf_loss("log_loss", yb, Fb, 1.0)
    p = 1 / (1 + np.exp(-(Fb + w)))
    assert abs(np.sum(p - yb) + 1.0 * w) < 1e-6  # derivative of the objective vanishes
    assert np.isclose(v, float(np.sum(log_loss(yb, Fb + w))) + 0.5 * w * w)


# --- splits --------------------------------------------------------------------------------


def test_split_decreases_match_closed_form_gain():
    rng = np.random.default_rng(6)
    x = rng.normal(size=25)
    g = rng.normal(size=25)
    h = rng.uniform(0.1, 1.0, size=25)
    lam, tau = 1.3, 0.4
    thr, dl, dr = split_objective_decreases(x, g, h, lam, tau)
    assert thr.size == 24
    assert np.allclose(dl, dr)
    for k, t in enumerate(thr):
        L = x < t
        expected = closed_form_gain(g[L].sum(), h[L].sum(), g[~L].sum(), h[~L].sum(), lam, tau)
        assert np.isclose(dl[k], expected, rtol=1e-9, atol=1e-12)


def test_missing_values_sent_each_way():
    x = np.array([0.0, 1.0, 2.0, 3.0, np.nan, np.nan])
    g = np.array([1.0, 1.0, -1.0, -1.0, -2.0, -2.0])
    h = np.ones(6)
    thr, dl, dr = split_objective_decreases(x, g, h, lam=1.0)
    k = int(np.flatnonzero(np.isclose(thr, 1.5))[0])
    G, H = g.sum(), h.sum()
    # missing right joins the negative-gradient group
    right = closed_form_gain(2.0, 2.0, G - 2.0, H - 2.0, 1.0, 0.0)
    left = closed_form_gain(2.0 - 4.0, 4.0, -2.0, 2.0, 1.0, 0.0)
    assert np.isclose(dr[k], right) and np.isclose(dl[k], left)
    best = best_split_brute_force(x[:, None], g, h, lam=1.0)
    assert best == BruteForceSplit(0, 1.5, False, best.decrease)
    assert np.isclose(best.decrease, right)


def test_best_split_finds_the_informative_feature():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 3))
    g = np.where(X[:, 2] > 0.2, -1.0, 1.0) + rng.normal(scale=0.05, size=30)
    best = best_split_brute_force(X, g, np.ones(30), lam=1.0)
    assert best.feature == 2
    s = np.sort(X[:, 2])
    assert s[s < best.threshold].max() < 0.2 < s[s > best.threshold].min() + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(0, 2)), min_size=2, max_size=8),
       st.floats(0.01, 5))
def test_gain_bracket_lower_bound(points, lam):
    # Titu's lemma gives G_L^2/(H_L+lam) + G_R^2/(H_R+lam) >= G^2/(H+2 lam), so the
    # bracket is >= G^2/(H+2 lam) - G^2/(H+lam), which is negative when G != 0 and lam > 0
    g = np.array([p[0] for p in points])
    h = np.array([p[1] for p in points])
    x = np.arange(g.size, dtype=float)
    _, dl, _ = split_objective_decreases(x, g, h, lam=lam, tau=0.0)
    G, H = g.sum(), h.sum()
    bound = 0.5 * (G * G / (H + 2 * lam) - G * G / (H + lam))
    assert np.all(dl >= bound - 1e-9 * (1 + G * G / lam))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(0.1, 2)), min_size=2, max_size=8))
def test_gain_bracket_never_negative_without_lambda(points):
    g = np.array([p[0] for p in points])
    h = np.array([p[1] for p in points])
    x = np.arange(g.size, dtype=float)
    _, dl, _ = split_objective_decreases(x, g, h, lam=0.0, tau=0.0)
    assert np.all(dl >= -1e-9 * (1 + np.sum(g * g / h)))


def test_gain_bracket_can_be_negative_with_lambda():
    # two children with the same mean gradient: the split only adds a lambda penalty
    _, dl, _ = split_objective_decreases(np.arange(2.0), np.ones(2), np.ones(2), lam=1.0)
    assert np.isclose(dl[0], 0.5 * (0.5 + 0.5 - 4 / 3))
    assert dl[0] < 0


# --- bad input -----------------------------------------------------------------------------


def test_bad_input():
    g = np.array([1.0, -1.0])
    h = np.ones(2)
    with pytest.raises(ValueError, match="lam"):
        minimise_leaf_objective(g, h, lam=-1.0)
    with pytest.raises(ValueError, match="h must be non-negative"):
        minimise_leaf_objective(g, -h)
    with pytest.raises(ValueError, match="positive"):
        minimise_leaf_objective(g, np.zeros(2), lam=0.0)
    with pytest.raises(ValueError, match="same shape|one shape"):
        minimise_leaf_objective(g, np.ones(3))
    with pytest.raises(ValueError, match="NaN"):
        minimise_leaf_objective(np.array([np.nan, 1.0]), h)
    with pytest.raises(ValueError, match="tau"):
        split_objective_decreases(np.arange(2.0), g, h, tau=-0.1)
    with pytest.raises(ValueError, match="leaf_index"):
        second_order_objective(g, h, np.array([0, 2]), np.zeros(2))
    with pytest.raises(ValueError, match="leaf_index"):
        regularised_objective("squared_error", g, g, np.array([0.0, 1.0]), np.zeros(2))
    with pytest.raises(ValueError, match="loss must be one of"):
        taylor_remainder("hinge", g, g, 0.1)
    with pytest.raises(ValueError, match="no minimiser"):
        minimise_leaf_loss("log_loss", np.ones(3), np.zeros(3), lam=0.0)
    with pytest.raises(ValueError, match="no feature"):
        best_split_brute_force(np.ones((3, 2)), np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="finite"):
        log_loss_remainder_bound(np.inf)
    with pytest.raises(TypeError, match="real numbers"):
        taylor_remainder("squared_error", np.array(["a"]), np.zeros(1), 0.1)
