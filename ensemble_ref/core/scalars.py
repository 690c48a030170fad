"""Validation of scalar parameters and small arrays: the building blocks of :mod:`.validation`.

Seeds, integers and floats within a range, real-valued arrays, the pairs ``(y, F)``
of the loss functions, estimator arguments and ``n_jobs``. Import them from
:mod:`ensemble_ref.core.validation`, the package's one validation module, which
re-exports them.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .arrays import DtypeError

__all__ = ["as_output", "check_attributes", "check_bool", "check_callable", "check_choice", "check_estimator",
           "check_float", "check_int", "check_n_jobs", "check_pair", "check_random_state", "check_reals",
           "check_seed", "check_size"]


def check_random_state(seed: Any, name: str = "random_state") -> np.random.Generator:
    """Turn ``seed`` into a :class:`numpy.random.Generator`.

    ``None`` gives a fresh unseeded generator, an ``int`` a seeded one, and a
    ``Generator`` is returned unchanged. The legacy global ``np.random`` state
    is never used.
    """
    seed = check_seed(seed, name)
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(None if seed is None else int(seed))


def check_seed(seed: Any, name: str = "random_state") -> Any:
    """``seed`` unchanged if :func:`check_random_state` accepts it, without making the
    generator (for a tree that draws nothing: a fresh generator costs 10 us)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (numbers.Integral, np.integer)) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {seed}.")
        return seed
    raise TypeError(
        f"{name} must be None, a non-negative int or a numpy.random.Generator, "
        f"got {type(seed).__name__}."
    )


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None,
              allow_none: bool = False) -> int | None:
    """Check that ``value`` is an integer in ``[low, high]`` (bounds optional)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        accepted = "an int" + (" or None" if allow_none else "")
        raise TypeError(f"{name} must be {accepted}, got {value!r} of type {type(value).__name__}.")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value}.")
    return value


def check_float(value: Any, name: str, *, low: float | None = None, high: float | None = None,
                low_open: bool = False, high_open: bool = False) -> float:
    """Check that ``value`` is a finite real number within the given interval."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}.")
    value = float(value)
    bad = not np.isfinite(value)
    if low is not None:
        bad |= value <= low if low_open else value < low
    if high is not None:
        bad |= value >= high if high_open else value > high
    if bad:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be in {left}{lo}, {hi}{right}, got {value}.")
    return value


def check_size(n_elements: Any, name: str, limit: float = 2.0**31) -> None:
    """Refuse to allocate more than ``limit`` array elements (16 GiB of float64).

    A huge count is almost always a typo; numpy would end in ``MemoryError``.
    """
    if float(n_elements) > limit:
        raise ValueError(f"{name} asks for {float(n_elements):.3g} array elements, more than the "
                         f"{limit:.3g} this implementation allocates; use a smaller {name}.")


def check_reals(value: Any, name: str, low: float | None = None, high: float | None = None, *,
                low_open: bool = False, high_open: bool = False, vector: bool = False,
                ndim: int | None = None, allow_nan: bool = False, allow_inf: bool = False,
                bool_ok: bool = True, message: str | None = None) -> np.ndarray:
    """A float64 array of reals, optionally within ``[low, high]`` (ends optionally open).

    ``vector=True`` requires a non-empty 1-D array, ``ndim`` that many axes.
    Entries must be finite unless ``allow_nan`` (NaN marks a missing value) or
    ``allow_inf`` (an infinite vote, a limit); ``bool_ok=False`` refuses a boolean
    array. ``message`` replaces the interval in the error raised for an entry outside it.
    """
    arr = np.asarray(value)
    if arr.dtype.kind not in ("biuf" if bool_ok else "iuf"):
        raise DtypeError(f"{name} must contain real numbers, got dtype {arr.dtype}.")
    arr = arr.astype(np.float64)
    if vector and (arr.ndim != 1 or arr.size == 0):
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}.")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}.")
    if low is None and high is None:
        if not _only_allowed(arr, allow_nan, allow_inf):
            what = "NaN" if allow_inf else "infinity (NaN marks a missing value)" if allow_nan else \
                "NaN or infinity (only finite values)"
            raise ValueError(f"{name} must not contain {what}.")
        return arr
    bad = (np.isnan(arr) & (not allow_nan)) | (np.isinf(arr) & (not allow_inf))
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
    if high is not None:
        bad |= (arr >= high) if high_open else (arr > high)
    if bad.any():
        left, right = "(" if low_open else "[", ")" if high_open else "]"
        interval = message or f"lie in {left}{low}, {high}{right}"
        raise ValueError(f"{name} must {interval}, got {value!r}.")
    return arr


