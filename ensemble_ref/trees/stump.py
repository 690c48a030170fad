"""The decision stump minimising the weighted 0-1 error, AdaBoost's default weak learner.

Every feature is sorted once per ``fit`` (AdaBoost sorts once for all its rounds,
:func:`presort_stump` with the engine's :func:`~ensemble_ref.trees.engine.presort`);
each round is then one cumulative sum of the weights over the sorted features.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin
from ..core.validation import check_array, check_labels, check_sample_weight, check_X_y
from ..math import adaboost, importance
from .engine import presort

__all__ = ["DecisionStump", "presort_stump", "best_stump"]


def presort_stump(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort every feature once: ``(order, Xs, ok)``, each of shape (n_features, n_samples).

    Row ``j`` of ``Xs`` is feature ``j`` in increasing order and row ``j`` of
    ``order`` the samples holding those values; ``ok[j, i]`` says whether a
    split may follow sorted position ``i`` (the next value is larger). The last
    position, "everything on the left", is the constant classifier and is always
    allowed. (Features are rows so that the scans below run over contiguous memory.)
    """
    XT = np.ascontiguousarray(X.T)
    order = presort(XT, stable=True)
    Xs = np.take_along_axis(XT, order, axis=1)
    ok = np.ones(order.shape, dtype=bool)
    ok[:, :-1] = Xs[:, 1:] > Xs[:, :-1]
    return order, Xs, ok


def _tie_tolerance(n: int, W: float) -> float:
    """Errors closer than this are equal: the rounding bound of a sum of ``n`` weights."""
    return 4.0 * n * np.finfo(np.float64).eps * W


def best_stump(order: np.ndarray, Xs: np.ndarray, ok: np.ndarray, y: np.ndarray,
                w: np.ndarray, n_classes: int) -> tuple[int, float, int, int, float]:
    """Stump with the smallest weighted 0-1 error, from the presorted features of :func:`presort_stump`.

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
        # Equal errors up to the rounding of the cumulative sums (about n eps W) are
        # ties: the first feature, then the smallest threshold, wins, so that the
        # choice does not depend on the order of the additions (weights or repeated rows).
        j, i = np.unravel_index(np.argmax(score >= score.max() - _tie_tolerance(n, W)), (d, n))
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
        j, i = np.unravel_index(np.argmax(errors <= errors.min() + _tie_tolerance(n, W)), (d, n))
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

    _poor_score = True  # one split: a weak learner, not a classifier to use alone

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
        X, y = check_X_y(X, y, estimator=self)
        classes, y_enc = check_labels(y)
        w = check_sample_weight(sample_weight, X.shape[0], scale_free=True)
        w = w / w.sum()
        keep = w > 0  # points of zero weight play no part (not even in the thresholds)
        stump = best_stump(*presort_stump(X[keep]), y_enc[keep], w[keep], classes.size)
        self._set_split(classes, X.shape[1], *stump)
        self.error_ = adaboost._weighted_error(w, self._predict_index(X) != y_enc)  # eq-adaboost-eps
        return self

    @classmethod
    def from_split(cls, classes: np.ndarray, n_features: int, feature: int, threshold: float,
                   left: int, right: int, error: float) -> "DecisionStump":
        """A fitted stump from the result of :func:`best_stump` (AdaBoost's presorted path)."""
        return cls()._set_split(classes, n_features, feature, threshold, left, right, error)

    def _set_split(self, classes: np.ndarray, n_features: int, feature: int, threshold: float,
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

    @property
    def feature_importances_(self) -> np.ndarray:
        """The normalised MDI of one split (equation ``eq-rf-mdi``): 1 for ``feature_``, 0 elsewhere.

        All 0 when the stump does not split (``threshold_`` infinite) or predicts one
        class on both sides (no impurity decrease); this is what scikit-learn's
        ``DecisionTreeClassifier(max_depth=1).feature_importances_`` gives for a split.
        """
        self._check_is_fitted("feature_")
        splits = bool(np.isfinite(self.threshold_)) and self._left != self._right
        return importance.one_split_mdi(self.feature_, self.n_features_in_, float(splits))

    def _predict_index(self, X: np.ndarray) -> np.ndarray:
        return np.where(X[:, self.feature_] <= self.threshold_, self._left, self._right)

    def predict(self, X: Any) -> np.ndarray:
        """Predict ``left_class_`` where ``X[:, feature_] <= threshold_``, else ``right_class_``."""
        self._check_is_fitted("feature_")
        X = check_array(X, estimator=self)
        return self.classes_[self._predict_index(X)]
