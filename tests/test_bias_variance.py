"""Unit tests for ensemble_ref.bias_variance."""

import numpy as np
import pytest

from ensemble_ref import (
    bias_variance_decomposition,
    decompose_predictions,
    equicorrelated_normals,
    expected_squared_error,
    member_covariance,
    simulate_predictions,
    sine_function,
    variance_of_average,
)


class MeanPredictor:
    """Predicts the training mean everywhere: its bias and variance are known in closed form."""

    def __init__(self, seed=None):
        self.seed = seed

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


class NoisyMeanPredictor(MeanPredictor):
    """A random estimator: the training mean plus its own seeded N(0, 1) jitter."""

    def fit(self, X, y):
        super().fit(X, y)
        self.mean_ += np.random.default_rng(self.seed).standard_normal()
        return self


# For f(x) = sin(2 pi x) + 2x, x ~ U[0, 1]:  E f = 1  and  Var f = 1/2 - 2/pi + 1/3.
E_F, VAR_F = 1.0, 0.5 - 2 / np.pi + 1 / 3
X_TEST = np.linspace(0, 1, 41)[:, None]
F_TEST = sine_function(X_TEST)


def test_mean_predictor_decomposition_matches_closed_form():
    N, sigma, R = 20, 0.5, 4000
    bv = bias_variance_decomposition(MeanPredictor, X_TEST, R, random_state=0, n_train=N,
                                     noise=sigma)
    variance = (VAR_F + sigma**2) / N  # Var of the mean of N noisy targets
    bias2 = np.mean((E_F - F_TEST) ** 2)
    # Sample variance of R values: relative s.e. sqrt(2/(R-1)) ~ 2.2%.
    assert bv.variance == pytest.approx(variance, rel=0.09)
    assert abs(bv.variance - variance) < 4 * bv.variance_se
    assert bv.bias2 == pytest.approx(bias2, abs=4 * np.sqrt(4 * bias2 * variance / R))
    assert bv.noise == sigma**2
    assert bv.total == pytest.approx(bv.bias2 + bv.variance + bv.noise)
    assert bv.predictions.shape == (R, len(X_TEST))
    assert np.allclose(bv.variance_pointwise, bv.variance_pointwise[0])  # constant predictor


def test_bias_correction_removes_the_monte_carlo_inflation():
    # A predictor whose bias is zero at x where f(x) = E f: the plug-in (f_bar - f)^2 is about
    # var / R there, the corrected estimate is about 0.
    R = 50
    X = np.array([[0.0], [1.0]])  # f(0) = 0, f(1) = 2; E f = 1: bias^2 = 1 at both points
    biases = []
    for seed in range(40):
        bv = bias_variance_decomposition(MeanPredictor, X, R, random_state=seed, n_train=5,
                                         noise=1.0)
        biases.append(bv.bias2)
    variance = (VAR_F + 1.0) / 5
    assert abs(np.mean(biases) - 1.0) < 4 * np.std(biases) / np.sqrt(40)
    assert abs(np.mean(biases) - 1.0) < variance / R  # smaller than the inflation it removes


def test_decomposition_agrees_with_direct_error():
    kw = dict(n_train=15, noise=0.7)
    bv = bias_variance_decomposition(NoisyMeanPredictor, X_TEST, 1500, random_state=1, **kw)
    # From an independent run ...
    P = simulate_predictions(NoisyMeanPredictor, X_TEST, 1500, random_state=2, **kw)
    err = expected_squared_error(P, F_TEST, 0.7, random_state=3)
    assert abs(bv.total - err.mean) < 4 * np.hypot(bv.total_se, err.se)
    # ... and from the same fits with fresh noise (common random numbers: a sharper check).
    same = expected_squared_error(bv.predictions, F_TEST, 0.7, random_state=4)
    d = same.values - bv.total_values
    assert abs(d.mean()) < 4 * d.std(ddof=1) / np.sqrt(d.size)
    assert d.std() < 0.5 * same.values.std()  # the pairing removes most of the fit-to-fit noise
    # More fresh draws per predictor shrink the noise of the comparison like 1/sqrt(n_draws).
    many = expected_squared_error(bv.predictions, F_TEST, 0.7, random_state=5, n_draws=100)
    d100 = many.values - bv.total_values
    assert abs(d100.mean()) < 4 * d100.std(ddof=1) / np.sqrt(d100.size)
    assert d100.std() < 0.2 * d.std()
    # The random estimator's own jitter adds exactly 1 to the variance.
    assert bv.variance == pytest.approx((VAR_F + 0.49) / 15 + 1.0, rel=0.1)
    assert np.isclose(bv.total_values.mean(), bv.total)


