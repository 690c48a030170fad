"""``feature_importances_`` of every tree-based estimator: one definition, scikit-learn's and xgboost's numbers.

The estimators are enumerated from the package (``tests/package_inventory.py``): every
estimator is either tree-based (and must have ``feature_importances_``) or listed in
``NOT_TREE_BASED``. The importances are the normalised mean decrease in impurity
(``eq-rf-mdi``) combined over members as scikit-learn combines them, and xgboost's
``importance_type="gain"`` for the second-order boosters; they are compared with the
libraries' on *equal trees* (settings where the package and the library grow the same
trees, checked before the importances are compared), to 1e-12 (float32 rounding,
1e-6, for xgboost's gains).
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.ensemble as ske
import sklearn.tree as skt
import xgboost
from package_inventory import estimator_classes  # tests/package_inventory.py
from sklearn.exceptions import NotFittedError as SklearnNotFittedError

import ensemble_ref as er
from ensemble_ref.math import importance

NOT_TREE_BASED = {"LinearBoostingRegressor", "MixtureOfExperts", "LeastSquaresRegressor",
                  "SoftmaxRegression", "StackingClassifier", "StackingRegressor",
                  "VotingClassifier", "VotingRegressor"}
SMALL = {"n_estimators": 5}
REGRESSORS = {"DecisionTreeRegressor", "BaggingRegressor", "RandomForestRegressor",
              "GradientBoostingRegressor", "XGBRegressor"}


def tree_based() -> dict[str, type]:
    return {name: cls for name, cls in estimator_classes().items() if name not in NOT_TREE_BASED}


def _make(name: str):
    cls = tree_based()[name]
    params = cls().get_params(deep=False)
    return cls(**{k: v for k, v in SMALL.items() if k in params})


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2028)
    X = rng.normal(size=(240, 5))
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * X[:, 2] + 0.2 * rng.normal(size=240)
    return X, y, (y > np.median(y)).astype(int)


def test_every_estimator_is_tree_based_or_listed():
    names = set(estimator_classes())
    assert NOT_TREE_BASED <= names, f"listed estimators the package no longer has: {NOT_TREE_BASED - names}"
    assert len(tree_based()) >= 12


@pytest.mark.parametrize("name", sorted(tree_based()))
def test_feature_importances_before_and_after_fit(name, data):
    X, y, labels = data
    model = _make(name)
    assert isinstance(type(model).__dict__.get("feature_importances_")
                      or next(vars(c)["feature_importances_"] for c in type(model).__mro__
                              if "feature_importances_" in vars(c)), property)
    with pytest.raises(SklearnNotFittedError):
        model.feature_importances_  # noqa: B018 - the property is the test
    model.fit(X, y if name in REGRESSORS else labels)
    imp = model.feature_importances_
    assert imp.shape == (X.shape[1],) and np.all(imp >= 0)
    np.testing.assert_allclose(imp.sum(), 1.0, rtol=0, atol=1e-12)
    assert np.argmax(imp) in (0, 1), imp  # x_0 and x_1 carry the signal


@pytest.mark.parametrize("name", sorted(tree_based()))
def test_the_estimators_call_the_one_definition(name, data, monkeypatch):
    """Replacing the combination of importances changes every estimator's answer."""
    X, y, labels = data
    model = _make(name).fit(X, y if name in REGRESSORS else labels)
    before = model.feature_importances_
    original = importance._weighted_mean
    monkeypatch.setattr(importance, "_weighted_mean", lambda rows, w: original(rows ** 2, w))
    original_tree = importance.tree_mdi
    monkeypatch.setattr(importance, "tree_mdi",
                        lambda *a, **k: original_tree(*a, **k) + np.linspace(0.1, 0.5, X.shape[1]))
    assert not np.allclose(model.feature_importances_, before, rtol=0, atol=1e-9)


def _same_structure(ours, theirs):
    """The two trees make the same splits (a precondition of comparing their importances)."""
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    w_ours, w_theirs = ours.tree_.weighted_n_node_samples, theirs.tree_.weighted_n_node_samples
    np.testing.assert_allclose(w_ours / w_ours[0], w_theirs / w_theirs[0], rtol=1e-12)  # weights scale-free


@pytest.mark.parametrize("kind", ["regressor", "classifier", "entropy"])
def test_tree_equals_sklearn(kind, data):
    X, y, labels = data
    if kind == "regressor":
        ours, theirs = er.DecisionTreeRegressor, skt.DecisionTreeRegressor
        args, target = {}, y
    else:
        ours, theirs = er.DecisionTreeClassifier, skt.DecisionTreeClassifier
        args, target = {"criterion": "gini" if kind == "classifier" else "entropy"}, labels
    # classification: depth 4, where no two features tie exactly (ties are broken differently)
    args = {**args, "min_samples_leaf": 10, "max_depth": None if kind == "regressor" else 4}
    a = ours(**args).fit(X, target)
    b = theirs(random_state=0, **args).fit(X, target)
    _same_structure(a, b)
    np.testing.assert_allclose(a.feature_importances_, b.feature_importances_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["RandomForestRegressor", "BaggingRegressor"])
