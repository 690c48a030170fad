"""TreeSHAP (``ensemble_ref.math.shapley``): the definition, additivity, and the libraries' numbers.

* TreeSHAP equals the Shapley values computed by their definition (enumerating the
  subsets, the path-dependent conditional expectation), to 1e-10, on random trees
  (features repeated along a path included) and on the package's fitted trees, forests
  and boosters with d <= 10;
* the values add up to the model's output minus its expected value (1e-10);
* on xgboost's and lightgbm's own trees, parsed here from their dumps, they equal
  ``Booster.predict(..., pred_contribs=True)`` and ``Booster.predict(..., pred_contrib=True)``
  to 1e-6 (their float32 thresholds and leaf values are part of the dumps);
* the vectorised engine that ``ensemble_shap`` and ``shap_values`` run
  (``ensemble_ref.math.shapley_engine``) equals Algorithm 2 (``tree_shap``, summed over the
  weighted members) to 1e-12 of the values' scale, on random trees of every kind the
  node arrays describe (both rules, float32, NaN with default directions, repeated
  features, deep paths, several outputs) and on the package's and the libraries' trees;
  the comparison stops each of four wrong engines.
"""

from __future__ import annotations

import lightgbm
import numpy as np
import pytest
import xgboost

import ensemble_ref as er
from ensemble_ref.math import shapley_engine
from ensemble_ref.math.shapley import (
    TreeArrays,
    brute_force_shap,
    ensemble_shap,
    expected_value,
    shap_values,
    tree_shap,
)

D = 6


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(28)
    X = rng.normal(size=(300, D))
    y = X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * np.sin(3 * X[:, 3]) + 0.1 * rng.normal(size=300)
    return X, y, (y > np.median(y)).astype(int), np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))


def random_tree(rng, d, depth, n_outputs=None) -> TreeArrays:
    """A random tree: random splits (a feature may repeat along a path), covers that split
    the parent's between its children, random leaf values."""
    left, right, feature, threshold, cover, value = [], [], [], [], [], []

    def node(level, weight):
        j = len(left)
        for column in (left, right, feature, threshold):
            column.append(-1)
        cover.append(weight)
        value.append(rng.normal(size=n_outputs) if n_outputs else rng.normal())
        if level < depth and rng.random() < 0.85:
            feature[j], threshold[j] = int(rng.integers(d)), float(rng.normal())
            share = rng.uniform(0.1, 0.9)
            left[j] = node(level + 1, weight * share)
            right[j] = node(level + 1, weight * (1 - share))
        return j

    node(0, 100.0)
    return TreeArrays(np.array(left), np.array(right), np.array(feature), np.array(threshold),
                      np.array(value), np.array(cover))


@pytest.mark.parametrize("seed", range(8))
def test_treeshap_equals_the_definition_on_random_trees(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 9))
    tree = random_tree(rng, d, depth=int(rng.integers(2, 7)), n_outputs=None if seed % 2 else 3)
    X = rng.normal(size=(12, d))
    X[0, 0] = np.nan  # a missing value goes right (no default_left): both must agree
    phi = tree_shap(tree, X, d)
    np.testing.assert_allclose(phi, brute_force_shap(tree, X, d), rtol=0, atol=1e-10)
    leaves = np.array([_leaf(tree, x) for x in X])
    np.testing.assert_allclose(phi.sum(axis=1) + expected_value(tree), tree.value[leaves], rtol=0, atol=1e-10)


def _leaf(tree: TreeArrays, x) -> int:
    j = 0
    while tree.children_left[j] >= 0:
        j = tree.children_left[j] if tree.goes_left(j, x) else tree.children_right[j]
    return j


