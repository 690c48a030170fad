"""The book's maps name every chapter of the table of contents.

A reader finds the chapters through the landing page ("How the book is organised")
and the map at the end of chapter 1; a chapter added to ``_toc.yml`` but missing
from either is a chapter a reader does not find. A chapter is named by ``{doc}`` of
its file or ``{ref}`` of its label. The glossary, for its part, must define the
terms the chapters' titles are about.
"""

from __future__ import annotations

import re

import pytest

from tools.chapters import ROOT, chapter_notebooks

CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()
            if re.match(r"\d", nb.name)]
LABEL = re.compile(r"^\((ch-[a-z0-9-]+)\)=", re.M)


def section(text: str, heading: str) -> str:
    """The text of the section whose heading is ``heading`` (up to the next heading)."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"no section '## {heading}'"
    return match.group(1)


def named(md, text: str) -> bool:
    label = LABEL.search(md.read_text(encoding="utf-8"))
    doc = md.relative_to(ROOT / "book").with_suffix("").as_posix()
    return f"{{doc}}`{doc}`" in text or bool(label and f"{{ref}}`{label.group(1)}`" in text)


def test_every_chapter_has_a_label():
    assert len(CHAPTERS) >= 13
    assert all(LABEL.search(md.read_text(encoding="utf-8")) for md in CHAPTERS)


@pytest.mark.parametrize("page, heading", [("index.md", "How the book is organised"),
                                           ("01_introduction.md", "A map of the book")])
def test_the_map_names_every_chapter(page, heading):
    text = section((ROOT / "book" / page).read_text(encoding="utf-8"), heading)
    missing = [md.stem for md in CHAPTERS if md.name != page and not named(md, text)]
    assert not missing, f"book/{page}, '{heading}', does not name these chapters: {missing}"


def test_the_glossary_defines_the_new_terms():
    text = (ROOT / "book" / "front" / "glossary.md").read_text(encoding="utf-8")
    terms = re.findall(r"^(\S[^\n]*)\n  ", text, re.M)
    for term in ("Impurity", "Pruning", "GOSS", "Target statistic", "Gate", "Responsibility",
                 "Histogram (of gradients)", "All-reduce", "Chapter seed"):
        assert term in terms, f"the glossary lacks {term!r}"
