"""Unit tests of the chapter *Gradient boosting in practice*: the sketch, GOSS and bundling,
the softmax objective, target statistics, and the self-checks of its exercises.

Oracles: brute-force sums and loops, finite differences, xgboost (cuts, softmax leaves),
lightgbm (GOSS sample sizes and weights, bundling) where they compute the same thing.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from ensemble_ref.math.quantile_sketch import rank_gaps, weighted_quantile_candidates, weighted_rank
from ensemble_ref.math.sampling import (
    bin_histogram,
    bundle_offsets,
    conflict_counts,
    goss_counts,
    goss_weights,
    greedy_bundles,
    merge_bundle,
    unbundle_histogram,
)
from ensemble_ref.math.softmax_objective import (
    leaf_values,
    softmax,
    softmax_gradient,
    softmax_hessian,
    softmax_loss,
)
from ensemble_ref.math.target_statistics import (
    apply_target_statistic,
    greedy_target_statistic,
    ordered_target_statistic,
)
from ensembles_verified.selfcheck import check_goss_weights, check_ordered_target_statistic

RNG = np.random.default_rng(2026)


# --- quantile sketch ------------------------------------------------------------------------------

def test_weighted_rank_brute_force():
    x, h = RNG.normal(size=300).round(1), RNG.exponential(size=300)
    z = np.linspace(-3, 3, 41)
    assert np.allclose(weighted_rank(x, h, z), [h[x < t].sum() / h.sum() for t in z], atol=1e-14)


@pytest.mark.parametrize("eps", [0.5, 0.1, 0.02])
def test_candidates_satisfy_sketch_and_count_bound(eps):
    x, h = RNG.uniform(size=2000), RNG.exponential(size=2000) ** 2
    s = weighted_quantile_candidates(x, h, eps)
    gaps, splittable = rank_gaps(s, x, h)
    assert s[0] == x.min() and s[-1] == x.max() and np.all(np.diff(s) > 0)
    assert np.all(gaps[splittable] < eps)
    assert s.size <= 2 / eps + 2


def test_unweighted_quantiles_violate_weighted_sketch():
    x = np.sort(RNG.uniform(size=3000))
    p = 1 / (1 + np.exp(-12 * (x - 0.8)))
    h = p * (1 - p)
    gaps, splittable = rank_gaps(weighted_quantile_candidates(x, np.ones_like(x), 0.05), x, h)
    assert gaps[splittable].max() > 0.05


def test_heavy_value_forces_a_gap():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    h = np.array([1.0, 10.0, 1.0, 1.0])
    s = weighted_quantile_candidates(x, h, 0.1)
    assert np.array_equal(s, x)
    gaps, splittable = rank_gaps(s, x, h)
    assert not splittable.any() and gaps.max() > 0.1


def test_few_values_match_xgboost_cuts():
    xgboost = pytest.importorskip("xgboost")
    x = RNG.integers(0, 9, 400).astype(float)
    cuts = xgboost.QuantileDMatrix(x[:, None], label=x, max_bin=32).get_quantile_cut()[1]
    assert np.allclose(cuts[1:-1], weighted_quantile_candidates(x, np.ones_like(x), 1e-3)[1:])


@pytest.mark.parametrize("bad, exc", [(dict(eps=0.0), ValueError), (dict(eps=1.5), ValueError),
                                      (dict(eps="a"), TypeError), (dict(h=-np.ones(5)), ValueError),
                                      (dict(h=np.ones(4)), ValueError), (dict(x=np.array(["a"] * 5)), TypeError),
                                      (dict(x=np.full(5, np.nan)), ValueError)])
def test_sketch_bad_input(bad, exc):
    args = dict(x=np.arange(5.0), h=np.ones(5), eps=0.1) | bad
    name = next(iter(bad))
    with pytest.raises(exc, match=name):
        weighted_quantile_candidates(**args)


def test_rank_gaps_bad_candidates():
    with pytest.raises(ValueError, match="candidates"):
        rank_gaps([1.0, 1.0], np.arange(5.0), np.ones(5))
    with pytest.raises(TypeError, match="z"):
        weighted_rank(np.arange(3.0), np.ones(3), np.array(["a"]))


# --- GOSS -------------------------------------------------------------------------------------------

def test_goss_counts_match_lightgbm_formula():
    assert goss_counts(1000, 0.2, 0.1) == (200, 100, 8.0)
    top_k, other_k, factor = goss_counts(37, 0.3, 0.25)
    assert (top_k, other_k) == (11, 9) and factor == pytest.approx(26 / 9)


def test_goss_weights_structure():
    g = RNG.normal(size=100)
    w = goss_weights(g, 0.2, 0.1, 0)
    top = np.argsort(-np.abs(g))[:20]
    assert np.all(w[top] == 1.0) and np.sum(w == 8.0) == 10 and np.sum(w == 0) == 70
    assert np.all(np.abs(g[w == 8.0]) <= np.abs(g[top]).min())


def test_goss_exactly_unbiased_over_all_samples():
    g = RNG.normal(size=9)
    top_k, other_k, factor = goss_counts(9, 0.2, 0.3)
    order = np.argsort(-np.abs(g), kind="stable")
    means = []
    for B in itertools.combinations(order[top_k:], other_k):
        w = np.zeros(9)
        w[order[:top_k]], w[list(B)] = 1.0, factor
        means.append(w @ g)
    assert np.mean(means) == pytest.approx(g.sum(), abs=1e-12)


def test_goss_lightgbm_root_weight():
    lightgbm = pytest.importorskip("lightgbm")
    X = RNG.normal(size=(1000, 3))
    y = X[:, 0] + RNG.normal(size=1000)
    m = lightgbm.LGBMRegressor(n_estimators=3, learning_rate=1.0, num_leaves=4, data_sample_strategy="goss",
                               top_rate=0.2, other_rate=0.1, n_jobs=1, verbose=-1, random_state=0).fit(X, y)
    root = m.booster_.dump_model()["tree_info"][2]["tree_structure"]
    top_k, other_k, factor = goss_counts(1000, 0.2, 0.1)
    assert root["internal_count"] == top_k + other_k
    assert root["internal_weight"] == pytest.approx(top_k + factor * other_k)


def _log_loss_groups():
    """Rows with y = 1 in three groups: confidently wrong (F = -4.6), unsure (F = 0), fitted (F = 3)."""
    F = np.r_[np.full(200, -4.6), np.zeros(200), np.full(600, 3.0)]
    p = 1 / (1 + np.exp(-F))
    return p - 1.0, p * (1 - p), np.repeat([0, 1, 2], [200, 200, 600])


def test_goss_hessian_rule_ranks_by_abs_g_times_h():
    g, h, group = _log_loss_groups()
    paper, library = goss_weights(g, 0.2, 0.1, 0), goss_weights(g, 0.2, 0.1, 0, hessians=h)
    assert np.all(paper[group == 0] == 1.0) and np.all(library[group == 1] == 1.0)
    assert np.all(library[group == 0] != 1.0) and np.all(paper[group == 1] != 1.0)
    assert np.sum(library == 8.0) == 100 and np.sum(library > 0) == 300
    # with equal Hessians (the squared error) the two rules draw the same sample
    g2 = RNG.normal(size=100)
    assert np.array_equal(goss_weights(g2, 0.2, 0.1, 3), goss_weights(g2, 0.2, 0.1, 3, hessians=np.ones(100)))


def test_goss_hessian_rule_matches_lightgbm():
    lightgbm = pytest.importorskip("lightgbm")
    g, h, group = _log_loss_groups()
    m = lightgbm.LGBMRegressor(objective=lambda y_true, y_pred: (g, h), n_estimators=2, learning_rate=1.0,
                               num_leaves=3, data_sample_strategy="goss", top_rate=0.2, other_rate=0.1,
                               min_child_samples=1, min_child_weight=0, n_jobs=1, verbose=-1,
                               random_state=0, deterministic=True).fit(group[:, None].astype(float), np.ones(1000))
    tree = m.booster_.trees_to_dataframe().query("tree_index == 1 and split_feature.isna()")
    leaf_of = m.booster_.predict(np.array([[0.0], [1.0], [2.0]]), pred_leaf=True)[:, 1]
    leaves = tree.set_index(tree["node_index"].str.split("-L").str[1].astype(int))
    per_row = [leaves.loc[k, "weight"] / leaves.loc[k, "count"] / h[group == j][0] for j, k in enumerate(leaf_of)]
    expected = [goss_weights(g, 0.2, 0.1, 0, hessians=h)[group == j].max() for j in range(3)]
    assert per_row == pytest.approx(expected, rel=1e-5) and expected == pytest.approx([8.0, 1.0, 8.0])
    assert leaves.loc[leaf_of[1], "count"] == 200


@pytest.mark.parametrize("kw, exc, name", [(dict(top_rate=0.0), ValueError, "top_rate"),
                                           (dict(other_rate=1.0), ValueError, "other_rate"),
                                           (dict(top_rate="x"), TypeError, "top_rate"),
                                           (dict(top_rate=0.7, other_rate=0.5), ValueError, "top_rate"),
                                           (dict(random_state="s"), TypeError, "random_state"),
                                           (dict(gradients=np.array([np.inf, 1.0])), ValueError, "gradients"),
                                           (dict(hessians=np.ones(3)), ValueError, "hessians"),
                                           (dict(hessians=np.full(50, np.nan)), ValueError, "hessians")])
def test_goss_bad_input(kw, exc, name):
    args = dict(gradients=RNG.normal(size=50), top_rate=0.2, other_rate=0.1, random_state=0) | kw
    with pytest.raises(exc, match=name):
        goss_weights(**args)


# --- exclusive feature bundling ----------------------------------------------------------------------

def _one_hot(n=300, variables=3, levels=5):
    codes = RNG.integers(0, levels, size=(n, variables))
    X = np.zeros((n, variables * levels), dtype=int)
    X[np.arange(n)[:, None], codes + levels * np.arange(variables)] = 1
    return X


def test_bundles_of_one_hot_are_the_variables():
    X = _one_hot()
    bundles = greedy_bundles(X)
    assert sorted(sorted(b) for b in bundles) == [list(range(5 * v, 5 * v + 5)) for v in range(3)]
    C = conflict_counts(X)
    assert all(C[j, k] == 0 for b in bundles for j in b for k in b if j != k)


def test_merge_and_unbundle_recover_histograms():
    X = _one_hot()
    g, h = RNG.normal(size=300), RNG.uniform(size=300)
    for bundle in greedy_bundles(X):
        nb = [2] * len(bundle)
        assert np.array_equal(bundle_offsets(nb), np.arange(len(bundle)))
        merged = merge_bundle(X, bundle, nb)
        G_b, H_b = bin_histogram(merged, g, h, len(bundle) + 1)
        for pos, f in enumerate(bundle):
            G_f, H_f = bin_histogram(X[:, f], g, h, 2)
            assert np.allclose(unbundle_histogram(G_b, g.sum(), pos, nb), G_f)
            assert np.allclose(unbundle_histogram(H_b, h.sum(), pos, nb), H_f)


def test_merge_with_multibin_offsets():
    X = np.array([[0, 2], [1, 0], [3, 0], [0, 1], [0, 0]])
    assert np.array_equal(merge_bundle(X, [0, 1], [4, 3]), [5, 1, 3, 4, 0])


def test_conflicts_allowed_budget():
    X = np.array([[1, 1, 0], [0, 1, 0], [1, 0, 1], [0, 0, 1]])
    assert len(greedy_bundles(X, 0)) == 2
    assert len(greedy_bundles(X, 5)) == 1


def test_lightgbm_bundling_is_lossless():
    lightgbm = pytest.importorskip("lightgbm")
    X = _one_hot(400, 3, 6)
    y = X @ RNG.normal(size=18) + 0.1 * RNG.normal(size=400)
    preds = [lightgbm.LGBMRegressor(n_estimators=10, num_leaves=6, min_child_samples=5, n_jobs=1, verbose=-1,
                                    enable_bundle=e, deterministic=True).fit(X, y).predict(X) for e in (True, False)]
    assert np.allclose(*preds, atol=1e-12)


def test_bundling_bad_input():
    with pytest.raises(TypeError, match="X_binned"):
        conflict_counts(np.ones((3, 2)))
    with pytest.raises(ValueError, match="X_binned"):
        conflict_counts(-np.ones((3, 2), dtype=int))
    with pytest.raises(ValueError, match="max_conflicts"):
        greedy_bundles(np.ones((3, 2), dtype=int), -1)
    with pytest.raises(ValueError, match="n_bins"):
        bundle_offsets([1, 2])
    with pytest.raises(ValueError, match="features"):
        merge_bundle(np.ones((3, 2), dtype=int), [5], [2])
    with pytest.raises(ValueError, match="n_bins"):
        bin_histogram(np.array([0, 3]), np.ones(2), np.ones(2), 2)
    with pytest.raises(ValueError, match="position"):
        unbundle_histogram(np.ones(3), 1.0, 4, [2, 2])


# --- softmax objective -------------------------------------------------------------------------------

def test_softmax_gradient_and_hessian_by_finite_differences():
    F, y = RNG.normal(size=(20, 3)), RNG.integers(0, 3, 20)
    eye, step = np.eye(3), 1e-5
    fd = np.column_stack([(softmax_loss(F + step * eye[k], y) - softmax_loss(F - step * eye[k], y)) / (2 * step)
                          for k in range(3)])
    assert np.allclose(softmax_gradient(F, y), fd, atol=1e-8)
    fd2 = np.column_stack([(softmax_loss(F + 1e-3 * eye[k], y) - 2 * softmax_loss(F, y)
                            + softmax_loss(F - 1e-3 * eye[k], y)) / 1e-6 for k in range(3)])
    assert np.allclose(softmax_hessian(F, y), fd2, atol=1e-6)
    assert np.allclose(softmax_hessian(F, y, 2.0), 2 * fd2, atol=2e-6)
    assert np.allclose(softmax(F).sum(axis=1), 1) and np.allclose(softmax(F + 1000), softmax(F))


def test_softmax_first_round_leaves_match_xgboost():
    xgboost = pytest.importorskip("xgboost")
    X, y = RNG.normal(size=(60, 2)), RNG.integers(0, 3, 60)
    m = xgboost.XGBClassifier(objective="multi:softprob", n_estimators=1, max_depth=2, learning_rate=1.0,
                              reg_lambda=0.5, min_child_weight=0, tree_method="exact", nthread=1,
                              base_score=0.5).fit(X, y)
    b = m.get_booster()
    leaf = b.predict(xgboost.DMatrix(X), pred_leaf=True).astype(int)
    F0 = np.zeros((60, 3))

    def leaves(node):
        return ({node["nodeid"]: node["leaf"]} if "leaf" in node
                else {k: v for c in node["children"] for k, v in leaves(c).items()})

    for k, tree in enumerate(b.get_dump(dump_format="json")):
        lib = leaves(json.loads(tree))
        ours = leaf_values(softmax_gradient(F0, y)[:, k], softmax_hessian(F0, y, 2.0)[:, k], leaf[:, k], 0.5)
        assert all(abs(lib[j] - ours[j]) < 1e-6 for j in lib)


@pytest.mark.parametrize("call, exc, name", [
    (lambda: softmax_gradient(np.ones((3, 1)), [0, 0, 0]), ValueError, "F"),
    (lambda: softmax_gradient(np.ones((3, 2)), [0, 2, 0]), ValueError, "y"),
    (lambda: softmax_gradient(np.ones((3, 2)), ["a", "b", "c"]), TypeError, "y"),
    (lambda: softmax_loss(np.array([["a", "b"]]), [0]), TypeError, "F"),
    (lambda: softmax_hessian(np.ones((3, 2)), [0, 1, 0], factor=0.0), ValueError, "factor"),
    (lambda: leaf_values(np.ones(3), np.ones(3), np.zeros(3)), TypeError, "leaf"),
    (lambda: leaf_values(np.ones(3), np.ones(3), np.zeros(3, int), -1.0), ValueError, "reg_lambda")])
def test_softmax_bad_input(call, exc, name):
    with pytest.raises(exc, match=name):
        call()


# --- target statistics --------------------------------------------------------------------------------

def test_ordered_ts_matches_loop_and_ignores_own_target():
    c, y, perm = RNG.integers(0, 6, 80), RNG.integers(0, 2, 80).astype(float), RNG.permutation(80)
    ts = ordered_target_statistic(c, y, perm, 0.4, 2.0)
    loop = np.empty(80)
    for k, i in enumerate(perm):
        before = perm[:k][c[perm[:k]] == c[i]]
        loop[i] = (y[before].sum() + 0.8) / (before.size + 2.0)
    assert np.allclose(ts, loop, atol=1e-14)
    for i in range(0, 80, 7):
        y2 = y.copy()
        y2[i] = 1 - y2[i]
        assert ordered_target_statistic(c, y2, perm, 0.4, 2.0)[i] == pytest.approx(ts[i], abs=1e-14)


def test_greedy_and_apply_ts():
    c, y = np.array(["a", "b", "a", "c"]), np.array([1.0, 0.0, 0.0, 1.0])
    assert np.allclose(greedy_target_statistic(c, y, 0.5, 1.0), [1.5 / 3, 0.5 / 2, 1.5 / 3, 1.5 / 2])
    assert np.allclose(apply_target_statistic(c, y, np.array(["a", "z", "c"]), 0.5, 1.0),
                       [1.5 / 3, 0.5, 1.5 / 2])


@pytest.mark.parametrize("kw, exc, name", [(dict(prior_weight=0.0), ValueError, "prior_weight"),
                                           (dict(prior="p"), TypeError, "prior"),
                                           (dict(y=np.ones(3)), ValueError, "y"),
                                           (dict(y=np.array(["a"] * 5)), TypeError, "y"),
                                           (dict(permutation=np.array([0, 0, 1, 2, 3])), ValueError, "permutation"),
                                           (dict(permutation=np.arange(5.0)), TypeError, "permutation")])
def test_ts_bad_input(kw, exc, name):
    args = dict(categories=np.arange(5) % 2, y=np.ones(5), permutation=np.arange(5), prior=0.5,
                prior_weight=1.0) | kw
    with pytest.raises(exc, match=name):
        ordered_target_statistic(**args)


# --- self-checks ---------------------------------------------------------------------------------------

def test_selfchecks_pass_the_reference(capsys):
    check_goss_weights(goss_weights)
    check_ordered_target_statistic(ordered_target_statistic)
    assert capsys.readouterr().out.count("\u2714") == 2


def _goss_no_factor(g, a, b, rng):
    w = goss_weights(g, a, b, rng)
    w[(w != 0) & (w != 1)] = 1.0
    return w


def _goss_inverted(g, a, b, rng):
    w = goss_weights(g, a, b, rng)
    sampled = (w != 0) & (w != 1)
    w[sampled] = 1 / w[sampled]
    return w


def _goss_by_sign(g, a, b, rng):
    return goss_weights(np.exp(np.asarray(g) * 50), a, b, rng)


def _goss_fixed(g, a, b, rng):
    return goss_weights(g, a, b, 0)


@pytest.mark.parametrize("wrong, message", [(_goss_no_factor, "the factor that makes the sample unbiased is missing"),
                                            (_goss_inverted, "inverted"),
                                            (_goss_by_sign, "largest g, not of largest |g|"),
                                            (_goss_fixed, "same sample")])
def test_goss_selfcheck_rejects_mistakes(wrong, message):
    with pytest.raises(AssertionError, match=message.replace("(", r"\(").replace(")", r"\)").replace("|", r"\|")):
        check_goss_weights(wrong)


def _ts_own(categories, y, permutation, prior, prior_weight):
    sums, counts, out = {}, {}, np.empty(len(y))
    for i in permutation:
        c = categories[i]
        sums[c], counts[c] = sums.get(c, 0.0) + y[i], counts.get(c, 0) + 1
        out[i] = (sums[c] + prior_weight * prior) / (counts[c] + prior_weight)
    return out


@pytest.mark.parametrize("wrong, message", [
    (_ts_own, "own target"),
    (lambda c, y, p, pr, a: greedy_target_statistic(c, y, pr, a), "greedy TS"),
    (lambda c, y, p, pr, a: ordered_target_statistic(c, y, np.asarray(p)[::-1], pr, a), "after it"),
    (lambda c, y, p, pr, a: ordered_target_statistic(c, y, p, 0.0, a), "prior")])
def test_ts_selfcheck_rejects_mistakes(wrong, message):
    with pytest.raises(AssertionError, match=message):
        check_ordered_target_statistic(wrong)


def test_selfcheck_bad_argument():
    with pytest.raises(TypeError, match="callable"):
        check_goss_weights(3)
    with pytest.raises(TypeError, match="random_state"):
        check_ordered_target_statistic(ordered_target_statistic, random_state="x")