def _package_models(X, y, labels, three):
    return {
        "tree": (er.DecisionTreeRegressor(max_depth=6).fit(X, y), lambda m, A: m.predict(A)),
        "tree-classifier": (er.DecisionTreeClassifier(max_depth=5).fit(X, labels), lambda m, A: m.predict_proba(A)),
        "forest": (er.RandomForestRegressor(n_estimators=4, max_depth=5, random_state=0).fit(X, y),
                   lambda m, A: m.predict(A)),
        "bagging-classifier": (er.BaggingClassifier(er.DecisionTreeClassifier(max_depth=4), n_estimators=3,
                                                    random_state=0).fit(X, three), lambda m, A: m.predict_proba(A)),
        "gradient-boosting": (er.GradientBoostingClassifier(n_estimators=6, max_depth=3, random_state=0).fit(X, labels),
                              lambda m, A: m.decision_function(A)),
        "xgb": (er.XGBRegressor(n_estimators=6, max_depth=4).fit(X, y), lambda m, A: m._margin(A)),
        "xgb-three-classes": (er.XGBClassifier(n_estimators=3, max_depth=3).fit(X, three),
                              lambda m, A: m._margin(A)),
    }


@pytest.mark.parametrize("name", ["tree", "tree-classifier", "forest", "bagging-classifier", "gradient-boosting",
                                  "xgb", "xgb-three-classes"])
def test_package_models_definition_and_additivity(name, data):
    X, y, labels, three = data
    model, output = _package_models(X, y, labels, three)[name]
    A = X[:8]
    phi, expected = shap_values(model, A)
    np.testing.assert_allclose(phi.sum(axis=1) + expected, output(model, A), rtol=0, atol=1e-10)
    # the definition, member by member (the Shapley value is linear in the model)
    if hasattr(model, "trees_"):
        from ensemble_ref.math.shapley import _second_order as arrays
        members, K = [arrays(t) for t in model.trees_], int(np.size(model.base_margin_))
        brute = [brute_force_shap(t, A, D) for t in members]
        brute = sum(brute) if K == 1 else np.stack([sum(brute[k::K]) for k in range(K)], axis=-1)
    else:
        from ensemble_ref.math.shapley import _cart as arrays
        trees = [t.tree_ for t in getattr(model, "estimators_", [model])]
        weight = getattr(model, "learning_rate", 1.0 / len(trees)) if hasattr(model, "estimators_") else 1.0
        brute = weight * sum(brute_force_shap(arrays(t), A, D) for t in trees)
    np.testing.assert_allclose(phi, brute, rtol=0, atol=1e-10)


def test_shapley_values_are_not_the_path_differences(data):
    """The rival, Saabas's attribution (the change of the node value along x's path), differs:
    the checks above can tell them apart."""
    X, y, *_ = data
    model = er.DecisionTreeRegressor(max_depth=5).fit(X, y)
    s, A = model.tree_, X[:20]
    saabas = np.zeros((len(A), D))
    for r, x in enumerate(A.astype(np.float32)):
        j = 0
        while s.children_left[j] >= 0:
            child = s.children_left[j] if x[s.feature[j]] <= s.threshold[j] else s.children_right[j]
            saabas[r, s.feature[j]] += s.value[child] - s.value[j]
            j = child
    assert np.abs(shap_values(model, A)[0] - saabas).max() > 1e-3


# --- the libraries' trees --------------------------------------------------------------

def xgboost_trees(booster: xgboost.Booster, n_features: int) -> list[TreeArrays]:
    """The trees of ``trees_to_dataframe()``: ``x < Split`` goes to ``Yes``, NaN to ``Missing``,
    the cover is the hessian sum, a leaf's value is in ``Gain``; thresholds are float32."""
    frame = booster.trees_to_dataframe()
    trees = []
    for _, t in frame.groupby("Tree", sort=True):
        t = t.sort_values("Node")
        index = {node_id: i for i, node_id in enumerate(t["ID"])}
        leaf = (t["Feature"] == "Leaf").to_numpy()
        child = lambda column: np.array([-1 if lf else index[c] for lf, c in zip(leaf, t[column])])  # noqa: E731
        left, right, missing = child("Yes"), child("No"), child("Missing")
        feature = np.array([-2 if lf else int(f[1:]) for lf, f in zip(leaf, t["Feature"])])
        threshold = np.where(leaf, 0.0, t["Split"].fillna(0.0).to_numpy()).astype(np.float32).astype(float)
        trees.append(TreeArrays(left, right, feature, threshold, np.where(leaf, t["Gain"], 0.0),
                                t["Cover"].to_numpy(float), default_left=(missing == left) & ~leaf,
                                rule="<", float32=True))
    return trees


