"""Bagging and pasting: exact bookkeeping checks, and scikit-learn as a statistical oracle."""

import sys

import numpy as np
import pytest
from sklearn import ensemble as skens
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier as SkTree

from ensemble_ref import (
    BaggingClassifier,
    BaggingRegressor,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    NotFittedError,
    oob_fraction_exact,
)

# small ensembles leave a few points in every sample; both libraries warn about it
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*in every member's sample:UserWarning"),
    pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores:UserWarning"),
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]


def make_data(seed, n=200, d=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3] + 0.6 * rng.normal(size=n)
    return X, y, (y > 0).astype(int)


TRAIN = make_data(0)
TEST = make_data(1, n=1000)


def compare_with_sklearn(ours, theirs, classification, n_seeds=12):
    """Mean OOB score and test score over seeds agree within 4 standard errors.

    Both libraries draw their samples differently, so single fits differ; over
    ``n_seeds`` seeds the means of each library's scores have standard error
    ``sd / sqrt(n_seeds)``, and the difference of the means has standard error
    ``sqrt(sd_1^2 + sd_2^2) / sqrt(n_seeds)``. A difference beyond 4 standard
    errors has probability below 1e-4 if both implement the same estimator.
    """
    X, y_reg, y_clf = TRAIN
    Xt, yt_reg, yt_clf = TEST
    y, yt = (y_clf, yt_clf) if classification else (y_reg, yt_reg)
    scores = {}
    for name, make in (("ours", ours), ("sklearn", theirs)):
        fits = [make(seed).fit(X, y) for seed in range(n_seeds)]
        scores[name] = np.array([[m.oob_score_, m.score(Xt, yt)] for m in fits])
    a, b = scores["ours"], scores["sklearn"]
    se = np.sqrt(a.var(0, ddof=1) / n_seeds + b.var(0, ddof=1) / n_seeds)
    diff = np.abs(a.mean(0) - b.mean(0))
    assert np.all(diff <= 4 * se), (a.mean(0), b.mean(0), se)


def test_bagged_trees_classifier_agrees_with_sklearn():
    compare_with_sklearn(
        lambda s: BaggingClassifier(n_estimators=15, oob_score=True, random_state=s),
        lambda s: skens.BaggingClassifier(SkTree(), n_estimators=15, oob_score=True, random_state=s),
        classification=True)


def test_bagged_trees_regressor_agrees_with_sklearn():
    from sklearn.tree import DecisionTreeRegressor as SkRegTree
    compare_with_sklearn(
        lambda s: BaggingRegressor(n_estimators=15, oob_score=True, random_state=s),
        lambda s: skens.BaggingRegressor(SkRegTree(), n_estimators=15, oob_score=True, random_state=s),
        classification=False)


def test_pasting_agrees_with_sklearn_on_test_accuracy():
    X, _, y = TRAIN
    Xt, _, yt = TEST
    ours = [BaggingClassifier(n_estimators=15, bootstrap=False, max_samples=0.5, random_state=s)
            .fit(X, y).score(Xt, yt) for s in range(12)]
    ref = [skens.BaggingClassifier(SkTree(), n_estimators=15, bootstrap=False, max_samples=0.5,
                                   random_state=s).fit(X, y).score(Xt, yt) for s in range(12)]
    se = np.sqrt(np.var(ours, ddof=1) / 12 + np.var(ref, ddof=1) / 12)  # see compare_with_sklearn
    assert abs(np.mean(ours) - np.mean(ref)) <= 4 * se


def test_samples_are_bootstrap_or_pasting():
    X, _, y = TRAIN
    N = len(y)
    bag = BaggingClassifier(n_estimators=40, random_state=0).fit(X, y)
    sizes = [len(idx) for idx in bag.estimators_samples_]
    assert sizes == [N] * 40
    # fraction of distinct points per bootstrap sample: 1 - (1 - 1/N)^N, binomial-like
    # spread; the mean over 40 samples has standard error below 0.035 / sqrt(40)
    distinct = np.mean([len(np.unique(idx)) / N for idx in bag.estimators_samples_])
    assert abs(distinct - (1 - oob_fraction_exact(N))) <= 4 * 0.035 / np.sqrt(40)
    paste = BaggingClassifier(n_estimators=5, bootstrap=False, max_samples=50, random_state=0).fit(X, y)
    for idx in paste.estimators_samples_:
        assert len(idx) == 50 and len(np.unique(idx)) == 50


