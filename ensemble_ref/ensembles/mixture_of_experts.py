r"""A mixture of linear-Gaussian experts with a softmax gate, fitted by EM.

The model (Jacobs, Jordan, Nowlan and Hinton, 1991; Jordan and Jacobs, 1994):

.. math::

    p(y \mid x) = \sum_{e=1}^{E} g_e(x)\, \mathcal{N}(y;\, \beta_e \cdot \tilde x,\, \sigma_e^2),
    \qquad g(x) = \operatorname{softmax}(V \tilde x), \quad \tilde x = (1, x).

EM alternates

- **E-step**: the responsibilities :math:`r_{ie}`, the posterior probability that
  expert :math:`e` produced :math:`y_i` (:func:`ensemble_ref.math.mixture.responsibilities`);
- **M-step**: each expert is the weighted least-squares fit with weights
  :math:`r_{ie}` and :math:`\sigma_e^2` its weighted mean squared residual
  (floored at ``min_variance`` times the variance of ``y``); the gate is moved
  by ``gate_steps`` damped Newton steps on the weighted softmax regression
  :math:`\max_V \sum_i \sum_e r_{ie} \log g_e(x_i)`, each step halved until
  that objective does not decrease.

Both M-step updates never decrease their part of EM's expected log-likelihood,
so (a generalised EM) the log-likelihood never decreases from one iteration
to the next; ``log_likelihoods_`` records the whole sequence.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.base import BaseEstimator, RegressorMixin
from ..core.validation import (
    check_array,
    check_float,
    check_int,
    check_integers,
    check_random_state,
    check_X_y,
)
from ..math import mixture
from ..math.mixture import (
    linear_gaussian_log_density,
    mixture_log_likelihood,
    softmax_gate,
    top_k_route,
)

__all__ = ["MixtureOfExperts", "RoutedPrediction", "make_piecewise_linear"]


class RoutedPrediction(NamedTuple):
    """A prediction made with sparse routing, and the work it took.

    Attributes
    ----------
    prediction : ndarray of shape (n,)
    evaluations : ndarray of int, shape (E,)
        How many inputs each expert was evaluated on.
    """

    prediction: np.ndarray
    evaluations: np.ndarray


def _design(X: np.ndarray) -> np.ndarray:
    return np.hstack([np.ones((X.shape[0], 1)), X])


def _feature_scale(X: np.ndarray) -> np.ndarray:
    """Per feature, the power of two that brings ``max |x|`` into ``[1/2, 1)`` when it lies outside
    ``[2^-20, 2^20]`` (1 otherwise): least squares and the gate's Newton steps then see features
    of ordinary size, and the slopes are scaled back exactly."""
    top = np.max(np.abs(X), axis=0)
    ordinary = (top == 0) | ((top >= 2.0**-20) & (top <= 2.0**20))
    return np.ldexp(1.0, np.where(ordinary, 0, -np.frexp(top)[1]))


def _gate_value(X1: np.ndarray, V: np.ndarray, R: np.ndarray) -> tuple[float, np.ndarray]:
    """``sum_i sum_e r_ie log g_e(x_i)`` (as :func:`gate_objective`) and the gate, unvalidated."""
    log_g = mixture._log_softmax(X1 @ V.T)  # the log of the gate, from its scores
    return float(np.sum(R * log_g)), np.exp(log_g)  # eq-moe-gate: exp(log_g) is _softmax(scores)


def _gate_newton(X1: np.ndarray, R: np.ndarray, V: np.ndarray, steps: int) -> np.ndarray:
    r"""``steps`` damped Newton steps on :math:`\sum_i \sum_e r_{ie} \log g_e(x_i)`.

    Expert 0's gate row is held at zero (softmax is unchanged by adding a row to
    every row). Each step solves the Newton system with a small ridge, a
    direction of ascent, and halves it until the objective does not decrease;
    if no halving helps, the gate is left where it is.
    """
    n, p = X1.shape
    E = R.shape[1]
    if E == 1:
        return V
    V = V - V[0]  # the same gate, with expert 0 as reference
    current, G = _gate_value(X1, V, R)
    for _ in range(steps):
        grad = ((R - G)[:, 1:].T @ X1).ravel()  # d/dv_e for e = 1..E-1
        H = np.zeros(((E - 1) * p, (E - 1) * p))
        GT = G.T.copy()  # (each expert's gate contiguous: the same products, faster)
        for a in range(1, E):
            for b in range(1, E):
                c = GT[a] * ((a == b) - GT[b])
                H[(a - 1) * p:a * p, (b - 1) * p:b * p] = (X1 * c[:, None]).T @ X1
        ridge = 1e-8 * (np.trace(H) / H.shape[0] + 1.0)
        direction = np.linalg.solve(H + ridge * np.eye(H.shape[0]), grad)
        step = 1.0
        for _ in range(40):
            trial = V.copy()
            trial[1:] += step * direction.reshape(E - 1, p)
            value, G_trial = _gate_value(X1, trial, R)
            if value >= current:
                break
            step /= 2
        else:
            return V
        if value - current <= 1e-12 * (abs(current) + 1.0):
            return trial

        V, current, G = trial, value, G_trial
    return V


class MixtureOfExperts(RegressorMixin, BaseEstimator):
    r"""Mixture of linear-Gaussian experts with a softmax gate, fitted by EM.

    Parameters
    ----------
    n_experts : int, default=2
        The number of experts :math:`E`.
    max_iter : int, default=200
        The largest number of EM iterations.
    tol : float, default=1e-8
        EM stops when an iteration raises the mean log-likelihood per point by
        less than ``tol``.
    gate_steps : int, default=5
        Newton steps on the gate in each M-step.
    n_init : int, default=1
        Independent initialisations; the fit of largest log-likelihood is kept.
    min_variance : float, default=1e-6
        Floor of every expert's variance, as a fraction of the variance of ``y``.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the initialisations.

    Attributes
    ----------
    gate_coef_ : ndarray of shape (E, d + 1)
        :math:`V`, intercepts in column 0 (expert 0's row is zero).
    expert_coef_ : ndarray of shape (E, d + 1)
        :math:`\beta_e`, intercepts in column 0.
    expert_variance_ : ndarray of shape (E,)
        :math:`\sigma_e^2`.
    log_likelihoods_ : ndarray of shape (n_iter_ + 1,)
        The training log-likelihood after the initialisation and after each EM
        iteration of the kept fit.
    log_likelihood_ : float
        Its last value.
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int
    """

    def __init__(self, n_experts: int = 2, *, max_iter: int = 200, tol: float = 1e-8,
                 gate_steps: int = 5, n_init: int = 1, min_variance: float = 1e-6,
                 random_state: Any = None) -> None:
        self.n_experts = n_experts
        self.max_iter = max_iter
        self.tol = tol
        self.gate_steps = gate_steps
        self.n_init = n_init
        self.min_variance = min_variance
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------
    def fit(self, X: Any, y: Any) -> "MixtureOfExperts":
        """Fit by EM from ``n_init`` initialisations; returns ``self``."""
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        n, d = X.shape
        E = check_int(self.n_experts, "n_experts", low=1)
        check_integers(E, "n_experts", high=n, message=f"be at most the number of samples (n_samples = {n})")
        max_iter = check_int(self.max_iter, "max_iter", low=1)
        tol = check_float(self.tol, "tol", low=0.0)
        gate_steps = check_int(self.gate_steps, "gate_steps", low=1)
        n_init = check_int(self.n_init, "n_init", low=1)
        min_variance = check_float(self.min_variance, "min_variance", low=0.0, low_open=True)
        rng = check_random_state(self.random_state)
        floor = min_variance * (float(np.var(y)) if np.var(y) > 0 else 1.0)
        scale = _feature_scale(X)
        X = X * scale  # features of extreme magnitude brought near 1, exactly (powers of two)
        X1 = _design(X)
        best = None
        for _ in range(n_init):
            fit = self._em(X, X1, y, E, max_iter, tol, gate_steps, floor, rng)
            if best is None or fit[3][-1] > best[3][-1]:
                best = fit
        V, W, s2, curve, converged = best
        V[:, 1:], W[:, 1:] = V[:, 1:] * scale, W[:, 1:] * scale  # slopes of the features as given
        self.gate_coef_, self.expert_coef_, self.expert_variance_ = V, W, s2
        self.log_likelihoods_ = np.array(curve)
        self.log_likelihood_ = float(curve[-1])
        self.n_iter_ = len(curve) - 1
        self.converged_ = converged
        self.n_features_in_ = d
        return self

    @staticmethod
    def _experts_step(X1: np.ndarray, y: np.ndarray, R: np.ndarray, W: np.ndarray,
                      s2: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
        """Weighted least squares and weighted variance of each expert (exact M-step)."""
        W, s2 = W.copy(), s2.copy()
        for e in range(R.shape[1]):
            r = R[:, e]
            if r.sum() <= 1e-12 * R.shape[0]:
                continue  # an expert nobody is responsible for keeps its parameters
            sw = np.sqrt(r)
            W[e] = np.linalg.lstsq(X1 * sw[:, None], y * sw, rcond=None)[0]
            s2[e] = max(float(r @ (y - X1 @ W[e]) ** 2 / r.sum()), floor)
        return W, s2

    def _em(self, X, X1, y, E, max_iter, tol, gate_steps, floor, rng):
        n, p = X1.shape
        # Initialisation: E centres among the standardised pairs (x_i, y_i), drawn
        # as in k-means++ (each new centre with probability proportional to the
        # squared distance to the nearest one so far); each point is first given
        # to the expert of its nearest centre.
        Z = np.column_stack([X, y])
        scale = Z.std(axis=0)
        Z = (Z - Z.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
        centres = [Z[rng.integers(n)]]
        for _ in range(1, E):
            d2 = np.min([((Z - c) ** 2).sum(axis=1) for c in centres], axis=0)
            total = d2.sum()
            centres.append(Z[rng.choice(n, p=d2 / total)] if total > 0 else Z[rng.integers(n)])
        nearest = np.argmin(((Z[:, None, :] - np.array(centres)[None]) ** 2).sum(axis=2), axis=1)
        R = np.full((n, E), 0.01 / max(E - 1, 1)) if E > 1 else np.ones((n, 1))
        if E > 1:
            R[np.arange(n), nearest] = 0.99
        W = np.zeros((E, p))
        s2 = np.full(E, max(float(np.var(y)), floor))
        W, s2 = self._experts_step(X1, y, R, W, s2, floor)
        V = _gate_newton(X1, R, np.zeros((E, p)), gate_steps)
        curve = []
        converged = False
        for _ in range(max_iter + 1):  # (the formulas of math.mixture on arrays validated in fit)
            J = mixture._joint(mixture._gate(X1, V), mixture._log_density(X1, y, W, s2))
            curve.append(mixture._log_likelihood(J))             # eq-moe-likelihood
            if len(curve) > 1 and curve[-1] - curve[-2] < tol * n:
                converged = True
                break
            if len(curve) == max_iter + 1:
                break
            R = mixture._softmax(J)                              # E-step: responsibilities()
            W, s2 = self._experts_step(X1, y, R, W, s2, floor)   # M-step, experts
            V = _gate_newton(X1, R, V, gate_steps)               # M-step, gate
        return V, W, s2, curve, converged

    # -- the fitted model ---------------------------------------------------------------
    def _checked(self, X: Any) -> np.ndarray:
        self._check_is_fitted("gate_coef_")
        return check_array(X, "X", estimator=self)

    def gate_probabilities(self, X: Any) -> np.ndarray:
        """The gate :math:`g(x)` on each row of ``X``: shape (n, E), rows sum to one."""
        return softmax_gate(self._checked(X), self.gate_coef_)

    def expert_predictions(self, X: Any) -> np.ndarray:
        r"""Every expert's prediction :math:`\beta_e \cdot \tilde x`: shape (n, E)."""
        return _design(self._checked(X)) @ self.expert_coef_.T

    def assign(self, X: Any) -> np.ndarray:
        """The expert of largest gate probability for each row (the gate's regime)."""
        return np.argmax(self.gate_probabilities(X), axis=1)

    def log_likelihood(self, X: Any, y: Any) -> float:
        """The model's log-likelihood of the pairs ``(X, y)`` (equation ``eq-moe-likelihood``)."""
        X, y = check_X_y(X, y, y_numeric=True)
        X = self._checked(X)
        return mixture_log_likelihood(
            softmax_gate(X, self.gate_coef_),
            linear_gaussian_log_density(X, y, self.expert_coef_, self.expert_variance_))

    def predict_routed(self, X: Any, top_k: int) -> RoutedPrediction:
        r"""Predict with each input routed to its ``top_k`` experts only.

        The prediction is :math:`\sum_{e \in \mathrm{top}_k(x)} \tilde g_e(x)\, \beta_e \cdot \tilde x`
        with the renormalised gate of equation ``eq-moe-topk``; each expert is
        evaluated only on the inputs routed to it, and the counts are returned.
        """
        X = self._checked(X)
        E = self.gate_coef_.shape[0]
        k = check_int(top_k, "top_k", low=1, high=E)
        experts, weights = top_k_route(softmax_gate(X, self.gate_coef_), k)
        X1 = _design(X)
        prediction = np.zeros(X.shape[0])
        evaluations = np.zeros(E, dtype=int)
        for e in range(E):
            rows, slot = np.nonzero(experts == e)
            prediction[rows] += weights[rows, slot] * (X1[rows] @ self.expert_coef_[e])
            evaluations[e] = rows.size
        return RoutedPrediction(prediction, evaluations)

    def predict(self, X: Any, top_k: int | None = None) -> np.ndarray:
        r"""The mixture's mean :math:`\sum_e g_e(x)\, \beta_e \cdot \tilde x` (dense gate).

        With ``top_k``, only the ``top_k`` experts of largest gate value are used,
        renormalised (:meth:`predict_routed`).
        """
        if top_k is not None:
            return self.predict_routed(X, top_k).prediction
        return np.sum(self.gate_probabilities(X) * self.expert_predictions(X), axis=1)


def make_piecewise_linear(n: int, breaks: Any = (-1.0, 1.0), intercepts: Any = (3.0, -1.0, 5.0),
                          slopes: Any = (0.5, 1.0, -0.5), noise: float = 0.3, low: float = -3.0,
                          high: float = 3.0, random_state: Any = None
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Regression data with one linear regime per interval of :math:`x`.

    :math:`x \sim U(\text{low}, \text{high})`; on the ``j``-th interval cut by
    ``breaks``, :math:`y = a_j + b_j x + \varepsilon` with
    :math:`\varepsilon \sim \mathcal{N}(0, \text{noise}^2)`.

    Returns
    -------
    X : ndarray of shape (n, 1)
    y : ndarray of shape (n,)
    regime : ndarray of int, shape (n,)
        The interval (0, 1, ...) each point falls in.
    """
    n = check_int(n, "n", low=1)
    noise = check_float(noise, "noise", low=0.0)
    breaks = np.sort(np.asarray(breaks, dtype=float))
    a = np.asarray(intercepts, dtype=float)
    b = np.asarray(slopes, dtype=float)
    if a.shape != (breaks.size + 1,) or b.shape != a.shape:
        raise ValueError(f"intercepts and slopes must each hold len(breaks) + 1 = "
                         f"{breaks.size + 1} values, got {a.size} and {b.size}.")
    rng = check_random_state(random_state)
    x = rng.uniform(low, high, n)
    regime = np.searchsorted(breaks, x)
    y = a[regime] + b[regime] * x + noise * rng.standard_normal(n)
    return x[:, None], y, regime
