r"""AdaBoost with the book's conventions, SAMME for several classes (chapter *AdaBoost*).

Binary AdaBoost with labels :math:`y_i \in \{-1, +1\}` and weak learners
:math:`h_t(x) \in \{-1, +1\}` repeats, for :math:`t = 1, \dots, T`:

1. fit :math:`h_t` to the weighted sample, weights :math:`D_t(i)` summing to 1;
2. weighted error :math:`\epsilon_t = \sum_i D_t(i)\, [h_t(x_i) \ne y_i]`
   (equation ``eq-adaboost-eps``);
3. vote :math:`\alpha_t = \tfrac12 \ln\frac{1 - \epsilon_t}{\epsilon_t}`
   (equation ``eq-adaboost-alpha``);
4. reweight :math:`D_{t+1}(i) = D_t(i)\, e^{-\alpha_t y_i h_t(x_i)} / Z_t` with the
   normaliser :math:`Z_t = \sum_i D_t(i)\, e^{-\alpha_t y_i h_t(x_i)}
   = 2\sqrt{\epsilon_t (1 - \epsilon_t)}` (equations ``eq-adaboost-weights`` and
   ``eq-adaboost-z``);

and outputs :math:`\operatorname{sign} F_T(x)` with
:math:`F_T(x) = \sum_t \alpha_t h_t(x)`. Its training error is at most
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
uses the vote :math:`w_t = 2\alpha_t` (no factor 1/2), which gives the same
normalised weights and the same learners, and its ``decision_function`` divides
by :math:`\sum_t w_t`. Hence, for the same learning rate,

.. math:: \text{sklearn} = \frac{2 F(x)}{\sum_t \alpha_t} \;(K = 2), \qquad
          \text{sklearn}_k = \frac{F_k(x)}{\sum_t \alpha_t} \;(K > 2).

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

``stop_reason_`` records which of these ended the loop.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ._base import BaseEstimator, ClassifierMixin
from ._base import accepts_sample_weight as _accepts_sample_weight
from ._validation import (
    check_array,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_X_y,
)

__all__ = [
    "AdaBoostClassifier",
    "DecisionStump",
    "adaboost_alpha",
    "adaboost_normalizer",
    "adaboost_product_bound",
    "adaboost_exponential_bound",
]

# An error within this distance of chance level (1 - 1/K) counts as chance.
_CHANCE_TOL = 1e-12


# --- the mathematics as small pure functions ---------------------------------------------


def _check_errors(eps: Any, name: str = "eps") -> np.ndarray:
    eps = np.asarray(eps)
    if eps.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain real numbers, got dtype {eps.dtype}.")
    eps = eps.astype(np.float64)
    if not np.isfinite(eps).all() or (eps < 0).any() or (eps > 1).any():
        raise ValueError(f"{name} must contain weighted errors in [0, 1], got {eps!r}.")
    return eps


def adaboost_alpha(eps: Any, n_classes: int = 2, learning_rate: float = 1.0
                   ) -> np.ndarray | float:
    r"""The vote of a weak learner with weighted error ``eps``.

    Parameters
    ----------
    eps : float or array of float in [0, 1]
        Weighted error :math:`\epsilon_t`.
    n_classes : int, default=2
        Number of classes :math:`K \ge 2` (SAMME adds :math:`\ln(K - 1)`).
    learning_rate : float, default=1.0
        Shrinkage :math:`\nu > 0` multiplying the vote.

    Returns
    -------
    float or ndarray
        :math:`\alpha = \tfrac{\nu}{2}\left[\ln\frac{1 - \epsilon}{\epsilon} + \ln(K - 1)\right]`;
        ``+inf`` for :math:`\epsilon = 0` and ``-inf`` for :math:`\epsilon = 1`.

    Notes
    -----
    Equation ``eq-adaboost-alpha``: the minimiser over :math:`\alpha` of the
    exponential loss :math:`(1 - \epsilon) e^{-\alpha} + \epsilon e^{\alpha}` (for
    :math:`K = 2`, :math:`\nu = 1`). It is positive exactly when
    :math:`\epsilon < 1 - 1/K`.
    """
    eps = _check_errors(eps)
    K = check_int(n_classes, "n_classes", low=2)
    nu = check_float(learning_rate, "learning_rate", low=0.0, low_open=True)
    with np.errstate(divide="ignore"):  # eps = 0 or 1 give the limits +inf and -inf
        alpha = 0.5 * nu * (np.log1p(-eps) - np.log(eps) + np.log(K - 1.0))  # eq-adaboost-alpha
    return float(alpha) if alpha.ndim == 0 else alpha


def adaboost_normalizer(eps: Any, alpha: Any) -> np.ndarray | float:
    r"""The normaliser :math:`Z = (1 - \epsilon) e^{-\alpha} + \epsilon e^{\alpha}`.

    Parameters
    ----------
    eps : float or array of float in [0, 1]
        Weighted error of the round.
    alpha : float or array of float
        The vote given to the learner.

    Returns
    -------
    float or ndarray
        :math:`Z_t = \sum_i D_t(i) e^{-\alpha_t y_i h_t(x_i)}` written with the error
        (equation ``eq-adaboost-z``). At the optimal vote it equals
        :math:`2\sqrt{\epsilon(1 - \epsilon)}`; at :math:`\epsilon = 0,\ \alpha = \infty`
        it is 0.
    """
    eps = _check_errors(eps)
    alpha = np.asarray(alpha, dtype=np.float64)
    if np.isnan(alpha).any():
        raise ValueError("alpha must not contain NaN.")
    # Terms with a zero weight are zero even when the exponential is infinite.
    right = np.where(eps < 1, (1 - eps) * np.exp(-np.where(eps < 1, alpha, 0.0)), 0.0)
    wrong = np.where(eps > 0, eps * np.exp(np.where(eps > 0, alpha, 0.0)), 0.0)
    Z = right + wrong  # eq-adaboost-z
    return float(Z) if Z.ndim == 0 else Z


def adaboost_product_bound(eps: Any) -> np.ndarray:
    r"""Training-error bound after each round, :math:`\prod_{s \le t} 2\sqrt{\epsilon_s(1 - \epsilon_s)}`.

    Parameters
    ----------
    eps : array of float in [0, 1], shape (T,)
        The weighted errors :math:`\epsilon_1, \dots, \epsilon_T` (e.g.
        ``estimator_errors_``).

    Returns
    -------
    ndarray, shape (T,)
        Entry ``t`` is :math:`\prod_{s \le t} Z_s` with the optimal votes
        (equation ``eq-adaboost-bound``).
    """
    eps = np.atleast_1d(_check_errors(eps))
    return np.cumprod(2.0 * np.sqrt(eps * (1.0 - eps)))  # prod_t Z_t, Z_t = 2 sqrt(eps(1-eps))


def adaboost_exponential_bound(eps: Any) -> np.ndarray:
    r"""The weaker bound :math:`\exp(-2 \sum_{s \le t} \gamma_s^2)`, edges :math:`\gamma_s = \tfrac12 - \epsilon_s`.

    Parameters
    ----------
    eps : array of float in [0, 1], shape (T,)
        The weighted errors of the rounds.

    Returns
    -------
    ndarray, shape (T,)
        Entry ``t`` is :math:`e^{-2\sum_{s \le t}\gamma_s^2}`, which is at least the
        product bound because :math:`2\sqrt{\epsilon(1 - \epsilon)} = \sqrt{1 - 4\gamma^2}
        \le e^{-2\gamma^2}` (equation ``eq-adaboost-bound``).
    """
    eps = np.atleast_1d(_check_errors(eps))
    gamma = 0.5 - eps  # edge over random guessing
    return np.exp(-2.0 * np.cumsum(gamma**2))


# --- the default weak learner: a stump minimising the weighted 0-1 error ---------------------


def _presort(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort every feature once: ``(order, Xs, ok)``, each of shape (n_features, n_samples).

    Row ``j`` of ``Xs`` is feature ``j`` in increasing order and row ``j`` of
    ``order`` the samples holding those values; ``ok[j, i]`` says whether a
    split may follow sorted position ``i`` (the next value is larger). The last
    position, "everything on the left", is the constant classifier and is always
    allowed. (Features are rows so that the scans below run over contiguous memory.)
    """
    order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
    Xs = np.take_along_axis(X.T, order, axis=1)
    ok = np.ones(order.shape, dtype=bool)
    ok[:, :-1] = Xs[:, 1:] > Xs[:, :-1]
    return order, Xs, ok


