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

import numbers
from typing import Any, Sequence

import numpy as np

from ..core.validation import check_reals

__all__ = ["goss_counts", "goss_weights", "conflict_counts", "greedy_bundles", "bundle_offsets",
           "merge_bundle", "bin_histogram", "unbundle_histogram"]


def _rate(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    if not (0 < float(value) < 1):
        raise ValueError(f"{name} must be in (0, 1), got {value}.")
    return float(value)


def _vector(a: Any, name: str) -> np.ndarray:
    if a is None:
        raise TypeError(f"{name} must be a 1-D array of real numbers, got None.")
    return check_reals(a, name, vector=True)  # the package's one validation of real vectors


def _binned(X: Any, name: str = "X_binned") -> np.ndarray:
    if X is None:
        raise TypeError(f"{name} must be a 2-D array of non-negative integer bins, got None.")
    arr = np.asarray(X)
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{name} must contain integer bins, got dtype {arr.dtype}.")
    arr = arr.astype(np.int64)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {arr.shape}.")
    if np.any(arr < 0):
        raise ValueError(f"{name} must contain non-negative bins (0 = the zero value).")
    return arr


# --- GOSS -----------------------------------------------------------------------------------


def goss_counts(n: int, top_rate: float, other_rate: float) -> tuple[int, int, float]:
    r"""``(top_k, other_k, factor)`` of GOSS on ``n`` rows, as LightGBM computes them.

    ``top_k = max(1, floor(n a))``, ``other_k = floor(n b)`` and
    ``factor = (n - top_k) / other_k``, which is :math:`(1 - a)/b` when :math:`na` and
    :math:`nb` are integers.
    """
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)):
        raise TypeError(f"n must be an int, got {type(n).__name__}.")
    a, b = _rate(top_rate, "top_rate"), _rate(other_rate, "other_rate")
    if a + b > 1:
        raise ValueError(f"top_rate + other_rate must be <= 1, got {a} + {b}.")
    top_k = max(1, int(np.floor(n * a + 1e-9)))
    other_k = int(np.floor(n * b + 1e-9))
    if other_k < 1 or top_k + other_k > n:
        raise ValueError(f"n = {n} rows are too few for top_rate={a}, other_rate={b}.")
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
    g = _vector(gradients, "gradients")
    key = np.abs(g)
    if hessians is not None:
        h = _vector(hessians, "hessians")
        if h.shape != g.shape:
            raise ValueError(f"hessians must have one value per gradient ({g.size}), got shape {h.shape}.")
        key = np.abs(g * h)  # LightGBM ranks by |g h|
    top_k, other_k, factor = goss_counts(g.size, top_rate, other_rate)
    if isinstance(random_state, np.random.Generator):
        rng = random_state
    elif random_state is None or (isinstance(random_state, (numbers.Integral, np.integer))
                                  and not isinstance(random_state, bool)):
        rng = np.random.default_rng(random_state)
    else:
        raise TypeError("random_state must be None, an int or a numpy.random.Generator, got "
                        f"{type(random_state).__name__}.")
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
    """LightGBM's greedy bundling: features by decreasing number of non-zeros, each put in
    the first bundle it conflicts with on at most ``max_conflicts`` rows in total.

    Returns a list of bundles, each a list of feature indices.
    """
    X = _binned(X_binned)
    if isinstance(max_conflicts, bool) or not isinstance(max_conflicts, (numbers.Integral, np.integer)):
        raise TypeError(f"max_conflicts must be an int, got {type(max_conflicts).__name__}.")
    if max_conflicts < 0:
        raise ValueError(f"max_conflicts must be >= 0, got {max_conflicts}.")
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
    nb = np.asarray(n_bins)
    if nb.dtype.kind not in "iu" or nb.ndim != 1 or nb.size == 0:
        raise TypeError("n_bins must be a non-empty 1-D sequence of integers.")
    if np.any(nb < 2):
        raise ValueError("n_bins must be >= 2 for every feature (bin 0 and a non-zero bin).")
    return np.concatenate([[0], np.cumsum(nb - 1)[:-1]]).astype(np.int64)


def merge_bundle(X_binned: Any, features: Sequence[int], n_bins: Sequence[int]) -> np.ndarray:
    """The bundle of ``features`` as one binned feature: 0 where all are zero, otherwise
    ``offset[j] + bin`` of the non-zero feature j (the last one, on a conflicting row)."""
    X = _binned(X_binned)
    features = list(features)
    if not features or any(not (0 <= f < X.shape[1]) for f in features):
        raise ValueError(f"features must be a non-empty list of column indices of X_binned, got {features}.")
    nb = np.asarray(n_bins)
    if nb.shape != (len(features),):
        raise ValueError(f"n_bins must give one bin count per feature ({len(features)}), got {nb.shape}.")
    offsets = bundle_offsets(nb)
    if np.any(X[:, features] >= nb):
        raise ValueError("X_binned has a bin >= n_bins for some feature of the bundle.")
    out = np.zeros(X.shape[0], dtype=np.int64)
    for f, off in zip(features, offsets):
        col = X[:, f]
        out = np.where(col > 0, off + col, out)
    return out


def bin_histogram(bins: Any, g: Any, h: Any, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The gradient histogram of one binned feature: per-bin sums ``(G_b, H_b)``, b < n_bins."""
    b = np.asarray(bins)
    if b.dtype.kind not in "iu" or b.ndim != 1:
        raise TypeError("bins must be a 1-D array of integer bins.")
    g, h = _vector(g, "g"), _vector(h, "h")
    if g.shape != b.shape or h.shape != b.shape:
        raise ValueError("g and h must have one value per entry of bins.")
    if isinstance(n_bins, bool) or not isinstance(n_bins, (numbers.Integral, np.integer)):
        raise TypeError(f"n_bins must be an int, got {type(n_bins).__name__}.")
    if n_bins < 1 or b.min() < 0 or b.max() >= n_bins:
        raise ValueError(f"n_bins must exceed every bin, got n_bins={n_bins}, max bin {b.max()}.")
    return (np.bincount(b, weights=g, minlength=n_bins), np.bincount(b, weights=h, minlength=n_bins))


def unbundle_histogram(hist_bundle: Any, total: float, position: int, n_bins: Sequence[int]
                       ) -> np.ndarray:
    """Feature ``position`` of a bundle: its histogram read from the bundle's histogram.

    Its non-zero bins are the bundle's bins ``offset + 1 .. offset + n_bins - 1``; its
    zero bin is ``total`` (the node's sum) minus their sum.
    """
    hb = _vector(hist_bundle, "hist_bundle")
    offsets = bundle_offsets(n_bins)
    if not (0 <= position < len(offsets)):
        raise ValueError(f"position must index a feature of the bundle, got {position}.")
    nb = int(np.asarray(n_bins)[position])
    if hb.size < offsets[-1] + np.asarray(n_bins)[-1]:
        raise ValueError("hist_bundle has fewer bins than the bundle's features need.")
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
    if isinstance(n, bool) or not isinstance(n, (numbers.Integral, np.integer)) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}.")
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 < float(rate) <= 1:
        raise ValueError(f"rate must be a real number in (0, 1], got {rate!r}.")
    if isinstance(random_state, np.random.Generator):
        rng = random_state
    elif random_state is None or (isinstance(random_state, (numbers.Integral, np.integer))
                                  and not isinstance(random_state, bool)):
        rng = np.random.default_rng(random_state)
    else:
        raise TypeError("random_state must be None, an int or a numpy.random.Generator, got "
                        f"{type(random_state).__name__}.")
    return _subsample_rows(rng, int(n), float(rate))


__all__ += ["subsample_rows"]
