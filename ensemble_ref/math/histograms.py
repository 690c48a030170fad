r"""Gradient and Hessian histograms: the split finding of ``tree_method="hist"``, as pure functions.

The histogram method of the chapter *XGBoost* cuts each feature :math:`j` into bins
at fixed cut points :math:`c_{j,0} < c_{j,1} < \dots`; a value :math:`x` falls in bin
:math:`b` when :math:`c_{j,b-1} \le x < c_{j,b}`, so "bin :math:`\le b`" is the same as
":math:`x < c_{j,b}`". For a node with rows :math:`I`, gradients :math:`g_i` and Hessians
:math:`h_i`, the *histogram* of feature :math:`j` holds, for every bin :math:`b`,

.. math:: G_{jb} = \sum_{i \in I,\ \mathrm{bin}_j(x_i) = b} g_i, \qquad
          H_{jb} = \sum_{i \in I,\ \mathrm{bin}_j(x_i) = b} h_i ,

and every candidate split "bin :math:`\le b`" has the sums :math:`G_L = \sum_{b' \le b} G_{jb'}`,
:math:`H_L = \sum_{b' \le b} H_{jb'}` on its left and the rest on its right: the gain
``eq-xgb-gain`` of every candidate follows from :math:`2 \times d \times B` numbers per
node, whatever the number of rows.

Histograms are *additive over rows*: when the rows are split into shards
:math:`I = I_1 \cup \dots \cup I_K` (one per machine), the histogram of :math:`I` is the
sum of the shards' histograms. That is what makes the method data-parallel: each
machine builds the histograms of its own rows, the histograms are summed across
machines (an *all-reduce*), and the split is chosen on the sum.

- :func:`quantile_cuts`, :func:`bin_features`: the bins (the same cut points as
  ``ensemble_ref``'s ``XGBRegressor(tree_method="hist")``);
- :func:`gradient_histogram`: the histograms of one shard, for several nodes at once;
- :func:`sum_histograms`: the all-reduce;
- :func:`best_split`: the best candidate of a node's histogram, scored with
  :func:`~ensemble_ref.math.second_order.split_gain`;
- :func:`histogram_numbers`, :func:`row_numbers`: how many numbers a level of tree
  growth sends over the network, with histograms and with rows.

Every function validates its inputs and raises ``ValueError`` or ``TypeError``
naming the offending argument.
"""

from __future__ import annotations

from functools import reduce
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..core.validation import (
    check_dtype,
    check_float,
    check_increasing,
    check_int,
    check_integers,
    check_reals,
    check_same_shape,
    check_sequence,
    check_shape,
)
from .second_order import split_gain

__all__ = [
    "quantile_cuts",
    "bin_features",
    "gradient_histogram",
    "sum_histograms",
    "HistogramSplit",
    "best_split",
    "histogram_numbers",
    "row_numbers",
]


# --- bins ---------------------------------------------------------------------------------


def quantile_cuts(X: Any, max_bin: int = 256) -> list[np.ndarray]:
    """Cut points of each feature: at most ``max_bin`` bins.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        The training inputs (finite).
    max_bin : int, default=256
        Largest number of bins per feature (>= 2).

    Returns
    -------
    list of ndarray
        ``cuts[j]``, increasing, of length at most ``max_bin - 1``. A feature with
        more than ``max_bin`` distinct values is cut at its quantiles of levels
        ``1/max_bin, ..., (max_bin - 1)/max_bin`` (duplicates removed), which are the
        cut points of ``ensemble_ref.XGBRegressor(tree_method="hist")``; a feature with
        fewer gets one bin per distinct value, cut at the midpoints (the same partitions
        as that estimator, whose thresholds are midpoints within each node).
    """
    X = check_reals(X, "X", ndim=2)
    max_bin = check_int(max_bin, "max_bin", low=2)
    cuts = []
    for j in range(X.shape[1]):
        u = np.unique(X[:, j])
        if u.size > max_bin:
            cuts.append(np.unique(np.quantile(X[:, j], np.arange(1, max_bin) / max_bin)))
        else:
            cuts.append(u[:-1] + (u[1:] - u[:-1]) / 2.0)
    return cuts


def bin_features(X: Any, cuts: Sequence[np.ndarray]) -> np.ndarray:
    """Bin index of every value: ``codes[i, j] = b`` when ``cuts[j][b-1] <= X[i, j] < cuts[j][b]``.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
    cuts : list of n_features increasing arrays (from :func:`quantile_cuts`)

    Returns
    -------
    ndarray of int, shape (n_samples, n_features)
        Codes in ``0, ..., len(cuts[j])``; ``codes[i, j] <= b`` exactly when
        ``X[i, j] < cuts[j][b]``.
    """
    X = check_reals(X, "X", ndim=2)
    cuts = check_sequence(cuts, "cuts", "cut arrays (one per feature of X)", length=X.shape[1])
    codes = np.empty(X.shape, dtype=np.intp)
    for j, c in enumerate(cuts):
        c = check_increasing(check_reals(c, f"cuts[{j}]", ndim=1), f"cuts[{j}]", at_least=0)
        codes[:, j] = np.searchsorted(c, X[:, j], side="right")
    return codes


