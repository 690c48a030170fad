"""Histogram split finding (ensemble_ref.math.histograms) and the data-parallel tree builder.

The Dask test starts a two-worker cluster on the loopback interface and is skipped
when dask.distributed is not installed.
"""

import numpy as np
import pytest

from ensemble_ref import XGBRegressor, split_gain
from ensemble_ref.ensembles.distributed import build_histogram_tree, dask_map, local_map
from ensemble_ref.ensembles.xgboost_style import XGBClassifier
from ensemble_ref.math.histograms import (
    best_split,
    bin_features,
    gradient_histogram,
    histogram_numbers,
    quantile_cuts,
    row_numbers,
    sum_histograms,
)
from ensemble_ref.trees.binning import quantile_bins

TREE_ARRAYS = ("children_left", "children_right", "feature", "bin", "threshold", "G", "H",
               "weight", "value", "gain", "depth", "allreduce_numbers")


def _data(n=600, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    return X, y


def _shards(codes, g, h, k):
    parts = np.array_split(np.arange(len(g)), k)
    return [(codes[p], g[p], h[p]) for p in parts]


# --- bins -----------------------------------------------------------------------------------


def test_cuts_are_the_quantiles_and_codes_follow_them():
    X, _ = _data()
    cuts = quantile_cuts(X, max_bin=16)
    assert all(len(c) <= 15 and np.all(np.diff(c) > 0) for c in cuts)
    np.testing.assert_array_equal(cuts[0], np.unique(np.quantile(X[:, 0], np.arange(1, 16) / 16)))
    codes = bin_features(X, cuts)
    for j, c in enumerate(cuts):
        for b in range(len(c)):
            np.testing.assert_array_equal(codes[:, j] <= b, X[:, j] < c[b])


def test_few_distinct_values_get_one_bin_each():
    x = np.array([[0.0], [1.0], [1.0], [3.0]])
    cuts = quantile_cuts(x, max_bin=8)
    np.testing.assert_array_equal(cuts[0], [0.5, 2.0])
    np.testing.assert_array_equal(bin_features(x, cuts)[:, 0], [0, 1, 1, 2])


# --- histograms -----------------------------------------------------------------------------


def test_histogram_bins_are_sums_over_rows():
    X, y = _data(n=200)
    codes = bin_features(X, quantile_cuts(X, 8))
    g, h = -y, np.ones_like(y)
    hist = gradient_histogram(codes, g, h, 8)
    assert hist.shape == (1, 4, 8, 2)
    for j in range(4):
        for b in range(8):
            rows = codes[:, j] == b
            assert hist[0, j, b, 0] == pytest.approx(g[rows].sum(), abs=1e-12)
            assert hist[0, j, b, 1] == rows.sum()


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_sum_of_shard_histograms_is_the_whole_histogram_exactly_for_integers(k):
    rng = np.random.default_rng(k)
    X, _ = _data(n=500, seed=k)
    codes = bin_features(X, quantile_cuts(X, 16))
    g = rng.integers(-50, 50, size=500).astype(float)  # integer gradients: sums are exact
    h = np.ones(500)
    nodes = rng.integers(-1, 3, size=500)
    whole = gradient_histogram(codes, g, h, 16, nodes=nodes, n_nodes=3)
    parts = [gradient_histogram(codes[p], g[p], h[p], 16, nodes=nodes[p], n_nodes=3)
             for p in np.array_split(np.arange(500), k)]
    np.testing.assert_array_equal(sum_histograms(parts), whole)
    if k > 1:  # the average of the shards is not the histogram
        assert not np.allclose(np.mean(parts, axis=0), whole)


def test_sum_of_shard_histograms_to_rounding_for_reals():
    X, y = _data(n=1000)
    codes = bin_features(X, quantile_cuts(X, 32))
    g, h = y - y.mean() + 0.1, np.full(1000, 0.7)
    whole = gradient_histogram(codes, g, h, 32)
    parts = [gradient_histogram(*s, 32) for s in _shards(codes, g, h, 4)]
    tol = 2 * 1000 * np.finfo(float).eps * np.abs(g).sum()
    np.testing.assert_allclose(sum_histograms(parts), whole, rtol=0, atol=tol)


def test_rows_outside_every_node_are_left_out():
    codes = np.array([[0], [1], [1]])
    hist = gradient_histogram(codes, [1.0, 2.0, 4.0], [1.0, 1.0, 1.0], 2, nodes=[0, -1, 0])
    np.testing.assert_array_equal(hist[0, 0], [[1.0, 1.0], [4.0, 1.0]])


# --- best split -----------------------------------------------------------------------------


def _brute_force(codes, g, h, n_bins, lam, tau, mcw):
    best = None
    for j in range(codes.shape[1]):
        for b in range(n_bins - 1):
            left = codes[:, j] <= b
            GL, HL, GR, HR = g[left].sum(), h[left].sum(), g[~left].sum(), h[~left].sum()
            if HL < mcw or HR < mcw or HL <= 0 or HR <= 0:
                continue
            gain = split_gain(GL, HL, GR, HR, lam, tau)
            if best is None or gain > best[2] + 1e-12:
                best = (j, b, gain)
    return best


@pytest.mark.parametrize("lam, tau, mcw", [(1.0, 0.0, 1.0), (0.0, 0.5, 5.0), (3.0, 0.0, 20.0)])
def test_best_split_equals_exhaustive_search_on_binned_data(lam, tau, mcw):
    X, y = _data(n=300, seed=3)
    codes = bin_features(X, quantile_cuts(X, 12))
    g, h = y.mean() - y, np.random.default_rng(1).uniform(0.5, 1.5, size=300)
    split = best_split(gradient_histogram(codes, g, h, 12)[0], lam, tau, mcw)
    j, b, gain = _brute_force(codes, g, h, 12, lam, tau, mcw)
    assert (split.feature, split.bin) == (j, b)
    assert split.gain == pytest.approx(gain, rel=1e-10)
    assert split.G_L + split.G_R == pytest.approx(g.sum(), abs=1e-10)


def test_best_split_none_when_nothing_qualifies():
    hist = np.zeros((2, 4, 2))
    hist[:, 1] = [3.0, 1.0]  # every row in bin 1: no candidate has two non-empty children
    assert best_split(hist) is None
    assert best_split(np.zeros((1, 1, 2))) is None


# --- the tree -------------------------------------------------------------------------------


@pytest.mark.parametrize("max_depth, lam, tau", [(1, 1.0, 0.0), (3, 1.0, 0.0), (4, 0.0, 5.0)])
def test_tree_from_shards_equals_ensemble_ref_hist_tree(max_depth, lam, tau):
    X, y = _data(n=800, seed=5)
    ref = XGBRegressor(n_estimators=1, max_depth=max_depth, tree_method="hist", max_bin=32,
                       learning_rate=0.3, reg_lambda=lam, tau=tau).fit(X, y).trees_[0]
    cuts = quantile_cuts(X, 32)
    codes = bin_features(X, cuts)
    g, h = np.mean(y) - y, np.ones_like(y)
    tree = build_histogram_tree(_shards(codes, g, h, 3), cuts, max_depth=max_depth,
                                reg_lambda=lam, tau=tau, learning_rate=0.3)
    np.testing.assert_array_equal(tree.children_left, ref.children_left)
    np.testing.assert_array_equal(tree.feature[~tree.is_leaf], ref.feature[~ref.is_leaf])
    np.testing.assert_array_equal(tree.threshold, ref.threshold)
    np.testing.assert_allclose(tree.value, ref.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(tree.predict(X), ref.predict(X), rtol=0, atol=1e-12)
    one = build_histogram_tree([(codes, g, h)], cuts, max_depth=max_depth, reg_lambda=lam,
                               tau=tau, learning_rate=0.3)
    np.testing.assert_array_equal(one.threshold, tree.threshold)


def test_allreduce_size_is_2dB_per_node_built():
    """Workers send the histograms of the root, then of the smaller child of every split:
    2 d B numbers per node (counts and gradient sums) when every Hessian is 1, 3 d B else."""
    X, y = _data(n=400)
    cuts = quantile_cuts(X, 16)
    codes = bin_features(X, cuts)
    tree = build_histogram_tree(_shards(codes, y.mean() - y, np.ones(400), 2), cuts, max_depth=3)
    built = np.r_[1, np.bincount(tree.depth)[1:3] // 2]  # one child of every split
    assert built.tolist() == [1, 1, 2]
    assert tree.allreduce_numbers == list(histogram_numbers(4, 16, built).astype(int))
    weighted = build_histogram_tree(_shards(codes, y.mean() - y, np.full(400, 0.5), 2), cuts,
                                    max_depth=3)
    built = np.r_[1, np.bincount(weighted.depth)[1:3] // 2]
    assert weighted.allreduce_numbers == list((1.5 * histogram_numbers(4, 16, built)).astype(int))
    assert row_numbers(1000, 4) == 6000.0


# --- the same tree as the booster's, bit for bit ----------------------------------------------


@pytest.mark.parametrize("max_depth, lam, tau, mcw", [(2, 1.0, 0.0, 1.0), (6, 0.0, 0.3, 0.0),
                                                         (5, 2.0, 0.0, 30.0)])
def test_one_shard_grows_the_boosters_hist_tree_bit_for_bit(max_depth, lam, tau, mcw):
    """One shard in this process runs the booster's grower on the booster's bins: the
    same numbers, added in the same order."""
    X, y = _data(n=3000, d=5, seed=11)
    params = dict(max_depth=max_depth, reg_lambda=lam, tau=tau, min_child_weight=mcw)
    ref = XGBRegressor(n_estimators=1, tree_method="hist", max_bin=64, learning_rate=0.3,
                       **params).fit(X, y)
    cuts, codes = quantile_bins(X, 64)
    g = ref.base_margin_ - y  # the booster's gradients at its base score
    tree = build_histogram_tree([(codes, g, np.ones_like(y))], cuts, learning_rate=0.3, **params)
    t = ref.trees_[0]
    for name in ("children_left", "children_right", "feature", "threshold", "G", "H", "weight",
                 "value", "gain", "depth"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(t, name), err_msg=name)
    assert tree.bin[~tree.is_leaf].tolist() == t.code[~t.is_leaf].tolist()
    np.testing.assert_array_equal(tree.apply_codes(codes), t.apply(X))


def test_shards_with_real_hessians_grow_the_classifiers_tree():
    """Logistic gradients and Hessians: the same splits as the booster's first tree, the
    weights to the rounding of sums added in another order."""
    X, y = _data(n=2000, d=4, seed=12)
    label = (y > np.median(y)).astype(float)
    ref = XGBClassifier(n_estimators=1, tree_method="hist", max_bin=32, max_depth=4).fit(X, label)
    p = 1 / (1 + np.exp(-ref.base_margin_))
    g, h = np.full_like(label, p) - label, np.full_like(label, p * (1 - p))
    cuts, codes = quantile_bins(X, 32)
    tree = build_histogram_tree(_shards(codes, g, h, 3), cuts, max_depth=4, learning_rate=0.3)
    t = ref.trees_[0]
    np.testing.assert_array_equal(tree.children_left, t.children_left)
    np.testing.assert_array_equal(tree.threshold, t.threshold)
    np.testing.assert_allclose(tree.value, t.value, rtol=1e-12, atol=1e-15)


def test_quantile_bins_are_quantile_cuts_and_bin_features():
    X, _ = _data(n=700, d=3, seed=13)
    X[:, 2] = np.round(X[:, 2] * 4)  # few distinct values: one bin each
    cuts, codes = quantile_bins(X, 32)
    for c, ref in zip(cuts, quantile_cuts(X, 32)):
        np.testing.assert_array_equal(c, ref)
    np.testing.assert_array_equal(codes, bin_features(X, cuts))
    assert codes.dtype == np.uint8 and codes.T.flags.c_contiguous


def test_a_worker_that_forgets_replays_the_splits():
    """A worker keeps its rows between the levels of a tree; one that does not (here: a fresh
    copy of every shard at every request) replays the splits and sends the same histograms."""
    X, y = _data(n=900, seed=14)
    cuts = quantile_cuts(X, 16)
    shards = _shards(bin_features(X, cuts), np.mean(y) - y, np.ones_like(y), 3)

    def forgetful(function, shards, *args):
        return [function((codes.copy(), g, h), *args) for codes, g, h in shards]

    kept = build_histogram_tree(shards, cuts, max_depth=4)
    again = build_histogram_tree(shards, cuts, max_depth=4)  # a new tree on the same shards
    replayed = build_histogram_tree(shards, cuts, max_depth=4, map_shards=forgetful)
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(again, name), getattr(kept, name))
        np.testing.assert_array_equal(getattr(replayed, name), getattr(kept, name))


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("call, exc, name", [
    (lambda: quantile_cuts([[1.0], [np.nan]]), ValueError, "X"),
    (lambda: quantile_cuts([[1.0]], max_bin=1), ValueError, "max_bin"),
    (lambda: quantile_cuts([[1.0]], max_bin=2.5), TypeError, "max_bin"),
    (lambda: bin_features([[1.0]], [np.array([2.0, 1.0])]), ValueError, "cuts[0]"),
    (lambda: bin_features([[1.0]], np.array([1.0])), TypeError, "cuts"),
    (lambda: gradient_histogram([[0], [1]], [1.0], [1.0, 1.0], 2), ValueError, "g and h"),
    (lambda: gradient_histogram([[0], [2]], [1.0, 1.0], [1.0, 1.0], 2), ValueError, "codes"),
    (lambda: gradient_histogram([[0.5]], [1.0], [1.0], 2), TypeError, "codes"),
    (lambda: gradient_histogram([[0]], ["a"], [1.0], 2), TypeError, "g"),
    (lambda: gradient_histogram([[0]], [1.0], [1.0], 2, nodes=[2], n_nodes=2), ValueError, "nodes"),
    (lambda: sum_histograms([]), ValueError, "histograms"),
    (lambda: sum_histograms(np.zeros((2, 3))), TypeError, "histograms"),
    (lambda: sum_histograms([np.zeros(3), np.zeros(4)]), ValueError, "histograms"),
    (lambda: best_split(np.zeros((2, 3))), ValueError, "hist"),
    (lambda: best_split(np.zeros((2, 3, 2)), reg_lambda=-1.0), ValueError, "reg_lambda"),
    (lambda: best_split(np.zeros((2, 3, 2)), tau="0"), TypeError, "tau"),
    (lambda: histogram_numbers(0, 256), ValueError, "n_features"),
    (lambda: row_numbers(-1, 3), ValueError, "n_rows"),
])
def test_bad_input_raises_naming_the_parameter(call, exc, name):
    with pytest.raises(exc, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()


# --- with Dask ------------------------------------------------------------------------------


class _RecordingClient:
    """A stand-in for a Dask client: shards held by known workers, every submit recorded."""

    def __init__(self, holders: dict):
        self.holders, self.submitted = holders, []

    def who_has(self, futures):
        return {f.key: self.holders[f.key] for f in futures}

    def submit(self, function, shard, *args, **kwargs):
        self.submitted.append(kwargs)
        return function(shard.value, *args)

    def gather(self, results):
        return results


def test_dask_map_pins_every_call_to_the_worker_that_holds_its_shard():
    class Future:
        def __init__(self, key, value):
            self.key, self.value = key, value

    client = _RecordingClient({"a": ("tcp://w1",), "b": ("tcp://w2",)})
    out = dask_map(client)(lambda shard, k: shard * k, [Future("a", 2), Future("b", 3)], 10)
    assert out == [20, 30]
    assert [kw["workers"] for kw in client.submitted] == [["tcp://w1"], ["tcp://w2"]]
    assert all(kw["allow_other_workers"] is False and kw["pure"] is False for kw in client.submitted)


def test_tree_built_on_dask_workers_equals_the_single_process_tree():
    distributed = pytest.importorskip("dask.distributed")
    X, y = _data(n=600, seed=7)
    cuts = quantile_cuts(X, 16)
    codes = bin_features(X, cuts)
    shards = _shards(codes, np.mean(y) - y, np.ones_like(y), 2)
    local = build_histogram_tree(shards, cuts, max_depth=3, map_shards=local_map)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        futures = client.scatter(shards)
        remote = build_histogram_tree(futures, cuts, max_depth=3, map_shards=dask_map(client))
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(remote, name), getattr(local, name))
