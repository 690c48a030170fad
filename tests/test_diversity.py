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


# --- pairwise measures, ambiguity, negative correlation, selection ---------------------------

from itertools import combinations  # noqa: E402

from sklearn.metrics import cohen_kappa_score  # noqa: E402

from ensemble_ref.math.diversity import (  # noqa: E402
    disagreement,
    double_fault,
    error_ambiguity,
    forward_selection,
    kappa_statistic,
    ncl_gradient,
    pair_mean,
    q_statistic,
)


def _oracle(seed, M=5, n=300):
    rng = np.random.default_rng(seed)
    return (rng.random((M, n)) < rng.uniform(0.55, 0.9, size=(M, 1))).astype(int)


def test_pairwise_measures_by_counting():
    C = _oracle(10)
    for m, k in combinations(range(C.shape[0]), 2):
        a, b = C[m], C[k]
        n11, n00 = np.sum((a == 1) & (b == 1)), np.sum((a == 0) & (b == 0))
        n10, n01 = np.sum((a == 1) & (b == 0)), np.sum((a == 0) & (b == 1))
        assert q_statistic(C)[m, k] == pytest.approx((n11 * n00 - n01 * n10) / (n11 * n00 + n01 * n10))
        assert disagreement(C)[m, k] == pytest.approx(np.mean(a != b))
        assert double_fault(C)[m, k] == pytest.approx(np.mean((a == 0) & (b == 0)))
    np.testing.assert_allclose(q_statistic(C), q_statistic(C).T)
    np.testing.assert_allclose(np.diag(double_fault(C)), 1 - C.mean(axis=1))


def test_kappa_against_sklearn():
    rng = np.random.default_rng(11)
    labels = rng.choice(["a", "b", "c"], size=(4, 200), p=[0.5, 0.3, 0.2])
    K = kappa_statistic(labels)
    for m, k in combinations(range(4), 2):
        assert K[m, k] == pytest.approx(cohen_kappa_score(labels[m], labels[k]), abs=1e-12)
    np.testing.assert_allclose(np.diag(K), 1.0)


def test_pair_mean_and_correlation_share_the_average():
    S = np.arange(16.0).reshape(4, 4)
    assert pair_mean(S) == pytest.approx((S.sum() - np.trace(S)) / 12)


def test_disagreement_is_the_variance_of_the_mean_vote():
    """mean disagreement = 2M/(M-1) [p(1-p) - Var(X-bar)] (Kohavi-Wolpert)."""
    C = _oracle(12, M=7, n=500)
    M, share = C.shape[0], C.mean(axis=0)
    p = C.mean()
    assert pair_mean(disagreement(C)) == pytest.approx(2 * M / (M - 1) * (p * (1 - p) - share.var()))


def test_q_undefined_and_bad_values():
    with pytest.raises(ValueError, match="0/0"):
        q_statistic(np.ones((2, 10)))
    with pytest.raises(ValueError, match="only the values"):
        disagreement(np.full((2, 3), 0.5))
    with pytest.raises(ValueError, match="same label"):
        kappa_statistic(np.zeros((2, 5)))


def test_error_ambiguity_identity_and_weights():
    rng = np.random.default_rng(13)
    P, y = rng.normal(size=(6, 100)), rng.normal(size=100)
    for w in (None, rng.dirichlet(np.ones(6))):
        e = error_ambiguity(P, y, w)
        ww = np.full(6, 1 / 6) if w is None else w
        assert e.ensemble_error == pytest.approx(np.mean((ww @ P - y) ** 2))
        assert e.ensemble_error == pytest.approx(e.member_error - e.ambiguity, abs=1e-12)
        assert e.ambiguity >= 0
    with pytest.raises(ValueError, match="sum to one"):
        error_ambiguity(P, y, np.ones(6))


def test_ncl_gradient_ends():
    rng = np.random.default_rng(14)
    P, y = rng.normal(size=(4, 30)), rng.normal(size=30)
    np.testing.assert_allclose(ncl_gradient(P, y, 0.0), P - y)
    np.testing.assert_allclose(ncl_gradient(P, y, 1.0), np.broadcast_to(P.mean(axis=0) - y, P.shape))
    # the derivative of (1 - xi) sum_m (f_m - y)^2 / 2 + xi M (f_bar - y)^2 / 2
    xi, eps = 0.3, 1e-6

    def objective(Q):
        return (1 - xi) * 0.5 * np.sum((Q - y) ** 2) + xi * 4 * 0.5 * np.sum((Q.mean(0) - y) ** 2)

    E = np.zeros_like(P)
    E[2, 5] = eps
    numeric = (objective(P + E) - objective(P - E)) / (2 * eps)
    assert ncl_gradient(P, y, xi)[2, 5] == pytest.approx(numeric, rel=1e-6)
    with pytest.raises(ValueError, match="xi"):
        ncl_gradient(P, y, 1.5)


def test_forward_selection_against_brute_force_greedy():
    rng = np.random.default_rng(15)
    y = rng.normal(size=80)
    P = y + rng.normal(scale=[[0.3], [0.5], [1.0], [2.0]], size=(4, 80)) + [[0.4], [-0.4], [0], [0]]
    counts, path = forward_selection(P, y, 10)
    chosen = []
    for _ in range(10):
        errs = [np.mean((np.mean(P[chosen + [k]], axis=0) - y) ** 2) for k in range(4)]
        chosen.append(int(np.argmin(errs)))
    np.testing.assert_array_equal(counts, np.bincount(chosen, minlength=4))
    assert counts.sum() == 10 and path[-1] == pytest.approx(np.mean((counts @ P / 10 - y) ** 2))
    assert path[0] == pytest.approx(min(np.mean((P - y) ** 2, axis=1)))
    with pytest.raises(ValueError, match="n_steps"):
        forward_selection(P, y, 0)
