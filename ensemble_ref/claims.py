"""Checked claims: the book's way of turning a sentence into a test.

Every chapter opens a :class:`Claims` ledger and states each mathematical claim
as a call such as ``claims.close(...)`` or ``claims.at_most(...)``. A claim
that holds prints one line a reader can see; a claim that fails raises
:class:`ClaimError`, which stops the notebook, fails the book build and fails
the test suite.

When the environment variable ``ENSEMBLES_VERIFIED_LEDGER`` names a folder
(the book build sets it), every claim is also appended to
``<folder>/<chapter>.jsonl``; the *Claims ledger* appendix is generated from
those files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Claims", "ClaimError"]

LEDGER_ENV = "ENSEMBLES_VERIFIED_LEDGER"


class ClaimError(AssertionError):
    """A claim of the book did not hold on the computed numbers."""


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
    >>> claims.close("pi is about 22/7", 22 / 7, np.pi, atol=2e-3)
    >>> claims.count
    1
    """

    def __init__(self, chapter: str, verbose: bool = True) -> None:
        if not isinstance(chapter, str) or not chapter.strip():
            raise ValueError(f"chapter must be a non-empty string, got {chapter!r}.")
        self.chapter = chapter
        self.verbose = verbose
        self.count = 0
        folder = os.environ.get(LEDGER_ENV)
        self._ledger: Path | None = None
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            self._ledger = Path(folder) / f"{chapter}.jsonl"
            self._ledger.write_text("")  # a re-executed chapter starts a fresh record

    # -- the three forms of claim -------------------------------------------------
    def close(self, statement: str, measured: Any, expected: Any, *, atol: float = 0.0,
              rtol: float = 0.0) -> None:
        """Claim ``|measured - expected| <= atol + rtol * |expected|`` (elementwise).

        The tolerance is part of the claim: state in the chapter why it is the
        right one (Monte Carlo standard errors, float rounding, ...).
        """
        if atol < 0 or rtol < 0:
            raise ValueError(f"atol and rtol must be non-negative, got atol={atol}, rtol={rtol}.")
        m = np.asarray(measured, dtype=float)
        e = np.asarray(expected, dtype=float)
        diff = np.abs(m - e)
        bound = atol + rtol * np.abs(e)
        ok = bool(np.all(np.isfinite(m)) and np.all(diff <= bound))
        tol = f"atol={atol:.3g}" + (f", rtol={rtol:.3g}" if rtol else "")
        self._record(statement, ok, measured=_fmt(m), expected=_fmt(e), tolerance=tol,
                     detail=f"max |difference| = {_fmt(np.max(diff))}")

    def at_most(self, statement: str, lhs: Any, rhs: Any, *, slack: float = 0.0) -> None:
        """Claim ``lhs <= rhs + slack`` for every element (an inequality or a bound)."""
        if slack < 0:
            raise ValueError(f"slack must be non-negative, got {slack}.")
        a = np.asarray(lhs, dtype=float)
        b = np.asarray(rhs, dtype=float)
        gap = a - b
        ok = bool(np.all(np.isfinite(a)) and np.all(gap <= slack))
        self._record(statement, ok, measured=_fmt(a), expected=f"<= {_fmt(b)}",
                     tolerance=f"slack={slack:.3g}",
                     detail=f"largest excess lhs - rhs = {_fmt(np.max(gap))}")

    def holds(self, statement: str, condition: Any, *, measured: Any = None,
              detail: str = "") -> None:
        """Claim that a boolean ``condition`` is true (every element, for an array)."""
        ok = bool(np.all(np.asarray(condition)))
        self._record(statement, ok, measured="" if measured is None else _fmt(measured),
                     expected="True", tolerance="exact", detail=detail)

    # -- bookkeeping --------------------------------------------------------------
    def _record(self, statement: str, ok: bool, *, measured: str, expected: str,
                tolerance: str, detail: str) -> None:
        self.count += 1
        entry = {"chapter": self.chapter, "number": self.count, "statement": statement,
                 "measured": measured, "expected": expected, "tolerance": tolerance,
                 "passed": ok}
        if self._ledger is not None:
            with self._ledger.open("a") as fh:
                fh.write(json.dumps(entry) + "\n")
        if not ok:
            raise ClaimError(
                f"Claim {self.chapter}#{self.count} failed: {statement}\n"
                f"  measured: {measured}\n  expected: {expected} ({tolerance})\n  {detail}"
            )
        if self.verbose:
            shown = f" [measured {measured}; expected {expected}; {tolerance}]" if measured else ""
            print(f"\u2714 {statement}{shown}")
