r"""The engine of the self-checks: calling a student's function on cases and comparing.

Shared by the self-checks of every chapter (:mod:`ensembles_verified.selfcheck`):
``_seed`` turns ``random_state`` into the generator of the random cases, ``_run``
calls the function on every case, compares its answers with the reference and
explains the first disagreement in one format, which names the case and the idea
to look at but never shows the reference's value or the formula::

    check_name: case k of N, your_function(arguments of the case)
      received: your value
      (where it differs: the first index that differs, the tolerance)
      look at: the equation of the chapter, by its label
      (the usual mistake your value matches, in words)
      (random_state=... repeats these cases)

A check whose answer cannot be compared number by number (a random sample, a
threshold judged by the split it makes) passes its own comparison to ``_run``;
everything else (the call, the messages, the confirmation) is the engine's.
"""

from __future__ import annotations

import copy
import inspect
import re
from typing import Any, Callable, Sequence

import numpy as np

# --- the engine ---------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    if isinstance(value, np.random.Generator):
        seq = getattr(value.bit_generator, "seed_seq", None)
        if isinstance(getattr(seq, "entropy", None), int) and not seq.spawn_key:
            return f"np.random.default_rng({seq.entropy})"
        return "a numpy.random.Generator"
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
    """Copies of the case's arrays and generators: a call cannot change the case."""
    return {k: (v.copy() if isinstance(v, np.ndarray) else
                copy.deepcopy(v) if isinstance(v, np.random.Generator) else v)
            for k, v in kwargs.items()}


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


def _answer(student_fn: Callable, case: dict, where: str, tail: str, single: bool) -> np.ndarray:
    """The student's answer on ``case`` as an array of floats, or the AssertionError saying why not."""
    try:
        received = student_fn(*_fresh(case).values())
    except Exception as exc:  # the student's error, reported with the case that caused it
        raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}{tail}") from exc
    if received is None:
        raise AssertionError(f"{where}\n  received: None (does your function return its result?)"
                             f"{tail}")
    try:
        got = np.asarray(received)
    except (TypeError, ValueError):  # ragged sequences
        got = np.asarray(None)
    if got.dtype.kind not in "biuf":
        raise AssertionError(f"{where}\n  received: {received!r}, which is not a number or an "
                             f"array of numbers{tail}")
    got = got.astype(float)
    return got.reshape(()) if single and got.size == 1 else got


def _mistake(got: np.ndarray, expected: np.ndarray, case: dict, mistakes: Sequence[tuple[str, Callable]],
             rtol: float, atol: float) -> str:
    """The line naming the first of ``mistakes`` that gives ``got`` (and not ``expected``), or ''."""
    for description, wrong in mistakes:
        try:
            with np.errstate(all="ignore"):
                value = wrong(**_fresh(case))
        except Exception:  # a mistake that cannot be evaluated on this case
            continue
        if _matches(got, value, max(rtol, 1e-9), max(atol, 1e-12)) and \
                not _matches(expected, value, rtol, atol):
            return f"\n  your value is what {description} gives."
    return ""


def _compare_numbers(got: np.ndarray, expected: np.ndarray, case: dict, reference_name: str,
                     rtol: float, atol: float, mistakes: Sequence[tuple[str, Callable]]
                     ) -> tuple[str, str, str] | None:
    """``None`` when ``got`` agrees with ``expected`` elementwise; else ("", received, why),
    ``why`` saying where they differ, never the expected value."""
    if got.shape != expected.shape:
        return "", f"{_fmt(got)} (shape {got.shape})", f"\n  the shape should be {expected.shape}."
    same_nan = np.isnan(expected) & np.isnan(got)
    ok = same_nan | (np.isfinite(got) & (np.abs(got - expected) <= atol + rtol * np.abs(expected)))
    if ok.all():
        return None
    detail = ""
    if got.ndim:
        wrong = np.flatnonzero(~ok.ravel())
        detail = (f"\n  {wrong.size} of {ok.size} entries differ from the reference "
                  f"({reference_name}); the first at index {int(wrong[0])}, where yours is "
                  f"{got.ravel()[wrong[0]]:.12g}")
    else:
        detail = f"\n  this differs from the reference ({reference_name})"
    detail += f" (tolerance: |received - reference| <= {atol:g} + {rtol:g} |reference|)"
    return "", _fmt(got), detail + _mistake(got, expected, case, mistakes, rtol, atol)


def _look_at(rule: str) -> str:
    """The equations a check's formula names (its labels), never the formula itself."""
    labels = list(dict.fromkeys(re.findall(r"\beq-[a-z0-9-]+", rule)))
    if labels:
        return ", ".join(labels)
    name = rule.split(":")[0].strip()
    plain = name and not re.search(r"[=()^/*+]", name)
    return f"{name} (its definition in the chapter)" if plain else "the chapter's definition"


def _run(name: str, student_fn: Callable, cases: Sequence[dict], reference: Callable,
         reference_name: str, *, formula: str | Callable[..., str] = "", rtol: float = 1e-9,
         atol: float = 1e-12, mistakes: Sequence[tuple[str, Callable]] = (), repeat: str = "",
         compare: Callable[[np.ndarray, Any, dict], tuple[str, str, str] | None] | None = None,
         single: bool = False) -> None:
    """Call ``student_fn(**case)`` (positionally) and ``reference(**case)`` on every case.

    A failure names the case, the value received, where it differs, the
    equation to look at (the labels ``eq-...`` that ``formula`` names; a function of
    the case's arguments gives a text for each case) and, when the value received
    is what one of ``mistakes`` (pairs of a description in words and a function of
    the same arguments) gives, that mistake. It never shows the reference's value
    or the formula. ``single``: the answer is one number, and an array of
    one element is taken as that number.

    ``compare(got, expected, case)`` replaces the comparison number by number (and
    ``mistakes``): it gets the answer as an array of floats and what ``reference``
    returned (a text is shown as it is), and returns ``None`` when they agree or
    the texts ``(expected, received, why)`` of the failure, ``why`` being the
    lines that explain it (each starting with a new line), or ``""``; the
    expected text is not shown (it would give the answer away).
    """
    _check_callable(student_fn, len(cases[0]), name)
    tail = f"\n  ({repeat})" if repeat else ""
    for number, case in enumerate(cases, start=1):
        rule = formula(**case) if callable(formula) else formula
        where = f"{name}: case {number} of {len(cases)}, {_call_text(case)}"
        expected = reference(**_fresh(case))
        if compare is None:
            expected = np.asarray(expected, dtype=float)
        got = _answer(student_fn, case, where, tail, single)
        failure = (compare(got, expected, case) if compare is not None else
                   _compare_numbers(got, expected, case, reference_name, rtol, atol, mistakes))
        if failure is not None:
            _, received, why = failure
            look = f"\n  look at: {_look_at(rule)}"
            raise AssertionError(f"{where}\n  received: {received}{why}{look}{tail}")
    print(f"\u2714 {name}: your function agrees with {reference_name} on all {len(cases)} cases.")


def _grid(**axes: Sequence) -> list[dict]:
    """Every combination of the given values, as keyword dictionaries (in order)."""
    cases = [{}]
    for key, values in axes.items():
        cases = [{**case, key: v} for case in cases for v in values]
    return cases
