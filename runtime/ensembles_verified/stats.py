"""Monte Carlo bookkeeping for the book's checks.

A Monte Carlo check compares an average of ``R`` replications with a reference
value, with a tolerance of ``k`` standard errors. It rules out a rival that
predicts a value ``delta`` away only if ``delta`` is well beyond ``k`` standard
errors. :func:`replications_for_power` chooses ``R`` so that this happens with
a stated probability; :func:`power_against_rival` says what probability a
given ``R`` achieves.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.stats import norm

__all__ = ["mean_and_se", "power_against_rival", "replications_for_power"]


def mean_and_se(x: Any, axis: int = 0) -> tuple[Any, Any]:
    """Sample mean and its standard error ``s / sqrt(R)`` along ``axis``.

    Parameters
    ----------
    x : array-like
        Replications; at least two along ``axis``.
    axis : int, default=0

    Returns
    -------
    mean, se : float or ndarray
        Python floats for a 1-D input, arrays otherwise.
    """
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or a.shape[axis] < 2:
        raise ValueError("x must hold at least 2 replications along axis "
                         f"{axis}, got shape {a.shape}.")
    if not np.all(np.isfinite(a)):
        raise ValueError("x must contain only finite values.")
    R = a.shape[axis]
    mean = a.mean(axis=axis)
    se = a.std(axis=axis, ddof=1) / math.sqrt(R)
    if a.ndim == 1:
        return float(mean), float(se)
    return mean, se


def _check_positive(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    if not (math.isfinite(float(value)) and float(value) > 0):
        raise ValueError(f"{name} must be finite and > 0, got {value}.")
    return float(value)


def power_against_rival(delta: float, se: float, k: float = 4.0) -> float:
    """Probability that a ``k``-standard-error check rejects a rival ``delta`` away.

    The estimate is normal with standard error ``se`` around the true value; the
    rival, which predicts ``true + delta``, passes when the estimate falls within
    ``k * se`` of it. The power is ``1 - P(|Z - delta/se| <= k)``.
    """
    delta = _check_positive("delta", abs(delta))
    se = _check_positive("se", se)
    k = _check_positive("k", k)
    d = delta / se
    return float(1.0 - (norm.cdf(k - d) - norm.cdf(-k - d)))


def replications_for_power(delta: float, sd: float, k: float = 4.0,
                           power: float = 0.99) -> int:
    """Smallest ``R`` for which a ``k``-s.e. check rejects a rival ``delta`` away.

    With ``se = sd / sqrt(R)``, the check rejects the rival with probability at
    least ``power`` once ``delta >= (k + z_power) * se``, i.e.
    ``R >= ((k + z_power) * sd / delta)^2``.

    Parameters
    ----------
    delta : float
        Distance between the true value and the rival's prediction (> 0).
    sd : float
        Standard deviation of one replication (> 0).
    k : float, default=4.0
        Tolerance of the check, in standard errors.
    power : float, default=0.99
        Required probability of rejecting the rival, in (0.5, 1).
    """
    delta = _check_positive("delta", abs(delta))
    sd = _check_positive("sd", sd)
    k = _check_positive("k", k)
    if not (isinstance(power, (float, int)) and 0.5 < power < 1):
        raise ValueError(f"power must be in (0.5, 1), got {power!r}.")
    return max(2, math.ceil(((k + norm.ppf(power)) * sd / delta) ** 2))
