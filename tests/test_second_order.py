"""Tests for ensemble_ref.second_order: the XGBoost objective and the booster, with xgboost as oracle."""

import json

import numpy as np
import pytest
import xgboost
from hypothesis import given, settings
from hypothesis import strategies as st

from ensemble_ref import (
    NotFittedError,
    SecondOrderTree,
    XGBClassifier,
    XGBRegressor,
    leaf_weight,
    quadratic_objective,
    split_gain,
    structure_score,
)
from ensemble_ref.math.losses import log_loss, squared_error

finite = st.floats(-1e3, 1e3, allow_nan=False)
hess = st.floats(0.0, 1e3, allow_nan=False)


def data(seed, n=300, d=4, missing=0.0):
    """Float32-representable features (the library works in float32), optional NaNs."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    Xc = np.nan_to_num(X)
    y = Xc[:, 0] + np.sin(2 * Xc[:, 1]) + 0.3 * rng.normal(size=n)
    return X, y, (y + 0.3 * rng.normal(size=n) > 0.2).astype(int)


def library(cls, params, **extra):
    """The xgboost estimator with our parameters; its gamma is twice the book's."""
    lib = dict(params, gamma=2 * params.get("gamma", 0.0))
    return cls(tree_method="exact", n_jobs=1, **lib, **extra)


# --- the pure functions ------------------------------------------------------------------


def test_formulas():
    assert leaf_weight(3.0, 5.0, 1.0) == -0.5
    assert structure_score([3.0, -2.0], [5.0, 1.0], lam=1.0, gamma=0.7) == pytest.approx(
        -0.5 * (9 / 6 + 4 / 2) + 2 * 0.7)
    assert split_gain(3.0, 5.0, -2.0, 1.0, lam=1.0, gamma=0.1) == pytest.approx(
        0.5 * (9 / 6 + 4 / 2 - 1 / 7) - 0.1)
    np.testing.assert_allclose(leaf_weight(np.array([1.0, -2.0]), 2.0, 0.0), [-0.5, 1.0])


@settings(max_examples=200, deadline=None)
@given(G_L=finite, H_L=st.floats(1e-3, 1e3), G_R=finite, H_R=st.floats(1e-3, 1e3))
def test_gain_bracket_is_never_negative_without_regularisation(G_L, H_L, G_R, H_R):
    # Titu's lemma: a^2/x + b^2/y >= (a + b)^2/(x + y) for x, y > 0.
    gain = split_gain(G_L, H_L, G_R, H_R, lam=0.0)
    scale = G_L**2 / H_L + G_R**2 / H_R
    assert gain >= -1e-12 * max(1.0, scale)


@settings(max_examples=200, deadline=None)
@given(G_L=finite, H_L=hess, G_R=finite, H_R=hess, lam=st.floats(1e-3, 10.0))
def test_gain_bracket_lower_bound_with_regularisation(G_L, H_L, G_R, H_R, lam):
    # With lambda > 0 the bracket can be negative, but Titu's lemma still bounds it below.
    G, H = G_L + G_R, H_L + H_R
    bound = -lam * G**2 / ((H + lam) * (H + 2 * lam))
    gain = split_gain(G_L, H_L, G_R, H_R, lam=lam)
    scale = (G_L**2 + G_R**2) / lam
    assert 2 * gain >= bound - 1e-12 * max(1.0, scale)


def test_gain_bracket_can_be_negative_with_regularisation():
    assert split_gain(1.0, 1.0, 1.0, 1.0, lam=1.0) == pytest.approx(0.5 * (-1 / 3))
    assert split_gain(1.0, 1.0, 1.0, 1.0, lam=0.0) == 0.0


@settings(max_examples=200, deadline=None)
@given(G=finite, H=hess, lam=st.floats(0.01, 10.0), w=finite)
def test_newton_leaf_weight_minimises_the_quadratic(G, H, lam, w):
    w_star = leaf_weight(G, H, lam)
    best = quadratic_objective(w_star, G, H, lam)
    assert best == pytest.approx(-0.5 * G**2 / (H + lam), rel=1e-9, abs=1e-9)
    assert best <= quadratic_objective(w, G, H, lam) + 1e-9 * (1 + abs(best))


