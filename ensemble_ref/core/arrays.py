"""Validation of array arguments beyond their values: integer codes, shapes, orders and sums.

The building blocks of :mod:`.validation` for the pure functions of ``math/``: integer
arrays within a range (labels, indices, counts, bins), shapes and agreeing shapes,
permutations, increasing sequences, rows of probabilities, lists of arrays, and the
smallest correlation ``n`` variables can share. Import them from
:mod:`ensemble_ref.core.validation`, which re-exports them. Each raises ``TypeError``
or ``ValueError`` with a message naming the argument and what it accepts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["DtypeError", "check_dtype", "check_integers", "check_values", "check_nonzero", "check_shape",
           "check_same_shape", "check_permutation", "check_increasing", "check_distribution",
           "check_sequence", "check_equicorrelation", "integer_offsets",
           "centre_integers"]


class DtypeError(TypeError, ValueError):
    """An array whose entries are of the wrong kind (strings for numbers, floats for integers).

    Both a ``TypeError`` (the type of its entries) and a ``ValueError`` (an array
    argument of the right shape with values that cannot be used), as numpy's
    ``AxisError`` is both a ``ValueError`` and an ``IndexError``: callers catching
    either, as the package's functions have raised either, keep working.
    """


def check_dtype(value: Any, name: str, kinds: str, what: str) -> np.ndarray:
    """``value`` as an array if its dtype is of one of the numpy ``kinds`` (``"b"``: booleans)."""
    arr = np.asarray(value)
    if arr.dtype.kind not in kinds:
        raise DtypeError(f"{name} must contain {what}, got dtype {arr.dtype}.")
    return arr


def check_integers(value: Any, name: str, low: int | None = None, high: int | None = None, *,
                   bool_ok: bool = False, message: str | None = None) -> np.ndarray:
    """An array of integers within ``[low, high]`` (labels, indices, counts, bins), as int64.

    ``bool_ok=True`` also accepts booleans (0/1 counts); ``message`` replaces the
    interval in the error raised for an entry outside it.
    """
    arr = check_dtype(value, name, "biu" if bool_ok else "iu", "integers").astype(np.int64)
    bad = np.zeros(arr.shape, dtype=bool)
    if low is not None:
        bad |= arr < low
    if high is not None:
        bad |= arr > high
    if bad.any():
        interval = message or f"contain integers in [{'-inf' if low is None else low}, " \
                              f"{'inf' if high is None else high}]"
        raise ValueError(f"{name} must {interval}, got {value!r}.")
    return arr


def check_values(arr: np.ndarray, name: str, allowed: tuple) -> np.ndarray:
    """``arr`` unchanged if every entry is one of ``allowed`` (labels in {0, 1} or {-1, +1})."""
    if not np.isin(arr, allowed).all():
        raise ValueError(f"{name} must contain only the values {', '.join(map(repr, allowed))}; it also "
                         f"holds {np.setdiff1d(arr, allowed)[:5].tolist()}.")
    return arr


def check_nonzero(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` unchanged unless all its entries are zero (a direction, a vector to normalise)."""
    if not np.any(arr != 0):
        raise ValueError(f"{name} must not be zero everywhere.")
    return arr


def check_shape(arr: np.ndarray, name: str, shape: tuple, *, at_least: int | tuple = 0,
                described: str | None = None) -> np.ndarray:
    """``arr`` unchanged if it has ``len(shape)`` axes of the given lengths.

    An int in ``shape`` fixes the length of its axis, ``None`` leaves it free;
    ``at_least`` (one int, or one per axis) is the smallest length of each axis.
    ``described`` replaces the shape in the message (``"(R, n_test) with R >= 2"``).
    """
    lows = at_least if isinstance(at_least, tuple) else (at_least,) * len(shape)
    ok = arr.ndim == len(shape) and all((s is None or n == s) and n >= low
                                        for n, s, low in zip(arr.shape, shape, lows))
    if not ok:
        axes = [str(s) if s is not None else f">= {low}" if low else "any" for s, low in zip(shape, lows)]
        expected = described or f"({', '.join(axes)}{',' if len(axes) == 1 else ''})"
        raise ValueError(f"{name} must have shape {expected}, got {arr.shape}.")
    return arr


