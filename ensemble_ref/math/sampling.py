r"""LightGBM's two data reductions, as pure functions of arrays: GOSS and feature bundling.

**Gradient-based one-side sampling** (GOSS, Ke et al., 2017) keeps the
:math:`\lceil aN \rceil`-ish rows of largest :math:`|g_i|` (LightGBM's implementation ranks
by :math:`|g_i h_i|` instead: pass the Hessians), draws a simple random sample of
:math:`bN` of the other rows, and multiplies the gradients and Hessians of the
sampled rows by :math:`(1 - a)/b` (equation ``eq-modern-goss``). With
``top_k = max(1, floor(aN))`` and ``other_k = floor(bN)`` rows, as in LightGBM, the factor
is ``(N - top_k) / other_k``, which equals :math:`(1 - a)/b` when :math:`aN` and
:math:`bN` are integers and makes every weighted sum :math:`\sum_i w_i g_i` an
unbiased estimate of the full sum.

**Exclusive feature bundling** (EFB) merges features that are never non-zero on
the same row into one feature, shifting each one's bins by an *offset* so that
their histograms occupy disjoint ranges of the bundle's bins.

- :func:`goss_counts`, :func:`goss_weights`: the GOSS sample as a weight per row
  (0 = not used);
- :func:`conflict_counts`, :func:`greedy_bundles`: which features can share a bundle;
- :func:`bundle_offsets`, :func:`merge_bundle`: the merged feature (bins with offsets);
- :func:`bin_histogram`, :func:`unbundle_histogram`: the gradient histograms of a
  feature, and each original feature's histogram read back from its bundle's.

Features here are already *binned*: non-negative integers, with bin 0 the zero
(default) value. Every function validates its inputs and raises ``ValueError`` or
``TypeError`` naming the offending argument.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..core.validation import (
    check_float,
    check_int,
    check_integers,
    check_random_state,
    check_reals,
    check_same_shape,
    check_shape,
)

__all__ = ["goss_counts", "goss_weights", "conflict_counts", "greedy_bundles", "bundle_offsets",
           "merge_bundle", "bin_histogram", "unbundle_histogram"]


def _binned(X: Any) -> np.ndarray:
    """Binned features: a non-empty 2-D array of non-negative integer bins (0 = the zero value)."""
    X = check_integers(X, "X_binned", low=0, bool_ok=True, message="contain non-negative bins (0 = the zero value)")
    return check_shape(X, "X_binned", (None, None), at_least=1, described="(n, d), non-empty")


# --- GOSS -----------------------------------------------------------------------------------


def goss_counts(n: int, top_rate: float, other_rate: float) -> tuple[int, int, float]:
    r"""``(top_k, other_k, factor)`` of GOSS on ``n`` rows, as LightGBM computes them.

    ``top_k = max(1, floor(n a))``, ``other_k = floor(n b)`` and
    ``factor = (n - top_k) / other_k``, which is :math:`(1 - a)/b` when :math:`na` and
    :math:`nb` are integers.
    """
    n = check_int(n, "n")
    a, b = (check_float(rate, name, low=0.0, high=1.0, low_open=True, high_open=True)
            for rate, name in ((top_rate, "top_rate"), (other_rate, "other_rate")))
    check_reals(a + b, "top_rate + other_rate", None, 1.0, message="be <= 1")
    top_k = max(1, int(np.floor(n * a + 1e-9)))
    other_k = int(np.floor(n * b + 1e-9))
    too_few = f"n = {n} rows are too few for top_rate={a}, other_rate={b}"
    check_integers(other_k, "other_k = floor(n * other_rate)", low=1, message=f"be at least 1 ({too_few})")
    check_integers(top_k + other_k, "top_k + other_k", high=n, message=f"be at most n ({too_few})")
    return top_k, other_k, (n - top_k) / other_k


def goss_weights(gradients: Any, top_rate: float, other_rate: float,
                 random_state: Any = None, hessians: Any = None) -> np.ndarray:
    r"""One GOSS sample, as a weight per row (``eq-modern-goss``).

    Parameters
    ----------
    gradients : array-like of shape (n,)
        The rows' gradients :math:`g_i`.
    top_rate, other_rate : float in (0, 1)
        :math:`a` and :math:`b`.
    random_state : int, numpy.random.Generator or None
        Draws the sample of the small-gradient rows.
    hessians : array-like of shape (n,) or None, default=None
        ``None`` ranks the rows by :math:`|g_i|`, the rule of the GOSS paper (Ke et
        al., 2017). Given the rows' Hessians :math:`h_i`, the rows are ranked by
        :math:`|g_i h_i|`, the rule of LightGBM's implementation (``goss.hpp``; for
        several classes LightGBM sums :math:`|g_{ik} h_{ik}|` over the classes). The two
        agree when every :math:`h_i` is the same (the squared error); under the log
        loss a confidently wrong row has :math:`|g_i| \approx 1` but
        :math:`|g_i h_i| \approx 0`.

    Returns
    -------
    ndarray of shape (n,)
        1 for the ``top_k`` rows of largest rank key (ties to the lower index),
        ``factor`` for the ``other_k`` rows sampled without replacement from the rest,
        0 for the rows not used.
    """
    g = check_reals(gradients, "gradients", vector=True)
    key = np.abs(g)
    if hessians is not None:
        h = check_reals(hessians, "hessians", vector=True)
        check_shape(h, "hessians", g.shape, described=f"({g.size},), one value per gradient")
        key = np.abs(g * h)  # LightGBM ranks by |g h|
    top_k, other_k, factor = goss_counts(g.size, top_rate, other_rate)
    rng = check_random_state(random_state)
    order = np.argsort(-key, kind="stable")
    rest = order[top_k:]
    w = np.zeros(g.size)
    w[order[:top_k]] = 1.0
    w[rng.choice(rest, size=other_k, replace=False)] = factor
    return w


# --- exclusive feature bundling -------------------------------------------------------------


def conflict_counts(X_binned: Any) -> np.ndarray:
    """``C[j, k]`` = number of rows on which features j and k are both non-zero (d x d)."""
    nz = (_binned(X_binned) > 0).astype(np.int64)
    return nz.T @ nz


def greedy_bundles(X_binned: Any, max_conflicts: int = 0) -> list[list[int]]:
    """The LightGBM paper's greedy bundling: features by decreasing number of non-zeros, each
    put in the first bundle it conflicts with on at most ``max_conflicts`` rows in total.

    The library's own search (``FindGroups`` in LightGBM's ``dataset.cpp``) is a randomised
    variant: it also tries the features' own order and keeps the one with fewer bundles, and
    offers a feature only the last bundle and at most 99 others drawn at random.

    Returns a list of bundles, each a list of feature indices.
    """
    X = _binned(X_binned)
    max_conflicts = check_int(max_conflicts, "max_conflicts", low=0)
    C = conflict_counts(X)
    order = np.argsort(-np.diag(C), kind="stable")
    bundles: list[list[int]] = []
    used: list[int] = []
    for j in order:
        for b, members in enumerate(bundles):
            extra = int(C[j, members].sum())
            if used[b] + extra <= max_conflicts:
                members.append(int(j))
                used[b] += extra
                break
        else:
            bundles.append([int(j)])
            used.append(0)
    return bundles


def bundle_offsets(n_bins: Sequence[int]) -> np.ndarray:
    """Offsets of the features of a bundle: feature j's non-zero bins 1..n_bins[j]-1 become
    ``offset[j] + 1 .. offset[j] + n_bins[j] - 1`` with ``offset[j] = sum_{k<j} (n_bins[k] - 1)``."""
    nb = check_integers(n_bins, "n_bins", low=2, message="be >= 2 for every feature (bin 0 and a non-zero bin)")
    check_shape(nb, "n_bins", (None,), at_least=1)
    return np.concatenate([[0], np.cumsum(nb - 1)[:-1]]).astype(np.int64)


def merge_bundle(X_binned: Any, features: Sequence[int], n_bins: Sequence[int]) -> np.ndarray:
    """The bundle of ``features`` as one binned feature: 0 where all are zero, otherwise
    ``offset[j] + bin`` of the non-zero feature j (the last one, on a conflicting row)."""
    X = _binned(X_binned)
    features = check_integers(features, "features", 0, X.shape[1] - 1,
                              message="hold column indices of X_binned")
    features = check_shape(features, "features", (None,), at_least=1).tolist()
    offsets = bundle_offsets(n_bins)
    nb = check_shape(np.asarray(n_bins), "n_bins", (len(features),),
                     described=f"({len(features)},), one bin count per feature")
    check_integers(X[:, features], "X_binned", high=nb - 1, message="hold bins below n_bins in "
                   "every feature of the bundle")
    out = np.zeros(X.shape[0], dtype=np.int64)
    for f, off in zip(features, offsets):
        col = X[:, f]
        out = np.where(col > 0, off + col, out)
    return out


def bin_histogram(bins: Any, g: Any, h: Any, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The gradient histogram of one binned feature: per-bin sums ``(G_b, H_b)``, b < n_bins."""
    n_bins = check_int(n_bins, "n_bins", low=1)
    b = check_integers(bins, "bins", 0, n_bins - 1, message=f"lie in [0, n_bins - 1 = {n_bins - 1}] "
                       "(n_bins must exceed every bin)")
    check_shape(b, "bins", (None,))
    g, h = check_reals(g, "g", vector=True), check_reals(h, "h", vector=True)
    check_same_shape(bins=b, g=g, h=h)
    return (np.bincount(b, weights=g, minlength=n_bins), np.bincount(b, weights=h, minlength=n_bins))