def test_decompose_predictions_identity_and_validation():
    rng = np.random.default_rng(0)
    P = rng.normal(size=(30, 5))
    f = rng.normal(size=5)
    bv = decompose_predictions(P, f, 0.3)
    # bias^2 + variance equals the mean squared deviation from f, up to the 1/R corrections.
    plug_in = np.mean((P.mean(axis=0) - f) ** 2) + np.mean(P.var(axis=0, ddof=0))
    assert np.isclose(bv.bias2 + bv.variance, np.mean((P - f) ** 2))
    assert np.isclose(plug_in, np.mean((P - f) ** 2))
    assert bv.variance == pytest.approx(np.mean(P.var(axis=0, ddof=1)))
    with pytest.raises(ValueError, match="predictions"):
        decompose_predictions(P[:1], f, 0.3)
    with pytest.raises(ValueError, match="f_test"):
        decompose_predictions(P, f[:3], 0.3)
    with pytest.raises(ValueError, match="noise"):
        decompose_predictions(P, f, -1.0)
    with pytest.raises(ValueError, match="predictions"):
        expected_squared_error(np.full((3, 5), np.nan), f, 0.3, 0)
    with pytest.raises(ValueError, match="n_draws"):
        expected_squared_error(P, f, 0.3, 0, n_draws=0)


def test_member_covariance_recovers_equicorrelated_members():
    # R training sets, M members, n test points: members share a part of variance rho sigma^2.
    R, M, n, rho, sigma = 3000, 6, 4, 0.35, 1.5
    rng = np.random.default_rng(5)
    P = np.stack([equicorrelated_normals(M, rho, R, rng, sigma=sigma) for _ in range(n)], axis=2)
    mc = member_covariance(P + 10.0)  # a constant shift changes nothing
    assert mc.sigma2 == pytest.approx(sigma**2, rel=0.06)
    assert mc.rho == pytest.approx(rho, abs=0.04)
    for m in [1, 3, 6]:
        predicted = mc.average_variance(m)
        measured = P[:, :m].mean(axis=1).var(axis=0, ddof=1).mean()
        assert abs(predicted.mean - variance_of_average(sigma**2, rho, m)) < 4 * predicted.se
        if m == 1:
            assert np.isclose(predicted.mean, mc.sigma2)
        if m == M:  # with all members the identity is exact on the sample
            assert np.isclose(predicted.mean, measured)
    with pytest.raises(ValueError, match="M >= 2"):
        member_covariance(P[:, :1])
    with pytest.raises(ValueError, match="do not vary"):
        member_covariance(np.ones((5, 3, 2)))


def test_simulate_predictions_is_seeded_and_accepts_a_custom_predict():
    a = simulate_predictions(NoisyMeanPredictor, X_TEST, 5, random_state=3)
    b = simulate_predictions(NoisyMeanPredictor, X_TEST, 5, random_state=np.random.default_rng(3))
    assert np.array_equal(a, b)
    both = simulate_predictions(MeanPredictor, X_TEST, 4, 0,
                                predict=lambda m, X: np.stack([m.predict(X), -m.predict(X)]))
    assert both.shape == (4, 2, len(X_TEST)) and np.allclose(both[:, 0], -both[:, 1])


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(n_repeats=1), ValueError, "n_repeats"),
    (dict(n_train=0), ValueError, "n_train"),
    (dict(noise=-0.1), ValueError, "noise"),
    (dict(X_test=np.array([0.1, 0.2])), ValueError, "X_test"),
    (dict(estimator_factory=3), TypeError, "estimator_factory"),
])
def test_bad_input(kwargs, exc, match):
    args = dict(estimator_factory=MeanPredictor, X_test=X_TEST, n_repeats=5, random_state=0)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        bias_variance_decomposition(**args)


# --- variance of an average ---------------------------------------------------------------


@pytest.mark.parametrize("rho, M", [(0.0, 1), (0.0, 10), (0.3, 5), (0.9, 50), (-0.2, 4)])
def test_variance_of_average_equals_the_covariance_matrix_sum(rho, M):
    sigma2 = 2.5
    Sigma = sigma2 * (rho * np.ones((M, M)) + (1 - rho) * np.eye(M))
    expected = np.ones(M) @ Sigma @ np.ones(M) / M**2  # Var(mean) = 1' Sigma 1 / M^2
    assert variance_of_average(sigma2, rho, M) == pytest.approx(expected, rel=1e-12)


def test_variance_of_average_broadcasts_and_validates():
    v = variance_of_average(1.0, np.array([[0.0], [0.5]]), np.array([1, 2, 4]))
    assert v.shape == (2, 3) and np.allclose(v[1], [1.0, 0.75, 0.625])
    with pytest.raises(ValueError, match="rho"):
        variance_of_average(1.0, 1.5, 3)
    with pytest.raises(ValueError, match="-1/\\(M-1\\)"):
        variance_of_average(1.0, -0.6, 3)
    with pytest.raises(ValueError, match="M"):
        variance_of_average(1.0, 0.5, 0)
    with pytest.raises(ValueError, match="sigma2"):
        variance_of_average(-1.0, 0.5, 3)


@pytest.mark.parametrize("rho, M", [(0.0, 3), (0.4, 8), (1.0, 5)])
def test_equicorrelated_normals_have_the_requested_moments(rho, M):
    n = 40_000
    Z = equicorrelated_normals(M, rho, n, random_state=4, sigma=2.0)
    assert Z.shape == (n, M)
    assert np.allclose(Z.var(axis=0), 4.0, rtol=0.05)
    if M > 1:
        C = np.corrcoef(Z, rowvar=False)
        assert np.allclose(C[~np.eye(M, dtype=bool)], rho, atol=0.03)
    mean_var = Z.mean(axis=1).var(ddof=1)
    expected = variance_of_average(4.0, rho, M)
    assert abs(mean_var - expected) < 4 * expected * np.sqrt(2 / (n - 1))
