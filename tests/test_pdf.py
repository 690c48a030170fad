"""The PDF edition builds with xelatex from the HTML build's execution cache.

``tools/build_pdf.py`` is run as documented after the strict HTML build (the
session fixture ``built_book``), so no chapter is executed again. The PDF must
have a plausible number of pages, contain every chapter's title and number, and
LaTeX must report no missing glyph and no undefined reference.

TeX Live comes from Debian. When ``xelatex`` is missing the test installs the
packages with apt if it runs as root (waiting for the dpkg lock held by another
installation, and saying which step failed), and otherwise fails with the
command to run; it is never skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from build_pdf import TEX_PACKAGES, missing_programs  # noqa: E402

from conftest import ROOT, chapter_notebooks  # noqa: E402


def ensure_tex() -> None:
    if not missing_programs():
        return
    install = f"apt-get install -y --no-install-recommends {' '.join(TEX_PACKAGES)}"
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")):
        pytest.fail(f"TeX Live is required for the PDF ({missing_programs()} missing): "
                    f"sudo apt-get update && sudo {install}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock = ["-o", "DPkg::Lock::Timeout=900"]  # wait for another installation to finish
    for step in (["apt-get", *lock, "update"], install.split()[:1] + lock + install.split()[1:]):
        proc = subprocess.run(step, capture_output=True, text=True, timeout=2400, env=env)
        if proc.returncode != 0:
            pytest.fail(f"installing TeX Live failed at '{' '.join(step)}' "
                        f"(exit {proc.returncode}):\n{(proc.stdout + proc.stderr)[-3000:]}")
    if missing_programs():
        pytest.fail(f"after '{install}', {missing_programs()} are still missing")


@pytest.fixture(scope="module")
def pdf(built_book) -> dict:
    """The PDF build's summary (the build runs in the background after the HTML build and
    the installation of TeX Live: ``tests/background.py``)."""
    import background

    build = background.PDF.result()
    assert build["summary"] is not None, f"the PDF build failed:\n{build['log'][-5000:]}"
    return {**build["summary"], "wall_seconds": build["wall_seconds"],
            "returncode": build["returncode"], "log": build["log"][-3000:]}


def test_pdf_builds_without_missing_glyphs_or_references(pdf):
    assert not pdf["missing_glyphs"], f"glyphs missing from the fonts: {pdf['missing_glyphs']}"
    assert not pdf["undefined_references"], f"undefined: {pdf['undefined_references'][:10]}"
    assert pdf["returncode"] == 0, pdf["log"]
    assert 100 <= pdf["pages"] <= 1000, f"{pdf['pages']} pages"
    print(f"PDF: {pdf['pages']} pages in {pdf['wall_seconds']} s")


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
