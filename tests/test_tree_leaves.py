"""The leaves of many trees at once (ensemble_ref.trees.leaves) are each tree's own apply."""

from __future__ import annotations

import numpy as np
import pytest

import ensemble_ref as er
from ensemble_ref.trees import leaves
from ensemble_ref.trees.engine import to_float32


@pytest.mark.parametrize("n_test, max_depth, n_trees", [(1, None, 10), (200, None, 30), (2000, 2, 50),
                                                        (20000, None, 3), (150, 0, 4)])
def test_tree_leaves_are_each_trees_apply(n_test, max_depth, n_trees):
    rng = np.random.default_rng(n_test)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    X[:, 3] = np.round(X[:, 3])  # ties and thresholds between them
    template = er.DecisionTreeClassifier(max_depth=max_depth or None, max_features=2)
    if max_depth == 0:  # single-leaf trees: a constant target
        template, y = er.DecisionTreeRegressor(), np.ones(300)
    forest = er.BaggingClassifier(template, n_estimators=n_trees, random_state=0) if max_depth != 0 \
        else er.BaggingRegressor(template, n_estimators=n_trees, random_state=0)
    forest.fit(X, y)
    X32 = to_float32(np.vstack([rng.normal(size=(n_test, 4)), X[:5]]))
    trees = [m.tree_ for m in forest.estimators_]
    for tree, got in zip(trees, leaves.tree_leaves(trees, X32), strict=True):
        np.testing.assert_array_equal(got, tree.apply(X32))
    rows = [np.flatnonzero(rng.random(X32.shape[0]) < p) for p in np.linspace(0, 1, n_trees)]
    for tree, r, got in zip(trees, rows, leaves.tree_leaves(trees, X32, rows), strict=True):
        np.testing.assert_array_equal(got, tree.apply(X32[r]))


def test_small_groups_split_where_the_pairs_run_out(monkeypatch):
    """Groups of one tree each (fewer pairs than rows) give the same leaves."""
    monkeypatch.setattr(leaves, "PAIRS", 10)
    X, y = er.make_circle_classification(120, random_state=1)
    forest = er.RandomForestClassifier(n_estimators=7, random_state=2).fit(X, y)
    trees = [m.tree_ for m in forest.estimators_]
    X32 = to_float32(X)
    for tree, got in zip(trees, leaves.tree_leaves(trees, X32), strict=True):
        np.testing.assert_array_equal(got, tree.apply(X32))


def test_ensembles_of_other_members_still_ask_each_member():
    """Bagged members that are not the package's trees (or a tree fitted on other classes)
    are asked one by one, with the points each left out; the trees give the same numbers."""
    X, y = er.make_circle_classification(150, random_state=3)
    stumps = er.BaggingClassifier(er.DecisionStump(), n_estimators=15, oob_score=True,
                                  random_state=4).fit(X, y)
    assert not leaves.package_trees(stumps.estimators_, 2)
    votes = np.mean([np.eye(2)[m.predict(X)] for m in stumps.estimators_], axis=0)  # one-hot votes
    np.testing.assert_allclose(stumps.predict_proba(X), votes, rtol=0, atol=1e-15)
    assert 0 <= stumps.oob_score_ <= 1
    trees = er.BaggingClassifier(n_estimators=15, oob_score=True, random_state=4).fit(X, y)
    assert leaves.package_trees(trees.estimators_, 2)
    total = np.zeros((len(X), 2))
    for m in trees.estimators_:
        total += m.predict_proba(X)
    np.testing.assert_array_equal(trees.predict_proba(X), total / 15)
