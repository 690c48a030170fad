r"""Node impurities of decision trees and the split scores built from them (chapter *Decision trees*).

A node ``t`` with (weighted) points ``D_t`` is split on the feature and threshold
that maximise the impurity decrease (equation ``eq-tree-impurity-decrease``)

.. math:: \Delta = \frac{W_t}{W}\Big(i(t) - \frac{W_L}{W_t}\, i(L) - \frac{W_R}{W_t}\, i(R)\Big).

Within a node only ``-(W_L i(L) + W_R i(R))`` varies (``_weighted_children``); for
the squared error it reduces to ``S_L^2 / W_L + S_R^2 / W_R`` (``_sse_proxy``,
equation ``eq-tree-sse-proxy``). The impurities are evaluated with the same
floating-point formulas as scikit-learn, so that both rank candidate splits identically.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["gini_impurity", "entropy_impurity", "squared_error_impurity"]


def _classes_first(counts: Any, axis: int) -> np.ndarray:
    """``counts`` as floats with the class axis first (no copy when it already is)."""
    c = np.asarray(counts, dtype=float)
    return c if axis in (0, -c.ndim) else np.moveaxis(c, axis, 0)


def gini_impurity(counts: Any, W: Any = None, axis: int = -1) -> np.ndarray:
    r"""Gini impurity of nodes with (weighted) class counts ``counts``.

    Parameters
    ----------
    counts : array of shape (..., K)
        Weighted number of points of each of the ``K`` classes in a node.
    W : array of shape (...), optional
        Total weight of the node; defaults to the sum of ``counts`` over the classes.
    axis : int, default=-1
        Axis of ``counts`` that runs over the classes.

    Returns
    -------
    ndarray of shape (...)
        :math:`i_G(t) = 1 - \sum_k p_k^2` with :math:`p_k = c_k / W`.

    Notes
    -----
    Equation ``eq-tree-gini``. Evaluated as ``1 - (sum_k c_k^2) / W^2`` with the
    sum accumulated class by class, exactly as scikit-learn does, so that both
    rank candidate splits identically.
    """
    c = _classes_first(counts, axis)
    W = c.sum(0) if W is None else np.asarray(W, dtype=float)
    sq = np.zeros(c.shape[1:])
    for c_k in c:
        sq = sq + c_k * c_k
    return 1.0 - sq / (W * W)  # eq-tree-gini


def entropy_impurity(counts: Any, W: Any = None, axis: int = -1) -> np.ndarray:
    r"""Entropy impurity (in bits) of nodes with (weighted) class counts ``counts``.

    Parameters
    ----------
    counts : array of shape (..., K)
        Weighted number of points of each class in a node.
    W : array of shape (...), optional
        Total weight of the node; defaults to the sum of ``counts`` over the classes.
    axis : int, default=-1
        Axis of ``counts`` that runs over the classes.

    Returns
    -------
    ndarray of shape (...)
        :math:`i_H(t) = -\sum_{k: p_k > 0} p_k \log_2 p_k`.

    Notes
    -----
    Equation ``eq-tree-entropy``; terms are accumulated class by class, as in
    scikit-learn.
    """
    c = _classes_first(counts, axis)
    W = c.sum(0) if W is None else np.asarray(W, dtype=float)
    H = np.zeros(c.shape[1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        for c_k in c:
            p = c_k / W
            H = H - np.where(c_k > 0.0, p * (np.log(p) / np.log(2.0)), 0.0)  # eq-tree-entropy
    return H


def squared_error_impurity(S: Any, Q: Any, W: Any) -> np.ndarray:
    r"""Weighted variance of the targets in a node from its sufficient statistics.

    Parameters
    ----------
    S, Q, W : arrays
        :math:`S = \sum w_i y_i`, :math:`Q = \sum w_i y_i^2` and :math:`W = \sum w_i`
        over the points of the node.

    Returns
    -------
    ndarray
        :math:`i(t) = Q/W - (S/W)^2`, the mean squared error of predicting the
        node mean (equation ``eq-tree-sse``).
    """
    S, Q, W = (np.asarray(a, dtype=float) for a in (S, Q, W))
    return Q / W - (S / W) ** 2  # eq-tree-sse


def _sse_proxy(SL, WL, SR, WR):
    """The squared-error split score S_L^2 / W_L + S_R^2 / W_R (to maximise)."""
    return SL * SL / WL + SR * SR / WR  # eq-tree-sse-proxy


def _weighted_children(impurity, CL, WL, CR, WR):
    """The split score -(W_R i(R) + W_L i(L)) (to maximise), in scikit-learn's order."""
    return -WR * impurity(CR, WR, axis=0) - WL * impurity(CL, WL, axis=0)  # eq-tree-impurity-decrease
