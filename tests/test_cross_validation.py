"""Unit tests for ensemble_ref.cross_validation (equation eq-cv-error)."""

import numpy as np
import pytest

from ensemble_ref import DecisionTreeClassifier, DecisionTreeRegressor
from ensembles_verified import cross_val_error, kfold_indices


@pytest.mark.parametrize("N,K", [(10, 2), (11, 3), (200, 5), (7, 7)])
def test_folds_partition_the_data(N, K):
    folds = list(kfold_indices(N, K, 0))
    assert len(folds) == K
    tests = np.concatenate([test for _, test in folds])
    assert np.array_equal(np.sort(tests), np.arange(N))
    for train, test in folds:
        assert np.intersect1d(train, test).size == 0
        assert train.size + test.size == N
        assert test.size in (N // K, -(-N // K))


def test_folds_are_reproducible_and_shuffled():
    a = [t for _, t in kfold_indices(50, 5, 3)]
    b = [t for _, t in kfold_indices(50, 5, np.random.default_rng(3))]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], np.arange(10))  # not the unshuffled first block


def test_cross_val_error_matches_scikit_learn_on_the_same_folds():
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier as SkTree

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
    folds = list(kfold_indices(120, 5, 1))
    # trees agree with scikit-learn on held-out points when leaves hold >= 10 points
    # (smaller leaves can break exact ties between features differently)
    sk = cross_val_score(SkTree(max_depth=3, min_samples_leaf=10, random_state=0), X, y, cv=folds).mean()
    ours = cross_val_error(DecisionTreeClassifier(max_depth=3, min_samples_leaf=10), X, y, 5, random_state=1)
    assert ours == pytest.approx(1 - sk, abs=1e-12)


def test_cross_val_error_regression_by_hand():
    rng = np.random.default_rng(1)
    X = rng.random((60, 1))
    y = np.sin(6 * X[:, 0]) + 0.1 * rng.normal(size=60)
    est = DecisionTreeRegressor(max_depth=2)
    total = 0.0
    for train, test in kfold_indices(60, 4, 2):
        model = DecisionTreeRegressor(max_depth=2).fit(X[train], y[train])
        total += np.sum((model.predict(X[test]) - y[test]) ** 2)
    assert cross_val_error(est, X, y, 4, loss="squared_error", random_state=2) == pytest.approx(total / 60)
    assert est.get_params()["max_depth"] == 2 and not hasattr(est, "tree_")  # not fitted in place


def test_bad_arguments():
    X, y = np.zeros((5, 1)), np.zeros(5)
    with pytest.raises(ValueError, match="n_splits"):
        list(kfold_indices(5, 6, 0))
    with pytest.raises(ValueError, match="n_splits"):
        list(kfold_indices(5, 1, 0))
    with pytest.raises(ValueError, match="loss"):
        cross_val_error(DecisionTreeRegressor(), X, y, 2, loss="hinge")
    with pytest.raises(ValueError, match="y"):
        cross_val_error(DecisionTreeRegressor(), X, np.zeros(4), 2)
    with pytest.raises(TypeError, match="estimator"):
        cross_val_error(object(), X, y, 2)
