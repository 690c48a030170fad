r"""Ensembles and uncertainty: model averaging and prediction intervals.

Chapter *Diversity, selection and uncertainty*:

* **Bayesian model averaging** over Gaussian linear models. Model :math:`k` says
  :math:`y = X_k \beta + \varepsilon`, :math:`\beta \sim \mathcal N(0, \omega^2 I)`,
  :math:`\varepsilon \sim \mathcal N(0, \sigma^2 I)`; its evidence
  :math:`p(y \mid X_k)` is :func:`log_evidence_linear` (equation ``eq-unc-evidence``), and the
  posterior probabilities of the models are the softmax of the log evidences plus the
  log prior, :func:`bma_weights` (equation ``eq-unc-bma``).
* **Conformal prediction intervals** at miscoverage level :math:`\delta` (the papers write
  :math:`\alpha`): the conformal quantile :func:`conformal_quantile` (equation
  ``eq-unc-quantile``), split conformal :func:`split_conformal_interval` (equation
  ``eq-unc-split``) and the jackknife+-after-bootstrap of Kim, Xu and Barber
  :func:`jackknife_plus_after_bootstrap` (equation ``eq-unc-jab``), built from the
  members of a bagged ensemble and the points each left out of its sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import check_array, check_reals, check_shape, check_values
from . import mixture
from .aggregation import oob_aggregate

__all__ = ["log_evidence_linear", "bma_weights", "conformal_quantile", "split_conformal_interval",
           "jackknife_plus_after_bootstrap"]


def log_evidence_linear(X: Any, y: Any, noise_var: float, prior_var: float) -> float:
    r"""Log marginal likelihood of Bayesian linear regression (equation ``eq-unc-evidence``).

    Parameters
    ----------
    X : array-like of shape (n, d)
        The model's features.
    y : array-like of shape (n,)
    noise_var : float > 0
        :math:`\sigma^2`, the noise variance the model assumes.
    prior_var : float > 0
        :math:`\omega^2`, the prior variance of each coefficient.

    Returns
    -------
    float
        :math:`\log \mathcal N(y;\, 0,\, \sigma^2 I + \omega^2 X X^\top)`, computed with the
        :math:`d \times d` matrix :math:`A = X^\top X + (\sigma^2/\omega^2) I` (Woodbury and the
        matrix determinant lemma), so it costs :math:`O(n d^2)`.
    """
    X = check_array(X, "X")
    y = check_reals(y, "y", vector=True)
    check_shape(y, "y", (X.shape[0],), described=f"({X.shape[0]},) to match X")
    s2 = float(check_reals(noise_var, "noise_var", 0.0, None, low_open=True, ndim=0))
    w2 = float(check_reals(prior_var, "prior_var", 0.0, None, low_open=True, ndim=0))
    n, d = X.shape
    A = X.T @ X + (s2 / w2) * np.eye(d)
    L = np.linalg.cholesky(A)
    z = np.linalg.solve(L, X.T @ y)
    quad = (y @ y - z @ z) / s2                                   # y^T (s2 I + w2 X X^T)^{-1} y
    logdet = n * np.log(s2) + 2 * np.sum(np.log(np.diag(L))) - d * np.log(s2 / w2)
    return float(-0.5 * (quad + logdet + n * np.log(2 * np.pi)))  # eq-unc-evidence


def bma_weights(log_evidence: Any, prior: Any = None) -> np.ndarray:
    r"""Posterior model probabilities :math:`p(k \mid D) \propto p(D \mid k)\, p(k)` (equation ``eq-unc-bma``).

    Parameters
    ----------
    log_evidence : array-like of shape (K,)
        :math:`\log p(D \mid k)` of each model.
    prior : array-like of shape (K,), optional
        Prior probabilities of the models (positive); uniform by default.

    Returns
    -------
    ndarray of shape (K,)
        The softmax of :math:`\log p(D \mid k) + \log p(k)`, computed in log space.
    """
    e = check_reals(log_evidence, "log_evidence", vector=True)
    K = e.size
    p = np.full(K, 1.0 / K) if prior is None else check_reals(prior, "prior", 0.0, None, low_open=True,
                                                              vector=True)
    check_shape(p, "prior", (K,), described=f"({K},), one per model")
    return mixture._softmax((e + np.log(p))[None, :])[0]  # eq-unc-bma


def _conformal_quantile(scores, delta, axis=-1):
    """The ceil((1 - delta)(n + 1))-th smallest score along ``axis``, +inf past n (eq-unc-quantile)."""
    n = scores.shape[axis]
    k = int(np.ceil((1.0 - delta) * (n + 1) - 1e-12))  # the rank; 1e-12 absorbs rounding
    if k > n:
        return np.full(np.delete(scores.shape, axis if axis >= 0 else scores.ndim + axis), np.inf)
    return np.take(np.sort(scores, axis=axis), k - 1, axis=axis)  # eq-unc-quantile


def _level(delta: Any) -> float:
    """The miscoverage level, a number in (0, 1)."""
    return float(check_reals(delta, "delta", 0.0, 1.0, low_open=True, high_open=True, ndim=0))


def conformal_quantile(scores: Any, delta: float) -> float:
    r"""The conformal quantile of ``n`` scores at miscoverage level :math:`\delta` (equation ``eq-unc-quantile``).

    Parameters
    ----------
    scores : array-like of shape (n,)
    delta : float in (0, 1)

    Returns
    -------
    float
        The :math:`\lceil (1 - \delta)(n + 1) \rceil`-th smallest score (``inf`` when that
        rank exceeds :math:`n`): the empirical :math:`(1 - \delta)` quantile of the scores with
        one more point, :math:`+\infty`, among them.
    """
    s = check_reals(scores, "scores", vector=True)
    return float(_conformal_quantile(s, _level(delta)))


def split_conformal_interval(calibration_predictions: Any, y_calibration: Any, test_predictions: Any,
                             delta: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Split conformal prediction intervals (equation ``eq-unc-split``).

    Parameters
    ----------
    calibration_predictions : array-like of shape (n,)
        A model's predictions on a calibration set it was not trained on.
    y_calibration : array-like of shape (n,)
    test_predictions : array-like of shape (n_test,)
    delta : float in (0, 1)
        Miscoverage level.

    Returns
    -------
    lower, upper : ndarrays of shape (n_test,)
        :math:`\hat f(x) \mp q`, with :math:`q` the conformal quantile of the calibration
        residuals :math:`|y_i - \hat f(x_i)|`. For exchangeable data the coverage is at
        least :math:`1 - \delta` (and below :math:`1 - \delta + 1/(n + 1)` without ties).
    """
    pred = check_reals(calibration_predictions, "calibration_predictions", vector=True)
    y = check_reals(y_calibration, "y_calibration", vector=True)
    check_shape(y, "y_calibration", pred.shape, described=f"{pred.shape} to match calibration_predictions")
    test = check_reals(test_predictions, "test_predictions", vector=True)
    q = _conformal_quantile(np.abs(y - pred), _level(delta))
    return test - q, test + q  # eq-unc-split


