"""Impurity and permutation importance, reliability bins and the ECE, against scikit-learn."""

import numpy as np
import pytest
from sklearn.calibration import calibration_curve
from sklearn.ensemble import RandomForestClassifier as SklearnForest
from sklearn.ensemble import RandomForestRegressor as SklearnForestRegressor
from sklearn.inspection import permutation_importance as sklearn_permutation_importance
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from ensemble_ref import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    RandomForestClassifier,
    make_circle_classification,
)
from ensemble_ref.math.calibration import (
    ReliabilityBins,
    expected_calibration_error,
    reliability_bins,
)
from ensemble_ref.math.importance import forest_mdi, permutation_importance, tree_mdi


@pytest.fixture(scope="module")
def data():
    X, y = make_circle_classification(200, n_noise_features=3, label_noise=0.1, random_state=0)
    X_test, y_test = make_circle_classification(400, n_noise_features=3, label_noise=0.1,
                                                random_state=1)
    return X, y, X_test, y_test


def sklearn_permutations(seed, n_samples, n_repeats):
    """The effective permutations of scikit-learn's permutation_importance (in-place reshuffles)."""
    legacy = np.random.RandomState(np.random.RandomState(seed).randint(np.iinfo(np.int32).max + 1))
    shuffled, composed, perms = np.arange(n_samples), np.arange(n_samples), []
    for _ in range(n_repeats):
        legacy.shuffle(shuffled)
        composed = composed[shuffled]
        perms.append(composed)
    return np.array(perms)


# --- MDI -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"max_depth": 3}, {"min_samples_leaf": 7},
                                    {"criterion": "entropy"}])
def test_tree_mdi_equals_sklearn_feature_importances(data, kwargs):
    X, y, _, _ = data
    tree = SklearnTree(random_state=0, **kwargs).fit(X, y)
    np.testing.assert_allclose(tree_mdi(tree), tree.feature_importances_, atol=1e-12)
    np.testing.assert_allclose(tree_mdi(tree.tree_), tree.feature_importances_, atol=1e-12)


def test_tree_mdi_with_sample_weight_equals_sklearn(data):
    X, y, _, _ = data
    w = np.random.default_rng(0).integers(1, 4, len(y)).astype(float)
    tree = SklearnTree(random_state=0, max_depth=5).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(tree_mdi(tree), tree.feature_importances_, atol=1e-12)


def test_forest_mdi_equals_sklearn_classifier_and_regressor(data):
    X, y, _, _ = data
    forest = SklearnForest(n_estimators=25, random_state=0).fit(X, y)
    np.testing.assert_allclose(forest_mdi(forest), forest.feature_importances_, atol=1e-12)
    reg = SklearnForestRegressor(n_estimators=10, max_depth=4, random_state=0).fit(X, X[:, 0] ** 2)
    np.testing.assert_allclose(forest_mdi(reg), reg.feature_importances_, atol=1e-12)


def test_mdi_of_ensemble_ref_trees(data):
    X, y, _, _ = data
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    mdi = tree_mdi(tree)
    assert mdi.shape == (X.shape[1],) and abs(mdi.sum() - 1) < 1e-12 and np.all(mdi >= 0)
    # unnormalised MDIs telescope to the root impurity when the leaves are pure
    assert abs(tree_mdi(tree, normalize=False).sum() - tree.tree_.impurity[0]) < 1e-12
    reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, X[:, 1])
    assert np.argmax(tree_mdi(reg)) == 1


def test_mdi_of_a_stump_without_split_is_zero():
    X = np.zeros((5, 2))
    y = np.array([0, 1, 0, 1, 0])
    tree = SklearnTree().fit(X, y)             # constant features: no split possible
    np.testing.assert_array_equal(tree_mdi(tree), [0.0, 0.0])
    np.testing.assert_array_equal(forest_mdi([tree, tree], n_features=2), [0.0, 0.0])


def test_ensemble_ref_forest_mdi_matches_sklearn_statistically(data):
    X, y, _, _ = data
    ours = RandomForestClassifier(n_estimators=60, random_state=0).fit(X, y)
    theirs = SklearnForest(n_estimators=60, random_state=0).fit(X, y)
    per_tree = np.array([tree_mdi(t) for t in ours.estimators_] +
                        [t.feature_importances_ for t in theirs.estimators_])
    se = np.sqrt(2 * per_tree.var(axis=0, ddof=1) / 60)
    assert np.all(np.abs(forest_mdi(ours) - theirs.feature_importances_) <= 5 * se)


# --- permutation importance ------------------------------------------------------------------

def test_permutation_importance_equals_sklearn_with_same_permutations(data):
    X, y, X_test, y_test = data
    forest = SklearnForest(n_estimators=15, random_state=0).fit(X, y)
    for seed in (0, 3):
        perms = sklearn_permutations(seed, len(y_test), 4)
        ours = permutation_importance(forest, X_test, y_test, permutations=perms)
        theirs = sklearn_permutation_importance(forest, X_test, y_test, n_repeats=4,
                                                random_state=seed)
        np.testing.assert_allclose(ours, theirs.importances, atol=1e-12)


def test_permutation_importance_is_seeded_and_shaped(data):
    X, y, X_test, y_test = data
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    a = permutation_importance(forest, X_test, y_test, n_repeats=3, random_state=5)
    b = permutation_importance(forest, X_test, y_test, n_repeats=3,
                               random_state=np.random.default_rng(5))
    assert a.shape == (X.shape[1], 3)
    np.testing.assert_array_equal(a, b)
    assert a[:2].mean() > 0.1 and abs(a[2:].mean()) < 0.05     # informative, then noise