@settings(max_examples=100, deadline=None)
@given(G_L=finite, H_L=hess, G_R=finite, H_R=hess, lam=st.floats(0.01, 10.0),
       gamma=st.floats(0.0, 5.0))
def test_gain_is_the_drop_in_structure_score(G_L, H_L, G_R, H_R, lam, gamma):
    parent = structure_score([G_L + G_R], [H_L + H_R], lam, gamma)
    children = structure_score([G_L, G_R], [H_L, H_R], lam, gamma)
    assert split_gain(G_L, H_L, G_R, H_R, lam, gamma) == pytest.approx(
        parent - children, rel=1e-9, abs=1e-6)


def test_pure_function_bad_input():
    with pytest.raises(ValueError, match="lam must be in"):
        leaf_weight(1.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="H \\+ lam must be positive"):
        leaf_weight(1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="NaN"):
        split_gain(np.nan, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="gamma must be in"):
        structure_score([1.0], [1.0], gamma=-1.0)


# --- agreement with the xgboost library (exact method, one thread) ----------------------------


CASES = [
    ({"n_estimators": 20}, 0.0),
    ({"n_estimators": 20}, 0.15),
    ({"n_estimators": 20, "reg_lambda": 3.0, "gamma": 0.5, "min_child_weight": 2.0,
      "learning_rate": 0.2, "max_depth": 4}, 0.0),
    ({"n_estimators": 20, "reg_lambda": 0.0, "gamma": 0.05, "min_child_weight": 0.5,
      "learning_rate": 0.5, "max_depth": 5}, 0.2),
    ({"n_estimators": 15, "reg_lambda": 2.0, "gamma": 0.3, "min_child_weight": 4.0,
      "learning_rate": 0.7, "max_depth": 3}, 0.3),
]


@pytest.mark.parametrize("params, missing", CASES)
def test_regressor_matches_xgboost(params, missing):
    X, y, _ = data(1, missing=missing)
    Xt, _, _ = data(2, n=200, missing=missing)
    ours = XGBRegressor(**params).fit(X, y)
    lib = library(xgboost.XGBRegressor, params).fit(X, y)
    for Z in (X, Xt):
        np.testing.assert_allclose(ours.predict(Z), lib.predict(Z), atol=1e-5, rtol=0)


@pytest.mark.parametrize("params, missing", CASES)
def test_classifier_matches_xgboost(params, missing):
    X, _, y = data(3, missing=missing)
    Xt, _, _ = data(4, n=200, missing=missing)
    ours = XGBClassifier(**params).fit(X, y)
    lib = library(xgboost.XGBClassifier, params).fit(X, y)
    for Z in (X, Xt):
        np.testing.assert_allclose(ours.predict_proba(Z), lib.predict_proba(Z), atol=1e-5, rtol=0)
        np.testing.assert_array_equal(ours.predict(Z), lib.predict(Z))


def test_sample_weights_match_xgboost():
    X, y, yc = data(5, missing=0.1)
    w = np.random.default_rng(5).exponential(size=y.size)
    params = {"n_estimators": 10, "min_child_weight": 2.0}
    ours = XGBRegressor(**params).fit(X, y, sample_weight=w)
    lib = library(xgboost.XGBRegressor, params).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict(X), lib.predict(X), atol=1e-5)
    ours = XGBClassifier(**params).fit(X, yc, sample_weight=w)
    lib = library(xgboost.XGBClassifier, params).fit(X, yc, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), lib.predict_proba(X), atol=1e-5)


def library_base_score(model):
    config = json.loads(model.get_booster().save_config())
    return float(config["learner"]["learner_model_param"]["base_score"].strip("[]"))


