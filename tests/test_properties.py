"""Invariants stated in the book, checked on many generated cases (hypothesis).

* A bootstrap sample's out-of-bag fraction lies in [0, (N-1)/N], is a multiple
  of 1/N, and its expectation is (1 - 1/N)^N: exactly, by enumerating all N^N
  equally likely samples for small N, and within Monte Carlo error for larger N.
* Condorcet: for every eps in (0, 1/2) and odd T the exact majority error of T
  independent voters of accuracy 1/2 + eps (checked against scipy's binomial
  distribution) lies below (1/2) (1 - 4 eps^2)^(T/2).
* Cantelli: on sampled discrete distributions, neither tail
  P[X >= mu + lam] nor P[X <= mu - lam] exceeds sigma^2 / (sigma^2 + lam^2), and
  the two-point extremal distribution attains it.
* Bagging with one member, ``bootstrap=False`` and ``max_samples=1.0`` trains
  that member on the whole data set once, so it predicts exactly as the base
  estimator does.
* Metamorphic relations: trees and forests are invariant to strictly monotone
  transforms of the features; an integer weight equals repeated rows; renaming
  the classes renames the predictions; shifting and scaling ``y`` shifts and
  scales a regressor's predictions.

Hypothesis runs derandomised (the same examples on every run) with a modest
number of examples, so the suite is fast and deterministic.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from ensemble_ref import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    DecisionStump,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    GradientBoostingRegressor,
    LeastSquaresRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    SoftmaxRegression,
    cantelli_bound,
    cantelli_extremal,
    condorcet_bound,
    majority_error,
    oob_fraction_exact,
    oob_fractions,
    oob_mask,
)
from ensemble_ref.core.base import clone

PROPERTY = settings(derandomize=True, max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


# ------------------------------------------------------------------ bootstrap / OOB

def oob_variance(N: int) -> float:
    """Variance of the OOB fraction of one bootstrap sample of size N (independent formula).

    With I_i the indicator that point i is out of bag, Var(sum I_i) = N P1 (1 - P1)
    + N (N - 1) (P2 - P1^2), P1 = (1 - 1/N)^N and P2 = (1 - 2/N)^N, the probability
    that two given points are both out of bag.
    """
    P1, P2 = (1 - 1 / N) ** N, (1 - 2 / N) ** N
    return (N * P1 * (1 - P1) + N * (N - 1) * (P2 - P1**2)) / N**2


@PROPERTY
@given(N=st.integers(1, 300), R=st.integers(1, 50), seed=SEEDS)
def test_oob_fraction_lies_in_unit_interval_on_the_grid(N, R, seed):
    f = oob_fractions(N, R, seed)
    assert f.shape == (R,)
    assert np.all((f >= 0) & (f <= 1)), f
    assert np.all(f <= (N - 1) / N + 1e-12), "a bootstrap sample always draws some point"
    k = f * N  # number of points left out
    assert np.allclose(k, np.round(k), atol=1e-9), "the OOB fraction is a multiple of 1/N"


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_oob_expectation_is_exact_over_all_bootstrap_samples(N):
    """Average over all N^N equally likely samples, in integers: N^N (1-1/N)^N = (N-1)^N."""
    left_out = sum(int(oob_mask(np.array(s), N).sum())
                   for s in itertools.product(range(N), repeat=N))
    # mean OOB fraction = left_out / (N * N^N); (1-1/N)^N = (N-1)^N / N^N
    assert left_out == N * (N - 1) ** N
    assert oob_fraction_exact(N) == pytest.approx(left_out / (N * N**N), rel=1e-14)


@PROPERTY
@given(N=st.integers(2, 400), seed=SEEDS)
def test_oob_expectation_matches_simulation(N, seed):
    R = 2000
    mean = oob_fractions(N, R, seed).mean()
    se = np.sqrt(oob_variance(N) / R)
    assert abs(mean - oob_fraction_exact(N)) <= 5 * se + 1e-12, (mean, oob_fraction_exact(N), se)


# ------------------------------------------------------------------ Condorcet

EPS = st.floats(min_value=0.0, max_value=0.5, exclude_min=True, exclude_max=True,
                allow_nan=False, allow_subnormal=False)
ODD_T = st.integers(0, 600).map(lambda k: 2 * k + 1)


@PROPERTY
@given(eps=EPS, T=ODD_T)
def test_condorcet_exact_error_is_below_the_bound(eps, T):
    p = 0.5 + eps
    error = majority_error(p, T)
    # independent value: at most (T-1)/2 of the T votes are correct
    assert error == pytest.approx(stats.binom.cdf((T - 1) // 2, T, p), rel=1e-9, abs=1e-300)
    bound = condorcet_bound(p, T)
    assert 0.0 <= error <= bound * (1 + 1e-12), (error, bound)
    if eps >= 1e-6 and bound > 1e-250:  # away from p == 1/2 in floats and from underflow,
        assert error < bound  # the inequality is strict


@PROPERTY
@given(eps=st.lists(EPS, min_size=1, max_size=8), T=ODD_T)
def test_condorcet_functions_agree_elementwise(eps, T):
    p = 0.5 + np.array(eps)
    errors, bounds = majority_error(p, T), condorcet_bound(p, T)
    assert np.all(errors <= bounds * (1 + 1e-12))
    assert np.allclose(errors, [majority_error(q, T) for q in p], rtol=1e-12, atol=0)


# ------------------------------------------------------------------ Cantelli

@st.composite
def discrete_distributions(draw):
    k = draw(st.integers(1, 8))
    values = np.array(draw(st.lists(st.integers(-50, 50), min_size=k, max_size=k)), float)
    weights = np.array(draw(st.lists(st.integers(1, 100), min_size=k, max_size=k)), float)
    return values, weights / weights.sum()


@PROPERTY
@given(dist=discrete_distributions(), lam=st.floats(min_value=1e-3, max_value=120.0))
def test_cantelli_is_never_violated(dist, lam):
    x, p = dist
    mu = float(p @ x)
    var = float(p @ (x - mu) ** 2)
    bound = cantelli_bound(var, lam)
    upper = p[x >= mu + lam - 1e-9].sum()  # ties with mu + lam count towards the tail
    lower = p[x <= mu - lam + 1e-9].sum()
    assert upper <= bound + 1e-9, (upper, bound)
    assert lower <= bound + 1e-9, (lower, bound)


@PROPERTY
@given(mean=st.floats(-100, 100), variance=st.floats(1e-3, 1e3), lam=st.floats(1e-2, 1e2))
def test_cantelli_bound_is_attained(mean, variance, lam):
    values, probabilities = cantelli_extremal(mean, variance, lam)
    mu = probabilities @ values
    assert mu == pytest.approx(mean, abs=1e-9 * (1 + abs(mean) + variance / lam))
    assert probabilities @ (values - mu) ** 2 == pytest.approx(variance, rel=1e-8)
    tail = probabilities[values >= mean + lam * (1 - 1e-12)].sum()
    assert tail == pytest.approx(cantelli_bound(variance, lam), rel=1e-12)


# ------------------------------------------------------------------ bagging

@st.composite
def data_sets(draw, classification: bool):
    seed = draw(SEEDS)
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 4))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float)  # few values: many ties and duplicates
    if classification:
        K = draw(st.integers(2, 3))
        y = rng.integers(0, K, size=n)
        y[:2] = [0, 1]  # at least two classes
        y = np.array(["ash", "birch", "cedar"])[y]  # arbitrary labels
    else:
        y = X @ rng.normal(size=d) + rng.normal(size=n)
    X_test = rng.integers(-1, 6, size=(15, d)).astype(float)
    return X, y, X_test


@PROPERTY
@given(data=data_sets(classification=True), max_depth=st.one_of(st.none(), st.integers(1, 4)),
       seed=SEEDS)
def test_single_pasted_member_is_the_base_classifier(data, max_depth, seed):
    X, y, X_test = data
    base = DecisionTreeClassifier(max_depth=max_depth).fit(X, y)
    bag = BaggingClassifier(DecisionTreeClassifier(max_depth=max_depth), n_estimators=1,
                            bootstrap=False, max_samples=1.0, random_state=seed).fit(X, y)
    assert np.array_equal(np.sort(bag.estimators_samples_[0]), np.arange(len(y)))
    assert np.array_equal(bag.classes_, base.classes_)
    assert np.array_equal(bag.predict_proba(X_test), base.predict_proba(X_test))
    assert np.array_equal(bag.predict(X_test), base.predict(X_test))


@PROPERTY
@given(data=data_sets(classification=False), max_depth=st.one_of(st.none(), st.integers(1, 4)),
       seed=SEEDS)
def test_single_pasted_member_is_the_base_regressor(data, max_depth, seed):
    X, y, X_test = data
    base = DecisionTreeRegressor(max_depth=max_depth).fit(X, y)
    bag = BaggingRegressor(DecisionTreeRegressor(max_depth=max_depth), n_estimators=1,
                           bootstrap=False, max_samples=1.0, random_state=seed).fit(X, y)
    assert np.array_equal(bag.predict(X_test), base.predict(X_test))
    assert np.array_equal(bag.predict(X), base.predict(X))


# ------------------------------------------------------------------ metamorphic relations
# The data: few distinct, well separated feature values (so float32 rounding merges
# none of them, even after a transform), a target with continuous noise.

MONOTONE = {  # strictly increasing maps, applied to every feature
    "affine": lambda X: 3.0 * X - 7.0,
    "cube": lambda X: X**3,
    "exp": lambda X: np.exp(X / 8.0),
}


@st.composite
def metamorphic_data(draw, classification: bool):
    seed = draw(SEEDS)
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 3))
    rng = np.random.default_rng(seed)
    X = rng.integers(-20, 21, size=(n, d)).astype(float)
    signal = X @ rng.normal(size=d)
    if classification:
        K = draw(st.integers(2, 3))
        y = np.digitize(signal + rng.normal(size=n), np.quantile(signal, np.linspace(0, 1, K + 1)[1:-1]))
        y[:2] = [0, 1]
    else:
        y = signal + rng.normal(size=n)
    return X, y


def _trees_and_forests(classification: bool, seed: int) -> list:
    """Trees and forests without bootstrap: every member sees every training point, so
    none of them falls between two thresholds (a midpoint is not preserved by a transform)."""
    forest = RandomForestClassifier if classification else RandomForestRegressor
    forest = forest(n_estimators=3, bootstrap=False, max_features=1, random_state=seed)
    if classification:
        return [DecisionTreeClassifier(max_depth=3), forest, DecisionStump()]
    return [DecisionTreeRegressor(max_depth=3), forest, GradientBoostingRegressor(n_estimators=5, random_state=seed)]


METAMORPHIC = settings(derandomize=True, max_examples=15, deadline=None, database=None,
                       suppress_health_check=[HealthCheck.too_slow])


@METAMORPHIC
@given(data=metamorphic_data(classification=True), transform=st.sampled_from(sorted(MONOTONE)),
       seed=SEEDS, classification=st.booleans())
def test_trees_and_forests_are_invariant_to_monotone_feature_transforms(data, transform, seed,
                                                                         classification):
    """A split depends on the order of the values only: the same partitions, the same fit."""
    X, y = data
    if not classification:
        y = y + np.random.default_rng(seed).normal(size=len(y))  # a continuous target
    T = MONOTONE[transform]
    for model in _trees_and_forests(classification, seed):
        original = clone(model).fit(X, y).predict(X)
        transformed = clone(model).fit(T(X), y).predict(T(X))
        np.testing.assert_array_equal(transformed, original, err_msg=type(model).__name__)


@METAMORPHIC
@given(data=metamorphic_data(classification=True), seed=SEEDS)
def test_integer_weights_equal_repeated_rows(data, seed):
    """A weight k counts as k copies of the row (classification counts are exact sums)."""
    X, y = data
    counts = np.random.default_rng(seed).integers(1, 4, size=len(y))
    for model in (DecisionTreeClassifier(max_depth=3), DecisionStump(),
                  AdaBoostClassifier(n_estimators=5)):
        weighted = clone(model).fit(X, y, sample_weight=counts)
        repeated = clone(model).fit(np.repeat(X, counts, axis=0), np.repeat(y, counts))
        np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X),
                                      err_msg=type(model).__name__)


@METAMORPHIC
@given(data=metamorphic_data(classification=True), seed=SEEDS)
def test_predictions_are_equivariant_under_relabelling(data, seed):
    """Renaming the classes renames the predictions: an order-preserving renaming keeps
    every tie-break, a permutation permutes the probability columns."""
    X, y = data
    names = np.array(["ash", "birch", "cedar"])
    permutation = np.random.default_rng(seed).permutation(3)
    for model in (DecisionTreeClassifier(max_depth=3), RandomForestClassifier(n_estimators=3, random_state=seed),
                  AdaBoostClassifier(n_estimators=5), SoftmaxRegression()):
        base = clone(model).fit(X, y)
        renamed = clone(model).fit(X, names[y])
        np.testing.assert_array_equal(renamed.predict(X), names[base.predict(X)],
                                      err_msg=type(model).__name__)
        if isinstance(model, (DecisionTreeClassifier, RandomForestClassifier)):
            permuted = clone(model).fit(X, permutation[y])  # class c becomes permutation[c]
            P, Q = base.predict_proba(X), permuted.predict_proba(X)
            present = np.unique(y)
            np.testing.assert_allclose(Q[:, np.searchsorted(permuted.classes_, permutation[present])], P,
                                       rtol=0, atol=1e-12, err_msg=type(model).__name__)


@METAMORPHIC
@given(data=metamorphic_data(classification=False), seed=SEEDS,
       scale=st.sampled_from([0.25, 1.0, 8.0, 1024.0]), shift=st.sampled_from([0.0, -3.5, 1e3, 1e8]))
def test_shifting_and_scaling_y_shifts_and_scales_regression_predictions(data, seed, scale, shift):
    """f fitted to a y + b predicts a f(x) + b (trees grow on a centred y, least squares
    centres; the tolerance is the rounding of the shifted targets)."""
    X, y = data
    models = _trees_and_forests(False, seed) + [LeastSquaresRegressor(fit_intercept=True)]
    for model in models:
        base = clone(model).fit(X, y).predict(X)
        moved = clone(model).fit(X, scale * y + shift).predict(X)
        np.testing.assert_allclose((moved - shift) / scale, base, rtol=1e-7,
                                   atol=1e-9 * (1 + abs(shift) / scale) * np.abs(y).max(),
                                   err_msg=type(model).__name__)
