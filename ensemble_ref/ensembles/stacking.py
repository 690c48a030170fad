"""Stacking: a meta-model learns how to combine the members, from out-of-fold predictions.

Algorithm ``alg-stacking`` of the book:

1. split ``{0, ..., N-1}`` into ``K`` folds ``F_1, ..., F_K`` (:func:`stratified_kfold_indices`);
2. for every fold ``F_j`` and member ``t``, train ``h_t^{(-j)}`` on the other
   folds and set the *out-of-fold meta-feature* ``z_it = h_t^{(-j)}(x_i)`` for
   ``i`` in ``F_j``;
3. train the meta-model ``g`` on ``{(z_i, y_i)}``;
4. refit every member on all the data; predict ``g(f_1(x), ..., f_M(x))``.

Why not simply use the members' predictions on their own training points
(*in-sample* meta-features)? Because on its training points a flexible member
is far more accurate than anywhere else: a fully grown tree reproduces its
training targets exactly. The meta-model, fitted on such features, learns to
trust the most overfitted member; with a least-squares meta-model and a member
that interpolates, it puts weight exactly 1 on that member and 0 on the others
(proposition ``prop-stacking-leak``), so the stack is no better than its worst
overfitter. The information about ``y_i`` *leaks* into ``z_i`` through the
member's fit. An out-of-fold meta-feature ``z_i`` comes from members that never
saw ``(x_i, y_i)``, so ``(z_i, y_i)`` is distributed like (members' outputs,
label) at a new point, which is what the meta-model will meet at prediction
time.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import minimize

from ..core.base import BaseEstimator, ClassifierMixin, RegressorMixin
from ..core.base import clone as _clone
from ..core.members import member_proba
from ..core.validation import (
    check_array,
    check_bool,
    check_estimator,
    check_float,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_scale,
    check_shape,
    check_X_y,
)
from ..math import softmax_objective as softmax
from .voting import _NamedEstimators

__all__ = [
    "stratified_kfold_indices",
    "LeastSquaresRegressor",
    "SoftmaxRegression",
    "StackingClassifier",
    "StackingRegressor",
]


def stratified_kfold_indices(n_samples: int, n_splits: int = 5, random_state: Any = None,
                  y: Any = None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffled K-fold split: ``[(train_idx, test_idx), ...]``, one pair per fold.

    Parameters
    ----------
    n_samples : int
        Number of points ``N``.
    n_splits : int, default=5
        Number of folds ``K``, ``2 <= K <= N``.
    random_state : None, int or numpy.random.Generator
        Seed of the shuffle.
    y : array-like of shape (n_samples,), optional
        Class labels: the folds are then *stratified*, every class being dealt
        round-robin to the folds, so each fold holds the same share of each
        class (up to one point).

    Returns
    -------
    list of (ndarray, ndarray)
        The test folds partition ``0..N-1`` and have sizes differing by at most
        one; each training set is the complement of its test fold.
    """
    N = check_int(n_samples, "n_samples", low=1)
    K = check_int(n_splits, "n_splits", low=2, high=N)
    rng = check_random_state(random_state)
    order = rng.permutation(N)  # a random order of the points
    if y is not None:
        y = check_shape(np.asarray(y), "y", (N,))
        order = order[np.argsort(y[order], kind="stable")]  # classes contiguous, shuffled within
    fold = np.empty(N, dtype=np.intp)
    fold[order] = np.arange(N) % K  # deal the points to the folds like cards
    return [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(K)]


