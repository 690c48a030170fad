"""Hostile input: every estimator, tree builder and public function meets the mistakes students make.

The estimators and tree builders are found by walking the package
(``tests/package_inventory.py``), exported at the top level or not; a new one without
cases fails ``test_every_estimator_and_tree_builder_has_hostile_input_cases``.

Each case either

* raises ``ValueError`` or ``TypeError`` whose message names the offending
  parameter (``X``, ``y``, ``sample_weight``, ``n_estimators``, ...), or
  ``NotFittedError`` for a prediction before ``fit``; or
* gives the documented correct result, checked here: constant features are never
  split on (the predictions equal those of a fit without them), duplicating every
  row changes nothing for a deterministic estimator, rescaling ``X`` by 1e300 or
  1e-300 leaves a tree's predictions unchanged, a model fitted on a constant
  target or on constant features predicts the mean or the majority class.

Every other outcome fails the case: a silent NaN, a different exception, or a
``RuntimeWarning`` (turned into an error by the pytest configuration for
ensemble_ref's modules, and by this file for every warning).
"""

from __future__ import annotations

import re
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
from package_inventory import estimator_classes, tree_builders  # tests/package_inventory.py

import ensemble_ref as er
import ensembles_verified as ev
from ensemble_ref import NotFittedError
from ensemble_ref.ensembles.mixture_of_experts import MixtureOfExperts

# ------------------------------------------------------------------------- data

_rng = np.random.default_rng(20260108)
N, D = 30, 3
X = _rng.normal(size=(N, D))
Y_CLASS = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "yes", "no")  # arbitrary label values
Y_REG = X[:, 0] - 0.5 * X[:, 1] + 0.1 * _rng.normal(size=N)
Y_THREE = np.array(["ash", "birch", "cedar"])[np.arange(N) % 3]


@dataclass(frozen=True)
class Spec:
    """How to build a small, fast instance of an estimator and what it accepts."""

    make: Callable[..., Any]
    kind: str  # "classifier" or "regressor"
    sample_weight: bool = True  # fit accepts sample_weight
    binary_only: bool = False
    missing_values: bool = False  # NaN in X marks a missing value (documented)
    deterministic: bool = True  # no random draws: duplicated rows change nothing
    resolution: bool = False  # CART trees: feature values closer than 1e-7 count as equal
    scale_equivariant: bool = True  # a linear model's predictions do not change when X is rescaled
    intercept: bool = True  # has a constant term (a constant target or feature adds nothing)
    exact: bool = True  # a constant target gives predictions equal bit for bit (a mixture: to rounding)
    extra: tuple = ()  # estimator-specific bad hyper-parameters: (name, value) pairs

    def y(self) -> np.ndarray:
        return Y_CLASS if self.kind == "classifier" else Y_REG


ESTIMATORS: dict[str, Spec] = {
    "DecisionTreeClassifier": Spec(er.DecisionTreeClassifier, "classifier", resolution=True),
    "DecisionTreeRegressor": Spec(er.DecisionTreeRegressor, "regressor", resolution=True),
    "DecisionStump": Spec(er.DecisionStump, "classifier"),
    "BaggingClassifier": Spec(lambda **kw: er.BaggingClassifier(
        **{"n_estimators": 3, "random_state": 0, **kw}), "classifier", deterministic=False,
        resolution=True),
    "BaggingRegressor": Spec(lambda **kw: er.BaggingRegressor(
        **{"n_estimators": 3, "random_state": 0, **kw}), "regressor", deterministic=False,
        resolution=True),
    "RandomForestClassifier": Spec(lambda **kw: er.RandomForestClassifier(
        **{"n_estimators": 3, "random_state": 0, **kw}), "classifier", deterministic=False,
        resolution=True),
    "RandomForestRegressor": Spec(lambda **kw: er.RandomForestRegressor(
        **{"n_estimators": 3, "random_state": 0, **kw}), "regressor", deterministic=False,
        resolution=True),
    "AdaBoostClassifier": Spec(lambda **kw: er.AdaBoostClassifier(
        **{"n_estimators": 5, "random_state": 0, **kw}), "classifier"),
    "GradientBoostingClassifier": Spec(lambda **kw: er.GradientBoostingClassifier(
        **{"n_estimators": 5, "random_state": 0, **kw}), "classifier", binary_only=True,
        resolution=True),
    "GradientBoostingRegressor": Spec(lambda **kw: er.GradientBoostingRegressor(
        **{"n_estimators": 5, "random_state": 0, **kw}), "regressor", resolution=True),
    "XGBClassifier": Spec(lambda **kw: er.XGBClassifier(
        **{"n_estimators": 5, "random_state": 0, **kw}), "classifier",
        missing_values=True, deterministic=False),
    "XGBRegressor": Spec(lambda **kw: er.XGBRegressor(
        **{"n_estimators": 5, "random_state": 0, **kw}), "regressor", missing_values=True,
        deterministic=False),
    "LinearBoostingRegressor": Spec(lambda **kw: er.LinearBoostingRegressor(
        **{"n_estimators": 5, **kw}), "regressor", sample_weight=False),
}

def _trees(kind: str) -> list:
    tree = er.DecisionTreeClassifier if kind == "classifier" else er.DecisionTreeRegressor
    return [("shallow", tree(max_depth=1)), ("deep", tree(max_depth=3))]


def _bad_members(kind: str) -> list:
    tree = er.DecisionTreeClassifier if kind == "classifier" else er.DecisionTreeRegressor
    return [("estimators", []), ("estimators", [("a", "not an estimator")]),
            ("estimators", [("a", tree()), ("a", tree())]), ("estimators", [tree()])]


