"""Unit tests for ensemble_ref.aggregation (equation eq-oob-estimate)."""

import numpy as np
import pytest

from ensemble_ref import (
    in_bag_counts,
    one_hot_votes,
    oob_aggregate,
    oob_error,
    oob_error_curve,
    oob_expected_error,
    oob_fraction_exact,
    staged_errors,
)


def test_worked_example_four_points_three_trees():
    # samples of the three trees (0-based): {1,2,2,4}, {1,3,3,4}, {2,3,4,4}
    samples = [np.array([0, 1, 1, 3]), np.array([0, 2, 2, 3]), np.array([1, 2, 3, 3])]
    c = in_bag_counts(samples, 4)
    assert c.tolist() == [[1, 2, 0, 1], [1, 0, 2, 1], [0, 1, 1, 2]]
    y = np.array([1, 0, 1, 1])
    # tree t's labels on every point; only the OOB entries matter: h1(x3)=0, h2(x2)=0, h3(x1)=1
    labels = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 1, 1]])
    F = one_hot_votes(labels, 2)
    mean, n_oob = oob_aggregate(c, F)
    assert n_oob.tolist() == [1, 1, 1, 0]
    assert np.isnan(mean[3]).all()
    assert np.argmax(mean[:3], axis=1).tolist() == [1, 0, 0]
    err, used = oob_error(c, F, y)
    assert used == 3 and err == pytest.approx(1 / 3)


def brute_force_oob(c, F, y, M):
    """Loop over points: average the outputs of the OOB members among the first M."""
    losses = []
    for i in range(F.shape[1]):
        members = [t for t in range(M) if c[t, i] == 0]
        if not members:
            continue
        mean = np.mean([F[t, i] for t in members], axis=0)
        losses.append(float(np.argmax(mean) != y[i]) if F.ndim == 3 else (mean - y[i]) ** 2)
    return (np.mean(losses) if losses else np.nan), len(losses)


@pytest.mark.parametrize("K", [None, 3])
def test_oob_curve_matches_brute_force(K):
    rng = np.random.default_rng(3)
    T, N = 12, 40
    samples = [rng.integers(0, N, N) for _ in range(T)]
    c = in_bag_counts(samples, N)
    if K is None:
        F, y = rng.normal(size=(T, N)), rng.normal(size=N)
    else:
        F, y = rng.dirichlet(np.ones(K), size=(T, N)), rng.integers(0, K, N)
    errors, coverage = oob_error_curve(c, F, y)
    for M in range(1, T + 1):
        e, used = brute_force_oob(c, F, y, M)
        assert coverage[M - 1] == pytest.approx(used / N)
        if used:
            assert errors[M - 1] == pytest.approx(e, rel=1e-12)
    e, used = oob_error(c, F, y)
    assert e == pytest.approx(errors[-1]) and used == round(coverage[-1] * N)


def test_staged_errors_match_brute_force():
    rng = np.random.default_rng(4)
    T, N, K = 7, 30, 4
    F, y = rng.dirichlet(np.ones(K), size=(T, N)), rng.integers(0, K, N)
    got = staged_errors(F, y)
    want = [np.mean(np.argmax(F[:M].mean(axis=0), axis=1) != y) for M in range(1, T + 1)]
    assert np.allclose(got, want)
    Fr, yr = rng.normal(size=(T, N)), rng.normal(size=N)
    want_r = [np.mean((Fr[:M].mean(axis=0) - yr) ** 2) for M in range(1, T + 1)]
    assert np.allclose(staged_errors(Fr, yr), want_r)


def _staged_by_numpy(F, y):
    """staged_errors as numpy's cumsum and arg-max along the axes write it (the definition)."""
    T = F.shape[0]
    mean = np.cumsum(F, axis=0) / np.arange(1, T + 1).reshape((T,) + (1,) * (F.ndim - 1))
    loss = (np.argmax(mean, axis=-1) != y).astype(float) if F.ndim == 3 else (mean - y) ** 2
    return loss.mean(axis=1)