class LeastSquaresRegressor(RegressorMixin, BaseEstimator):
    """Linear least squares, the default meta-model of :class:`StackingRegressor`.

    Parameters
    ----------
    fit_intercept : bool, default=False
        Fit ``g(z) = b + sum_l beta_l z_l`` instead of ``sum_l beta_l z_l``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        :math:`\\hat\\beta = \\arg\\min_\\beta \\sum_i w_i (y_i - b - z_i^\\top\\beta)^2`
        (minimum-norm solution if ``Z`` is rank deficient).
    intercept_ : float
    """

    def __init__(self, *, fit_intercept: bool = False) -> None:
        self.fit_intercept = fit_intercept

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "LeastSquaresRegressor":
        """Solve the (weighted) least-squares problem; returns ``self``."""
        check_bool(self.fit_intercept, "fit_intercept")
        Z, y = check_X_y(X, y, y_numeric=True, estimator=self)
        check_scale(Z, "X")  # least squares forms X^T X
        w = check_sample_weight(sample_weight, Z.shape[0], scale_free=True)
        # With an intercept, centre Z and y on their weighted means first: the
        # intercept is then ybar - zbar . beta, and a large common offset of the
        # features (|Z| near 1e15) cannot swamp the column of ones.
        z_mean = np.average(Z, axis=0, weights=w) if self.fit_intercept else np.zeros(Z.shape[1])
        y_mean = float(np.average(y, weights=w)) if self.fit_intercept else 0.0
        root_w = np.sqrt(w)
        self.coef_ = np.linalg.lstsq((Z - z_mean) * root_w[:, None], (y - y_mean) * root_w,
                                     rcond=None)[0]
        self.intercept_ = y_mean - float(z_mean @ self.coef_) if self.fit_intercept else 0.0
        self.n_features_in_ = Z.shape[1]
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``intercept_ + X @ coef_``."""
        self._check_is_fitted("coef_")
        return self.intercept_ + check_array(X, "X", estimator=self) @ self.coef_


class SoftmaxRegression(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression with an L2 penalty, the default meta-model of
    :class:`StackingClassifier`.

    Parameters
    ----------
    lam : float, default=1e-3
        Penalty ``lam/2 * ||B||^2`` on the coefficients (not on the intercepts),
        added to the mean cross-entropy.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
    intercept_ : ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)

    Notes
    -----
    Minimises :math:`-\\frac{1}{W}\\sum_i w_i \\log p_{y_i}(z_i) + \\frac{\\lambda}{2}\\|B\\|^2`
    with :math:`p(z) = \\mathrm{softmax}(b + Bz)`, by L-BFGS with the exact gradient.
    """

    def __init__(self, *, lam: float = 1e-3) -> None:
        self.lam = lam

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "SoftmaxRegression":
        """Fit by L-BFGS; returns ``self``."""
        Z, y = check_X_y(X, y, estimator=self)
        lam = check_float(self.lam, "lam", low=0.0)
        self.classes_, y_encoded = check_labels(y)
        w = check_sample_weight(sample_weight, Z.shape[0], scale_free=True)
        w = w / w.sum()
        N, d = Z.shape
        K = self.classes_.size
        Y = np.zeros((N, K))
        Y[np.arange(N), y_encoded] = 1.0

        # The same objective in standardised features U = (Z - m) / s, coefficients
        # B' = B s (the penalty becomes sum (B'/s)^2): one problem, but
        # well conditioned whatever the scale of Z (1e-50 or 1e50).
        top = np.max(np.abs(Z), axis=0)
        top = np.where(top > 0, top, 1.0)  # divide first: no overflow at |Z| near 1e300
        m = np.average(Z / top, axis=0, weights=w)
        s = np.sqrt(np.average((Z / top - m) ** 2, axis=0, weights=w))
        constant = np.ptp(Z, axis=0) == 0  # exactly constant: no feature at all
        s = np.where(constant | (s == 0), 1.0, s)
        U = np.where(constant, 0.0, (Z / top - m) / s)
        m, s = m * top, s * top
        with np.errstate(over="ignore"):  # features at 1e-300: an infinite penalty, capped
            penalty = lam * np.minimum((1.0 / s) ** 2, 1e300)

        def loss_and_gradient(theta):
            b, B = theta[:K], theta[K:].reshape(K, d)
            S = b + U @ B.T  # class scores
            R = w[:, None] * softmax._gradient(softmax._softmax(S), Y)  # eq-modern-softmax: p - y
            loss = np.sum(w * softmax._loss(S, y_encoded)) + 0.5 * np.sum(penalty * B * B)
            return loss, np.concatenate([R.sum(axis=0), (R.T @ U + penalty * B).ravel()])

        result = minimize(loss_and_gradient, np.zeros(K * (d + 1)), jac=True, method="L-BFGS-B")
        self.coef_ = result.x[K:].reshape(K, d) / s
        self.intercept_ = result.x[:K] - self.coef_ @ m
        self.n_features_in_ = d
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Softmax of ``intercept_ + X @ coef_.T``."""
        self._check_is_fitted("coef_")
        S = self.intercept_ + check_array(X, "X", estimator=self) @ self.coef_.T
        return softmax._softmax(S)

    def predict(self, X: Any) -> np.ndarray:
        """Class of largest probability."""
        P = self.predict_proba(X)
        return self.classes_[np.argmax(P, axis=1)]


class _BaseStacking(_NamedEstimators):
    """Out-of-fold meta-features, the meta-model and prediction, shared by both stacks."""

    def _meta_features(self, members: list, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _fit_stack(self, X: np.ndarray, y: np.ndarray, folds_y: Any, default_final: Any) -> None:
        names, members = self._validate_estimators()
        final = default_final if self.final_estimator is None else self.final_estimator
        check_estimator(final, "final_estimator")
        cv = check_int(self.cv, "cv", low=2)
        if cv > X.shape[0]:
            raise ValueError(f"cv must be an integer in [2, {X.shape[0]}]: cv={cv} folds need at least "
                             f"{cv} samples, got n_samples = {X.shape[0]}.")
        folds = stratified_kfold_indices(X.shape[0], cv, self.random_state, y=folds_y)
        # 2. out-of-fold meta-features: z_i from members that never saw point i
        Z = None
        for train, test in folds:
            fold_members = [_clone(m).fit(X[train], y[train]) for m in members]
            z = self._meta_features(fold_members, X[test])
            if Z is None:
                Z = np.empty((X.shape[0], z.shape[1]))
            Z[test] = z
        self.oof_predictions_ = Z
        # 3. the meta-model, trained on the out-of-fold meta-features
        self.final_estimator_ = _clone(final).fit(Z, y)
        # 4. the members, refitted on all the data
        self.estimators_ = [_clone(m).fit(X, y) for m in members]
        self.named_estimators_ = dict(zip(names, self.estimators_))
        self.n_features_in_ = X.shape[1]

    def fit_transform(self, X: Any, y: Any, **fit_params: Any) -> np.ndarray:
        """``fit(X, y)``, then the meta-features of ``X`` from the refitted members."""
        return self.fit(X, y, **fit_params).transform(X)

    def transform(self, X: Any) -> np.ndarray:
        """Meta-features of ``X`` from the refitted members (the meta-model's input)."""
        X = self._check_X_predict(X)
        return self._meta_features(self.estimators_, X)


class StackingClassifier(ClassifierMixin, _BaseStacking):
    """Stacked classifier: a meta-classifier on out-of-fold class probabilities.

    Parameters
    ----------
    estimators : list of (str, estimator)
        Named, unfitted base classifiers.
    final_estimator : estimator or None, default=None
        Unfitted meta-classifier; ``None`` means :class:`SoftmaxRegression`.
    cv : int, default=5
        Number of folds ``K`` (stratified by class, see :func:`stratified_kfold_indices`).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the fold assignment (the members keep their own ``random_state``).

    Attributes
    ----------
    estimators_ : list of fitted estimators
        The members refitted on all the data.
    final_estimator_ : fitted estimator
    oof_predictions_ : ndarray of shape (n_samples, n_meta_features)
        The out-of-fold meta-features the meta-model was trained on.
    classes_ : ndarray of shape (n_classes,)

    Notes
    -----
    Algorithm ``alg-stacking``; the module docstring explains why the
    meta-features are out of fold. A member contributes its class
    probabilities (a one-hot vote if it has no ``predict_proba``); with two
    classes only the probability of the second class is kept, the first being
    redundant (as scikit-learn does). Members and meta-model are trained on
    labels encoded as ``0..n_classes-1``.
    """

    def __init__(self, estimators: list, final_estimator: Any = None, *, cv: int = 5,
                 random_state: Any = None) -> None:
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.random_state = random_state

    def _meta_features(self, members: list, X: np.ndarray) -> np.ndarray:
        K = self.classes_.size
        blocks = [member_proba(m, X, K) for m in members]
        if K == 2:
            blocks = [P[:, 1:] for P in blocks]  # p_1 = 1 - p_2 carries no information
        return np.hstack(blocks)

    def fit(self, X: Any, y: Any) -> "StackingClassifier":
        """Build the out-of-fold meta-features, fit the meta-model, refit the members."""
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_encoded = check_labels(y)
        self._fit_stack(X, y_encoded, y_encoded, SoftmaxRegression())
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """The meta-classifier's probabilities, shape (n_samples, n_classes)."""
        Z = self.transform(X)
        return member_proba(self.final_estimator_, Z, self.classes_.size)

    def predict(self, X: Any) -> np.ndarray:
        """The meta-classifier's prediction."""
        Z = self.transform(X)
        labels = np.asarray(self.final_estimator_.predict(Z)).astype(np.intp)
        return self.classes_[labels]


class StackingRegressor(RegressorMixin, _BaseStacking):
    """Stacked regressor: a meta-regressor on out-of-fold predictions.

    Parameters
    ----------
    estimators : list of (str, estimator)
        Named, unfitted base regressors.
    final_estimator : estimator or None, default=None
        Unfitted meta-regressor; ``None`` means :class:`LeastSquaresRegressor`
        (``g(z) = sum_l beta_l z_l``, no intercept).
    cv : int, default=5
        Number of folds ``K``.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the fold assignment (the members keep their own ``random_state``).

    Attributes
    ----------
    estimators_ : list of fitted estimators
        The members refitted on all the data.
    final_estimator_ : fitted estimator
    oof_predictions_ : ndarray of shape (n_samples, n_estimators)
        The out-of-fold meta-features ``z_il`` the meta-model was trained on.

    Notes
    -----
    Algorithm ``alg-stacking``; the module docstring explains why the
    meta-features are out of fold (proposition ``prop-stacking-leak``).
    """

    def __init__(self, estimators: list, final_estimator: Any = None, *, cv: int = 5,
                 random_state: Any = None) -> None:
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.random_state = random_state

    def _meta_features(self, members: list, X: np.ndarray) -> np.ndarray:
        return np.column_stack([np.asarray(m.predict(X), dtype=float) for m in members])

    def fit(self, X: Any, y: Any) -> "StackingRegressor":
        """Build the out-of-fold meta-features, fit the meta-model, refit the members."""
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        self._fit_stack(X, y, None, LeastSquaresRegressor())
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The meta-regressor's prediction from the members' predictions."""
        Z = self.transform(X)
        return np.asarray(self.final_estimator_.predict(Z), dtype=float)
