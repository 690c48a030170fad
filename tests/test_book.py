"""Build the whole book strictly, as README's build command does.

Any Sphinx warning (an unresolved reference, a missing bibliography key), any
exception in a chapter cell and any failed claim makes ``jupyter-book build``
exit non-zero, and this test fails with the build log. The execution cache in
``_build/.jupyter_cache`` is reused, so unchanged chapters are not re-executed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tools.chapters import ROOT, chapter_notebooks  # noqa: E402

pytestmark = pytest.mark.book  # read by the stage 'html' of dodo.py, after its product is made

# The fixture ``built_book`` (the strict build, run once per session) is in conftest.py.


def text_of(page: Path) -> str:
    import html as html_lib

    raw = page.read_text(encoding="utf-8")
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", raw))


def test_book_builds_with_every_chapter(built_book):
    assert (built_book / "index.html").exists()
    for nb in chapter_notebooks():
        page = built_book / nb.relative_to(ROOT).with_suffix(".html")
        assert page.exists(), f"{page} was not built"
        text = text_of(page)
        assert "Traceback (most recent call last)" not in text, f"{page.name} shows a traceback"


def test_pattern_chapter_has_its_parts(built_book):
    page = (built_book / "book" / "05_bagging_oob.html").read_text(encoding="utf-8")
    assert 'id="thm-oob"' in page  # the theorem, with its label
    assert "proof" in page
    assert 'id="fig-oob-fraction"' in page and "<img" in page  # the generated figure
    assert "exercise" in page and "dropdown" in page  # exercises with hidden solutions
    glued = re.findall(r'<span class="pasted-text">([^<]*)</span>', page)
    assert len(glued) >= 8, "glued numbers are missing"
    assert "0.3679" in glued  # 1/e, computed by the chapter


def test_execution_report_lists_every_chapter(built_book):
    text = text_of(built_book / "book" / "appendix" / "execution.html")
    for nb in chapter_notebooks():
        assert nb.stem in text, f"{nb.stem} missing from the execution report"


def test_claims_ledger_lists_all_recorded_claims(built_book):
    records = []
    for path in sorted((ROOT / "_build" / "claims").glob("*.jsonl")):
        records += [json.loads(line) for line in path.read_text().splitlines()]
    assert records, "no claims were recorded during the build"
    assert all(r["passed"] for r in records)
    text = text_of(built_book / "book" / "appendix" / "claims_ledger.html")
    assert f"{len(records)} claims checked" in text
    for r in records:
        assert r["statement"] in text


def test_pickled_pages_hold_no_build_environment(built_book):
    """Each page's doctree pickle is the page alone (``_ext/lean_doctrees.py``).

    The rival: the API pages' ``{eval-rst}`` blocks keep their own documents, whose
    settings hold Sphinx's whole environment, pickled again with every such page.
    """
    doctrees = sorted((ROOT / "_build" / ".doctrees").rglob("*.doctree"))
    assert len(doctrees) >= len(chapter_notebooks()), "the build left no doctrees"
    carrying = [p.relative_to(ROOT).as_posix() for p in doctrees
                if b"BuildEnvironment" in p.read_bytes()]
    assert not carrying, f"doctrees with a copy of the build environment: {carrying}"
