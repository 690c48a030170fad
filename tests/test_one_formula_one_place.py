"""One formula, one place: replacing a formula's function changes every estimator that uses it.

Each case fits an estimator twice, once as is and once with one function of
``ensemble_ref.math`` (the single definition of an equation of the book) replaced by a
distorted copy. If the estimator computed the formula itself, the two fits would agree;
they must differ. Together the cases cover every estimator of the package.
"""

from __future__ import annotations

import numpy as np
import pytest
from package_inventory import estimator_classes  # tests/package_inventory.py

import ensemble_ref as er
from ensemble_ref.ensembles.mixture_of_experts import MixtureOfExperts
from ensemble_ref.math import (
    adaboost,
    aggregation,
    gradient_boosting,
    histograms,
    impurity,
    losses,
    mixture,
    sampling,
    second_order,
    softmax_objective,
)


def _distort(function):
    """``function`` with a smooth non-linear distortion of its (array or tuple) result."""
    def distorted(*args, **kwargs):
        out = function(*args, **kwargs)
        if isinstance(out, tuple):  # (D_{t+1}, Z_t): tilt the weights, keep them a distribution
            D, Z = out
            D = D * (1.0 + 0.5 * np.sin(np.arange(D.size)))
            return D / D.sum(), Z
        out = np.asarray(out, dtype=float)
        tilt = np.sin(1.0 + np.arange(out.size)).reshape(out.shape)  # differs from place to place
        if out.ndim == 2 and np.all(out >= 0) and np.allclose(out.sum(axis=1), 1.0):
            out = out * (1.0 + 0.3 * tilt)  # rows of probabilities (a softmax): tilted, still rows
            return out / out.sum(axis=1, keepdims=True)  # of probabilities
        return out * (1.0 + 0.3 * tilt) + 0.05
    return distorted


def _data(kind: str, seed: int = 0):
    """Continuous features; with ``kind`` "...-coded", features of a few integer values (the
    trees then grow from histograms of the codes, trees.coded_growth)."""
    if kind.endswith("-coded"):
        X, y = _data(kind.removesuffix("-coded"), seed)
        return np.round(X), y
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 4))
    score = X[:, 0] + np.sin(2 * X[:, 1]) + 0.5 * rng.normal(size=120)
    if kind == "regression":
        return X, score
    if kind == "binary":
        return X, (score > 0).astype(int)
    return X, np.digitize(score, [-0.7, 0.7])  # three classes


def _fingerprint(est, X) -> np.ndarray:
    """Everything an estimator outputs, as one vector."""
    parts = []
    for method in ("predict", "predict_proba", "decision_function"):
        try:
            parts.append(np.asarray(getattr(est, method)(X), dtype=float).ravel())
        except (AttributeError, TypeError):
            pass
    for attr in ("estimator_weights_", "normalizers_", "train_score_", "train_loss_",
                 "oob_score_", "oob_decision_function_", "oob_prediction_", "error_"):
        if hasattr(est, attr):
            parts.append(np.asarray(getattr(est, attr), dtype=float).ravel())
    if hasattr(est, "tree_"):
        parts.append(est.tree_.impurity)
    if hasattr(est, "trees_"):
        parts.append(np.concatenate([t.gain for t in est.trees_]))
    return np.concatenate(parts)


def _tree(criterion="gini"):
    return er.DecisionTreeClassifier(criterion=criterion, max_depth=3)


