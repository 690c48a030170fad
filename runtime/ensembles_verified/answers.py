r"""Answer checks: check a number or a small formula without being shown the answer.

A derivation or experiment exercise that ends in a number or a formula has a
*question* in :mod:`ensembles_verified.question_bank`, registered under the
exercise's label. Enter your answer and
the check compares it with the answer computed at the moment of the check, from
the book's reference implementation; it never prints the answer::

    >>> from ensembles_verified.answers import check_answer
    >>> check_answer("ex-oob-subsample", "(1 - 1/N)**n")  # doctest: +SKIP
    ✔ ex-oob-subsample: right (your formula agrees with the answer on 40 random values of N, n).

A wrong answer raises an ``AssertionError`` that says which quantity was asked
for, the tolerance of the comparison, your own value and, when your value is
what a usual mistake gives, which mistake; it never contains the answer.

**Variants.** Most questions have parameters (the size of a data set, an error
rate). Without a seed the parameters are the book's; an instructor can give
every student a seed, and ``variant(label, seed)`` shows that student's values
(``check_answer(label, answer, seed=seed)`` then checks against them). The
coding exercises' self-checks take the same seed as ``random_state``, so a
variant fixes their cases too. ``tools/variants.py`` writes a class's variants
and their answer key.

**Formulas.** A formula answer is a Python expression in the question's
variables, with ``+ - * / **`` (``^`` is read as a power), numbers, parentheses
and the functions ``exp``, ``log`` (natural), ``sqrt``, ``abs``, ``comb`` and the
constants ``e`` and ``pi``. It is compared with the answer at random values of
the variables, so any equivalent form is accepted.
"""

from __future__ import annotations

import ast
import math
import zlib
from typing import Any

import numpy as np
from scipy import special

from .question import Question
from .question_bank import QUESTIONS

__all__ = ["Question", "QUESTIONS", "check_answer", "variant", "answer_key", "describe"]


# --- the checks --------------------------------------------------------------------------------

_FUNCTIONS = {"exp": np.exp, "log": np.log, "ln": np.log, "sqrt": np.sqrt, "abs": np.abs,
              "comb": lambda n, k: special.comb(n, k, exact=False)}
_CONSTANTS = {"e": math.e, "pi": math.pi}
_OPS = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply, ast.Div: np.divide,
        ast.Pow: np.power}


def _parse(text: str, names: tuple[str, ...], label: str) -> ast.Expression:
    if not isinstance(text, str):
        raise TypeError(f"{label}: a formula answer must be a string such as \"(1 - 1/N)**N\", "
                        f"got {type(text).__name__}.")
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"{label}: your formula {text!r} is not a valid expression ({exc.msg}).") \
            from None
    allowed = set(names) | set(_FUNCTIONS) | set(_CONSTANTS)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in allowed:
            raise ValueError(f"{label}: your formula uses {node.id!r}; it may use the variables "
                             f"{', '.join(names) or '(none)'} and the functions "
                             f"{', '.join(_FUNCTIONS)}.")
        if not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name,
                                 ast.Call, ast.Load, ast.USub, ast.UAdd, *_OPS)):
            raise ValueError(f"{label}: your formula may only use numbers, the variables, + - * / "
                             f"** and the functions {', '.join(_FUNCTIONS)}; it contains "
                             f"{type(node).__name__}.")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id in _FUNCTIONS and not node.keywords):
            raise ValueError(f"{label}: only the functions {', '.join(_FUNCTIONS)} may be called.")
    return tree


def _evaluate(node: ast.AST, values: dict) -> Any:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, values)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ValueError(f"the formula contains {node.value!r}, which is not a number.")
        return float(node.value)
    if isinstance(node, ast.Name):
        return values[node.id] if node.id in values else _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp):
        x = _evaluate(node.operand, values)
        return -x if isinstance(node.op, ast.USub) else x
    if isinstance(node, ast.BinOp):
        return _OPS[type(node.op)](_evaluate(node.left, values), _evaluate(node.right, values))
    if isinstance(node, ast.Call):
        return _FUNCTIONS[node.func.id](*[_evaluate(a, values) for a in node.args])
    raise ValueError(f"unexpected {type(node).__name__}")  # pragma: no cover - _parse refuses it


def _question(label: str) -> Question:
    if label not in QUESTIONS:
        raise KeyError(f"no answer check is registered for {label!r}; the exercises with one are "
                       f"{', '.join(sorted(QUESTIONS))}.")
    return QUESTIONS[label]


def _variant_rng(label: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), zlib.crc32(label.encode())])


def variant(label: str, seed: int | None = None) -> dict:
    """The parameters of an exercise: the book's (``seed=None``) or those of a student's seed.

    Parameters
    ----------
    label : str
        The exercise's label, e.g. ``"ex-oob-enough-members"``.
    seed : int or None
        The seed an instructor gave you, or ``None`` for the book's values.

    Returns
    -------
    dict
        The parameters by name (empty for a question without parameters).
    """
    q = _question(label)
    if seed is None or q.draw is None:
        return dict(q.book)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be a non-negative int or None, got {seed!r}.")
    return q.draw(_variant_rng(label, int(seed)))


def describe(label: str, seed: int | None = None) -> str:
    """What the question asks for, with the parameters of the variant filled in."""
    q = _question(label)
    return q.asks.format(**variant(label, seed))


def _fmt_params(params: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in params.items())


