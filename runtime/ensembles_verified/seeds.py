"""One seed per chapter: every random draw of a chapter derives from it.

A chapter sets its seed in one visible line and names each random draw::

    SEED = 20260101           # change this one number: every draw below changes with it
    seed = ChapterSeed(SEED)
    X, y = make_circle_classification(500, random_state=seed("training set"))
    rng = seed.rng("noise")

``seed(name)`` is an integer seed and ``seed.rng(name)`` a NumPy ``Generator``,
both derived from the chapter's seed and the name alone (NumPy's
``SeedSequence`` with the name's CRC-32 as its spawn key). So two draws with
different names are independent, a draw does not change when a cell is added
before it, and changing ``SEED`` changes every draw of the chapter at once.

The test run and ``tools/seed_sweep.py`` execute the chapters with other seeds
without editing them: the environment variable ``ENSEMBLES_VERIFIED_SEED``,
when set, takes the place of the chapter's own seed.
"""

from __future__ import annotations

import os
import zlib

import numpy as np

__all__ = ["ChapterSeed", "SEED_ENV"]

SEED_ENV = "ENSEMBLES_VERIFIED_SEED"


def _check_seed(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a non-negative integer, got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}.")
    return int(value)


class ChapterSeed:
    """The chapter's seed, and the named seeds derived from it.

    Parameters
    ----------
    seed : int
        The chapter's published seed (>= 0). When the environment variable
        ``ENSEMBLES_VERIFIED_SEED`` holds an integer, that integer is used instead
        (the seed sweep and the test run set it).

    Attributes
    ----------
    published : int
        The seed written in the chapter.
    value : int
        The seed in use (``published`` unless overridden).

    Examples
    --------
    >>> seed = ChapterSeed(7)
    >>> seed("training set") == ChapterSeed(7)("training set")
    True
    >>> seed("training set") != seed("test set")
    True
    """

    def __init__(self, seed: int) -> None:
        self.published = _check_seed(seed, "seed")
        override = os.environ.get(SEED_ENV, "").strip()
        if override:
            try:
                self.value = _check_seed(int(override), SEED_ENV)
            except ValueError as err:
                raise ValueError(f"{SEED_ENV} must be a non-negative integer, got {override!r}.") from err
        else:
            self.value = self.published

    def __call__(self, name: str) -> int:
        """An integer seed for the draw called ``name`` (for ``random_state=``)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"name must be a non-empty string, got {name!r}.")
        sequence = np.random.SeedSequence(self.value, spawn_key=(zlib.crc32(name.encode()),))
        return int(sequence.generate_state(1, dtype=np.uint32)[0])

    def rng(self, name: str) -> np.random.Generator:
        """A NumPy ``Generator`` for the draws called ``name``."""
        return np.random.default_rng(self(name))

    def __repr__(self) -> str:
        return f"ChapterSeed({self.value})"