def test_permutation_importance_custom_score(data):
    X, y, X_test, y_test = data
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    error = lambda est, A, b: -np.mean(est.predict(A) != b)  # noqa: E731
    perms = sklearn_permutations(0, len(y_test), 2)
    np.testing.assert_allclose(
        permutation_importance(forest, X_test, y_test, permutations=perms, score=error),
        permutation_importance(forest, X_test, y_test, permutations=perms), atol=1e-12)


# --- calibration -----------------------------------------------------------------------------

@pytest.mark.parametrize("n_bins", [1, 5, 10, 13])
def test_reliability_bins_equal_calibration_curve(n_bins):
    rng = np.random.default_rng(n_bins)
    p = np.concatenate([rng.random(500), np.round(rng.random(100), 1), [0.0, 1.0]])
    y = (rng.random(p.size) < p ** 1.5).astype(int)
    bins = reliability_bins(y, p, n_bins=n_bins)
    full = bins.count > 0
    freq, conf = calibration_curve(y, p, n_bins=n_bins)
    np.testing.assert_allclose(bins.frequency[full], freq, atol=1e-12)
    np.testing.assert_allclose(bins.confidence[full], conf, atol=1e-12)
    assert isinstance(bins, ReliabilityBins) and bins.count.sum() == p.size
    assert np.all(np.isnan(bins.frequency[~full]))


def test_ece_direct_and_special_cases():
    rng = np.random.default_rng(0)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(int)
    B = 10
    edges = np.linspace(0, 1, B + 1)
    direct = 0.0
    for b in range(B):
        m = (p > edges[b]) & (p <= edges[b + 1])
        if m.any():
            direct += m.mean() * abs(y[m].mean() - p[m].mean())
    assert abs(expected_calibration_error(y, p, B) - direct) < 1e-12
    sure = np.where(rng.random(1000) < 0.7, y, 1 - y)
    assert abs(expected_calibration_error(y, sure) - np.mean(sure != y)) < 1e-12
    assert expected_calibration_error(y, np.full(1000, y.mean())) < 1e-12
    assert expected_calibration_error(y, y.astype(float)) == 0.0


# --- bad input -------------------------------------------------------------------------------

def test_bad_inputs_importance(data):
    X, y, X_test, y_test = data
    tree = SklearnTree(max_depth=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="tree"):
        tree_mdi(object())
    with pytest.raises(TypeError, match="normalize"):
        tree_mdi(tree, normalize="yes")
    with pytest.raises(TypeError, match="n_features"):
        tree_mdi(tree, n_features=2.5)
    with pytest.raises(ValueError, match="n_features"):
        tree_mdi(tree, n_features=0)
    used = int(tree.tree_.feature.max())
    with pytest.raises(ValueError, match="n_features"):
        tree_mdi(tree, n_features=used)
    with pytest.raises(TypeError, match="forest"):
        forest_mdi("trees")
    with pytest.raises(ValueError, match="forest"):  # a list, but without a tree
        forest_mdi([])
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X"):
        permutation_importance(forest, X_test[:, 0], y_test)
    with pytest.raises(ValueError, match="y"):
        permutation_importance(forest, X_test, y_test[:-1])
    with pytest.raises(TypeError, match="n_repeats"):
        permutation_importance(forest, X_test, y_test, n_repeats=2.0)
    with pytest.raises(ValueError, match="n_repeats"):
        permutation_importance(forest, X_test, y_test, n_repeats=0)
    with pytest.raises(TypeError, match="random_state"):
        permutation_importance(forest, X_test, y_test, random_state="seed")
    with pytest.raises(ValueError, match="permutations"):
        permutation_importance(forest, X_test, y_test, permutations=np.zeros((2, len(y_test)), int))
    with pytest.raises(ValueError, match="permutations"):
        permutation_importance(forest, X_test, y_test, permutations=np.arange(5)[None])
    with pytest.raises(TypeError, match="score"):
        permutation_importance(forest, X_test, y_test, score="accuracy")
    with pytest.raises(TypeError, match="estimator"):
        permutation_importance(object(), X_test, y_test)


def test_bad_inputs_calibration():
    y, p = np.array([0, 1, 1]), np.array([0.2, 0.7, 0.9])
    with pytest.raises(TypeError, match="n_bins"):
        reliability_bins(y, p, n_bins=2.0)
    with pytest.raises(ValueError, match="n_bins"):
        expected_calibration_error(y, p, n_bins=0)
    with pytest.raises(ValueError, match="y_prob"):
        reliability_bins(y, np.array([0.2, 1.5, 0.3]))
    with pytest.raises(ValueError, match="y_prob"):
        reliability_bins(y, np.array([0.2, np.nan, 0.3]))
    with pytest.raises(ValueError, match="y_prob"):
        reliability_bins(y, np.column_stack([1 - p, p]))
    with pytest.raises(TypeError, match="y_prob"):
        reliability_bins(y, np.array(["a", "b", "c"]))
    with pytest.raises(ValueError, match="y_true"):
        reliability_bins(y[:2], p)
    with pytest.raises(ValueError, match="y_true"):
        expected_calibration_error(np.array([0, 2, 1]), p)