def _best_stump(order: np.ndarray, Xs: np.ndarray, ok: np.ndarray, y: np.ndarray,
                w: np.ndarray, n_classes: int) -> tuple[int, float, int, int, float]:
    """Stump with the smallest weighted 0-1 error, from the presorted features of :func:`_presort`.

    Returns ``(feature, threshold, left_class, right_class, error)``: ``x_j <=
    threshold`` goes left, and each side predicts its weighted majority class
    (for two classes this covers both signs of the textbook stump). Ties go to
    the lowest feature, then the smallest threshold.
    """
    d, n = Xs.shape
    W = w.sum()
    if n_classes == 2:
        # With y in {-1, +1}, S[j, i] = sum of w y over the i + 1 smallest values of
        # feature j (the left side). A side with signed weight s and total weight m errs
        # by (m - |s|) / 2 when it predicts sign(s), so error = (W - |S| - |S_total - S|) / 2.
        S = np.where(y == 1, w, -w)[order]
        np.cumsum(S, axis=1, out=S)
        score = np.abs(S[:, -1:] - S)
        score += np.abs(S)  # W - 2 * error, to maximise (in place: n x d arrays are the cost)
        np.copyto(score, -1.0, where=~ok)
        j, i = np.unravel_index(np.argmax(score), (d, n))  # first feature, then smallest threshold
        err = max(0.5 * (W - score[j, i]), 0.0)
        left_class, right_class = int(S[j, i] > 0), int(S[j, -1] - S[j, i] > 0)
    else:
        # C[k, j, i]: weight of class k among the i + 1 smallest values of feature j.
        C = np.stack([np.cumsum(np.where(y == k, w, 0.0)[order], axis=1)
                      for k in range(n_classes)])
        R = C[:, :, -1:] - C  # class weights on the right
        left = C.sum(axis=0)  # total weight on the left
        # each side predicts its majority class and errs by the rest of its weight
        errors = (left - C.max(axis=0)) + ((W - left) - R.max(axis=0))
        np.copyto(errors, np.inf, where=~ok)
        j, i = np.unravel_index(np.argmin(errors), (d, n))
        err = max(float(errors[j, i]), 0.0)
        left_class, right_class = int(np.argmax(C[:, j, i])), int(np.argmax(R[:, j, i]))
    if i == n - 1:  # the constant classifier
        return int(j), np.inf, left_class, left_class, float(err)
    lo, hi = Xs[j, i], Xs[j, i + 1]
    threshold = lo + (hi - lo) / 2.0
    if threshold >= hi:  # adjacent floats: keep lo <= threshold < hi
        threshold = lo
    return int(j), float(threshold), left_class, right_class, float(err)


