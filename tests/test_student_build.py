"""The student edition: every exercise, no solution, nothing executed again.

The student book is built with its documented command (``python
tools/build_student.py``, after the main build). Then

* no solution text appears in any file of ``_build/student/html`` (pages, search
  index, downloadable sources): every solution is turned into *probes*, runs of
  eight words that occur nowhere else in the book's sources, and none of them may
  occur in the output;
* every exercise appears on its chapter's page, with its label and its whole
  statement (the same word runs are found, so the comparison is known to see
  through HTML markup);
* no chapter was executed by the student build;
* the launch buttons open the student notebooks (the ``student-notebooks``
  branch, without solutions), never the reader notebooks or the repository's, and
  the download menu offers the student notebook;
* the answer checks give nothing away: the answer of every registered question
  (``ensembles_verified.answers``), for the book's values and for variants, is
  written in none of the usual ways on its chapter's page, in the search index or
  in the chapter's student notebook and Markdown source, while the statement that
  calls ``check_answer`` is there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ensembles_verified.answers import QUESTIONS  # noqa: E402
from tools.answer_bank import ANSWERS, answer_key  # noqa: E402
from tools.book_builds import student_book  # noqa: E402
from tools.chapters import ROOT, chapter_notebooks  # noqa: E402
from tools.exercise_sources import (  # noqa: E402  # noqa: E402
    answer_strings,
    chapter_exercises,
    corpus_windows,
    folder_text,
    html_text,
    normalised,
    occurs,
    solution_probes,
    visible_sources,
    windows,
)

pytestmark = pytest.mark.book  # read by the stage 'student' of dodo.py, after its product is made

CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()]


@pytest.fixture(scope="module")
def student():
    html, log = student_book()
    return html, log


@pytest.fixture(scope="module")
def output_text(student) -> set[str]:
    """Every run of words in any text file of the student HTML output."""
    html, _ = student
    text = folder_text(html)
    assert text, f"no output in {html}"
    return corpus_windows(text)


@pytest.fixture(scope="module")
def visible(student) -> set[str]:
    """What the student edition may show: the sources without solutions, and every page of
    the main build except the chapters' own (the generated pages, such as the API reference)."""
    chapters = {md.relative_to(ROOT).with_suffix("") for md in CHAPTERS}

    def is_chapter(relative: Path) -> bool:
        parts = relative.parts[1:] if relative.parts[:1] == ("_sources",) else relative.parts
        return Path(*parts).with_suffix("") in chapters

    return corpus_windows(visible_sources() + "\n"
                          + folder_text(ROOT / "_build" / "html", skip=is_chapter))


def test_there_are_exercises_and_solutions():
    found = [chapter_exercises(md) for md in CHAPTERS]
    assert sum(len(ex) for ex, _ in found) > 0
    assert sum(len(sol) for _, sol in found) > 0


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_no_solution_text_in_the_student_html(md, output_text, visible):
    _, solutions = chapter_exercises(md)
    for sol in solutions:
        probes = solution_probes(sol["text"], visible)
        assert probes, f"solution to {sol['target']} is too short to be checked"
        leaked = sorted(probes & output_text)
        assert not leaked, (f"solution to {sol['target']} ({md.stem}) appears in the student "
                            f"edition: {leaked[:3]}")


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_every_exercise_is_in_the_student_html(md, student):
    html, _ = student
    page = html / md.relative_to(ROOT).with_suffix(".html")
    raw = page.read_text(encoding="utf-8")
    text = normalised(html_text(raw))
    exercises, _ = chapter_exercises(md)
    for ex in exercises:
        assert f'id="{ex["label"]}"' in raw, f"exercise {ex['label']} missing from {page.name}"
        runs = windows(ex["statement"]) | windows(ex["title"], n=min(3, len(ex["title"].split())))
        missing = sorted(r for r in runs if f" {r} " not in text)
        assert runs and not missing, f"exercise {ex['label']}: text missing: {missing[:3]}"
    assert 'class="solution' not in raw and "Solution to" not in raw


def test_the_student_build_executed_nothing(student):
    _, log = student
    # myst-nb logs "Executing notebook using ..." for every chapter it runs.
    assert "Executing notebook" not in log, "the student build executed a chapter again"


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_student_pages_offer_the_student_notebook_and_launch_it(md, student):
    import nbformat

    html, _ = student
    page = html / md.relative_to(ROOT).with_suffix(".html")
    raw = page.read_text(encoding="utf-8")
    notebook = md.relative_to(ROOT).with_suffix(".ipynb").as_posix()
    assert ("colab.research.google.com/github/ensembles-verified/ensembles-verified/blob/"
            f"student-notebooks/{notebook}") in raw
    assert "mybinder.org/v2/gh/ensembles-verified/ensembles-verified/student-notebooks?" in raw
    assert "reader-notebooks" not in raw and "/blob/main/book/" not in raw
    assert f'_sources/{md.relative_to(ROOT).with_suffix(".ipynb").as_posix()}"' in raw
    nb = nbformat.read(html / "_sources" / md.relative_to(ROOT).with_suffix(".ipynb"), 4)
    nbformat.validate(nb)
    labels = [ex["label"] for ex in chapter_exercises(md)[0]]
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert all(label in markdown for label in labels)  # each exercise keeps its anchor
    assert "{solution}" not in markdown
    assert "(student edition)" in raw