for _kind, _name in (("classifier", "VotingClassifier"), ("regressor", "VotingRegressor")):
    if hasattr(er, _name):  # voting: members named, optional weights
        ESTIMATORS[_name] = Spec(
            lambda _c=getattr(er, _name), _k=_kind, **kw: _c(**{"estimators": _trees(_k), **kw}),
            _kind, resolution=True,
            extra=(*_bad_members(_kind), ("weights", [1.0, -1.0]), ("weights", [1.0]),
                   ("weights", [np.nan, 1.0]), ("weights", [0.0, 0.0]))
            + ((("voting", "soft-ish"),) if _kind == "classifier" else ()))
for _kind, _name in (("classifier", "StackingClassifier"), ("regressor", "StackingRegressor")):
    if hasattr(er, _name):  # stacking: out-of-fold meta-features, then a meta-model
        ESTIMATORS[_name] = Spec(
            lambda _c=getattr(er, _name), _k=_kind, **kw: _c(
                **{"estimators": _trees(_k), "cv": 3, "random_state": 0, **kw}),
            _kind, sample_weight=False, deterministic=False, resolution=True,
            extra=(*_bad_members(_kind), ("cv", 1), ("cv", N + 1), ("cv", 2.5),
                   ("final_estimator", "not an estimator")))
if hasattr(er, "LeastSquaresRegressor"):
    ESTIMATORS["LeastSquaresRegressor"] = Spec(er.LeastSquaresRegressor, "regressor",
                                               intercept=False,
                                               extra=(("fit_intercept", "yes"),))
if hasattr(er, "SoftmaxRegression"):  # L2-penalised: rescaling X changes the fit
    ESTIMATORS["SoftmaxRegression"] = Spec(er.SoftmaxRegression, "classifier",
                                           scale_equivariant=False,
                                           extra=(("lam", -1.0), ("lam", np.inf)))
# a mixture of linear experts with a softmax gate, fitted by EM from a seeded initialisation
ESTIMATORS["MixtureOfExperts"] = Spec(
    lambda **kw: MixtureOfExperts(**{"n_experts": 2, "max_iter": 20, "random_state": 0, **kw}),
    "regressor", sample_weight=False, deterministic=False, scale_equivariant=False, exact=False,
    extra=(("n_experts", 0), ("n_experts", N + 1), ("n_experts", 1.5), ("max_iter", 0), ("tol", -1.0),
           ("gate_steps", 0), ("n_init", 0), ("min_variance", 0.0), ("min_variance", np.nan)))

LINEAR = {"LinearBoostingRegressor", "LeastSquaresRegressor", "SoftmaxRegression", "MixtureOfExperts"}
TREE_BASED = set(ESTIMATORS) - LINEAR


# ------------------------------------------------------------------------- cases

@dataclass(frozen=True)
class Case:
    id: str
    call: Callable[[], Any]
    param: str | None = None  # the parameter an error must name
    check: Callable[[Any], None] | None = None  # for a documented result: checks it
    errors: tuple = (ValueError, TypeError)


CASES: list[Case] = []


def bad(id: str, param: str, call: Callable[[], Any], errors: tuple = (ValueError, TypeError)):
    CASES.append(Case(id, call, param=param, errors=errors))


def good(id: str, call: Callable[[], Any], check: Callable[[Any], None]):
    CASES.append(Case(id, call, check=check))


def either(id: str, param: str, call: Callable[[], Any], check: Callable[[Any], None]):
    """A case where a clear error naming ``param`` and a correct result are both acceptable."""
    CASES.append(Case(id, call, param=param, check=check))


def fit(spec: Spec, X_, y_, sample_weight=None, **params):
    model = spec.make(**params)
    if sample_weight is None:
        return model.fit(X_, y_)
    return model.fit(X_, y_, sample_weight=sample_weight)


def fit_predict(spec: Spec, X_, y_, X_test=None, **params) -> np.ndarray:
    return fit(spec, X_, y_, **params).predict(X_ if X_test is None else X_test)


def with_nan(A: np.ndarray) -> np.ndarray:
    A = A.astype(float).copy()
    A[3, 1] = np.nan
    return A


def with_inf(A: np.ndarray) -> np.ndarray:
    A = A.astype(float).copy()
    A[5, 0] = np.inf
    return A


def finite(pred) -> None:
    pred = np.asarray(pred)
    if pred.dtype.kind in "fc":
        assert np.isfinite(pred).all(), f"non-finite predictions: {pred}"


def equal_to(reference: Callable[[], np.ndarray]) -> Callable[[Any], None]:
    def check(pred):
        expected = reference()
        finite(pred)
        if np.asarray(expected).dtype.kind in "fc":
            np.testing.assert_allclose(pred, expected, rtol=1e-9, atol=1e-12)
        else:
            np.testing.assert_array_equal(pred, expected)
    return check


def constant_prediction(spec: Spec, y_) -> Callable[[Any], None]:
    """The same prediction everywhere: the majority class or the mean for a deterministic fit.

    (A bootstrap ensemble averages its members' sample means or majorities instead.)
    """
    def check(pred):
        finite(pred)
        if spec.exact:
            assert np.all(pred == pred[0]), f"predictions vary on constant features: {pred}"
        else:  # a convex combination of equal experts, computed in floating point
            np.testing.assert_allclose(pred, pred[0], rtol=1e-12, atol=0)
        if not spec.deterministic:
            return
        if spec.kind == "classifier":
            labels, counts = np.unique(y_, return_counts=True)
            assert np.all(pred == labels[np.argmax(counts)]), pred
        else:
            np.testing.assert_allclose(pred, np.mean(y_), rtol=1e-9, atol=1e-12)
    return check


