r"""How every second-order tree chooses its splits: the one split selector and the xgboost rules.

The exact grower (:mod:`ensemble_ref.trees.second_order_scan`), the histogram grower
(:mod:`ensemble_ref.trees.second_order_hist`) and the data-parallel tree
(:mod:`ensemble_ref.ensembles.distributed`, which runs the histogram grower) obtain the
sums :math:`G_L, H_L, G_R, H_R` of their candidates in different ways and then all call
this module: :func:`candidate_brackets` scores every candidate with the bracket of
``eq-xgb-gain``, :func:`select` chooses each node's split and :func:`node_weights` and
:func:`split_gains` give the finished tree's ``w`` and ``Gain``. The formulas are those
of :mod:`ensemble_ref.math.second_order`, called, never restated.

The rules below are the details that make these trees the xgboost library's trees,
each a named constant or function with the reason it is there:

* **float32 storage**: the library keeps every gain in single precision, so two
  candidates whose brackets differ by less than float32 resolution tie (:func:`round32`,
  :func:`parent_terms`);
* **scan order** (``RIGHT``, ``RIGHT_MISSING``, ``LEFT``, ``LEFT_MISSING``):
  missing values right scanning upwards, then left scanning downwards; "present against
  missing" splits in the same order. Which scans run is the tree method's rule:
  ``exact`` scans upwards only a feature with missing values in training (a feature
  without them sends missing values left), ``hist`` scans downwards only in a node
  holding missing values of the feature (a feature without them sends them right);
* **tie-breaking**: a later candidate replaces an earlier one only if strictly better
  (the first in scan order wins), a higher feature only if strictly better (:func:`select`);
* **the Hessian floor and** ``min_child_weight``: Hessians are floored at
  ``HESSIAN_FLOOR``; a child lighter than ``min_child_weight`` is not created, and a
  node lighter than it has weight 0 (:func:`admissible`, :func:`node_weights`);
* ``MIN_BRACKET``: a split needs a bracket above the library's ``kRtEps``; ``hist``
  also needs ``Gain >= 0`` (pre-pruning), ``exact`` prunes after growth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..math import second_order as formulas

__all__ = ["TreeParams", "MIN_BRACKET", "HESSIAN_FLOOR", "RIGHT", "RIGHT_MISSING", "LEFT",
           "LEFT_MISSING", "PRESENT_LEFT", "MISSING_LEFT", "round32", "floor_hessian",
           "parent_terms", "admissible", "candidate_brackets", "select", "node_weights",
           "split_gains"]

MIN_BRACKET = 1e-6  # xgboost's kRtEps: a smaller bracket is rounding noise, not a split
HESSIAN_FLOOR = 1e-16  # xgboost floors the logistic and softmax Hessians (no H = 0 leaves)
# The kinds of candidates of one feature, in the library's scan order (ties go to the first).
RIGHT, RIGHT_MISSING, LEFT, LEFT_MISSING = range(4)
# Code boundaries of the "present against missing" splits: every present code goes left
# (codes <= PRESENT_LEFT), or none does (codes <= MISSING_LEFT).
PRESENT_LEFT, MISSING_LEFT = np.iinfo(np.int32).max - 1, -1


@dataclass
class TreeParams:
    """What one tree needs of the booster's parameters (validated once per fit)."""

    max_depth: int
    reg_lambda: float
    tau: float  # the penalty per leaf (the estimators' tau; xgboost's gamma is 2 tau)
    min_child_weight: float
    pre_prune: bool  # hist: split only when Gain >= 0


def round32(a: np.ndarray) -> np.ndarray:
    """Round to float32 as xgboost stores its gains (then back to float64)."""
    return np.asarray(a).astype(np.float32).astype(np.float64)


def floor_hessian(h: np.ndarray) -> np.ndarray:
    """The Hessians with the library's floor ``HESSIAN_FLOOR``."""
    return np.maximum(h, HESSIAN_FLOOR)


def parent_terms(G: np.ndarray, H: np.ndarray, p: TreeParams) -> np.ndarray:
    r"""The unsplit node's term :math:`G^2/(H + \lambda)` of ``eq-xgb-gain``, in float32 as
    the library stores it (computed once per node and subtracted from every candidate)."""
    return round32(formulas._score(G, H, p.reg_lambda))


def admissible(H_L: np.ndarray, H_R: np.ndarray, p: TreeParams, unit: bool = False
               ) -> np.ndarray | None:
    r"""Where both children may be created: :math:`H_L, H_R \ge` ``min_child_weight`` and
    :math:`H + \lambda > 0`; None when every candidate qualifies (``unit``: the Hessians
    are counts and every candidate has a row on each side, so ``min_child_weight <= 1``
    holds)."""
    lam, mcw = p.reg_lambda, p.min_child_weight
    if unit and mcw <= 1:
        return None
    ok = (H_L >= mcw) & (H_R >= mcw)  # with lam > 0, H >= mcw >= 0 gives H + lam > 0
    return ok if lam > 0 else ok & (H_L + lam > 0) & (H_R + lam > 0)