def check_same_shape(**arrays: np.ndarray) -> None:
    """``ValueError`` naming every argument unless the arrays all have one shape."""
    shapes = [np.shape(a) for a in arrays.values()]
    if any(s != shapes[0] for s in shapes):
        *first, last = arrays
        *first_shape, last_shape = shapes
        raise ValueError(f"{', '.join(first)} and {last} must have one shape, got "
                         f"{', '.join(map(str, first_shape))} and {last_shape}.")


def check_permutation(value: Any, name: str, n: int) -> np.ndarray:
    """Integer rows, each a permutation of ``0, ..., n - 1`` (one row, or a matrix of them)."""
    perm = check_integers(value, name)
    if perm.ndim not in (1, 2) or perm.shape[-1] != n or not np.all(np.sort(perm, axis=-1) == np.arange(n)):
        raise ValueError(f"{name} must hold permutations of 0, ..., {n - 1} (one per row), "
                         f"got shape {perm.shape}.")
    return perm


def check_increasing(value: Any, name: str, at_least: int = 1) -> np.ndarray:
    """A 1-D float array of at least ``at_least`` strictly increasing finite values."""
    arr = check_dtype(value, name, "biuf", "real numbers").astype(np.float64)
    if arr.ndim != 1 or arr.size < at_least or not np.all(np.isfinite(arr)) or np.any(np.diff(arr) <= 0):
        raise ValueError(f"{name} must hold at least {at_least} strictly increasing finite "
                         f"values, got {value!r}.")
    return arr


def check_distribution(arr: np.ndarray, name: str, what: str = "a probability for each column",
                       atol: float = 1e-8) -> np.ndarray:
    """``arr`` (float, 2-D) unchanged if its rows are probability vectors: ``>= 0``, summing to 1."""
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {arr.shape}.")
    lo, hi = arr.min(), arr.max()  # (NaN if there is one)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo < 0:
        raise ValueError(f"{name} must contain finite, non-negative probabilities.")
    if not np.all(np.abs(arr.sum(axis=1) - 1.0) <= atol):  # np.allclose(., 1.0, rtol=0, atol=atol)
        raise ValueError(f"{name} must have rows summing to 1 ({what}).")
    return arr


def check_sequence(value: Any, name: str, what: str = "arrays", *, length: int | None = None
                   ) -> list:
    """A non-empty list or tuple (of ``what``), as a list; exactly ``length`` items if given."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of {what}, got {type(value).__name__}.")
    if len(value) == 0 or (length is not None and len(value) != length):
        expected = "at least one item" if length is None else f"exactly {length} items"
        raise ValueError(f"{name} must hold {expected} ({what}), got {len(value)}.")
    return list(value)


def check_equicorrelation(rho: np.ndarray, n: np.ndarray, rho_name: str = "rho", n_name: str = "n",
                          what: str = "variables") -> None:
    r"""``rho >= -1/(n - 1)`` wherever ``n > 1``: no ``n`` variables share a smaller correlation.

    The variance of their sum, :math:`n\sigma^2(1 + (n - 1)\rho)`, would be negative
    (1e-12 of slack for rounding).
    """
    if np.any((n > 1) & (rho * (n - 1) < -1 - 1e-12)):
        raise ValueError(f"{rho_name} must be at least -1/({n_name}-1): {n_name} {what} cannot all be "
                         f"more negatively correlated (got {rho_name}={rho!r}, {n_name}={n!r}).")


def integer_offsets(raw: Any) -> np.ndarray | None:
    """The column minima of an integer array (exact Python ints), or ``None`` for other data.

    Integers near ``2**62`` are 1024 apart in float64, so converting them to floats loses
    everything below that; taken relative to their column minimum *before* the conversion
    (:func:`centre_integers`) they keep every unit of their spread (up to ``2**53``).
    """
    arr = raw if isinstance(raw, np.ndarray) else np.asarray(raw)
    if arr.dtype.kind not in "iu" or arr.ndim != 2 or arr.size == 0:
        return None
    return np.array([int(v) for v in arr.min(axis=0)], dtype=object)


def centre_integers(raw: Any, X: np.ndarray, offsets: np.ndarray | None) -> np.ndarray:
    """``X`` (the float64 validation of ``raw``), or ``raw - offsets`` computed exactly in
    integers and rounded to float64 once, when ``raw`` is an integer array and offsets are given."""
    arr = raw if isinstance(raw, np.ndarray) else np.asarray(raw)
    if offsets is None or arr.dtype.kind not in "iu" or arr.shape != X.shape:
        return X if offsets is None else X - offsets.astype(np.float64)
    return (arr.astype(object) - offsets).astype(np.float64)