def jackknife_plus_after_bootstrap(train_predictions: Any, test_predictions: Any, in_bag: Any, y: Any,
                                   delta: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Jackknife+-after-bootstrap intervals from a bagged ensemble (equation ``eq-unc-jab``).

    Parameters
    ----------
    train_predictions : array-like of shape (M, n)
        Member ``m``'s prediction at training point ``i``.
    test_predictions : array-like of shape (M, n_test)
        Member ``m``'s prediction at each test point.
    in_bag : array-like of bool, shape (M, n)
        ``in_bag[m, i]``: member ``m``'s sample drew point ``i``. Every point must be out of
        at least one member's sample.
    y : array-like of shape (n,)
    delta : float in (0, 1)
        Miscoverage level (Kim, Xu and Barber write :math:`\alpha`).

    Returns
    -------
    lower, upper : ndarrays of shape (n_test,)
        With :math:`\mu_{-i}` the average of the members whose sample left out point ``i``
        and :math:`R_i = |y_i - \mu_{-i}(x_i)|` (the out-of-bag residual), the
        :math:`\lfloor \delta(n+1) \rfloor`-th smallest of :math:`\mu_{-i}(x) - R_i` and the
        :math:`\lceil (1-\delta)(n+1) \rceil`-th smallest of :math:`\mu_{-i}(x) + R_i`
        (``-inf`` and ``inf`` when those ranks fall outside ``1..n``).

    Notes
    -----
    Kim, Xu and Barber's guarantee: if the ``n`` training points and the test point are
    exchangeable, the members are fitted to bootstrap samples of ``m`` draws, and their
    number is drawn as :math:`M \sim \mathrm{Binomial}(M_0, (1 - 1/(n+1))^m)`, then the
    interval covers the test point's ``y`` with probability at least :math:`1 - 2\delta`
    (marginally over the data, the samples and :math:`M`), whatever the regression method.
    """
    P = check_array(train_predictions, "train_predictions")
    y = check_reals(y, "y", vector=True)
    check_shape(P, "train_predictions", (None, y.size), described=f"(M, {y.size}) to match y")
    T = check_array(test_predictions, "test_predictions")
    check_shape(T, "test_predictions", (P.shape[0], None), described=f"({P.shape[0]}, n_test)")
    bag = check_values(np.asarray(in_bag), "in_bag", (False, True)).astype(bool)
    check_shape(bag, "in_bag", P.shape, described=f"{P.shape} like train_predictions")
    oob_mean, n_out = oob_aggregate(bag, P)                 # mu_{-i}(x_i), eq-oob-estimate
    check_reals(n_out, "the number of members that left each point out", 0.0, None, low_open=True,
                message="be positive: some point is in every member's sample; use more members")
    R = np.abs(y - oob_mean)                                # out-of-bag residuals R_i
    out = (~bag).astype(float)                              # the members without point i, ...
    mu = (out / n_out).T @ T                                # ... averaged at x: mu_{-i}(x), (n, n_test)
    delta = _level(delta)
    upper = _conformal_quantile(mu + R[:, None], delta, axis=0)
    lower = -_conformal_quantile(-(mu - R[:, None]), delta, axis=0)
    return lower, upper  # eq-unc-jab