@pytest.mark.parametrize("weighted", [False, True])
def test_base_score_is_the_libraries_estimated_intercept(weighted):
    X, y, yc = data(6)
    w = np.random.default_rng(6).exponential(size=y.size) if weighted else None
    reg = XGBRegressor(n_estimators=1).fit(X, y, sample_weight=w)
    clf = XGBClassifier(n_estimators=1).fit(X, yc, sample_weight=w)
    lib_reg = library(xgboost.XGBRegressor, {"n_estimators": 1}).fit(X, y, sample_weight=w)
    lib_clf = library(xgboost.XGBClassifier, {"n_estimators": 1}).fit(X, yc, sample_weight=w)
    # xgboost 3.x: the weighted mean of y, and of the 0/1 labels (a probability).
    assert reg.base_score_ == pytest.approx(library_base_score(lib_reg), rel=1e-6)
    assert clf.base_score_ == pytest.approx(library_base_score(lib_clf), rel=1e-6)
    assert reg.base_score_ == pytest.approx(np.average(y, weights=w))
    assert clf.base_margin_ == pytest.approx(np.log(clf.base_score_ / (1 - clf.base_score_)))


def test_explicit_base_score_passes_through():
    X, y, yc = data(7)
    clf = XGBClassifier(n_estimators=3, base_score=0.5).fit(X, yc)
    lib = library(xgboost.XGBClassifier, {"n_estimators": 3}, base_score=0.5).fit(X, yc)
    assert clf.base_margin_ == 0.0
    np.testing.assert_allclose(clf.predict_proba(X), lib.predict_proba(X), atol=1e-5)


def test_library_gamma_is_twice_the_books():
    """Measured: xgboost prunes a split when its bracket (no factor 1/2) is below its gamma."""
    X, y, _ = data(8)
    stump = XGBRegressor(n_estimators=1, max_depth=1).fit(X, y)
    tree = stump.trees_[0]
    assert tree.node_count == 3
    half_bracket = tree.gain[0]  # the book's Gain with gamma = 0: 1/2 [ ... ]
    lib = library(xgboost.XGBRegressor, {"n_estimators": 1, "max_depth": 1}).fit(X, y)
    lib_gain = json.loads(lib.get_booster().get_dump(dump_format="json", with_stats=True)[0])["gain"]
    assert lib_gain == pytest.approx(2 * half_bracket, rel=1e-5)  # the library reports the bracket

    def lib_splits(lib_gamma):
        m = xgboost.XGBRegressor(n_estimators=1, max_depth=1, tree_method="exact", n_jobs=1,
                                 gamma=lib_gamma).fit(X, y)
        return "children" in json.loads(m.get_booster().get_dump(dump_format="json")[0])

    def our_splits(book_gamma):
        return XGBRegressor(n_estimators=1, max_depth=1, gamma=book_gamma).fit(X, y) \
            .trees_[0].node_count == 3

    below, above = 0.999 * half_bracket, 1.001 * half_bracket
    assert our_splits(below) and not our_splits(above)  # Gain = half bracket - gamma
    assert lib_splits(2 * below) and not lib_splits(2 * above)  # library gamma = 2 x book gamma
    assert lib_splits(above)  # with the library, gamma = half bracket does not prune yet


def xor_data():
    """42 points on the corners of a square, XOR targets; one corner has two extra points."""
    corners = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    counts = [10, 10, 10, 12]
    return np.repeat(corners, counts, axis=0), np.repeat([-1.0, 1.0, 1.0, -1.0], counts)


def library_leaves(model):
    """Number of leaves of the first tree of a fitted xgboost model."""
    stack, n = [json.loads(model.get_booster().get_dump(dump_format="json")[0])], 0
    while stack:
        node = stack.pop()
        n += "leaf" in node
        stack.extend(node.get("children", []))
    return n


def test_gamma_prunes_after_growth_with_exact_and_before_with_hist():
    """XOR: the root's Gain is negative, the two splits below it are strong."""
    X, y = xor_data()
    params = {"n_estimators": 1, "max_depth": 2, "learning_rate": 1.0, "reg_lambda": 1.0,
              "base_score": 0.0}
    book_gamma = 0.5  # the root's Gain with gamma = 0 is about 0.04
    ours = {m: XGBRegressor(tree_method=m, gamma=book_gamma, **params).fit(X, y).trees_[0]
            for m in ("exact", "hist")}
    assert ours["exact"].gain[0] < 0 and ours["exact"].n_leaves == 4  # kept: its children are strong
    assert ours["hist"].n_leaves == 1  # never made
    lib = {m: library_leaves(xgboost.XGBRegressor(gamma=2 * book_gamma, n_jobs=1, **params,
                                                  **({} if m == "default" else {"tree_method": m}))
                             .fit(X, y))
           for m in ("exact", "hist", "approx", "default")}
    assert lib == {"exact": 4, "hist": 1, "approx": 1, "default": 1}
    for m in ("exact", "hist"):  # with gamma = 0 both methods grow the XOR tree
        assert XGBRegressor(tree_method=m, **params).fit(X, y).trees_[0].n_leaves == 4