for name, spec in ESTIMATORS.items():
    y = spec.y()
    sw = {"sample_weight": None}

    # --- X
    if spec.missing_values:
        good(f"{name}-X-nan-is-missing", lambda s=spec, y=y: fit_predict(s, with_nan(X), y),
             finite)
    else:
        bad(f"{name}-X-nan", "X", lambda s=spec, y=y: fit(s, with_nan(X), y))
    bad(f"{name}-X-inf", "X", lambda s=spec, y=y: fit(s, with_inf(X), y))
    bad(f"{name}-X-empty", "X", lambda s=spec, y=y: fit(s, X[:0], y[:0]))
    bad(f"{name}-X-1d", "X", lambda s=spec, y=y: fit(s, X[:, 0], y))
    bad(f"{name}-X-ragged", "X", lambda s=spec: fit(s, [[1.0, 2.0], [3.0], [4.0, 5.0]],
                                                    s.y()[:3]))
    bad(f"{name}-X-strings", "X", lambda s=spec, y=y: fit(s, np.full((N, D), "a"), y))
    bad(f"{name}-X-None", "X", lambda s=spec, y=y: fit(s, None, y))
    # --- y
    bad(f"{name}-y-length", "y", lambda s=spec, y=y: fit(s, X, y[:-1]))
    bad(f"{name}-y-2d", "y", lambda s=spec, y=y: fit(s, X, np.column_stack([y, y])))
    if spec.kind == "classifier":
        bad(f"{name}-y-one-class", "y", lambda s=spec: fit(s, X, np.full(N, "yes")))
        bad(f"{name}-y-nan-label", "y",
            lambda s=spec: fit(s, X, np.where(np.arange(N) == 2, np.nan, np.arange(N) % 2)))
        if spec.binary_only:
            bad(f"{name}-y-three-classes", "y", lambda s=spec: fit(s, X, Y_THREE))
        else:
            good(f"{name}-y-three-classes-fit",
                 lambda s=spec: fit_predict(s, X, Y_THREE),
                 lambda pred: (finite(pred), np.testing.assert_equal(set(pred) <= set(Y_THREE),
                                                                     True)))
    else:
        bad(f"{name}-y-nan", "y",
            lambda s=spec: fit(s, X, np.where(np.arange(N) == 4, np.nan, Y_REG)))
        bad(f"{name}-y-strings", "y", lambda s=spec: fit(s, X, Y_CLASS))
        good(f"{name}-y-constant", lambda s=spec: fit_predict(s, X, np.full(N, 2.5)),
             constant_prediction(spec, np.full(N, 2.5)) if spec.intercept else finite)
        either(f"{name}-y-huge", "y", lambda s=spec: fit_predict(s, X, 1e300 * Y_REG),
               lambda pred, s=spec: np.testing.assert_allclose(
                   pred, 1e300 * fit_predict(s, X, Y_REG), rtol=1e-6))
        either(f"{name}-y-tiny", "y", lambda s=spec: fit_predict(s, X, 1e-300 * Y_REG),
               lambda pred, s=spec: np.testing.assert_allclose(
                   pred / 1e-300, fit_predict(s, X, Y_REG), rtol=1e-6, atol=1e-9))
    # --- sample_weight
    if spec.sample_weight:
        bad(f"{name}-w-length", "sample_weight",
            lambda s=spec, y=y: fit(s, X, y, sample_weight=np.ones(N - 1)))
        bad(f"{name}-w-negative", "sample_weight",
            lambda s=spec, y=y: fit(s, X, y, sample_weight=np.r_[-1.0, np.ones(N - 1)]))
        bad(f"{name}-w-zero-sum", "sample_weight",
            lambda s=spec, y=y: fit(s, X, y, sample_weight=np.zeros(N)))
        bad(f"{name}-w-nan", "sample_weight",
            lambda s=spec, y=y: fit(s, X, y, sample_weight=np.r_[np.nan, np.ones(N - 1)]))
    # --- prediction
    bad(f"{name}-predict-before-fit", "fit", lambda s=spec: s.make().predict(X),
        errors=(NotFittedError,))
    bad(f"{name}-predict-feature-count", "X",
        lambda s=spec, y=y: fit(s, X, y).predict(X[:, :2]))
    bad(f"{name}-predict-inf", "X",
        lambda s=spec, y=y: fit(s, X, y).predict(with_inf(X)))
    # --- scale, constant features, duplicates
    if name in TREE_BASED:
        for factor in (1e300, 1e-300):
            # trees are invariant to rescaling X, except that CART trees treat values
            # closer than 1e-7 as equal (documented): at 1e-300 every feature is constant
            expected = ((lambda s=spec, y=y: fit_predict(s, np.zeros((N, D)), y))
                        if factor < 1 and spec.resolution else
                        (lambda s=spec, y=y: fit_predict(s, X, y)))
            either(f"{name}-X-scaled-{factor:g}", "X",
                   lambda s=spec, y=y, f=factor: fit_predict(s, f * X, y), equal_to(expected))
    elif spec.scale_equivariant:
        for factor in (1e300, 1e-300):
            either(f"{name}-X-scaled-{factor:g}", "X",
                   lambda s=spec, y=y, f=factor: fit_predict(s, f * X, y),
                   lambda pred, s=spec, y=y: np.testing.assert_allclose(
                       pred, fit_predict(s, X, y), rtol=1e-6, atol=1e-9))
    else:
        for factor in (1e300, 1e-300):
            either(f"{name}-X-scaled-{factor:g}", "X",
                   lambda s=spec, y=y, f=factor: fit_predict(s, f * X, y), finite)
    X_const = np.column_stack([X[:, :1], np.full(N, 7.0), X[:, 1:]])
    if spec.deterministic and spec.intercept:
        good(f"{name}-constant-feature-never-split",
             lambda s=spec, y=y: fit_predict(s, X_const, y),
             equal_to(lambda s=spec, y=y: fit_predict(s, X, y)))
        good(f"{name}-duplicated-rows",
             lambda s=spec, y=y: fit_predict(s, np.vstack([X, X]), np.r_[y, y], X),
             equal_to(lambda s=spec, y=y: fit_predict(s, X, y)))
    else:
        good(f"{name}-constant-feature", lambda s=spec, y=y: fit_predict(s, X_const, y), finite)
        good(f"{name}-duplicated-rows", lambda s=spec, y=y: fit_predict(
            s, np.vstack([X, X]), np.r_[y, y], X), finite)
    good(f"{name}-all-features-constant",
         lambda s=spec, y=y: fit_predict(s, np.ones((N, 2)), y),
         constant_prediction(spec, y))

    # --- hyper-parameters (those the estimator has)
    params = spec.make().get_params(deep=False)
    hyper = {
        "n_estimators": [0, -3, 2.5],
        "max_depth": [0, -1, "3"],
        "learning_rate": [0.0, -0.5, float("inf"), float("nan")],
        "max_features": [D + 1, 0, 1.5, "all"],
        "max_samples": [0, N + 1, 0.0, 1.5],
        "min_samples_leaf": [0],
        "min_samples_split": [1],
        "subsample": [0.0, 1.5],
        "colsample_bytree": [0.0],
        "reg_lambda": [-1.0],
        "tau": [-1.0],
        "min_child_weight": [-1.0],
        "criterion": ["entropyy"],
        "loss": ["hinge"],
        "random_state": [-1, "seed", 1.5],
        "bootstrap": ["yes"],
        "tree_method": ["approx-ish"],
        "max_bin": [1],
    }
    for param, values in hyper.items():
        if param not in params:
            continue
        for value in values:
            bad(f"{name}-{param}={value!r}", param,
                lambda s=spec, y=y, p=param, v=value: fit(s, X, y, **{p: v}))
    for number, (param, value) in enumerate(spec.extra):
        bad(f"{name}-{param}-{number}", param,
            lambda s=spec, y=y, p=param, v=value: fit(s, X, y, **{p: v}))