@pytest.mark.parametrize("K", [None, 2, 3, 9])
@pytest.mark.parametrize("shape", [(30, 2000), (3, 10), (200, 40)])
def test_staged_and_oob_errors_are_numpys_bit_for_bit(K, shape):
    """The member-by-member sums and the arg-max column by column give numpy's numbers exactly
    (ties included: one-hot votes), and leave the outputs passed in unchanged."""
    rng = np.random.default_rng(8)
    T, N = shape
    if K is None:
        F, y = rng.normal(size=(T, N)) * np.exp(rng.normal(0, 5, size=(T, N))), rng.normal(size=N)
    elif K == 2:
        F, y = one_hot_votes(rng.integers(0, K, size=(T, N)), K), rng.integers(0, K, N)
    else:
        F, y = rng.dirichlet(np.ones(K), size=(T, N)), rng.integers(0, K, N)
    before = F.copy()
    np.testing.assert_array_equal(staged_errors(F, y), _staged_by_numpy(F, y))
    np.testing.assert_array_equal(F, before)
    c = in_bag_counts([rng.integers(0, N, N) for _ in range(T)], N)
    oob = (c == 0).astype(float)
    n_oob = np.cumsum(oob, axis=0)
    w = oob.reshape(oob.shape + (1,) * (F.ndim - 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.cumsum(w * F, axis=0) / n_oob.reshape(n_oob.shape + (1,) * (F.ndim - 2))
    has = n_oob > 0
    mean = np.where(has.reshape(has.shape + (1,) * (F.ndim - 2)), mean, 0.0)
    loss = (np.argmax(mean, axis=-1) != y).astype(float) if F.ndim == 3 else (mean - y) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        want = (loss * has).sum(axis=1) / has.sum(axis=1)
    errors, coverage = oob_error_curve(c, F, y)
    np.testing.assert_array_equal(errors, want)
    np.testing.assert_array_equal(coverage, has.mean(axis=1))


def test_hard_votes_ties_go_to_lowest_class():
    F = one_hot_votes(np.array([[0], [1]]), 2)  # two members, one point, one vote each
    assert staged_errors(F, np.array([0]))[-1] == 0.0
    assert staged_errors(F, np.array([1]))[-1] == 1.0


def test_agrees_with_scikit_learn_oob_decision_function():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import BaggingClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    bag = BaggingClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=15, oob_score=True,
                            random_state=0).fit(X, y)
    c = in_bag_counts(bag.estimators_samples_, len(y))
    F = np.stack([est.predict_proba(X[:, f]) for est, f in zip(bag.estimators_, bag.estimators_features_)])
    mean, n_oob = oob_aggregate(c, F)
    has = n_oob > 0
    assert np.allclose(mean[has], bag.oob_decision_function_[has])
    err, _ = oob_error(c, F, y)
    assert err == pytest.approx(1 - bag.oob_score_)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="samples"):
        in_bag_counts([np.array([0, 5])], 3)
    with pytest.raises(ValueError, match="samples"):
        in_bag_counts([], 3)
    with pytest.raises(ValueError, match="labels"):
        one_hot_votes(np.array([0, 2]), 2)
    with pytest.raises(ValueError, match="outputs"):
        staged_errors(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="outputs"):
        staged_errors(np.full((2, 3), np.nan), np.zeros(3))
    with pytest.raises(ValueError, match="y"):
        staged_errors(np.zeros((2, 3)), np.zeros(4))
    with pytest.raises(ValueError, match="y"):
        staged_errors(np.zeros((2, 3, 2)), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="in_bag"):
        oob_aggregate(np.zeros((2, 4), dtype=int), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="out of bag"):
        oob_error(np.ones((2, 3), dtype=int), np.zeros((2, 3)), np.zeros(3))


def test_oob_expected_error_by_explicit_sums():
    from math import comb

    R = np.array([0.4, 0.3, 0.25, 0.22, 0.21, 0.2])
    N = 50
    P = oob_fraction_exact(N)
    got = oob_expected_error(R, N)
    for m in range(1, R.size + 1):
        w = [comb(m, k) * P**k * (1 - P) ** (m - k) for k in range(1, m + 1)]
        assert got[m - 1] == pytest.approx(np.dot(w, R[:m]) / (1 - (1 - P) ** m), rel=1e-12)
    assert np.allclose(oob_expected_error(np.full(8, 0.3), N), 0.3)  # constant risk: no bias
    assert got[0] == pytest.approx(R[0])  # one member: its OOB points see exactly that member


def test_oob_expected_error_matches_simulated_oob_counts():
    # Simulate the number of OOB members of a point among m, then average R(k) over k >= 1.
    rng = np.random.default_rng(5)
    N, m, reps = 30, 6, 200000
    R = np.linspace(0.5, 0.2, m)
    k = rng.binomial(m, oob_fraction_exact(N), size=reps)
    k = k[k > 0]
    sim = R[k - 1].mean()
    se = R[k - 1].std() / np.sqrt(k.size)
    assert abs(oob_expected_error(R, N)[-1] - sim) < 4 * se


def test_oob_expected_error_bad_input():
    with pytest.raises(ValueError, match="staged_risk"):
        oob_expected_error(np.array([]), 10)
    with pytest.raises(ValueError, match="n_samples"):
        oob_expected_error(np.array([0.2]), 1)
