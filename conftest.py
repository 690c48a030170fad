"""Repository-wide pytest configuration.

The chapters run under nbval (``--nbval-lax``: every cell must execute without an
error; a failing claim raises). A notebook that nbval silently fails to collect
would let a broken chapter pass, so collection is checked here: whenever the
``book`` folder is part of the run, every chapter listed in ``_toc.yml`` must
contribute at least one executed cell.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def chapter_notebooks() -> list[Path]:
    """The paired ``.ipynb`` of every executable chapter listed in ``_toc.yml``."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    stack = list(toc.get("parts", [])) + list(toc.get("chapters", []))
    while stack:
        entry = stack.pop(0)
        if "file" in entry:
            files.append(entry["file"])
        stack.extend(entry.get("chapters", []) + entry.get("sections", []))
    notebooks = []
    for name in files:
        md = ROOT / f"{name}.md"
        if md.exists() and "format_name: myst" in md.read_text()[:400]:
            notebooks.append(md.with_suffix(".ipynb"))
    return notebooks


def pytest_collection_modifyitems(session, config, items):
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