# An opening or closing <div> or <details> tag; a <script> or <style> element is matched whole
# (and skipped), so that a tag written inside a script is not taken for one.
BLOCK_TAG_RE = re.compile(r"(?is)<(script|style)\b.*?</\1\s*>|<(/?)(div|details)\b([^>]*)>")
CLASS_RE = re.compile(r"""class=["']([^"']*)""")
# The elements that hold what a chapter computed: its cells' outputs and its check boxes.
OUTPUT_CLASS = {"div": "cell_output", "details": "ev-checks"}


def output_spans(raw: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the outermost output and check-box elements of a page."""
    spans, open_tags = [], []
    for m in BLOCK_TAG_RE.finditer(raw):
        if m.group(1):
            continue
        closing, tag = m.group(2), m.group(3).lower()
        if not closing:
            cls = CLASS_RE.search(m.group(4))
            open_tags.append((tag, m.start(), bool(cls) and OUTPUT_CLASS[tag] in cls.group(1).split()))
            continue
        opened = None
        while open_tags and opened != tag:
            opened, start, is_output = open_tags.pop()
        if opened == tag and is_output:
            while spans and spans[-1][0] > start:  # outputs inside this one closed first
                spans.pop()
            spans.append((start, m.end()))
    return spans


def split_page(raw: str) -> tuple[str, str]:
    """A page's text without its cells' outputs and check boxes, and the text of those
    (tables and measured values the chapter computes), words separated as they show."""
    spans = output_spans(raw)
    computed = " ".join(html_text(re.sub(r"<[^>]+>", " ", re.sub(
        r"(?is)<(script|style)\b.*?</\1>", " ", raw[start:end]))) for start, end in spans)
    edges = [0, *(i for span in spans for i in span), len(raw)]
    return html_text("".join(raw[a:b] for a, b in zip(edges[::2], edges[1::2]))), computed


def test_split_page_separates_outputs_and_prose():
    page = ("<p>prose 1</p>\n<div class='cell_output docutils'><div>0.125</div><div>0.5</div></div>\n"
            "<script>var s = '<div class=\"cell_output\">';</script>\n<p>prose 2</p>\n"
            "<details class='ev-checks'><div class=\"cell_output\">0.25</div> 7</details>\n<p>3</p>")
    prose, computed = split_page(page)
    assert prose.split() == ["prose", "1", "prose", "2", "3"] and "0.125" not in prose
    assert computed.split() == ["0.125", "0.5", "0.25", "7"]


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_the_answer_checks_reveal_no_answer(md, student):
    import nbformat

    html, _ = student
    relative = md.relative_to(ROOT).with_suffix("")
    page = (html / relative.with_suffix(".html")).read_text(encoding="utf-8")
    notebook = nbformat.read(html / "_sources" / relative.with_suffix(".ipynb"), 4)
    prose, computed = split_page(page)
    texts = {
        "page": prose,
        "page's computed outputs": computed,
        "search index": (html / "searchindex.js").read_text(encoding="utf-8"),
        "student notebook": "\n".join(cell.source for cell in notebook.cells),
        "student source": (html / "_sources" / relative.with_suffix(".md")).read_text(
            encoding="utf-8"),
    }
    labels = {ex["label"] for ex in chapter_exercises(md)[0]} & set(QUESTIONS)
    for label in sorted(labels):
        assert f'check_answer("{label}"' in texts["student notebook"], label
        if QUESTIONS[label].variables:  # a formula: its right form is not shown
            formula = ANSWERS[label].formula.replace(" ", "")
            assert all(formula not in t.replace(" ", "") for t in texts.values()), label
            continue
        for seed in (None, 0, 1, 17):
            for form in answer_strings(answer_key(label, seed)):
                for where, text in texts.items():
                    if where == "search index" and len(re.sub(r"\D", "", form)) < 4:
                        continue  # the whole book's index: short numbers occur elsewhere
                    if where == "page's computed outputs" and len(re.sub(r"\D", "", form).lstrip("0")) < 4:
                        continue  # thousands of computed numbers: three significant digits coincide
                    assert not occurs(form, text), (f"the answer to {label} (seed {seed}) "
                                                    f"appears in the {where}: {form}")