def _only_allowed(arr: np.ndarray, allow_nan: bool, allow_inf: bool) -> bool:
    """Whether the float array ``arr`` holds no NaN (unless allowed) and no infinity (unless
    allowed): one pass over it, two for all-finite (its minimum and maximum, NaN if it holds one)."""
    if allow_nan and allow_inf:
        return True
    if allow_nan:
        return not np.isinf(arr).any()
    if allow_inf:
        return not np.isnan(arr).any()
    return arr.size == 0 or bool(np.isfinite(arr.min()) and np.isfinite(arr.max()))


def check_pair(y: Any, F: Any, labels: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Labels or targets ``y`` and scores ``F``: finite float arrays of one shape.

    ``labels="01"`` restricts ``y`` to {0, 1} (log loss), ``"pm1"`` to {-1, +1}.
    """
    y, F = np.asarray(y), np.asarray(F)
    for name, a in (("y", y), ("F", F)):
        if a.dtype.kind not in "biuf":
            raise TypeError(f"{name} must contain real numbers, got dtype {a.dtype}.")
    if y.shape != F.shape:
        raise ValueError(f"y and F must have the same shape, got {y.shape} and {F.shape}.")
    y, F = check_reals(y, "y"), check_reals(F, "F")
    if labels == "01" and not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("y must contain only the labels 0 and 1 for the log loss.")
    if labels == "pm1" and not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("y must contain only the labels -1 and +1 for the exponential loss.")
    return y, F


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a bool; ``TypeError`` for anything but ``True`` or ``False`` (numpy's too)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool (True or False), got {value!r}.")
    return bool(value)


def check_choice(value: Any, name: str, options: Any) -> Any:
    """``value`` if it is one of ``options`` (strings or numbers); ``ValueError`` naming them otherwise."""
    options = tuple(options)
    if not any(isinstance(value, type(o)) and value == o for o in options):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}.")
    return value


def check_callable(value: Any, name: str, what: str = "a callable") -> Any:
    """``value`` if it can be called; ``TypeError`` saying what is expected otherwise."""
    if not callable(value):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}.")
    return value


def check_attributes(value: Any, name: str, attributes: tuple, what: str) -> Any:
    """``value`` if it has every one of ``attributes``; ``TypeError`` naming the missing ones."""
    missing = [a for a in attributes if not hasattr(value, a)]
    if missing:
        raise TypeError(f"{name} must be {what}; {type(value).__name__} has no {', '.join(missing)}.")
    return value


def as_output(arr: np.ndarray) -> np.ndarray | float:
    """A 0-d result as a Python float, any other array unchanged."""
    return float(arr) if arr.ndim == 0 else arr


def check_estimator(estimator: Any, name: str, method: str = "fit") -> None:
    """Raise ``TypeError`` unless ``estimator`` is an unfitted estimator (``fit``, ``get_params``)."""
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise TypeError(
            f"{name} must be an unfitted estimator with fit and get_params methods, "
            f"got {estimator!r}."
        )


def check_n_jobs(n_jobs: Any) -> int | None:
    """``None`` or ``1``: sequential; another int (``-1`` = all cores): joblib workers."""
    if n_jobs is None:
        return None
    n_jobs = check_int(n_jobs, "n_jobs")
    if n_jobs == 0:
        raise ValueError("n_jobs must be None, a positive int or a negative int (-1 = all cores), got 0.")
    return n_jobs
