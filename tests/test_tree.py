"""Decision trees: scikit-learn is the oracle for splits and predictions."""

import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy
from sklearn import tree as sktree

from ensemble_ref import DecisionTreeClassifier, DecisionTreeRegressor, NotFittedError
from ensemble_ref.math.impurity import entropy_impurity, gini_impurity, squared_error_impurity
from ensemble_ref.trees.engine import SortedColumns, to_float32

DEPTHS = [1, 2, 3, 5, 8, None]


def make_data(seed, n=300, d=5, n_test=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + 0.3 * rng.normal(size=n)
    labels = (y > 0).astype(int) + (X[:, 2] > 1)  # three classes
    X_test = rng.normal(size=(n_test, d))
    weights = rng.integers(0, 4, size=n)  # integer weights, some zero
    return X, y, labels, X_test, weights


# ---------------------------------------------------------------- regression oracle
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_regressor_matches_sklearn_on_training_set(seed, weighted):
    X, y, _, _, w = make_data(seed)
    sw = w if weighted else None
    train = X[w > 0] if weighted else X  # points of weight 0 are not part of the fit
    for depth in DEPTHS:
        for msl in (1, 3):
            ours = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=msl).fit(X, y, sw)
            ref = sktree.DecisionTreeRegressor(max_depth=depth, min_samples_leaf=msl,
                                               random_state=0).fit(X, y, sample_weight=sw)
            # leaf means are sums in a different order: equal to ~1e-15 relative
            np.testing.assert_allclose(ours.predict(train), ref.predict(train), rtol=1e-12, atol=1e-12)
            assert ours.get_depth() == ref.get_depth()
            assert ours.get_n_leaves() == ref.get_n_leaves()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_regressor_matches_sklearn_on_new_points_when_leaves_are_large(seed, weighted):
    X, y, _, X_test, w = make_data(seed)
    sw = w if weighted else None
    for depth in DEPTHS:
        ours = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=10).fit(X, y, sw)
        ref = sktree.DecisionTreeRegressor(max_depth=depth, min_samples_leaf=10,
                                           random_state=0).fit(X, y, sample_weight=sw)
        np.testing.assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-12, atol=1e-12)


