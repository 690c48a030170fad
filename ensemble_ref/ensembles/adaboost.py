r"""AdaBoost with the book's conventions, SAMME for several classes (chapter *AdaBoost*).

Binary AdaBoost with labels :math:`y_i \in \{-1, +1\}` and weak learners
:math:`h_t(x) \in \{-1, +1\}` repeats, for :math:`t = 1, \dots, M`:

1. fit :math:`h_t` to the weighted sample, weights :math:`D_t(i)` summing to 1;
2. weighted error :math:`\epsilon_t = \sum_i D_t(i)\, [h_t(x_i) \ne y_i]`
   (equation ``eq-adaboost-eps``);
3. vote :math:`\alpha_t = \tfrac12 \ln\frac{1 - \epsilon_t}{\epsilon_t}`
   (equation ``eq-adaboost-alpha``);
4. reweight :math:`D_{t+1}(i) = D_t(i)\, e^{-\alpha_t y_i h_t(x_i)} / Z_t` with the
   normaliser :math:`Z_t = \sum_i D_t(i)\, e^{-\alpha_t y_i h_t(x_i)}
   = 2\sqrt{\epsilon_t (1 - \epsilon_t)}` (equations ``eq-adaboost-weights`` and
   ``eq-adaboost-z``);

and outputs :math:`\operatorname{sign} F_M(x)` with
:math:`F_M(x) = \sum_t \alpha_t h_t(x)`. Its training error is at most
:math:`\prod_t Z_t \le \exp(-2 \sum_t \gamma_t^2)`, :math:`\gamma_t = \tfrac12 - \epsilon_t`
(equation ``eq-adaboost-bound``).

**Several classes (SAMME).** With :math:`K` classes the weak learner predicts a
class, a correct vote counts :math:`+1` and a wrong one :math:`-1`, and the vote
becomes :math:`\alpha_t = \tfrac12\left[\ln\frac{1 - \epsilon_t}{\epsilon_t} +
\ln(K - 1)\right]`, positive as long as :math:`\epsilon_t < 1 - 1/K`. The score of
class :math:`k` is :math:`F_k(x) = \sum_t \alpha_t c_{tk}(x)` with the SAMME code
:math:`c_{tk} = 1` if :math:`h_t(x) = k` and :math:`-1/(K - 1)` otherwise; for
:math:`K = 2` this is exactly the binary algorithm.

**Relation to scikit-learn.** ``sklearn.ensemble.AdaBoostClassifier`` (SAMME)
uses the vote :math:`\beta_t = 2\alpha_t` (no factor 1/2) with an update that
multiplies only the misclassified weights by :math:`e^{\beta_t}` (equation
``eq-adaboost-literature``), which gives the same normalised weights and the same
learners; its ``decision_function`` sums :math:`\beta_t` times the SAMME code of
each learner and divides by :math:`\sum_t \beta_t` (for two classes it returns the
difference of the two columns). Hence, for the same learning rate,

.. math:: \text{sklearn} = \frac{2 F(x)}{\sum_t \alpha_t} \;(K = 2), \qquad
          \text{sklearn}_k = \frac{F_k(x)}{\sum_t \alpha_t} \;(K > 2),

and its ``predict_proba`` is the softmax of :math:`(-d/2, d/2)` for the two-class
decision function :math:`d`, i.e. :math:`\sigma(2F/\sum_t \alpha_t)`, and of
:math:`d_k/(K-1)` for :math:`K > 2`.

**Degenerate rounds** (no division by zero ever happens):

* :math:`\epsilon_t = 0`: the learner is perfect on the weighted sample, so
  :math:`\alpha_t = +\infty` and :math:`Z_t = 0`. Boosting stops; the learner is
  kept with ``estimator_weights_[t] = inf``, so the ensemble predicts exactly as
  :math:`h_t` and ``decision_function`` is :math:`\pm\infty` (the limit of the
  exponential-loss minimisation). The bound :math:`\prod_t Z_t = 0` matches the
  zero training error.
* :math:`\epsilon_t \ge 1 - 1/K` (:math:`\ge 1/2` for two classes, up to a
  tolerance of ``1e-12``): the learner is no better than chance, :math:`\alpha_t
  \le 0`, and the weights would not move. The learner is discarded and boosting
  stops; if this happens in the first round there is no ensemble and ``fit``
  raises ``ValueError``.

* :math:`0 \le \epsilon_t < n u` (:math:`u = 2^{-52}`) although :math:`h_t` errs on
  points of positive initial weight: their weights have collapsed below the
  rounding of a sum of the weights (a ``learning_rate`` above 1 squares the error
  from round to round; the update itself is computed in log space and never
  underflows to NaN). The error cannot be told from 0 and the vote would be set
  by rounding noise, so boosting stops without :math:`h_t`
  (``stop_reason_ = "degenerate"``).

``stop_reason_`` records which of these ended the loop.
"""