@pytest.mark.parametrize("gamma", [0.3, 1.0])
@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_hist_pre_pruning_matches_xgboost_hist(gamma, missing):
    """Few distinct values (every value its own bin): ours hist = xgboost hist, not exact."""
    X, y, yc = data(20, missing=missing)
    X = np.round(X * 10) / 10  # at most ~60 distinct values per feature, < max_bin
    params = {"n_estimators": 20, "max_depth": 4, "learning_rate": 0.3, "gamma": gamma}
    for ours_cls, lib_cls, target in [(XGBRegressor, xgboost.XGBRegressor, y),
                                      (XGBClassifier, xgboost.XGBClassifier, yc)]:
        ours = ours_cls(tree_method="hist", **params).fit(X, target)
        lib_params = dict(params, gamma=2 * gamma, n_jobs=1)
        hist = lib_cls(tree_method="hist", **lib_params).fit(X, target)
        exact = lib_cls(tree_method="exact", **lib_params).fit(X, target)
        out = (lambda m: m.predict(X)) if ours_cls is XGBRegressor else (
            lambda m: m.predict_proba(X)[:, 1])
        np.testing.assert_allclose(out(ours), out(hist), atol=1e-5, rtol=0)
        assert np.max(np.abs(out(ours) - out(exact))) > 1e-2  # the two rules differ here
        for tree in ours.trees_:  # pre-pruned: every split has Gain >= 0
            assert np.all(tree.gain[~tree.is_leaf] >= 0)


# --- structure and per-round quantities -------------------------------------------------------


def test_tree_statistics_are_consistent():
    X, _, y = data(9, missing=0.1)
    lam, gamma, eta = 2.0, 0.1, 0.3
    m = XGBClassifier(n_estimators=5, reg_lambda=lam, gamma=gamma, learning_rate=eta).fit(X, y)
    for tree in m.trees_:
        assert isinstance(tree, SecondOrderTree)
        inner = ~tree.is_leaf
        L, R = tree.children_left[inner], tree.children_right[inner]
        np.testing.assert_allclose(tree.G[inner], tree.G[L] + tree.G[R], atol=1e-9)
        np.testing.assert_allclose(tree.H[inner], tree.H[L] + tree.H[R], atol=1e-9)
        np.testing.assert_array_equal(tree.n_node_samples[inner],
                                      tree.n_node_samples[L] + tree.n_node_samples[R])
        np.testing.assert_allclose(tree.gain[inner], split_gain(tree.G[L], tree.H[L], tree.G[R],
                                                                tree.H[R], lam, gamma))
        np.testing.assert_allclose(tree.weight, leaf_weight(tree.G, tree.H, lam))
        np.testing.assert_allclose(tree.value, eta * tree.weight)
        # after pruning, a split whose children are leaves has a non-negative Gain
        leafy = inner & tree.is_leaf[tree.children_left] & tree.is_leaf[tree.children_right]
        assert np.all(tree.gain[leafy] >= -1e-9)
        assert tree.depth.max() <= 6 and tree.n_leaves == np.sum(tree.is_leaf)
        assert structure_score(tree.G[tree.is_leaf], tree.H[tree.is_leaf], lam, gamma) <= \
            structure_score([tree.G[0]], [tree.H[0]], lam, gamma) + 1e-9


def test_staged_predictions_and_training_loss():
    X, y, yc = data(10)
    reg = XGBRegressor(n_estimators=12, reg_lambda=0.5).fit(X, y)
    staged = list(reg.staged_predict(X))
    assert len(staged) == 12
    np.testing.assert_allclose(staged[-1], reg.predict(X))
    losses = [np.mean(squared_error(y, F)) for F in staged]
    np.testing.assert_allclose(reg.train_loss_, losses)
    # the second-order model is exact for the squared error: every round lowers the loss
    assert np.all(np.diff(reg.train_loss_) <= 1e-12)
    clf = XGBClassifier(n_estimators=8).fit(X, yc)
    proba = list(clf.staged_predict_proba(X))
    np.testing.assert_allclose(proba[-1], clf.predict_proba(X))
    np.testing.assert_allclose(clf.train_loss_[-1], np.mean(log_loss(yc, clf.decision_function(X))))


