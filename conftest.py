"""Repository-wide pytest configuration: the ``book`` marker and the fixtures of the book's stages.

pytest runs tests; the stages that build and execute the book (the strict build, the
student and PDF editions, the fresh environment with the mutation test) are tasks of
``dodo.py``, each followed by the tests that read its product. The fixtures below give
those tests the product of this run's stage, or fail with the command that makes it.

The chapters run under nbval (``--nbval-lax``: every cell must execute without an
error; a failing claim raises). A notebook that nbval silently fails to collect
would let a broken chapter pass, so collection is checked here: whenever the
``book`` folder is part of the run, every chapter listed in ``_toc.yml`` must
contribute at least one executed cell.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings

from tools.chapters import ROOT, chapter_notebooks

HTML = ROOT / "_build" / "html"

# Property tests draw their examples from a fixed sequence: a test run is repeatable, and a
# failure found once is found again (no example database between runs).
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.load_profile("repeatable")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "book: reads the product of a stage of dodo.py (deselect with -m 'not book')")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if type(item).__name__ == "IPyNbCell":
            item.add_marker(pytest.mark.book)
    book = (ROOT / "book").resolve()
    args = [Path(a.split("::")[0]).resolve() for a in config.args] or [ROOT]
    if not any(book == a or book.is_relative_to(a) or a.is_relative_to(book) for a in args):
        return  # a partial run (e.g. one unit-test file): nothing to enforce
    cells = Counter(Path(str(item.fspath)).resolve() for item in items
                    if type(item).__name__ == "IPyNbCell")
    expected = [nb for nb in chapter_notebooks()
                if any(nb == a or nb.is_relative_to(a) for a in args)]
    missing = [str(nb.relative_to(ROOT)) for nb in expected if cells[nb.resolve()] == 0]
    if not expected or missing or sum(cells.values()) < len(expected):
        raise pytest.UsageError(
            "nbval collected no cells from these chapters: "
            f"{missing or 'all'} ({sum(cells.values())} cells from {len(cells)} notebooks). "
            "Each chapter must be a MyST notebook with a paired .ipynb "
            "(jupytext --sync book/<chapter>.md) and nbval must be installed.")


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The HTML of this run's strict build of the whole book (the stage ``build`` of ``dodo.py``)."""
    from tools.book_builds import main_book

    return main_book()


@pytest.fixture(scope="session")
def fresh_env() -> dict:
    """Every chapter executed once in a fresh environment made from requirements.txt.

    The second and last execution of the chapters in a test run (the first is the
    book build), under nbval and with a seed other than the chapters' own, by the
    stage ``fresh`` of ``dodo.py`` (``python -m tools.fresh_env``); used by the Binder
    test, and the execution the mutation test branches off.
    """
    from tools.fresh_env import RESULT

    assert RESULT.is_file(), "the fresh environment has not run: python -m tools.fresh_env"
    result = json.loads(RESULT.read_text())
    return {**result, "venv": Path(result["venv"])}
