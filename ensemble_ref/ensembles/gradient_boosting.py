r"""Gradient boosting with regression trees (chapter *Gradient boosting*).

Friedman's algorithm for a loss :math:`L(y, F)` (the losses of
:mod:`ensemble_ref.math.losses`), with sample weights :math:`\omega_i`:

1. start from the best constant, :math:`F_0 = \arg\min_c \sum_i \omega_i L(y_i, c)`
   (``init_``; equation ``eq-gb-init``);
2. for :math:`m = 1, \dots, M`:

   a. pseudo-residuals :math:`r_{im} = -\partial L(y_i, F)/\partial F` at
      :math:`F = F_{m-1}(x_i)` (equation ``eq-gb-residual``);
   b. fit a regression tree (:class:`ensemble_ref.trees.cart.DecisionTreeRegressor`,
      squared error) to :math:`(x_i, r_{im})`, giving leaves :math:`R_{jm}`;
   c. replace each leaf value by the best step for the loss,
      :math:`w_{jm} = \arg\min_w \sum_{x_i \in R_{jm}} \omega_i L(y_i, F_{m-1}(x_i) + w)`
      (equation ``eq-gb-leaf``; ESL and Friedman write :math:`\gamma_{jm}`);
   d. update :math:`F_m(x) = F_{m-1}(x) + \nu w_{jm}` for :math:`x \in R_{jm}`,
      with learning rate :math:`\nu`.

The features are validated and sorted once per ``fit``; every stage grows its tree on
that presorted data (:meth:`~ensemble_ref.trees.cart.DecisionTreeRegressor.fit_presorted`). The losses are those
of :mod:`ensemble_ref.math.losses`, the leaf values those of
:mod:`ensemble_ref.math.gradient_boosting`.

The leaf step (c) per loss:

* ``squared_error`` (:math:`\tfrac12 (y - F)^2`): the residuals are
  :math:`y - F` and the tree's own leaf means are already optimal;
* ``absolute_error`` (:math:`|y - F|`): the residuals are
  :math:`\operatorname{sign}(y - F)` and the leaf value is a weighted median of
  :math:`y_i - F_{m-1}(x_i)` (:func:`~ensemble_ref.math.gradient_boosting.weighted_median`);
* ``log_loss`` (classifier): no closed form; one Newton step
  :math:`w_j = \sum_{i \in R_j} \omega_i r_i / \sum_{i \in R_j} \omega_i p_i (1 - p_i)`
  with :math:`r_i = y_i - p_i` (:func:`~ensemble_ref.math.gradient_boosting.newton_leaf_value`), as in LogitBoost
  (Friedman, Hastie and Tibshirani, 2000).

**Agreement with scikit-learn.** With the same parameters these estimators
reproduce ``sklearn.ensemble.GradientBoostingRegressor`` and
``GradientBoostingClassifier`` (their trees also use the squared error, and the
tree of :mod:`ensemble_ref.trees.cart` splits as scikit-learn's does). Details found by
reading and testing scikit-learn 1.9:

* the median in an ``absolute_error`` leaf is the *lower* weighted median
  (scikit-learn's ``_weighted_percentile`` with its default "inverted CDF": the
  smallest residual whose cumulative weight reaches half the leaf's weight), while
  the initial constant is ``numpy.median`` (the average of the two middle values)
  when no sample weights are given, and the lower weighted median otherwise;
* the pseudo-residual of ``absolute_error`` at :math:`y_i = F(x_i)` is :math:`+1`
  (scikit-learn's subgradient, see :func:`ensemble_ref.math.losses.absolute_error_gradient`);
  it matters because every leaf median puts one residual exactly there;
* with ``absolute_error`` and unit weights the pseudo-residuals are :math:`\pm 1`,
  so two features often give *exactly* the same split score; scikit-learn breaks
  such ties by a random order of the features (its result then depends on
  ``random_state``), the tree of this package by the lowest feature index, so
  the two agree to :math:`10^{-8}` only when no such tie occurs (e.g. with
  continuous sample weights). scikit-learn also sometimes splits a node whose
  pseudo-residuals are all equal, when rounding makes its impurity positive;
  this tree does not;
* ``train_score_`` here is the mean loss with the conventions of
  :mod:`ensemble_ref.math.losses`, so scikit-learn's ``train_score_`` is **twice** ours
  for ``squared_error`` (it reports the mean squared error) and for the log loss (the
  binomial deviance), and equal for ``absolute_error``;
* with ``subsample < 1`` each stage draws ``max(1, int(subsample * n))`` rows
  without replacement (scikit-learn's count, but from this package's random
  generator, so the draws differ), fits the tree and the leaf values on them only,
  and reports ``train_score_`` on them.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin, RegressorMixin
from ..core.validation import (
    check_array,
    check_choice,
    check_class_weights,
    check_finite_scores,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..math import gradient_boosting as formulas
from ..math import importance
from ..math.gradient_boosting import weighted_median
from ..math.losses import get_loss, sigmoid
from ..trees.cart import DecisionTreeRegressor
from ..trees.engine import SortedColumns, to_float32
from ..trees.leaves import tree_leaves

__all__ = ["GradientBoostingRegressor", "GradientBoostingClassifier"]


class _BaseGradientBoosting(BaseEstimator):
    """The boosting loop shared by the regressor and the classifier."""

    _losses: tuple = ()

    def _validate_params(self) -> None:
        check_choice(self.loss, "loss", self._losses)
        check_int(self.n_estimators, "n_estimators", low=1)
        check_float(self.learning_rate, "learning_rate", low=0.0, low_open=True)
        check_int(self.max_depth, "max_depth", low=1)
        check_int(self.min_samples_leaf, "min_samples_leaf", low=1)
        check_float(self.subsample, "subsample", low=0.0, high=1.0, low_open=True)

    def _boost(self, X: np.ndarray, y: np.ndarray, sample_weight: Any) -> None:
        self._validate_params()
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        sw = check_sample_weight(sample_weight, n, scale_free=True)
        L = get_loss(self.loss)
        nu = float(self.learning_rate)
        self.n_features_in_ = X.shape[1]
        data = SortedColumns(to_float32(X))  # X rounded and sorted once for every stage
        self.init_ = self._init_value(y, None if sample_weight is None else sw)  # F_0, eq-gb-init
        F = np.full(n, self.init_)  # F_{m-1}(x_i)
        n_inbag = max(1, int(self.subsample * n))
        self.estimators_, scores = [], []
        for m in range(self.n_estimators):
            in_bag = (np.ones(n, dtype=bool) if n_inbag == n  # else stochastic gradient boosting
                      else np.isin(np.arange(n), rng.choice(n, n_inbag, replace=False)))
            r = -L.unchecked("gradient")(y, F)  # eq-gb-residual: pseudo-residuals
            tree = DecisionTreeRegressor(max_depth=self.max_depth,
                                         min_samples_leaf=self.min_samples_leaf)
            tree.fit_presorted(data, r, sw * in_bag)  # out-of-bag rows get weight 0
            leaves = tree.tree_.apply(data.XT.T)
            self._set_leaf_values(tree, leaves, in_bag, y, F, r, sw)  # eq-gb-leaf
            with np.errstate(over="ignore", invalid="ignore"):  # checked on the next line
                F = F + nu * tree.tree_.value[leaves]  # F_m = F_{m-1} + nu w_jm
            check_finite_scores(F, self.learning_rate, m + 1)
            self.estimators_.append(tree)
            scores.append(np.average(L.unchecked("value")(y[in_bag], F[in_bag]),
                                     weights=sw[in_bag]))
        self.train_score_ = np.array(scores)

    def _set_leaf_values(self, tree: DecisionTreeRegressor, leaves: np.ndarray,
                         in_bag: np.ndarray, y: np.ndarray, F: np.ndarray, r: np.ndarray,
                         sw: np.ndarray) -> None:
        """Overwrite the tree's leaf values by the loss's optimal steps (squared error: keep)."""
        if self.loss == "squared_error":  # the leaf means of the residuals are optimal
            return
        value = tree.tree_.value
        hessian = get_loss(self.loss).unchecked("hessian")
        for leaf in np.flatnonzero(tree.tree_.children_left == -1):
            idx = np.flatnonzero(in_bag & (leaves == leaf))
            if idx.size == 0:
                continue
            if self.loss == "absolute_error":  # median of y_i - F_{m-1}(x_i) in the leaf
                value[leaf] = formulas._weighted_median(y[idx] - F[idx], sw[idx])
            else:  # log loss: Newton step with h_i = p_i (1 - p_i)
                value[leaf] = formulas._newton_step(r[idx], hessian(y[idx], F[idx]), sw[idx])

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean of the stage trees' unnormalised MDIs, normalised (equation ``eq-rf-mdi``).

        :func:`~ensemble_ref.math.importance.boosted_mdi`, scikit-learn's definition for
        gradient boosting: each tree's impurity decreases (of the squared error of what it
        fits, the negative gradients) divided by its root weight, averaged over the trees
        that split, then divided by their sum.
        """
        self._check_is_fitted("estimators_")
        return importance.boosted_mdi(self.estimators_, self.n_features_in_)

    def _staged_raw(self, X: Any) -> Iterator[np.ndarray]:
        self._check_is_fitted("estimators_")
        X32 = to_float32(check_array(X, estimator=self))  # validated once
        F = np.full(X32.shape[0], self.init_)
        trees = [tree.tree_ for tree in self.estimators_]
        for tree, leaves in zip(trees, tree_leaves(trees, X32)):  # the trees descend together
            F = F + self.learning_rate * tree.value[leaves]
            yield F

    def _raw(self, X: Any) -> np.ndarray:
        F = None
        for F in self._staged_raw(X):
            pass
        return F