def test_tree_arrays_match_sklearn_node_for_node():
    X, y, _, X_test, _ = make_data(7, n=500)
    ours = DecisionTreeRegressor(min_samples_leaf=10).fit(X, y)
    ref = sktree.DecisionTreeRegressor(min_samples_leaf=10, random_state=0).fit(X, y)
    t, r = ours.tree_, ref.tree_
    assert t.node_count == r.node_count
    np.testing.assert_array_equal(t.children_left, r.children_left)
    np.testing.assert_array_equal(t.children_right, r.children_right)
    np.testing.assert_array_equal(t.feature, r.feature)
    np.testing.assert_array_equal(t.threshold, r.threshold)  # same midpoints, bit for bit
    np.testing.assert_array_equal(t.n_node_samples, r.n_node_samples)
    np.testing.assert_allclose(t.weighted_n_node_samples, r.weighted_n_node_samples)
    np.testing.assert_allclose(t.value, r.value[:, 0, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(t.impurity, r.impurity, rtol=1e-9, atol=1e-12)
    assert t.max_depth == r.max_depth
    np.testing.assert_array_equal(ours.apply(X_test), ref.apply(X_test))  # same pre-order ids


# ------------------------------------------------------------ classification oracle
def sklearn_consensus(X, y, sw, points, **params):
    """scikit-learn's probabilities if they do not depend on its random feature order, else None.

    scikit-learn visits features in a random order and keeps the first strictly
    best split, so an exact tie between two features is resolved by its
    ``random_state``. Ten seeds agreeing means no such tie affects ``points``.
    """
    probas = [sktree.DecisionTreeClassifier(random_state=r, **params)
              .fit(X, y, sample_weight=sw).predict_proba(points) for r in range(10)]
    if all(np.array_equal(probas[0], p) for p in probas[1:]):
        return probas[0]
    return None


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("weighted", [False, True])
def test_classifier_matches_sklearn(criterion, weighted):
    compared = total = 0
    for seed in range(3):
        X, _, labels, X_test, w = make_data(seed)
        sw = w if weighted else None
        train = X[w > 0] if weighted else X
        for depth in DEPTHS:
            for msl in (1, 10):
                params = dict(criterion=criterion, max_depth=depth, min_samples_leaf=msl)
                ours = DecisionTreeClassifier(**params).fit(X, labels, sw)
                # held-out points are compared only when leaves are large (msl >= 10)
                points = np.vstack([train, X_test]) if msl >= 10 else train
                ref = sklearn_consensus(X, labels, sw, points, **params)
                total += 1
                if ref is not None:
                    compared += 1
                    np.testing.assert_array_equal(ours.predict_proba(points), ref)
    # exact ties between features must be the exception, or this test says little
    assert compared >= 0.5 * total, (compared, total)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_with_real_valued_weights_matches_sklearn(criterion):
    """Non-integer weights make exact ties between different partitions (almost surely) impossible."""
    for seed in range(3):
        X, y, labels, _, _ = make_data(seed)
        w = np.random.default_rng(seed).uniform(0.2, 3.0, size=len(y))
        for depth in DEPTHS:
            ours = DecisionTreeClassifier(criterion=criterion, max_depth=depth).fit(X, labels, w)
            ref = sktree.DecisionTreeClassifier(criterion=criterion, max_depth=depth,
                                                random_state=0).fit(X, labels, sample_weight=w)
            # class proportions are ratios of weight sums accumulated in a different order
            np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-10, atol=1e-12)
            np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_fully_grown_classifier_reproduces_training_labels_like_sklearn():
    X, _, labels, _, _ = make_data(4, n=400)
    ours = DecisionTreeClassifier().fit(X, labels)
    ref = sktree.DecisionTreeClassifier(random_state=0).fit(X, labels)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_array_equal(ours.predict(X), labels)


def test_classifier_arbitrary_labels():
    X, _, labels, X_test, _ = make_data(5)
    names = np.array(["setosa", "versicolor", "virginica"])[labels]
    ours = DecisionTreeClassifier(max_depth=3).fit(X, names)
    ints = DecisionTreeClassifier(max_depth=3).fit(X, labels)
    np.testing.assert_array_equal(ours.classes_, ["setosa", "versicolor", "virginica"])
    np.testing.assert_array_equal(ours.predict(X_test), ours.classes_[ints.predict(X_test)])
    shifted = DecisionTreeClassifier(max_depth=3).fit(X, 10 * labels - 7)
    np.testing.assert_array_equal(shifted.predict(X_test), 10 * ints.predict(X_test) - 7)


def test_predict_ties_go_to_the_smallest_label():
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([5, 2, 5, 2])  # every leaf holds one point of each class
    assert set(DecisionTreeClassifier().fit(X, y).predict(X)) == {2}


# ----------------------------------------------------------------- other behaviour
def test_integer_weights_equal_repeated_rows():
    X, y, labels, _, _ = make_data(8, n=120)
    rng = np.random.default_rng(0)
    w = rng.integers(1, 4, size=len(y))
    rows = np.repeat(np.arange(len(y)), w)
    for depth in (2, 4, None):
        a = DecisionTreeRegressor(max_depth=depth).fit(X, y, w)
        b = DecisionTreeRegressor(max_depth=depth).fit(X[rows], y[rows])
        np.testing.assert_allclose(a.predict(X), b.predict(X), rtol=1e-12)
        a = DecisionTreeClassifier(max_depth=depth).fit(X, labels, w)
        b = DecisionTreeClassifier(max_depth=depth).fit(X[rows], labels[rows])
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_zero_weight_points_are_ignored():
    X, y, _, X_test, w = make_data(9)
    a = DecisionTreeRegressor(min_samples_leaf=5).fit(X, y, w)
    keep = w > 0
    b = DecisionTreeRegressor(min_samples_leaf=5).fit(X[keep], y[keep], w[keep])
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_allclose(a.predict(X_test), b.predict(X_test))


def test_thresholds_are_midpoints_and_ties_go_left():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    tree = DecisionTreeRegressor(max_depth=1).fit(X, [0.0, 0.0, 1.0, 1.0])
    assert tree.tree_.threshold[0] == 1.5
    # a new point exactly on the threshold goes left
    np.testing.assert_array_equal(tree.predict([[1.5], [1.5000001]]), [0.0, 1.0])


def test_leaf_values_can_be_overwritten():
    """Gradient boosting replaces leaf values after fitting; predict must read them."""
    X, y, labels, X_test, _ = make_data(10)
    reg = DecisionTreeRegressor(max_depth=3).fit(X, y)
    assert reg.tree_.value.shape == (reg.tree_.node_count,)
    leaves = reg.apply(X_test)
    reg.tree_.value[reg.tree_.children_left == -1] = np.arange(reg.get_n_leaves())
    np.testing.assert_array_equal(reg.predict(X_test), reg.tree_.value[leaves])
    clf = DecisionTreeClassifier(max_depth=3).fit(X, labels)
    assert clf.tree_.value.shape == (clf.tree_.node_count, 3)
    np.testing.assert_allclose(clf.tree_.value.sum(1), 1.0)


def test_tree_arrays_are_consistent():
    X, y, _, _, _ = make_data(11)
    t = DecisionTreeRegressor(max_depth=4).fit(X, y).tree_
    inner = t.children_left != -1
    assert np.all((t.children_right != -1) == inner)
    assert np.all(t.feature[~inner] == -2) and np.all(t.feature[inner] >= 0)
    # a parent holds exactly the points of its two children, and children come after parents
    np.testing.assert_array_equal(
        t.n_node_samples[inner],
        t.n_node_samples[t.children_left[inner]] + t.n_node_samples[t.children_right[inner]])
    assert np.all(t.children_left[inner] == np.flatnonzero(inner) + 1)  # pre-order numbering
    assert t.n_node_samples[0] == len(y) and t.depth[0] == 0


def _preorder(t, node=0, out=None):
    """The nodes of ``t`` listed in depth-first pre-order, by recursion (the definition)."""
    out = [] if out is None else out
    out.append(node)
    if t.children_left[node] != -1:
        _preorder(t, t.children_left[node], out)
        _preorder(t, t.children_right[node], out)
    return out


@pytest.mark.parametrize("depth", [1, 4, None])
def test_nodes_are_numbered_in_preorder_whatever_the_depth(depth):
    """Node ids are the depth-first pre-order, for shallow trees, forests grown together and a
    chain of depth 299 (its paths from the root take several 62-step keys)."""
    from ensemble_ref import RandomForestClassifier
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    trees = [DecisionTreeClassifier(max_depth=depth).fit(X, y).tree_]
    trees += [m.tree_ for m in RandomForestClassifier(n_estimators=5, max_depth=depth,
                                                      random_state=0).fit(X, y).estimators_]
    chain = np.arange(300.0)[:, None]
    trees.append(DecisionTreeClassifier(max_depth=depth).fit(chain, np.arange(300) % 2).tree_)
    for t in trees:
        np.testing.assert_array_equal(_preorder(t), np.arange(t.node_count))
        inner = t.children_left != -1
        np.testing.assert_array_equal(t.depth[t.children_left[inner]], t.depth[inner] + 1)
    assert depth is not None or trees[-1].max_depth == 299


def test_partition_keeps_every_segment_sorted_for_short_and_long_rows():
    """Both ways of moving the samples into their children's segments (one sort of all the
    rows, or a row at a time) give the stable sort by key, truncated."""
    from ensemble_ref.trees.engine import partition
    rng = np.random.default_rng(6)
    for d, N in [(3, 50), (7, 2500), (2, 2501), (4, 6000)]:
        S = np.argsort(rng.random((d, N)), axis=1)
        key = rng.integers(0, 4, N).astype(np.uint8)
        n_keep = int(np.sum(key < 3))
        expected = np.array([row[np.argsort(key[row], kind="stable")][:n_keep] for row in S])
        np.testing.assert_array_equal(partition(S, key, n_keep), expected)


def test_min_samples_parameters_are_respected():
    X, y, _, _, _ = make_data(12)
    for msl, mss in [(7, 2), (1, 40), (0.05, 0.2)]:
        ours = DecisionTreeRegressor(min_samples_leaf=msl, min_samples_split=mss).fit(X, y)
        ref = sktree.DecisionTreeRegressor(min_samples_leaf=msl, min_samples_split=mss,
                                           random_state=0).fit(X, y)
        t = ours.tree_
        leaf_min = int(np.ceil(msl * len(y))) if isinstance(msl, float) else msl
        assert t.n_node_samples[t.children_left == -1].min() >= leaf_min
        np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)