from __future__ import annotations

import warnings
from typing import Any, Iterator

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin
from ..core.base import accepts_sample_weight as _accepts_sample_weight
from ..core.validation import (
    check_array,
    check_bool,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..math import adaboost as formulas
from ..math import importance
from ..trees.stump import DecisionStump, best_stump, presort_stump

__all__ = ["AdaBoostClassifier"]

# An error within this distance of chance level (1 - 1/K) counts as chance.
_CHANCE_TOL = 1e-12


# --- AdaBoost ----------------------------------------------------------------------------


def _clone(estimator: Any, rng: np.random.Generator) -> Any:
    """A fresh, unfitted copy of ``estimator`` (its ``random_state`` drawn from ``rng``)."""
    params = estimator.get_params(deep=False)
    if "random_state" in params:
        params["random_state"] = int(rng.integers(np.iinfo(np.int32).max))
    return type(estimator)(**params)


class AdaBoostClassifier(ClassifierMixin, BaseEstimator):
    r"""AdaBoost (two classes) and SAMME (several classes) with the book's vote :math:`\alpha_t`.

    Parameters
    ----------
    estimator : object, default=None
        The weak learner, an unfitted classifier whose ``fit`` accepts
        ``sample_weight`` (it is copied each round through ``get_params``). The
        default is :class:`~ensemble_ref.trees.stump.DecisionStump`, the weighted-0-1-error stump of the
        textbook algorithm. A depth-1 Gini tree (scikit-learn's
        ``DecisionTreeClassifier(max_depth=1)``) is the other usual choice.
    n_estimators : int, default=50
        Maximum number of rounds :math:`M`.
    learning_rate : float, default=1.0
        Shrinkage :math:`\nu > 0`: the vote is :math:`\nu\alpha_t`.
    random_state : None, int or numpy.random.Generator
        Seeds the ``random_state`` of each copy of ``estimator`` that has one.
        The default stump is deterministic.
    record_weights : bool, default=False
        Keep the weight vector :math:`D_t` of every round in ``sample_weights_``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_classes_ : int
    n_features_in_ : int
    estimators_ : list
        The fitted weak learners :math:`h_1, \dots, h_M` (:math:`M` may be smaller
        than ``n_estimators`` when boosting stopped early).
    estimator_errors_ : ndarray of shape (M,)
        Weighted errors :math:`\epsilon_t` (equation ``eq-adaboost-eps``).
    estimator_weights_ : ndarray of shape (M,)
        Votes :math:`\alpha_t` (equation ``eq-adaboost-alpha``, times
        ``learning_rate``); ``inf`` for a perfect learner.
    normalizers_ : ndarray of shape (M,)
        :math:`Z_t = \sum_i D_t(i) e^{-\alpha_t y_i h_t(x_i)}` as computed from the
        weights (equation ``eq-adaboost-z``); the training error after round
        :math:`t` is at most ``np.cumprod(normalizers_)[t]``.
    sample_weights_ : ndarray of shape (M, n_samples)
        Only with ``record_weights=True``: row ``t`` is :math:`D_{t+1}`, the
        normalised weights that learner ``t`` was fitted on (each row sums to 1).
    stop_reason_ : {"n_estimators", "perfect", "chance", "degenerate"}
        Why the loop ended (see the module notes).

    Notes
    -----
    ``decision_function`` returns :math:`F(x) = \sum_t \alpha_t h_t(x)` (two
    classes) or the SAMME scores :math:`F_k(x)`; see the module docstring for the
    exact factor relating it to scikit-learn's ``decision_function``.
    """

    def __init__(self, estimator: Any = None, *, n_estimators: int = 50,
                 learning_rate: float = 1.0, random_state: Any = None,
                 record_weights: bool = False) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.random_state = random_state
        self.record_weights = record_weights

    def _validate_estimator(self) -> Any:
        estimator = DecisionStump() if self.estimator is None else self.estimator
        for method in ("fit", "predict", "get_params"):
            if not callable(getattr(estimator, method, None)):
                raise TypeError(
                    f"estimator must be a classifier with fit, predict and get_params methods; "
                    f"{type(estimator).__name__} has no {method!r}."
                )
        if not _accepts_sample_weight(estimator):
            raise TypeError(
                f"estimator must accept sample_weight in fit (AdaBoost reweights the data); "
                f"{type(estimator).__name__}.fit does not."
            )
        return estimator

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "AdaBoostClassifier":
        """Run AdaBoost (SAMME for more than two classes) on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, at least two distinct values.
        sample_weight : array-like of shape (n_samples,), optional
            Initial weights :math:`D_1` (normalised to sum 1); uniform by default.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, estimator=self)
        classes, y_enc = check_labels(y)
        T = check_int(self.n_estimators, "n_estimators", low=1)
        nu = check_float(self.learning_rate, "learning_rate", low=0.0, low_open=True)
        check_bool(self.record_weights, "record_weights")
        rng = check_random_state(self.random_state)
        prototype = self._validate_estimator()
        D = check_sample_weight(sample_weight, X.shape[0])
        D = D / D.sum()  # D_1, the initial distribution
        self.classes_, self.n_classes_, self.n_features_in_ = classes, classes.size, X.shape[1]
        # the default stump: the sort order does not depend on the weights, so sort once
        counted = D > 0  # points of zero initial weight never count, nor set thresholds
        presorted = (presort_stump(X[counted]), counted) if self.estimator is None else None
        self.estimators_, errors, alphas, Zs, history = [], [], [], [], []
        self.stop_reason_ = "n_estimators"
        resolution = X.shape[0] * np.finfo(np.float64).eps  # rounding of a sum of the weights
        for t in range(T):
            h = self._weak_learner(X, y, y_enc, D, presorted, prototype, rng)
            wrong = self._class_index(h, X) != y_enc
            eps = formulas._weighted_error(D, wrong)  # eq-adaboost-eps
            if self._chance(eps, t):
                break
            if t > 0 and eps < resolution and np.any(wrong & counted):
                # the learner errs only on points whose weights have collapsed (a large
                # learning_rate): its error is not 0, only below the rounding of the weights
                self.stop_reason_ = "degenerate"
                break
            if self.record_weights:
                history.append(D.copy())
            self.estimators_.append(h)
            errors.append(eps)
            if eps == 0.0:  # perfect learner: alpha_t = +inf, Z_t = 0, nothing left to reweight
                alphas.append(np.inf)
                Zs.append(0.0)
                self.stop_reason_ = "perfect"
                break
            alpha = float(formulas._alpha(eps, self.n_classes_, nu))  # eq-adaboost-alpha
            D, Z = formulas._reweight(D, np.where(wrong, -1.0, 1.0), alpha)  # D_{t+1}, Z_t
            alphas.append(alpha)
            Zs.append(Z)
        self.estimator_errors_ = np.array(errors)
        self.estimator_weights_ = np.array(alphas)
        self.normalizers_ = np.array(Zs)
        if self.record_weights:
            self.sample_weights_ = np.array(history)
        if nu > 1.0:
            self._warn_if_worse_than_constant(X, y_enc, counted, nu)
        return self

    def _warn_if_worse_than_constant(self, X, y_enc, counted, nu) -> None:
        """With ``learning_rate > 1`` each vote can outgrow all the previous ones (the
        error is raised to the power ``learning_rate`` from round to round), and the
        ensemble can end below the majority class on its own training data: say so."""
        F = sum(alpha * self._codes(h, X) for alpha, h in zip(self.estimator_weights_, self.estimators_))
        accuracy = float(np.mean(self._label(F[:, 1] if self.n_classes_ == 2 else F)[counted]
                                 == self.classes_[y_enc[counted]]))
        majority = float(np.max(np.bincount(y_enc[counted])) / np.sum(counted))
        if accuracy < majority:
            warnings.warn(
                f"AdaBoostClassifier ended with training accuracy {accuracy:.3f}, below the "
                f"{majority:.3f} of the majority class: with learning_rate={nu:g} > 1 each vote "
                f"outgrows the previous ones (stop_reason_={self.stop_reason_!r}); use a "
                "learning_rate of at most 1.", UserWarning, stacklevel=3)

    def _weak_learner(self, X, y, y_enc, D, presorted, prototype, rng) -> Any:
        """h_t fitted to the weights D_t: the presorted stump, or a copy of ``estimator``."""
        if presorted is not None:  # sorted without the points of zero initial weight
            (order, Xs, ok), counted = presorted
            stump = best_stump(order, Xs, ok, y_enc[counted], D[counted], self.n_classes_)
            return DecisionStump.from_split(self.classes_, X.shape[1], *stump)
        h = _clone(prototype, rng)
        return h.fit(X, y, sample_weight=D)

    def _chance(self, eps: float, t: int) -> bool:
        """Whether h_t is no better than chance (alpha_t <= 0): boosting stops."""
        K = self.n_classes_
        if eps < 1.0 - 1.0 / K - _CHANCE_TOL:
            return False
        if t == 0:
            raise ValueError(
                f"the weak learner is no better than chance in the first round "
                f"(weighted error {eps:.6g} >= {1 - 1 / K:.6g}); AdaBoost cannot start."
            )
        self.stop_reason_ = "chance"
        return True

    # --- prediction ------------------------------------------------------------------

    @property
    def feature_importances_(self) -> np.ndarray:
        r"""The members' importances averaged with their votes :math:`\alpha_t`, normalised.

        :func:`~ensemble_ref.math.importance.ensemble_mdi` of the members'
        ``feature_importances_`` (equation ``eq-rf-mdi`` for trees; one feature per stump)
        weighted by ``estimator_weights_``, as scikit-learn's ``AdaBoostClassifier``; a
        perfect member (an infinite vote) outweighs the others. An ``AttributeError`` when
        the weak learner has no ``feature_importances_``.
        """
        self._check_is_fitted("estimators_")
        if not all(hasattr(h, "feature_importances_") for h in self.estimators_):
            raise AttributeError(f"feature_importances_ needs weak learners that have one; "
                                 f"{type(self.estimators_[0]).__name__} has none.")
        return importance.ensemble_mdi([h.feature_importances_ for h in self.estimators_],
                                       self.estimator_weights_)

    def _class_index(self, h: Any, X: np.ndarray) -> np.ndarray:
        """Index in ``classes_`` of the class that learner ``h`` predicts for each row."""
        if isinstance(h, DecisionStump):
            return h._predict_index(X)
        pred = np.asarray(h.predict(X))
        index = np.clip(np.searchsorted(self.classes_, pred), 0, self.n_classes_ - 1)
        if pred.shape != (X.shape[0],) or np.any(self.classes_[index] != pred):
            raise ValueError("the weak learner predicted labels that are not classes of y.")
        return index

    def _codes(self, h: Any, X: np.ndarray) -> np.ndarray:
        """SAMME code of learner ``h``: 1 in the predicted class, -1/(K-1) elsewhere."""
        return formulas._samme_codes(self._class_index(h, X), self.n_classes_)

    def staged_decision_function(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the decision function after each round ``t = 1, ..., M``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            :math:`F_t(x) = \\sum_{s \\le t} \\alpha_s h_s(x)`.
        """
        self._check_is_fitted("estimators_")
        X = check_array(X, estimator=self)
        F = np.zeros((X.shape[0], self.n_classes_))
        for alpha, h in zip(self.estimator_weights_, self.estimators_):
            F += alpha * self._codes(h, X)  # F_t = F_{t-1} + alpha_t h_t (in place: copies go out)
            yield F[:, 1].copy() if self.n_classes_ == 2 else F.copy()

    def decision_function(self, X: Any) -> np.ndarray:
        """The weighted vote :math:`F(x) = \\sum_t \\alpha_t h_t(x)` (SAMME scores for K > 2).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means ``classes_[1]``),
        else (n_samples, n_classes)
        """
        F = None
        for F in self.staged_decision_function(X):
            pass
        return F

    def _proba(self, F: np.ndarray) -> np.ndarray:
        return formulas._proba(F, self.n_classes_)

    def predict_proba(self, X: Any) -> np.ndarray:
        r"""Class probabilities from the exponential-loss link, shape (n_samples, n_classes).

        Notes
        -----
        The population minimiser of the exponential loss is
        :math:`F(x) = \tfrac12 \ln\frac{p(x)}{1 - p(x)}` for two classes
        (Friedman, Hastie and Tibshirani, 2000), so :math:`p = \sigma(2F)`; for
        SAMME's codes it is :math:`F_k = (K-1)(\ln p_k - \tfrac1K\sum_j \ln p_j)`,
        so :math:`p_k \propto e^{F_k/(K-1)}` (``ensemble_ref.math.adaboost._proba``).
        Both are the same formula. scikit-learn applies it to the scores divided by
        :math:`\sum_t \alpha_t` (two classes: :math:`p = \sigma(2F/\sum_t \alpha_t)`,
        between :math:`\sigma(-2)` and :math:`\sigma(2)`), which changes the
        probabilities but never their arg-max: both predict the labels of
        :meth:`predict`.
        """
        return self._proba(self.decision_function(X))

    def staged_predict_proba(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the class probabilities after each round."""
        for F in self.staged_decision_function(X):
            yield self._proba(F)

    def _label(self, F: np.ndarray) -> np.ndarray:
        if self.n_classes_ == 2:
            return self.classes_[(F > 0).astype(np.intp)]
        return self.classes_[np.argmax(F, axis=1)]

    def predict(self, X: Any) -> np.ndarray:
        """Predict ``sign F(x)`` (two classes) or ``argmax_k F_k(x)``, as class labels."""
        return self._label(self.decision_function(X))

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the predicted labels after each round."""
        for F in self.staged_decision_function(X):
            yield self._label(F)
