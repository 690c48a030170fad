"""Voting and stacking: definitions checked directly, scikit-learn as an exact oracle."""

import numpy as np
import pytest
from sklearn import ensemble as skens
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
from sklearn.svm import LinearSVC

from ensemble_ref import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    LeastSquaresRegressor,
    NotFittedError,
    SoftmaxRegression,
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
    stratified_kfold_indices,
)


def make_data(seed, n=150, d=4, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.5 * rng.normal(size=n)
    edges = np.quantile(y, np.linspace(0, 1, n_classes + 1)[1:-1])
    return X, y, np.searchsorted(edges, y)


def classifiers():
    return [("tree", DecisionTreeClassifier(max_depth=3)),
            ("logit", LogisticRegression()),
            ("knn", KNeighborsClassifier(15))]


def regressors():
    return [("tree", DecisionTreeRegressor(max_depth=3)),
            ("ols", LinearRegression()),
            ("knn", KNeighborsRegressor(10))]


# ------------------------------------------------------------------------- voting
@pytest.mark.parametrize("n_classes", [2, 3])
def test_soft_voting_is_the_weighted_average_of_probabilities(n_classes):
    X, _, y = make_data(0, n_classes=n_classes)
    Xt, _, _ = make_data(1, n=300, n_classes=n_classes)
    weights = [1.0, 2.0, 0.5]
    soft = VotingClassifier(classifiers(), voting="soft", weights=weights).fit(X, y)
    P = np.array([m.predict_proba(Xt) for m in soft.estimators_])
    np.testing.assert_allclose(soft.predict_proba(Xt), np.average(P, axis=0, weights=weights), atol=1e-12)
    ref = skens.VotingClassifier(classifiers(), voting="soft", weights=weights).fit(X, y)
    np.testing.assert_allclose(soft.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-12)
    np.testing.assert_array_equal(soft.predict(Xt), ref.predict(Xt))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_hard_voting_matches_sklearn(n_classes):
    X, _, y = make_data(2, n_classes=n_classes)
    Xt, _, _ = make_data(3, n=300, n_classes=n_classes)
    weights = [1.0, 1.0, 1.5]
    ours = VotingClassifier(classifiers(), weights=weights).fit(X, y)
    ref = skens.VotingClassifier(classifiers(), weights=weights).fit(X, y)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))


def test_hard_voting_ties_go_to_the_lowest_label():
    X, _, y = make_data(4, n_classes=3)
    labels = np.array([30, 10, 20])[y]  # classes_ = [10, 20, 30]
    members = [("a", DecisionTreeClassifier(max_depth=1)), ("b", KNeighborsClassifier(1))]
    vote = VotingClassifier(members).fit(X, labels)
    Xt = make_data(5, n=400)[0]
    a, b = (np.asarray(m.predict(Xt)) for m in vote.estimators_)  # encoded 0..2
    disagree = a != b
    assert disagree.sum() > 20  # the test needs ties
    np.testing.assert_array_equal(vote.predict(Xt)[disagree], vote.classes_[np.minimum(a, b)[disagree]])
    np.testing.assert_array_equal(vote.predict(Xt)[~disagree], vote.classes_[a[~disagree]])


def test_hard_voting_has_no_predict_proba():
    X, _, y = make_data(6)
    vote = VotingClassifier(classifiers()).fit(X, y)
    assert not hasattr(vote, "predict_proba")
    with pytest.raises(AttributeError, match="voting='soft'"):
        vote.predict_proba(X)


def test_voting_regressor_is_the_weighted_mean():
    X, y, _ = make_data(7)
    Xt = make_data(8, n=200)[0]
    weights = [2.0, 1.0, 1.0]
    ours = VotingRegressor(regressors(), weights=weights).fit(X, y)
    F = np.array([m.predict(Xt) for m in ours.estimators_])
    np.testing.assert_allclose(ours.predict(Xt), np.average(F, axis=0, weights=weights))
    ref = skens.VotingRegressor(regressors(), weights=weights).fit(X, y)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), atol=1e-12)


def test_voting_passes_sample_weight_to_members():
    X, _, y = make_data(9)
    w = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    vote = VotingClassifier([("tree", DecisionTreeClassifier(max_depth=2))]).fit(X, y, sample_weight=w)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(vote.estimators_[0].tree_.threshold, tree.tree_.threshold)


