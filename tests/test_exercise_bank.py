"""The generated *For instructors* page, the notebook downloads and the launch buttons.

The book is built with the README's command (incrementally: after
``tests/test_book.py`` nothing is executed again). Then

* the instructors page lists every exercise of every chapter, in order, with the
  number the chapter page shows, a link to it, its title, kind, difficulty, whether
  it has a self-check and variants, its time estimate and the first sentence of its
  statement, all compared with the chapters' sources read by an independent parser;
* every chapter has at least two self-checked coding exercises, and every self-check
  of ``ensemble_ref`` is used by an exercise;
* every chapter page offers its paired ``.ipynb`` for download (the file in the
  output is the repository's notebook) and its Colab and Binder buttons open that
  notebook in the repository.

The conventions the extension enforces are tested on a small synthetic book.
"""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from ensembles_verified.answers import QUESTIONS  # noqa: E402
from tools.book_builds import jupyter_book, main_book  # noqa: E402
from tools.chapters import ROOT  # noqa: E402
from tools.exercise_sources import (  # noqa: E402
    chapter_exercises,
    html_text,
    numbered_chapters,
    words,
)
from tools.reader_notebooks import chapter_code  # noqa: E402

pytestmark = pytest.mark.book  # read by the stage 'html' of dodo.py, after its product is made

# the time estimate the instructors page states, by kind and difficulty
MINUTES = {"derivation": {"★": 10, "★★": 20, "★★★": 40},
           "proof": {"★": 15, "★★": 30, "★★★": 45},
           "coding": {"★": 15, "★★": 30, "★★★": 60},
           "experiment": {"★": 20, "★★": 40, "★★★": 60}}

CHAPTERS = numbered_chapters()
REPO = "ensembles-verified/ensembles-verified"
ROW_RE = re.compile(r'<tr class="row-(?:even|odd)" id="bank-([^"]+)">(.*?)</tr>', re.S)
CELL_RE = re.compile(r"<td>(.*?)</td>", re.S)


@pytest.fixture(scope="module")
def html() -> Path:
    return main_book()


@pytest.fixture(scope="module")
def bank(html) -> dict:
    raw = (html / "book" / "appendix" / "instructors.html").read_text(encoding="utf-8")
    rows = {label: CELL_RE.findall(row) for label, row in ROW_RE.findall(raw)}
    return {"raw": raw, "rows": rows, "order": [label for label, _ in ROW_RE.findall(raw)]}


def exercise_number(chapter_html: str, label: str) -> str:
    m = re.search(rf'id="{re.escape(label)}">\s*<p class="admonition-title"><span '
                  r'class="caption-number">Exercise ([\d.]+) </span>', chapter_html)
    assert m, f"exercise {label} has no number on its page"
    return m.group(1)


def test_every_exercise_is_listed_in_reading_order(bank):
    expected = [ex["label"] for md in CHAPTERS for ex in chapter_exercises(md)[0]]
    assert expected, "no exercises found in the chapters"
    assert bank["order"] == expected