def test_forest_and_bagging_equal_sklearn_trees_on_the_same_bootstrap(name, data):
    """sklearn's forest rule (mean of the trees' normalised importances, normalised) on sklearn
    trees grown on the same bootstrap samples (the draw counts as sample weights)."""
    X, y, _ = data
    tree = er.DecisionTreeRegressor(min_samples_leaf=10)
    model = (er.RandomForestRegressor(n_estimators=8, max_features=None, min_samples_leaf=10, random_state=3)
             if name == "RandomForestRegressor" else
             er.BaggingRegressor(tree, n_estimators=8, random_state=3)).fit(X, y)
    per_tree = []
    for member, idx in zip(model.estimators_, model.estimators_samples_):
        counts = np.bincount(idx, minlength=X.shape[0]).astype(float)
        theirs = skt.DecisionTreeRegressor(min_samples_leaf=10, random_state=0).fit(X, y, sample_weight=counts)
        _same_structure(member, theirs)
        per_tree.append(theirs.feature_importances_)
    mean = np.mean(per_tree, axis=0)
    np.testing.assert_allclose(model.feature_importances_, mean / mean.sum(), rtol=0, atol=1e-12)


def test_forest_mdi_of_a_sklearn_forest_equals_its_feature_importances(data):
    X, _, labels = data
    forest = ske.RandomForestClassifier(n_estimators=20, random_state=0).fit(X, labels)
    np.testing.assert_allclose(importance.forest_mdi(forest), forest.feature_importances_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_gradient_boosting_equals_sklearn(kind, data):
    X, y, labels = data
    args = dict(n_estimators=15, max_depth=3, min_samples_leaf=10, random_state=0)
    if kind == "regressor":
        a, b = er.GradientBoostingRegressor(**args).fit(X, y), ske.GradientBoostingRegressor(**args).fit(X, y)
    else:
        a = er.GradientBoostingClassifier(**args).fit(X, labels)
        b = ske.GradientBoostingClassifier(**args).fit(X, labels)
    for ours, theirs in zip(a.estimators_, b.estimators_[:, 0]):
        _same_structure(ours, theirs)
    np.testing.assert_allclose(a.feature_importances_, b.feature_importances_, rtol=0, atol=1e-12)


def test_adaboost_equals_sklearn(data):
    X, _, labels = data
    a = er.AdaBoostClassifier(er.DecisionTreeClassifier(max_depth=1), n_estimators=15).fit(X, labels)
    b = ske.AdaBoostClassifier(skt.DecisionTreeClassifier(max_depth=1), n_estimators=15,
                               random_state=0).fit(X, labels)
    for ours, theirs in zip(a.estimators_, b.estimators_):
        _same_structure(ours, theirs)
    np.testing.assert_allclose(a.feature_importances_, b.feature_importances_, rtol=0, atol=1e-12)


def test_adaboost_with_stumps_weighs_each_stump_feature_by_its_vote(data):
    X, _, labels = data
    model = er.AdaBoostClassifier(n_estimators=10).fit(X, labels)
    expected = np.bincount([h.feature_ for h in model.estimators_], weights=model.estimator_weights_,
                           minlength=X.shape[1])
    np.testing.assert_allclose(model.feature_importances_, expected / expected.sum(), rtol=0, atol=1e-12)


def test_a_perfect_adaboost_member_outweighs_the_others():
    np.testing.assert_array_equal(importance.ensemble_mdi([[1.0, 0.0], [0.0, 1.0]], [2.0, np.inf]),
                                  [0.0, 1.0])


@pytest.mark.parametrize("kind", ["regressor", "classifier", "three-classes"])
def test_second_order_boosters_equal_xgboost_gain(kind, data):
    """xgboost's default importance_type is "gain" (average loss reduction per split); the
    library stores gains in float32, hence 1e-6. tau = 0.5 is xgboost's gamma = 1."""
    X, y, labels = data
    args = dict(n_estimators=12, max_depth=3, learning_rate=0.3, reg_lambda=1.0)
    if kind == "regressor":
        a, b, target = er.XGBRegressor(tau=0.5, **args), xgboost.XGBRegressor, y
    else:
        a, b = er.XGBClassifier(tau=0.5, **args), xgboost.XGBClassifier
        target = labels if kind == "classifier" else np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    a.fit(X, target)
    b = b(gamma=1.0, tree_method="exact", **args).fit(X, target)
    assert b.importance_type in (None, "gain")
    ours = a.predict_proba(X) if kind != "regressor" else a.predict(X)
    theirs = b.predict_proba(X) if kind != "regressor" else b.predict(X)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5)  # the same trees
    np.testing.assert_allclose(a.feature_importances_, b.feature_importances_, rtol=0, atol=1e-6)


def test_gain_importance_is_not_the_split_count(data):
    """The rival "weight" (share of splits) differs on these trees: the check can fail."""
    X, y, _ = data
    model = er.XGBRegressor(n_estimators=12, max_depth=3).fit(X, y)
    count = np.bincount(np.concatenate([t.feature[t.children_left >= 0] for t in model.trees_]),
                        minlength=X.shape[1])
    assert np.abs(model.feature_importances_ - count / count.sum()).max() > 0.05


@pytest.mark.parametrize("call, param", [
    (lambda: importance.ensemble_mdi([[0.5, -0.1]]), "per_member"),
    (lambda: importance.ensemble_mdi([[0.5, 0.5]], [1.0, 2.0]), "weights"),
    (lambda: importance.ensemble_mdi([[0.5, 0.5]], [0.0]), "weights"),
    (lambda: importance.one_split_mdi(3, 3, 1.0), "feature"),
    (lambda: importance.gain_importance([], 3), "trees"),
    (lambda: importance.gain_importance([object()], 3), "tree"),
    (lambda: importance.boosted_mdi("trees"), "trees"),
])
def test_bad_arguments_are_named(call, param):
    with pytest.raises((ValueError, TypeError), match=param):
        call()
