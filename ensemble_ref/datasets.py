r"""Seeded synthetic data sets that the book reuses.

Every generator takes an explicit ``random_state`` (an ``int`` seed or a
:class:`numpy.random.Generator`) and never touches NumPy's global random state,
so a chapter that calls it twice with the same seed gets the same data.

* :func:`sine_function` and :func:`make_sine_regression`: a one-dimensional
  regression problem :math:`y = f(x) + \varepsilon` whose regression function
  :math:`f` is known, so bias and variance can be measured exactly
  (chapter *The bias-variance decomposition*).
* :func:`make_circle_classification`: a two-class problem in the plane whose
  boundary is a circle, with optional label noise and optional pure-noise
  features (chapters *Introduction*, *Random forests*).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_array, check_float, check_int, check_random_state

__all__ = [
    "sine_function",
    "sample_sine_inputs",
    "make_sine_regression",
    "CIRCLE_RADIUS2",
    "make_circle_classification",
]


# --- a one-dimensional regression problem with a known regression function -------------


def sine_function(X: Any) -> np.ndarray:
    r"""The regression function :math:`f(x) = \sin(2\pi x) + 2x` on :math:`[0, 1]`.

    Parameters
    ----------
    X : array of shape (n_samples, 1)
        Inputs (a single feature).

    Returns
    -------
    ndarray of shape (n_samples,)
        :math:`f(x)` for each row.

    Notes
    -----
    One period of a sine wave on a rising line: flat parts, steep parts and two
    turning points, so trees of different depths have clearly different bias.
    """
    X = check_array(X, "X")
    if X.shape[1] != 1:
        raise ValueError(f"X must have exactly one feature, got shape {X.shape}.")
    x = X[:, 0]
    return np.sin(2 * np.pi * x) + 2 * x


def sample_sine_inputs(n_samples: int, random_state: np.random.Generator | int | None
                       ) -> np.ndarray:
    """Draw ``n_samples`` inputs uniformly on ``[0, 1]``, as an ``(n_samples, 1)`` array.

    Parameters
    ----------
    n_samples : int
        Number of points, ``>= 1``.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    ndarray of shape (n_samples, 1)
    """
    n = check_int(n_samples, "n_samples", low=1)
    rng = check_random_state(random_state)
    return rng.random((n, 1))


def make_sine_regression(n_samples: int = 100, noise: float = 0.5,
                         random_state: np.random.Generator | int | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw a training set :math:`y = f(x) + \varepsilon`, :math:`x \sim U[0, 1]`.

    Parameters
    ----------
    n_samples : int, default=100
        Number of points.
    noise : float, default=0.5
        Standard deviation :math:`\sigma \ge 0` of the Gaussian noise
        :math:`\varepsilon \sim N(0, \sigma^2)`.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
    y : ndarray of shape (n_samples,)

    Notes
    -----
    :math:`f` is :func:`sine_function`. The best possible expected squared
    error of any predictor is the noise variance :math:`\sigma^2`.
    """
    sigma = check_float(noise, "noise", low=0.0)
    rng = check_random_state(random_state)
    X = sample_sine_inputs(n_samples, rng)
    y = sine_function(X) + sigma * rng.standard_normal(X.shape[0])  # y = f(x) + eps
    return X, y


# --- a two-class problem with a circular boundary ---------------------------------------

#: Squared radius :math:`2\ln 2` of the class boundary: the median of a
#: chi-squared variable with two degrees of freedom, so both classes have
#: probability exactly 1/2.
CIRCLE_RADIUS2 = 2.0 * np.log(2.0)


def make_circle_classification(n_samples: int = 500, n_noise_features: int = 0,
                               label_noise: float = 0.0,
                               random_state: np.random.Generator | int | None = None
                               ) -> tuple[np.ndarray, np.ndarray]:
    r"""Two classes separated by a circle, with optional label noise and noise features.

    Parameters
    ----------
    n_samples : int, default=500
        Number of points.
    n_noise_features : int, default=0
        Number of extra features, each independent :math:`N(0, 1)` and unrelated
        to the class; they are appended after the two informative ones.
    label_noise : float, default=0.0
        Probability in ``[0, 1/2)`` that a label is flipped.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n_samples, 2 + n_noise_features)
    y : ndarray of int, shape (n_samples,)
        Labels in ``{0, 1}``.

    Notes
    -----
    The informative features are :math:`(x_1, x_2) \sim N(0, I_2)` and the
    clean label is :math:`1` outside the circle,
    :math:`x_1^2 + x_2^2 > 2 \ln 2`; since :math:`x_1^2 + x_2^2` is
    :math:`\chi^2_2`, i.e. exponential with mean 2, each class has probability
    :math:`e^{-\ln 2} = 1/2`. After flipping, the Bayes error is exactly
    ``label_noise``. The boundary is additive in :math:`x_1^2` and
    :math:`x_2^2`, so a sum of decision stumps (boosting) can approximate it,
    while any single axis-aligned tree approximates it by a staircase (after
    Hastie, Tibshirani and Friedman's ten-dimensional example, section 10.2).
    """
    n = check_int(n_samples, "n_samples", low=1)
    k = check_int(n_noise_features, "n_noise_features", low=0)
    flip = check_float(label_noise, "label_noise", low=0.0, high=0.5, high_open=True)
    rng = check_random_state(random_state)
    X = rng.standard_normal((n, 2 + k))  # two informative features, then k noise features
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > CIRCLE_RADIUS2).astype(int)  # 1 outside the circle
    flipped = rng.random(n) < flip
    y[flipped] = 1 - y[flipped]
    return X, y
