r"""The second-order (XGBoost) objective of a tree as pure functions (chapter *XGBoost*).

At round :math:`m` the booster adds a tree :math:`f` to the current scores. Expanding
the loss to second order, with gradients :math:`g_i` and hessians :math:`h_i`
(equation ``eq-xgb-taylor``), and adding the penalty :math:`\tau J + \tfrac12\lambda
\sum_j w_j^2` of a tree with :math:`J` leaves (``eq-xgb-objective``), the objective of a fixed structure is a
sum of independent quadratics, one per leaf with sums :math:`G_j, H_j`:

* leaf weight (``eq-xgb-leaf-weight``): :math:`w_j^* = -G_j / (H_j + \lambda)`;
* structure score (``eq-xgb-structure-score``):
  :math:`-\tfrac12 \sum_j G_j^2 / (H_j + \lambda) + \tau J`;
* split gain (``eq-xgb-gain``): :math:`\tfrac12\big[\frac{G_L^2}{H_L + \lambda}
  + \frac{G_R^2}{H_R + \lambda} - \frac{(G_L + G_R)^2}{H_L + H_R + \lambda}\big] - \tau`.

:math:`\tau` is the book's penalty per leaf, :math:`\lambda` its ridge penalty (the xgboost
paper writes :math:`\gamma` for :math:`\tau`); the xgboost library's ``gamma`` is
:math:`2\tau` (:mod:`ensemble_ref.ensembles.xgboost_style`).

Each formula is written once, in a private vectorised function (``_score``,
``_leaf_weight``, ``_bracket``, ``_gain``) that the booster of
:mod:`ensemble_ref.ensembles.xgboost_style` and its trees call in their inner loops;
the public functions validate their arguments and call the same private ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import as_output, check_float, check_reals, check_same_shape, check_shape

__all__ = ["leaf_weight", "structure_score", "split_gain", "quadratic_objective"]


# --- the formulas, unvalidated (inner loops) ---------------------------------------------------


def _score(G, H, lam):
    """A leaf's term :math:`G^2 / (H + \\lambda)` of the structure score (twice its decrease)."""
    return G**2 / (H + lam)


def _leaf_weight(G, H, lam):
    """The optimal leaf weight -G / (H + lambda)."""
    return -G / (H + lam)  # eq-xgb-leaf-weight


def _bracket(G_L, H_L, G_R, H_R, lam, parent=None):
    """The bracket of eq-xgb-gain (twice the score decrease of a split).

    ``parent`` may replace the unsplit node's term ``G^2 / (H + lambda)`` by a value
    computed once per node (the booster passes it rounded to float32, as xgboost does).
    """
    if parent is None:
        parent = _score(G_L + G_R, H_L + H_R, lam)
    return _score(G_L, H_L, lam) + _score(G_R, H_R, lam) - parent


def _gain(bracket, tau):
    """Gain = 1/2 bracket - tau (equation eq-xgb-gain)."""
    return 0.5 * bracket - tau  # eq-xgb-gain


# --- the public, validating functions ----------------------------------------------------------


def _penalty(lam: Any, **H: np.ndarray) -> float:
    """``lam`` (a float >= 0) once ``H + lam`` is positive for each hessian sum ``H`` given."""
    lam = check_float(lam, "lam", low=0.0)
    for name, value in H.items():
        check_reals(value + lam, f"{name} + lam", 0.0, None, low_open=True, message="be positive")
    return lam


def leaf_weight(G: Any, H: Any, lam: float = 1.0) -> np.ndarray | float:
    r"""The optimal leaf weight :math:`w^* = -G / (H + \lambda)`.

    Parameters
    ----------
    G, H : float or array of float
        Sums of the gradients and hessians of the samples in the leaf.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0` on the leaf weight; :math:`H + \lambda` must be positive.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Equation ``eq-xgb-leaf-weight``: the minimiser of the quadratic
    :math:`G w + \tfrac12 (H + \lambda) w^2` (see :func:`quadratic_objective`), i.e.
    one Newton step from the current scores with a ridge penalty.
    """
    G, H = np.broadcast_arrays(check_reals(G, "G"), check_reals(H, "H"))
    lam = _penalty(lam, H=H)
    return as_output(_leaf_weight(G, H, lam))