@pytest.mark.parametrize("max_features, expected", [("sqrt", 3), ("log2", 3), (0.5, 5), (4, 4),
                                                    (None, 10), (1.0, 10)])
def test_max_features_resolution(max_features, expected):
    X, y, _, _, _ = make_data(13, n=60, d=10)
    ours = DecisionTreeRegressor(max_features=max_features, random_state=0).fit(X, y)
    ref = sktree.DecisionTreeRegressor(max_features=max_features, random_state=0).fit(X, y)
    assert ours.max_features_ == ref.max_features_ == expected


def test_feature_subsampling_is_uniform_and_seeded():
    """With max_features=1 the root feature is uniform over the features.

    Over 400 seeds each of the 4 features is expected 100 times with binomial
    standard deviation sqrt(400 * 0.25 * 0.75) = 8.7; we allow 4 standard deviations.
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    y = X.sum(1)
    roots = [DecisionTreeRegressor(max_depth=1, max_features=1, random_state=s).fit(X, y).tree_.feature[0]
             for s in range(400)]
    counts = np.bincount(roots, minlength=4)
    assert np.all(np.abs(counts - 100) <= 4 * 8.7), counts
    a = DecisionTreeRegressor(max_features=2, random_state=3).fit(X, y)
    b = DecisionTreeRegressor(max_features=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)


def test_random_feature_trees_are_as_accurate_as_sklearns():
    """Mean test R^2 over 30 seeds agrees with scikit-learn's within 4 standard errors."""
    X, y, _, X_test, _ = make_data(14, n=300, d=6)
    rng = np.random.default_rng(1)
    y_test = X_test[:, 0] + np.sin(3 * X_test[:, 1]) + 0.3 * rng.normal(size=len(X_test))
    ours = [DecisionTreeRegressor(max_features=2, random_state=s).fit(X, y).score(X_test, y_test)
            for s in range(30)]
    ref = [sktree.DecisionTreeRegressor(max_features=2, random_state=s).fit(X, y).score(X_test, y_test)
           for s in range(30)]
    se = np.sqrt(np.var(ours, ddof=1) / 30 + np.var(ref, ddof=1) / 30)
    assert abs(np.mean(ours) - np.mean(ref)) <= 4 * se


