r"""The multi-class softmax objective of gradient boosting, as pure functions of arrays.

With :math:`K` classes, boosting keeps one score per class, :math:`F_{ik}`, and the
probabilities :math:`p_{ik} = e^{F_{ik}} / \sum_{c} e^{F_{ic}}`. The loss of row
:math:`i` with label :math:`y_i` is the cross-entropy
:math:`l_i = -\log p_{i y_i}`; with the one-hot :math:`y_{ik}`, its derivatives in
the score of class :math:`k` are (equation ``eq-modern-softmax``)

.. math:: g_{ik} = p_{ik} - y_{ik}, \qquad h_{ik} = \partial^2 l_i / \partial F_{ik}^2 = p_{ik}(1 - p_{ik}).

XGBoost's ``multi:softprob`` fits one tree per class per round with these
gradients and **twice** these Hessians, :math:`2 p_{ik}(1 - p_{ik})`; the argument
``factor`` reproduces it.

- :func:`softmax`: the probabilities (stable for large scores);
- :func:`softmax_loss`: the cross-entropy of each row;
- :func:`softmax_gradient`, :func:`softmax_hessian`: :math:`g_{ik}` and the diagonal :math:`h_{ik}`;
- :func:`leaf_values`: the penalised Newton leaf values :math:`-G_j / (H_j + \lambda)`
  of a tree whose leaves are given.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from scipy.special import logsumexp

__all__ = ["softmax", "softmax_loss", "softmax_gradient", "softmax_hessian", "leaf_values"]


# --- the formulas, unvalidated (the booster's inner loop) ------------------------------------


def _softmax(F):
    """Row-wise probabilities of the scores ``F`` (n, K), stable for large scores."""
    return np.exp(F - logsumexp(F, axis=1, keepdims=True))


def _loss(F, y):
    """Cross-entropy ``-log p_{i y_i}`` of each row, from the scores (n, K) and labels (n,)."""
    return logsumexp(F, axis=1) - F[np.arange(F.shape[0]), y]


def _gradient(p, Y):
    """g_ik = p_ik - y_ik from the probabilities and the one-hot labels (eq-modern-softmax)."""
    return p - Y  # eq-modern-softmax


def _hessian(p, factor):
    """h_ik = factor p_ik (1 - p_ik): factor 1 is eq-modern-softmax, 2 is xgboost's."""
    return float(factor) * p * (1.0 - p)  # eq-modern-softmax


def _scores(F: Any) -> np.ndarray:
    if F is None:
        raise TypeError("F must be a 2-D array of real scores, got None.")
    arr = np.asarray(F)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"F must contain real numbers, got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if arr.ndim != 2 or arr.shape[1] < 2 or arr.shape[0] == 0:
        raise ValueError(f"F must have shape (n, K) with n >= 1 and K >= 2 classes, got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError("F must contain only finite values.")
    return arr


def _labels(y: Any, n: int, K: int) -> np.ndarray:
    if y is None:
        raise TypeError("y must be a 1-D array of integer class labels, got None.")
    arr = np.asarray(y)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"y must contain integer class labels 0, ..., K-1, got dtype {arr.dtype}.")
    if arr.shape != (n,):
        raise ValueError(f"y must have shape ({n},), one label per row of F, got {arr.shape}.")
    if np.any(arr < 0) or np.any(arr >= K):
        raise ValueError(f"y must contain labels in 0, ..., {K - 1} (K = {K} columns of F).")
    return arr


def softmax(F: Any) -> np.ndarray:
    r"""Row-wise :math:`p_{ik} = e^{F_{ik}} / \sum_c e^{F_{ic}}`, shape (n, K)."""
    return _softmax(_scores(F))


def softmax_loss(F: Any, y: Any) -> np.ndarray:
    r"""Cross-entropy of each row, :math:`-\log p_{i y_i}`, shape (n,)."""
    F = _scores(F)
    return _loss(F, _labels(y, *F.shape))


def softmax_gradient(F: Any, y: Any) -> np.ndarray:
    r""":math:`g_{ik} = p_{ik} - y_{ik}` (``eq-modern-softmax``), shape (n, K)."""
    F = _scores(F)
    y = _labels(y, *F.shape)
    return _gradient(_softmax(F), np.eye(F.shape[1])[y])


def softmax_hessian(F: Any, y: Any, factor: float = 1.0) -> np.ndarray:
    r"""Diagonal Hessian ``factor`` :math:`\cdot\, p_{ik}(1 - p_{ik})`, shape (n, K).

    ``factor=1`` is the second derivative of the cross-entropy in :math:`F_{ik}`;
    XGBoost's ``multi:softprob`` uses ``factor=2``. ``y`` is validated but, as the
    formula shows, not used.
    """
    F = _scores(F)
    _labels(y, *F.shape)
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
        raise TypeError(f"factor must be a real number, got {type(factor).__name__}.")
    if not (np.isfinite(factor) and factor > 0):
        raise ValueError(f"factor must be finite and > 0, got {factor}.")
    return _hessian(_softmax(F), float(factor))


def leaf_values(gradient: Any, hessian: Any, leaf: Any, reg_lambda: float = 0.0
                ) -> dict[int, float]:
    r"""Newton leaf values :math:`w_j = -G_j / (H_j + \lambda)` for each leaf id in ``leaf``.

    Parameters
    ----------
    gradient, hessian : array-like of shape (n,)
        One class's :math:`g_{ik}` and :math:`h_{ik}`.
    leaf : array-like of int, shape (n,)
        The leaf each row falls into.
    reg_lambda : float >= 0

    Returns
    -------
    dict
        Leaf id to :math:`w_j`.
    """
    g = np.asarray(gradient, dtype=float)
    h = np.asarray(hessian, dtype=float)
    leaf = np.asarray(leaf)
    if g.ndim != 1 or h.shape != g.shape or leaf.shape != g.shape:
        raise ValueError("gradient, hessian and leaf must be 1-D arrays of the same length, got "
                         f"shapes {g.shape}, {h.shape}, {leaf.shape}.")
    if leaf.dtype.kind not in "iu":
        raise TypeError(f"leaf must contain integer leaf ids, got dtype {leaf.dtype}.")
    if isinstance(reg_lambda, bool) or not isinstance(reg_lambda, numbers.Real):
        raise TypeError(f"reg_lambda must be a real number, got {type(reg_lambda).__name__}.")
    if not (np.isfinite(reg_lambda) and reg_lambda >= 0):
        raise ValueError(f"reg_lambda must be finite and >= 0, got {reg_lambda}.")
    out = {}
    for j in np.unique(leaf):
        rows = leaf == j
        H = h[rows].sum() + reg_lambda
        if H <= 0:
            raise ValueError(f"leaf {int(j)} has H + reg_lambda = 0; its value is undefined.")
        out[int(j)] = float(-g[rows].sum() / H)
    return out
