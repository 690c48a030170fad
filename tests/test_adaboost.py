"""Tests for AdaBoost (ensembles.adaboost, math.adaboost): conventions, bounds, degenerate rounds."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
from sklearn.tree import DecisionTreeClassifier

from ensemble_ref import (
    AdaBoostClassifier,
    DecisionStump,
    NotFittedError,
    adaboost_alpha,
    adaboost_exponential_bound,
    adaboost_normalizer,
    adaboost_product_bound,
)


def noisy_binary(seed, n=300, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + X[:, 1] ** 2 + 0.7 * rng.normal(size=n) > 1.0, "yes", "no")
    return X, y


def noisy_multiclass(seed, n=300, K=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 2] + 0.4 * rng.normal(size=n),
                    np.linspace(-1, 1, K - 1))
    return X, y


# --- agreement with scikit-learn (depth-1 Gini tree as the weak learner) -----------------------


@pytest.mark.parametrize("learning_rate", [1.0, 0.4])
def test_binary_matches_scikit_learn_up_to_the_factor(learning_rate):
    X, y = noisy_binary(0)
    Xt, _ = noisy_binary(1)
    stump = DecisionTreeClassifier(max_depth=1)
    sk = SkAdaBoost(stump, n_estimators=40, learning_rate=learning_rate, random_state=0).fit(X, y)
    ours = AdaBoostClassifier(stump, n_estimators=40, learning_rate=learning_rate,
                              random_state=0).fit(X, y)
    assert len(ours.estimators_) == len(sk.estimators_) == 40
    for Z in (X, Xt):
        np.testing.assert_array_equal(ours.predict(Z), sk.predict(Z))
        F = ours.decision_function(Z)
        # sklearn's vote is 2 alpha_t and its decision function is normalised by sum_t 2 alpha_t,
        # then doubled by its +/- two-column coding: sklearn = 2 F / sum_t alpha_t.
        np.testing.assert_allclose(sk.decision_function(Z), 2 * F / ours.estimator_weights_.sum(),
                                   rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sk.estimator_weights_, 2 * ours.estimator_weights_, rtol=1e-10)
    np.testing.assert_allclose(sk.estimator_errors_, ours.estimator_errors_, rtol=1e-10)


def test_multiclass_samme_matches_scikit_learn():
    X, y = noisy_multiclass(2, K=4)
    learner = DecisionTreeClassifier(max_depth=2)
    sk = SkAdaBoost(learner, n_estimators=30, random_state=0).fit(X, y)
    ours = AdaBoostClassifier(learner, n_estimators=30, random_state=0).fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))
    F = ours.decision_function(X)
    assert F.shape == (X.shape[0], 4)
    np.testing.assert_allclose(sk.decision_function(X), F / ours.estimator_weights_.sum(),
                               rtol=1e-10, atol=1e-12)
    # SAMME: alpha_t = 1/2 [ln((1 - eps)/eps) + ln(K - 1)]
    np.testing.assert_allclose(ours.estimator_weights_,
                               adaboost_alpha(ours.estimator_errors_, n_classes=4), rtol=1e-12)


# --- the default weak learner -------------------------------------------------------------


def brute_force_stump_error(X, y, w):
    """Smallest weighted 0-1 error over all features, thresholds at data values, two labels."""
    w = w / w.sum()
    labels = np.unique(y)
    best = np.inf
    for j in range(X.shape[1]):
        for theta in np.concatenate([X[:, j], [np.inf]]):
            left = X[:, j] <= theta
            for a, b in itertools.product(labels, labels):
                best = min(best, w[left & (y != a)].sum() + w[~left & (y != b)].sum())
    return best


@pytest.mark.parametrize("seed, K", [(0, 2), (1, 2), (2, 3), (3, 4)])
def test_stump_minimises_weighted_error(seed, K):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(40, 3)), 1)  # ties between values
    y = rng.integers(K, size=40)
    w = rng.exponential(size=40)
    stump = DecisionStump().fit(X, y, sample_weight=w)
    assert stump.error_ == pytest.approx(brute_force_stump_error(X, y, w), abs=1e-12)
    wrong = stump.predict(X) != y
    assert stump.error_ == pytest.approx((w[wrong] / w.sum()).sum(), abs=1e-12)


def test_stump_finds_the_reversed_sign():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    stump = DecisionStump().fit(X, [1, 1, -1, -1])  # positive on the left: the "negative" sign
    assert (stump.feature_, stump.threshold_, stump.error_) == (0, 1.5, 0.0)
    assert (stump.left_class_, stump.right_class_) == (1, -1)


def test_each_round_uses_the_best_stump():
    X, y = noisy_binary(4)
    ours = AdaBoostClassifier(n_estimators=25).fit(X, y)
    assert all(isinstance(h, DecisionStump) for h in ours.estimators_)
    assert set(ours.estimators_[0].predict(X)) <= {"no", "yes"}
    # each round's learner is the best stump for that round's weights
    ours_w = AdaBoostClassifier(n_estimators=5, record_weights=True).fit(X, y)
    for D, eps in zip(ours_w.sample_weights_, ours_w.estimator_errors_):
        assert eps == pytest.approx(brute_force_stump_error(X, y, D), abs=1e-12)


# --- the round-by-round quantities ----------------------------------------------------------


def test_alpha_and_normaliser_conventions():
    X, y = noisy_binary(5)
    m = AdaBoostClassifier(n_estimators=30).fit(X, y)
    eps = m.estimator_errors_
    np.testing.assert_allclose(m.estimator_weights_, 0.5 * np.log((1 - eps) / eps), rtol=1e-12)
    np.testing.assert_allclose(m.normalizers_, 2 * np.sqrt(eps * (1 - eps)), rtol=1e-10)
    np.testing.assert_allclose(np.cumprod(m.normalizers_), adaboost_product_bound(eps),
                               rtol=1e-10)
    m2 = AdaBoostClassifier(n_estimators=30, learning_rate=0.3).fit(X, y)
    np.testing.assert_allclose(m2.normalizers_,
                               adaboost_normalizer(m2.estimator_errors_, m2.estimator_weights_),
                               rtol=1e-10)
    assert np.all(m2.normalizers_ > 2 * np.sqrt(m2.estimator_errors_ * (1 - m2.estimator_errors_)))


def test_weight_history_follows_the_update_rule():
    X, y = noisy_binary(6)
    m = AdaBoostClassifier(n_estimators=10, record_weights=True).fit(X, y)
    D = m.sample_weights_
    assert D.shape == (10, X.shape[0])
    np.testing.assert_allclose(D.sum(axis=1), 1.0, rtol=1e-12)
    ypm = np.where(y == m.classes_[1], 1.0, -1.0)
    for t in range(9):
        h = np.where(m.estimators_[t].predict(X) == m.classes_[1], 1.0, -1.0)
        expected = D[t] * np.exp(-m.estimator_weights_[t] * ypm * h) / m.normalizers_[t]
        np.testing.assert_allclose(D[t + 1], expected, rtol=1e-10)
        # after reweighting, h_t has error exactly 1/2
        assert D[t + 1][h != ypm].sum() == pytest.approx(0.5, abs=1e-12)


def test_bounds():
    eps = np.array([0.1, 0.3, 0.45, 0.2])
    prod = adaboost_product_bound(eps)
    expo = adaboost_exponential_bound(eps)
    np.testing.assert_allclose(prod, np.cumprod(2 * np.sqrt(eps * (1 - eps))))
    np.testing.assert_allclose(expo, np.exp(-2 * np.cumsum((0.5 - eps) ** 2)))
    assert np.all(prod <= expo)
    assert adaboost_alpha(0.0) == np.inf and adaboost_alpha(0.5) == 0.0
    assert adaboost_normalizer(0.0, np.inf) == 0.0
    with pytest.raises(ValueError, match="eps must contain weighted errors in"):
        adaboost_product_bound([0.2, 1.5])


def test_staged_methods():
    X, y = noisy_multiclass(7)
    m = AdaBoostClassifier(n_estimators=15).fit(X, y)
    staged = list(m.staged_decision_function(X))
    assert len(staged) == len(m.estimators_)
    np.testing.assert_allclose(staged[-1], m.decision_function(X))
    np.testing.assert_allclose(staged[0], m.estimator_weights_[0] * np.where(
        np.arange(3) == m.estimators_[0].predict(X)[:, None], 1.0, -0.5))
    np.testing.assert_array_equal(list(m.staged_predict(X))[-1], m.predict(X))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), K=st.sampled_from([2, 3]),
       learning_rate=st.sampled_from([1.0, 0.5, 2.0]), n=st.integers(8, 60))
def test_training_error_never_exceeds_product_of_normalisers(seed, K, learning_rate, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.integers(K, size=n)
    if np.unique(y).size < 2:
        y[0], y[1] = 0, 1
    w0 = rng.exponential(size=n)
    try:
        m = AdaBoostClassifier(n_estimators=12, learning_rate=learning_rate,
                               record_weights=True).fit(X, y, sample_weight=w0)
    except ValueError:  # no stump better than chance in the first round
        return
    w0 = w0 / w0.sum()
    bound = np.cumprod(m.normalizers_)
    for t, pred in enumerate(m.staged_predict(X)):
        assert w0[pred != y].sum() <= bound[t] + 1e-12
    np.testing.assert_allclose(m.sample_weights_.sum(axis=1), 1.0, rtol=1e-12)


# --- degenerate rounds ------------------------------------------------------------------------


def test_perfect_weak_learner_stops_with_infinite_vote():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    m = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert m.stop_reason_ == "perfect" and len(m.estimators_) == 1
    assert m.estimator_errors_[0] == 0.0 and m.normalizers_[0] == 0.0
    assert m.estimator_weights_[0] == np.inf
    np.testing.assert_array_equal(m.decision_function(X), [-np.inf, -np.inf, np.inf, np.inf])
    np.testing.assert_array_equal(m.predict(X), y)


def test_perfect_learner_after_some_rounds_decides_alone():
    # y is separable by x0 but not by x1; weights make round 1 pick x1 first.
    X = np.array([[0, 0], [1, 1], [2, 2], [3, 0], [4, 3], [5, 3]], dtype=float)
    y = np.array([0, 0, 0, 1, 1, 1])
    w = np.array([1, 1, 1, 1, 50, 50], dtype=float)
    m = AdaBoostClassifier(n_estimators=10).fit(X, y, sample_weight=w)
    assert m.stop_reason_ == "perfect"
    assert np.isinf(m.estimator_weights_[-1]) and np.all(np.isfinite(m.estimator_weights_[:-1]))
    np.testing.assert_array_equal(m.predict(X), y)


def test_chance_learner_in_first_round_is_an_error():
    X = np.zeros((6, 2))  # no stump can separate anything
    with pytest.raises(ValueError, match="no better than chance in the first round"):
        AdaBoostClassifier().fit(X, [0, 1, 0, 1, 0, 1])


def test_chance_learner_in_a_later_round_stops_boosting():
    X = np.zeros((10, 1))
    y = np.array([0] * 6 + [1] * 4)  # round 1: predict 0, error 0.4; then the weights balance
    m = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert m.stop_reason_ == "chance" and len(m.estimators_) == 1
    assert m.estimator_errors_[0] == pytest.approx(0.4)


# --- API and bad input ------------------------------------------------------------------------


def test_labels_and_reproducibility():
    X, y = noisy_binary(8)
    learner = DecisionTreeClassifier(max_depth=2, max_features=1)
    a = AdaBoostClassifier(learner, n_estimators=10, random_state=3).fit(X, y)
    b = AdaBoostClassifier(learner, n_estimators=10, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert set(a.predict(X)) <= {"no", "yes"} and list(a.classes_) == ["no", "yes"]
    assert 0.5 < a.score(X, y) <= 1.0


class NoWeights:
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

    def get_params(self, deep=False):
        return {}


@pytest.mark.parametrize("kwargs, error, match", [
    ({"learning_rate": -0.5}, ValueError, "learning_rate"),
    ({"learning_rate": 0.0}, ValueError, "learning_rate"),
    ({"n_estimators": 0}, ValueError, "n_estimators"),
    ({"estimator": NoWeights()}, TypeError, "must accept sample_weight"),
    ({"estimator": "stump"}, TypeError, "estimator must be a classifier"),
    ({"record_weights": "yes"}, TypeError, "record_weights"),
])
def test_bad_parameters(kwargs, error, match):
    X, y = noisy_binary(9, n=30)
    with pytest.raises(error, match=match):
        AdaBoostClassifier(**kwargs).fit(X, y)


def test_bad_data():
    X, y = noisy_binary(10, n=30)
    with pytest.raises(ValueError, match="at least 2 classes"):
        AdaBoostClassifier().fit(X, np.ones(30))
    with pytest.raises(ValueError, match="NaN"):
        AdaBoostClassifier().fit(X, np.where(y == "yes", 1.0, np.nan))
    with pytest.raises(ValueError, match="NaN"):
        AdaBoostClassifier().fit(np.where(X > 1, np.nan, X), y)
    with pytest.raises(NotFittedError):
        AdaBoostClassifier().predict(X)
    m = AdaBoostClassifier(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="n_classes"):
        adaboost_alpha(0.2, n_classes=1)


def test_predict_proba_is_the_exponential_loss_link():
    from ensemble_ref import AdaBoostClassifier, sigmoid

    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "b", "a")
    clf = AdaBoostClassifier(n_estimators=15).fit(X, y)
    P = clf.predict_proba(X)
    F = clf.decision_function(X)
    assert np.allclose(P[:, 1], sigmoid(2 * F))  # p = sigma(2F) for two classes
    assert np.allclose(P.sum(axis=1), 1.0)
    assert np.array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X))
    staged = list(clf.staged_predict_proba(X))
    assert len(staged) == len(clf.estimators_) and np.allclose(staged[-1], P)


def test_predict_proba_multiclass_agrees_with_predict():
    from ensemble_ref import AdaBoostClassifier

    rng = np.random.default_rng(6)
    X = rng.normal(size=(150, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])  # three classes
    clf = AdaBoostClassifier(n_estimators=20).fit(X, y)
    P = clf.predict_proba(X)
    F = clf.decision_function(X)
    # p_k proportional to exp(F_k / (K - 1)): log-ratios recover score differences
    assert np.allclose(np.log(P[:, 0] / P[:, 1]), (F[:, 0] - F[:, 1]) / 2)
    assert np.array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X))
