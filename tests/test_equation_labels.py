"""Every equation label the code cites exists in the book.

The package cites the book's equations by label in comments and docstrings
(``# eq-xgb-gain``); the chapters define them as ``$$ ... $$ (eq-name)``. A label
renamed or removed in a chapter, or mistyped in the code, leaves the code pointing
at nothing; this test finds it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITED = re.compile(r"\beq-[a-z0-9]+(?:-[a-z0-9]+)*")
DEFINED = re.compile(r"\$\$\s*\((eq-[a-z0-9-]+)\)")


def cited_labels() -> dict[str, list[str]]:
    """Label -> the files of ensemble_ref that cite it."""
    where: dict[str, list[str]] = {}
    for path in sorted((ROOT / "ensemble_ref").rglob("*.py")):
        for label in set(CITED.findall(path.read_text())):
            where.setdefault(label, []).append(str(path.relative_to(ROOT)))
    return where


def defined_labels() -> set[str]:
    return {label for path in (ROOT / "book").rglob("*.md")
            for label in DEFINED.findall(path.read_text())}


def test_the_code_cites_equations():
    assert len(cited_labels()) >= 40


def test_every_label_cited_in_the_code_is_defined_in_the_book():
    defined = defined_labels()
    missing = {label: files for label, files in cited_labels().items() if label not in defined}
    assert not missing, f"labels cited in ensemble_ref but defined in no chapter: {missing}"


def test_every_module_has_a_page_in_the_api_reference():
    """The API reference (one page per layer) documents every module of the package's five
    layers (the modules at the top are import paths kept for the chapters)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    documented = set()
    for page in (root / "book" / "appendix").glob("api*.md"):
        documented |= set(re.findall(r"^\.\. automodule:: ([\w.]+)", page.read_text(), re.M))
    modules = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
               for p in (root / "ensemble_ref").glob("*/*.py") if not p.name.startswith("_")}
    missing = sorted(modules - documented)
    assert not missing, f"modules missing from book/appendix/api*.md: {missing}"