# --- histogram method and subsampling (statistical) ----------------------------------------


def test_hist_with_enough_bins_equals_exact():
    X, y, _ = data(11, n=200, missing=0.1)
    exact = XGBRegressor(n_estimators=10).fit(X, y)
    hist = XGBRegressor(n_estimators=10, tree_method="hist", max_bin=256).fit(X, y)
    np.testing.assert_allclose(hist.predict(X), exact.predict(X), atol=1e-12)


def r2(y, pred):
    return 1 - np.mean((y - pred) ** 2) / np.var(y)


def test_hist_with_few_bins_is_close_to_exact_and_to_the_library():
    X, y, _ = data(12, n=2000)
    Xt, yt, _ = data(13, n=2000)
    params = {"n_estimators": 30, "max_depth": 4, "learning_rate": 0.2}
    exact = r2(yt, XGBRegressor(**params).fit(X, y).predict(Xt))
    ours = XGBRegressor(tree_method="hist", max_bin=16, **params).fit(X, y)
    lib = xgboost.XGBRegressor(tree_method="hist", max_bin=16, n_jobs=1, **params).fit(X, y)
    assert max(len(c) for c in [np.unique(ours.trees_[0].threshold)]) <= 16 * 4
    assert abs(r2(yt, ours.predict(Xt)) - exact) < 0.03
    assert abs(r2(yt, ours.predict(Xt)) - r2(yt, lib.predict(Xt))) < 0.03


def test_row_subsampling():
    X, y, _ = data(14, n=400)
    m = XGBRegressor(n_estimators=40, subsample=0.5, random_state=0).fit(X, y)
    assert all(t.n_node_samples[0] == 200 for t in m.trees_)
    assert all(t.H[0] == 200.0 for t in m.trees_)  # squared error: h_i = 1 per sampled row
    again = XGBRegressor(n_estimators=40, subsample=0.5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(m.predict(X), again.predict(X))
    other = XGBRegressor(n_estimators=40, subsample=0.5, random_state=1).fit(X, y)
    assert not np.allclose(m.predict(X), other.predict(X))
    Xt, yt, _ = data(15, n=1000)
    lib = xgboost.XGBRegressor(n_estimators=40, subsample=0.5, tree_method="exact", n_jobs=1,
                               random_state=0).fit(X, y)
    assert abs(r2(yt, m.predict(Xt)) - r2(yt, lib.predict(Xt))) < 0.05


def test_column_subsampling_frequency():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(300, 4))
    y = 3 * X[:, 0] + 0.1 * rng.normal(size=300)  # only feature 0 matters
    m = XGBRegressor(n_estimators=200, max_depth=2, learning_rate=0.02, colsample_bytree=0.5,
                     random_state=0).fit(X, y)
    used = [set(t.feature[~t.is_leaf]) for t in m.trees_]
    assert all(len(u) <= 2 for u in used)  # int(0.5 * 4) features per tree
    root_on_0 = np.mean([t.feature[0] == 0 for t in m.trees_])
    # feature 0 is drawn with probability 1/2 and then always wins the root
    assert abs(root_on_0 - 0.5) < 4 * np.sqrt(0.25 / 200)


# --- API and bad input ---------------------------------------------------------------------


def test_classifier_labels():
    X, _, y = data(17)
    labels = np.where(y == 1, "spam", "ham")
    m = XGBClassifier(n_estimators=5).fit(X, labels)
    assert list(m.classes_) == ["ham", "spam"]
    assert set(m.predict(X)) <= {"ham", "spam"}
    np.testing.assert_allclose(m.predict_proba(X).sum(axis=1), 1.0)
    assert m.score(X, labels) > 0.7