# --- functions ------------------------------------------------------------------------

FUNCTION_CASES = [
    # bootstrap and out-of-bag
    ("bootstrap_indices-n0", "n_samples", lambda: er.bootstrap_indices(0, 1)),
    ("bootstrap_indices-float-n", "n_samples", lambda: er.bootstrap_indices(10.0, 1)),
    ("bootstrap_indices-bad-rng", "rng", lambda: er.bootstrap_indices(10, "seed")),
    ("bootstrap_indices-negative-seed", "rng", lambda: er.bootstrap_indices(10, -5)),
    ("bootstrap_indices-legacy-RandomState", "rng",
     lambda: er.bootstrap_indices(10, np.random.RandomState(0))),
    ("oob_fraction_exact-0", "n_samples", lambda: er.oob_fraction_exact(0)),
    ("oob_fraction_exact-float", "n_samples", lambda: er.oob_fraction_exact(2.5)),
    ("oob_gap_bounds-1", "n_samples", lambda: er.oob_gap_bounds(1)),
    ("oob_fractions-0-repeats", "n_repeats", lambda: er.oob_fractions(10, 0, 1)),
    ("oob_mask-out-of-range", "indices", lambda: er.oob_mask(np.array([0, 10]), 10)),
    ("oob_mask-floats", "indices", lambda: er.oob_mask(np.array([0.5, 1.0]), 10)),
    # random subspaces
    ("breiman_max_features-0", "n_features", lambda: er.breiman_max_features(0)),
    ("breiman_max_features-task", "task", lambda: er.breiman_max_features(10, "ranking")),
    ("prob_no_informative-too-many", "n_informative",
     lambda: er.prob_no_informative(5, 6, 2)),
    ("sample_feature_subsets-too-many", "max_features",
     lambda: er.sample_feature_subsets(5, 6, 3, 0)),
    # aggregation
    ("one_hot_votes-label-out-of-range", "labels",
     lambda: er.one_hot_votes(np.array([0, 3]), 2)),
    ("in_bag_counts-index-out-of-range", "samples",
     lambda: er.in_bag_counts([np.array([0, 5])], 3)),
    # crowds
    ("majority_error-p-nan", "p", lambda: er.majority_error(np.nan, 5)),
    ("majority_error-p-above-1", "p", lambda: er.majority_error(1.5, 5)),
    ("majority_error-T-0", "T", lambda: er.majority_error(0.6, 0)),
    ("majority_error-T-float", "T", lambda: er.majority_error(0.6, 2.5)),
    ("majority_error-ties", "ties", lambda: er.majority_error(0.6, 4, ties="random")),
    ("condorcet_bound-p-below-half", "p", lambda: er.condorcet_bound(0.3, 5)),
    ("cantelli_bound-negative-variance", "variance", lambda: er.cantelli_bound(-1.0, 1.0)),
    ("cantelli_bound-lam-0", "lam", lambda: er.cantelli_bound(1.0, 0.0)),
    ("cantelli_extremal-variance-0", "variance", lambda: er.cantelli_extremal(0.0, 0.0, 1.0)),
    ("mean_vote_variance-p", "p", lambda: er.mean_vote_variance(1.5, 0.1, 5)),
    ("mean_vote_variance-c", "c", lambda: er.mean_vote_variance(0.6, 1.5, 5)),
    ("majority_lower_bound-p-half", "p", lambda: er.majority_lower_bound(0.5, 0.1, 5)),
    ("correlated_votes-n-voters-0", "n_voters", lambda: er.correlated_votes(0, 0.6, 0.1, 10, 0)),
    # bias and variance
    ("variance_of_average-rho", "rho", lambda: er.variance_of_average(1.0, 1.5, 10)),
    ("variance_of_average-M", "M", lambda: er.variance_of_average(1.0, 0.5, 0)),
    ("equicorrelated_normals-rho", "rho", lambda: er.equicorrelated_normals(3, -0.9, 10, 0)),
    ("decompose_predictions-shape", "f_test",
     lambda: er.decompose_predictions(np.zeros((5, 4)), np.zeros(3), 0.1)),
    ("decompose_predictions-noise", "noise",
     lambda: er.decompose_predictions(np.zeros((5, 4)), np.zeros(4), -0.1)),
    # data sets
    ("make_circle_classification-n0", "n_samples", lambda: er.make_circle_classification(0)),
    ("make_sine_regression-noise", "noise", lambda: er.make_sine_regression(10, -1.0)),
    ("flip_labels-fraction", "fraction", lambda: er.flip_labels(np.array([0, 1, 1]), 1.5, 0)),
    ("make_rings-n_classes", "n_classes", lambda: er.make_rings_classification(30, 1)),
    # boosting
    ("adaboost_alpha-eps-nan", "eps", lambda: er.adaboost_alpha(np.nan)),
    ("adaboost_alpha-eps-above-1", "eps", lambda: er.adaboost_alpha(1.5)),
    ("adaboost_alpha-n_classes-1", "n_classes", lambda: er.adaboost_alpha(0.2, n_classes=1)),
    ("adaboost_alpha-learning_rate-0", "learning_rate",
     lambda: er.adaboost_alpha(0.2, learning_rate=0.0)),
    ("reweight_misclassified-negative", "weights",
     lambda: er.reweight_misclassified(np.array([-1.0, 2.0]), np.array([True, False]), 0.5)),
    ("samme_exponential_loss-n_classes", "n_classes",
     lambda: er.samme_exponential_loss(np.array([0, 1]), np.zeros((2, 2)), 1)),
    ("line_search-loss", "loss", lambda: er.line_search("hinge", np.zeros(3), np.zeros(3),
                                                          np.ones(3))),
    ("weighted_median-empty", "values", lambda: er.weighted_median(np.array([]))),
    ("weighted_median-negative-weight", "weights",
     lambda: er.weighted_median(np.array([1.0, 2.0]), np.array([1.0, -1.0]))),
    ("weighted_median-nan", "values", lambda: er.weighted_median(np.array([1.0, np.nan]))),
    ("get_loss-unknown", "loss", lambda: er.get_loss("hinge")),  # the estimators' parameter
    ("log_loss-y-not-binary", "y", lambda: er.log_loss(np.array([0.0, 2.0]), np.zeros(2))),
    ("squared_error-shapes", "F", lambda: er.squared_error(np.zeros(3), np.zeros(4))),
    ("exponential_loss-y-not-pm1", "y",
     lambda: er.exponential_loss(np.array([0.0, 1.0]), np.zeros(2))),
    ("sigmoid-strings", "F", lambda: er.sigmoid(np.array(["a"]))),
    ("leaf_weight-negative-lambda", "lam", lambda: er.leaf_weight(1.0, 1.0, lam=-2.0)),
    ("leaf_weight-H-plus-lam-0", "H", lambda: er.leaf_weight(1.0, 0.0, lam=0.0)),
    ("split_gain-negative-tau", "tau",
     lambda: er.split_gain(1.0, 1.0, -1.0, 1.0, tau=-1.0)),
    ("structure_score-nan", "G", lambda: er.structure_score(np.array([np.nan]), np.ones(1))),
    ("best_stump_brute_force-nan", "X",
     lambda: er.best_stump_brute_force(with_nan(X), np.where(Y_CLASS == "yes", 1, -1))),
    # claims
    ("Claims-empty-chapter", "chapter", lambda: ev.Claims("")),
    ("Claims.close-negative-atol", "atol",
     lambda: ev.Claims("hostile", verbose=False).close("x", 1.0, 1.0, atol=-1.0)),
]
for id, param, call in FUNCTION_CASES:
    bad(id, param, call)

