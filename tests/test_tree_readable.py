"""The readable tree grows the fast trees' trees, prunes as scikit-learn does, and its
exercises' self-checks accept right answers and explain wrong ones."""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_ref import DecisionTreeClassifier, DecisionTreeRegressor
from ensemble_ref.math.impurity import entropy_impurity, gini_impurity
from ensemble_ref.trees.readable import (
    best_split,
    entropy,
    exhaustive_splits,
    gini,
    grow_tree,
    n_leaves,
    predict,
    prune,
    pruning_path,
    squared_error,
)
from ensembles_verified.selfcheck import check_best_threshold, check_impurity_decrease


def _data(rng, N, d):
    """Continuous features, float32-representable (the fast trees store float32)."""
    return rng.random((N, d)).astype(np.float32).astype(float)


def test_impurities_match_the_package():
    rng = np.random.default_rng(0)
    for _ in range(50):
        c = rng.integers(0, 9, int(rng.integers(2, 5))).astype(float)
        c[0] += 1
        assert gini(c) == float(gini_impurity(c))
        assert abs(entropy(c) - float(entropy_impurity(c))) < 1e-15
    y = rng.normal(size=30)
    assert abs(squared_error(y) - y.var()) < 1e-14


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("max_depth", [1, 2, 3, None])
def test_classifier_agrees_with_the_fast_tree(criterion, max_depth):
    rng = np.random.default_rng(1)
    for _ in range(6):
        N, d, K = int(rng.integers(20, 120)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
        X, X_new = _data(rng, N, d), _data(rng, 300, d)
        y = rng.integers(0, K, N)
        y[:K] = np.arange(K)
        for msl in (1, 4):
            tree = grow_tree(X, y, criterion, max_depth, msl)
            fast = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth,
                                          min_samples_leaf=msl).fit(X, y)
            # ties between features are broken alike (first feature, left-most threshold)
            np.testing.assert_allclose(predict(tree, X_new), fast.predict_proba(X_new), atol=1e-12)
            assert n_leaves(tree) == fast.get_n_leaves()


@pytest.mark.parametrize("max_depth", [1, 3, None])
def test_regressor_agrees_with_the_fast_tree(max_depth):
    rng = np.random.default_rng(2)
    for _ in range(6):
        N, d = int(rng.integers(30, 150)), int(rng.integers(1, 4))
        X, X_new = _data(rng, N, d), _data(rng, 300, d)
        y = np.sin(3 * X[:, 0]) + rng.normal(scale=0.5, size=N)
        tree = grow_tree(X, y, max_depth=max_depth)
        fast = DecisionTreeRegressor(max_depth=max_depth).fit(X, y)
        # splits may differ only between features cutting a node into the same two parts,
        # so the training points fall into the same leaves
        np.testing.assert_allclose(predict(tree, X), fast.predict(X), rtol=1e-12, atol=1e-12)
        assert n_leaves(tree) == fast.get_n_leaves()
        # with leaves of 10 points such ties do not occur: new points agree too
        tree = grow_tree(X, y, max_depth=max_depth, min_samples_leaf=10)
        fast = DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=10).fit(X, y)
        np.testing.assert_allclose(predict(tree, X_new), fast.predict(X_new), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
@pytest.mark.parametrize("max_depth", [2, None])
def test_trees_on_coded_features_agree_with_the_readable_tree(criterion, max_depth):
    """On features with few values (integer and one-hot columns) the fast trees grow from
    histograms of the features' codes (trees.coded_growth); they are still the readable tree."""
    from ensemble_ref.trees.engine import SortedColumns, to_float32
    from ensemble_ref.trees.value_codes import value_codes

    rng = np.random.default_rng(11)
    for _ in range(6):
        N, d = int(rng.integers(60, 160)), int(rng.integers(1, 5))
        X = np.column_stack([rng.integers(0, int(rng.integers(2, 7)), N) for _ in range(d)]).astype(float)
        assert value_codes(SortedColumns(to_float32(X))) is not None
        X_new = np.column_stack([rng.integers(-1, 8, 300) for _ in range(d)]) + 0.5
        for msl in (1, 4):
            if criterion == "squared_error":
                y = X @ rng.normal(size=d) + rng.normal(scale=0.5, size=N)
                tree = grow_tree(X, y, max_depth=max_depth, min_samples_leaf=msl)
                fast = DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=msl).fit(X, y)
                # equal scores come only from splits cutting a node into the same two parts
                np.testing.assert_allclose(predict(tree, X), fast.predict(X), rtol=1e-12, atol=1e-12)
            else:
                y = rng.integers(0, 3, N)
                y[:3] = np.arange(3)
                tree = grow_tree(X, y, criterion, max_depth, msl)
                fast = DecisionTreeClassifier(criterion=criterion, max_depth=max_depth,
                                              min_samples_leaf=msl).fit(X, y)
                np.testing.assert_allclose(predict(tree, X_new), fast.predict_proba(X_new), atol=1e-12)
            assert n_leaves(tree) == fast.get_n_leaves()


