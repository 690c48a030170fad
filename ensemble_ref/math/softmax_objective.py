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

from typing import Any

import numpy as np

from ..core.validation import check_float, check_integers, check_reals, check_same_shape, check_shape
from . import mixture, second_order

__all__ = ["softmax", "softmax_loss", "softmax_gradient", "softmax_hessian", "leaf_values"]


# --- the formulas, unvalidated (the booster's inner loop) ------------------------------------


def _softmax(F):
    """Row-wise probabilities of the scores ``F`` (n, K): the package's softmax
    (``_softmax()``)."""
    return mixture._softmax(F)


def _loss(F, y):
    """Cross-entropy ``-log p_{i y_i}`` of each row, from the scores (n, K) and labels (n,)."""
    return -mixture._log_softmax(F)[np.arange(F.shape[0]), y]


def _gradient(p, Y):
    """g_ik = p_ik - y_ik from the probabilities and the one-hot labels (eq-modern-softmax)."""
    return p - Y  # eq-modern-softmax


def _hessian(p, factor):
    """h_ik = factor p_ik (1 - p_ik): factor 1 is eq-modern-softmax, 2 is xgboost's."""
    return float(factor) * p * (1.0 - p)  # eq-modern-softmax


def _scores(F: Any) -> np.ndarray:
    """Finite scores of shape (n, K), n >= 1 rows and K >= 2 classes."""
    return check_shape(check_reals(F, "F"), "F", (None, None), at_least=(1, 2),
                       described="(n, K) with n >= 1 and K >= 2 classes")


def _labels(y: Any, n: int, K: int) -> np.ndarray:
    """Class labels 0, ..., K - 1, one per row of F (whole floats are read as integers)."""
    arr = np.asarray(y)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    arr = check_integers(arr, "y", 0, K - 1, message=f"contain labels in 0, ..., {K - 1} (K = {K} columns of F)")
    return check_shape(arr, "y", (n,), described=f"({n},), one label per row of F")


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
    factor = check_float(factor, "factor", low=0.0, low_open=True)
    return _hessian(_softmax(F), factor)


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
    g = check_shape(check_reals(gradient, "gradient"), "gradient", (None,))
    h = check_reals(hessian, "hessian")
    leaf_id = check_integers(leaf, "leaf")
    check_same_shape(gradient=g, hessian=h, leaf=leaf_id)
    reg_lambda = check_float(reg_lambda, "reg_lambda", low=0.0)
    ids = np.unique(leaf_id)
    G = np.array([g[leaf_id == j].sum() for j in ids])  # G_j and H_j of each leaf
    H = np.array([h[leaf_id == j].sum() for j in ids])
    check_reals(H + reg_lambda, "H + reg_lambda", 0.0, None, low_open=True,
                message="be positive in every leaf (the value of a leaf without curvature is undefined)")
    return {int(j): float(w) for j, w in zip(ids, second_order._leaf_weight(G, H, reg_lambda))}
