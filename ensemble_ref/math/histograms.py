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


# --- validation -------------------------------------------------------------------------


def _real_array(a: Any, name: str, ndim: int) -> np.ndarray:
    if a is None or isinstance(a, (str, bytes)):
        raise TypeError(f"{name} must be an array of real numbers, got {type(a).__name__}.")
    arr = np.asarray(a)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain real numbers, got dtype {arr.dtype}.")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}.")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    return arr


def _int_array(a: Any, name: str, ndim: int) -> np.ndarray:
    if a is None or isinstance(a, (str, bytes)):
        raise TypeError(f"{name} must be an array of integers, got {type(a).__name__}.")
    arr = np.asarray(a)
    if arr.dtype.kind not in "biu":
        raise TypeError(f"{name} must contain integers, got dtype {arr.dtype}.")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}.")
    return arr.astype(np.intp)


def _positive_int(value: Any, name: str, low: int = 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}.")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}.")
    return int(value)


def _non_negative(value: Any, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    if not (np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be finite and >= 0, got {value}.")
    return float(value)


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
    X = _real_array(X, "X", 2)
    max_bin = _positive_int(max_bin, "max_bin", low=2)
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
    X = _real_array(X, "X", 2)
    if not isinstance(cuts, (list, tuple)):
        raise TypeError(f"cuts must be a list of arrays, got {type(cuts).__name__}.")
    if len(cuts) != X.shape[1]:
        raise ValueError(f"cuts must have one array per feature ({X.shape[1]}), got {len(cuts)}.")
    codes = np.empty(X.shape, dtype=np.intp)
    for j, c in enumerate(cuts):
        c = _real_array(c, f"cuts[{j}]", 1)
        if np.any(np.diff(c) <= 0):
            raise ValueError(f"cuts[{j}] must be strictly increasing.")
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
    codes = _int_array(codes, "codes", 2)
    n, d = codes.shape
    g = _real_array(g, "g", 1)
    h = _real_array(h, "h", 1)
    if g.size != n or h.size != n:
        raise ValueError(f"g and h must have one value per row of codes ({n}), "
                         f"got {g.size} and {h.size}.")
    n_bins = _positive_int(n_bins, "n_bins")
    n_nodes = _positive_int(n_nodes, "n_nodes")
    if codes.size and (codes.min() < 0 or codes.max() >= n_bins):
        raise ValueError(f"codes must lie in 0, ..., n_bins - 1 = {n_bins - 1}, "
                         f"got values in [{codes.min()}, {codes.max()}].")
    if nodes is None:
        nodes = np.zeros(n, dtype=np.intp)
    else:
        nodes = _int_array(nodes, "nodes", 1)
        if nodes.size != n:
            raise ValueError(f"nodes must have one value per row of codes ({n}), got {nodes.size}.")
        if nodes.size and (nodes.min() < -1 or nodes.max() >= n_nodes):
            raise ValueError(f"nodes must lie in -1, ..., n_nodes - 1 = {n_nodes - 1}.")
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
    if isinstance(histograms, np.ndarray) or not isinstance(histograms, (list, tuple)):
        raise TypeError(f"histograms must be a list of arrays, got {type(histograms).__name__}.")
    if len(histograms) == 0:
        raise ValueError("histograms must hold at least one histogram, got an empty list.")
    arrays = [np.asarray(a) for a in histograms]
    for k, a in enumerate(arrays):
        if a.dtype.kind not in "biuf":
            raise TypeError(f"histograms[{k}] must contain real numbers, got dtype {a.dtype}.")
        if a.shape != arrays[0].shape:
            raise ValueError(f"histograms must all have the same shape; histograms[{k}] has "
                             f"{a.shape}, histograms[0] has {arrays[0].shape}.")
    return reduce(np.add, [a.astype(np.float64) for a in arrays])


# --- split finding ------------------------------------------------------------------------


class HistogramSplit(NamedTuple):
    """The best candidate of a node: send bins ``<= bin`` of ``feature`` left."""

    feature: int
    bin: int
    gain: float  # the book's Gain (eq-xgb-gain), with gamma subtracted
    G_L: float
    H_L: float
    G_R: float
    H_R: float


def best_split(hist: Any, reg_lambda: float = 1.0, gamma: float = 0.0,
               min_child_weight: float = 1.0) -> HistogramSplit | None:
    r"""The candidate split of largest gain in one node's histogram.

    Parameters
    ----------
    hist : array of shape (n_features, n_bins, 2)
        The node's histogram (``hist[j, b] = (G, H)``).
    reg_lambda : float, default=1.0
        :math:`\lambda \ge 0`.
    gamma : float, default=0.0
        :math:`\gamma \ge 0` (subtracted from every gain; it does not change the choice).
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
    hist = _real_array(hist, "hist", 3)
    if hist.shape[2] != 2:
        raise ValueError(f"hist must have shape (n_features, n_bins, 2), got {hist.shape}.")
    lam = _non_negative(reg_lambda, "reg_lambda")
    gamma = _non_negative(gamma, "gamma")
    mcw = _non_negative(min_child_weight, "min_child_weight")
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
                                    lam, gamma), -np.inf)
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
    d = np.asarray(n_features, dtype=float)
    B = np.asarray(n_bins, dtype=float)
    m = np.asarray(n_nodes, dtype=float)
    for name, v in (("n_features", d), ("n_bins", B), ("n_nodes", m)):
        if np.any(v < 1):
            raise ValueError(f"{name} must be >= 1, got {v}.")
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
    n = np.asarray(n_rows, dtype=float)
    d = np.asarray(n_features, dtype=float)
    if np.any(n < 0):
        raise ValueError(f"n_rows must be >= 0, got {n}.")
    if np.any(d < 1):
        raise ValueError(f"n_features must be >= 1, got {d}.")
    out = n * (d + 2.0)
    return float(out) if out.ndim == 0 else out