_GB_PARAMS = """
    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting stages :math:`M`.
    learning_rate : float, default=0.1
        Shrinkage :math:`\\nu > 0`.
    max_depth : int, default=3
        Depth of each regression tree.
    min_samples_leaf : int, default=1
        Minimum number of samples in each leaf.
    subsample : float in (0, 1], default=1.0
        Fraction of the rows used by each stage (stochastic gradient boosting).
    random_state : None, int or numpy.random.Generator
        Seed of the row subsampling.
"""

_GB_ATTRIBUTES = """
    Attributes
    ----------
    init_ : float
        The initial raw prediction :math:`F_0` (equation ``eq-gb-init``).
    estimators_ : list of DecisionTreeRegressor
        The stage trees, with their leaf values :math:`w_{jm}` in ``tree_.value``
        (before the learning rate).
    train_score_ : ndarray of shape (n_estimators,)
        Mean (weighted, in-bag) training loss after each stage, with the loss
        conventions of :mod:`ensemble_ref.math.losses`.
    n_features_in_ : int
"""


class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    __doc__ = r"""Gradient boosting for regression (squared or absolute error).
    """ + _GB_PARAMS + """    loss : {"squared_error", "absolute_error"}, default="squared_error"
        :math:`\\tfrac12 (y - F)^2` or :math:`|y - F|`.
""" + _GB_ATTRIBUTES + """
    Notes
    -----
    See the module docstring for the algorithm (equations ``eq-gb-init``,
    ``eq-gb-residual``, ``eq-gb-leaf``) and the exact relation to scikit-learn.
    """

    _losses = ("squared_error", "absolute_error")

    def __init__(self, *, loss: str = "squared_error", n_estimators: int = 100,
                 learning_rate: float = 0.1, max_depth: int = 3, min_samples_leaf: int = 1,
                 subsample: float = 1.0, random_state: Any = None) -> None:
        self.loss = loss
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.subsample = subsample
        self.random_state = random_state

    def _init_value(self, y: np.ndarray, sw: np.ndarray | None) -> float:
        if self.loss == "squared_error":
            return float(np.average(y, weights=sw))  # the mean minimises the squared error
        if sw is None:
            return float(np.median(y))  # scikit-learn's initial median (middle average)
        return weighted_median(y, sw)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "GradientBoostingRegressor":
        """Fit ``n_estimators`` stages to ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        self._boost(X, y, sample_weight)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """:math:`F_M(x) = F_0 + \\nu \\sum_m w_{j(x)m}`, :math:`j(x)` the leaf of :math:`x` in tree :math:`m`."""
        return self._raw(X).copy()

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield :math:`F_m(x)` for ``m = 1, ..., M``."""
        for F in self._staged_raw(X):
            yield F.copy()