class DecisionStump(ClassifierMixin, BaseEstimator):
    r"""A one-split classifier minimising the **weighted 0-1 error** (AdaBoost's weak learner).

    Among all features :math:`j`, thresholds :math:`\theta` and labellings of the
    two sides, it returns the stump with the smallest
    :math:`\sum_i w_i [h(x_i) \ne y_i]`, where :math:`h(x) = a` if
    :math:`x_j \le \theta` and :math:`b` otherwise. For two classes this is the
    textbook stump :math:`h(x) = s \operatorname{sign}(x_j - \theta)` with both signs
    :math:`s` (plus the two constant classifiers). Each feature costs one sort and
    a cumulative sum, :math:`O(n \log n + nK)`. Ties go to the lowest feature
    index, then the smallest threshold.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_ : int
        Feature :math:`j` of the split.
    threshold_ : float
        :math:`\theta`; ``inf`` when the best stump is a constant.
    left_class_, right_class_ : label
        Predictions for :math:`x_j \le \theta` and :math:`x_j > \theta`.
    error_ : float
        Weighted 0-1 training error with the weights normalised to sum 1.
    """

    def __init__(self) -> None:
        pass

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "DecisionStump":
        """Find the stump with the smallest weighted 0-1 error on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any values; at least two distinct ones).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights; uniform when omitted.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y)
        classes, y_enc = check_labels(y)
        w = check_sample_weight(sample_weight, X.shape[0])
        w = w / w.sum()
        stump = _best_stump(*_presort(X), y_enc, w, classes.size)
        self._set(classes, X.shape[1], *stump)
        return self

    def _set(self, classes: np.ndarray, n_features: int, feature: int, threshold: float,
             left: int, right: int, error: float) -> "DecisionStump":
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.feature_ = feature
        self.threshold_ = threshold
        self.left_class_ = classes[left]
        self.right_class_ = classes[right]
        self.error_ = error
        self._left, self._right = left, right
        return self

    def _predict_index(self, X: np.ndarray) -> np.ndarray:
        return np.where(X[:, self.feature_] <= self.threshold_, self._left, self._right)

    def predict(self, X: Any) -> np.ndarray:
        """Predict ``left_class_`` where ``X[:, feature_] <= threshold_``, else ``right_class_``."""
        self._check_is_fitted("feature_")
        X = check_array(X, n_features=self.n_features_in_)
        return self.classes_[self._predict_index(X)]


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
        default is :class:`DecisionStump`, the weighted-0-1-error stump of the
        textbook algorithm. A depth-1 Gini tree (scikit-learn's
        ``DecisionTreeClassifier(max_depth=1)``) is the other usual choice.
    n_estimators : int, default=50
        Maximum number of rounds :math:`T`.
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
        The fitted weak learners :math:`h_1, \dots, h_T` (``T`` may be smaller
        than ``n_estimators`` when boosting stopped early).
    estimator_errors_ : ndarray of shape (T,)
        Weighted errors :math:`\epsilon_t` (equation ``eq-adaboost-eps``).
    estimator_weights_ : ndarray of shape (T,)
        Votes :math:`\alpha_t` (equation ``eq-adaboost-alpha``, times
        ``learning_rate``); ``inf`` for a perfect learner.
    normalizers_ : ndarray of shape (T,)
        :math:`Z_t = \sum_i D_t(i) e^{-\alpha_t y_i h_t(x_i)}` as computed from the
        weights (equation ``eq-adaboost-z``); the training error after round
        :math:`t` is at most ``np.cumprod(normalizers_)[t]``.
    sample_weights_ : ndarray of shape (T, n_samples)
        Only with ``record_weights=True``: row ``t`` is :math:`D_{t+1}`, the
        normalised weights that learner ``t`` was fitted on (each row sums to 1).
    stop_reason_ : {"n_estimators", "perfect", "chance"}
        Why the loop ended (see the module notes).

    Notes
    -----
    ``decision_function`` returns :math:`F(x) = \sum_t \alpha_t h_t(x)` (two
    classes) or the SAMME scores :math:`F_k(x)`; see the module docstring for the
    exact factor relating it to scikit-learn's ``decision_function``.
    """

    def __init__(self, estimator: Any = None, n_estimators: int = 50,
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
        X, y = check_X_y(X, y)
        classes, y_enc = check_labels(y)
        n, K = X.shape[0], classes.size
        T = check_int(self.n_estimators, "n_estimators", low=1)
        nu = check_float(self.learning_rate, "learning_rate", low=0.0, low_open=True)
        if not isinstance(self.record_weights, (bool, np.bool_)):
            raise TypeError(f"record_weights must be a bool, got {self.record_weights!r}.")
        rng = check_random_state(self.random_state)
        prototype = self._validate_estimator()
        D = check_sample_weight(sample_weight, n)
        D = D / D.sum()  # D_1, the initial distribution

        use_stump = self.estimator is None
        if use_stump:  # the sort order does not depend on the weights: sort once
            presorted = _presort(X)

        self.classes_, self.n_classes_, self.n_features_in_ = classes, K, X.shape[1]
        estimators, errors, alphas, Zs, history = [], [], [], [], []
        self.stop_reason_ = "n_estimators"
        for t in range(T):
            if use_stump:
                stump = _best_stump(*presorted, y_enc, D, K)
                h = DecisionStump()._set(classes, X.shape[1], *stump)
            else:
                h = _clone(prototype, rng)
                h.fit(X, y, sample_weight=D)
            wrong = self._class_index(h, X) != y_enc
            eps = float(D[wrong].sum())  # eq-adaboost-eps: weighted error of h_t
            if eps >= 1.0 - 1.0 / K - _CHANCE_TOL:  # no better than chance: alpha_t <= 0
                if t == 0:
                    raise ValueError(
                        f"the weak learner is no better than chance in the first round "
                        f"(weighted error {eps:.6g} >= {1 - 1 / K:.6g}); AdaBoost cannot start."
                    )
                self.stop_reason_ = "chance"
                break
            if self.record_weights:
                history.append(D.copy())
            estimators.append(h)
            errors.append(eps)
            if eps == 0.0:  # perfect learner: alpha_t = +inf, Z_t = 0, nothing left to reweight
                alphas.append(np.inf)
                Zs.append(0.0)
                self.stop_reason_ = "perfect"
                break
            alpha = 0.5 * nu * (np.log((1.0 - eps) / eps) + np.log(K - 1.0))  # eq-adaboost-alpha
            D = D * np.exp(np.where(wrong, alpha, -alpha))  # D_t(i) exp(-alpha_t y_i h_t(x_i))
            Z = float(D.sum())  # eq-adaboost-z: Z_t
            D = D / Z  # eq-adaboost-weights: D_{t+1}
            alphas.append(alpha)
            Zs.append(Z)

        self.estimators_ = estimators
        self.estimator_errors_ = np.array(errors)
        self.estimator_weights_ = np.array(alphas)
        self.normalizers_ = np.array(Zs)
        if self.record_weights:
            self.sample_weights_ = np.array(history)
        return self

    # --- prediction ------------------------------------------------------------------

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
        K = self.n_classes_
        codes = np.full((X.shape[0], K), -1.0 / (K - 1))
        codes[np.arange(X.shape[0]), self._class_index(h, X)] = 1.0
        return codes

    def staged_decision_function(self, X: Any) -> Iterator[np.ndarray]:
        """Yield the decision function after each round ``t = 1, ..., T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples,) for two classes, else (n_samples, n_classes)
            :math:`F_t(x) = \\sum_{s \\le t} \\alpha_s h_s(x)`.
        """
        self._check_is_fitted("estimators_")
        X = check_array(X, n_features=self.n_features_in_)
        F = np.zeros((X.shape[0], self.n_classes_))
        for alpha, h in zip(self.estimator_weights_, self.estimators_):
            F = F + alpha * self._codes(h, X)  # F_t = F_{t-1} + alpha_t h_t
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
        K = self.n_classes_
        scores = np.column_stack([-F, F]) if K == 2 else F  # the full SAMME score matrix
        Z = scores / (K - 1)  # p_k proportional to exp(F_k / (K - 1)), eq-adaboost-proba
        Z = Z - Z.max(axis=1, keepdims=True)  # stable softmax
        P = np.exp(Z)
        return P / P.sum(axis=1, keepdims=True)

    def predict_proba(self, X: Any) -> np.ndarray:
        r"""Class probabilities from the exponential-loss link, shape (n_samples, n_classes).

        Notes
        -----
        The population minimiser of the exponential loss is
        :math:`F(x) = \tfrac12 \ln\frac{p(x)}{1 - p(x)}` for two classes
        (Friedman, Hastie and Tibshirani, 2000), so :math:`p = \sigma(2F)`; for
        SAMME's codes it is :math:`F_k = (K-1)(\ln p_k - \tfrac1K\sum_j \ln p_j)`,
        so :math:`p_k \propto e^{F_k/(K-1)}` (equation ``eq-adaboost-proba``).
        Both are the same formula. scikit-learn instead divides the scores by
        :math:`\sum_t \alpha_t` before the softmax, which changes the
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