def test_predict_proba_is_the_average_of_the_members():
    X, _, y = TRAIN
    Xt = TEST[0]
    bag = BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=7, random_state=1).fit(X, y)
    mean = np.mean([m.predict_proba(Xt) for m in bag.estimators_], axis=0)
    np.testing.assert_allclose(bag.predict_proba(Xt), mean)
    np.testing.assert_array_equal(bag.predict(Xt), bag.classes_[np.argmax(mean, axis=1)])
    reg = BaggingRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=7, random_state=1).fit(X, TRAIN[1])
    np.testing.assert_allclose(reg.predict(Xt), np.mean([m.predict(Xt) for m in reg.estimators_], axis=0))


def test_oob_decision_function_by_hand():
    X, y_reg, y = TRAIN
    bag = BaggingClassifier(n_estimators=12, oob_score=True, random_state=3).fit(X, y)
    total = np.zeros((len(y), 2))
    count = np.zeros(len(y))
    for member, idx in zip(bag.estimators_, bag.estimators_samples_):
        oob = np.setdiff1d(np.arange(len(y)), idx)
        total[oob] += member.predict_proba(X[oob])
        count[oob] += 1
    covered = count > 0
    np.testing.assert_allclose(bag.oob_decision_function_[covered], total[covered] / count[covered, None])
    assert np.all(np.isnan(bag.oob_decision_function_[~covered]))
    expected = np.mean(np.argmax(total[covered], 1) == y[covered])
    assert bag.oob_score_ == pytest.approx(expected)

    reg = BaggingRegressor(n_estimators=12, oob_score=True, random_state=3).fit(X, y_reg)
    pred = np.zeros(len(y))
    count = np.zeros(len(y))
    for member, idx in zip(reg.estimators_, reg.estimators_samples_):
        oob = np.setdiff1d(np.arange(len(y)), idx)
        pred[oob] += member.predict(X[oob])
        count[oob] += 1
    covered = count > 0
    pred = pred[covered] / count[covered]
    np.testing.assert_allclose(reg.oob_prediction_[covered], pred)
    r2 = 1 - np.sum((y_reg[covered] - pred) ** 2) / np.sum((y_reg[covered] - y_reg[covered].mean()) ** 2)
    assert reg.oob_score_ == pytest.approx(r2)


def test_points_never_out_of_bag_warn():
    X, _, y = TRAIN
    with pytest.warns(UserWarning, match="in every member's sample"):
        bag = BaggingClassifier(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    assert np.isnan(bag.oob_decision_function_).any() and np.isfinite(bag.oob_score_)


def test_pasting_with_half_samples_has_an_oob_score():
    X, _, y = TRAIN
    bag = BaggingClassifier(n_estimators=10, bootstrap=False, max_samples=0.5, oob_score=True,
                            random_state=0).fit(X, y)
    assert 0.5 < bag.oob_score_ <= 1.0


def test_generic_members_with_and_without_sample_weight():
    X, _, y = TRAIN
    Xt, _, yt = TEST
    knn = BaggingClassifier(KNeighborsClassifier(5), n_estimators=5, oob_score=True, random_state=0).fit(X, y)
    assert knn.score(Xt, yt) > 0.6
    for member, idx in zip(knn.estimators_, knn.estimators_samples_):
        assert member.n_samples_fit_ == len(idx)  # no sample_weight: fitted on repeated rows
    logit = BaggingClassifier(LogisticRegression(), n_estimators=5, random_state=0).fit(X, y)
    assert logit.score(Xt, yt) > 0.6


def test_members_missing_a_class_are_mapped_to_the_right_columns():
    X, _, _ = TRAIN
    y = np.repeat(["a", "b", "c"], [180, 10, 10])
    bag = BaggingClassifier(SkTree(), n_estimators=20, max_samples=8, random_state=0).fit(X, y)
    assert any(len(m.classes_) < 3 for m in bag.estimators_)
    P = bag.predict_proba(X)
    np.testing.assert_allclose(P.sum(1), 1.0)
    by_hand = np.zeros_like(P)
    for m in bag.estimators_:
        by_hand[:, m.classes_] += m.predict_proba(X)
    np.testing.assert_allclose(P, by_hand / 20)


def test_results_do_not_depend_on_n_jobs_threads():
    joblib = pytest.importorskip("joblib")
    X, y_reg, _ = TRAIN
    a = BaggingRegressor(n_estimators=6, oob_score=True, random_state=5).fit(X, y_reg)
    with joblib.parallel_backend("threading"):
        b = BaggingRegressor(n_estimators=6, oob_score=True, random_state=5, n_jobs=2).fit(X, y_reg)
    for ia, ib in zip(a.estimators_samples_, b.estimators_samples_):
        np.testing.assert_array_equal(ia, ib)
    np.testing.assert_array_equal(a.predict(TEST[0]), b.predict(TEST[0]))
    assert a.oob_score_ == b.oob_score_


def test_parallel_training_without_joblib_explains_what_to_install(monkeypatch):
    X, _, y = TRAIN
    monkeypatch.setitem(sys.modules, "joblib", None)  # makes "import joblib" fail
    with pytest.raises(ImportError, match="pip install joblib"):
        BaggingClassifier(n_estimators=2, n_jobs=2).fit(X, y)
    BaggingClassifier(n_estimators=2).fit(X, y)  # sequential training does not need it


def test_seed_reproducibility_and_generator_input():
    X, _, y = TRAIN
    a = BaggingClassifier(n_estimators=4, random_state=11).fit(X, y)
    b = BaggingClassifier(n_estimators=4, random_state=np.random.default_rng(11)).fit(X, y)
    c = BaggingClassifier(n_estimators=4, random_state=12).fit(X, y)
    np.testing.assert_array_equal(a.estimators_samples_[0], b.estimators_samples_[0])
    assert not np.array_equal(a.estimators_samples_[0], c.estimators_samples_[0])


def test_string_labels():
    X, _, y = TRAIN
    names = np.array(["no", "yes"])[y]
    bag = BaggingClassifier(n_estimators=5, random_state=0).fit(X, names)
    ints = BaggingClassifier(n_estimators=5, random_state=0).fit(X, y)
    np.testing.assert_array_equal(bag.predict(X), np.array(["no", "yes"])[ints.predict(X)])


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("n_estimators", [0, -3])
def test_non_positive_n_estimators(n_estimators):
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="n_estimators"):
        BaggingClassifier(n_estimators=n_estimators).fit(X, y)


