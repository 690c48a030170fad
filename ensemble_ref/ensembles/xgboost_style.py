r"""The XGBoost-style second-order booster: :class:`XGBRegressor`, :class:`XGBClassifier`.

At round :math:`m` the booster adds a tree :math:`f` to the current scores
:math:`F(x_i)`. Expanding the loss to second order around :math:`F(x_i)`, with
:math:`g_i = \partial_F L(y_i, F(x_i))` and :math:`h_i = \partial_F^2 L(y_i, F(x_i))`
(equation ``eq-xgb-taylor``), and adding the penalty
:math:`\Omega(f) = \tau J + \tfrac12\lambda\sum_j w_j^2` of a tree with :math:`J`
leaves of weights :math:`w_j` (``eq-xgb-objective``; the xgboost paper writes
:math:`\gamma T`), the objective of a fixed tree structure is a sum of
independent quadratics, one per leaf :math:`j` with :math:`G_j = \sum_{i \in I_j} g_i`,
:math:`H_j = \sum_{i \in I_j} h_i`:

.. math:: \tilde{\mathcal L} = \sum_j \Big[G_j w_j + \tfrac12 (H_j + \lambda) w_j^2\Big] + \tau J.

* leaf weight (``eq-xgb-leaf-weight``): :math:`w_j^* = -G_j / (H_j + \lambda)`;
* structure score (``eq-xgb-structure-score``):
  :math:`\tilde{\mathcal L}^* = -\tfrac12 \sum_j G_j^2 / (H_j + \lambda) + \tau J`;
* split gain (``eq-xgb-gain``): :math:`\text{Gain} = \tfrac12\Big[\frac{G_L^2}{H_L + \lambda}
  + \frac{G_R^2}{H_R + \lambda} - \frac{(G_L + G_R)^2}{H_L + H_R + \lambda}\Big] - \tau`,
  the decrease of the structure score when a leaf is split in two.

:func:`~ensemble_ref.math.second_order.leaf_weight`,
:func:`~ensemble_ref.math.second_order.structure_score`,
:func:`~ensemble_ref.math.second_order.split_gain` and
:func:`~ensemble_ref.math.second_order.quadratic_objective` are these formulas as pure functions;
:class:`XGBRegressor` (squared error) and :class:`XGBClassifier` (logistic loss; softmax
for K > 2 classes)
grow trees with them.

**Tree growth** is :func:`ensemble_ref.trees.second_order_tree.grow_tree`
(``tree_method="exact"``) or :func:`ensemble_ref.trees.second_order_hist.grow_hist_tree`
(``"hist"``, from gradient histograms), with the same split rule (the one split selector
and the library's rules, :mod:`ensemble_ref.trees.second_order_rules`): level by level to
``max_depth``, scanning every distinct value (``exact``) or at most ``max_bin`` quantile
bins (``hist``) per feature. ``exact`` then prunes bottom-up
every split with a negative ``Gain`` whose children are leaves (xgboost's ``prune``
updater); ``hist`` pre-prunes, splitting a node only when its best ``Gain`` is not
negative (xgboost's hist updater). The formulas are those of
:mod:`ensemble_ref.math.second_order`, the gradients and hessians those of
:mod:`ensemble_ref.math.losses`.

**Missing values.** ``NaN`` marks a missing feature value. Each split learns a
default direction: the scan is run with the missing values on the right and on
the left, and the better one is kept, so a candidate split can also separate
"missing" from "present". A feature without missing values in training has one scan,
as in the library: ``exact`` sends a later missing value left, ``hist`` sends it right
(xgboost's ``exact`` scans such a feature only downwards, its ``hist`` and ``approx``
only upwards).

**Relation to the xgboost library** (measured with xgboost 3.2; see the tests).

* ``tau`` and the library's ``gamma``. The library compares the bracket *without*
  the factor :math:`\tfrac12` with its ``gamma`` (its reported ``gain`` is that
  bracket, and a split is pruned when ``gain < gamma``). This module's parameter is
  the book's :math:`\tau` of ``eq-xgb-objective`` and carries the book's name, since
  **xgboost's** ``gamma`` **equals** :math:`2\tau`: ``XGBRegressor(tau=c)`` here
  reproduces ``xgboost.XGBRegressor(gamma=2 * c)``.
* ``base_score``. With ``base_score=None`` xgboost 3.x estimates the intercept
  from the data: the (weighted) mean of ``y`` for squared error, and for the
  logistic loss the (weighted) mean of the 0/1 labels as a probability, i.e. the
  initial score :math:`\operatorname{logit}(\bar y)`. Both are the loss-minimising
  constants, and ``base_score=None`` here does the same. A number passes through
  unchanged (a probability for the classifier), as in the library.
* Arithmetic. The library stores gradients, predictions and gains in float32; this
  module works in float64. When two candidate splits have gains closer than
  float32 resolution (about :math:`10^{-7}` relative) the two can choose
  differently; on continuous data this does not happen in practice, and the tests
  compare predictions to :math:`10^{-5}` on float32-representable data. Ties in
  float64 are broken as the library does: lowest feature index, then the order of
  its scans (missing-right scan upwards, then missing-left scan downwards).
* Thresholds are midpoints between consecutive distinct values, compared as
  ``x < threshold``; a split separating only missing from present values gets
  the library's threshold ``v ± (|v| + 1e-6)`` beyond the node's extreme value ``v``.
* The library's hessian floor for the logistic loss, :math:`h_i \ge 10^{-16}`, is
  kept; a node whose hessian sum is below ``min_child_weight`` gets weight 0 (the
  library's rule, relevant only for the root).
* Row subsampling draws exactly ``round(subsample * n)`` rows without replacement
  (the library flips a coin per row), and ``colsample_bytree`` draws
  ``max(1, int(colsample_bytree * n_features))`` features per tree; neither
  reproduces the library's random numbers.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Iterator

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin, RegressorMixin
from ..core.validation import (
    check_array,
    check_class_weights,
    check_finite_scores,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..math import importance, sampling
from ..math import softmax_objective as softmax
from ..math.losses import Loss, get_loss, sigmoid
from ..trees.engine import Codes
from ..trees.second_order_hist import grow_hist_tree
from ..trees.second_order_rules import TreeParams, floor_hessian
from ..trees.second_order_tree import grow_tree

__all__ = ["XGBRegressor", "XGBClassifier"]


class _SecondOrderBooster(BaseEstimator):
    """    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds (trees).
    learning_rate : float, default=0.3
        The book's learning rate :math:`\\nu > 0` (xgboost's ``eta``), applied to every leaf
        weight: :math:`F_m = F_{m-1} + \\nu f_m`.
    max_depth : int, default=6
        Maximum depth of each tree.
    reg_lambda : float, default=1.0
        The book's L2 penalty :math:`\\lambda \\ge 0` on the leaf weights
        (``eq-xgb-objective``).
    tau : float, default=0.0
        The book's penalty :math:`\\tau \\ge 0` per leaf (``eq-xgb-objective``): a split is
        kept only if its ``Gain`` (``eq-xgb-gain``) is not negative (``exact``: after the
        bottom-up pruning; ``hist``: checked before splitting). The xgboost library's
        ``gamma`` is **twice** this value, :math:`2\\tau`: ``tau=c`` here is
        ``xgboost``'s ``gamma=2 * c``.
    min_child_weight : float, default=1.0
        Minimum hessian sum :math:`H` of each child of a split.
    subsample : float in (0, 1], default=1.0
        Fraction of the rows (drawn without replacement) that grows each tree.
    colsample_bytree : float in (0, 1], default=1.0
        Fraction of the features that each tree may split on.
    base_score : float, optional
        Initial prediction (a probability for the classifier). ``None`` estimates
        it from the data as xgboost 3.x does (see the module notes).
    tree_method : {"exact", "hist"}, default="exact"
        Scan every distinct value, or at most ``max_bin`` quantile bins, per feature.
    max_bin : int, default=256
        Number of bins of ``tree_method="hist"``.
    random_state : None, int or numpy.random.Generator
        Seed of the row and feature subsampling.

    Attributes
    ----------
    trees_ : list of SecondOrderTree
        The fitted trees with their node statistics (``G``, ``H``, ``weight``,
        ``gain``, ...).
    base_score_ : float
        The initial prediction used.
    base_margin_ : float
        The initial raw score :math:`F_0`.
    train_loss_ : ndarray of shape (n_estimators,)
        Mean (weighted) training loss after each round, with the losses of
        :mod:`ensemble_ref.math.losses`.
    n_features_in_ : int
