"""Tests for ensemble_ref.gradient_boosting, with scikit-learn's gradient boosting as oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import GradientBoostingClassifier as SkGBC
from sklearn.ensemble import GradientBoostingRegressor as SkGBR

from ensemble_ref import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    NotFittedError,
    absolute_error,
    log_loss,
    newton_leaf_value,
    squared_error,
    weighted_median,
)


def data(seed, n=300, noise=0.3):
    """Float32-representable features: scikit-learn's trees work in float32."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)).astype(np.float32).astype(np.float64)
    y = X[:, 0] + np.sin(2 * X[:, 1]) + noise * rng.normal(size=n)
    yc = (y + 0.3 * rng.normal(size=n) > 0.2).astype(int)
    return X, y, yc, rng.exponential(size=n)


PARAMS = {"n_estimators": 40, "min_samples_leaf": 10, "max_depth": 3, "learning_rate": 0.1}


# --- agreement with scikit-learn --------------------------------------------------------------


@pytest.mark.parametrize("weighted", [False, True])
def test_squared_error_matches_scikit_learn(weighted):
    X, y, _, w = data(0)
    Xt, _, _, _ = data(1)
    sw = w if weighted else None
    ours = GradientBoostingRegressor(**PARAMS).fit(X, y, sample_weight=sw)
    sk = SkGBR(**PARAMS, random_state=0).fit(X, y, sample_weight=sw)
    for Z in (X, Xt):
        np.testing.assert_allclose(ours.predict(Z), sk.predict(Z), atol=1e-8, rtol=0)
    assert ours.init_ == pytest.approx(sk.init_.constant_[0, 0], abs=1e-12)
    # scikit-learn reports the mean squared error: twice our mean of (y - F)^2 / 2
    np.testing.assert_allclose(sk.train_score_, 2 * ours.train_score_, rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
def test_log_loss_classifier_matches_scikit_learn(weighted):
    X, _, y, w = data(2)
    Xt, _, _, _ = data(3)
    sw = w if weighted else None
    labels = np.where(y == 1, "pos", "neg")
    ours = GradientBoostingClassifier(**PARAMS).fit(X, labels, sample_weight=sw)
    sk = SkGBC(**PARAMS, random_state=0).fit(X, labels, sample_weight=sw)
    for Z in (X, Xt):
        np.testing.assert_allclose(ours.decision_function(Z), sk.decision_function(Z), atol=1e-8,
                                   rtol=0)
        np.testing.assert_allclose(ours.predict_proba(Z), sk.predict_proba(Z), atol=1e-8)
        np.testing.assert_array_equal(ours.predict(Z), sk.predict(Z))
    # scikit-learn reports the binomial deviance: twice the mean log loss
    np.testing.assert_allclose(sk.train_score_, 2 * ours.train_score_, rtol=1e-10)


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_absolute_error_matches_scikit_learn(seed):
    # Continuous sample weights make exact ties between features impossible (with unit
    # weights the +-1 pseudo-residuals tie, and scikit-learn breaks ties at random).
    X, y, _, w = data(seed, noise=1.0)
    Xt, _, _, _ = data(seed + 10)
    params = dict(PARAMS, loss="absolute_error", min_samples_leaf=20, n_estimators=30)
    ours = GradientBoostingRegressor(**params).fit(X, y, sample_weight=w)
    sk = SkGBR(**params, random_state=0).fit(X, y, sample_weight=w)
    for Z in (X, Xt):
        np.testing.assert_allclose(ours.predict(Z), sk.predict(Z), atol=1e-8, rtol=0)
    np.testing.assert_allclose(sk.train_score_, ours.train_score_, rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
def test_scikit_learn_leaves_hold_the_lower_weighted_median(weighted):
    """Which median? On scikit-learn's own trees, every leaf holds the lower weighted median."""
    X, y, _, w = data(7)
    sw = w if weighted else None
    sk = SkGBR(loss="absolute_error", n_estimators=10, max_depth=2, random_state=0).fit(
        X, y, sample_weight=sw)
    weights = np.ones_like(y) if sw is None else sw
    # the initial constant: numpy.median without weights, the lower weighted median with them
    init = np.median(y) if sw is None else weighted_median(y, w)
    assert sk.init_.constant_[0, 0] == init
    F = np.full_like(y, init)
    for tree in sk.estimators_[:, 0]:
        leaves = tree.apply(X.astype(np.float32))
        for leaf in np.unique(leaves):
            idx = leaves == leaf
            assert tree.tree_.value[leaf, 0, 0] == weighted_median(y[idx] - F[idx], weights[idx])
        F = F + 0.1 * tree.tree_.value[leaves, 0, 0]
    np.testing.assert_allclose(F, sk.predict(X), atol=1e-12)


def test_unit_weight_absolute_error_ties_depend_on_scikit_learns_seed():
    # Why the test above uses weights: scikit-learn's own answer changes with random_state.
    X, y, _, _ = data(8)
    params = dict(PARAMS, loss="absolute_error", n_estimators=10)
    preds = [SkGBR(**params, random_state=s).fit(X, y).predict(X) for s in range(4)]
    assert any(np.abs(p - preds[0]).max() > 1e-3 for p in preds[1:])
    ours = GradientBoostingRegressor(**params).fit(X, y)
    assert np.mean(absolute_error(y, ours.predict(X))) == pytest.approx(
        np.mean(absolute_error(y, preds[0])), rel=0.05)


# --- leaf values as pure functions ----------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-100, 100), min_size=1, max_size=30), seed=st.integers(0, 99))
def test_weighted_median_minimises_weighted_absolute_error(values, seed):
    v = np.array(values)
    w = np.random.default_rng(seed).exponential(size=v.size)
    m = weighted_median(v, w)
    assert m in v
    cost = lambda c: np.sum(w * np.abs(v - c))  # noqa: E731
    assert all(cost(m) <= cost(c) + 1e-9 * (1 + cost(c)) for c in v)
    # it is the smallest minimiser: half of the weight is at or below it
    assert w[v <= m].sum() >= 0.5 * w.sum() * (1 - 1e-12)
    assert w[v < m].sum() < 0.5 * w.sum()


def test_weighted_median_even_count_is_the_lower_middle():
    assert weighted_median([4.0, 1.0, 3.0, 2.0]) == 2.0
    assert weighted_median([1.0, 2.0, 3.0], [1.0, 1.0, 5.0]) == 3.0


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 20), seed=st.integers(0, 10**6), scale=st.floats(0.1, 5.0))
def test_newton_leaf_value_minimises_the_quadratic_model(n, seed, scale):
    rng = np.random.default_rng(seed)
    F = rng.normal(scale=scale, size=n)
    y = rng.integers(0, 2, size=n).astype(float)
    p = 1 / (1 + np.exp(-F))
    w = rng.exponential(size=n)
    gamma = newton_leaf_value(y - p, p * (1 - p), w)
    model = lambda c: np.sum(w * (-(y - p) * c + 0.5 * p * (1 - p) * c**2))  # noqa: E731
    for c in gamma + np.array([-1.0, -0.1, -1e-3, 1e-3, 0.1, 1.0]):
        assert model(gamma) <= model(c) + 1e-12 * (1 + abs(model(c)))  # to rounding


