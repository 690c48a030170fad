"""The PDF edition builds with xelatex from the HTML build's execution cache.

``python -m tools.build_pdf`` is run after the strict HTML build (the
session fixture ``built_book``), so no chapter is executed again. The PDF must
have a plausible number of pages, contain every chapter's title and number, and
LaTeX must report no missing glyph and no undefined reference.

TeX Live comes from Debian, installed by the setup stage of the test run
(``python -m tools.system_packages``).
"""

from __future__ import annotations

import json
import re

import pytest

from tools.chapters import ROOT, chapter_notebooks

pytestmark = pytest.mark.book  # read by the stage 'pdf' of dodo.py, after its product is made


@pytest.fixture(scope="module")
def pdf(built_book) -> dict:
    """The summary of this run's PDF build (``python -m tools.build_pdf``, the first command
    of the stage ``pdf`` of ``dodo.py``, after the HTML build and the system packages)."""
    from tools.stages import record

    summary = ROOT / "_build" / "pdf" / "summary.json"
    html = record("build")
    assert summary.is_file() and html and summary.stat().st_mtime >= html["end"], \
        "no PDF built from this run's HTML build: python -m tools.build_pdf"
    return json.loads(summary.read_text())


def test_pdf_builds_without_missing_glyphs_or_references(pdf):
    assert not pdf["missing_glyphs"], f"glyphs missing from the fonts: {pdf['missing_glyphs']}"
    assert not pdf["undefined_references"], f"undefined: {pdf['undefined_references'][:10]}"
    assert 100 <= pdf["pages"] <= 1000, f"{pdf['pages']} pages"
    print(f"PDF: {pdf['pages']} pages in {pdf['seconds']} s")


def _plain_tex(text: str) -> str:
    text = text.replace("\\sphinxhyphen {}", "-").replace("\\sphinxhyphen{}", "-")
    return re.sub(r"\\[A-Za-z]+\s*|[{}]", "", text).strip()


def test_every_chapter_is_in_the_pdf_with_its_number(pdf):
    """Every chapter is numbered in the PDF as in the HTML (the build's numbers, e.g. the
    chapter on decision trees is 4), and nothing else is numbered."""
    toc = (ROOT / "_build" / "latex" / "ensembles-verified.toc").read_text(encoding="utf-8")
    numbered = {int(n): _plain_tex(t) for n, t in re.findall(
        r"\\contentsline \{chapter\}\{\\numberline \{(\d+)\}(.*?)\}\{\d+\}\{chapter", toc)}
    docs = json.loads((ROOT / "_build" / "reader" / "refs.json").read_text())["docs"]
    chapters = [nb for nb in chapter_notebooks()
                if docs.get(nb.relative_to(ROOT).with_suffix("").as_posix(), {}).get("number")]
    assert chapters
    for nb in chapters:
        title = re.search(r"^# (.+)$", nb.with_suffix(".md").read_text(encoding="utf-8"), re.M)
        number = int(docs[nb.relative_to(ROOT).with_suffix("").as_posix()]["number"])
        assert title, nb
        assert numbered.get(number, "").replace(" ", "") == title.group(1).replace(" ", ""), \
            f"chapter {number} ({title.group(1)}) is not numbered {number} in the PDF: {numbered}"
    assert len(numbered) == len(chapters), f"only the chapters are numbered: {numbered}"
