"""Tests of the mixture-of-experts formulas, the EM estimator and the exercises' self-checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import norm

from ensemble_ref.ensembles.mixture_of_experts import MixtureOfExperts, make_piecewise_linear
from ensemble_ref.math import mixture
from ensemble_ref.math.mixture import (
    expert_load,
    gate_objective,
    linear_gaussian_log_density,
    load_balancing_loss,
    mixture_log_likelihood,
    responsibilities,
    route_scores,
    softmax,
    softmax_gate,
    top_k_gate,
    top_k_route,
)
from ensembles_verified.selfcheck import mixture as sc


@pytest.fixture(scope="module")
def regimes():
    X, y, regime = make_piecewise_linear(500, noise=0.3, random_state=1)
    model = MixtureOfExperts(n_experts=3, n_init=3, random_state=0).fit(X, y)
    return X, y, regime, model


# --- formulas -------------------------------------------------------------------------------


def test_gate_sums_to_one_and_is_shift_invariant():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    V = rng.normal(scale=5, size=(4, 4))
    G = softmax_gate(X, V)
    assert G.shape == (50, 4) and np.all(G >= 0)
    np.testing.assert_allclose(G.sum(axis=1), 1.0, atol=1e-14)
    np.testing.assert_allclose(softmax_gate(X, V + rng.normal(size=4)), G, atol=1e-12)
    np.testing.assert_allclose(softmax(np.array([[1000.0, 1000.0]])), [[0.5, 0.5]])


def test_responsibilities_match_bayes_rule():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    W, s2 = rng.normal(size=(3, 3)), np.array([0.5, 1.0, 2.0])
    G = softmax_gate(X, rng.normal(size=(3, 3)))
    L = linear_gaussian_log_density(X, y, W, s2)
    dens = norm.pdf(y[:, None], loc=np.column_stack([np.ones(40), X]) @ W.T, scale=np.sqrt(s2))
    np.testing.assert_allclose(np.exp(L), dens, rtol=1e-12)
    np.testing.assert_allclose(responsibilities(G, L), G * dens / (G * dens).sum(1, keepdims=True),
                               atol=1e-14)


def test_log_likelihood_against_scipy_and_underflow():
    rng = np.random.default_rng(2)
    G = rng.dirichlet(np.ones(3), size=30)
    mu, sd, y = rng.normal(size=(30, 3)), np.array([0.3, 1.0, 2.0]), rng.normal(size=30)
    L = norm.logpdf(y[:, None], loc=mu, scale=sd)
    expected = np.sum(np.log(np.sum(G * norm.pdf(y[:, None], loc=mu, scale=sd), axis=1)))
    assert mixture_log_likelihood(G, L) == pytest.approx(expected, rel=1e-12)
    # densities of e^-2000 underflow to 0, the log-likelihood does not
    assert mixture_log_likelihood(np.array([[0.5, 0.5]]), np.array([[-2000.0, -2001.0]])) == \
        pytest.approx(np.log(0.5) - 2000 + np.log1p(np.exp(-1.0)), rel=1e-12)
    r = responsibilities(np.array([[0.5, 0.5]]), np.array([[-2000.0, -2001.0]]))
    np.testing.assert_allclose(r, [[1 / (1 + np.exp(-1)), 1 - 1 / (1 + np.exp(-1))]])


def test_row_reductions_are_numpys():
    """The softmax's row maximum and row sum, taken column by column for a few columns, are
    numpy's ``np.max`` and ``np.sum`` along the rows bit for bit, for every layout and size."""
    rng = np.random.default_rng(3)
    for trial in range(400):
        E, n = int(rng.integers(1, 10)), int(rng.choice([0, 1, 2, 7, 8, 9, 600, 5000]))
        A = rng.normal(size=(n + 2, E + 2)) * np.exp(rng.normal(0, 8, size=(n + 2, E + 2)))
        if trial % 3 == 0:
            special = rng.random(A.shape) < 0.05
            A[special] = rng.choice([np.inf, -np.inf, np.nan, 0.0, -0.0], size=special.sum())
        A = A.astype(np.float32 if trial % 4 == 0 else np.float64)
        for B in (A[:n, :E].copy(), np.asfortranarray(A[:n, :E]), A[:n, 1:E + 1]):
            for ufunc, values in ((np.maximum, B), (np.add, np.abs(B))):  # sums of exp(.) >= +0
                with np.errstate(invalid="ignore", over="ignore"):
                    expected, got = ufunc.reduce(values, axis=1, keepdims=True), \
                        mixture._row_reduce(ufunc, values)
                assert got.shape == expected.shape and got.dtype == expected.dtype
                np.testing.assert_array_equal(got, expected)
                finite = ~np.isnan(expected)
                assert np.array_equal(np.signbit(got[finite]), np.signbit(expected[finite]))


