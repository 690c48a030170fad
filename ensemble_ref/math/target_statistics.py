r"""CatBoost's target statistics for a categorical feature, as pure functions of arrays.

A *target statistic* (TS) replaces the category :math:`c` of row :math:`i` by a
smoothed mean of the targets of rows with the same category,

.. math::

   \hat x_i = \frac{\sum_{j \in D_i} \mathbb{1}[x_j = x_i]\, y_j + \kappa\mu}
                   {\sum_{j \in D_i} \mathbb{1}[x_j = x_i] + \kappa},

with a prior :math:`\mu` and prior weight :math:`\kappa > 0` (Prokhorenkova et al.,
2018, who write :math:`p` and :math:`a`; equation ``eq-modern-ts``). The choice of
the rows :math:`D_i` is everything:

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

from typing import Any

import numpy as np

from ..core.validation import check_attributes, check_float, check_permutation, check_reals, check_shape

__all__ = ["greedy_target_statistic", "ordered_target_statistic", "apply_target_statistic"]


def _data(categories: Any, y: Any, prior: float, prior_weight: float
          ) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The rows' categories and targets (1-D, one target per row), the prior mu and its weight kappa > 0."""
    check_attributes(categories, "categories", ("__len__",), "a 1-D array of categories")
    cats = check_shape(np.asarray(categories), "categories", (None,), at_least=1)
    target = check_shape(check_reals(y, "y"), "y", cats.shape,
                         described=f"({cats.size},), one target per category")
    prior = check_float(prior, "prior")
    return cats, target, prior, check_float(prior_weight, "prior_weight", low=0.0, low_open=True)


def greedy_target_statistic(categories: Any, y: Any, prior: float, prior_weight: float = 1.0
                            ) -> np.ndarray:
    r"""The greedy TS of every training row: :math:`D_i` = all rows, row :math:`i` included."""
    cats, y, p, a = _data(categories, y, prior, prior_weight)
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
        :math:`\mu`, e.g. the mean target.
    prior_weight : float > 0, default=1
        :math:`\kappa`.

    Returns
    -------
    ndarray of shape (n,), in the rows' original order.
    """
    cats, y, p, a = _data(categories, y, prior, prior_weight)
    perm = check_shape(check_permutation(permutation, "permutation", cats.size), "permutation", cats.shape)
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
    r"""The TS of new rows from all training rows; an unseen category gets the prior :math:`\mu`."""
    cats, y, p, a = _data(train_categories, train_y, prior, prior_weight)
    new = check_shape(np.asarray(categories), "categories", (None,))
    values, inv = np.unique(cats, return_inverse=True)
    sums, counts = np.bincount(inv, weights=y), np.bincount(inv)
    idx = np.searchsorted(values, new)
    idx_c = np.minimum(idx, values.size - 1)
    seen = values[idx_c] == new
    s = np.where(seen, sums[idx_c], 0.0)
    c = np.where(seen, counts[idx_c], 0.0)
    return (s + a * p) / (c + a)
