"""The record of one checkable answer (a question of :mod:`ensembles_verified.question_bank`).

A question holds what is needed to *check* an answer and to tell a student what
to look at, never the answer: the answer's function and its key live in the
instructors' tooling of the repository (``tools/answer_bank.py``), which writes
the slow, salted digests of the rounded answers that the checks compare with
(``answer_digests.json`` beside this module).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Question"]


@dataclass(frozen=True)
class Question:
    """One checkable answer of an exercise.

    Parameters
    ----------
    label : str
        The exercise's label.
    asks : str
        What the answer is, in words, with ``{name}`` placeholders for the
        parameters (it never states the formula of the answer).
    book : dict
        The parameters of the book's version.
    draw : callable or None
        ``draw(rng) -> dict``: the parameters of a variant (``None``: no variants).
    variables : dict
        For a formula: each variable's name and the range ``(low, high, integer)``
        of the fixed points at which the formula is checked. Empty for a number.
    precision : tuple
        How an answer is rounded before it is compared: ``("decimals", k)`` (k
        digits after the point) or ``("significant", k)`` (k significant digits).
        The exercise states it; any answer that rounds to the rounded answer is
        right (0.6197 and 0.62 alike for 0.6197 at two decimals). For a formula,
        the precision of its values at the fixed points.
    idea : str
        What to look at when the answer is wrong and matches no usual mistake: the
        idea the exercise needs (which term, which case), never the answer.
    hints : dict
        The usual mistakes, by key: the hint a student gets when the answer is
        what that mistake gives (the mistakes themselves are the instructors').
    """

    label: str
    asks: str
    book: dict
    draw: Callable[[np.random.Generator], dict] | None = None
    variables: dict = field(default_factory=dict)
    precision: tuple = ("significant", 4)
    idea: str = ""
    hints: dict = field(default_factory=dict)

    def precision_text(self) -> str:
        """The precision in words: ``"4 significant digits"``, ``"2 decimals"``."""
        kind, k = self.precision
        return f"{k} significant digits" if kind == "significant" else f"{k} decimals"
