r"""Monte Carlo bias-variance decomposition, and the variance of an average (chapter *Bias and variance*).

On a regression problem :math:`y = f(x) + \varepsilon` with a known :math:`f` and
noise variance :math:`\sigma^2`, a learning algorithm trained on a random
training set :math:`D` of size :math:`N` gives a random predictor
:math:`\hat f_D`. At a point :math:`x`, with
:math:`\bar f(x) = \mathbb{E}_D \hat f_D(x)`,

.. math:: \mathbb{E}_{D,\varepsilon}\bigl[(y - \hat f_D(x))^2\bigr]
          = \underbrace{(\bar f(x) - f(x))^2}_{\text{bias}^2}
          + \underbrace{\mathbb{E}_D(\hat f_D(x) - \bar f(x))^2}_{\text{variance}}
          + \underbrace{\sigma^2}_{\text{noise}},

equation ``eq-bv-decomposition``. :func:`bias_variance_decomposition` estimates
the three terms from ``R`` independent training sets (:func:`simulate_predictions`
then :func:`decompose_predictions`); :func:`expected_squared_error` estimates the
left-hand side directly, from fresh noisy targets, so that the two can be compared.

The variance of an average of :math:`M` predictors, each of variance
:math:`\sigma^2`, with pairwise correlation :math:`\rho`, is
:func:`variance_of_average` :math:`\rho\sigma^2 + (1-\rho)\sigma^2/M` (equation
``eq-var-average``); :func:`equicorrelated_normals` simulates such predictors, and
:func:`member_covariance` measures :math:`\sigma^2` and :math:`\rho` for the members
of a real ensemble.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..core.validation import (
    check_array,
    check_callable,
    check_equicorrelation,
    check_float,
    check_int,
    check_integers,
    check_random_state,
    check_reals,
    check_shape,
)
from ..datasets import sample_sine_inputs, sine_function

__all__ = [
    "BiasVariance",
    "MonteCarloEstimate",
    "MemberCovariance",
    "simulate_predictions",
    "decompose_predictions",
    "member_covariance",
    "bias_variance_decomposition",
    "expected_squared_error",
    "variance_of_average",
    "equicorrelated_normals",
]

_SEED_RANGE = 2**31 - 1  # seeds handed to estimators: valid for numpy and scikit-learn


@dataclass(frozen=True)
class MonteCarloEstimate:
    """A Monte Carlo average, its standard error, and the independent values it averages."""

    mean: float
    se: float
    values: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray) -> "MonteCarloEstimate":
        """The mean of independent ``values`` and its standard error ``sd / sqrt(n)``."""
        v = np.asarray(values, dtype=np.float64)
        return cls(mean=float(v.mean()), se=float(v.std(ddof=1) / np.sqrt(v.size)), values=v)


@dataclass(frozen=True)
class BiasVariance:
    r"""Monte Carlo estimates of the terms of equation ``eq-bv-decomposition``, averaged over the test points.

    Attributes
    ----------
    bias2, variance, noise : float
        :math:`\text{bias}^2`, variance and :math:`\sigma^2`, each averaged over
        the test points.
    total : float
        ``bias2 + variance + noise``: the decomposition's value of the expected
        squared error.
    total_se : float
        Standard error of ``total``.
    total_values : ndarray of shape (R,)
        :math:`q_r + \sigma^2` for each training set, whose mean is ``total``.
    variance_se : float
        Standard error of ``variance``.
    bias2_pointwise, variance_pointwise : ndarray of shape (n_test,)
        The two terms at each test point.
    mean_prediction : ndarray of shape (n_test,)
        :math:`\bar f(x)` estimated by the average of the ``R`` predictors.
    predictions : ndarray of shape (R, n_test)
        Row ``r`` is the predictor fitted to the ``r``-th training set.
    """

    bias2: float
    variance: float
    noise: float
    total: float
    total_se: float
    total_values: np.ndarray
    variance_se: float
    bias2_pointwise: np.ndarray
    variance_pointwise: np.ndarray
    mean_prediction: np.ndarray
    predictions: np.ndarray


def simulate_predictions(estimator_factory: Callable[[int], Any], X_test: Any, n_repeats: int,
                         random_state: np.random.Generator | int | None, *, n_train: int = 100,
                         noise: float = 0.5, f: Callable[[np.ndarray], np.ndarray] = sine_function,
                         sample_X: Callable[[int, np.random.Generator], np.ndarray]
                         = sample_sine_inputs,
                         predict: Callable[[Any, np.ndarray], np.ndarray] | None = None
                         ) -> np.ndarray:
    r"""Fit one estimator on each of ``n_repeats`` independent training sets and predict ``X_test``.

    Parameters
    ----------
    estimator_factory : callable
        ``estimator_factory(seed)`` returns a fresh, unfitted estimator with
        ``fit`` and ``predict``; ``seed`` is an ``int`` drawn from
        ``random_state`` for estimators that are themselves random (bagging).
    X_test : array of shape (n_test, n_features)
        Points at which the predictors are compared with :math:`f`.
    n_repeats : int
        Number ``R >= 2`` of training sets.
    random_state : numpy.random.Generator or int
        Source of all randomness (training sets and estimator seeds).
    n_train : int, default=100
        Size :math:`N` of each training set.
    noise : float, default=0.5
        Noise standard deviation :math:`\sigma`: :math:`y = f(x) + \sigma Z`.
    f : callable, default=:func:`~ensemble_ref.datasets.sine_function`
        The regression function, ``f(X) -> (n,)``.
    sample_X : callable, default=:func:`~ensemble_ref.datasets.sample_sine_inputs`
        ``sample_X(n, rng) -> (n, n_features)`` draws training inputs.
    predict : callable, optional
        ``predict(fitted, X_test)``; defaults to ``fitted.predict(X_test)``.
        Pass e.g. a function returning every member's prediction to study an
        ensemble's members.

    Returns
    -------
    ndarray of shape (n_repeats, ...)
        Row ``r`` is ``predict(fitted_r, X_test)``.
    """
    check_callable(estimator_factory, "estimator_factory", "a callable seed -> unfitted estimator")
    X_test = check_array(X_test, "X_test")
    R = check_int(n_repeats, "n_repeats", low=2)
    N = check_int(n_train, "n_train", low=1)
    sigma = check_float(noise, "noise", low=0.0)
    rng = check_random_state(random_state)
    rows = []
    for _ in range(R):
        X = check_array(sample_X(N, rng), "sample_X(n_train, rng)")
        y = f(X) + sigma * rng.standard_normal(N)  # a fresh training set D_r
        model = estimator_factory(int(rng.integers(_SEED_RANGE))).fit(X, y)
        rows.append(model.predict(X_test) if predict is None else predict(model, X_test))
    return np.asarray(rows, dtype=np.float64)


def _predictions(predictions: Any, f_test: Any) -> tuple[np.ndarray, np.ndarray]:
    """Predictions of shape (R, n_test), R >= 2 training sets, and the true ``f_test`` (n_test,)."""
    P = check_reals(predictions, "predictions")
    check_shape(P, "predictions", (None, None), at_least=(2, 1), described="(R, n_test) with R >= 2")
    f_test = check_shape(check_reals(f_test, "f_test"), "f_test", P.shape[1:])
    return P, f_test


def decompose_predictions(predictions: Any, f_test: Any, noise: float) -> BiasVariance:
    r"""Bias², variance and noise from the predictions of ``R`` independently trained predictors.

    Parameters
    ----------
    predictions : array of shape (R, n_test)
        Row ``r`` holds :math:`\hat f_r(x)` at the test points, for ``R >= 2``
        independent training sets (see :func:`simulate_predictions`).
    f_test : array of shape (n_test,)
        The regression function at the test points.
    noise : float
        Noise standard deviation :math:`\sigma \ge 0`.

    Returns
    -------
    BiasVariance

    Notes
    -----
    Equation ``eq-bv-decomposition``. With the mean :math:`\bar f_R(x)` and
    sample variance :math:`s^2(x)` (divisor ``R - 1``) of the ``R`` predictions,

    .. math:: \widehat{\text{var}}(x) = s^2(x), \qquad
              \widehat{\text{bias}^2}(x) = (\bar f_R(x) - f(x))^2 - s^2(x)/R,

    both unbiased: :math:`\mathbb{E}(\bar f_R - f)^2 = \text{bias}^2 + \text{var}/R`
    (equation ``eq-bv-bias-correction``), so the plain plug-in
    :math:`(\bar f_R - f)^2` overstates the bias by the variance of the Monte
    Carlo mean. The noise term is the known :math:`\sigma^2`. Averaged over the
    test points, the sum is :math:`\frac1R\sum_r q_r + \sigma^2` with
    :math:`q_r = \operatorname{mean}_x (\hat f_r(x) - f(x))^2`, an average of
    ``R`` independent terms; ``total_se`` is their standard deviation over
    :math:`\sqrt R`. ``variance_se`` is computed the same way from
    :math:`d_r = \frac{R}{R-1}\operatorname{mean}_x (\hat f_r(x) - \bar f_R(x))^2`.
    """
    P, f_test = _predictions(predictions, f_test)
    sigma = check_float(noise, "noise", low=0.0)
    R = P.shape[0]
    f_bar = P.mean(axis=0)  # Monte Carlo estimate of E_D f_D(x)
    s2 = P.var(axis=0, ddof=1)  # variance term at each x
    bias2 = (f_bar - f_test) ** 2 - s2 / R  # unbiased bias^2 at each x, eq-bv-bias-correction
    q = ((P - f_test) ** 2).mean(axis=1)  # per training set: mean_x (f_r - f)^2
    d = ((P - f_bar) ** 2).mean(axis=1) * R / (R - 1)  # per training set: spread around f_bar
    return BiasVariance(
        bias2=float(bias2.mean()),
        variance=float(s2.mean()),
        noise=sigma**2,
        total=float(bias2.mean() + s2.mean() + sigma**2),  # eq-bv-decomposition
        total_se=float(q.std(ddof=1) / np.sqrt(R)),
        total_values=q + sigma**2,
        variance_se=float(d.std(ddof=1) / np.sqrt(R)),
        bias2_pointwise=bias2,
        variance_pointwise=s2,
        mean_prediction=f_bar,
        predictions=P,
    )


def bias_variance_decomposition(estimator_factory: Callable[[int], Any], X_test: Any,
                                n_repeats: int, random_state: np.random.Generator | int | None,
                                *, n_train: int = 100, noise: float = 0.5,
                                f: Callable[[np.ndarray], np.ndarray] = sine_function,
                                sample_X: Callable[[int, np.random.Generator], np.ndarray]
                                = sample_sine_inputs) -> BiasVariance:
    r"""Estimate bias², variance and noise of a learning algorithm by Monte Carlo.

    :func:`simulate_predictions` followed by :func:`decompose_predictions`.

    Parameters
    ----------
    estimator_factory, X_test, n_repeats, random_state, n_train, noise, f, sample_X
        As in :func:`simulate_predictions`.

    Returns
    -------
    BiasVariance
    """
    X_test = check_array(X_test, "X_test")
    sigma = check_float(noise, "noise", low=0.0)
    P = simulate_predictions(estimator_factory, X_test, n_repeats, random_state,
                             n_train=n_train, noise=sigma, f=f, sample_X=sample_X)
    return decompose_predictions(P, f(X_test), sigma)


def expected_squared_error(predictions: Any, f_test: Any, noise: float,
                           random_state: np.random.Generator | int | None, *,
                           n_draws: int = 1) -> MonteCarloEstimate:
    r"""Estimate :math:`\mathbb{E}_{D,\varepsilon}(y - \hat f_D(x))^2`, averaged over the test points, directly.

    Parameters
    ----------
    predictions : array of shape (R, n_test)
        Predictions of ``R`` independently trained predictors at the test points.
    f_test : array of shape (n_test,)
        The regression function at the test points.
    noise : float
        Noise standard deviation :math:`\sigma \ge 0`.
    random_state : numpy.random.Generator or int
        Source of the fresh noise.
    n_draws : int, default=1
        Number of independent fresh targets drawn at each test point for each
        predictor; more draws average away the noise of the noise.

    Returns
    -------
    MonteCarloEstimate
        The mean over the ``R`` predictors of
        :math:`e_r = \operatorname{mean}_{k,x} (y_{rk}(x) - \hat f_r(x))^2`, where
        :math:`y_{rk}(x) = f(x) + \varepsilon_{rk}(x)` are fresh noisy targets,
        independent of the training sets; its standard error; and the
        :math:`e_r` themselves.

    Notes
    -----
    This is the left-hand side of equation ``eq-bv-decomposition``, measured
    as a test error, without computing bias or variance.
    """
    P, f_test = _predictions(predictions, f_test)
    sigma = check_float(noise, "noise", low=0.0)
    K = check_int(n_draws, "n_draws", low=1)
    rng = check_random_state(random_state)
    y_new = f_test + sigma * rng.standard_normal((K,) + P.shape)  # fresh targets, independent of D_r
    return MonteCarloEstimate.of(((y_new - P) ** 2).mean(axis=(0, 2)))  # test error e_r of each predictor


@dataclass(frozen=True)
class MemberCovariance:
    r"""Variance of one ensemble member and covariance of two, averaged over the test points.

    Attributes
    ----------
    sigma2 : float
        :math:`\bar\sigma^2 = \operatorname{mean}_x \operatorname{Var} h_m(x)`.
    cov : float
        :math:`\operatorname{mean}_x \operatorname{Cov}(h_m(x), h_{m'}(x))`, :math:`m \ne m'`.
    rho : float
        ``cov / sigma2``, the correlation :math:`\bar\rho` that makes equation
        ``eq-var-average``, averaged over the test points, exact.
    sigma2_values, cov_values : ndarray of shape (R,)
        Per-training-set contributions whose means are ``sigma2`` and ``cov``.
    """

    sigma2: float
    cov: float
    rho: float
    sigma2_values: np.ndarray
    cov_values: np.ndarray

    def average_variance(self, M: int) -> MonteCarloEstimate:
        r"""Predicted variance of the average of ``M`` members,
        :math:`\bar\rho\bar\sigma^2 + (1-\bar\rho)\bar\sigma^2/M`.

        Returns a :class:`MonteCarloEstimate` whose standard error treats the
        ``R`` training sets as independent (it ignores the small extra error
        of centring on the Monte Carlo mean).
        """
        M = check_int(M, "M", low=1)
        values = self.cov_values + (self.sigma2_values - self.cov_values) / M  # eq-var-average
        return MonteCarloEstimate.of(values)


def member_covariance(member_predictions: Any) -> MemberCovariance:
    r"""Estimate the variance of a member and the covariance between two members of an ensemble.

    Parameters
    ----------
    member_predictions : array of shape (R, M, n_test)
        ``[r, m]`` holds member ``m``'s predictions at the test points, for the
        ensemble trained on the ``r``-th of ``R >= 2`` independent training
        sets; ``M >= 2`` exchangeable members (e.g. the trees of a bagged
        ensemble, from :func:`simulate_predictions` with a ``predict`` that
        returns every member's prediction).

    Returns
    -------
    MemberCovariance

    Notes
    -----
    With :math:`Z_{rm}(x) = h_{rm}(x) - \operatorname{mean}_r h_{rm}(x)` and
    :math:`S_r(x) = \sum_m Z_{rm}(x)`, the sample variances are the diagonal
    :math:`\frac{1}{R-1}\sum_r Z_{rm}^2` and the sum of all sample covariances
    is :math:`\frac{1}{R-1}\sum_r S_r^2`; the off-diagonal average is their
    difference over :math:`M(M-1)`. Every term is a sum over training sets, so
    the per-set contributions are returned for standard errors.
    """
    P = check_reals(member_predictions, "member_predictions")
    check_shape(P, "member_predictions", (None, None, None), at_least=(2, 2, 1),
                described="(R, M, n_test) with R >= 2 and M >= 2")
    R, M, _ = P.shape
    Z = P - P.mean(axis=0)  # centre each member at each x on its Monte Carlo mean
    diag = (Z**2).sum(axis=1)  # sum_m Z_rm(x)^2
    S2 = Z.sum(axis=1) ** 2  # (sum_m Z_rm(x))^2
    sigma2_values = diag.mean(axis=1) / M * R / (R - 1)  # contributions to mean_x Var h_m(x)
    cov_values = (S2 - diag).mean(axis=1) / (M * (M - 1)) * R / (R - 1)  # ... to mean_x Cov
    sigma2, cov = float(sigma2_values.mean()), float(cov_values.mean())
    check_reals(sigma2, "the members' variance sigma2", 0.0, None, low_open=True, message="be positive, "
                "but the members' predictions do not vary: their correlation is undefined")
    return MemberCovariance(sigma2=sigma2, cov=cov, rho=cov / sigma2,
                            sigma2_values=sigma2_values, cov_values=cov_values)


def variance_of_average(sigma2: Any, rho: Any, M: Any) -> float | np.ndarray:
    r"""Variance :math:`\rho\sigma^2 + (1 - \rho)\sigma^2 / M` of the average of ``M`` correlated predictors.

    Parameters
    ----------
    sigma2 : float or array
        Variance :math:`\sigma^2 \ge 0` of each predictor.
    rho : float or array
        Pairwise correlation, in ``[-1/(M-1), 1]`` (any value in ``[-1, 1]`` when ``M = 1``).
    M : int or array of int
        Number of predictors averaged, ``M >= 1``.

    Returns
    -------
    float or ndarray

    Notes
    -----
    Equation ``eq-var-average``: :math:`\operatorname{Var}\frac1M\sum_m Z_m =
    \frac{1}{M^2}\bigl(M\sigma^2 + M(M-1)\rho\sigma^2\bigr)`. A correlation
    below :math:`-1/(M-1)` would give a negative variance and is rejected.
    """
    M_arr = check_integers(M, "M", low=1)
    s2 = check_reals(sigma2, "sigma2", 0.0, None, bool_ok=False, message="be finite and non-negative")
    rho_arr = check_reals(rho, "rho", -1.0, 1.0, bool_ok=False)
    s2, rho_arr, M_arr = np.broadcast_arrays(s2, rho_arr, M_arr)
    check_equicorrelation(rho_arr, M_arr, "rho", "M", "predictors")
    out = rho_arr * s2 + (1 - rho_arr) * s2 / M_arr  # eq-var-average
    return float(out) if out.ndim == 0 else out


def equicorrelated_normals(M: int, rho: float, n_samples: int,
                           random_state: np.random.Generator | int | None, *,
                           sigma: float = 1.0) -> np.ndarray:
    r"""Draw ``n_samples`` vectors of ``M`` normal variables, variance ``sigma**2``, pairwise correlation ``rho``.

    Parameters
    ----------
    M : int
        Number of variables ``M >= 1``.
    rho : float
        Pairwise correlation, in ``[0, 1]``.
    n_samples : int
        Number of independent vectors.
    random_state : numpy.random.Generator or int
        Source of randomness.
    sigma : float, default=1.0
        Standard deviation of each variable.

    Returns
    -------
    ndarray of shape (n_samples, M)

    Notes
    -----
    :math:`Z_m = \sigma(\sqrt\rho\, W + \sqrt{1-\rho}\, E_m)` with independent
    standard normals :math:`W, E_1, \dots, E_M`: a shared part of variance
    :math:`\rho\sigma^2` and an individual part of variance
    :math:`(1-\rho)\sigma^2`, so :math:`\operatorname{Cov}(Z_m, Z_{m'}) = \rho\sigma^2`.
    """
    M = check_int(M, "M", low=1)
    rho = check_float(rho, "rho", low=0.0, high=1.0)
    n = check_int(n_samples, "n_samples", low=1)
    sigma = check_float(sigma, "sigma", low=0.0)
    rng = check_random_state(random_state)
    W = rng.standard_normal((n, 1))  # the part every predictor shares
    E = rng.standard_normal((n, M))  # the parts that are each predictor's own
    return sigma * (np.sqrt(rho) * W + np.sqrt(1 - rho) * E)
