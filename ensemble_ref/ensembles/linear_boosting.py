"""Boosting with linear least-squares learners (chapter *Gradient boosting*).

With the squared error, each round fits a linear model ``a + beta^T x`` to the
residuals (or, ``componentwise=True``, a single best feature) and adds it shrunken
by the learning rate: a sum of linear models stays linear, which the chapter uses to
show what boosting can and cannot add.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..core.base import BaseEstimator, RegressorMixin
from ..core.validation import (
    centre_integers,
    check_array,
    check_bool,
    check_float,
    check_int,
    check_scale,
    check_X_y,
    integer_offsets,
)
from ..math.losses import get_loss

__all__ = ["LinearBoostingRegressor"]


class LinearBoostingRegressor(RegressorMixin, BaseEstimator):
    r"""Least-squares boosting with linear base learners :math:`b_m(x) = a_m + \beta_m^\top x`.

    Starting from :math:`f_0 = \bar y`, round :math:`m` fits :math:`b_m` to the
    residuals :math:`r_i = y_i - f_{m-1}(x_i)` by least squares and sets
    :math:`f_m = f_{m-1} + \nu b_m`. Predictions are computed by summing the
    learners, exactly as for any boosted model; the point of the class is that
    the sum is again linear (equation ``eq-gb-linear``).

    Parameters
    ----------
    n_estimators : int, default=100
        Number of rounds :math:`M`.
    learning_rate : float, default=0.1
        Shrinkage :math:`\nu \in (0, 1]`.
    componentwise : bool, default=False
        If ``True`` each learner uses a single feature (the one whose simple
        regression best fits the residuals), as in componentwise L2-boosting;
        otherwise it is the full least-squares fit on all features.

    Attributes
    ----------
    init_ : float
        :math:`f_0 = \bar y`.
    intercepts_ : ndarray of shape (M,)
        :math:`a_m`.
    coefs_ : ndarray of shape (M, n_features)
        :math:`\beta_m`.
    train_score_ : ndarray of shape (M,)
        Mean squared training error after each round.
    offsets_ : ndarray of Python ints, shape (n_features,), or None
        For integer ``X``: the column minima, subtracted exactly (in integers) before the
        conversion to float64, in ``fit`` and in ``predict``; the learners' intercepts
        :math:`a_m` are then those of the shifted features. ``None`` for float ``X``.
    n_features_in_ : int
    """

    def __init__(self, *, n_estimators: int = 100, learning_rate: float = 0.1,
                 componentwise: bool = False) -> None:
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.componentwise = componentwise

    @staticmethod
    def _fit_linear(X: np.ndarray, r: np.ndarray, componentwise: bool) -> tuple[float, np.ndarray]:
        """Least-squares ``a + beta^T x`` for the residuals ``r``."""
        n, d = X.shape
        beta = np.zeros(d)
        if not componentwise:
            A = np.column_stack([np.ones(n), X])
            coef = np.linalg.lstsq(A, r, rcond=None)[0]  # min ||r - a - X beta||^2
            return float(coef[0]), coef[1:]
        Xc = X - X.mean(axis=0)
        rc = r - r.mean()
        ss = np.sum(Xc**2, axis=0)
        slope = np.divide(Xc.T @ rc, ss, out=np.zeros(d), where=ss > 0)  # simple regressions
        j = int(np.argmax(slope * (Xc.T @ rc)))  # largest drop of the residual sum of squares
        beta[j] = slope[j]
        return float(r.mean() - slope[j] * X[:, j].mean()), beta

    def fit(self, X: Any, y: Any) -> "LinearBoostingRegressor":
        """Boost ``n_estimators`` linear learners on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        raw = X
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        # integer features relative to their minimum, subtracted exactly before the float
        # conversion (near 2**62 float64 keeps only multiples of 1024); the fit is the same
        self.offsets_ = integer_offsets(raw)
        X = centre_integers(raw, X, self.offsets_)
        check_scale(X, "X")  # least squares forms X^T X
        residual_gradient = get_loss("squared_error").unchecked("gradient")
        M = check_int(self.n_estimators, "n_estimators", low=1)
        nu = check_float(self.learning_rate, "learning_rate", low=0.0, high=1.0, low_open=True)
        check_bool(self.componentwise, "componentwise")
        self.n_features_in_ = X.shape[1]
        self.init_ = float(y.mean())  # f_0 = mean of y
        F = np.full(y.shape, self.init_)
        a, B, scores = np.empty(M), np.empty((M, X.shape[1])), np.empty(M)
        for m in range(M):
            r = -residual_gradient(y, F)  # residuals = negative gradient of 1/2 (y - F)^2
            a[m], B[m] = self._fit_linear(X, r, bool(self.componentwise))
            F = F + nu * (a[m] + X @ B[m])  # f_m = f_{m-1} + nu b_m
            scores[m] = np.mean((y - F) ** 2)
        self.intercepts_, self.coefs_, self.train_score_ = a, B, scores
        return self

    def staged_predict(self, X: Any) -> Iterator[np.ndarray]:
        """Yield :math:`f_m(X)` for ``m = 1, ..., M``, summing the learners one by one."""
        self._check_is_fitted("coefs_")
        X = centre_integers(X, check_array(X, estimator=self), self.offsets_)
        F = np.full(X.shape[0], self.init_)
        for a, beta in zip(self.intercepts_, self.coefs_):
            F = F + self.learning_rate * (a + X @ beta)  # f_m = f_{m-1} + nu b_m
            yield F.copy()

    def predict(self, X: Any) -> np.ndarray:
        r""":math:`f_M(x) = \bar y + \nu \sum_m b_m(x)`, as a sum over the learners."""
        F = None
        for F in self.staged_predict(X):
            pass
        return F