# ----------------------------------------------------------------------- stacking
def test_stratified_kfold_indices_partition_and_stratify():
    y = np.repeat([0, 1, 2], [50, 30, 17])
    folds = stratified_kfold_indices(len(y), 5, random_state=0, y=y)
    tests = np.concatenate([test for _, test in folds])
    np.testing.assert_array_equal(np.sort(tests), np.arange(len(y)))
    for train, test in folds:
        assert len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == len(y)
    sizes = [len(test) for _, test in folds]
    assert max(sizes) - min(sizes) <= 1
    counts = np.array([np.bincount(y[test], minlength=3) for _, test in folds])
    assert np.all(counts.max(0) - counts.min(0) <= 1)  # each class spread evenly
    again = stratified_kfold_indices(len(y), 5, random_state=0, y=y)
    other = stratified_kfold_indices(len(y), 5, random_state=1, y=y)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))
    assert not all(np.array_equal(a[1], b[1]) for a, b in zip(folds, other))
    plain = stratified_kfold_indices(23, 4, random_state=0)
    assert sorted(len(test) for _, test in plain) == [5, 6, 6, 6]


def test_stacking_regressor_matches_sklearn_on_the_same_folds():
    X, y, _ = make_data(10)
    Xt = make_data(11, n=200)[0]
    ours = StackingRegressor(regressors(), cv=4, random_state=3).fit(X, y)
    folds = stratified_kfold_indices(len(y), 4, random_state=3)
    ref = skens.StackingRegressor(regressors(), final_estimator=LinearRegression(fit_intercept=False),
                                  cv=folds).fit(X, y)
    np.testing.assert_allclose(ours.final_estimator_.coef_, ref.final_estimator_.coef_, atol=1e-8)
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), atol=1e-8)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_stacking_classifier_matches_sklearn_on_the_same_folds(n_classes):
    X, _, y = make_data(12, n_classes=n_classes)
    Xt = make_data(13, n=200, n_classes=n_classes)[0]
    ours = StackingClassifier(classifiers(), final_estimator=LogisticRegression(), cv=4,
                              random_state=5).fit(X, y)
    folds = stratified_kfold_indices(len(y), 4, random_state=5, y=y)
    ref = skens.StackingClassifier(classifiers(), final_estimator=LogisticRegression(), cv=folds).fit(X, y)
    np.testing.assert_allclose(ours.transform(Xt), ref.transform(Xt), atol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))


def test_meta_features_are_out_of_fold():
    """Each z_i comes from a member trained without point i, never from the refitted member."""
    X, y, _ = make_data(14)
    stack = StackingRegressor([("full", DecisionTreeRegressor()), ("ols", LinearRegression())],
                              cv=5, random_state=0).fit(X, y)
    Z = np.empty((len(y), 2))
    for train, test in stratified_kfold_indices(len(y), 5, random_state=0):
        Z[test, 0] = DecisionTreeRegressor().fit(X[train], y[train]).predict(X[test])
        Z[test, 1] = LinearRegression().fit(X[train], y[train]).predict(X[test])
    np.testing.assert_allclose(stack.oof_predictions_, Z, atol=1e-12)
    # the refitted full tree interpolates its training targets: in-sample it would leak y
    np.testing.assert_allclose(stack.estimators_[0].predict(X), y)
    assert np.mean((Z[:, 0] - y) ** 2) > 0.1


def test_in_sample_least_squares_trusts_the_interpolating_member():
    """Proposition prop-stacking-leak: in-sample meta-features give weights (1, 0, ...)."""
    X, y, _ = make_data(15)
    stack = StackingRegressor([("full", DecisionTreeRegressor()), ("ols", LinearRegression()),
                               ("knn", KNeighborsRegressor(10))], cv=5, random_state=0).fit(X, y)
    Z_in = np.column_stack([m.predict(X) for m in stack.estimators_])
    beta_in = LeastSquaresRegressor().fit(Z_in, y).coef_
    np.testing.assert_allclose(beta_in, [1.0, 0.0, 0.0], atol=1e-8)
    assert stack.final_estimator_.coef_[0] < 0.9  # out of fold, the tree is not trusted blindly


def test_default_meta_models():
    X, y, labels = make_data(16, n_classes=3)
    reg = StackingRegressor(regressors(), random_state=0).fit(X, y)
    assert isinstance(reg.final_estimator_, LeastSquaresRegressor) and reg.oof_predictions_.shape == (150, 3)
    clf = StackingClassifier(classifiers(), random_state=0).fit(X, labels)
    assert isinstance(clf.final_estimator_, SoftmaxRegression)
    assert clf.oof_predictions_.shape == (150, 9)
    np.testing.assert_allclose(clf.predict_proba(X).sum(1), 1.0)