def unbundle_histogram(hist_bundle: Any, total: float, position: int, n_bins: Sequence[int]
                       ) -> np.ndarray:
    """Feature ``position`` of a bundle: its histogram read from the bundle's histogram.

    Its non-zero bins are the bundle's bins ``offset + 1 .. offset + n_bins - 1``; its
    zero bin is ``total`` (the node's sum) minus their sum.
    """
    hb = check_reals(hist_bundle, "hist_bundle", vector=True)
    offsets = bundle_offsets(n_bins)
    position = check_int(position, "position", low=0, high=len(offsets) - 1)
    nb = int(np.asarray(n_bins)[position])
    need = int(offsets[-1] + np.asarray(n_bins)[-1])
    check_shape(hb, "hist_bundle", (None,), at_least=need, described=f"(>= {need},): the bins of the "
                "bundle's features")
    nonzero = hb[offsets[position] + 1: offsets[position] + nb]
    return np.concatenate([[float(total) - nonzero.sum()], nonzero])


# --- row and column subsampling of the second-order booster -------------------------------


def _subsample_count(n, rate):
    """Rows (or features) a tree sees: ``round(rate n)`` rows, at least one (``eq-modern-subsample``)."""
    return n if rate == 1.0 else max(1, int(round(rate * n)))  # eq-modern-subsample


