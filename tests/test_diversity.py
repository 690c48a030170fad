"""Strength and correlation of ensemble members (inputs of the correlated-voters bound)."""

import numpy as np
import pytest
from sklearn import ensemble as skens

from ensemble_ref import (
    BaggingClassifier,
    DecisionTreeClassifier,
    RandomForestClassifier,
    VotingClassifier,
    majority_lower_bound,
    mean_pairwise_correlation,
    mean_vote_variance,
    member_correctness,
    member_diversity,
)


def make_data(seed, n=300, d=8):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + X[:, 1] - X[:, 2] + 0.8 * rng.normal(size=n)
    return X, np.where(y > 0, "pos", "neg")


def test_mean_pairwise_correlation_against_corrcoef():
    rng = np.random.default_rng(0)
    correct = rng.random((6, 500)) < rng.uniform(0.55, 0.9, size=(6, 1))
    R = np.corrcoef(correct)
    expected = (R.sum() - 6) / 30
    assert mean_pairwise_correlation(correct) == pytest.approx(expected, abs=1e-12)
    assert mean_pairwise_correlation(1 - correct) == pytest.approx(expected, abs=1e-12)  # errors


def test_member_diversity_of_a_forest_by_hand():
    X, y = make_data(1)
    Xt, yt = make_data(2, n=500)
    forest = RandomForestClassifier(n_estimators=15, random_state=0).fit(X, y)
    correct = np.array([forest.classes_[tree.predict(Xt).astype(int)] == yt for tree in forest.estimators_])
    np.testing.assert_array_equal(member_correctness(forest, Xt, yt), correct)
    strength, correlation = member_diversity(forest, Xt, yt)
    assert strength == pytest.approx(np.mean([c.mean() for c in correct]))
    R = np.corrcoef(correct)
    assert correlation == pytest.approx((R.sum() - 15) / (15 * 14))


def test_works_on_other_ensembles_and_member_lists():
    X, y = make_data(3)
    Xt, yt = make_data(4, n=400)
    ours = BaggingClassifier(n_estimators=8, random_state=0).fit(X, y)
    sk = skens.RandomForestClassifier(n_estimators=8, random_state=0).fit(X, y)
    trees = [DecisionTreeClassifier(max_depth=d).fit(X, y) for d in (2, 4, 8)]
    vote = VotingClassifier([(f"t{d}", DecisionTreeClassifier(max_depth=d)) for d in (2, 4, 8)]).fit(X, y)
    for ensemble in (ours, sk, trees, vote):
        p, c = member_diversity(ensemble, Xt, yt)
        assert 0.5 < p < 1.0 and -1.0 <= c <= 1.0
    # the voting members are the list's trees refitted: same numbers
    assert member_diversity(vote, Xt, yt) == member_diversity(trees, Xt, yt)


def test_feature_subsampling_decorrelates_the_trees():
    """Fewer candidate features: weaker but less correlated trees (Breiman's trade-off)."""
    X, y = make_data(5, n=400)
    Xt, yt = make_data(6, n=1000)
    p1, c1 = member_diversity(RandomForestClassifier(30, max_features=1, random_state=0).fit(X, y), Xt, yt)
    p8, c8 = member_diversity(RandomForestClassifier(30, max_features=None, random_state=0).fit(X, y), Xt, yt)
    assert c1 < c8 - 0.05
    assert p1 < p8


def test_correlated_voters_bound_with_equal_accuracies():
    """With equal member accuracies the variance formula is exact and Cantelli's bound holds.

    Every row is a permutation of the same 0/1 vector (so all members have accuracy
    p exactly) and consecutive rows share most of their entries (positive correlation).
    """
    rng = np.random.default_rng(7)
    n, M = 2000, 9
    base = np.zeros(n, dtype=bool)
    base[: int(0.7 * n)] = True
    rows = [rng.permutation(base)]
    for _ in range(M - 1):
        row = rows[-1].copy()
        swap = rng.choice(n, size=400, replace=False)  # re-shuffle a fifth of the points
        row[swap] = rng.permutation(row[swap])
        rows.append(row)
    correct = np.array(rows)
    p, c = correct.mean(), mean_pairwise_correlation(correct)
    share = correct.mean(axis=0)  # the mean vote X-bar on each point
    assert np.var(share) == pytest.approx(mean_vote_variance(p, c, M), rel=1e-10)
    assert np.mean(share > 0.5) >= majority_lower_bound(p, c, M)


def test_constant_member_is_rejected():
    correct = np.ones((3, 10), dtype=bool)
    correct[1:, :3] = False
    with pytest.raises(ValueError, match="right on all points or wrong on all points"):
        mean_pairwise_correlation(correct)


def test_single_member_is_rejected():
    with pytest.raises(ValueError, match="n_members >= 2"):
        mean_pairwise_correlation(np.ones((1, 10)))


def test_not_an_ensemble():
    X, y = make_data(8, n=20)
    with pytest.raises(TypeError, match="ensemble"):
        member_diversity(DecisionTreeClassifier().fit(X, y), X, y)


def test_mismatched_lengths():
    X, y = make_data(9, n=50)
    forest = RandomForestClassifier(5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="y must have shape"):
        member_diversity(forest, X, y[:-1])
