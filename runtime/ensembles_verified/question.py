"""The record of one checkable answer (a question of :mod:`ensembles_verified.question_bank`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

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
        What the answer is, in words, with ``{name}`` placeholders for the parameters.
    book : dict
        The parameters of the book's version.
    answer : callable
        ``answer(**parameters)`` for a number; for a formula,
        ``answer(**parameters, **variables)`` evaluated on arrays of variables.
    draw : callable or None
        ``draw(rng) -> dict``: the parameters of a variant (``None``: no variants).
    variables : dict
        For a formula: each variable's name and the range ``(low, high, integer)``
        its random test values are drawn from. Empty for a number.
    rtol : float
        Relative tolerance of the comparison.
    mistakes : tuple of (str, callable)
        Usual mistakes: a description and the function (same arguments as
        ``answer``) giving the value the mistake produces.
    formula : str
        For a formula question, one right formula (for the answer key).
    """

    label: str
    asks: str
    book: dict
    answer: Callable[..., Any]
    draw: Callable[[np.random.Generator], dict] | None = None
    variables: dict = field(default_factory=dict)
    rtol: float = 1e-3
    mistakes: tuple = ()
    formula: str = ""