def test_top_k_routing():
    G = np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4]])
    experts, weights = top_k_route(G, 2)
    np.testing.assert_array_equal(experts, [[1, 2], [2, 0]])  # ties to the lower index
    np.testing.assert_allclose(weights, [[5 / 9, 4 / 9], [4 / 7, 3 / 7]])
    np.testing.assert_allclose(top_k_gate(G, 1), [[0, 1, 0], [0, 0, 1]])
    np.testing.assert_allclose(top_k_gate(G, 3), G)
    with pytest.raises(ValueError, match="k must"):
        top_k_gate(G, 4)
    with pytest.raises(TypeError, match="k must"):
        top_k_gate(G, 1.5)


def test_routing_from_scores_per_family():
    # scores of 2 inputs over 4 experts, worked by hand: p = exp(s) / sum exp(s)
    S = np.array([[2.0, 0.0, 1.0, -1.0], [0.0, 3.0, 0.0, 1.0]])
    p = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)
    # Switch Transformer: top 1, the softmax probability of the chosen expert, not renormalised
    experts, weights = route_scores(S, 1, renormalise=False)
    np.testing.assert_array_equal(experts, [[0], [1]])
    np.testing.assert_allclose(weights[:, 0], [p[0, 0], p[1, 1]], rtol=1e-14)
    assert np.all(weights < 1)
    # renormalised top 1: the weight is exactly 1, whatever the scores
    _, weights = route_scores(S, 1, renormalise=True)
    assert np.array_equal(weights, np.ones((2, 1)))
    # Mixtral: top 2 renormalised = the softmax over the two largest scores
    experts, weights = route_scores(S, 2, renormalise=True)
    np.testing.assert_array_equal(experts, [[0, 2], [1, 3]])
    np.testing.assert_allclose(weights, [[np.e / (np.e + 1), 1 / (np.e + 1)],
                                         [np.e**2 / (np.e**2 + 1), 1 / (np.e**2 + 1)]], rtol=1e-14)
    # norm_topk_prob: false: top 2 not renormalised; the rows miss the dropped experts' mass
    experts, weights = route_scores(S, 2, renormalise=False)
    np.testing.assert_allclose(weights, np.take_along_axis(p, experts, axis=1), rtol=1e-14)
    dropped = np.array([p[0, 1] + p[0, 3], p[1, 0] + p[1, 2]])
    np.testing.assert_allclose(weights.sum(axis=1), 1 - dropped, rtol=1e-14)
    # the dense gate agrees, and k = E without renormalising is the softmax itself
    np.testing.assert_allclose(top_k_gate(p, 4, renormalise=False), p, rtol=1e-14)
    np.testing.assert_allclose(top_k_gate(p, 2, renormalise=False).sum(axis=1), 1 - dropped)
    with pytest.raises(TypeError, match="renormalise"):
        route_scores(S, 1, renormalise="no")
    with pytest.raises(ValueError, match="finite"):
        route_scores(np.array([[np.inf, 0.0]]), 1, renormalise=True)


def test_balancing_loss_minimum_at_uniform():
    rng = np.random.default_rng(3)
    for E in (2, 3, 8):
        n = 40 * E
        uniform = np.full((n, E), 1 / E)
        assert load_balancing_loss(uniform, np.repeat(np.arange(E), 40)) == pytest.approx(1.0, abs=1e-14)
        for _ in range(200):
            counts = rng.multinomial(n, rng.dirichlet(np.full(E, 0.5)))
            q = counts / n
            loss = load_balancing_loss(np.tile(q, (n, 1)), np.repeat(np.arange(E), counts))
            assert loss == pytest.approx(E * np.sum(q**2), rel=1e-12)
            assert loss >= 1 - 1e-12
    gate = np.array([[0.55, 0.45]] * 60 + [[0.0, 1.0]] * 40)
    assert load_balancing_loss(gate, gate.argmax(axis=1)) == pytest.approx(0.932)
    np.testing.assert_allclose(expert_load(np.array([[0, 1], [1, 2]]), 3), [0.25, 0.5, 0.25])


