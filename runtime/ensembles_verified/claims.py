"""Checked claims: the book's way of turning a sentence into a test.

Every chapter opens a :class:`Claims` ledger and states each mathematical claim
as a call such as ``claims.close(...)`` or ``claims.at_most(...)``. The claims
that hold in a notebook cell are shown at its end as one closed box that opens
to the list (:mod:`.check_box`; outside a notebook each prints one line); a claim
that fails raises
:class:`ClaimError`, which stops the notebook, fails the book build and fails
the test suite.

A check is only worth something if it could have failed. So every claim names
its *rival*: the false statement it rules out (a course note's formula, "no
effect", another library's convention), given as the value the rival predicts
for the same quantity. The rival is put through the very same check; if the
rival would pass too, the claim raises :class:`ClaimError` exactly as if it had
failed. The *margin* is how many tolerances separate the rival from what was
measured: a margin above 1 means the check tells the two statements apart.

When the environment variable ``ENSEMBLES_VERIFIED_LEDGER`` names a folder
(the book build sets it), every claim is also appended to
``<folder>/<chapter>.jsonl``; the *Claims ledger* appendix is generated from
those files, and the build fails on a claim recorded without a rival.

The book build and the tests are strict: a claim that fails raises. A reader who
changes a chapter's seed is better served by an explanation than by a
traceback: when ``ENSEMBLES_VERIFIED_CLAIMS=explain`` (the reader and student
notebooks set it in their first cell), a failing claim prints what was expected,
what was measured and how rare such a miss is for a correct statement, and the
notebook goes on. The seed sweep uses the same mode to count every failing claim
of a run, not only the first.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .check_box import CellChecks, notebook_shell

__all__ = ["Claims", "ClaimError", "Rival", "PROMISED_POWER"]

LEDGER_ENV = "ENSEMBLES_VERIFIED_LEDGER"
MODE_ENV = "ENSEMBLES_VERIFIED_CLAIMS"
MODES = ("strict", "explain")

# The preface's promise: a Monte Carlo check rejects its rival with at least this
# probability, and a correct statement fails its check for fewer than one seed in
# a thousand (the family-wise rate of a chapter with dozens of claims stays below 5%).
PROMISED_POWER = 0.99
EXPLANATION = (
    "This check passed with the chapter's published seed. The book sizes every check so that a "
    "correct statement misses it for fewer than one seed in a thousand, so a miss is either that "
    "rare event or a sign that the statement depends on the draw: run the chapter with a few more "
    "seeds to tell which. The rest of the notebook runs on.")


class ClaimError(AssertionError):
    """A claim of the book did not hold, or its check could not tell it from its rival."""


class Rival(NamedTuple):
    """The false statement a claim rules out, and what it predicts.

    Parameters
    ----------
    statement : str
        The rival statement in words, e.g. ``"(1 - 1/N)^N is the fraction picked"``.
    value : array-like
        What the rival predicts, in the place of the claim's reference value:
        the ``expected`` of :meth:`Claims.close`, the ``rhs`` of
        :meth:`Claims.at_most` (or, with ``side="lhs"``, its ``lhs``), the
        ``threshold`` of :meth:`Claims.at_least` (with ``side="lhs"``, its
        ``measured``), or the
        condition of :meth:`Claims.holds` evaluated under the rival.
    side : {"expected", "rhs", "lhs"}, default="expected"
        Which argument of the check the rival's value replaces. ``"expected"``
        means ``expected`` for ``close``, ``rhs`` for ``at_most`` and ``threshold``
        for ``at_least``.
    """

    statement: str
    value: Any
    side: str = "expected"


def _fmt(value: Any) -> str:
    """Short, deterministic text for a number or an array (for messages and the ledger)."""
    arr = np.asarray(value)
    if arr.dtype == bool and arr.ndim == 0:
        return str(bool(arr))
    if arr.ndim == 0:
        x = float(arr)
        return f"{x:.6g}"
    if arr.size <= 4:
        return "[" + ", ".join(f"{float(v):.6g}" for v in arr.ravel()) + "]"
    return f"array of {arr.size} values in [{float(np.min(arr)):.6g}, {float(np.max(arr)):.6g}]"


def _fmt_margin(margin: float) -> str:
    return "exact" if math.isinf(margin) else f"{margin:.3g}"


def _as_rival(rival: Any) -> Rival | None:
    """Accept a :class:`Rival` or a ``(statement, value)`` pair; validate it."""
    if rival is None:
        return None
    if not isinstance(rival, Rival):
        if not (isinstance(rival, tuple) and len(rival) in (2, 3)):
            raise TypeError("rival must be a Rival or a (statement, value) tuple, "
                            f"got {type(rival).__name__}.")
        rival = Rival(*rival)
    if not isinstance(rival.statement, str) or not rival.statement.strip():
        raise ValueError(f"rival statement must be a non-empty string, got {rival.statement!r}.")
    if rival.side not in ("expected", "rhs", "lhs"):
        raise ValueError(f"rival side must be 'expected', 'rhs' or 'lhs', got {rival.side!r}.")
    return rival


def close_margin(measured: Any, rival: Any, atol: float, rtol: float, expected: Any) -> float:
    """How many tolerances the rival's value lies from the measured one.

    The tolerance of element ``i`` is ``atol + rtol * |expected_i|``, the same as
    the claim's own. A rival is ruled out when at least one element lies outside
    its tolerance, so the margin is the largest ratio over the elements
    (``inf`` when the tolerance is zero and the rival differs).
    """
    m = np.asarray(measured, dtype=float)
    r = np.broadcast_to(np.asarray(rival, dtype=float), np.broadcast_shapes(
        np.shape(m), np.shape(rival)))
    tol = atol + rtol * np.abs(np.asarray(expected, dtype=float))
    dist = np.abs(m - r)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(tol > 0, dist / np.where(tol > 0, tol, 1.0),
                         np.where(dist > 0, np.inf, 0.0))
    ratio = np.where(np.isnan(dist), np.inf, ratio)  # a rival that predicts nothing finite
    return float(np.max(ratio)) if ratio.size else 0.0


def at_most_margin(lhs: Any, rhs: Any, slack: float) -> float:
    """How many slacks the rival's inequality ``lhs <= rhs + slack`` is violated by.

    ``margin > 1`` means ``lhs > rhs + slack`` for at least one element, so the
    rival fails the check; with ``slack = 0`` any violation has margin ``inf``.
    """
    gap = float(np.max(np.asarray(lhs, dtype=float) - np.asarray(rhs, dtype=float)))
    if slack > 0:
        return float(max(gap / slack, 0.0))
    return math.inf if gap > 0 else 0.0


class Claims:
    """A chapter's ledger of checked claims.

    Parameters
    ----------
    chapter : str
        Short identifier of the chapter (used in messages and the ledger).
    verbose : bool, default=True
        Print one line per claim that holds.

    Examples
    --------
    >>> claims = Claims("demo", verbose=False)
    >>> claims.close("pi is about 22/7", 22 / 7, np.pi, atol=2e-3,
    ...              rival=("pi is 3", 3.0))
    >>> claims.count, round(claims.last_margin, 1)
    (1, 71.4)
    """

    def __init__(self, chapter: str, verbose: bool = True) -> None:
        if not isinstance(chapter, str) or not chapter.strip():
            raise ValueError(f"chapter must be a non-empty string, got {chapter!r}.")
        mode = os.environ.get(MODE_ENV, "").strip() or "strict"
        if mode not in MODES:
            raise ValueError(f"{MODE_ENV} must be one of {MODES}, got {mode!r}.")
        self.chapter = chapter
        self.verbose = verbose
        self.mode = mode
        self.count = 0
        self.failures: list[str] = []
        self.last_margin = math.nan
        shell = notebook_shell()
        self._cell = CellChecks(shell) if shell is not None else None  # one box per cell
        folder = os.environ.get(LEDGER_ENV)
        self._ledger: Path | None = None
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self._ledger = Path(folder) / f"{chapter}.jsonl"
            self._ledger.write_text("")  # a re-executed chapter starts a fresh record

    # -- the three forms of claim -------------------------------------------------
    def close(self, statement: str, measured: Any, expected: Any, *, atol: float = 0.0,
              rtol: float = 0.0, rival: Rival | tuple | None = None, label: str | None = None) -> None:
        """Claim ``|measured - expected| <= atol + rtol * |expected|`` (elementwise).

        The rival's value takes the place of ``expected``; it must fail the same
        test (some element outside the same tolerance), otherwise the claim raises.
        ``label`` names the book's equation (``"eq-xgb-gain"``) this claim checks
        *exactly*: the tolerance must then be rounding only (``atol`` and ``rtol`` at
        most ``1e-9`` relative to the expected values) and the rival, a plausible
        wrong variant of the formula, must be given (the ledger lists one such check
        per equation the package implements).
        """
        if atol < 0 or rtol < 0:
            raise ValueError(f"atol and rtol must be non-negative, got atol={atol}, rtol={rtol}.")
        rival = _as_rival(rival)
        m = np.asarray(measured, dtype=float)
        e = np.asarray(expected, dtype=float)
        if label is not None:
            scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
            if atol > 1e-9 * scale or rtol > 1e-9 or rival is None:
                raise ValueError(f"label={label!r} marks an exact check: it needs atol and rtol at most "
                                 f"1e-9 relative to the expected values and a rival, got atol={atol}, "
                                 f"rtol={rtol}, rival={rival}.")
        diff = np.abs(m - e)
        bound = atol + rtol * np.abs(e)
        ok = bool(np.all(np.isfinite(m)) and np.all(diff <= bound))
        tol = f"atol={atol:.3g}" + (f", rtol={rtol:.3g}" if rtol else "")
        margin = None if rival is None else close_margin(m, rival.value, atol, rtol, e)
        self._record(statement, ok, measured=_fmt(m), expected=_fmt(e), tolerance=tol,
                     detail=f"max |difference| = {_fmt(np.max(diff))}", rival=rival,
                     margin=margin, label=label)

    def at_most(self, statement: str, lhs: Any, rhs: Any, *, slack: float = 0.0,
                rival: Rival | tuple | None = None) -> None:
        """Claim ``lhs <= rhs + slack`` for every element (an inequality or a bound).

        The rival's value replaces ``rhs`` (or ``lhs`` with ``side="lhs"``); the
        rival's inequality must be violated by more than ``slack`` somewhere.
        """
        self._inequality(statement, lhs, rhs, slack, rival, upper=True)

    def at_least(self, statement: str, measured: Any, threshold: Any, *, slack: float = 0.0,
                 rival: Rival | tuple | None = None) -> None:
        """Claim ``measured >= threshold - slack`` for every element (a lower bound).

        The mirror of :meth:`at_most`, for claims that a measured value reaches a
        threshold ("the difference exceeds four standard errors"): the ledger shows
        ``measured`` as measured and ``>= threshold`` as expected. The rival's value
        replaces ``threshold`` (or ``measured`` with ``side="lhs"``, e.g. "no effect"
        predicting a difference of 0); the rival's inequality must be violated by
        more than ``slack`` somewhere.
        """
        self._inequality(statement, measured, threshold, slack, rival, upper=False)

    def _inequality(self, statement: str, measured: Any, bound: Any, slack: float,
                    rival: Rival | tuple | None, *, upper: bool) -> None:
        """``measured <= bound + slack`` (``upper``) or ``measured >= bound - slack``, every
        element; a rival with ``side="lhs"`` replaces ``measured``, otherwise ``bound``."""
        if slack < 0:
            raise ValueError(f"slack must be non-negative, got {slack}.")
        rival = _as_rival(rival)
        a = np.asarray(measured, dtype=float)
        b = np.asarray(bound, dtype=float)
        excess = a - b if upper else b - a  # how far the claim is from failing, signed
        ok = bool(np.all(np.isfinite(a)) and np.all(excess <= slack))
        margin = None
        if rival is not None:
            r_a, r_b = (rival.value, b) if rival.side == "lhs" else (a, rival.value)
            margin = at_most_margin(r_a, r_b, slack) if upper else at_most_margin(r_b, r_a, slack)
        detail = (f"largest excess lhs - rhs = {_fmt(np.max(excess))}" if upper else
                  f"largest shortfall threshold - measured = {_fmt(np.max(excess))}")
        self._record(statement, ok, measured=_fmt(a), expected=f"{'<=' if upper else '>='} {_fmt(b)}",
                     tolerance=f"slack={slack:.3g}", detail=detail, rival=rival, margin=margin)

    def holds(self, statement: str, condition: Any, *, measured: Any = None,
              detail: str = "", rival: Rival | tuple | None = None, label: str | None = None) -> None:
        """Claim that a boolean ``condition`` is true (every element, for an array).

        The rival's value is the same condition evaluated under the rival
        statement; it must be false somewhere (margin ``inf``). ``label`` names the
        equation this exact check is about, as in :meth:`close` (a rival is required).
        """
        rival = _as_rival(rival)
        if label is not None and rival is None:
            raise ValueError(f"label={label!r} marks an exact check: give the rival it rules out.")
        ok = bool(np.all(np.asarray(condition)))
        margin = None
        if rival is not None:
            margin = 0.0 if bool(np.all(np.asarray(rival.value))) else math.inf
        self._record(statement, ok, measured="" if measured is None else _fmt(measured),
                     expected="True", tolerance="exact", detail=detail, rival=rival,
                     margin=margin, label=label)

    def stated_power(self, delta: float, se: float, k: float = 4.0) -> float:
        """The power a ``k``-s.e. check has against a rival ``delta`` away, if it keeps the promise.

        Returns :func:`~ensembles_verified.stats.power_against_rival` for the prose
        to quote; raises :class:`ClaimError` when it is below ``PROMISED_POWER``
        (the check needs more replications) instead of letting the page print it.
        """
        from .stats import power_against_rival

        power = power_against_rival(delta, se, k)
        if power < PROMISED_POWER:
            raise ClaimError(
                f"{self.chapter}: a check rejects its rival with probability {power:.4f}, below the "
                f"promised {PROMISED_POWER} (delta = {delta:.4g}, se = {se:.4g}, k = {k:g}): "
                "use more replications (replications_for_power).")
        return power

    # -- bookkeeping --------------------------------------------------------------
    def _record(self, statement: str, ok: bool, *, measured: str, expected: str,
                tolerance: str, detail: str, rival: Rival | None,
                margin: float | None, label: str | None = None) -> None:
        self.count += 1
        self.last_margin = math.nan if margin is None else margin
        ok = bool(ok)
        margin = None if margin is None else float(margin)
        rival_ok = margin is None or margin > 1
        entry = {"chapter": self.chapter, "number": self.count, "statement": statement,
                 "measured": measured, "expected": expected, "tolerance": tolerance,
                 "rival": None if rival is None else rival.statement,
                 "rival_value": None if rival is None else _fmt(rival.value),
                 "margin": None if margin is None else (
                     "inf" if math.isinf(margin) else round(margin, 6)),
                 "passed": ok and rival_ok, "label": label}
        if self._ledger is not None:
            with self._ledger.open("a") as fh:
                fh.write(json.dumps(entry) + "\n")
        where = f"Claim {self.chapter}#{self.count}"
        if not ok:
            self._fail(f"{where} failed: {statement}\n"
                       f"  measured: {measured}\n  expected: {expected} ({tolerance})\n  {detail}",
                       statement, f"expected {expected} ({tolerance}), measured {measured}")
            return
        if not rival_ok:
            self._fail(f"{where} cannot tell its claim from its rival: {statement}\n"
                       f"  rival: {rival.statement} (predicts {_fmt(rival.value)})\n"
                       f"  measured: {measured}; the rival also passes ({tolerance}); "
                       f"margin {_fmt_margin(margin)} <= 1",
                       statement, f"measured {measured}, which the false statement "
                       f"\u201c{rival.statement}\u201d would also explain")
            return
        if self.verbose and self._cell is not None:
            self._cell.add(entry)
        elif self.verbose:
            shown = f" [measured {measured}; expected {expected}; {tolerance}]" if measured else ""
            against = ("" if rival is None else
                       f" Rules out: {rival.statement} (margin {_fmt_margin(margin)}).")
            print(f"\u2714 {statement}{shown}{against}")

    def _fail(self, message: str, statement: str, what: str) -> None:
        """Raise (strict mode) or explain and go on (explain mode)."""
        self.failures.append(message)
        if self.mode == "strict":
            raise ClaimError(message)
        print(f"\u2718 Not confirmed on this run: {statement}\n  {what}.\n  {EXPLANATION}")