class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    _binary_only = True  # the log loss of two classes
    __doc__ = r"""Gradient boosting for two classes with the log loss and Newton leaf values.

    The raw score :math:`F` is the log-odds of ``classes_[1]``; the leaves hold
    one Newton step (LogitBoost-style), see :func:`~ensemble_ref.math.gradient_boosting.newton_leaf_value`.
    """ + _GB_PARAMS + """    loss : {"log_loss"}, default="log_loss"
""" + _GB_ATTRIBUTES + """    classes_ : ndarray of shape (2,)

    Notes
    -----
    ``init_`` is :math:`\\log(\\bar y / (1 - \\bar y))` for the weighted fraction
    :math:`\\bar y` of ``classes_[1]``. See the module docstring for the relation to
    scikit-learn (its ``train_score_`` is the deviance, twice ours).
    """

    _losses = ("log_loss",)

    def __init__(self, *, loss: str = "log_loss", n_estimators: int = 100,
                 learning_rate: float = 0.1, max_depth: int = 3, min_samples_leaf: int = 1,
                 subsample: float = 1.0, random_state: Any = None) -> None:
        self.loss = loss
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.subsample = subsample
        self.random_state = random_state

    def _init_value(self, y: np.ndarray, sw: np.ndarray | None) -> float:
        p = np.average(y, weights=sw)  # weighted fraction of class 1, strictly in (0, 1)
        return float(np.log(p) - np.log1p(-p))  # the log-odds minimise the log loss

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "GradientBoostingClassifier":
        """Fit ``n_estimators`` stages to ``(X, y)``; ``y`` must have exactly two classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels of exactly two classes (any values).
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y01 = check_labels(y, n_classes=2)
        check_class_weights(y01, sample_weight, self.classes_)
        self._boost(X, y01.astype(np.float64), sample_weight)
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The raw score :math:`F_M(x)`, the log-odds of ``classes_[1]``."""
        return self._raw(X).copy()

    def staged_decision_function(self, X: Any) -> Iterator[np.ndarray]:
        """Yield :math:`F_m(x)` for ``m = 1, ..., M``."""
        for F in self._staged_raw(X):
            yield F.copy()

    def predict_proba(self, X: Any) -> np.ndarray:
        """Probabilities of ``classes_[0]`` and ``classes_[1]``, shape (n_samples, 2)."""
        p = sigmoid(self._raw(X))
        return np.column_stack([1.0 - p, p])

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the class probabilities after each stage."""
        for F in self._staged_raw(X):
            p = sigmoid(F)
            yield np.column_stack([1.0 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where :math:`F_M(x) > 0`, else ``classes_[0]``."""
        F = self._raw(X)  # checks that the model is fitted before classes_ is read
        return self.classes_[(F > 0).astype(np.intp)]

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the predicted labels after each stage."""
        for F in self._staged_raw(X):
            yield self.classes_[(F > 0).astype(np.intp)]