def _column_count(d, rate):
    """Features a tree (or node) may split on: ``max(1, floor(rate d))``, xgboost's count."""
    return max(1, int(rate * d))


def _subsample_rows(rng, n, rate):
    """The sorted rows of one tree: a simple random sample of ``_subsample_count(n, rate)``
    of the ``n`` rows without replacement; all rows, and no draw, when that is ``n``."""
    k = _subsample_count(n, rate)
    return np.arange(n) if k == n else np.sort(rng.choice(n, k, replace=False))


def _subsample_columns(rng, d, rate):
    """The sorted features of one tree: ``_column_count(d, rate)`` of the ``d`` drawn without
    replacement; all of them, and no draw, when that is ``d``."""
    k = _column_count(d, rate)
    return np.arange(d) if k == d else np.sort(rng.choice(d, k, replace=False))


def subsample_rows(n: int, rate: float, random_state: Any = None) -> np.ndarray:
    r"""The rows one tree of the booster sees: ``round(rate * n)`` of ``range(n)``, sorted.

    Parameters
    ----------
    n : int >= 1
        Number of rows.
    rate : float in (0, 1]
        ``subsample``: the fraction of the rows each tree uses (equation
        ``eq-modern-subsample``), drawn uniformly without replacement.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    ndarray of int
        The indices of the sampled rows, increasing; ``arange(n)`` when ``rate = 1``.
    """
    n = check_int(n, "n", low=1)
    rate = check_float(rate, "rate", low=0.0, high=1.0, low_open=True)
    return _subsample_rows(check_random_state(random_state), n, rate)


__all__ += ["subsample_rows"]