# --- histograms ---------------------------------------------------------------------------


def gradient_histogram(codes: Any, g: Any, h: Any, n_bins: int, nodes: Any = None,
                       n_nodes: int = 1) -> np.ndarray:
    r"""Gradient and Hessian histograms of some rows, for every node and feature.

    Parameters
    ----------
    codes : int array of shape (n_samples, n_features)
        Bin indices in ``0, ..., n_bins - 1`` (from :func:`bin_features`).
    g, h : arrays of shape (n_samples,)
        Gradients and Hessians of the loss at the current scores.
    n_bins : int
        Number of bins per feature (the histogram's width).
    nodes : int array of shape (n_samples,), optional
        Node of each row, in ``0, ..., n_nodes - 1``, or ``-1`` for a row that is in
        none of the nodes (it is left out). Default: every row in node 0.
    n_nodes : int, default=1
        Number of nodes.

    Returns
    -------
    ndarray of shape (n_nodes, n_features, n_bins, 2)
        ``hist[k, j, b] = (G, H)``: the sums of ``g`` and ``h`` over the rows of node
        ``k`` whose feature ``j`` falls in bin ``b``. The rows are added in their order.
    """
    n_bins = check_int(n_bins, "n_bins", low=1)
    n_nodes = check_int(n_nodes, "n_nodes", low=1)
    codes = check_integers(codes, "codes", 0, n_bins - 1, bool_ok=True,
                           message=f"lie in 0, ..., n_bins - 1 = {n_bins - 1}")
    n, d = check_shape(codes, "codes", (None, None)).shape
    g, h = check_reals(g, "g", ndim=1), check_reals(h, "h", ndim=1)
    check_same_shape(g=g, h=h)
    check_shape(g, "g", (n,), described=f"({n},), one value per row of codes")
    if nodes is None:
        nodes = np.zeros(n, dtype=np.intp)
    else:
        nodes = check_integers(nodes, "nodes", -1, n_nodes - 1, bool_ok=True,
                               message=f"lie in -1, ..., n_nodes - 1 = {n_nodes - 1}")
        check_shape(nodes, "nodes", (n,), described=f"({n},), one value per row of codes")
    keep = nodes >= 0
    # One flat bin index per (row, feature): ((node * d) + feature) * n_bins + code.
    flat = ((nodes[keep, None] * d + np.arange(d)) * n_bins + codes[keep]).ravel()
    size = n_nodes * d * n_bins
    G = _bin_sums(flat, np.repeat(g[keep], d), size)
    H = _bin_sums(flat, np.repeat(h[keep], d), size)
    return np.stack([G, H], axis=-1).reshape(n_nodes, d, n_bins, 2)


def _bin_sums(flat: np.ndarray, w: np.ndarray | None, size: int) -> np.ndarray:
    """The sums ``G_jb`` (or ``H_jb``) of equation ``eq-scale-histogram`` over a flat index.

    ``flat[t]`` is the bin (of the flattened ``(node, feature, bin)`` histogram) that
    entry ``t`` falls in and ``w[t]`` its gradient (or Hessian); each bin receives the
    sum of its entries, added in their order. ``w=None`` counts the entries (integers).
    The unvalidated core of :func:`gradient_histogram`, also that of the ``hist`` tree
    of ``ensemble_ref.XGBRegressor``.
    """
    return np.bincount(flat, weights=w, minlength=size)  # eq-scale-histogram


def _sibling_histogram(parent: np.ndarray, child: np.ndarray,
                       out: np.ndarray | None = None) -> np.ndarray:
    """The histogram of a node's other child: its parent's minus this child's (into ``out``).

    The parent's rows are the disjoint union of its children's, so by the additivity
    of ``eq-scale-histogram`` over rows the parent's histogram is the sum of the
    children's; only the smaller child's is built.
    """
    return np.subtract(parent, child, out=out)


def sum_histograms(histograms: Sequence[Any]) -> np.ndarray:
    """The all-reduce: the histogram of all the rows, from the histograms of the shards.

    Parameters
    ----------
    histograms : list of arrays of the same shape
        One histogram per shard (from :func:`gradient_histogram`).

    Returns
    -------
    ndarray
        Their sum, added in the order given. Because every bin of a histogram is a
        sum over rows, the sum over shards is the histogram of the union of the
        shards' rows (exactly for integer-valued gradients and Hessians; to
        floating-point rounding otherwise, since the rows are added in another order).
    """
    histograms = check_sequence(histograms, "histograms", "histograms (one per shard)")
    arrays = [check_dtype(a, f"histograms[{k}]", "biuf", "real numbers") for k, a in enumerate(histograms)]
    check_same_shape(**{f"histograms[{k}]": a for k, a in enumerate(arrays)})
    return reduce(np.add, [a.astype(np.float64) for a in arrays])