CASES = [
    # (estimator, data, module, function)
    (lambda: er.DecisionTreeRegressor(max_depth=3), "regression", impurity, "_sse_proxy"),
    (lambda: er.DecisionTreeRegressor(max_depth=3), "regression", impurity, "squared_error_impurity"),
    (lambda: _tree("gini"), "ternary", impurity, "gini_impurity"),
    (lambda: _tree("entropy"), "ternary", impurity, "entropy_impurity"),
    (lambda: _tree("gini"), "ternary", impurity, "_weighted_children"),
    (lambda: er.DecisionStump(), "binary", adaboost, "_weighted_error"),
    (lambda: er.AdaBoostClassifier(n_estimators=5), "binary", adaboost, "_weighted_error"),
    (lambda: er.AdaBoostClassifier(n_estimators=5), "binary", adaboost, "_alpha"),
    (lambda: er.AdaBoostClassifier(n_estimators=5), "binary", adaboost, "_reweight"),
    (lambda: er.AdaBoostClassifier(n_estimators=5), "ternary", adaboost, "_samme_codes"),
    (lambda: er.AdaBoostClassifier(n_estimators=5), "ternary", adaboost, "_proba"),
    (lambda: er.GradientBoostingRegressor(n_estimators=5), "regression", losses,
     "_squared_error_gradient"),
    (lambda: er.GradientBoostingRegressor(n_estimators=5), "regression", impurity, "_sse_proxy"),
    (lambda: er.GradientBoostingRegressor(loss="absolute_error", n_estimators=5), "regression",
     losses, "_absolute_error_gradient"),
    (lambda: er.GradientBoostingRegressor(loss="absolute_error", n_estimators=5), "regression",
     gradient_boosting, "_weighted_median"),
    (lambda: er.GradientBoostingClassifier(n_estimators=5), "binary", losses, "_log_loss_gradient"),
    (lambda: er.GradientBoostingClassifier(n_estimators=5), "binary", losses, "_log_loss_hessian"),
    (lambda: er.GradientBoostingClassifier(n_estimators=5), "binary", gradient_boosting,
     "_newton_step"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3), "regression", second_order, "_score"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3), "regression", second_order, "_bracket"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3), "regression", second_order,
     "_leaf_weight"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3, tau=0.5), "regression", second_order,
     "_gain"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3, tree_method="hist"), "regression",
     second_order, "_bracket"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3, tree_method="hist"), "regression",
     histograms, "_bin_sums"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3, tree_method="hist"), "ternary",
     histograms, "_sibling_histogram"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3), "regression", losses,
     "_squared_error_gradient"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3, reg_lambda=0.5), "regression", losses,
     "_squared_error_hessian"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "binary", losses, "_log_loss_gradient"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "binary", losses, "_log_loss_hessian"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "binary", losses, "_log_loss"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "ternary", softmax_objective,
     "_softmax"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "ternary", softmax_objective,
     "_gradient"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "ternary", softmax_objective,
     "_hessian"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "ternary", softmax_objective, "_loss"),
    (lambda: er.LinearBoostingRegressor(n_estimators=5), "regression", losses,
     "_squared_error_gradient"),
    (lambda: er.BaggingClassifier(n_estimators=5, random_state=0), "ternary", impurity,
     "gini_impurity"),
    (lambda: er.BaggingClassifier(n_estimators=15, oob_score=True, random_state=0), "ternary",
     aggregation, "_oob_mean"),
    (lambda: er.BaggingRegressor(n_estimators=5, random_state=0), "regression", impurity,
     "_sse_proxy"),
    (lambda: er.BaggingRegressor(n_estimators=15, oob_score=True, random_state=0), "regression",
     aggregation, "_oob_mean"),
    (lambda: er.RandomForestClassifier(n_estimators=5, random_state=0), "ternary", impurity,
     "gini_impurity"),
    (lambda: er.RandomForestRegressor(n_estimators=5, random_state=0), "regression", impurity,
     "_sse_proxy"),
    (lambda: er.VotingClassifier([("a", _tree()), ("b", er.DecisionStump())], voting="hard"),
     "ternary", impurity, "gini_impurity"),
    (lambda: er.VotingRegressor([("a", er.DecisionTreeRegressor(max_depth=3)),
                                 ("b", er.LeastSquaresRegressor(fit_intercept=True))]),
     "regression", impurity, "_sse_proxy"),
    (lambda: er.StackingClassifier([("a", _tree()), ("b", er.DecisionStump())], cv=3),
     "ternary", impurity, "gini_impurity"),
    (lambda: er.StackingRegressor([("a", er.DecisionTreeRegressor(max_depth=3)),
                                   ("b", er.LeastSquaresRegressor(fit_intercept=True))], cv=3),
     "regression", impurity, "_sse_proxy"),
    # the one softmax (math/mixture.py): every estimator that turns scores into probabilities
    (lambda: er.AdaBoostClassifier(n_estimators=5), "ternary", mixture, "_softmax"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "ternary", mixture, "_softmax"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3), "ternary", mixture, "_log_softmax"),
    (lambda: er.SoftmaxRegression(), "ternary", mixture, "_softmax"),
    (lambda: er.SoftmaxRegression(), "ternary", mixture, "_log_softmax"),
    (lambda: er.StackingClassifier([("a", _tree()), ("b", er.DecisionStump())], cv=3), "ternary",
     mixture, "_softmax"),
    (lambda: MixtureOfExperts(n_experts=2, max_iter=5, random_state=0), "regression", mixture,
     "_softmax"),
    (lambda: MixtureOfExperts(n_experts=2, max_iter=5, random_state=0), "regression", mixture,
     "_log_softmax"),
    # the one mean leaf (math/gradient_boosting.py): every CART leaf, and so every tree ensemble
    (lambda: er.DecisionTreeRegressor(max_depth=3), "regression", gradient_boosting, "_leaf_mean"),
    (lambda: _tree("gini"), "ternary", gradient_boosting, "_leaf_mean"),
    (lambda: er.GradientBoostingRegressor(n_estimators=5), "regression", gradient_boosting,
     "_leaf_mean"),
    (lambda: er.RandomForestClassifier(n_estimators=5, random_state=0), "ternary", gradient_boosting,
     "_leaf_mean"),
    (lambda: er.BaggingRegressor(n_estimators=5, random_state=0), "regression", gradient_boosting,
     "_leaf_mean"),
    # trees on features with few values (coded): the same definitions
    (lambda: er.DecisionTreeRegressor(max_depth=3), "regression-coded", impurity, "_sse_proxy"),
    (lambda: er.DecisionTreeRegressor(max_depth=3), "regression-coded", impurity,
     "squared_error_impurity"),
    (lambda: er.DecisionTreeRegressor(max_depth=3), "regression-coded", gradient_boosting, "_leaf_mean"),
    (lambda: _tree("gini"), "ternary-coded", impurity, "gini_impurity"),
    (lambda: _tree("entropy"), "ternary-coded", impurity, "entropy_impurity"),
    (lambda: _tree("gini"), "ternary-coded", impurity, "_weighted_children"),
    (lambda: _tree("gini"), "ternary-coded", gradient_boosting, "_leaf_mean"),
    (lambda: er.RandomForestClassifier(n_estimators=5, random_state=0), "ternary-coded", impurity,
     "gini_impurity"),
    (lambda: er.RandomForestRegressor(n_estimators=5, random_state=0), "regression-coded", impurity,
     "_sse_proxy"),
    (lambda: er.BaggingClassifier(n_estimators=5, random_state=0), "ternary-coded", gradient_boosting,
     "_leaf_mean"),
    (lambda: er.GradientBoostingRegressor(n_estimators=5), "regression-coded", impurity, "_sse_proxy"),
]


