r"""The weighted quantile sketch of XGBoost, as pure functions of arrays.

The approximate split finder of XGBoost (Chen and Guestrin, 2016) considers only a
few candidate thresholds per feature. For a feature with values :math:`x_i` and
second derivatives (Hessians) :math:`h_i`, the *rank function*

.. math:: r(z) = \frac{\sum_{i:\, x_i < z} h_i}{\sum_i h_i}

is the share of the total Hessian below :math:`z`. The candidates
:math:`s_1 < \dots < s_l`, with :math:`s_1 = \min_i x_i` and :math:`s_l = \max_i x_i`,
must satisfy :math:`r(s_{j+1}) - r(s_j) < \varepsilon` (equation ``eq-modern-sketch``)
wherever a candidate can be inserted: between two consecutive *distinct* values
nothing can, so a single value heavier than :math:`\varepsilon` forces a larger gap.

- :func:`weighted_rank`: :math:`r(z)` for an array of points :math:`z`;
- :func:`weighted_quantile_candidates`: the greedy proposal, which keeps the largest
  value whose rank lies less than :math:`\varepsilon` above the last candidate;
- :func:`rank_gaps`: the gaps :math:`r(s_{j+1}) - r(s_j)` of any candidate set, and
  whether each could have been split (a distinct value lies strictly between).

With unit Hessians the sketch is the ordinary (unweighted) quantile sketch.
Every function validates its inputs and raises ``ValueError`` or ``TypeError``
naming the offending argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import (
    check_dtype,
    check_float,
    check_increasing,
    check_nonzero,
    check_reals,
    check_shape,
)

__all__ = ["weighted_rank", "weighted_quantile_candidates", "rank_gaps"]


def _weights(h: Any, n: int) -> np.ndarray:
    """Non-negative weights, one per value of x, not all zero."""
    h = check_reals(h, "h", 0.0, None, vector=True, message="be non-negative")
    check_shape(h, "h", (n,), described=f"({n},), one Hessian per value of x")
    return check_nonzero(h, "h")


def weighted_rank(x: Any, h: Any, z: Any) -> np.ndarray:
    r"""The rank function :math:`r(z) = \sum_{x_i < z} h_i / \sum_i h_i`, at each point of ``z``.

    Parameters
    ----------
    x : array-like of shape (n,)
        The feature's values.
    h : array-like of shape (n,)
        Their non-negative weights (Hessians), not all zero.
    z : array-like
        Points at which to evaluate the rank.

    Returns
    -------
    ndarray of the shape of ``z``, values in [0, 1).
    """
    x = check_reals(x, "x", vector=True)
    h = _weights(h, x.size)
    z_arr = check_dtype(z, "z", "biuf", "real numbers")
    order = np.argsort(x, kind="stable")
    xs, cum = x[order], np.concatenate([[0.0], np.cumsum(h[order])])
    return cum[np.searchsorted(xs, z_arr.astype(np.float64), side="left")] / cum[-1]


def weighted_quantile_candidates(x: Any, h: Any, eps: float) -> np.ndarray:
    r"""Candidate split points with consecutive rank gaps below ``eps`` (``eq-modern-sketch``).

    Greedy proposal: start from the smallest value; the next candidate is the
    largest distinct value whose rank exceeds the current candidate's by less
    than ``eps``, or, when even the next distinct value is ``eps`` or more above,
    that next value (no candidate can be inserted between them). The largest
    value is always the last candidate.

    Parameters
    ----------
    x : array-like of shape (n,)
    h : array-like of shape (n,)
        Non-negative weights; XGBoost uses the Hessians :math:`h_i`.
    eps : float in (0, 1]
        The sketch's accuracy; about ``1 / eps`` to ``2 / eps`` candidates result.

    Returns
    -------
    ndarray
        The candidates, increasing, from ``min(x)`` to ``max(x)``.
    """
    x = check_reals(x, "x", vector=True)
    h = _weights(h, x.size)
    eps = check_float(eps, "eps", low=0.0, high=1.0, low_open=True)
    values, inverse = np.unique(x, return_inverse=True)
    mass = np.bincount(inverse, weights=h)
    rank = np.concatenate([[0.0], np.cumsum(mass)[:-1]]) / mass.sum()   # r(v_j)
    chosen, c, m = [0], 0, values.size
    while c < m - 1:
        j = int(np.searchsorted(rank, rank[c] + eps, side="left")) - 1   # largest r < r_c + eps
        c = max(j, c + 1)
        chosen.append(c)
    return values[np.array(chosen)]


def rank_gaps(candidates: Any, x: Any, h: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""The gaps :math:`r(s_{j+1}) - r(s_j)` of a candidate set, and which of them are splittable.

    Parameters
    ----------
    candidates : array-like of shape (l,), increasing, l >= 2
    x, h : array-like of shape (n,)
        The values and weights defining :math:`r`.

    Returns
    -------
    gaps : ndarray of shape (l - 1,)
    splittable : ndarray of bool, shape (l - 1,)
        True where some value of ``x`` lies strictly between the two candidates, so
        that a further candidate could have been inserted.
    """
    s = check_increasing(check_reals(candidates, "candidates", ndim=1), "candidates", at_least=2)
    x = check_reals(x, "x", vector=True)
    r = weighted_rank(x, h, s)
    values = np.unique(x)
    inside = (np.searchsorted(values, s[1:], side="left")
              - np.searchsorted(values, s[:-1], side="right"))
    return np.diff(r), inside > 0
