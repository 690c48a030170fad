"""The readable second-order tree grows the booster's trees, node for node.

For every round of a fitted :class:`~ensemble_ref.XGBRegressor` (``tree_method="exact"``),
the gradients and Hessians of that round are recomputed from the booster's scores,
and the readable grower must return the round's tree: the same nodes in the same
order, the same split features, thresholds and default directions, the same sums,
Gains and weights (to rounding), and the same predictions on the training points and
on new points with missing values. The cases vary lambda, tau, min_child_weight,
the depth and the sample weights (Hessians other than 1), with and without NaN, on
features with ties between them (where the Gains must be compared as the booster
compares them), and the log loss of :class:`~ensemble_ref.XGBClassifier`.
"""

from __future__ import annotations

import numpy as np
import pytest

from ensemble_ref import (
    XGBClassifier,
    XGBRegressor,
    log_loss_gradient,
    log_loss_hessian,
    squared_error_gradient,
    squared_error_hessian,
)
from ensemble_ref.math import second_order
from ensemble_ref.trees.readable_second_order import (
    best_second_order_split,
    grow_second_order_tree,
    nodes_breadth_first,
    predict_second_order,
)

TOL = dict(rtol=1e-12, atol=1e-12)


def _data(kind: str, seed: int = 0, n: int = 160):
    """Continuous features ("continuous"), or few values with a copy and a mirror of two
    features ("ties": different features cut nodes into the same groups)."""
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        X = rng.normal(size=(n, 3))
    else:
        X = rng.integers(0, 4, size=(n, 4)).astype(float)
        X[:, 2], X[:, 3] = X[:, 0], 3.0 - X[:, 1]
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    return X, y, rng


def _with_nan(X, rng, rate=0.15):
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X


def _rounds(model, X, y, sw):
    """(tree, g, h) of each round: the round's gradients and Hessians at the booster's scores."""
    F = np.full(len(y), model.base_margin_)
    for tree in model.trees_:
        if isinstance(model, XGBClassifier):
            g, h = log_loss_gradient(y, F), np.maximum(log_loss_hessian(y, F), 1e-16)
        else:
            g, h = squared_error_gradient(y, F), squared_error_hessian(y, F)
        yield tree, sw * g, sw * h
        F = F + tree.predict(X)


def assert_same_tree(root, tree, nu: float, X_new) -> None:
    """The readable tree ``root`` is the booster's ``tree`` (whose leaves hold nu w*)."""
    nodes = nodes_breadth_first(root)
    assert len(nodes) == tree.node_count
    leaf = np.array([node.is_leaf for node in nodes])
    np.testing.assert_array_equal(leaf, tree.is_leaf)
    split = ~leaf
    np.testing.assert_array_equal([node.feature for node in nodes], np.where(leaf, -1, tree.feature))
    np.testing.assert_array_equal([node.default_left for node in nodes], tree.default_left)
    np.testing.assert_allclose([node.threshold for node in nodes if not node.is_leaf],
                               tree.threshold[split], **TOL)
    np.testing.assert_array_equal([node.n for node in nodes], tree.n_node_samples)
    for field in ("G", "H", "weight", "gain"):
        np.testing.assert_allclose([getattr(node, field) for node in nodes], getattr(tree, field),
                                   **TOL, err_msg=field)
    np.testing.assert_allclose(nu * predict_second_order(root, X_new), tree.predict(X_new), **TOL)


def _check_booster(model, X, y, sw=None) -> None:
    sw = np.ones(len(y)) if sw is None else sw
    model.fit(X, y, sample_weight=sw)
    X_new = _with_nan(np.vstack([X, np.random.default_rng(1).normal(size=(100, X.shape[1]))]),
                      np.random.default_rng(2), 0.2)
    p = model.get_params()
    for tree, g, h in _rounds(model, X, y, sw):
        root = grow_second_order_tree(g, h, X, p["reg_lambda"], p["tau"], p["max_depth"],
                                      p["min_child_weight"])
        assert_same_tree(root, tree, p["learning_rate"], X_new)


PARAMS = [
    dict(),
    dict(tau=0.5),
    dict(reg_lambda=0.0, min_child_weight=0.0),
    dict(reg_lambda=5.0, tau=2.0, min_child_weight=5.0),
    dict(max_depth=2, tau=1.0, reg_lambda=0.5),
    dict(max_depth=6, min_child_weight=0.0),
]


@pytest.mark.parametrize("params", PARAMS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items())
                         or "defaults")
@pytest.mark.parametrize("kind", ["continuous", "ties"])
@pytest.mark.parametrize("nan", [False, True], ids=["complete", "nan"])
def test_readable_tree_is_the_boosters_tree_every_round(params, kind, nan):
    X, y, rng = _data(kind)
    X = _with_nan(X, rng) if nan else X
    model = XGBRegressor(n_estimators=3, learning_rate=0.5, tree_method="exact",
                         **{"max_depth": 4, **params})
    _check_booster(model, X, y)


