r"""Answer checks: check a number or a small formula without the answer being anywhere.

A derivation or experiment exercise that ends in a number or a formula has a
*question* in :mod:`ensembles_verified.question_bank`, registered under the
exercise's label. Enter your answer and the check rounds it to the precision the
exercise states and compares it with a slow, salted digest of the rounded right
answer; the package holds these digests only, never the answers, so the check
never prints the answer and nothing installed can tell it::

    >>> from ensembles_verified.answers import check_answer, describe
    >>> describe("ex-bv-mean")  # doctest: +SKIP
    'the variance of the mean predictor at any x, for N = 40 ... (to 4 significant digits)'
    >>> check_answer("ex-bv-mean", 0.0123)  # your number  # doctest: +SKIP
    >>> check_answer("ex-oob-subsample", "exp(-n/N)")  # your formula, as a string  # doctest: +SKIP

A right answer prints one line starting with ``✔``.

**Precision.** Every question states the precision its answer is compared at
(``describe(label)`` says it: "to 4 significant digits", "to 2 decimals"): any
answer that rounds (half up) to the rounded right answer is right, so 0.6197 and
0.62 are both right for 0.6197 at two decimals, and more digits never hurt.

**Hints.** A wrong answer raises an ``AssertionError`` that says what was asked,
the precision and your own value, and points to the idea to look at; when your
value is what a usual mistake gives (recognised by its digest, as the answer is),
the hint names that mistake in words. It never contains the answer or its formula.

**Variants.** Most questions have parameters (the size of a data set, an error
rate). Without a seed the parameters are the book's; an instructor can give
every student a seed from 0 to 999, and ``variant(label, seed)`` shows that
student's values (``check_answer(label, answer, seed=seed)`` then checks against
them). The coding exercises' self-checks take the same seed as ``random_state``,
so a variant fixes their cases too. The instructors' tooling of the repository
(``python -m tools.variants``) writes a class's variants and their answer key.

**Formulas.** A formula answer is a Python expression in the question's
variables, with ``+ - * / **`` (``^`` is read as a power), numbers, parentheses
and the functions ``exp``, ``log`` (natural), ``sqrt``, ``abs``, ``comb`` and the
constants ``e`` and ``pi``. It is compared with the answer at fixed points of the
variables (each value rounded to the question's precision), so any equivalent
form is accepted.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import json
import math
import zlib
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special

from .question import Question
from .question_bank import QUESTIONS

__all__ = ["Question", "QUESTIONS", "check_answer", "variant", "describe", "SEEDS"]

SEEDS = range(1000)  # the seeds of the published variants
DIGESTS = Path(__file__).with_name("answer_digests.json")
POINTS = 6  # the fixed points at which a formula is checked
_MISSING = "." * 12  # a usual mistake that has no value for a variant


# --- formulas ------------------------------------------------------------------------------------

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
        The seed an instructor gave you (0 to 999), or ``None`` for the book's values.

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
    if int(seed) not in SEEDS:
        raise ValueError(f"the variants have the seeds {SEEDS.start} to {SEEDS.stop - 1}, "
                         f"got {seed}.")
    return q.draw(_variant_rng(label, int(seed)))


def describe(label: str, seed: int | None = None) -> str:
    """What the question asks for, with the parameters of the variant and the precision."""
    q = _question(label)
    return f"{q.asks.format(**variant(label, seed))} (to {q.precision_text()})"


def _fmt_params(params: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in params.items())


# --- rounding and digests --------------------------------------------------------------------


def rounded(value: float, precision: tuple) -> str:
    """``value`` rounded half up to ``precision`` (``("decimals", k)`` or ``("significant", k)``),
    as a canonical text: the same text for every number that rounds to the same value."""
    kind, k = precision
    d = Decimal(repr(float(value)))
    if d.is_zero():
        return "0"
    exponent = -k if kind == "decimals" else d.adjusted() - (k - 1)
    q = d.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP)
    return "0" if q.is_zero() else str(q.normalize())


@lru_cache(maxsize=1)
def _table() -> dict:
    if not DIGESTS.is_file():  # pragma: no cover - the package always ships it
        raise FileNotFoundError(f"{DIGESTS} is missing: the answer checks cannot run.")
    return json.loads(DIGESTS.read_text(encoding="utf-8"))


def digest(text: str, label: str, slot: str, salt: str, iterations: int) -> str:
    """The slow, salted digest of a rounded answer (12 characters): what the package stores."""
    raw = hashlib.pbkdf2_hmac("sha256", text.encode(), f"{salt}|{label}|{slot}".encode(),
                              iterations, dklen=9)
    return base64.urlsafe_b64encode(raw).decode()


def slot_name(seed: int | None, point: int) -> str:
    """The name of a stored digest: the variant (``book`` or ``seed-17``) and the point."""
    return f"{'book' if seed is None else f'seed-{seed}'}#{point}"


def _stored(q: Question, seed: int | None) -> tuple[list[str], list[str]]:
    """The stored digests of a variant (one string per point) and the mistakes' keys."""
    entry = _table()["questions"].get(q.label)
    if entry is None or list(entry["precision"]) != list(q.precision):
        raise RuntimeError(f"{q.label}: the stored answer digests are out of date with the "
                           f"question; the repository's `python -m tools.answer_digests "
                           f"--labels {q.label}` writes them again.")
    slots = entry["book"] if seed is None or q.draw is None else entry["variants"][int(seed)]
    return slots, entry["mistakes"]