def test_stacking_with_a_member_without_predict_proba():
    X, _, y = make_data(17)
    stack = StackingClassifier([("svm", LinearSVC()), ("tree", DecisionTreeClassifier(max_depth=2))],
                               cv=3, random_state=0).fit(X, y)
    assert set(np.unique(stack.oof_predictions_[:, 0])) <= {0.0, 1.0}  # one-hot vote of the SVM
    assert stack.score(X, y) > 0.6


def test_least_squares_regressor_against_sklearn():
    X, y, _ = make_data(18)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    for intercept in (False, True):
        ours = LeastSquaresRegressor(fit_intercept=intercept).fit(X, y, sample_weight=w)
        ref = LinearRegression(fit_intercept=intercept).fit(X, y, sample_weight=w)
        np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-10)
        assert ours.intercept_ == pytest.approx(ref.intercept_, abs=1e-10)


def test_softmax_regression_against_sklearn():
    """Mean cross-entropy + lam/2 ||B||^2 is scikit-learn's objective with C = 1 / (lam N)."""
    X, _, y = make_data(19, n_classes=3)
    lam = 0.01
    ours = SoftmaxRegression(lam=lam).fit(X, y)
    ref = LogisticRegression(C=1.0 / (lam * len(y)), tol=1e-10, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-4)


# ------------------------------------------------------------------------ bad input
def test_unknown_voting_rule():
    X, _, y = make_data(20)
    with pytest.raises(ValueError, match="voting"):
        VotingClassifier(classifiers(), voting="majority").fit(X, y)


@pytest.mark.parametrize("weights", [[1.0, 2.0], [1.0, -1.0, 1.0], [0.0, 0.0, 0.0], [1.0, np.nan, 1.0]])
def test_bad_weights(weights):
    X, _, y = make_data(21)
    with pytest.raises(ValueError, match="weights"):
        VotingClassifier(classifiers(), weights=weights).fit(X, y)


def test_soft_voting_needs_predict_proba():
    X, _, y = make_data(22)
    with pytest.raises(ValueError, match="predict_proba"):
        VotingClassifier([("svm", LinearSVC())], voting="soft").fit(X, y)


@pytest.mark.parametrize("estimators", [[], [("a", DecisionTreeRegressor()), ("a", LinearRegression())],
                                        [("a__b", DecisionTreeRegressor())], [DecisionTreeRegressor()],
                                        [("weights", DecisionTreeRegressor())]])
def test_bad_estimators_lists(estimators):
    X, y, _ = make_data(23)
    with pytest.raises(ValueError, match="estimators"):
        VotingRegressor(estimators).fit(X, y)


def test_member_that_is_not_an_estimator():
    X, y, _ = make_data(24)
    with pytest.raises(TypeError, match="estimators"):
        StackingRegressor([("a", "tree")]).fit(X, y)


def test_final_estimator_that_is_not_an_estimator():
    X, y, _ = make_data(24)
    with pytest.raises(TypeError, match="final_estimator"):
        StackingRegressor(regressors(), final_estimator=3).fit(X, y)


@pytest.mark.parametrize("cv", [1, 0, 151])
def test_bad_number_of_folds(cv):
    X, y, _ = make_data(25)
    with pytest.raises(ValueError, match="cv"):
        StackingRegressor(regressors(), cv=cv).fit(X, y)


def test_nan_and_single_class_and_lengths():
    X, y, labels = make_data(26)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        StackingClassifier(classifiers()).fit(bad, labels)
    with pytest.raises(ValueError, match="at least 2 classes"):
        VotingClassifier(classifiers()).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="inconsistent lengths"):
        VotingRegressor(regressors()).fit(X, y[:-1])


@pytest.mark.parametrize("model", [VotingClassifier(classifiers()), VotingRegressor(regressors()),
                                   StackingClassifier(classifiers()), StackingRegressor(regressors())])
def test_predict_before_fit(model):
    with pytest.raises(NotFittedError):
        model.predict(make_data(27)[0])


def test_wrong_number_of_features_at_predict():
    X, _, y = make_data(28)
    stack = StackingClassifier(classifiers(), cv=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        stack.predict(X[:, :2])
