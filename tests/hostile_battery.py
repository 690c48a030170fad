"""A battery of hostile and edge inputs across the public API, sorted into outcomes.

Run ``python tests/hostile_battery.py`` to print, for every case, one of

* ``ok``: a clear error (``ValueError``/``TypeError``/``NotFittedError``) whose
  message names what is wrong, or a result that passes the case's check;
* ``silent``: a result that fails the check (a wrong answer, NaN, a fit worse
  than the constant predictor, an input accepted that should be refused);
* ``cryptic``: an exception of another kind, or one that does not name the
  offending parameter.

and the counts of each. ``tests/test_hostile_inputs.py`` runs the same cases
(``test_battery_case``) so that each stays fixed.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

import ensemble_ref as er
import ensembles_verified as ev
from ensemble_ref import NotFittedError
from ensemble_ref.ensembles.mixture_of_experts import MixtureOfExperts

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None

rng = np.random.default_rng(7)
N, D = 40, 3
X = rng.normal(size=(N, D))
Y_BIN = np.where(X[:, 0] - 0.4 * X[:, 2] > 0, 1, 0)
Y_REG = X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=N)
Y_THREE = np.array([0, 1, 2])[np.argmax(X, axis=1)]
X_TEST = rng.normal(size=(15, D))


def _trees(kind):
    tree = er.DecisionTreeClassifier if kind == "c" else er.DecisionTreeRegressor
    return [("a", tree(max_depth=1)), ("b", tree(max_depth=3))]


# name -> (factory, kind, takes sample_weight, multiclass)
ESTIMATORS: dict[str, tuple[Callable[..., Any], str, bool, bool]] = {
    "DecisionTreeClassifier": (lambda **k: er.DecisionTreeClassifier(**k), "c", True, True),
    "DecisionTreeRegressor": (lambda **k: er.DecisionTreeRegressor(**k), "r", True, True),
    "DecisionStump": (lambda **k: er.DecisionStump(**k), "c", True, True),
    "BaggingClassifier": (lambda **k: er.BaggingClassifier(**{"n_estimators": 4, "random_state": 0, **k}),
                          "c", True, True),
    "BaggingRegressor": (lambda **k: er.BaggingRegressor(**{"n_estimators": 4, "random_state": 0, **k}),
                         "r", True, True),
    "RandomForestClassifier": (lambda **k: er.RandomForestClassifier(
        **{"n_estimators": 4, "random_state": 0, **k}), "c", True, True),
    "RandomForestRegressor": (lambda **k: er.RandomForestRegressor(
        **{"n_estimators": 4, "random_state": 0, **k}), "r", True, True),
    "AdaBoostClassifier": (lambda **k: er.AdaBoostClassifier(**{"n_estimators": 8, "random_state": 0, **k}),
                           "c", True, True),
    "GradientBoostingClassifier": (lambda **k: er.GradientBoostingClassifier(
        **{"n_estimators": 8, "random_state": 0, **k}), "c", True, False),
    "GradientBoostingRegressor": (lambda **k: er.GradientBoostingRegressor(
        **{"n_estimators": 8, "random_state": 0, **k}), "r", True, True),
    "XGBClassifier": (lambda **k: er.XGBClassifier(**{"n_estimators": 8, "random_state": 0, **k}),
                      "c", True, True),
    "XGBRegressor": (lambda **k: er.XGBRegressor(**{"n_estimators": 8, "random_state": 0, **k}),
                     "r", True, True),
    "LinearBoostingRegressor": (lambda **k: er.LinearBoostingRegressor(**{"n_estimators": 20, **k}),
                                "r", False, True),
    "VotingClassifier": (lambda **k: er.VotingClassifier(**{"estimators": _trees("c"), **k}),
                         "c", True, True),
    "VotingRegressor": (lambda **k: er.VotingRegressor(**{"estimators": _trees("r"), **k}),
                        "r", True, True),
    "StackingClassifier": (lambda **k: er.StackingClassifier(
        **{"estimators": _trees("c"), "cv": 3, "random_state": 0, **k}), "c", False, True),
    "StackingRegressor": (lambda **k: er.StackingRegressor(
        **{"estimators": _trees("r"), "cv": 3, "random_state": 0, **k}), "r", False, True),
    "LeastSquaresRegressor": (lambda **k: er.LeastSquaresRegressor(**{"fit_intercept": True, **k}),
                              "r", True, True),
    "SoftmaxRegression": (lambda **k: er.SoftmaxRegression(**k), "c", True, True),
    "MixtureOfExperts": (lambda **k: MixtureOfExperts(**{"random_state": 0, "max_iter": 30, **k}),
                         "r", False, True),
}
LINEAR = {"LeastSquaresRegressor", "SoftmaxRegression", "LinearBoostingRegressor"}
DETERMINISTIC_TREES = {"DecisionTreeClassifier", "DecisionTreeRegressor", "DecisionStump",
                       "GradientBoostingRegressor", "GradientBoostingClassifier"}


@dataclass
class Case:
    id: str
    kind: str  # class of failure in the issue: silent-* or unclear-*
    call: Callable[[], Any]
    param: str | None = None  # an error must name it (regex)
    check: Callable[[Any], None] | None = None  # a result must pass it


CASES: list[Case] = []


def raises(id, kind, param, call):
    CASES.append(Case(id, kind, call, param=param))


def returns(id, kind, call, check, param=None):
    CASES.append(Case(id, kind, call, param=param, check=check))


def _finite(a):
    a = np.asarray(a)
    assert a.dtype.kind not in "fc" or np.isfinite(a).all(), f"non-finite: {a.ravel()[:5]}"


def _close(expected, rtol=1e-7, atol=1e-9):
    def check(pred):
        _finite(pred)
        e = expected() if callable(expected) else expected
        if np.asarray(e).dtype.kind in "fc":
            np.testing.assert_allclose(pred, e, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(pred, e)
    return check


def _fit(name, X_, y_, sample_weight=None, **params):
    make, _, takes_w, _ = ESTIMATORS[name]
    model = make(**params)
    if sample_weight is not None:
        return model.fit(X_, y_, sample_weight=sample_weight)
    return model.fit(X_, y_)


def _at_least_constant(name, X_, y_):
    """Training score no worse than the constant predictor, and finite outputs."""
    def check(model):
        pred = model.predict(X_)
        _finite(pred)
        if hasattr(model, "predict_proba"):
            P = model.predict_proba(X_)
            _finite(P)
            np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)
        if ESTIMATORS[name][1] == "c":
            majority = np.max(np.unique(y_, return_counts=True)[1]) / len(y_)
            assert np.mean(pred == y_) >= majority - 1e-12, (np.mean(pred == y_), majority)
        else:  # a bootstrap ensemble averages its members' sample means: allow for that
            slack = 1e-9 if name in DETERMINISTIC_TREES | LINEAR else 0.05
            assert np.mean((pred - y_) ** 2) <= np.var(y_) * (1 + slack) + 1e-300
    return check


# ------------------------------------------------------------- estimator cases
for name, (make, kind, takes_w, multiclass) in ESTIMATORS.items():
    y = Y_BIN if kind == "c" else Y_REG
    y_alt = np.array(["no", "yes"])[Y_BIN] if kind == "c" else Y_REG

    # --- score validates like fit
    raises(f"{name}-score-y-length", "silent-score", r"\by\b",
           lambda n=name, y=y: _fit(n, X, y).score(X, y[:1]))
    raises(f"{name}-score-y-2d", "silent-score", r"\by\b",
           lambda n=name, y=y: _fit(n, X, y).score(X, np.c_[y, y, y]))
    raises(f"{name}-score-w-negative", "silent-score", "sample_weight",
           lambda n=name, y=y: _fit(n, X, y).score(X, y, sample_weight=np.r_[-1.0, np.ones(N - 1)]))
    raises(f"{name}-score-w-nan", "silent-score", "sample_weight",
           lambda n=name, y=y: _fit(n, X, y).score(X, y, sample_weight=np.r_[np.nan, np.ones(N - 1)]))
    raises(f"{name}-score-w-length", "silent-score", "sample_weight",
           lambda n=name, y=y: _fit(n, X, y).score(X, y, sample_weight=np.ones(3)))
    if kind == "r":
        raises(f"{name}-score-y-nan", "silent-score", r"\by\b",
               lambda n=name, y=y: _fit(n, X, y).score(X, np.r_[np.nan, y[1:]]))

    # --- feature names
    if pd is not None:
        cols = ["alpha", "beta", "gamma"]
        frame = pd.DataFrame(X, columns=cols)
        returns(f"{name}-feature-names-recorded", "silent-names",
                lambda n=name, y=y: list(_fit(n, frame, y).feature_names_in_),
                lambda got: np.testing.assert_array_equal(got, cols))
        raises(f"{name}-feature-names-reordered", "silent-names", "feature names",
               lambda n=name, y=y: _fit(n, frame, y).predict(frame[cols[::-1]]))
        raises(f"{name}-feature-names-renamed", "silent-names", "feature names",
               lambda n=name, y=y: _fit(n, frame, y).predict(
                   frame.rename(columns={"beta": "delta"})))
        returns(f"{name}-feature-names-same-order", "silent-names",
                lambda n=name, y=y: _fit(n, frame, y).predict(frame),
                _close(lambda n=name, y=y: _fit(n, X, y).predict(X)))
        # mixed dtypes: int, float and bool columns are numbers; strings, categories, dates are not
        mixed = pd.DataFrame({"alpha": X[:, 0], "beta": np.round(10 * X[:, 1]).astype(int),
                              "gamma": X[:, 2] > 0})
        returns(f"{name}-frame-int-float-bool", "silent-dtypes",
                lambda n=name, y=y, f=mixed: (list(_fit(n, f, y).feature_names_in_), _fit(n, f, y).predict(f)),
                lambda got, n=name, y=y, f=mixed: (
                    np.testing.assert_array_equal(got[0], ["alpha", "beta", "gamma"]),
                    _close(_fit(n, f.to_numpy(dtype=float), y).predict(f.to_numpy(dtype=float)))(got[1])))
        labels = pd.Series(np.array(["red", "green"])[np.arange(N) % 2])
        raises(f"{name}-frame-string-and-category-columns", "unclear-dtypes",
               r"'city' \(\w+\), 'colour' \(category\)\. ensemble_ref accepts numeric "
               r"columns only \(int, float or bool",
               lambda n=name, y=y, f=mixed, c=labels: _fit(n, f.assign(city=c, colour=c.astype("category")), y))
        raises(f"{name}-frame-date-column", "unclear-dtypes", r"'when' \(datetime64",
               lambda n=name, y=y, f=mixed: _fit(n, f.assign(when=pd.date_range("2020-01-01", periods=N)), y))
        raises(f"{name}-frame-string-column-at-predict", "unclear-dtypes", r"'gamma' \(\w+\)",
               lambda n=name, y=y, f=mixed: _fit(n, f, y).predict(f.assign(gamma=f["gamma"].map(str))))
        returns(f"{name}-no-feature-names-from-array", "silent-names",
                lambda n=name, y=y: hasattr(_fit(n, X, y), "feature_names_in_"),
                lambda has: np.testing.assert_equal(has, False))

    # --- sparse input: a clear message
    raises(f"{name}-sparse-X-fit", "unclear-sparse", "sparse",
           lambda n=name, y=y: _fit(n, sp.csr_matrix(X), y))
    raises(f"{name}-sparse-X-predict", "unclear-sparse", "sparse",
           lambda n=name, y=y: _fit(n, X, y).predict(sp.csr_matrix(X)))

    if kind == "c":
        # continuous y is not a set of class labels
        raises(f"{name}-y-continuous", "silent-labels", r"\by\b",
               lambda n=name: _fit(n, X, Y_REG))
        raises(f"{name}-y-mixed-int-str", "unclear-labels", r"\by\b",
               lambda n=name: _fit(n, X, np.array([1, "a"] * (N // 2), dtype=object)))
        raises(f"{name}-y-None-label", "unclear-labels", r"\by\b",
               lambda n=name: _fit(n, X, np.array([None, "a", "b", "a"] * (N // 4), dtype=object)))
        raises(f"{name}-y-complex", "unclear-labels", r"\by\b",
               lambda n=name: _fit(n, X, Y_BIN + 1j))
        if not multiclass:
            raises(f"{name}-y-three-classes", "unclear-labels", r"\by\b",
                   lambda n=name: _fit(n, X, Y_THREE))
        # label relabelling: predictions follow the labels
        returns(f"{name}-relabel-strings", "silent-relabel",
                lambda n=name, ya=y_alt: _fit(n, X, ya).predict(X_TEST),
                _close(lambda n=name: np.array(["no", "yes"])[_fit(n, X, Y_BIN).predict(X_TEST)]))
        # probabilities finite and the fit no worse than the majority rule, on separable data
        sep = np.where(X[:, 0] > 0, 1, 0)
        returns(f"{name}-separable-finite", "silent-nan",
                lambda n=name: _fit(n, X, sep), _at_least_constant(name, X, sep))
        # a class with (almost) all its weight removed
        w0 = np.where(Y_BIN == 1, 1e-300, 1.0)
        if takes_w:
            returns(f"{name}-class-weight-tiny", "silent-nan",
                    lambda n=name, w=w0: _fit(n, X, Y_BIN, sample_weight=w).predict_proba(X_TEST)
                    if hasattr(_fit(n, X, Y_BIN), "predict_proba")
                    else _fit(n, X, Y_BIN, sample_weight=w).predict(X_TEST), _finite, param="sample_weight")
            w_zero = np.where(Y_BIN == 1, 0.0, 1.0)
            returns(f"{name}-class-weight-zero", "unclear-zero-class",
                    lambda n=name, w=w_zero: _fit(n, X, Y_BIN, sample_weight=w).predict(X_TEST), _finite,
                    param=r"sample_weight|\by\b")
    else:
        for shift in (1e7, 1e9):
            tol = 1e-6 * shift
            returns(f"{name}-y-shift-{shift:g}", "silent-range",
                    lambda n=name, c=shift: _fit(n, X, Y_REG + c).predict(X_TEST) - c,
                    _close(lambda n=name: _fit(n, X, Y_REG).predict(X_TEST), rtol=1e-4, atol=tol))
        returns(f"{name}-y-scale-1024", "silent-range",  # exact in floating point
                lambda n=name: _fit(n, X, 1024 * Y_REG).predict(X_TEST) / 1024,
                _close(lambda n=name: _fit(n, X, Y_REG).predict(X_TEST), rtol=1e-5, atol=1e-6))
        returns(f"{name}-fit-beats-constant", "silent-range",
                lambda n=name: _fit(n, X, Y_REG), _at_least_constant(name, X, Y_REG))
    # --- sample weights scaled: invariance
    if takes_w and name in DETERMINISTIC_TREES | {"LeastSquaresRegressor"}:
        for factor in (1e300, 1e-300, 1e-200):
            returns(f"{name}-weights-scaled-{factor:g}", "silent-range",
                    lambda n=name, y=y, f=factor: _fit(n, X, y, sample_weight=np.full(N, f)).predict(X_TEST),
                    _close(lambda n=name, y=y: _fit(n, X, y).predict(X_TEST), rtol=1e-9, atol=1e-9),
                    param="sample_weight")
    # integer weights equal repeated rows (deterministic estimators)
    if takes_w and name in DETERMINISTIC_TREES | {"LeastSquaresRegressor"}:
        counts = np.arange(N) % 3 + 1
        returns(f"{name}-integer-weights-repeat-rows", "silent-weights",
                lambda n=name, y=y, c=counts: _fit(n, X, y, sample_weight=c).predict(X),
                _close(lambda n=name, y=y, c=counts: _fit(n, np.repeat(X, c, axis=0),
                                                             np.repeat(y, c)).predict(X), rtol=1e-9,
                       atol=1e-9))
    # --- huge X for linear models: predictions still finite and right
    for factor in (1e15, 1e50):
        returns(f"{name}-X-scaled-{factor:g}-beats-constant", "silent-range",
                lambda n=name, y=y, f=factor: _fit(n, f * X, y),
                lambda model, n=name, y=y, f=factor: _at_least_constant(n, f * X, y)(model), param=r"\bX\b")
    returns(f"{name}-X-offset-1e15-beats-constant", "silent-range",
            lambda n=name, y=y: _fit(n, X + 1e15, y),
            lambda model, n=name, y=y: _at_least_constant(n, X + 1e15, y)(model), param=r"\bX\b")

# --- AdaBoost reweighting
# (a fit below the majority class must at least say so: a warning naming learning_rate)
for lr in (1.0, 3.0, 10.0):
    sep = np.where(X[:, 0] > 0, 1, 0)
    returns(f"AdaBoost-perfect-learner-lr{lr:g}", "silent-adaboost",
            lambda lr=lr, s=sep: _fit("AdaBoostClassifier", X, s, learning_rate=lr),
            _at_least_constant("AdaBoostClassifier", X, sep), param="learning_rate")
    returns(f"AdaBoost-noisy-lr{lr:g}", "silent-adaboost",
            lambda lr=lr: _fit("AdaBoostClassifier", X, Y_THREE, learning_rate=lr, n_estimators=30),
            _at_least_constant("AdaBoostClassifier", X, Y_THREE), param="learning_rate")
returns("AdaBoost-lr3-30-points", "silent-adaboost",
        lambda: _fit("AdaBoostClassifier", X[:30], Y_BIN[:30], learning_rate=3.0, n_estimators=40),
        _at_least_constant("AdaBoostClassifier", X[:30], Y_BIN[:30]), param="learning_rate")

# --- members that lose a class in their subsample
returns("Bagging-subsample-loses-class", "unclear-subsample",
        lambda: _fit("BaggingClassifier", X, np.r_[np.zeros(N - 2, int), [1, 2]], max_samples=5, n_estimators=6),
        lambda m: _finite(m.predict_proba(X)), param="max_samples")
raises("Bagging-softmax-subsample-loses-class", "unclear-subsample", "max_samples",
       lambda: er.BaggingClassifier(er.SoftmaxRegression(), n_estimators=10, max_samples=4,
                                    random_state=0).fit(X, np.r_[np.zeros(N - 3, int), [1, 1, 1]]))
returns("Stacking-fold-loses-class", "unclear-subsample",
        lambda: _fit("StackingClassifier", X, np.r_[np.zeros(N - 2, int), [1, 1]]).predict(X),
        _finite, param=r"\bcv\b|\by\b")

# --- voting / stacking configuration
raises("Voting-weights-strings", "unclear-config", "weights",
       lambda: _fit("VotingClassifier", X, Y_BIN, weights=["a", "b"]))
raises("Voting-weights-None-entry", "unclear-config", "weights",
       lambda: _fit("VotingRegressor", X, Y_REG, weights=[None, 1.0]))
raises("Voting-set_params-estimators-int", "unclear-config", "estimators",
       lambda: er.VotingClassifier(_trees("c")).set_params(estimators=[1]).fit(X, Y_BIN))
raises("Stacking-set_params-estimators-int", "unclear-config", "estimators",
       lambda: er.StackingRegressor(_trees("r")).set_params(estimators=[1]).fit(X, Y_REG))
raises("Voting-estimators-not-list", "unclear-config", "estimators",
       lambda: er.VotingRegressor(estimators=5).fit(X, Y_REG))
raises("Stacking-name-with-dunder", "unclear-config", "estimators",
       lambda: er.StackingRegressor([("a__b", er.DecisionTreeRegressor())]).fit(X, Y_REG))

# ------------------------------------------------------------- math helpers
nan3 = np.array([0.1, np.nan, 0.3])
raises("sigmoid-nan", "silent-math", r"\bF\b", lambda: er.sigmoid(nan3))
raises("sigmoid-scalar-nan", "silent-math", r"\bF\b", lambda: er.sigmoid(float("nan")))
raises("decompose_predictions-nan", "silent-math", "predictions",
       lambda: er.decompose_predictions(np.array([[np.nan, 1.0], [1.0, 2.0]]), np.zeros(2), 0.1))
raises("decompose_predictions-f-nan", "silent-math", "f_test",
       lambda: er.decompose_predictions(np.ones((2, 2)), np.array([np.nan, 0.0]), 0.1))
raises("expected_squared_error-nan", "silent-math", "predictions",
       lambda: er.expected_squared_error(np.array([[np.nan, 1.0], [1.0, 2.0]]), np.zeros(2), 0.1, 0))
raises("expected_squared_error-shape", "unclear-math", "f_test",
       lambda: er.expected_squared_error(np.ones((3, 2)), np.zeros(5), 0.1, 0))
raises("mean_pairwise_correlation-nan", "silent-math", "correct",
       lambda: er.mean_pairwise_correlation(np.array([[1.0, np.nan], [0.0, 1.0], [1.0, 1.0]])))
raises("mean_pairwise_correlation-1d", "unclear-math", "correct",
       lambda: er.mean_pairwise_correlation(np.array([1.0, 0.0])))
raises("structure_score-empty", "silent-math", r"\bG\b",
       lambda: er.structure_score(np.array([]), np.array([])))
raises("structure_score-shape", "unclear-math", r"\bG\b|\bH\b",
       lambda: er.structure_score(np.ones(3), np.ones(2)))
raises("newton_leaf_value-empty", "silent-math", "residual",
       lambda: er.newton_leaf_value(np.array([]), np.array([])))
raises("newton_leaf_value-shape", "unclear-math", "residual|hessian",
       lambda: er.newton_leaf_value(np.ones(3), np.ones(2)))
raises("newton_leaf_value-nan", "silent-math", "residual",
       lambda: er.newton_leaf_value(np.array([np.nan, 1.0]), np.ones(2)))
raises("flip_labels-nan", "silent-math", r"\by\b",
       lambda: er.flip_labels(np.array([0.0, 1.0, np.nan, 1.0]), 0.5, 0))
raises("flip_labels-2d", "unclear-math", r"\by\b",
       lambda: er.flip_labels(np.zeros((3, 2)), 0.5, 0))
returns("reweight_misclassified-beta-1000", "silent-math",
        lambda: er.reweight_misclassified(np.full(4, 0.25), np.array([True, False, False, False]), 1000.0),
        lambda w: (_finite(w), np.testing.assert_allclose(np.sum(w), 1.0)), param="beta")
returns("reweight_misclassified-beta-1e6", "silent-math",
        lambda: er.reweight_misclassified(np.full(4, 0.25), np.array([True, True, False, False]), 1e6),
        lambda w: (_finite(w), np.testing.assert_allclose(np.sum(w), 1.0)), param="beta")
raises("reweight_misclassified-shape", "unclear-math", "misclassified",
       lambda: er.reweight_misclassified(np.full(4, 0.25), np.array([True, False]), 0.5))
raises("kfold_indices-not-iterated", "unclear-math", "n_splits", lambda: ev.kfold_indices(10, 1, 0))
raises("kfold_indices-too-many-not-iterated", "unclear-math", "n_splits", lambda: ev.kfold_indices(3, 5, 0))
raises("bootstrap_indices-huge", "unclear-memory", "n_samples", lambda: er.bootstrap_indices(10**14, 0))
raises("oob_fractions-huge", "unclear-memory", "n_samples|n_repeats", lambda: er.oob_fractions(10**8, 10**8, 0))
raises("one_hot_votes-huge", "unclear-memory", "n_classes",
       lambda: er.one_hot_votes(np.array([0, 1]), 10**13))
raises("squared_error-nan", "silent-math", r"\bF\b", lambda: er.squared_error(np.zeros(2), np.array([0.0, np.nan])))
raises("log_loss-shape", "unclear-math", r"\bF\b|\by\b", lambda: er.log_loss(np.zeros(2), np.zeros(3)))
raises("weighted_median-shape", "unclear-math", "weights",
       lambda: er.weighted_median(np.array([1.0, 2.0]), np.array([1.0, 1.0, 1.0])))
raises("one_hot_votes-float-labels", "unclear-math", "labels", lambda: er.one_hot_votes(np.array([0.5, 1.0]), 2))
raises("mean_pairwise_correlation-one-member", "unclear-math", "correct",
       lambda: er.mean_pairwise_correlation(np.array([[1.0], [0.0]])))


# ------------------------------------------------------------- running
def outcome(case: Case) -> tuple[str, str]:
    """("ok" | "silent" | "cryptic", detail)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = case.call()
        except (ValueError, TypeError, NotFittedError, UserWarning) as exc:
            if case.param is not None and re.search(case.param, str(exc)):
                return "ok", ""
            return "cryptic", f"{type(exc).__name__}: {exc}"[:160]
        except Exception as exc:  # noqa: BLE001 - a warning, MemoryError, IndexError...
            return "cryptic", f"{type(exc).__name__}: {exc}"[:160]
        if case.check is None:
            return "silent", f"accepted: {type(result).__name__}"
        try:
            case.check(result)
        except Exception as exc:  # noqa: BLE001
            return "silent", f"{type(exc).__name__}: {exc}".replace("\n", " ")[:160]
    return "ok", ""


def main() -> None:
    import collections
    counts = collections.Counter()
    by_kind = collections.Counter()
    for case in CASES:
        result, detail = outcome(case)
        counts[result] += 1
        if result != "ok":
            by_kind[(case.kind, result)] += 1
            print(f"{result:8s} {case.id}: {detail}")
    print(dict(counts), "of", len(CASES))
    for (kind, result), c in sorted(by_kind.items()):
        print(f"  {kind:24s} {result:8s} {c}")


if __name__ == "__main__":
    main()