def _verdict(q: Question, text: str, seed: int | None, point: int, slots: list[str],
             mistakes: list[str]) -> tuple[bool, str | None]:
    """Whether the rounded ``text`` is right at ``point``, else the key of the mistake it matches."""
    table = _table()
    key_seed = None if q.draw is None else seed
    mine = digest(text, q.label, slot_name(key_seed, point), table["salt"], table["iterations"])
    stored = slots[point]
    if mine == stored[:12]:
        return True, None
    for i, key in enumerate(mistakes):
        if stored[12 * (i + 1):12 * (i + 2)] == mine:
            return False, key
    return False, None


# --- the checks --------------------------------------------------------------------------------


def check_answer(label: str, answer: Any, seed: int | None = None) -> None:
    """Check your answer to an exercise, without the answer being shown or stored.

    Parameters
    ----------
    label : str
        The exercise's label (shown under its title), e.g. ``"ex-bv-mean"``.
    answer : number or str
        A number (or a string such as ``"3/8"``) for a numeric question, with at
        least the precision the exercise states; a formula in the question's
        variables, as a string, for a formula question.
    seed : int or None
        Your variant's seed (0 to 999), if an instructor gave you one; ``None``
        for the values printed in the book.

    Raises
    ------
    AssertionError
        When the answer is wrong: the message says what was asked, the precision,
        your value, and the idea to look at (naming a usual mistake when your value
        is what it gives). It never contains the right answer.
    """
    q = _question(label)
    params = variant(label, seed)
    if q.variables:
        _check_formula(q, answer, params, seed)
    else:
        _check_number(q, answer, params, seed)


def _for_whom(q: Question, params: dict, seed: int | None) -> str:
    """The parameters of the check, as the messages show them."""
    if seed is not None and q.draw:
        return f" (variant of seed {seed}: {_fmt_params(params)})"
    return f" ({_fmt_params(params)})" if params else ""


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


def _hint(q: Question, mistake: str | None, params: dict) -> str:
    if mistake is not None:
        return f"\n  Hint: {q.hints[mistake].format(**params)}"
    return f"\n  Look at the idea: {q.idea.format(**params)}" if q.idea else ""


def _too_coarse(q: Question, value: float) -> str:
    """A note when the answer was given with fewer digits than the question compares."""
    kind, k = q.precision
    try:
        d = Decimal(repr(value)).normalize()
    except InvalidOperation:  # pragma: no cover - finite floats always convert
        return ""
    digits = len(d.as_tuple().digits) if kind == "significant" else -d.as_tuple().exponent
    if d.is_zero() or digits >= k:
        return ""
    return (f"\n  Your answer has fewer digits than the comparison uses: give it to "
            f"{q.precision_text()} (more digits are fine).")


def _check_number(q: Question, answer: Any, params: dict, seed: int | None) -> None:
    label = q.label
    value = _number(label, answer)
    for_whom = _for_whom(q, params, seed)
    if not math.isfinite(value):
        raise AssertionError(f"\u2718 {label}: your answer {value} is not a finite number.")
    text = rounded(value, q.precision)
    slots, mistakes = _stored(q, seed)
    right, mistake = _verdict(q, text, seed, 0, slots, mistakes)
    if right:
        print(f"\u2714 {label}: right, your answer {value:.6g} is the answer to "
              f"{q.precision_text()}{for_whom}.")
        return
    raise AssertionError(
        f"\u2718 {label}: your answer {value:.6g} (rounded: {text}) is not "
        f"{q.asks.format(**params)}.\n"
        f"  Answers are compared rounded to {q.precision_text()}{for_whom}; the check holds only "
        f"a digest of the rounded answer, so it does not show the answer."
        f"{_too_coarse(q, value)}{_hint(q, mistake, params)}")


def points(q: Question) -> dict:
    """The fixed points at which a formula answer is checked: ``POINTS`` values of each variable."""
    rng = np.random.default_rng(zlib.crc32(q.label.encode()))
    values = {}
    for name, (low, high, integer) in q.variables.items():
        values[name] = (rng.integers(low, high + 1, POINTS).astype(float) if integer
                        else rng.uniform(low, high, POINTS))
    return values


def _check_formula(q: Question, answer: Any, params: dict, seed: int | None) -> None:
    """Compare a formula with the answer at the fixed points of the variables."""
    label, names = q.label, tuple(q.variables)
    tree = _parse(answer, names, label)
    values = points(q)
    try:
        with np.errstate(all="ignore"):
            got = np.broadcast_to(np.asarray(_evaluate(tree, {**params, **values}), dtype=float),
                                  (POINTS,))
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        raise ValueError(f"{label}: your formula {answer!r} cannot be evaluated ({exc}).") from None
    slots, mistakes = _stored(q, seed)
    verdicts = [_verdict(q, rounded(v, q.precision), seed, i, slots, mistakes)
                if np.isfinite(v) else (False, None) for i, v in enumerate(got)]
    if all(right for right, _ in verdicts):
        print(f"\u2714 {label}: right, your formula agrees with the answer at {POINTS} points of "
              f"{', '.join(names)}.")
        return
    first = next(i for i, (right, _) in enumerate(verdicts) if not right)
    at = ", ".join(f"{n} = {values[n][first]:g}" for n in names)
    found = {mistake for right, mistake in verdicts if not right}
    mistake = found.pop() if len(found) == 1 else None  # every failing point shows one mistake
    raise AssertionError(
        f"\u2718 {label}: your formula {answer!r} is not {q.asks.format(**params)}.\n"
        f"  It was compared with the answer at {POINTS} fixed points of {', '.join(names)}, "
        f"rounded to {q.precision_text()}; at {at} yours gives {got[first]:.6g}, which is not the "
        f"answer there. The check holds only digests of the answer's values, so it does not show "
        f"them.{_hint(q, mistake, params)}")