# documented: a leaf whose hessians sum to less than 1e-150 gets the value 0 (no step)
good("newton_leaf_value-zero-hessian",
     lambda: er.newton_leaf_value(np.array([1.0, -1.0]), np.zeros(2)),
     lambda value: np.testing.assert_equal(value, 0.0))

# A claim that does not hold raises ClaimError naming the chapter; a NaN never passes.
bad("Claims.close-nan-measured", "hostile",
    lambda: ev.Claims("hostile", verbose=False).close("nan is not close", np.nan, 1.0, atol=1.0),
    errors=(ev.ClaimError,))

if hasattr(er, "kfold_indices"):
    bad("kfold_indices-1-split", "n_splits", lambda: list(ev.kfold_indices(10, 1, 0)))
    bad("kfold_indices-too-many-splits", "n_splits", lambda: list(ev.kfold_indices(3, 5, 0)))


# --- tree builders --------------------------------------------------------------------------
# Every public grow*/build* function of ensemble_ref.trees and ensemble_ref.ensembles
# (tests/package_inventory.py) meets the bad inputs of an estimator, or is listed in
# INTERNAL_BUILDERS with the reason it never sees a user's data.

from ensemble_ref.ensembles import distributed  # noqa: E402
from ensemble_ref.math.histograms import bin_features, quantile_cuts  # noqa: E402
from ensemble_ref.trees import readable, readable_second_order  # noqa: E402