def test_counts_and_at_least_four_exercises_per_chapter(bank):
    found = {md.stem: chapter_exercises(md) for md in CHAPTERS}
    total = sum(len(ex) for ex, _ in found.values())
    chapters = sum(1 for ex, _ in found.values() if ex)
    assert f"{total} exercises in {chapters} chapters" in html_text(bank["raw"])
    few = {name: len(ex) for name, (ex, _) in found.items() if len(ex) < 4}
    assert not few, f"chapters with fewer than four exercises: {few}"
    unsolved = {name: sorted({e["label"] for e in ex} - {s["target"] for s in sol})
                for name, (ex, sol) in found.items()}
    assert not any(unsolved.values()), f"exercises without a solution: {unsolved}"


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_rows_match_the_chapter(md, html, bank):
    page = md.relative_to(ROOT).with_suffix(".html")
    chapter_html = (html / page).read_text(encoding="utf-8")
    for ex in chapter_exercises(md)[0]:
        (number_cell, title_cell, kind_cell, level_cell, check_cell, variants_cell, time_cell,
         summary_cell) = bank["rows"][ex["label"]]
        number = exercise_number(chapter_html, ex["label"])
        link = f'href="../{md.stem}.html#{ex["label"]}"'  # the bank is book/appendix/instructors
        assert link in number_cell and f">{number}<" in number_cell, number_cell
        assert words(html_text(title_cell)) == words(ex["title"]) + words(ex["label"])
        assert html_text(kind_cell).strip() == ex["kind"]
        assert html_text(level_cell).strip() == ex["difficulty"]
        code = bool(re.search(r"\bcheck_(?!answer\b)[a-z_]+\(", ex["statement"]))
        answer = "check_answer(" in ex["statement"]
        shown = [k for k, on in (("code", code), ("answer", answer)) if on]
        assert html_text(check_cell).strip() == ("yes (" + ", ".join(shown) + ")" if shown else "no")
        question = QUESTIONS.get(ex["label"])
        variants = code or (answer and question is not None and question.draw is not None)
        assert html_text(variants_cell).strip() == ("yes" if variants else "no")
        assert html_text(time_cell).strip() == f"{MINUTES[ex['kind']][ex['difficulty']]} min"
        summary = html_text(summary_cell).strip()
        assert summary.endswith((".", "?", "!", ":", "\u2026")), summary
        summary_words = [w for w in words(summary) if w != "\u2026"]
        statement = re.search(rf'id="{re.escape(ex["label"])}">.*?<section id="exercise-content">'
                              r"(.*?)</section>", chapter_html, re.S)
        statement_words = words(html_text(statement.group(1)))
        assert len(summary_words) >= 4 and statement_words[:len(summary_words)] == summary_words, (
            f"the summary of {ex['label']} is not the start of its statement: {summary!r}")
        assert len(summary_words) < len(statement_words) or summary.endswith(".")


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_chapter_page_offers_its_notebook(md, html):
    rel = md.relative_to(ROOT).with_suffix(".ipynb").as_posix()
    raw = (html / md.relative_to(ROOT).with_suffix(".html")).read_text(encoding="utf-8")
    assert f'href="../_sources/{rel}"' in raw, "no .ipynb in the download menu"
    served = html / "_sources" / rel
    import nbformat  # the download is the reader's notebook: the chapter's code, its prose rendered
    code = chapter_code(nbformat.read(served, as_version=4))  # as the chapter runs it
    paired = [c.source for c in nbformat.read(ROOT / rel, as_version=4).cells if c.cell_type == "code"]
    assert code == paired, "the downloaded notebook does not run the chapter's code"
    edit = f"https://github.com/{REPO}/edit/main/{md.relative_to(ROOT).as_posix()}"
    assert f'href="{edit}"' in raw, f"{md.stem}: no link to {edit}"


def test_every_chapter_has_two_self_checked_coding_exercises_and_a_proof():
    for md in CHAPTERS:
        exercises = chapter_exercises(md)[0]
        checked = [ex["label"] for ex in exercises if ex["kind"] == "coding"
                   and re.search(r"\bcheck_(?!answer\b)[a-z_]+\(", ex["statement"])]
        assert len(checked) >= 2, f"{md.stem}: self-checked coding exercises {checked}"
        assert any(ex["kind"] == "proof" for ex in exercises), f"{md.stem} has no proof exercise"


def test_every_self_check_is_used_by_an_exercise():
    from ensembles_verified import selfcheck

    statements = "\n".join(ex["statement"] for md in CHAPTERS for ex in chapter_exercises(md)[0])
    checks = list(selfcheck.__all__)
    unused = [name for name in checks if f"{name}(" not in statements]
    assert not unused, f"self-checks used by no exercise: {unused}"


def test_every_answer_check_belongs_to_its_exercise():
    statements = {ex["label"]: ex["statement"] for md in CHAPTERS for ex in chapter_exercises(md)[0]}
    for label in QUESTIONS:
        assert label in statements, f"answer check {label} belongs to no exercise"
        assert f'check_answer("{label}"' in statements[label], label


