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

from .core.validation import check_array, check_float, check_int, check_random_state

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


# --- label noise and a several-class version of the circle problem (chapter *AdaBoost*) ----

__all__ += ["flip_labels", "make_rings_classification"]


def flip_labels(y: Any, fraction: float,
                random_state: np.random.Generator | int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    r"""Flip exactly ``round(fraction * n)`` labels of a two-class problem, chosen at random.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels taking exactly two distinct values (for example ``{0, 1}`` or
        ``{-1, +1}``).
    fraction : float
        Fraction in ``[0, 1]`` of the labels to flip.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    y_noisy : ndarray of shape (n_samples,)
        A copy of ``y`` in which the chosen labels are replaced by the other class.
    flipped : ndarray of bool, shape (n_samples,)
        Which labels were flipped (exactly ``round(fraction * n)`` of them,
        drawn without replacement), so that a chapter can follow the noisy
        points through training.
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,), got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y must not contain NaN or infinity (NaN is not a class label).")
    classes = np.unique(y)
    if classes.size != 2:
        raise ValueError(f"y must contain exactly 2 classes, got {classes.size} "
                         f"({classes.tolist()}).")
    rate = check_float(fraction, "fraction", low=0.0, high=1.0)
    rng = check_random_state(random_state)
    n_flip = int(round(rate * y.shape[0]))
    flipped = np.zeros(y.shape[0], dtype=bool)
    flipped[rng.choice(y.shape[0], size=n_flip, replace=False)] = True
    y_noisy = y.copy()
    y_noisy[flipped] = np.where(y[flipped] == classes[0], classes[1], classes[0])  # swap
    return y_noisy, flipped


def make_rings_classification(n_samples: int = 500, n_classes: int = 3,
                              n_noise_features: int = 0,
                              random_state: np.random.Generator | int | None = None
                              ) -> tuple[np.ndarray, np.ndarray]:
    r"""``n_classes`` classes of equal probability on concentric rings in the plane.

    Parameters
    ----------
    n_samples : int, default=500
        Number of points.
    n_classes : int, default=3
        Number of classes :math:`K \ge 2`.
    n_noise_features : int, default=0
        Number of extra independent :math:`N(0, 1)` features unrelated to the class.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n_samples, 2 + n_noise_features)
    y : ndarray of int, shape (n_samples,)
        Labels in ``{0, ..., n_classes - 1}``, counted from the centre outwards.

    Notes
    -----
    With :math:`(x_1, x_2) \sim N(0, I_2)`, the label is the number of radii
    :math:`r_k^2 = -2 \ln(1 - k/K)`, :math:`k = 1, \dots, K - 1`, that
    :math:`x_1^2 + x_2^2` exceeds. As :math:`x_1^2 + x_2^2` is exponential with
    mean 2, :math:`P(x_1^2 + x_2^2 \le r_k^2) = k/K`: every class has probability
    :math:`1/K` and the Bayes error is 0. For :math:`K = 2` this is the problem of
    :func:`make_circle_classification` without label noise.
    """
    n = check_int(n_samples, "n_samples", low=1)
    K = check_int(n_classes, "n_classes", low=2)
    k = check_int(n_noise_features, "n_noise_features", low=0)
    rng = check_random_state(random_state)
    X = rng.standard_normal((n, 2 + k))  # two informative features, then k noise features
    radii2 = -2.0 * np.log1p(-np.arange(1, K) / K)  # r_k^2 with P(R^2 <= r_k^2) = k / K
    y = np.searchsorted(radii2, X[:, 0] ** 2 + X[:, 1] ** 2)  # number of radii below R^2
    return X, y


# --- redundant noisy copies of a few latent signals (chapter *Random forests*) ----------

__all__ += ["make_redundant_classification", "redundant_bayes_error"]


def make_redundant_classification(n_samples: int = 500, n_latent: int = 2, n_copies: int = 10,
                                  noise: float = 0.7,
                                  random_state: np.random.Generator | int | None = None
                                  ) -> tuple[np.ndarray, np.ndarray]:
    r"""Two classes decided by a few latent signals, observed only through noisy copies.

    Parameters
    ----------
    n_samples : int, default=500
        Number of points.
    n_latent : int, default=2
        Number :math:`k \ge 1` of latent signals :math:`z \sim N(0, I_k)`.
    n_copies : int, default=10
        Number :math:`c \ge 1` of observed copies of each signal.
    noise : float, default=0.7
        Standard deviation :math:`\sigma > 0` of the independent Gaussian noise on
        each copy.
    random_state : numpy.random.Generator or int
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n_samples, n_latent * n_copies)
        Column :math:`jc + r` is copy :math:`r` of signal :math:`j`:
        :math:`x_{jc+r} = z_j + \sigma\varepsilon_{jc+r}`.
    y : ndarray of int, shape (n_samples,)
        :math:`y = \mathbb 1[z_1 + \dots + z_k > 0]`.

    Notes
    -----
    Every feature is informative and each is a weak, redundant view of its
    signal: the data set on which drawing candidate features at random helps a
    forest most. The Bayes classifier thresholds the sum of all features at 0
    (the noise averages out over the :math:`c` copies), and its error is
    :func:`redundant_bayes_error`.
    """
    n = check_int(n_samples, "n_samples", low=1)
    k = check_int(n_latent, "n_latent", low=1)
    c = check_int(n_copies, "n_copies", low=1)
    sigma = check_float(noise, "noise", low=0.0, low_open=True)
    rng = check_random_state(random_state)
    z = rng.standard_normal((n, k))  # latent signals z ~ N(0, I_k)
    X = np.repeat(z, c, axis=1) + sigma * rng.standard_normal((n, k * c))  # noisy copies
    y = (z.sum(axis=1) > 0).astype(int)  # y = 1[z_1 + ... + z_k > 0]
    return X, y


def redundant_bayes_error(n_copies: int, noise: float) -> float:
    r"""Bayes error of :func:`make_redundant_classification`: :math:`\arctan(\sigma/\sqrt c)/\pi`.

    Notes
    -----
    With :math:`T = \sum_j z_j \sim N(0, k)` and the mean of the copies giving
    :math:`S = T + E`, :math:`E \sim N(0, k\sigma^2/c)` independent of :math:`T`,
    the best guess of :math:`\mathbb 1[T > 0]` is :math:`\mathbb 1[S > 0]`, wrong
    when :math:`T` and :math:`S` have opposite signs. For two independent
    centred Gaussians that probability is :math:`\arctan(\mathrm{sd}(E)/\mathrm{sd}(T))/\pi`;
    the ratio of the standard deviations is :math:`\sigma/\sqrt c` whatever :math:`k`.
    """
    c = check_int(n_copies, "n_copies", low=1)
    sigma = check_float(noise, "noise", low=0.0, low_open=True)
    return float(np.arctan(sigma / np.sqrt(c)) / np.pi)