# --- split finding ------------------------------------------------------------------------


class HistogramSplit(NamedTuple):
    """The best candidate of a node: send bins ``<= bin`` of ``feature`` left."""

    feature: int
    bin: int
    gain: float  # the book's Gain (eq-xgb-gain), with tau subtracted
    G_L: float
    H_L: float
    G_R: float
    H_R: float


def best_split(hist: Any, reg_lambda: float = 1.0, tau: float = 0.0,
               min_child_weight: float = 1.0) -> HistogramSplit | None:
    r"""The candidate split of largest gain in one node's histogram.

    Parameters
    ----------
    hist : array of shape (n_features, n_bins, 2)
        The node's histogram (``hist[j, b] = (G, H)``).
    reg_lambda : float, default=1.0
        :math:`\lambda \ge 0`.
    tau : float, default=0.0
        The penalty :math:`\tau \ge 0` per leaf (subtracted from every gain; it does not
        change the choice).
    min_child_weight : float, default=1.0
        Smallest Hessian sum allowed in a child.

    Returns
    -------
    HistogramSplit or None
        The candidate "bin ``<= b`` of feature ``j`` goes left" of largest
        :func:`~ensemble_ref.math.second_order.split_gain` among those whose two children have Hessian
        sums ``>= min_child_weight`` and ``> 0`` (so neither is empty when every
        :math:`h_i > 0`); ties go to the lowest feature, then the lowest bin, whose
        threshold ``cuts[j][b]`` is the lowest of the equivalent ones. ``None`` when
        no candidate qualifies.
    """
    hist = check_shape(check_reals(hist, "hist"), "hist", (None, None, 2), described="(n_features, n_bins, 2)")
    lam = check_float(reg_lambda, "reg_lambda", low=0.0)
    tau = check_float(tau, "tau", low=0.0)
    mcw = check_float(min_child_weight, "min_child_weight", low=0.0)
    d, n_bins, _ = hist.shape
    if n_bins < 2:
        return None
    P = np.cumsum(hist, axis=1)[:, :-1]         # left sums of "bins <= b", b = 0..n_bins-2
    G, H = hist[0, :, 0].sum(), hist[0, :, 1].sum()  # the node's totals (from feature 0)
    GL, HL = P[..., 0], P[..., 1]
    GR, HR = G - GL, H - HL
    ok = (HL >= mcw) & (HR >= mcw) & (HL > 0) & (HR > 0)
    if not ok.any():
        return None
    gains = np.where(ok, split_gain(np.where(ok, GL, 0.0), np.where(ok, HL, 1.0),
                                    np.where(ok, GR, 0.0), np.where(ok, HR, 1.0),
                                    lam, tau), -np.inf)
    j, b = np.unravel_index(int(np.argmax(gains)), gains.shape)  # first maximum: row-major
    return HistogramSplit(int(j), int(b), float(gains[j, b]), float(GL[j, b]), float(HL[j, b]),
                          float(GR[j, b]), float(HR[j, b]))


# --- communication ------------------------------------------------------------------------


def histogram_numbers(n_features: Any, n_bins: Any, n_nodes: Any = 1) -> np.ndarray | float:
    """Numbers each machine contributes to the all-reduce of one level: ``2 d B`` per node.

    Parameters
    ----------
    n_features, n_bins, n_nodes : int or array of int
        ``d``, ``B`` and the number of nodes of the level being split.

    Returns
    -------
    float or ndarray
        ``n_nodes * n_features * n_bins * 2`` (a gradient and a Hessian sum per bin):
        independent of the number of rows.
    """
    d = check_reals(n_features, "n_features", 1.0, None, message="be >= 1")
    B = check_reals(n_bins, "n_bins", 1.0, None, message="be >= 1")
    m = check_reals(n_nodes, "n_nodes", 1.0, None, message="be >= 1")
    out = m * d * B * 2.0
    return float(out) if out.ndim == 0 else out


def row_numbers(n_rows: Any, n_features: Any) -> np.ndarray | float:
    """Numbers sent to gather the rows on one machine instead: ``n (d + 2)``.

    Each row carries its ``d`` features (bin codes) and its gradient and Hessian.

    Parameters
    ----------
    n_rows, n_features : int or array of int
        ``n`` (the rows that are not already on the machine) and ``d``.
    """
    n = check_reals(n_rows, "n_rows", 0.0, None, message="be >= 0")
    d = check_reals(n_features, "n_features", 1.0, None, message="be >= 1")
    out = n * (d + 2.0)
    return float(out) if out.ndim == 0 else out