def test_exercise_bank_page_loads_mathjax_for_its_formulas(bank):
    if "math notranslate" in bank["raw"]:
        assert "tex-mml-chtml.js" in bank["raw"] or "mathjax" in bank["raw"].lower()


# --- the conventions, on a synthetic book ----------------------------------------------------

SYNTHETIC = {
    "_config.yml": f"""
        title: Synthetic
        only_build_toc_files: true
        execute:
          execute_notebooks: "off"
        parse:
          myst_enable_extensions: [colon_fence, dollarmath]
        sphinx:
          extra_extensions: [sphinx_exercise]
          local_extensions:
            exercise_bank: {ROOT / "_ext"}
          config:
            exercise_bank_min_per_chapter: 7
        """,
    "_toc.yml": """
        format: jb-book
        root: index
        parts:
          - caption: Chapters
            numbered: true
            chapters:
              - file: chapter
          - caption: Appendix
            chapters:
              - file: bank
        """,
    "index.md": "# Synthetic\n",
    "bank.md": "# Bank\n\n```{exercise-bank}\n```\n",
    "chapter.md": """
        # A chapter

        :::{exercise} Good one (★★)
        :label: ex-good
        :class: derivation

        Prove that $1 + 1 = 2$, e.g. by counting. Then rest.
        :::

        :::{solution} ex-good
        :class: dropdown

        Count.
        :::

        :::{exercise} No mark
        :label: ex-no-mark
        :class: coding

        Statement: `check_answer("ex-nowhere", 1)`.
        :::

        :::{solution} ex-no-mark
        Answer.
        :::

        :::{exercise} No kind (★)
        :label: ex-no-kind

        Statement.
        :::

        :::{solution} ex-no-kind
        Answer.
        :::

        :::{exercise} Unsolved (★★★)
        :label: ex-unsolved
        :class: experiment

        Statement.
        :::

        :::{exercise} Unlabelled (★)
        :class: experiment

        Statement.
        :::

        ```{solution-start} ex-good
        ```
        Gated answer.
        ```{solution-end}
        ```
        """,
}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> tuple[Path, str]:
    book = tmp_path_factory.mktemp("synthetic")
    for name, text in SYNTHETIC.items():
        (book / name).write_text(textwrap.dedent(text).lstrip())
    proc = subprocess.run([jupyter_book(), "build", str(book), "--keep-going"], cwd=book,
                          capture_output=True, text=True, timeout=600)
    return book, proc.stdout + proc.stderr


@pytest.mark.parametrize("message", [
    "exercise ex-no-mark: the title must end with a difficulty mark",
    "exercise ex-no-kind: :class: must name exactly one kind",
    "exercise ex-unsolved has no solution directive",
    "an exercise has no :label:",
    "gated '```{solution-start}' found",
    "chapter chapter has 5 exercises; at least 7 are required",
    "chapter chapter has 0 self-checked coding exercises; at least 2 are required",
    "exercise ex-no-mark calls check_answer('ex-nowhere', ...), which is not a question",
])
def test_conventions_are_enforced_with_warnings(synthetic, message):
    _, log = synthetic
    assert message in log, log[-3000:]


def test_the_good_exercise_is_listed_with_its_summary(synthetic):
    book, log = synthetic
    raw = (book / "_build" / "html" / "bank.html").read_text(encoding="utf-8")
    rows = dict(ROW_RE.findall(raw))
    assert "ex-good" in rows and "exercise ex-good" not in log
    cells = CELL_RE.findall(rows["ex-good"])
    assert html_text(cells[1]).split() == ["Good", "one", "ex-good"]
    assert html_text(cells[7]).strip() == r"Prove that \(1 + 1 = 2\), e.g. by counting."
    assert [html_text(c).strip() for c in cells[4:7]] == ["no", "no", "20 min"]
    assert ">1.1<" in cells[0] and 'href="chapter.html#ex-good"' in cells[0]
    assert html_text(cells[3]).strip() == "★★"