def test_constant_target_gives_a_single_leaf():
    X, _, _, _, _ = make_data(15, n=30)
    tree = DecisionTreeRegressor().fit(X, np.full(30, 2.5))
    assert tree.tree_.node_count == 1
    np.testing.assert_array_equal(tree.predict(X), 2.5)


def test_impurity_functions_against_definitions():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 20, size=(50, 4)).astype(float)
    counts[:, 0] += 1  # no empty node
    p = counts / counts.sum(1, keepdims=True)
    np.testing.assert_allclose(gini_impurity(counts), np.sum(p * (1 - p), axis=1))
    np.testing.assert_allclose(entropy_impurity(counts), scipy_entropy(p, base=2, axis=1))
    np.testing.assert_allclose(gini_impurity(counts.T, axis=0), gini_impurity(counts))
    y = rng.normal(size=40)
    w = rng.uniform(0.5, 2.0, size=40)
    mean = np.average(y, weights=w)
    np.testing.assert_allclose(
        squared_error_impurity(np.sum(w * y), np.sum(w * y * y), np.sum(w)),
        np.average((y - mean) ** 2, weights=w))


# ------------------------------------------------------------------------ bad input
@pytest.fixture
def xy():
    X, y, labels, _, _ = make_data(0, n=40)
    return X, y, labels