INTERNAL_BUILDERS = {
    "trees.cart_growth.grow": "grows on the SortedColumns of DecisionTree*.fit, which validated X, y, w",
    "trees.coded_growth.grow_coded": "grows on the ValueCodes of DecisionTree*.fit (features with few "
                                     "values) and of the forests' fit, which validated X, y, w",
    "trees.cart.grow_trees": "grows the trees of DecisionTree*.fit and of the forests' fit, which "
                             "validated X, y, w; tree objects in, no user data",
    "trees.second_order_tree.grow_tree": "grows on the Codes of XGB*.fit, which validated X, y, w",
    "trees.second_order_hist.grow_hist_tree": "grows on the Codes of XGB*.fit (tree_method='hist')",
    "trees.second_order_hist.grow_levels": "the level loop of grow_hist_tree, on the same Codes",
}

Y_INT = (X[:, 0] > 0).astype(int)  # the readable tree's class labels 0, ..., K-1
G, H = -Y_REG, np.ones(N)  # gradients and Hessians of the squared error at F = 0
CUTS = quantile_cuts(X, 16)
CODES = bin_features(X, CUTS)


def _shards(codes=CODES, g=G, h=H) -> list:
    return [(codes[:15], g[:15], h[:15]), (codes[15:], g[15:], h[15:])]


BUILDERS = {
    "trees.readable.grow_tree": [
        ("X-nan", "X", lambda: readable.grow_tree(with_nan(X), Y_REG)),
        ("X-inf", "X", lambda: readable.grow_tree(with_inf(X), Y_REG)),
        ("X-1d", "X", lambda: readable.grow_tree(X[:, 0], Y_REG)),
        ("X-empty", "X", lambda: readable.grow_tree(X[:0], Y_REG[:0])),
        ("X-strings", "X", lambda: readable.grow_tree(np.full((N, D), "a"), Y_REG)),
        ("X-None", "X", lambda: readable.grow_tree(None, Y_REG)),
        ("y-length", "y", lambda: readable.grow_tree(X, Y_REG[:-1])),
        ("y-nan", "y", lambda: readable.grow_tree(X, np.r_[np.nan, Y_REG[1:]])),
        ("y-2d", "y", lambda: readable.grow_tree(X, np.column_stack([Y_REG, Y_REG]))),
        ("y-labels-not-integers", "y", lambda: readable.grow_tree(X, Y_INT + 0.5, "gini")),
        ("y-labels-negative", "y", lambda: readable.grow_tree(X, Y_INT - 1, "gini")),
        ("y-labels-strings", "y", lambda: readable.grow_tree(X, Y_CLASS, "gini")),
        ("criterion", "criterion", lambda: readable.grow_tree(X, Y_INT, "entropyy")),
        ("max_depth-negative", "max_depth", lambda: readable.grow_tree(X, Y_REG, max_depth=-1)),
        ("max_depth-string", "max_depth", lambda: readable.grow_tree(X, Y_REG, max_depth="3")),
        ("min_samples_leaf-0", "min_samples_leaf", lambda: readable.grow_tree(X, Y_REG, min_samples_leaf=0)),
        ("n_classes-too-few", "n_classes", lambda: readable.grow_tree(X, Y_INT, "gini", n_classes=1)),
    ],
    "trees.readable_second_order.grow_second_order_tree": [
        ("X-inf", "X", lambda: readable_second_order.grow_second_order_tree(G, H, with_inf(X))),
        ("X-1d", "X", lambda: readable_second_order.grow_second_order_tree(G, H, X[:, 0])),
        ("X-None", "X", lambda: readable_second_order.grow_second_order_tree(G, H, None)),
        ("X-empty", "X", lambda: readable_second_order.grow_second_order_tree(G[:0], H[:0], X[:0])),
        ("g-length", "g", lambda: readable_second_order.grow_second_order_tree(G[:-1], H, X)),
        ("h-length", "h", lambda: readable_second_order.grow_second_order_tree(G, H[:-1], X)),
        ("g-nan", "g", lambda: readable_second_order.grow_second_order_tree(np.r_[np.nan, G[1:]], H, X)),
        ("h-negative", "h", lambda: readable_second_order.grow_second_order_tree(G, -H, X)),
        ("lam-negative", "lam", lambda: readable_second_order.grow_second_order_tree(G, H, X, lam=-1.0)),
        ("tau-negative", "tau", lambda: readable_second_order.grow_second_order_tree(G, H, X, tau=-1.0)),
        ("max_depth-negative", "max_depth",
         lambda: readable_second_order.grow_second_order_tree(G, H, X, max_depth=-1)),
        ("min_child_weight-negative", "min_child_weight",
         lambda: readable_second_order.grow_second_order_tree(G, H, X, min_child_weight=-1.0)),
    ],
    "ensembles.distributed.build_histogram_tree": [
        ("shards-empty", "shards", lambda: distributed.build_histogram_tree([], CUTS)),
        ("shards-not-a-list", "shards", lambda: distributed.build_histogram_tree(5, CUTS)),
        ("shard-not-a-triple", "shards", lambda: distributed.build_histogram_tree([(CODES, G)], CUTS)),
        ("cuts-too-few", "cuts", lambda: distributed.build_histogram_tree(_shards(), CUTS[:2])),
        ("g-length", "g", lambda: distributed.build_histogram_tree(_shards(g=G[:-1]), CUTS)),
        ("g-nan", "g", lambda: distributed.build_histogram_tree(_shards(g=np.r_[np.nan, G[1:]]), CUTS)),
        ("h-negative", "h", lambda: distributed.build_histogram_tree(_shards(h=-H), CUTS)),
        ("codes-floats", "codes", lambda: distributed.build_histogram_tree(_shards(CODES + 0.5), CUTS)),
        ("codes-out-of-range", "codes", lambda: distributed.build_histogram_tree(_shards(CODES + 100), CUTS)),
        ("max_depth-0", "max_depth", lambda: distributed.build_histogram_tree(_shards(), CUTS, max_depth=0)),
        ("reg_lambda-negative", "reg_lambda",
         lambda: distributed.build_histogram_tree(_shards(), CUTS, reg_lambda=-1.0)),
        ("tau-negative", "tau", lambda: distributed.build_histogram_tree(_shards(), CUTS, tau=-1.0)),
    ],
}
for builder, cases in BUILDERS.items():
    for case_name, param, call in cases:
        bad(f"{builder}-{case_name}", param, call)