def test_newton_leaf_value_with_flat_loss_is_zero():
    assert newton_leaf_value([0.0, 0.0], [0.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="hessian must be non-negative"):
        newton_leaf_value([1.0], [-1.0])


# --- per-stage quantities ----------------------------------------------------------------------


def test_init_and_training_score():
    X, y, yc, w = data(9)
    reg = GradientBoostingRegressor(n_estimators=20).fit(X, y, sample_weight=w)
    assert reg.init_ == pytest.approx(np.average(y, weights=w))
    staged = list(reg.staged_predict(X))
    assert len(staged) == 20 and len(reg.estimators_) == 20
    np.testing.assert_allclose(staged[-1], reg.predict(X))
    np.testing.assert_allclose(reg.train_score_,
                               [np.average(squared_error(y, F), weights=w) for F in staged])
    assert np.all(np.diff(reg.train_score_) < 0)  # shrunken least-squares steps always help
    clf = GradientBoostingClassifier(n_estimators=15).fit(X, yc)
    assert clf.init_ == pytest.approx(np.log(yc.mean() / (1 - yc.mean())))
    F = list(clf.staged_decision_function(X))
    np.testing.assert_allclose(clf.train_score_, [np.mean(log_loss(yc, f)) for f in F])
    np.testing.assert_allclose(list(clf.staged_predict_proba(X))[-1], clf.predict_proba(X))
    np.testing.assert_array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))


def test_absolute_error_leaves_are_medians_of_current_residuals():
    X, y, _, _ = data(10)
    m = GradientBoostingRegressor(loss="absolute_error", n_estimators=5).fit(X, y)
    F = np.full_like(y, np.median(y))
    for tree in m.estimators_:
        leaves = tree.apply(X)
        for leaf in np.unique(leaves):
            idx = leaves == leaf
            assert tree.tree_.value[leaf] == weighted_median(y[idx] - F[idx])
        F = F + m.learning_rate * tree.tree_.value[leaves]
    np.testing.assert_allclose(F, m.predict(X))


# --- subsampling (statistical) --------------------------------------------------------------------


def test_subsampling():
    X, y, _, _ = data(11, n=400)
    Xt, yt, _, _ = data(12, n=1000)
    m = GradientBoostingRegressor(n_estimators=60, subsample=0.5, random_state=0).fit(X, y)
    again = GradientBoostingRegressor(n_estimators=60, subsample=0.5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(m.predict(Xt), again.predict(Xt))
    other = GradientBoostingRegressor(n_estimators=60, subsample=0.5, random_state=1).fit(X, y)
    assert not np.allclose(m.predict(Xt), other.predict(Xt))
    # every tree is grown on exactly 200 rows: the root holds 200 samples
    assert all(t.tree_.n_node_samples[0] == 200 for t in m.estimators_)
    sk = SkGBR(n_estimators=60, subsample=0.5, random_state=0).fit(X, y)
    mse = lambda p: np.mean((yt - p) ** 2)  # noqa: E731
    assert abs(mse(m.predict(Xt)) - mse(sk.predict(Xt))) < 0.25 * mse(sk.predict(Xt))


# --- API and bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, match", [
    ({"learning_rate": -0.1}, "learning_rate"),
    ({"subsample": 0.0}, "subsample"),
    ({"subsample": 1.2}, "subsample"),
    ({"n_estimators": 0}, "n_estimators"),
    ({"max_depth": 0}, "max_depth"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"loss": "huber"}, "loss must be one of"),
])
def test_bad_parameters(kwargs, match):
    X, y, _, _ = data(13, n=30)
    with pytest.raises(ValueError, match=match):
        GradientBoostingRegressor(**kwargs).fit(X, y)


def test_bad_data():
    X, y, yc, _ = data(14, n=30)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        GradientBoostingClassifier().fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="loss must be one of"):
        GradientBoostingClassifier(loss="exponential").fit(X, yc)
    with pytest.raises(ValueError, match="NaN"):
        GradientBoostingRegressor().fit(X, np.where(y > 1, np.nan, y))
    with pytest.raises(ValueError, match="NaN"):
        GradientBoostingRegressor().fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(NotFittedError):
        GradientBoostingRegressor().predict(X)
    m = GradientBoostingRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="non-empty"):
        weighted_median([])
