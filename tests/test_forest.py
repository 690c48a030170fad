"""Random forests: scikit-learn as a statistical oracle, plus exact structural checks."""

import numpy as np
import pytest
from sklearn import ensemble as skens

from ensemble_ref import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    NotFittedError,
    RandomForestClassifier,
    RandomForestRegressor,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore:.*in every member's sample:UserWarning"),
    pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores:UserWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]


def make_data(seed, n=200, d=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3] + 0.6 * rng.normal(size=n)
    return X, y, (y > 0).astype(int)


TRAIN = make_data(0)
TEST = make_data(1, n=1000)


def assert_same_mean(ours, ref):
    """Means over seeds agree within 4 standard errors of their difference.

    ``ours`` and ``ref`` hold one row of scores per seed; the mean of each
    column has standard error ``sd / sqrt(n_seeds)``, so the difference of the
    two means has standard error ``sqrt(sd_1^2 + sd_2^2) / sqrt(n_seeds)``; a
    difference beyond 4 of them has probability below 1e-4 for identical
    estimators.
    """
    ours, ref = np.asarray(ours), np.asarray(ref)
    n = len(ours)
    se = np.sqrt(ours.var(0, ddof=1) / n + ref.var(0, ddof=1) / n)
    assert np.all(np.abs(ours.mean(0) - ref.mean(0)) <= 4 * se), (ours.mean(0), ref.mean(0), se)


def test_classifier_agrees_with_sklearn():
    X, _, y = TRAIN
    Xt, _, yt = TEST
    ours, ref = [], []
    for s in range(10):
        m = RandomForestClassifier(n_estimators=25, oob_score=True, random_state=s).fit(X, y)
        ours.append([m.oob_score_, m.score(Xt, yt)])
        m = skens.RandomForestClassifier(n_estimators=25, oob_score=True, random_state=s).fit(X, y)
        ref.append([m.oob_score_, m.score(Xt, yt)])
    assert_same_mean(ours, ref)


def test_regressor_agrees_with_sklearn():
    X, y, _ = TRAIN
    Xt, yt, _ = TEST
    ours, ref = [], []
    for s in range(10):
        m = RandomForestRegressor(n_estimators=20, max_features=0.5, oob_score=True, random_state=s).fit(X, y)
        ours.append([m.oob_score_, m.score(Xt, yt)])
        m = skens.RandomForestRegressor(n_estimators=20, max_features=0.5, oob_score=True,
                                        random_state=s).fit(X, y)
        ref.append([m.oob_score_, m.score(Xt, yt)])
    assert_same_mean(ours, ref)


def test_defaults_match_sklearn():
    clf, reg = RandomForestClassifier(), RandomForestRegressor()
    sk_clf, sk_reg = skens.RandomForestClassifier(), skens.RandomForestRegressor()
    for ours, ref in ((clf, sk_clf), (reg, sk_reg)):
        for name in ("n_estimators", "max_features", "max_depth", "min_samples_leaf", "bootstrap",
                     "oob_score", "random_state", "n_jobs"):
            assert getattr(ours, name) == getattr(ref, name), name


def test_members_are_trees_with_the_forest_parameters():
    X, _, y = TRAIN
    forest = RandomForestClassifier(n_estimators=5, max_features=3, max_depth=4, min_samples_leaf=2,
                                    random_state=0).fit(X, y)
    assert len(forest.estimators_) == 5
    for tree, idx in zip(forest.estimators_, forest.estimators_samples_):
        assert isinstance(tree, DecisionTreeClassifier)
        assert tree.max_features_ == 3 and tree.get_depth() <= 4
        leaves = tree.tree_.children_left == -1
        assert tree.tree_.n_node_samples[leaves].min() >= 2
        assert tree.tree_.n_node_samples[0] == len(np.unique(idx))  # distinct drawn points
    roots = {tree.tree_.feature[0] for tree in forest.estimators_}
    assert len(roots) > 1  # random features and samples give different trees


def test_without_randomness_a_forest_is_one_tree():
    """bootstrap=False and max_features=None leave nothing random: every tree is the CART tree."""
    X, y, labels = TRAIN
    Xt = TEST[0]
    forest = RandomForestRegressor(n_estimators=3, bootstrap=False, max_features=None,
                                   random_state=0).fit(X, y)
    np.testing.assert_allclose(forest.predict(Xt), DecisionTreeRegressor().fit(X, y).predict(Xt))
    forest = RandomForestClassifier(n_estimators=3, bootstrap=False, max_features=None,
                                    random_state=0).fit(X, labels)
    np.testing.assert_array_equal(forest.predict_proba(Xt),
                                  DecisionTreeClassifier().fit(X, labels).predict_proba(Xt))


def test_every_tree_knows_every_class():
    X, _, _ = TRAIN
    y = np.repeat([3, 5, 9], [196, 2, 2])  # a bootstrap sample misses a class w.p. ~e^-2
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    assert any(len(np.unique(y[idx])) < 3 for idx in forest.estimators_samples_)
    for tree in forest.estimators_:
        assert tree.tree_.value.shape[1] == 3
    np.testing.assert_allclose(forest.predict_proba(X).sum(1), 1.0)
    assert set(forest.predict(X)) <= {3, 5, 9}


