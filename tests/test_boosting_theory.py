"""Unit tests for ensemble_ref.boosting_theory (chapters AdaBoost and Gradient boosting)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_ref import (
    DecisionStump,
    LinearBoostingRegressor,
    NotFittedError,
    best_stump_brute_force,
    line_search,
    reweight_misclassified,
    samme_exponential_loss,
    squared_error_step,
)

# --- best_stump_brute_force -------------------------------------------------------------------


def loop_stump_error(X, y, w):
    """Smallest stump error by plain Python loops over features, thresholds and labels."""
    w = w / w.sum()
    labels = np.unique(y)
    best = np.inf
    for j in range(X.shape[1]):
        values = sorted(set(X[:, j]))
        cuts = [(a + b) / 2 for a, b in zip(values[:-1], values[1:])] + [np.inf]
        for theta, a, b in itertools.product(cuts, labels, labels):
            pred = np.where(X[:, j] <= theta, a, b)
            best = min(best, float(np.sum(w[pred != y])))
    return best


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("K", [2, 3])
def test_brute_force_stump_matches_loops(seed, K):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(25, 3)), 1)  # rounding creates ties
    y = rng.integers(K, size=25)
    w = rng.exponential(size=25)
    err, j, theta = best_stump_brute_force(X, y, w)
    assert err == pytest.approx(loop_stump_error(X, y, w), abs=1e-12)
    # the returned stump attains the error with its best labelling
    left = X[:, j] <= theta
    wn = w / w.sum()
    attained = min(wn[left & (y != a)].sum() + wn[~left & (y != b)].sum()
                   for a in range(K) for b in range(K))
    assert attained == pytest.approx(err, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_brute_force_agrees_with_sorted_stump_search(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(60, 4))
    y = np.where(X[:, 1] + 0.5 * rng.normal(size=60) > 0, 1, -1)
    w = rng.dirichlet(np.ones(60))
    assert best_stump_brute_force(X, y, w)[0] == pytest.approx(
        DecisionStump().fit(X, y, sample_weight=w).error_, abs=1e-12)


def test_brute_force_finds_a_separating_stump():
    X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 3.0], [3.0, 2.0]])
    y = np.array([-1, -1, 1, 1])
    err, j, theta = best_stump_brute_force(X, y)
    assert err == 0.0 and j == 0 and theta == 1.5


def test_brute_force_validates_input():
    with pytest.raises(ValueError, match="at least 2 classes"):
        best_stump_brute_force(np.ones((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="sample_weight"):
        best_stump_brute_force(np.ones((3, 1)), [0, 1, 1], [1.0, -1.0, 1.0])


# --- reweight_misclassified -----------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10**6), st.floats(0.01, 0.49))
def test_literature_update_equals_exponential_update(seed, eps_target):
    rng = np.random.default_rng(seed)
    n = 30
    w = rng.dirichlet(np.ones(n))
    y = rng.choice([-1, 1], size=n)
    h = np.where(rng.random(n) < eps_target, -y, y)
    wrong = h != y
    eps = w[wrong].sum()
    if eps in (0.0, 1.0):
        return
    alpha = 0.5 * np.log((1 - eps) / eps)
    book = w * np.exp(-alpha * y * h)
    book /= book.sum()
    new = reweight_misclassified(w, wrong, 2 * alpha)
    assert new.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(new, book, rtol=1e-12)
    # the learner just used has weighted error exactly 1/2 under the new weights
    assert new[wrong].sum() == pytest.approx(0.5, abs=1e-12)


def test_reweight_validates_input():
    with pytest.raises(ValueError, match="misclassified"):
        reweight_misclassified([0.5, 0.5], [1, 0], 1.0)
    with pytest.raises(ValueError, match="weights"):
        reweight_misclassified([0.5, -0.5], [True, False], 1.0)
    with pytest.raises(ValueError, match="beta"):
        reweight_misclassified([0.5, 0.5], [True, False], np.nan)


# --- samme_exponential_loss --------------------------------------------------------------------


def test_samme_loss_reduces_to_binary_exponential_loss():
    rng = np.random.default_rng(3)
    f = rng.normal(size=20)
    y = rng.integers(2, size=20)
    F = np.column_stack([-f, f])  # scores summing to zero
    np.testing.assert_allclose(samme_exponential_loss(y, F, 2), np.exp(-(2 * y - 1) * f),
                               rtol=1e-14)


def test_samme_loss_values_for_three_classes():
    y = np.array([0, 2])
    F = np.array([[2.0, -1.0, -1.0], [0.0, 0.0, 0.0]])
    # Y_0 = (1, -1/2, -1/2): Y.F = 2 + 1/2 + 1/2 = 3; loss = exp(-3/3)
    np.testing.assert_allclose(samme_exponential_loss(y, F, 3), [np.exp(-1.0), 1.0], rtol=1e-15)


def test_samme_loss_validates_input():
    with pytest.raises(ValueError, match="class indices"):
        samme_exponential_loss([0, 3], np.zeros((2, 3)), 3)
    with pytest.raises(ValueError, match="shape"):
        samme_exponential_loss([0, 1], np.zeros((2, 2)), 3)
    with pytest.raises(ValueError, match="n_classes"):
        samme_exponential_loss([0, 1], np.zeros((2, 1)), 1)


# --- line search ----------------------------------------------------------------------------


def test_line_search_squared_error_matches_closed_form():
    rng = np.random.default_rng(4)
    y, F, h = rng.normal(size=(3, 50))
    rho = line_search("squared_error", y, F, h)
    assert rho == pytest.approx(squared_error_step(y - F, h), rel=1e-7)
    assert squared_error_step(y - F, h) == pytest.approx((y - F) @ h / (h @ h), rel=1e-14)


def test_line_search_exponential_loss_gives_the_adaboost_vote():
    rng = np.random.default_rng(5)
    y = rng.choice([-1.0, 1.0], size=40)
    h = np.where(rng.random(40) < 0.3, -y, y)
    F = rng.normal(size=40)
    w = np.exp(-y * F) / np.exp(-y * F).sum()
    eps = w[h != y].sum()
    assert line_search("exponential", y, F, h) == pytest.approx(0.5 * np.log((1 - eps) / eps),
                                                                rel=1e-7)


def test_line_search_absolute_error_gives_the_median():
    rng = np.random.default_rng(6)
    y = rng.normal(size=31)
    F = rng.normal(size=31)
    assert line_search("absolute_error", y, F, np.ones(31)) == pytest.approx(
        np.median(y - F), abs=1e-7)


def test_line_search_log_loss_has_zero_derivative():
    rng = np.random.default_rng(7)
    y = rng.integers(2, size=40).astype(float)
    F = rng.normal(size=40)
    h = rng.normal(size=40)
    rho = line_search("log_loss", y, F, h)
    p = 1 / (1 + np.exp(-(F + rho * h)))
    assert abs(np.sum((p - y) * h)) < 1e-6


def test_line_search_rejects_bad_directions():
    y = np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="no minimum"):
        line_search("exponential", y, np.zeros(2), y)
    with pytest.raises(ValueError, match="no minimum"):
        line_search("log_loss", np.array([1.0, 0.0]), np.zeros(2), np.array([-1.0, 2.0]))
    with pytest.raises(ValueError, match="zero everywhere"):
        line_search("squared_error", y, np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="loss must be one of"):
        line_search("hinge", y, np.zeros(2), y)
    with pytest.raises(ValueError, match="one shape"):
        line_search("squared_error", y, np.zeros(3), y)
    with pytest.raises(ValueError, match="zero everywhere"):
        squared_error_step([1.0, 2.0], [0.0, 0.0])


# --- LinearBoostingRegressor ---------------------------------------------------------------


def make_linear_data(seed, n=80, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=n)
    return X, y


def ols_predictions(X, y):
    A = np.column_stack([np.ones(len(y)), X])
    return A @ np.linalg.lstsq(A, y, rcond=None)[0]


@pytest.mark.parametrize("nu", [0.1, 0.5, 1.0])
def test_full_linear_boosting_is_a_shrunk_ols_fit(nu):
    X, y = make_linear_data(0)
    M = 7
    model = LinearBoostingRegressor(n_estimators=M, learning_rate=nu).fit(X, y)
    expected = y.mean() + (1 - (1 - nu) ** M) * (ols_predictions(X, y) - y.mean())
    np.testing.assert_allclose(model.predict(X), expected, rtol=1e-10, atol=1e-10)


def test_componentwise_boosting_converges_to_ols():
    X, y = make_linear_data(1)
    model = LinearBoostingRegressor(n_estimators=2000, learning_rate=0.5,
                                    componentwise=True).fit(X, y)
    np.testing.assert_allclose(model.predict(X), ols_predictions(X, y), atol=1e-6)
    assert np.all(np.diff(model.train_score_) <= 1e-12)  # least squares never increases
    assert np.count_nonzero(model.coefs_[0]) == 1  # one feature per learner


@pytest.mark.parametrize("componentwise", [False, True])
def test_boosted_linear_model_is_affine(componentwise):
    X, y = make_linear_data(2)
    model = LinearBoostingRegressor(n_estimators=30, learning_rate=0.3,
                                    componentwise=componentwise).fit(X, y)
    rng = np.random.default_rng(8)
    A, B = rng.normal(size=(2, 10, 3))
    lam = rng.random(10)[:, None]
    mixed = model.predict(lam * A + (1 - lam) * B)
    np.testing.assert_allclose(mixed, lam[:, 0] * model.predict(A)
                               + (1 - lam[:, 0]) * model.predict(B), atol=1e-12)


def test_linear_boosting_staged_predict_and_validation():
    X, y = make_linear_data(3)
    model = LinearBoostingRegressor(n_estimators=5, learning_rate=0.2)
    with pytest.raises(NotFittedError):
        model.predict(X)
    model.fit(X, y)
    stages = list(model.staged_predict(X))
    assert len(stages) == 5
    np.testing.assert_allclose(stages[-1], model.predict(X))
    np.testing.assert_allclose([np.mean((y - s) ** 2) for s in stages], model.train_score_,
                               rtol=1e-12)
    with pytest.raises(ValueError, match="learning_rate"):
        LinearBoostingRegressor(learning_rate=1.5).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        LinearBoostingRegressor(n_estimators=0).fit(X, y)
    with pytest.raises(TypeError, match="componentwise"):
        LinearBoostingRegressor(componentwise="yes").fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        LinearBoostingRegressor().fit(X, np.full(len(y), np.nan))


# --- data generators appended to ensemble_ref.datasets ------------------------------------------


def test_flip_labels_flips_exactly_the_requested_number():
    from ensemble_ref import flip_labels

    y = np.array([-1, 1] * 50)
    y_noisy, flipped = flip_labels(y, 0.23, random_state=0)
    assert flipped.sum() == 23
    assert np.all(y_noisy[flipped] == -y[flipped]) and np.all(y_noisy[~flipped] == y[~flipped])
    again, flipped2 = flip_labels(y, 0.23, random_state=0)
    np.testing.assert_array_equal(again, y_noisy)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        flip_labels([0, 1, 2], 0.1, random_state=0)
    with pytest.raises(ValueError, match="fraction"):
        flip_labels(y, 1.5, random_state=0)


def test_rings_have_equal_class_probabilities_and_reduce_to_the_circle():
    from ensemble_ref import make_circle_classification, make_rings_classification

    X, y = make_rings_classification(30000, n_classes=4, random_state=1)
    freq = np.bincount(y, minlength=4) / len(y)
    assert np.all(np.abs(freq - 0.25) < 4 * np.sqrt(0.25 * 0.75 / len(y)))
    r2 = X[:, 0] ** 2 + X[:, 1] ** 2
    assert np.all(np.diff([r2[y == k].max() for k in range(4)]) > 0)  # rings, inside out
    Xc, yc = make_circle_classification(200, random_state=2)
    Xr, yr = make_rings_classification(200, n_classes=2, random_state=2)
    np.testing.assert_array_equal(Xc, Xr)
    np.testing.assert_array_equal(yc, yr)
    with pytest.raises(ValueError, match="n_classes"):
        make_rings_classification(10, n_classes=1)