# documented results: constant features give a single leaf; NaN marks a missing value
good("trees.readable.grow_tree-all-features-constant",
     lambda: readable.n_leaves(readable.grow_tree(np.ones((N, 2)), Y_REG)),
     lambda n_leaves: np.testing.assert_equal(n_leaves, 1))
good("trees.readable_second_order.grow_second_order_tree-X-nan-is-missing",
     lambda: readable_second_order.predict_second_order(
         readable_second_order.grow_second_order_tree(G, H, with_nan(X)), with_nan(X)), finite)
good("ensembles.distributed.build_histogram_tree-two-shards",
     lambda: distributed.build_histogram_tree(_shards(), CUTS).predict(CODES), finite)

# Bad inputs that builders of modules maintained elsewhere do not reject yet (each case
# xfails strictly: when the module validates its arguments the case passes, and must then
# leave this list). What each does instead is in the comment.
KNOWN_GAPS: dict[str, str] = {
}


# ------------------------------------------------------------------------- tests

def names(message: str, param: str) -> bool:
    """Whether an error message names the parameter (as a word, quoted or not)."""
    return re.search(rf"(?<![\w]){re.escape(param)}(?![\w])", message) is not None


def test_every_estimator_and_tree_builder_has_hostile_input_cases():
    """Every estimator and every tree builder of the package meets the bad inputs.

    They are found by walking ``ensemble_ref.trees`` and ``ensemble_ref.ensembles``
    (``tests/package_inventory.py``), not by reading what the top level exports: an
    estimator (a public class with ``fit``) needs its ``Spec`` in ``ESTIMATORS`` (some fifty
    cases each), a builder (a public ``grow*``/``build*`` function) its cases in
    ``BUILDERS``, unless ``INTERNAL_BUILDERS`` says why it never sees a user's data.
    """
    assert len(CASES) >= 40
    assert set(ESTIMATORS) <= {c.id.split("-")[0] for c in CASES}
    untested = sorted(set(estimator_classes()) - set(ESTIMATORS))
    assert not untested, f"estimators without hostile-input cases (add a Spec to ESTIMATORS): {untested}"
    builders = set(tree_builders())
    untested = sorted(builders - set(BUILDERS) - set(INTERNAL_BUILDERS))
    assert not untested, f"tree builders without hostile-input cases (add them to BUILDERS): {untested}"
    assert not set(BUILDERS) & set(INTERNAL_BUILDERS)
    gone = sorted((set(BUILDERS) | set(INTERNAL_BUILDERS)) - builders)
    assert not gone, f"listed builders that the package no longer has: {gone}"
    assert all(len(cases) >= 5 for cases in BUILDERS.values())
    assert set(KNOWN_GAPS) <= {c.id for c in CASES}, "a known gap names no case"


def test_the_guard_finds_an_estimator_or_a_builder_without_cases():
    module = types.ModuleType("ensemble_ref.trees.newcomer")

    class NewForest:
        def fit(self, X, y):
            return self

    def grow_new_tree(X, y):
        return None

    NewForest.__module__ = grow_new_tree.__module__ = module.__name__
    module.NewForest, module.grow_new_tree, module._grow_private = NewForest, grow_new_tree, grow_new_tree
    assert set(estimator_classes([module])) - set(ESTIMATORS) == {"NewForest"}
    assert set(tree_builders([module])) == {"trees.newcomer.grow_new_tree"}


def _marked(case: Case):
    """The case, expected to fail (strictly) when it is a known gap of a module maintained elsewhere."""
    if case.id in KNOWN_GAPS:
        return pytest.param(case, id=case.id, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[case.id]))
    return pytest.param(case, id=case.id)


@pytest.mark.parametrize("case", [_marked(c) for c in CASES])
def test_hostile_input(case: Case):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning (overflow, invalid value, ...) is no answer
        try:
            result = case.call()
        except case.errors as exc:
            if case.param is None:
                raise AssertionError(f"documented input rejected: {exc!r}") from exc
            assert names(str(exc), case.param), (
                f"{type(exc).__name__} does not name {case.param!r}: {exc}")
            return
        except (ValueError, TypeError) as exc:  # the right kind, but a different class
            raise AssertionError(f"expected {case.errors}, got {exc!r}") from exc
    if case.check is None:
        pytest.fail(f"accepted silently: expected an error naming {case.param!r}, "
                    f"got {type(result).__name__} {np.asarray(result).ravel()[:6]!r}")
    case.check(result)


# ------------------------------------------------------------------ the battery, round two
# tests/hostile_battery.py: new cases for every class of failure (score, feature names,
# sparse input, labels, numerical range, AdaBoost's reweighting, configuration, math
# helpers); each must end in a clear error or a checked result.

from hostile_battery import CASES as BATTERY  # noqa: E402
from hostile_battery import outcome  # noqa: E402