def test_results_do_not_depend_on_n_jobs():
    pytest.importorskip("joblib")
    X, _, y = TRAIN
    a = RandomForestClassifier(n_estimators=8, oob_score=True, random_state=7).fit(X, y)
    b = RandomForestClassifier(n_estimators=8, oob_score=True, random_state=7, n_jobs=2).fit(X, y)
    for ta, tb in zip(a.estimators_, b.estimators_):
        np.testing.assert_array_equal(ta.tree_.threshold, tb.tree_.threshold)
    np.testing.assert_array_equal(a.predict_proba(TEST[0]), b.predict_proba(TEST[0]))
    np.testing.assert_array_equal(a.oob_decision_function_, b.oob_decision_function_)


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_non_positive_n_estimators(Forest):
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="n_estimators"):
        Forest(n_estimators=0).fit(X, y)


@pytest.mark.parametrize("max_features", ["third", 0, 9, 1.2])
def test_unknown_max_features(max_features):
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="max_features"):
        RandomForestClassifier(n_estimators=2, max_features=max_features).fit(X, y)


def test_oob_score_without_bootstrap():
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="oob_score"):
        RandomForestClassifier(n_estimators=2, bootstrap=False, oob_score=True).fit(X, y)


def test_inf_in_X():
    X, y, _ = TRAIN
    X = X.copy()
    X[1, 1] = -np.inf
    with pytest.raises(ValueError, match="X must not contain NaN or infinity"):
        RandomForestRegressor(n_estimators=2).fit(X, y)


def test_single_class():
    X, _, _ = TRAIN
    with pytest.raises(ValueError, match="at least 2 classes"):
        RandomForestClassifier(n_estimators=2).fit(X, np.full(len(X), "a"))


def test_mismatched_lengths():
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="inconsistent lengths"):
        RandomForestClassifier(n_estimators=2).fit(X[:-1], y)


def test_negative_sample_weight():
    X, y, _ = TRAIN
    w = np.ones(len(y))
    w[5] = -2.0
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        RandomForestRegressor(n_estimators=2).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_predict_before_fit(Forest):
    with pytest.raises(NotFittedError):
        Forest().predict(TRAIN[0])


def test_wrong_number_of_features_at_predict():
    X, _, y = TRAIN
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        forest.predict_proba(np.hstack([X, X]))


# ------------------------------------------------------------ trees grown together
def _coded_data(seed, n=400):
    """Integer and one-hot columns (few values each, with ties): the features a forest grows
    all its trees on together, level by level (trees.coded_growth)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 5, n), rng.integers(0, 40, n), rng.integers(0, 2, (n, 6)),
                         np.round(rng.normal(size=n), 1)]).astype(float)
    y = X[:, 0] + 0.1 * X[:, 1] + X[:, 2] - X[:, 3] + rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("Forest, Tree, target", [
    (RandomForestClassifier, DecisionTreeClassifier, "classes"),
    (RandomForestRegressor, DecisionTreeRegressor, "real"),
    (RandomForestRegressor, DecisionTreeRegressor, "integer"),
])
@pytest.mark.parametrize("min_samples_leaf", [1, 3])
def test_each_tree_grown_together_is_the_tree_grown_alone(Forest, Tree, target, min_samples_leaf):
    """A forest on features with few values grows its trees in one loop; each tree is, array
    for array, the tree grown alone (fit_presorted, as the members fitted in parallel are) on
    its bootstrap counts as weights with its own random_state: the same feature draws, and
    sums over each node's own samples only, whatever the other trees hold."""
    from ensemble_ref.trees.engine import SortedColumns, to_float32
    from ensemble_ref.trees.value_codes import value_codes

    X, y = _coded_data(4)
    y = {"classes": np.digitize(y, [-1.0, 1.0]), "real": y, "integer": np.round(3 * y)}[target]
    data = SortedColumns(to_float32(X))
    assert value_codes(data) is not None  # the features are coded
    forest = Forest(n_estimators=12, max_features=0.4, min_samples_leaf=min_samples_leaf,
                    random_state=0).fit(X, y)
    for tree, idx in zip(forest.estimators_, forest.estimators_samples_):
        alone = Tree(max_features=0.4, min_samples_leaf=min_samples_leaf, random_state=tree.random_state)
        w = np.bincount(idx, minlength=len(y)).astype(float)
        if target == "classes":
            alone.fit_presorted(data, y, w, np.arange(3))
        else:
            alone.fit_presorted(data, y, w)
        for name in ("children_left", "children_right", "feature", "threshold", "value", "impurity",
                     "n_node_samples", "weighted_n_node_samples"):
            np.testing.assert_array_equal(getattr(tree.tree_, name), getattr(alone.tree_, name), name)
    assert len({tree.tree_.node_count for tree in forest.estimators_}) > 1  # different trees


def test_coded_forest_agrees_with_sklearn():
    """On integer and one-hot features the forest (grown together) is as accurate as
    scikit-learn's, over seeds (within 4 standard errors of the difference of the means)."""
    X, y = _coded_data(5)
    Xt, yt = _coded_data(6, n=1000)
    c, ct = (y > 0).astype(int), (yt > 0).astype(int)
    ours, ref = [], []
    for s in range(10):
        ours.append([RandomForestClassifier(n_estimators=20, random_state=s).fit(X, c).score(Xt, ct),
                     RandomForestRegressor(n_estimators=20, max_features=1 / 3, random_state=s)
                     .fit(X, y).score(Xt, yt)])
        ref.append([skens.RandomForestClassifier(n_estimators=20, random_state=s).fit(X, c).score(Xt, ct),
                    skens.RandomForestRegressor(n_estimators=20, max_features=1 / 3, random_state=s)
                    .fit(X, y).score(Xt, yt)])
    assert_same_mean(ours, ref)
