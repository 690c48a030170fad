r"""CatBoost's target statistics for a categorical feature, as pure functions of arrays.

A *target statistic* (TS) replaces the category :math:`c` of row :math:`i` by a
smoothed mean of the targets of rows with the same category,

.. math:: \hat x_i = \frac{\sum_{j \in D_i} [x_j = x_i]\, y_j + a\, p}{\sum_{j \in D_i} [x_j = x_i] + a},

with a prior :math:`p` and prior weight :math:`a > 0` (Prokhorenkova et al., 2018;
equation ``eq-modern-ts``). The choice of the rows :math:`D_i` is everything:

- :func:`greedy_target_statistic`: :math:`D_i` = all training rows, row :math:`i`
  included; its own target leaks into its feature;
- :func:`ordered_target_statistic`: :math:`D_i` = the rows *before* :math:`i` in a
  random permutation :math:`\sigma` (CatBoost's ordered TS); no row sees its own target;
- :func:`apply_target_statistic`: the encoding of new rows from all training rows
  (what both use at test time).

Categories may be any values ``numpy.unique`` can sort (integers, strings).
Every function validates its inputs and raises ``ValueError`` or ``TypeError``
naming the offending argument.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["greedy_target_statistic", "ordered_target_statistic", "apply_target_statistic"]


def _check(categories: Any, y: Any, prior: float, prior_weight: float
           ) -> tuple[np.ndarray, np.ndarray, float, float]:
    if categories is None or y is None:
        raise TypeError("categories and y must be 1-D arrays, got None.")
    cats = np.asarray(categories)
    if cats.ndim != 1 or cats.size == 0:
        raise ValueError(f"categories must be a non-empty 1-D array, got shape {cats.shape}.")
    target = np.asarray(y)
    if target.dtype.kind not in "biuf":
        raise TypeError(f"y must contain real numbers, got dtype {target.dtype}.")
    target = target.astype(np.float64)
    if target.shape != cats.shape:
        raise ValueError(f"y must have one target per category ({cats.size}), got shape {target.shape}.")
    if not np.all(np.isfinite(target)):
        raise ValueError("y must contain only finite values.")
    for name, v in (("prior", prior), ("prior_weight", prior_weight)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name} must be a real number, got {type(v).__name__}.")
        if not np.isfinite(v):
            raise ValueError(f"{name} must be finite, got {v}.")
    if prior_weight <= 0:
        raise ValueError(f"prior_weight must be > 0, got {prior_weight}.")
    return cats, target, float(prior), float(prior_weight)


def greedy_target_statistic(categories: Any, y: Any, prior: float, prior_weight: float = 1.0
                            ) -> np.ndarray:
    r"""The greedy TS of every training row: :math:`D_i` = all rows, row :math:`i` included."""
    cats, y, p, a = _check(categories, y, prior, prior_weight)
    _, inv = np.unique(cats, return_inverse=True)
    sums, counts = np.bincount(inv, weights=y), np.bincount(inv)
    return (sums[inv] + a * p) / (counts[inv] + a)


def ordered_target_statistic(categories: Any, y: Any, permutation: Any, prior: float,
                             prior_weight: float = 1.0) -> np.ndarray:
    r"""The ordered TS: row :math:`\sigma_k` is encoded from rows :math:`\sigma_1, \dots, \sigma_{k-1}`.

    Parameters
    ----------
    categories : array-like of shape (n,)
    y : array-like of shape (n,)
    permutation : array-like of int, shape (n,)
        The order :math:`\sigma`: ``permutation[k]`` is the row that comes k-th.
    prior : float
        :math:`p`, e.g. the mean target.
    prior_weight : float > 0, default=1
        :math:`a`.

    Returns
    -------
    ndarray of shape (n,), in the rows' original order.
    """
    cats, y, p, a = _check(categories, y, prior, prior_weight)
    perm = np.asarray(permutation)
    if perm.dtype.kind not in "iu":
        raise TypeError(f"permutation must contain integer row indices, got dtype {perm.dtype}.")
    if perm.shape != cats.shape or not np.array_equal(np.sort(perm), np.arange(cats.size)):
        raise ValueError(f"permutation must be a permutation of 0, ..., {cats.size - 1}.")
    _, inv = np.unique(cats, return_inverse=True)
    position = np.empty(cats.size, dtype=np.int64)
    position[perm] = np.arange(cats.size)
    order = np.lexsort((position, inv))          # by category, then by position in sigma
    c_sorted, y_sorted = inv[order], y[order]
    start = np.r_[True, c_sorted[1:] != c_sorted[:-1]]
    group_start = np.maximum.accumulate(np.where(start, np.arange(cats.size), 0))
    csum = np.cumsum(y_sorted)
    before_sum = csum - y_sorted - np.where(group_start > 0, csum[group_start - 1], 0.0)
    before_count = np.arange(cats.size) - group_start
    out = np.empty(cats.size)
    out[order] = (before_sum + a * p) / (before_count + a)
    return out


def apply_target_statistic(train_categories: Any, train_y: Any, categories: Any, prior: float,
                           prior_weight: float = 1.0) -> np.ndarray:
    r"""The TS of new rows from all training rows; an unseen category gets the prior :math:`p`."""
    cats, y, p, a = _check(train_categories, train_y, prior, prior_weight)
    new = np.asarray(categories)
    if new.ndim != 1:
        raise ValueError(f"categories must be 1-D, got shape {new.shape}.")
    values, inv = np.unique(cats, return_inverse=True)
    sums, counts = np.bincount(inv, weights=y), np.bincount(inv)
    idx = np.searchsorted(values, new)
    idx_c = np.minimum(idx, values.size - 1)
    seen = values[idx_c] == new
    s = np.where(seen, sums[idx_c], 0.0)
    c = np.where(seen, counts[idx_c], 0.0)
    return (s + a * p) / (c + a)