@pytest.mark.parametrize("kwargs, match", [
    ({"learning_rate": -0.1}, "learning_rate"),
    ({"subsample": 0.0}, "subsample"),
    ({"subsample": 1.5}, "subsample"),
    ({"colsample_bytree": 0.0}, "colsample_bytree"),
    ({"reg_lambda": -1.0}, "reg_lambda"),
    ({"gamma": -0.1}, "gamma"),
    ({"min_child_weight": -1.0}, "min_child_weight"),
    ({"max_depth": 0}, "max_depth"),
    ({"tree_method": "approx"}, "tree_method"),
    ({"max_bin": 1}, "max_bin"),
])
def test_bad_parameters(kwargs, match):
    X, y, _ = data(18, n=30)
    with pytest.raises(ValueError, match=match):
        XGBRegressor(n_estimators=2, **kwargs).fit(X, y)


def test_bad_data():
    X, y, yc = data(19, n=30)
    with pytest.raises(ValueError, match="exactly 2 classes"):
        XGBClassifier(n_estimators=2).fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="at least 2 classes"):
        XGBClassifier(n_estimators=2).fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="NaN"):
        XGBRegressor(n_estimators=2).fit(X, np.where(y > 1, np.nan, y))
    with pytest.raises(ValueError, match="infinity"):
        XGBRegressor(n_estimators=2).fit(np.where(X > 1, np.inf, X), y)
    with pytest.raises(ValueError, match="base_score"):
        XGBClassifier(n_estimators=2, base_score=1.0).fit(X, yc)
    with pytest.raises(NotFittedError):
        XGBRegressor().predict(X)
    m = XGBRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :3])


# --- pruning: exact post-prunes, hist pre-prunes (as xgboost's updaters) ---------------------


def _library_leaves(model) -> int:
    return sum("leaf=" in line for line in model.get_booster().get_dump()[0].splitlines())


def test_xor_gamma_exact_post_prunes_hist_pre_prunes():
    """The XOR pattern of the appendix: a useless root split with two perfect splits below."""
    corners = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    X = np.repeat(corners, [10, 10, 10, 12], axis=0)
    y = np.repeat([-1.0, 1.0, 1.0, -1.0], [10, 10, 10, 12])
    params = dict(n_estimators=1, max_depth=2, learning_rate=1.0, base_score=0.0)
    gamma = 1.0  # the book's; the library's is 2
    exact = XGBRegressor(gamma=gamma, tree_method="exact", **params).fit(X, y).trees_[0]
    hist = XGBRegressor(gamma=gamma, tree_method="hist", **params).fit(X, y).trees_[0]
    assert exact.gain[0] < 0  # the root's Gain is negative ...
    assert exact.n_leaves == 4  # ... but exact keeps it: the splits below are worth keeping
    assert hist.n_leaves == 1  # hist never makes the root split
    library = {method: _library_leaves(xgboost.XGBRegressor(
        gamma=2 * gamma, tree_method=method, nthread=1, **params).fit(X, y))
        for method in ("exact", "hist", "approx")}
    assert library == {"exact": 4, "hist": 1, "approx": 1}


@pytest.mark.parametrize("seed, params", [
    (1, {"n_estimators": 20, "gamma": 0.5}),
    (2, {"n_estimators": 20, "gamma": 2.0, "reg_lambda": 0.5, "max_depth": 4,
         "learning_rate": 0.5}),
    (3, {"n_estimators": 10, "gamma": 5.0, "min_child_weight": 2.0}),
])
def test_hist_with_gamma_matches_xgboost_hist(seed, params):
    X, y, _ = data(seed, n=200)  # fewer distinct values than bins: the cuts are the values
    ours = XGBRegressor(tree_method="hist", **params).fit(X, y)
    lib = xgboost.XGBRegressor(tree_method="hist", n_jobs=1,
                               **dict(params, gamma=2 * params["gamma"])).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), lib.predict(X), atol=1e-5, rtol=0)
    leaves = [sum("leaf=" in line for line in tree.splitlines())
              for tree in lib.get_booster().get_dump()]
    assert [tree.n_leaves for tree in ours.trees_] == leaves
    exact = XGBRegressor(tree_method="exact", **params).fit(X, y)
    assert sum(t.n_leaves for t in exact.trees_) >= sum(leaves)  # pre-pruning prunes more