def candidate_brackets(G_L: np.ndarray, H_L: np.ndarray, G_R: np.ndarray, H_R: np.ndarray,
                       parent32: np.ndarray, p: TreeParams, ok: np.ndarray | None = None,
                       unit: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    r"""The bracket of ``eq-xgb-gain`` of every candidate, :math:`-\infty` where it is not one.

    Parameters
    ----------
    G_L, H_L, G_R, H_R : ndarray
        The children's sums of every candidate.
    parent32 : ndarray
        The node's term (:func:`parent_terms`), broadcast to the candidates.
    p : TreeParams
    ok : ndarray of bool, optional
        Where a candidate exists at all (the grower's own mask).
    unit : bool
        The Hessians are counts (see :func:`admissible`).
    out : ndarray, optional
        Receives the brackets; a float32 ``out`` rounds them as the library stores them.

    Returns
    -------
    ndarray
        :math:`G_L^2/(H_L + \lambda) + G_R^2/(H_R + \lambda) - G^2/(H + \lambda)`
        (``math.second_order._bracket``, the bracket of
        :func:`~ensemble_ref.math.second_order.split_gain`) where ``ok`` and
        :func:`admissible`, else :math:`-\infty`.
    """
    v = formulas._bracket(G_L, H_L, G_R, H_R, p.reg_lambda, parent32)
    if out is not None:
        np.copyto(out, v, casting="same_kind")
        v = out
    valid = admissible(H_L, H_R, p, unit)
    if valid is not None:
        ok = valid if ok is None else ok & valid
    if ok is not None:
        np.copyto(v, -np.inf, where=~ok)
    return v


def select(best: np.ndarray, p: TreeParams) -> tuple[np.ndarray, ...]:
    r"""The one split selector: each node's split, from its best candidates by kind and feature.

    Parameters
    ----------
    best : ndarray of shape (4, n_features, n_nodes)
        ``best[kind, k, s]``: the best bracket rounded to float32 among the candidates of
        that kind (``RIGHT``, ...) of feature ``k`` in node ``s`` (:math:`-\infty`: none).
    p : TreeParams

    Returns
    -------
    split : ndarray of bool
        The nodes that split: bracket above ``MIN_BRACKET`` and, when ``p.pre_prune``
        (``hist``), ``Gain >= 0`` (eq-xgb-gain: the library's ``loss_chg >= min_split_loss``).
    k, kind : ndarray of int
        The chosen feature (the lowest among the best) and kind (the first in scan order).
    bracket : ndarray of float
        The chosen rounded bracket.
    """
    first_kind = best.argmax(axis=0)  # the first best kind of each (feature, node)
    per_feature = np.take_along_axis(best, first_kind[None], axis=0)[0]
    k = per_feature.argmax(axis=0)  # the lowest feature among the best
    nodes = np.arange(best.shape[2])
    bracket = per_feature[k, nodes].astype(np.float64)  # float32 values, float64 arithmetic
    split = bracket > MIN_BRACKET
    if p.pre_prune:  # hist: xgboost splits only when loss_chg >= min_split_loss
        split &= formulas._gain(bracket, p.tau) >= 0
    return split, k, first_kind[k, nodes], bracket


def node_weights(G: np.ndarray, H: np.ndarray, p: TreeParams) -> np.ndarray:
    r""":func:`~ensemble_ref.math.second_order.leaf_weight` :math:`w^* = -G/(H + \lambda)`
    (``eq-xgb-leaf-weight``) of every node; 0 where ``H < min_child_weight`` or the
    weight is undefined (the library's rule)."""
    ok = (H >= p.min_child_weight) & (H > 0) & (H + p.reg_lambda > 0)
    if not ok.any():
        return np.zeros(G.shape)
    w = formulas.leaf_weight(np.where(ok, G, 0.0), np.where(ok, H, 1.0), p.reg_lambda)
    return np.where(ok, w, 0.0)


def split_gains(G_L: np.ndarray, H_L: np.ndarray, G_R: np.ndarray, H_R: np.ndarray,
                p: TreeParams) -> np.ndarray:
    r"""The book's ``Gain`` (``eq-xgb-gain``, with :math:`\tau`) of recorded splits:
    :func:`~ensemble_ref.math.second_order.split_gain` of their children's sums."""
    lam = p.reg_lambda
    ok = (H_L + lam > 0) & (H_R + lam > 0)  # always, for splits the selector admitted
    gain = np.full(G_L.shape, np.nan)
    if ok.any():
        gain[ok] = formulas.split_gain(G_L[ok], H_L[ok], G_R[ok], H_R[ok], lam, p.tau)
    return gain