def lightgbm_trees(booster: lightgbm.Booster) -> list[TreeArrays]:
    """The trees of ``dump_model()``: ``x <= threshold`` goes left, the cover is the data count."""
    trees = []
    for info in booster.dump_model()["tree_info"]:
        left, right, feature, threshold, value, cover, default_left = [], [], [], [], [], [], []

        def visit(node):
            j = len(left)
            for column in (left, right, feature):
                column.append(-1)
            threshold.append(0.0)
            value.append(node.get("leaf_value", 0.0))
            cover.append(node.get("internal_count", node.get("leaf_count")))
            default_left.append(node.get("default_left", False))
            if "split_feature" in node:
                assert node["decision_type"] == "<="
                feature[j], threshold[j] = node["split_feature"], node["threshold"]
                left[j] = visit(node["left_child"])
                right[j] = visit(node["right_child"])
            return j

        visit(info["tree_structure"])
        trees.append(TreeArrays(np.array(left), np.array(right), np.array(feature), np.array(threshold),
                                np.array(value), np.array(cover, dtype=float), np.array(default_left)))
    return trees


@pytest.mark.parametrize("objective", ["reg:squarederror", "binary:logistic"])
def test_equals_xgboost_pred_contribs(objective, data):
    X, y, labels, _ = data
    X = X.copy()
    X[::17, 2] = np.nan  # missing values follow the learned default directions
    target = y if objective.startswith("reg") else labels
    dtrain = xgboost.DMatrix(X, label=target)
    booster = xgboost.train({"objective": objective, "max_depth": 4, "eta": 0.3, "tree_method": "exact"},
                            dtrain, num_boost_round=8)
    A = X[:25]
    contribs = booster.predict(xgboost.DMatrix(A), pred_contribs=True)
    phi, expected = ensemble_shap(xgboost_trees(booster, D), A, D)
    np.testing.assert_allclose(phi, contribs[:, :D], rtol=0, atol=1e-6)
    margin = booster.predict(xgboost.DMatrix(A), output_margin=True)
    base = margin - phi.sum(axis=1) - expected  # the library's base score, one value for every row
    np.testing.assert_allclose(base, base[0], rtol=0, atol=1e-5)
    np.testing.assert_allclose(expected + base[0], contribs[:, D], rtol=0, atol=1e-5)


@pytest.mark.parametrize("objective", ["regression", "binary"])
def test_equals_lightgbm_pred_contrib(objective, data):
    X, y, labels, _ = data
    target = y if objective == "regression" else labels
    booster = lightgbm.train({"objective": objective, "num_leaves": 12, "learning_rate": 0.2,
                              "min_data_in_leaf": 5, "verbose": -1}, lightgbm.Dataset(X, target),
                             num_boost_round=8)
    A = X[:25]
    contribs = booster.predict(A, pred_contrib=True)
    phi, expected = ensemble_shap(lightgbm_trees(booster), A, D)
    np.testing.assert_allclose(phi, contribs[:, :D], rtol=0, atol=1e-6)
    np.testing.assert_allclose(expected, contribs[:, D], rtol=0, atol=1e-6)
    np.testing.assert_allclose(phi.sum(axis=1) + expected, booster.predict(A, raw_score=True), rtol=0, atol=1e-6)


@pytest.mark.parametrize("call, param", [
    (lambda t: tree_shap(t, np.zeros((2, 3)), 2), "X"),
    (lambda t: tree_shap(t, np.zeros((2, 2)), 0), "n_features"),
    (lambda t: brute_force_shap(t, np.zeros((1, 11)), 11), "n_features"),
    (lambda t: tree_shap(object(), np.zeros((2, 2)), 2), "tree"),
    (lambda t: ensemble_shap([], np.zeros((2, 2)), 2), "trees"),
    (lambda t: ensemble_shap([t], np.zeros((2, 2)), 2, weights=[1.0, 2.0]), "weights"),
    (lambda t: shap_values(er.DecisionTreeRegressor(), np.zeros((2, 2))), "model"),
    (lambda t: shap_values(er.VotingRegressor([("a", er.LeastSquaresRegressor())]).fit(
        np.eye(3), [0.0, 1.0, 2.0]), np.eye(3)), "tree"),
])
def test_bad_arguments_are_named(call, param):
    tree = random_tree(np.random.default_rng(0), 2, 2)
    with pytest.raises((ValueError, TypeError), match=param):
        call(tree)