def test_formulas_reject_bad_input():
    with pytest.raises(ValueError, match="gate"):
        responsibilities(np.array([[0.5, 0.6]]), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="log_density"):
        responsibilities(np.array([[0.5, 0.5]]), np.zeros((1, 3)))
    with pytest.raises(ValueError, match="V must"):
        softmax_gate(np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="sigma2"):
        linear_gaussian_log_density(np.zeros((2, 1)), np.zeros(2), np.zeros((2, 2)), [1.0, 0.0])
    with pytest.raises(ValueError, match="assignment"):
        load_balancing_loss(np.full((2, 2), 0.5), np.array([0, 2]))
    with pytest.raises(TypeError, match="assignment"):
        load_balancing_loss(np.full((2, 2), 0.5), np.array([0.0, 1.0]))


# --- the estimator --------------------------------------------------------------------------


def test_em_is_monotone_and_deterministic(regimes):
    X, y, _, model = regimes
    steps = np.diff(model.log_likelihoods_)
    assert np.all(steps >= -1e-9 * abs(model.log_likelihood_))
    again = MixtureOfExperts(n_experts=3, n_init=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.log_likelihoods_, model.log_likelihoods_)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert model.log_likelihood(X, y) == pytest.approx(model.log_likelihood_, rel=1e-12)
    for seed in range(1, 6):
        run = MixtureOfExperts(n_experts=3, random_state=seed).fit(X, y)
        assert np.all(np.diff(run.log_likelihoods_) >= -1e-9 * abs(run.log_likelihood_))


def test_em_records_the_public_formulas_exactly(regimes):
    """EM's log-likelihoods are those of the public formulas on the fitted gate and experts,
    bit for bit (EM calls their unvalidated forms on the arrays fit validated)."""
    X, y, _, model = regimes
    for k in (1, 2, 5):
        run = MixtureOfExperts(n_experts=3, max_iter=k, random_state=k).fit(X, y)
        G = softmax_gate(X, run.gate_coef_)
        L = linear_gaussian_log_density(X, y, run.expert_coef_, run.expert_variance_)
        assert mixture_log_likelihood(G, L) == run.log_likelihood_
    assert model.log_likelihood(X, y) == model.log_likelihood_


def test_recovers_two_known_regimes():
    X, y, regime = make_piecewise_linear(400, breaks=[0.0], intercepts=[1.0, -1.0],
                                         slopes=[2.0, -1.0], noise=0.2, random_state=4)
    model = MixtureOfExperts(n_experts=2, n_init=3, random_state=0).fit(X, y)
    X_t, y_t, regime_t = make_piecewise_linear(4000, breaks=[0.0], intercepts=[1.0, -1.0],
                                               slopes=[2.0, -1.0], noise=0.2, random_state=5)
    assigned = model.assign(X_t)
    agreement = max(np.mean(np.array(p)[assigned] == regime_t) for p in itertools.permutations(range(2)))
    assert agreement > 0.97
    coef = model.expert_coef_[np.argsort(model.expert_coef_[:, 1])]  # by slope: (-1, 2)
    np.testing.assert_allclose(coef, [[-1.0, -1.0], [1.0, 2.0]], atol=0.15)
    np.testing.assert_allclose(np.sqrt(model.expert_variance_), 0.2, atol=0.03)
    np.testing.assert_allclose(model.gate_probabilities(X_t).sum(axis=1), 1.0, atol=1e-12)


def test_routed_prediction_counts_and_dense_limit(regimes):
    X, _, _, model = regimes
    for k in (1, 2, 3):
        routed = model.predict_routed(X, k)
        assert routed.evaluations.sum() == k * len(X)
    np.testing.assert_allclose(model.predict(X, top_k=3), model.predict(X), atol=1e-12)


def test_get_set_params_and_fit_returns_self():
    model = MixtureOfExperts(n_experts=4, random_state=3)
    params = model.get_params()
    assert params["n_experts"] == 4 and params["random_state"] == 3 and params["tol"] == 1e-8
    assert model.set_params(max_iter=7) is model and model.max_iter == 7
    with pytest.raises(ValueError, match="Invalid parameter"):
        model.set_params(n_expert=2)
    X, y, _ = make_piecewise_linear(60, random_state=0)
    assert model.fit(X, y) is model and model.n_iter_ <= 7
    assert all(name.endswith("_") for name in vars(model) if name not in params)