def quadratic_objective(w: Any, G: Any, H: Any, lam: float = 1.0) -> np.ndarray | float:
    r"""Second-order model of a leaf's objective, :math:`G w + \tfrac12 (H + \lambda) w^2`.

    Parameters
    ----------
    w : float or array of float
        Leaf weight(s).
    G, H : float or array of float
        Gradient and hessian sums of the leaf.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0`.

    Returns
    -------
    float or ndarray
        The leaf's term of :math:`\tilde{\mathcal L}` (equation ``eq-xgb-taylor``), minimised
        by :func:`leaf_weight` with minimum :math:`-\tfrac12 G^2/(H + \lambda)`.
    """
    w, G, H = np.broadcast_arrays(check_reals(w, "w"), check_reals(G, "G"), check_reals(H, "H"))
    lam = check_float(lam, "lam", low=0.0)
    return as_output(G * w + 0.5 * (H + lam) * w**2)  # eq-xgb-taylor, one leaf


def structure_score(G: Any, H: Any, lam: float = 1.0, tau: float = 0.0) -> float:
    r"""The objective of a tree structure at its optimal weights.

    Parameters
    ----------
    G, H : array of float, shape (J,)
        Gradient and hessian sums of the :math:`J` leaves.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0`.
    tau : float, default=0.0
        Penalty :math:`\tau \ge 0` per leaf.

    Returns
    -------
    float
        :math:`-\tfrac12 \sum_j G_j^2 / (H_j + \lambda) + \tau J` (equation
        ``eq-xgb-structure-score``); smaller is better.
    """
    G, H = np.atleast_1d(check_reals(G, "G")), np.atleast_1d(check_reals(H, "H"))
    check_same_shape(G=G, H=H)
    check_shape(G, "G", (None,) * G.ndim, at_least=1, described="(J,) with J >= 1: one sum per leaf")
    lam = _penalty(lam, H=H)
    tau = check_float(tau, "tau", low=0.0)
    return float(-0.5 * np.sum(_score(G, H, lam)) + tau * G.size)  # eq-xgb-structure-score


def split_gain(G_L: Any, H_L: Any, G_R: Any, H_R: Any, lam: float = 1.0,
               tau: float = 0.0) -> np.ndarray | float:
    r"""The gain of splitting a leaf into a left and a right part.

    Parameters
    ----------
    G_L, H_L, G_R, H_R : float or array of float
        Gradient and hessian sums of the two parts.
    lam : float, default=1.0
        L2 penalty :math:`\lambda \ge 0`.
    tau : float, default=0.0
        Penalty :math:`\tau \ge 0` per leaf (the xgboost library's ``gamma`` is
        :math:`2\tau`, see :mod:`ensemble_ref.ensembles.xgboost_style`).

    Returns
    -------
    float or ndarray
        :math:`\tfrac12\big[G_L^2/(H_L + \lambda) + G_R^2/(H_R + \lambda) -
        (G_L + G_R)^2/(H_L + H_R + \lambda)\big] - \tau` (equation ``eq-xgb-gain``), the
        structure score of the unsplit leaf minus that of the two children.

    Notes
    -----
    With :math:`\lambda = 0` the bracket is never negative (Titu's lemma, the
    Cauchy-Schwarz inequality in Engel form: :math:`a^2/x + b^2/y \ge (a + b)^2/(x + y)`).
    With :math:`\lambda > 0` each child pays its own :math:`\lambda`, and the lemma
    only gives the bracket :math:`\ge (G_L + G_R)^2/(H + 2\lambda) - (G_L + G_R)^2/(H + \lambda)
    = -\lambda G^2 / ((H + \lambda)(H + 2\lambda))`, :math:`G = G_L + G_R`, :math:`H = H_L + H_R`:
    splitting two children with equal gradient means can *increase* the
    regularised objective (e.g. :math:`G_L = G_R = 1`, :math:`H_L = H_R = 1`,
    :math:`\lambda = 1` gives :math:`-1/3`).
    """
    G_L, H_L, G_R, H_R = np.broadcast_arrays(check_reals(G_L, "G_L"), check_reals(H_L, "H_L"),
                                             check_reals(G_R, "G_R"), check_reals(H_R, "H_R"))
    lam = _penalty(lam, H_L=H_L, H_R=H_R)
    tau = check_float(tau, "tau", low=0.0)
    return as_output(_gain(_bracket(G_L, H_L, G_R, H_R, lam), tau))
