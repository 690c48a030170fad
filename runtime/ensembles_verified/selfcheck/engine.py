r"""The engine of the self-checks: calling a student's function on cases and comparing.

Shared by the self-checks of every chapter (:mod:`ensembles_verified.selfcheck`):
``_run`` calls the function on every case, compares its answers with the
reference and explains the first disagreement.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

# --- the engine ---------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        x = arr.item()
        if not isinstance(x, float):
            return repr(x)
        text = f"{x:.12g}"
        return text if any(c in text for c in ".eni") else text + ".0"
    with np.printoptions(precision=10, threshold=20, linewidth=100):
        return np.array2string(arr, separator=", ")


def _call_text(kwargs: dict) -> str:
    return "your_function(" + ", ".join(f"{k}={_fmt(v)}" for k, v in kwargs.items()) + ")"


def _fresh(kwargs: dict) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}


def _check_callable(student_fn: Any, n_args: int, name: str) -> None:
    if not callable(student_fn):
        raise TypeError(f"{name} expects your function itself (a callable), got "
                        f"{type(student_fn).__name__}; pass the name without parentheses.")
    try:
        signature = inspect.signature(student_fn)
    except (TypeError, ValueError):  # builtins without a signature: let the call decide
        return
    try:
        signature.bind(*range(n_args))
    except TypeError:
        shown = getattr(student_fn, '__name__', 'your_function')
        raise TypeError(f"{name} calls your function with {n_args} positional argument(s), "
                        f"but its signature is {shown}{signature}.") from None


def _seed(random_state: Any) -> tuple[np.random.Generator, str]:
    """The generator of the random cases, and how to draw the same cases again.

    ``None`` draws a fresh seed (new cases on every call); an integer, such as
    the seed of a student's variant, gives the same cases every time.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state, "the same generator state repeats these cases"
    if random_state is None:
        random_state = int(np.random.SeedSequence().entropy % 2**31)
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)) \
            or random_state < 0:
        raise TypeError("random_state must be None, a non-negative int or a numpy.random.Generator, "
                        f"got {random_state!r}.")
    seed = int(random_state)
    return np.random.default_rng(seed), f"random_state={seed} repeats these cases"


def _matches(got: np.ndarray, value: Any, rtol: float, atol: float) -> bool:
    try:
        v = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return v.shape == got.shape and bool(np.all(np.abs(got - v) <= atol + rtol * np.abs(v)))


def _run(name: str, student_fn: Callable, cases: Sequence[dict], reference: Callable,
         reference_name: str, *, formula: str = "", rtol: float = 1e-9, atol: float = 1e-12,
         mistakes: Sequence[tuple[str, Callable]] = (), repeat: str = "") -> None:
    """Call ``student_fn(**case)`` (positionally) and ``reference(**case)`` on every case.

    A failure names the case, the formula (``formula``, by its equation label),
    the expected value and the value received, and, when the value received is
    what one of ``mistakes`` (pairs of a description and a function of the same
    arguments) gives, that mistake.
    """
    _check_callable(student_fn, len(cases[0]), name)
    tail = f"\n  ({repeat})" if repeat else ""
    rule = f"\n  formula: {formula}" if formula else ""
    for number, case in enumerate(cases, start=1):
        where = f"{name}: case {number} of {len(cases)}, {_call_text(case)}{rule}"
        expected = np.asarray(reference(**_fresh(case)), dtype=float)
        try:
            received = student_fn(*_fresh(case).values())
        except Exception as exc:  # the student's error, reported with the case that caused it
            raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}{tail}") from exc
        if received is None:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  received: None "
                                 f"(does your function return its result?){tail}")
        try:
            got = np.asarray(received)
        except (TypeError, ValueError):  # ragged sequences
            got = np.asarray(None)
        if got.dtype.kind not in "biuf":
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  received: "
                                 f"{received!r}, which is not a number or an array of numbers{tail}")
        got = got.astype(float)
        if got.shape != expected.shape:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)} (shape "
                                 f"{expected.shape})\n  received: {_fmt(got)} (shape {got.shape})"
                                 f"{tail}")
        same_nan = np.isnan(expected) & np.isnan(got)
        ok = same_nan | (np.isfinite(got) & (np.abs(got - expected) <= atol + rtol * np.abs(expected)))
        if not ok.all():
            detail = ""
            if got.ndim:
                first = int(np.flatnonzero(~ok.ravel())[0])
                detail = (f"\n  first difference at index {first}: expected "
                          f"{expected.ravel()[first]:.12g}, received {got.ravel()[first]:.12g}")
            hint = ""
            for description, wrong in mistakes:
                try:
                    with np.errstate(all="ignore"):
                        value = wrong(**_fresh(case))
                except Exception:  # a mistake that cannot be evaluated on this case
                    continue
                if _matches(got, value, max(rtol, 1e-9), max(atol, 1e-12)) and \
                        not _matches(expected, value, rtol, atol):
                    hint = f"\n  your value is what {description} gives."
                    break
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}   ({reference_name})\n"
                                 f"  received: {_fmt(got)}{detail}\n  tolerance: |received - "
                                 f"expected| <= {atol:g} + {rtol:g} |expected|{hint}{tail}")
    print(f"\u2714 {name}: your function agrees with {reference_name} on all {len(cases)} cases.")


def _grid(**axes: Sequence) -> list[dict]:
    """Every combination of the given values, as keyword dictionaries (in order)."""
    cases = [{}]
    for key, values in axes.items():
        cases = [{**case, key: v} for case in cases for v in values]
    return cases