@pytest.mark.parametrize("max_samples", [0, 0.0, 1.5, 201, 0.001, -0.2])
def test_max_samples_out_of_range(max_samples):
    X, y, _ = TRAIN
    with pytest.raises(ValueError, match="max_samples"):
        BaggingRegressor(max_samples=max_samples).fit(X, y)


def test_nan_in_X():
    X, _, y = TRAIN
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X must not contain NaN"):
        BaggingClassifier().fit(X, y)


def test_mismatched_lengths():
    X, y, _ = TRAIN
    with pytest.raises(ValueError, match="inconsistent lengths"):
        BaggingRegressor().fit(X, y[:-2])


def test_single_class():
    X, _, _ = TRAIN
    with pytest.raises(ValueError, match="at least 2 classes"):
        BaggingClassifier().fit(X, np.zeros(len(X)))


def test_empty_input():
    with pytest.raises(ValueError, match="at least one sample"):
        BaggingRegressor().fit(np.empty((0, 2)), np.empty(0))


@pytest.mark.parametrize("w, message", [(-1.0, "non-negative"), (0.0, "positive sum")])
def test_bad_sample_weight(w, message):
    X, _, y = TRAIN
    weights = np.ones(len(y)) if w < 0 else np.zeros(len(y))
    weights[0] = w
    with pytest.raises(ValueError, match=f"sample_weight must .*{message}"):
        BaggingClassifier().fit(X, y, sample_weight=weights)


def test_sample_weight_with_an_estimator_that_cannot_use_it():
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="sample_weight"):
        BaggingClassifier(KNeighborsClassifier()).fit(X, y, sample_weight=np.ones(len(y)))


def test_oob_score_without_left_out_points():
    X, _, y = TRAIN
    with pytest.raises(ValueError, match="oob_score"):
        BaggingClassifier(bootstrap=False, oob_score=True).fit(X, y)


@pytest.mark.parametrize("n_jobs, error", [(0, ValueError), (1.5, TypeError), ("two", TypeError)])
def test_bad_n_jobs(n_jobs, error):
    X, _, y = TRAIN
    with pytest.raises(error, match="n_jobs"):
        BaggingClassifier(n_jobs=n_jobs).fit(X, y)


def test_estimator_that_is_not_an_estimator():
    X, _, y = TRAIN
    with pytest.raises(TypeError, match="estimator"):
        BaggingClassifier(estimator="tree").fit(X, y)


@pytest.mark.parametrize("Estimator", [BaggingClassifier, BaggingRegressor])
def test_predict_before_fit(Estimator):
    with pytest.raises(NotFittedError):
        Estimator().predict(TRAIN[0])


@pytest.mark.parametrize("Estimator", [BaggingClassifier, BaggingRegressor])
def test_wrong_number_of_features_at_predict(Estimator):
    X, _, y = TRAIN
    model = Estimator(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