def _close(a: Any, b: Any, rtol: float) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.all(np.isfinite(a)) and np.all(np.abs(a - b) <= rtol * np.abs(b) + 1e-12))


def check_answer(label: str, answer: Any, seed: int | None = None) -> None:
    """Check your answer to an exercise, without being shown the right one.

    Parameters
    ----------
    label : str
        The exercise's label (shown under its title), e.g. ``"ex-bv-mean"``.
    answer : number or str
        A number (or a string such as ``"3/8"``) for a numeric question; a
        formula in the question's variables, as a string, for a formula question.
    seed : int or None
        Your variant's seed, if an instructor gave you one; ``None`` for the
        values printed in the book.

    Raises
    ------
    AssertionError
        When the answer is wrong: the message says what was asked, how the
        comparison was made and your value, and names a usual mistake when your
        value matches one. It never contains the right answer.
    """
    q = _question(label)
    params = variant(label, seed)
    if q.variables:
        _check_formula(q, answer, params)
    else:
        _check_number(q, answer, params, _for_whom(q, params, seed))


def _for_whom(q: Question, params: dict, seed: int | None) -> str:
    """The parameters of the check, as the messages show them."""
    if seed is not None and q.draw:
        return f" (variant of seed {seed}: {_fmt_params(params)})"
    return f" ({_fmt_params(params)})" if params else ""


def _mistake(q: Question, got: Any, right: Any, *args: dict) -> str | None:
    """The description of the first usual mistake that gives ``got`` (and not the answer)."""
    for description, wrong in q.mistakes:
        with np.errstate(all="ignore"):
            w = np.asarray(wrong(**{k: v for d in args for k, v in d.items()}), dtype=float)
        if _close(got, w, q.rtol) and not _close(w, right, q.rtol):
            return description
    return None


def _number(label: str, answer: Any) -> float:
    """The value of a numeric answer: a number, or a string such as ``"3/8"``."""
    if isinstance(answer, str):
        tree = _parse(answer, (), label)
        try:
            with np.errstate(all="ignore"):
                return float(_evaluate(tree, {}))
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            raise ValueError(f"{label}: your answer {answer!r} cannot be evaluated ({exc}).") \
                from None
    try:
        return float(np.asarray(answer, dtype=float).reshape(()))
    except (TypeError, ValueError):
        raise TypeError(f"{label}: the answer must be a single number or a string such as "
                        f"\"3/8\", got {answer!r}.") from None


def _check_number(q: Question, answer: Any, params: dict, for_whom: str) -> None:
    label = q.label
    value = _number(label, answer)
    with np.errstate(all="ignore"):
        right = float(q.answer(**params))
    if _close(value, right, q.rtol):
        print(f"\u2714 {label}: right, your answer {value:.6g} agrees with the answer computed "
              f"now to a relative tolerance of {q.rtol:g}{for_whom}.")
        return
    mistake = _mistake(q, value, right, params)
    hint = f"\n  your value is what {mistake} gives." if mistake else ""
    raise AssertionError(
        f"\u2718 {label}: your answer {value:.6g} is not {q.asks.format(**params)}.\n"
        f"  The check computed the answer now from ensemble_ref and compared it with yours to a "
        f"relative tolerance of {q.rtol:g}{for_whom}; it does not show the answer.{hint}")


def _test_values(q: Question) -> dict:
    """The 40 random values of each variable at which a formula is compared."""
    rng = np.random.default_rng(zlib.crc32(q.label.encode()))
    values = {}
    for name, (low, high, integer) in q.variables.items():
        values[name] = (rng.integers(low, high + 1, 40).astype(float) if integer
                        else rng.uniform(low, high, 40))
    return values


def _check_formula(q: Question, answer: Any, params: dict) -> None:
    """Compare a formula with the answer at random values of the variables."""
    label, names = q.label, tuple(q.variables)
    tree = _parse(answer, names, label)
    values = _test_values(q)
    try:
        with np.errstate(all="ignore"):
            got = np.broadcast_to(np.asarray(_evaluate(tree, values), dtype=float), (40,))
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        raise ValueError(f"{label}: your formula {answer!r} cannot be evaluated ({exc}).") from None
    with np.errstate(all="ignore"):
        right = np.asarray(q.answer(**params, **values), dtype=float)
    ok = np.isfinite(got) & (np.abs(got - right) <= q.rtol * np.abs(right) + 1e-12)
    if ok.all():
        print(f"\u2714 {label}: right, your formula agrees with the answer on 40 random values of "
              f"{', '.join(names)}.")
        return
    first = int(np.flatnonzero(~ok)[0])
    at = ", ".join(f"{n} = {values[n][first]:g}" for n in names)
    mistake = _mistake(q, got, right, params, values)
    hint = f"\n  your formula is {mistake}." if mistake else ""
    raise AssertionError(
        f"\u2718 {label}: your formula {answer!r} is not {q.asks.format(**params)}.\n"
        f"  It was compared with the answer at 40 random values of {', '.join(names)}; at {at} "
        f"yours gives {got[first]:.6g}, which differs by more than a relative {q.rtol:g}. The check "
        f"does not show the answer.{hint}")


def answer_key(label: str, seed: int | None = None) -> Any:
    """The answer of a variant, for an instructor's answer key: a number, or a right formula.

    Never used by the checks' messages.
    """
    q = _question(label)
    if q.variables:
        return q.formula
    return float(q.answer(**variant(label, seed)))