def test_best_split_is_the_exhaustive_optimum():
    rng = np.random.default_rng(3)
    for _ in range(10):
        X, y = _data(rng, 40, 3), rng.integers(0, 3, 40)
        table = exhaustive_splits(X, y, lambda t: gini(np.bincount(t, minlength=3)))
        score = table.n_left * table.impurity_left + table.n_right * table.impurity_right
        j, s = best_split(X, y, "gini", 3)
        k = int(np.argmin(score))  # first minimum: lowest feature, smallest threshold
        assert j == table.feature[k] and np.array_equal(X[:, j] <= s, X[:, j] <= table.threshold[k])


def test_stopping_rules():
    rng = np.random.default_rng(4)
    X, y = _data(rng, 60, 2), rng.normal(size=60)
    assert grow_tree(X, y, max_depth=0).is_leaf
    tree = grow_tree(X, y, min_samples_leaf=7)
    sizes = [len(np.flatnonzero(predict(tree, X) == v)) for v in np.unique(predict(tree, X))]
    assert min(sizes) >= 7
    assert grow_tree(np.zeros((5, 1)), np.arange(5.0)).is_leaf  # constant feature: no split


def test_pruning_path_matches_scikit_learn():
    from sklearn.tree import DecisionTreeRegressor as SkTree

    rng = np.random.default_rng(5)
    for _ in range(5):
        X = _data(rng, 40, 2)
        y = np.sin(4 * X[:, 0]) + rng.normal(scale=0.3, size=40)
        path = pruning_path(grow_tree(X, y))
        sk = SkTree(random_state=0).cost_complexity_pruning_path(X, y)
        np.testing.assert_allclose(path.alphas, sk.ccp_alphas, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(path.costs, sk.impurities, rtol=1e-10, atol=1e-14)
        mid = (path.alphas[:-1] + path.alphas[1:]) / 2
        sizes = [SkTree(random_state=0, ccp_alpha=a).fit(X, y).get_n_leaves() for a in mid]
        assert list(path.n_leaves[:-1]) == sizes
        tree = grow_tree(X, y)
        assert [n_leaves(prune(tree, a)) for a in mid] == sizes
        assert np.all(np.diff(path.alphas) > 0) and path.n_leaves[-1] == 1


# --- self-checks --------------------------------------------------------------------------
def _gini(c):
    return 1 - np.sum((c / c.sum()) ** 2)


def _decrease(cl, cr):
    W = cl.sum() + cr.sum()
    return _gini(cl + cr) - cl.sum() / W * _gini(cl) - cr.sum() / W * _gini(cr)


def _threshold(x, y, weighted=True):
    o = np.argsort(x)
    xs, ys = x[o], y[o]
    best, s_best = np.inf, None
    for i in range(1, len(x)):
        if xs[i] > xs[i - 1]:
            score = i * ys[:i].var() + (len(x) - i) * ys[i:].var() if weighted else \
                ys[:i].var() + ys[i:].var()
            if score < best:
                best, s_best = score, (xs[i - 1] + xs[i]) / 2
    return s_best


def test_selfchecks_accept_the_reference(capsys):
    for seed in range(3):
        check_impurity_decrease(_decrease, random_state=seed)
        check_best_threshold(_threshold, random_state=seed)
    check_impurity_decrease(lambda cl, cr: float(entropy_impurity(cl + cr) - (
        cl.sum() * entropy_impurity(cl) + cr.sum() * entropy_impurity(cr)) / (cl + cr).sum()),
        "entropy", random_state=0)
    assert capsys.readouterr().out.count("\u2714") == 7


@pytest.mark.parametrize("wrong, message", [
    (lambda cl, cr: _gini(cl + cr) - (_gini(cl) + _gini(cr)) / 2, "unweighted decrease"),
    (lambda cl, cr: _decrease(cl, cr) - _gini(cl + cr), "without the parent"),
    (lambda cl, cr: 1 - (cl.sum() + cr.sum()) / (cl.sum() + cr.sum()), "eq-tree-impurity-decrease"),
    (lambda cl, cr: None, "does your function return"),
])
def test_impurity_decrease_check_explains_mistakes(wrong, message):
    with pytest.raises(AssertionError, match=message) as err:
        check_impurity_decrease(wrong, random_state=0)
    assert "case" in str(err.value) and "expected" not in str(err.value)  # never the reference value


def test_entropy_in_nats_is_named():
    def nats(cl, cr):
        h = lambda c: -np.sum((p := c[c > 0] / c.sum()) * np.log(p))  # noqa: E731
        return h(cl + cr) - (cl.sum() * h(cl) + cr.sum() * h(cr)) / (cl + cr).sum()
    with pytest.raises(AssertionError, match="nats"):
        check_impurity_decrease(nats, "entropy", random_state=0)


@pytest.mark.parametrize("wrong, message", [
    (lambda x, y: x[x <= _threshold(x, y)].max(), "midpoint"),
    (lambda x, y: _threshold(x, y, weighted=False), "unweighted"),
    (lambda x, y: float(np.max(x)), "empty"),
    (lambda x, y: float("nan"), "check_best_threshold: case 1"),
])
def test_best_threshold_check_explains_mistakes(wrong, message):
    with pytest.raises(AssertionError, match=message):
        check_best_threshold(wrong, random_state=0)