@pytest.mark.parametrize("params, name, error", [
    ({"n_experts": 0}, "n_experts", ValueError),
    ({"n_experts": 1000}, "n_experts", ValueError),
    ({"n_experts": 2.5}, "n_experts", TypeError),
    ({"max_iter": 0}, "max_iter", ValueError),
    ({"tol": -1.0}, "tol", ValueError),
    ({"gate_steps": 0}, "gate_steps", ValueError),
    ({"n_init": 0}, "n_init", ValueError),
    ({"min_variance": 0.0}, "min_variance", ValueError),
    ({"random_state": "seed"}, "random_state", TypeError),
])
def test_bad_parameters_raise_naming_the_parameter(params, name, error):
    X, y, _ = make_piecewise_linear(50, random_state=0)
    with pytest.raises(error, match=name):
        MixtureOfExperts(**params).fit(X, y)


def test_bad_data_raise():
    X, y, _ = make_piecewise_linear(50, random_state=0)
    with pytest.raises(ValueError, match="X"):
        MixtureOfExperts().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="y"):
        MixtureOfExperts().fit(X, np.r_[y[:-1], np.nan])
    model = MixtureOfExperts(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="top_k"):
        model.predict(X, top_k=3)
    with pytest.raises(AttributeError):
        MixtureOfExperts().predict(X)


# --- the self-checks ----------------------------------------------------------------------


def _student_responsibilities(gate, log_density):
    joint = gate * np.exp(log_density)
    return joint / joint.sum(axis=1, keepdims=True)


def _student_top_k(gate, k):
    chosen = np.argsort(-gate, axis=1, kind="stable")[:, :k]
    out = np.zeros_like(gate)
    values = np.take_along_axis(gate, chosen, axis=1)
    np.put_along_axis(out, chosen, values / values.sum(axis=1, keepdims=True), axis=1)
    return out


def _student_balance(gate, assignment):
    n, E = gate.shape
    return E * float(np.bincount(assignment, minlength=E) / n @ gate.mean(axis=0))


@pytest.mark.parametrize("check, good", [
    (sc.check_responsibilities, responsibilities),
    (sc.check_responsibilities, _student_responsibilities),
    (sc.check_top_k_gate, top_k_gate),
    (sc.check_top_k_gate, _student_top_k),
    (sc.check_load_balancing_loss, load_balancing_loss),
    (sc.check_load_balancing_loss, _student_balance),
])
def test_selfchecks_accept_correct_solutions(check, good, capsys):
    check(good)
    check(good, random_state=123)
    assert capsys.readouterr().out.startswith("\u2714")


@pytest.mark.parametrize("check, wrong, hint", [
    (sc.check_responsibilities, lambda g, l: g * np.exp(l), "not normalised over the experts"),
    (sc.check_responsibilities, lambda g, l: np.exp(l) / np.exp(l).sum(1, keepdims=True), "gate's prior"),
    (sc.check_responsibilities, lambda g, l: g, "likelihood left out"),
    (sc.check_top_k_gate, lambda g, k: np.where(_student_top_k(g, k) > 0, g, 0.0), "without renormalising"),
    (sc.check_load_balancing_loss, lambda g, a: _student_balance(g, a) / g.shape[1], "without the factor E"),
])
def test_selfchecks_explain_typical_mistakes(check, wrong, hint):
    with pytest.raises(AssertionError) as info:
        check(wrong)
    message = str(info.value)
    assert "eq-moe" in message and "received" in message and "case" in message
    assert "expected" not in message  # a self-check names the case and the idea, never the reference value
    assert hint in message


def test_selfchecks_report_shape_none_and_exceptions():
    with pytest.raises(AssertionError, match="shape"):
        sc.check_top_k_gate(lambda g, k: g[:, :k])
    with pytest.raises(AssertionError, match="return"):
        sc.check_load_balancing_loss(lambda g, a: None)
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        sc.check_responsibilities(lambda g, l: 1 / 0)
    with pytest.raises(TypeError, match="callable"):
        sc.check_responsibilities(3)
    with pytest.raises(TypeError, match="positional"):
        sc.check_top_k_gate(lambda g: g)
    assert gate_objective(np.full((2, 2), 0.5), np.array([[1.0, 0.0], [0.5, 0.5]])) == \
        pytest.approx(2 * np.log(0.5))