@pytest.mark.parametrize("case", BATTERY, ids=[c.id for c in BATTERY])
def test_battery_case(case):
    result, detail = outcome(case)
    assert result == "ok", f"{result}: {detail}"


# ------------------------------------------------------------------ four cases from real data
# (a) constant features, (b) a target with a large offset, (c) a learning rate that overflows,
# (d) integer features near 2**62: each has one right answer, checked against a wrong one.

@pytest.mark.parametrize("counts, cv", [((17, 13), 3), ((18, 12), 3), ((11, 9, 5), 5), ((20, 11), 2),
                                        ((9, 21), 4), ((7, 7, 12), 3)])
def test_stacking_on_constant_features_predicts_the_majority_class(counts, cv):
    """On constant features every member predicts its training fold's class shares; the
    stack must answer what its meta-model answers on constant inputs: the class shares,
    hence the majority class (never a minority class)."""
    labels = np.array(["ash", "birch", "cedar"])[:len(counts)]
    y = np.repeat(labels, counts)
    Xc = np.ones((y.size, 2))
    shares = np.array(counts) / y.size
    for state in range(3):
        model = er.StackingClassifier(_trees("classifier"), cv=cv, random_state=state).fit(Xc, y)
        assert np.all(model.predict(Xc) == labels[np.argmax(counts)])
        np.testing.assert_allclose(model.predict_proba(Xc[:1])[0], shares, atol=0.02)


@pytest.mark.parametrize("seed", range(4))
def test_forest_regression_fitted_to_y_plus_1e9_is_the_forest_fitted_to_y_translated(seed):
    """y + 1e9 is y rounded to multiples of 2**-23 (about 1.2e-7): leaf means move by at most
    6e-8, so the predictions agree to 1e-6 of the spread of y. (With leaves of single points,
    min_samples_leaf=1, splits of equal in-bag partitions on different features tie exactly,
    and that rounding decides between them: see the package's tree documentation.)"""
    rng = np.random.default_rng(seed)
    X_fit, X_new = rng.normal(size=(80, 3)), rng.normal(size=(200, 3))
    y = X_fit[:, 0] + 0.5 * X_fit[:, 1] ** 2 + 0.1 * rng.normal(size=80)
    for params in ({"min_samples_leaf": 5}, {"min_samples_leaf": 5, "max_features": 0.5}):
        make = lambda: er.RandomForestRegressor(n_estimators=10, random_state=seed, **params)  # noqa: E731
        plain, shifted = make().fit(X_fit, y), make().fit(X_fit, y + 1e9)
        np.testing.assert_allclose(shifted.predict(X_new) - 1e9, plain.predict(X_new), rtol=0,
                                   atol=1e-6 * np.ptp(y))
        for a, b, idx in zip(plain.estimators_, shifted.estimators_, plain.estimators_samples_):
            np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)  # the same splits
    default = er.RandomForestRegressor(n_estimators=10, random_state=seed)
    plain, shifted = default.fit(X_fit, y), er.RandomForestRegressor(n_estimators=10, random_state=seed).fit(
        X_fit, y + 1e9)
    for a, b, idx in zip(plain.estimators_, shifted.estimators_, plain.estimators_samples_):
        in_bag = X_fit[np.unique(idx)]  # the same partition of the rows each tree was grown on
        np.testing.assert_allclose(b.predict(in_bag) - 1e9, a.predict(in_bag), rtol=0, atol=1e-6 * np.ptp(y))


@pytest.mark.parametrize("name", ["GradientBoostingRegressor", "GradientBoostingClassifier",
                                  "XGBRegressor", "XGBClassifier"])
@pytest.mark.parametrize("learning_rate", [1e308, 1e200, 1e10])
def test_an_overflowing_learning_rate_is_an_error_naming_it(name, learning_rate):
    """A classifier's log-loss gradients are bounded: 1e10 only saturates its probabilities."""
    spec = ESTIMATORS[name]
    if learning_rate == 1e10 and spec.kind == "classifier":
        finite(spec.make(learning_rate=learning_rate, n_estimators=20).fit(X, spec.y()).predict_proba(X))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way, and no NaN
        with pytest.raises(ValueError, match=r"learning_rate=.*overflow"):
            spec.make(learning_rate=learning_rate, n_estimators=20).fit(X, spec.y())


def test_a_learning_rate_of_order_one_is_accepted():
    for name in ("GradientBoostingRegressor", "XGBRegressor", "XGBClassifier"):
        spec = ESTIMATORS[name]
        finite(spec.make(learning_rate=1.0, n_estimators=20).fit(X, spec.y()).predict(X))


@pytest.mark.parametrize("componentwise", [False, True])
def test_linear_booster_with_integer_features_near_2_to_the_62(componentwise):
    """Integers near 2**62 are 1024 apart in float64: converted first, features spanning
    less than 1000 become constant. Taken relative to their minimum in integer arithmetic
    the fit is the fit of the shifted features (a translation changes only the intercepts)."""
    rng = np.random.default_rng(62)
    codes = rng.integers(0, 1000, size=(60, 3))
    y = 0.01 * codes[:, 0] - 0.02 * codes[:, 1] + rng.normal(size=60)
    new = rng.integers(0, 1000, size=(20, 3))
    make = lambda: er.LinearBoostingRegressor(n_estimators=30, componentwise=componentwise)  # noqa: E731
    shifted, plain = make().fit(codes + 2**62, y), make().fit(codes, y)
    for rows in (codes, new):
        np.testing.assert_allclose(shifted.predict(rows + 2**62), plain.predict(rows), rtol=1e-9, atol=1e-9)
    assert np.ptp(plain.predict(codes)) > 1.0  # the features matter: the check can fail