"""

    _allow_nan = True  # NaN in X is a missing value (a learned default direction)

    _loss_name = ""  # set by the subclasses

    def __init__(self, *, n_estimators: int = 100, learning_rate: float = 0.3, max_depth: int = 6,
                 reg_lambda: float = 1.0, tau: float = 0.0, min_child_weight: float = 1.0,
                 subsample: float = 1.0, colsample_bytree: float = 1.0,
                 base_score: float | None = None, tree_method: str = "exact",
                 max_bin: int = 256, random_state: Any = None) -> None:
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.reg_lambda = reg_lambda
        self.tau = tau
        self.min_child_weight = min_child_weight
        self.subsample = subsample
        self.colsample_bytree = colsample_bytree
        self.base_score = base_score
        self.tree_method = tree_method
        self.max_bin = max_bin
        self.random_state = random_state

    def _tree_params(self) -> TreeParams:
        if self.tree_method not in ("exact", "hist"):
            raise ValueError(f"tree_method must be 'exact' or 'hist', got {self.tree_method!r}.")
        return TreeParams(
            max_depth=check_int(self.max_depth, "max_depth", low=1),
            reg_lambda=check_float(self.reg_lambda, "reg_lambda", low=0.0),
            tau=check_float(self.tau, "tau", low=0.0),
            min_child_weight=check_float(self.min_child_weight, "min_child_weight", low=0.0),
            pre_prune=self.tree_method == "hist",
        )

    def _fit(self, X: np.ndarray, y: np.ndarray, sample_weight: Any) -> None:
        tree_params = self._tree_params()
        M = check_int(self.n_estimators, "n_estimators", low=1)
        nu = check_float(self.learning_rate, "learning_rate", low=0.0, low_open=True)
        subsample = check_float(self.subsample, "subsample", low=0.0, high=1.0, low_open=True)
        colsample = check_float(self.colsample_bytree, "colsample_bytree", low=0.0, high=1.0,
                                low_open=True)
        max_bin = check_int(self.max_bin, "max_bin", low=2)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        sw = check_sample_weight(sample_weight, n)
        self.n_features_in_ = d
        self.base_score_ = self._base_score(y, sw)
        self.base_margin_ = self._margin_of(self.base_score_)
        data = Codes(X, self.tree_method, max_bin)  # features coded (sorted, binned) once
        hist = self.tree_method == "hist"
        leaves = np.empty(n, dtype=np.intp)  # hist: the leaf of every row, known from the growth
        grow = partial(grow_hist_tree, leaves=leaves) if hist else grow_tree
        loss = get_loss(self._loss_name)
        F = self._start(n)  # current scores F_{m-1}(x_i), one column per class for K > 2
        self.trees_, losses = [], []
        for m in range(M):
            g, h = self._gradients(loss, y, F)  # eq-xgb-taylor: first and second derivatives
            g, h = (sw * g, sw * h) if g.ndim == 1 else (sw[:, None] * g, sw[:, None] * h)
            rows = sampling._subsample_rows(rng, n, subsample)  # eq-modern-subsample
            step = []
            for k in range(1 if g.ndim == 1 else g.shape[1]):  # one tree per class (K > 2)
                features = sampling._subsample_columns(rng, d, colsample)
                g_k, h_k = (g, h) if g.ndim == 1 else (g[:, k], h[:, k])
                tree = grow(data, g_k, h_k, rows, features, tree_params)
                with np.errstate(over="ignore"):  # the scores are checked below
                    tree.value = nu * tree.weight  # the shrunken tree nu f_m
                # the training rows' leaves, when the growth found them (no second pass)
                leaf = leaves if hist and rows.size == n else tree.train_leaf
                tree.train_leaf = None
                step.append(tree.predict(X) if leaf is None else tree.value[leaf])
                self.trees_.append(tree)
            with np.errstate(over="ignore", invalid="ignore"):
                F = F + (step[0] if g.ndim == 1 else np.column_stack(step))  # F_m = F_{m-1} + nu f_m
            # the gains are rounded to float32 as the library does: G^2 must stay below its maximum
            check_finite_scores(F, self.learning_rate, m + 1, np.sqrt(np.finfo(np.float32).max) / (4 * n))
            losses.append(np.average(self._loss_values(loss, y, F), weights=sw))
        self.train_loss_ = np.array(losses)

    def _start(self, n: int) -> np.ndarray:
        """The initial scores F_0 of ``n`` rows: (n,), or (n, K) for K > 2 classes."""
        if np.ndim(self.base_margin_) == 0:
            return np.full(n, self.base_margin_)
        return np.tile(self.base_margin_, (n, 1))

    @staticmethod
    def _loss_values(loss: Loss, y: np.ndarray, F: np.ndarray) -> np.ndarray:
        return loss.unchecked("value")(y, F)

    def _raw_scores(self, X: Any) -> Iterator[np.ndarray]:
        self._check_is_fitted("trees_")
        X = check_array(X, allow_nan=True, estimator=self)
        F, K = self._start(X.shape[0]), self._trees_per_round()
        for m in range(0, len(self.trees_), K):
            if K == 1:
                F = F + self.trees_[m].predict(X)
            else:
                F = F + np.column_stack([t.predict(X) for t in self.trees_[m:m + K]])
            yield F

    def _margin(self, X: Any) -> np.ndarray:
        self._check_is_fitted("trees_")
        X = check_array(X, allow_nan=True, estimator=self)
        K = self._trees_per_round()
        if K == 1:
            return self.base_margin_ + sum(tree.predict(X) for tree in self.trees_)
        per_class = [sum(t.predict(X) for t in self.trees_[k::K]) for k in range(K)]
        return self.base_margin_ + np.column_stack(per_class)

    @property
    def feature_importances_(self) -> np.ndarray:
        """xgboost's default ``importance_type="gain"``: each feature's average loss reduction
        per split, normalised to sum to 1.

        :func:`~ensemble_ref.math.importance.gain_importance` of ``trees_`` (every class's
        trees for K > 2): the ``Gain + tau`` of ``eq-xgb-gain`` of the splits on a feature,
        averaged over those splits, then divided by the sum over the features; equal to
        ``xgboost.XGBRegressor(...).feature_importances_`` on equal trees (to the library's
        float32 rounding).
        """
        self._check_is_fitted("trees_")
        return importance.gain_importance(self.trees_, self.n_features_in_, self.tau)

    def _trees_per_round(self) -> int:
        return int(np.size(self.base_margin_))


class XGBRegressor(RegressorMixin, _SecondOrderBooster):
    __doc__ = r"""Second-order boosting of regression trees for the squared error.

    The loss is :math:`\tfrac12 (y - F)^2`.

    Gradients :math:`g_i = F(x_i) - y_i` and hessians :math:`h_i = 1` (times the
    sample weight): the leaf weight :math:`-G/(H + \lambda)` is a shrunken mean
    residual. See the module docstring for the algorithm and its relation to
    ``xgboost.XGBRegressor(objective="reg:squarederror")``.
    """.rstrip() + "\n\n" + _SecondOrderBooster.__doc__

    _loss_name = "squared_error"

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "XGBRegressor":
        """Fit ``n_estimators`` trees to ``(X, y)``; ``X`` may contain NaN (missing values).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real targets (finite).
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies each sample's gradient and hessian.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, y_numeric=True, allow_nan=True, estimator=self)
        self._fit(X, y, sample_weight)
        return self

    def _base_score(self, y: np.ndarray, sw: np.ndarray) -> float:
        if self.base_score is None:
            return float(np.average(y, weights=sw))  # the constant minimising the squared error
        return check_float(self.base_score, "base_score")

    @staticmethod
    def _margin_of(score: float) -> float:
        return score

    @staticmethod
    def _gradients(loss: Loss, y: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return loss.unchecked("gradient")(y, F), loss.unchecked("hessian")(y, F)  # g_i, h_i

    def predict(self, X: Any) -> np.ndarray:
        """Predicted values :math:`F_0 + \\sum_m \\nu f_m(x)`."""
        return self._margin(X)

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the predictions after each round."""
        for F in self._raw_scores(X):
            yield F.copy()


class XGBClassifier(ClassifierMixin, _SecondOrderBooster):
    __doc__ = r"""Second-order boosting of regression trees for the logistic loss (two classes)
    and the softmax objective (:math:`K > 2` classes).

    **Two classes.** Scores are log-odds :math:`F`; with :math:`p_i = \sigma(F(x_i))` the
    gradients are :math:`g_i = p_i - y_i` and the hessians :math:`h_i = p_i (1 - p_i)`
    (floored at ``1e-16``), :math:`y_i \in \{0, 1\}` coding ``classes_[1]`` as 1, as
    ``xgboost.XGBClassifier(objective="binary:logistic")``.

    **K > 2 classes.** One score per class, :math:`F_{ik}`, and
    :math:`p_{ik} = e^{F_{ik}}/\sum_c e^{F_{ic}}`; every round grows one tree per class
    with :math:`g_{ik} = p_{ik} - y_{ik}` and the hessians
    :math:`h_{ik} = 2 p_{ik}(1 - p_{ik})` (floored at ``1e-16``), as
    ``xgboost.XGBClassifier(objective="multi:softprob")``. The factor 2 is the library's:
    the book's Hessian (equation ``eq-modern-softmax``) is :math:`p_{ik}(1 - p_{ik})`, the
    second derivative of the cross-entropy; ``softmax_hessian_factor`` holds the factor.
    ``base_score=None`` starts every row at :math:`F_{0k} = \log \pi_k - \frac1K\sum_c \log
    \pi_c` with :math:`\pi_k` the (weighted) class frequencies (xgboost 3.x's intercept, whose
    softmax is :math:`\pi`); a number is the initial score of every class, as in the library.
    The trees are stored round by round (``trees_[m * K + k]`` is class ``k``'s tree of round
    ``m``, the library's order); a round's row subsample is shared by its ``K`` trees.
    """.rstrip() + "\n\n" + _SecondOrderBooster.__doc__ + """    classes_ : ndarray of shape (K,)
"""

    _loss_name = "log_loss"
    softmax_hessian_factor = 2.0  # xgboost's multi:softprob; 1.0 is eq-modern-softmax

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "XGBClassifier":
        """Fit ``n_estimators`` rounds to ``(X, y)``: one tree a round for two classes, K for K > 2.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            May contain NaN (missing values).
        y : array-like of shape (n_samples,)
            Labels of at least two classes (any values).
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies each sample's gradient and hessian.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, allow_nan=True, estimator=self)
        self.classes_, y_enc = check_labels(y, min_classes=2)
        check_class_weights(y_enc, sample_weight, self.classes_)
        self._fit(X, y_enc.astype(np.float64) if self.classes_.size == 2 else y_enc,
                  sample_weight)
        return self

    def _base_score(self, y: np.ndarray, sw: np.ndarray) -> Any:
        K = self.classes_.size
        if self.base_score is None:
            if K == 2:
                return float(np.average(y, weights=sw))  # fraction of class 1: the best constant
            log_prior = np.log(np.maximum(np.bincount(y, weights=sw, minlength=K) / sw.sum(),
                                          1e-300))
            return log_prior - log_prior.mean()  # centred log-frequencies: softmax = frequencies
        if K == 2:
            return check_float(self.base_score, "base_score", low=0.0, high=1.0, low_open=True,
                               high_open=True)
        return np.full(K, check_float(self.base_score, "base_score"))  # a score per class

    @staticmethod
    def _margin_of(score: Any) -> Any:
        if np.ndim(score) == 1:
            return score  # K > 2: the base scores are the initial scores
        return float(np.log(score) - np.log1p(-score))  # logit of the base probability

    def _gradients(self, loss: Loss, y: np.ndarray, F: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        if F.ndim == 1:  # g_i, h_i of the log loss, with xgboost's floor of the hessian
            return loss.unchecked("gradient")(y, F), floor_hessian(loss.unchecked("hessian")(y, F))
        p = softmax._softmax(F)  # eq-modern-softmax: g = p - y, h = factor p (1 - p)
        g = softmax._gradient(p, np.eye(F.shape[1])[y])
        return g, floor_hessian(softmax._hessian(p, self.softmax_hessian_factor))

    @staticmethod
    def _loss_values(loss: Loss, y: np.ndarray, F: np.ndarray) -> np.ndarray:
        return loss.unchecked("value")(y, F) if F.ndim == 1 else softmax._loss(F, y)

    def decision_function(self, X: Any) -> np.ndarray:
        """The raw scores: log-odds of ``classes_[1]`` (n_samples,), or (n_samples, K) for K > 2."""
        return self._margin(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, shape (n_samples, K): sigmoid (two classes) or softmax."""
        return self._proba(self._margin(X))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class (``classes_[1]`` where the log-odds are positive, K = 2)."""
        F = self._margin(X)  # checks that the model is fitted before classes_ is read
        if F.ndim == 2:
            return self.classes_[np.argmax(F, axis=1)]
        return self.classes_[(F > 0).astype(np.intp)]

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the class probabilities after each round."""
        for F in self._raw_scores(X):
            yield self._proba(F)

    @staticmethod
    def _proba(F: np.ndarray) -> np.ndarray:
        if F.ndim == 2:
            return softmax._softmax(F)
        p = sigmoid(F)
        return np.column_stack([1.0 - p, p])