@pytest.mark.parametrize("Estimator", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_nan_in_X_is_rejected(Estimator, xy):
    X, y, labels = xy
    X = X.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        Estimator().fit(X, labels)


@pytest.mark.parametrize("Estimator", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_inf_in_X_is_rejected(Estimator, xy):
    X, _, labels = xy
    X = X.copy()
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="X"):
        Estimator().fit(X, labels)


def test_values_beyond_float32_are_rejected(xy):
    X, y, _ = xy
    X = X.copy()
    X[0, 0] = 1e300
    with pytest.raises(ValueError, match="float32"):
        DecisionTreeRegressor().fit(X, y)


def test_nan_in_y_is_rejected(xy):
    X, y, _ = xy
    y = y.copy()
    y[0] = np.nan
    with pytest.raises(ValueError, match="y"):
        DecisionTreeRegressor().fit(X, y)


@pytest.mark.parametrize("Estimator", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_mismatched_lengths_are_rejected(Estimator, xy):
    X, _, labels = xy
    with pytest.raises(ValueError, match="inconsistent lengths"):
        Estimator().fit(X, labels[:-1])


def test_single_class_is_rejected(xy):
    X, _, _ = xy
    with pytest.raises(ValueError, match="y must contain at least 2 classes"):
        DecisionTreeClassifier().fit(X, np.ones(len(X)))


@pytest.mark.parametrize("Estimator", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_empty_input_is_rejected(Estimator):
    with pytest.raises(ValueError, match="X must contain at least one sample"):
        Estimator().fit(np.empty((0, 3)), np.empty(0))


def test_negative_sample_weight_is_rejected(xy):
    X, y, _ = xy
    w = np.ones(len(y))
    w[2] = -1.0
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        DecisionTreeRegressor().fit(X, y, w)


def test_all_zero_sample_weight_is_rejected(xy):
    X, _, labels = xy
    with pytest.raises(ValueError, match="sample_weight must have a positive sum"):
        DecisionTreeClassifier().fit(X, labels, np.zeros(len(labels)))


def test_unknown_criterion_is_rejected(xy):
    X, _, labels = xy
    with pytest.raises(ValueError, match="criterion"):
        DecisionTreeClassifier(criterion="gain").fit(X, labels)


@pytest.mark.parametrize("bad", ["auto", 0, 6, 0.0, 1.5, -1])
def test_unknown_max_features_is_rejected(bad, xy):
    X, y, _ = xy
    with pytest.raises(ValueError, match="max_features"):
        DecisionTreeRegressor(max_features=bad).fit(X, y)


@pytest.mark.parametrize("param, bad", [("max_depth", 0), ("min_samples_leaf", 0),
                                        ("min_samples_split", 1), ("min_samples_split", 1.5)])
def test_bad_size_parameters_are_rejected(param, bad, xy):
    X, y, _ = xy
    with pytest.raises(ValueError, match=param):
        DecisionTreeRegressor(**{param: bad}).fit(X, y)


@pytest.mark.parametrize("method", ["predict", "apply", "get_depth", "get_n_leaves", "predict_proba"])
def test_predict_before_fit_raises_not_fitted(method, xy):
    X, _, _ = xy
    tree = DecisionTreeClassifier()
    args = () if method.startswith("get") else (X,)
    with pytest.raises(NotFittedError):
        getattr(tree, method)(*args)


@pytest.mark.parametrize("Estimator", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_wrong_number_of_features_at_predict_is_rejected(Estimator, xy):
    X, _, labels = xy
    tree = Estimator(max_depth=2).fit(X, labels)
    with pytest.raises(ValueError, match="features"):
        tree.predict(X[:, :-1])


# ------------------------------------------------- features with few values: the coded engine
def _fit_with(engine, tree, X, y, w, classes=None):
    """Fit ``tree`` with the engine of features with few values ("coded") or the sorted one."""
    from ensemble_ref.trees import value_codes

    few = value_codes.FEW_VALUES
    value_codes.FEW_VALUES = 0 if engine == "coded" else 10**9  # every feature few values, or none
    try:
        return tree.fit_presorted(SortedColumns(to_float32(X)), y, w, *([] if classes is None else [classes]))
    finally:
        value_codes.FEW_VALUES = few


def test_the_coded_engine_grows_the_trees_of_the_sorted_engine():
    """Histograms of the codes and the sorted segments find the same splits: the same trees,
    array for array, wherever the sums are exact (class counts and integer targets with whole
    weights); elsewhere a tie may be broken by a rounding, between splits that give the same
    predictions on the training points. Weights unit, whole or real; depths, leaf sizes and
    feature draws; values closer than 1e-7 (scikit-learn's equal values) on some features, and
    a feature with many values whose codes small nodes sort."""
    rng = np.random.default_rng(0)
    for _ in range(150):
        N, d = int(rng.integers(20, 300)), int(rng.integers(1, 7))
        X = np.column_stack([rng.integers(0, int(k), N) * rng.choice([1.0, 0.37, 1e-8])
                             for k in rng.integers(2, 9, d)])
        if rng.random() < 0.2:
            X[:, 0] = rng.integers(0, 4, N) * 6e-8 + 0.7
        if N >= 240:  # many values: small nodes sort their codes (coded_candidates._sorted_bins)
            X[:, -1] = rng.integers(0, 30, N)
        kind = rng.choice(["unit", "whole", "real"])
        w = {"unit": np.ones(N), "whole": rng.integers(0, 4, N).astype(float),
             "real": rng.random(N) * (rng.random(N) < 0.8)}[kind]
        w[0] = max(w[0], 0.5)
        params = dict(max_depth=rng.choice([None, 1, 2, 4]), min_samples_leaf=int(rng.choice([1, 3])),
                      min_samples_split=int(rng.choice([2, 5])), random_state=int(rng.integers(100)),
                      max_features=rng.choice([None, 1, 2]) if d > 2 else None)
        if rng.random() < 0.5:
            y, classes = rng.integers(0, 3, N), np.arange(3)
            Tree, exact = DecisionTreeClassifier, kind != "real"
        else:
            integer = rng.random() < 0.5
            y, classes = (np.round(3 * rng.normal(size=N)) if integer else rng.normal(size=N)), None
            Tree, exact = DecisionTreeRegressor, integer and kind != "real"
        a, b = (_fit_with(e, Tree(**params), X, y, w, classes).tree_ for e in ("coded", "sorted"))
        if exact:
            for name in ("children_left", "feature", "threshold", "value", "impurity",
                         "n_node_samples", "weighted_n_node_samples"):
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name), name)
        else:
            X32 = X[w > 0].astype(np.float32)
            np.testing.assert_allclose(a.value[a.apply(X32)], b.value[b.apply(X32)], rtol=1e-12, atol=1e-12)
            assert a.n_leaves == b.n_leaves