@pytest.mark.parametrize("nan", [False, True], ids=["complete", "nan"])
def test_hessians_other_than_one(nan):
    """Sample weights (regression) and the log loss: min_child_weight is a Hessian sum."""
    X, y, rng = _data("continuous", seed=3)
    X = _with_nan(X, rng) if nan else X
    sw = rng.uniform(0.2, 3.0, len(y))
    _check_booster(XGBRegressor(n_estimators=3, max_depth=4, tau=0.3, min_child_weight=2.0),
                   X, y, sw)
    _check_booster(XGBClassifier(n_estimators=3, max_depth=4, tau=0.1, min_child_weight=0.5),
                   X, (y > np.median(y)).astype(float))


def test_missing_values_only_in_some_features_and_a_constant_one():
    """A feature without NaN sends a later NaN left; one whose present values are all equal
    can only split "missing" from "present"."""
    X, y, rng = _data("continuous", seed=4)
    X[:, 1] = np.where(rng.random(len(y)) < 0.3, np.nan, X[:, 1])
    X[:, 2] = np.where(X[:, 0] > 0.5, np.nan, 1.0)  # constant where present
    _check_booster(XGBRegressor(n_estimators=3, max_depth=4), X, y)


@pytest.mark.parametrize("nan", [False, True], ids=["complete", "nan"])
def test_exact_ties_follow_xgboosts_scan_order(nan):
    """Symmetric targets, and a copy of the feature: candidates tie exactly. Without
    missing values the cuts after the first and after the third point tie, and xgboost
    scans downwards only (the last cut wins); with a missing point, the first cut with it
    on the right ties with the third with it on the left, and the scan with the missing
    values on the right, which comes first, wins. The copy never wins."""
    x = np.array([0.0, 1.0, 2.0, 3.0] + [np.nan] * nan)
    X, y = np.column_stack([x, x]), np.array([2.0, 0.0, 0.0, 2.0] + [1.0] * nan)
    model = XGBRegressor(n_estimators=1, max_depth=1, reg_lambda=0.0, min_child_weight=0.0,
                         base_score=0.0, learning_rate=1.0)
    _check_booster(model, X, y)
    assert model.trees_[0].threshold[0] == (0.5 if nan else 2.5)


def test_the_comparison_tells_wrong_trees_apart():
    """The check above fails for a grower that ignores tau or one lambda."""
    X, y, rng = _data("continuous")
    X = _with_nan(X, rng)
    model = XGBRegressor(n_estimators=1, max_depth=4, tau=1.0, learning_rate=1.0).fit(X, y)
    tree, g, h = next(_rounds(model, X, y, np.ones(len(y))))
    assert_same_tree(grow_second_order_tree(g, h, X, 1.0, 1.0, 4), tree, 1.0, X)
    for wrong in (dict(lam=1.0, tau=0.0), dict(lam=0.0, tau=1.0)):
        with pytest.raises(AssertionError):
            assert_same_tree(grow_second_order_tree(g, h, X, max_depth=4, **wrong), tree, 1.0, X)


def test_by_hand_one_feature():
    """Six points, F0 = 0, lambda = 1: the Gains of the five thresholds and the weights."""
    x = np.arange(6.0)[:, None]
    y = np.array([1.0, 2.0, 1.0, 4.0, 5.0, 4.0])
    g, h = -y, np.ones(6)  # squared error at F = 0
    split = best_second_order_split(g, h, x, lam=1.0)
    # cut after 3 points: G_L = -4, H_L = 3, G_R = -13, H_R = 3, G = -17, H = 6
    assert split.feature == 0 and split.threshold == 2.5
    assert split.default_left  # no missing value: xgboost's left scan only
    root = grow_second_order_tree(g, h, x, lam=1.0, max_depth=1)
    assert root.gain == pytest.approx(0.5 * (16 / 4 + 169 / 4 - 289 / 7), rel=1e-15)
    assert split.gain == pytest.approx(root.gain, rel=1e-6)  # as xgboost compares it
    assert [root.left.weight, root.right.weight] == [4 / 4, 13 / 4]  # -G / (H + lambda)
    # so a missing value goes left
    np.testing.assert_array_equal(predict_second_order(root, [[np.nan], [2.4], [2.6]]),
                                  [1.0, 1.0, 13 / 4])


def test_one_formula_one_place(monkeypatch):
    """The readable tree scores and weighs with ensemble_ref.math.second_order."""
    X, y, _ = _data("continuous")
    g, h = squared_error_gradient(y, np.zeros(len(y))), np.ones(len(y))
    before = predict_second_order(grow_second_order_tree(g, h, X, max_depth=3), X)
    monkeypatch.setattr(second_order, "leaf_weight", lambda G, H, lam: -G / H)
    assert not np.allclose(predict_second_order(grow_second_order_tree(g, h, X, max_depth=3), X), before)
    monkeypatch.setattr(second_order, "split_gain", lambda *a: np.float64(0.0))
    assert grow_second_order_tree(g, h, X, max_depth=3).is_leaf
