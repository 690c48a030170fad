"""Trees grown together on continuous features are, array for array, the trees grown alone.

A forest or a bagging ensemble on features with many values grows its trees in one level
loop on the sorted segments, one copy of the samples per tree
(``ensemble_ref.trees.cart_growth.grow``); each tree must be the tree its own ``fit`` grows:
the same feature draws, the same candidates, sums over each node's own samples summed in
the same order (float prefix sums start again at every tree), hence the same ties.
"""

import numpy as np
import pytest

from ensemble_ref import (
    BaggingClassifier,
    BaggingRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from ensemble_ref.trees import cart
from ensemble_ref.trees.cart import grow_trees
from ensemble_ref.trees.engine import SortedColumns, block_cumsum, to_float32
from ensemble_ref.trees.value_codes import value_codes

FIELDS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
          "n_node_samples", "weighted_n_node_samples", "depth")
N, D, B = 160, 5, 9


def _data(seed: int, n: int = N):
    """Continuous features, one of them rounded (ties inside the nodes), a noisy target."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    X[:, 1] = np.round(X[:, 1], 1)
    y = X[:, 0] + np.sin(2.0 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    return X, y


def _weights(kind: str, rng: np.random.Generator) -> list[np.ndarray]:
    """One weight vector per tree: bootstrap counts, or counts times fractional weights."""
    counts = [np.bincount(rng.integers(0, N, N), minlength=N).astype(float) for _ in range(B)]
    if kind == "counts":
        return counts
    return [c * rng.uniform(0.2, 3.0, N) for c in counts]


def _assert_same_tree(a, b) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name), name)


@pytest.mark.parametrize("target", ["classes", "real"])
@pytest.mark.parametrize("weights", ["counts", "fractional"])
@pytest.mark.parametrize("params", [
    dict(),
    dict(max_features=2),
    dict(max_depth=3),
    dict(min_samples_leaf=4, max_features=3),
    dict(min_samples_leaf=2, max_depth=5),
], ids=["grown", "max_features", "max_depth", "min_samples_leaf", "leaf_and_depth"])
@pytest.mark.parametrize("per_chunk", [B, 4])
def test_trees_grown_together_are_the_trees_grown_alone(monkeypatch, target, weights, params,
                                                        per_chunk):
    X, y = _data(0)
    data = SortedColumns(to_float32(X))
    assert value_codes(data) is None  # continuous features: the sorted segments
    W = _weights(weights, np.random.default_rng(1))
    Tree = DecisionTreeClassifier if target == "classes" else DecisionTreeRegressor
    classes = np.arange(3) if target == "classes" else None
    if target == "classes":
        y = np.digitize(y, [-0.5, 0.5])
    monkeypatch.setattr(cart, "STACKED", per_chunk * N * D)  # chunks of `per_chunk` trees
    together = [Tree(random_state=b, **params) for b in range(B)]
    grow_trees(together, data, y, W, classes)
    for b, tree in enumerate(together):
        alone = Tree(random_state=b, **params)
        if target == "classes":
            alone.fit_presorted(data, y, W[b], classes)
        else:
            alone.fit_presorted(data, y, W[b])
        _assert_same_tree(tree, alone)
    assert len({tree.tree_.node_count for tree in together}) > 1  # different trees


def test_entropy_trees_grown_together_are_the_trees_grown_alone():
    X, y = _data(2)
    c = np.digitize(y, [0.0])
    data = SortedColumns(to_float32(X))
    W = _weights("fractional", np.random.default_rng(3))
    together = [DecisionTreeClassifier(criterion="entropy", max_features=3, random_state=b)
                for b in range(B)]
    grow_trees(together, data, c, W, np.arange(2))
    for b, tree in enumerate(together):
        alone = DecisionTreeClassifier(criterion="entropy", max_features=3, random_state=b)
        _assert_same_tree(tree, alone.fit_presorted(data, c, W[b], np.arange(2)))


@pytest.mark.parametrize("Ensemble, Tree, target, kwargs", [
    (RandomForestClassifier, DecisionTreeClassifier, "classes", dict(max_features=0.4)),
    (RandomForestRegressor, DecisionTreeRegressor, "real", dict(max_features=0.6, min_samples_leaf=2)),
    (BaggingClassifier, DecisionTreeClassifier, "classes", dict()),
    (BaggingRegressor, DecisionTreeRegressor, "real", dict()),
])
@pytest.mark.parametrize("sample_weight", [False, True])
def test_members_of_an_ensemble_are_the_trees_grown_alone(Ensemble, Tree, target, kwargs,
                                                          sample_weight):
    """Each member of a forest or bagging ensemble is the tree grown alone on its bootstrap
    counts (times the sample weights) with its own random_state."""
    X, y = _data(4)
    if target == "classes":
        y = np.digitize(y, [-1.0, 1.0])
    w = np.random.default_rng(5).uniform(0.5, 2.0, N) if sample_weight else None
    if Ensemble in (BaggingClassifier, BaggingRegressor):
        model = Ensemble(Tree(), n_estimators=12, random_state=0).fit(X, y, sample_weight=w)
    else:
        model = Ensemble(n_estimators=12, random_state=0, **kwargs).fit(X, y, sample_weight=w)
    data = SortedColumns(to_float32(X))
    for tree, idx in zip(model.estimators_, model.estimators_samples_):
        alone = Tree(**{k: v for k, v in tree.get_params().items()})
        counts = np.bincount(idx, minlength=N) * (1.0 if w is None else w)
        if target == "classes":
            alone.fit_presorted(data, y, counts, np.arange(3))
        else:
            alone.fit_presorted(data, y, counts)
        _assert_same_tree(tree, alone)


def test_block_cumsum_is_each_blocks_own_cumsum():
    """Float prefix sums depend on where they start: each block's are those of np.cumsum of
    the block alone, bit for bit (and integer sums are exact in one pass)."""
    rng = np.random.default_rng(6)
    V = rng.normal(size=(2, 500)) * 10.0 ** rng.integers(-3, 4, size=500)
    starts = np.array([0, 7, 8, 200, 431])
    P = block_cumsum(V, starts)
    assert P.shape == (2, 501)
    for a, b in zip(starts, np.append(starts[1:], 500)):  # column g: the sum before g
        own = np.cumsum(V[:, a:b], axis=1)
        assert np.array_equal(P[:, a:b], np.hstack([np.zeros((2, 1)), own[:, :-1]]))
    assert np.array_equal(P[:, 500], own[:, -1])
    integers = rng.integers(0, 5, size=(1, 500))
    P = block_cumsum(integers, starts)
    for a, b in zip(starts, np.append(starts[1:], 500)):
        assert np.array_equal(P[0, a + 1:b + 1] - P[0, a], np.cumsum(integers[0, a:b]))