@pytest.mark.parametrize("make, kind, module, name", CASES,
                         ids=[f"{c[0]().__class__.__name__}-{c[3]}" for c in CASES])
def test_the_estimator_runs_the_one_definition(make, kind, module, name, monkeypatch):
    X, y = _data(kind)
    before = _fingerprint(make().fit(X, y), X)
    monkeypatch.setattr(module, name, _distort(getattr(module, name)))
    after = _fingerprint(make().fit(X, y), X)
    assert before.shape != after.shape or not np.allclose(before, after, equal_nan=True), (
        f"replacing ensemble_ref.math.{module.__name__.rsplit('.', 1)[1]}.{name} left "
        f"{make().__class__.__name__} unchanged: it does not run that definition")


# Counts of the row and column subsampling: distorted by one (a float would not index).
SAMPLING_CASES = [
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3, subsample=0.5, random_state=0),
     "regression", "_subsample_count"),
    (lambda: er.XGBClassifier(n_estimators=3, max_depth=3, subsample=0.5, random_state=0),
     "ternary", "_subsample_count"),
    (lambda: er.XGBRegressor(n_estimators=3, max_depth=3, colsample_bytree=0.5, random_state=0),
     "regression", "_column_count"),
]


@pytest.mark.parametrize("make, kind, name", SAMPLING_CASES,
                         ids=[f"{c[0]().__class__.__name__}-{c[2]}" for c in SAMPLING_CASES])
def test_the_booster_runs_the_one_sampling_count(make, kind, name, monkeypatch):
    X, y = _data(kind)
    before = _fingerprint(make().fit(X, y), X)
    count = getattr(sampling, name)
    monkeypatch.setattr(sampling, name, lambda n, rate: max(1, count(n, rate) - 1))
    after = _fingerprint(make().fit(X, y), X)
    assert before.shape != after.shape or not np.allclose(before, after), (
        f"replacing ensemble_ref.math.sampling.{name} left {make().__class__.__name__} unchanged")


def test_every_estimator_is_covered():
    """Every estimator class of the package, exported at the top level or not
    (tests/package_inventory.py)."""
    estimators = set(estimator_classes())
    covered = {make().__class__.__name__ for make, *_ in CASES}
    covered |= {"LeastSquaresRegressor", "SoftmaxRegression"}  # stacking's final learners
    assert estimators <= covered, sorted(estimators - covered)


@pytest.mark.parametrize("name, criterion", [("gini_impurity", "gini"), ("entropy_impurity", "entropy")])
def test_the_readable_grower_runs_the_same_impurity(monkeypatch, name, criterion):
    """The tree the book shows computes its impurities with the package's one definition."""
    from ensemble_ref.trees import readable

    X, y = _data("multiclass")
    before = readable.grow_tree(X, y, criterion=criterion, max_depth=3)
    monkeypatch.setattr(impurity, name, _distort(getattr(impurity, name)))
    after = readable.grow_tree(X, y, criterion=criterion, max_depth=3)
    assert before.impurity != after.impurity