# --- the engine equals Algorithm 2 --------------------------------------------------------

def engine_gap(trees, X, d, weights=None) -> float:
    """max |ensemble_shap - sum_m weights[m] tree_shap(tree_m)| over the largest |value|."""
    weights = np.ones(len(trees)) if weights is None else np.asarray(weights, dtype=float)
    reference = sum(w * tree_shap(t, X, d) for w, t in zip(weights, trees))
    phi, _ = ensemble_shap(trees, X, d, weights)
    assert phi.shape == reference.shape and np.abs(reference).max() > 0
    return float(np.abs(phi - reference).max() / np.abs(reference).max())


def random_variant(rng, d, depth, n_outputs=None) -> TreeArrays:
    """A random tree (features repeating along paths), with a random rule, float32 rounding
    or not, and random default directions for NaN or none."""
    tree = random_tree(rng, d, depth, n_outputs)
    tree.rule, tree.float32 = ("<=", "<")[int(rng.integers(2))], bool(rng.integers(2))
    if rng.random() < 0.7:
        tree.default_left = rng.random(len(tree.feature)) < 0.5
    return tree


def points_with_nan(rng, n, d, thresholds=()):
    """Normal points, some of them on a threshold (the rule decides), a tenth NaN."""
    X = rng.normal(size=(n, d))
    for t in list(thresholds)[: n // 2]:
        X[rng.integers(n), rng.integers(d)] = t
    X[rng.random((n, d)) < 0.1] = np.nan
    return X


@pytest.mark.parametrize("seed", range(12))
def test_engine_equals_algorithm_2_on_random_ensembles(seed, monkeypatch):
    """Trees of depths 0 to 12 in one ensemble (leaves of every path length), weighted; for
    a third of the seeds the rows go through the engine a few at a time."""
    if seed % 3 == 1:
        monkeypatch.setattr(shapley_engine, "_CHUNK", 200)
    rng = np.random.default_rng(100 + seed)
    d, M = int(rng.integers(1, 12)), int(rng.integers(1, 5))
    n_outputs = None if seed % 3 else int(rng.integers(1, 4))
    trees = [random_variant(rng, d, int(rng.integers(0, 13)), n_outputs) for _ in range(M - 1)]
    trees.append(random_variant(rng, d, 5 + seed % 8, n_outputs))
    X = points_with_nan(rng, 20, d, np.concatenate([t.threshold[t.children_left >= 0] for t in trees]))
    assert engine_gap(trees, X, d, rng.uniform(-1, 2, size=M)) <= 1e-12


@pytest.fixture(scope="module")
def nan_data(data):
    X, y, labels, three = data
    X = X.copy()
    X[::7, 1], X[::11, 4] = np.nan, np.nan
    return X, y, labels, three


def _members(model):
    from ensemble_ref.math.shapley import _cart, _second_order
    if hasattr(model, "trees_"):
        return [_second_order(t) for t in model.trees_]
    return [_cart(m.tree_) for m in getattr(model, "estimators_", [model])]


@pytest.mark.parametrize("name", ["deep-tree", "deep-classifier", "forest", "gradient-boosting",
                                  "second-order-nan", "second-order-three-classes"])
def test_engine_equals_algorithm_2_on_package_trees(name, data, nan_data):
    X, y, labels, three = data
    Xn = nan_data[0]
    model, A = {
        "deep-tree": (er.DecisionTreeRegressor(min_samples_leaf=2).fit(X, y), X[:10]),
        "deep-classifier": (er.DecisionTreeClassifier().fit(X, three), X[:10]),
        "forest": (er.RandomForestRegressor(n_estimators=3, max_depth=7, random_state=1).fit(X, y), X[:15]),
        "gradient-boosting": (er.GradientBoostingRegressor(n_estimators=20, max_depth=4).fit(X, y), X[:30]),
        "second-order-nan": (er.XGBRegressor(n_estimators=10, max_depth=6).fit(Xn, y), Xn[:30]),
        "second-order-three-classes": (er.XGBClassifier(n_estimators=4, max_depth=4).fit(Xn, three), Xn[:30]),
    }[name]
    if name == "second-order-nan":
        assert any(t.default_left[t.children_left >= 0].any() for t in model.trees_)
        assert np.isnan(A).any()
    trees = _members(model)
    if name == "second-order-three-classes":  # the members of class k are trees k, k + 3, ...
        for k in range(3):
            assert engine_gap(trees[k::3], A, D) <= 1e-12
        return
    weight = 1.0 if hasattr(model, "trees_") else model.learning_rate if hasattr(model, "init_") else 1 / len(trees)
    weights = np.full(len(trees), weight)
    assert engine_gap(trees, A, D, weights) <= 1e-12
    phi, _ = shap_values(model, A)  # shap_values runs the engine on the same members
    reference = sum(w * tree_shap(t, A, D) for w, t in zip(weights, trees))
    np.testing.assert_allclose(phi, reference, rtol=0, atol=1e-12 * np.abs(reference).max())


def chapter_xgboost_trees(booster: xgboost.Booster) -> list[TreeArrays]:
    """xgboost's trees as chapter 15 reads them (no default directions: NaN goes right)."""
    trees = xgboost_trees(booster, D)
    for t in trees:
        t.default_left = None
    return trees


@pytest.mark.parametrize("library", ["xgboost", "xgboost-as-the-chapter", "lightgbm"])
def test_engine_equals_algorithm_2_on_library_trees(library, nan_data):
    X, y, *_ = nan_data
    A = X[:30]
    if library.startswith("xgboost"):
        booster = xgboost.train({"max_depth": 5, "eta": 0.3, "tree_method": "exact", "nthread": 1},
                                xgboost.DMatrix(X, label=y), num_boost_round=10)
        trees = xgboost_trees(booster, D) if library == "xgboost" else chapter_xgboost_trees(booster)
    else:
        booster = lightgbm.train({"num_leaves": 15, "learning_rate": 0.2, "min_data_in_leaf": 5, "verbose": -1,
                                  "num_threads": 1}, lightgbm.Dataset(X, y), num_boost_round=10)
        trees = lightgbm_trees(booster)
    assert engine_gap(trees, A, D) <= 1e-12


def _drop_z_in_extend(original):
    return lambda o, z: original(o, np.ones_like(z))


def _credit_without_z(original):
    return lambda w, o, z: original(w, o, np.zeros_like(z))


def _repeated_features_not_merged(original):
    def elements(tree, edges):  # every split its own element, as if the features differed
        features = [int(tree.feature[j]) for j, _, _ in edges]
        split = [tree.cover[child] / tree.cover[j] for j, _, child in edges]
        return features, split, list(range(len(edges)))
    return elements


def _nan_goes_left(original):
    def goes_left(tree, X, X32):
        return original(tree, np.nan_to_num(X, nan=-np.inf), np.nan_to_num(X32, nan=-np.inf))
    return goes_left


@pytest.mark.parametrize("name, wrong", [("_extend_all", _drop_z_in_extend), ("_credits", _credit_without_z),
                                         ("_elements", _repeated_features_not_merged),
                                         ("_goes_left", _nan_goes_left)])
def test_the_comparison_stops_a_wrong_engine(name, wrong, monkeypatch):
    """The comparison above can fail: a wrong engine is far from Algorithm 2 on random trees
    (with repeated features and NaN), and right again once restored."""
    rng = np.random.default_rng(7)
    d = 4
    trees = [random_variant(rng, d, 6) for _ in range(3)]
    for t in trees:
        t.default_left = np.zeros(len(t.feature), dtype=bool)  # NaN goes right
    X = points_with_nan(rng, 25, d)
    assert engine_gap(trees, X, d) <= 1e-12
    monkeypatch.setattr(shapley_engine, name, wrong(getattr(shapley_engine, name)))
    assert engine_gap(trees, X, d) > 1e-3
