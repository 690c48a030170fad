"""The course kit: the appendix's plans and objectives, and the extension that fills them in.

The page ``book/appendix/course.md`` must hold two course plans (a graduate course of
12 or 13 weeks and an applied course), every line naming chapters of the book, and
for every numbered chapter a block of three to five learning objectives; it is linked
from the instructors' page and listed in ``_toc.yml``. The extension
(``_ext/course_kit.py``) is built on a small synthetic book: the week table lists,
per week, the exercises of the week's chapters of the kinds and difficulties the plan
sets (linked, at most ``per-week``, checked ones first), the outline of a chapter its
theorems and figures with their numbers, and the build writes each chapter's handout
(objectives, outline, exercises) beside the HTML, linked from the page.
"""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from tools.book_builds import jupyter_book
from tools.chapters import ROOT, chapter_sources
from tools.exercise_sources import html_text

COURSE = ROOT / "book" / "appendix" / "course.md"
PLAN_RE = re.compile(r"```\{course-plan\}\n(.*?)```", re.S)
CHAPTER_RE = re.compile(r"```\{course-chapter\} (\S+)\n(.*?)```", re.S)


def test_the_page_has_two_plans_and_objectives_for_every_chapter():
    text = COURSE.read_text(encoding="utf-8")
    docs = {md.relative_to(ROOT).with_suffix("").as_posix() for md in chapter_sources()
            if md.stem[:2].isdigit()}
    plans = PLAN_RE.findall(text)
    assert len(plans) == 2
    weeks = []
    for plan in plans:
        lines = [line for line in plan.splitlines() if "|" in line]
        weeks.append(len(lines))
        for line in lines:
            for ref in line.split("|")[1].replace(",", " ").split():
                assert ref.partition("#")[0] in docs, line
        assert ":kinds:" in plan and ":levels:" in plan
    assert 12 <= weeks[0] <= 13 and 10 <= weeks[1] <= 13, weeks
    assert "proof" in plans[0].split(":levels:")[0] and "proof" not in plans[1].split("\n\n")[0]
    blocks = dict(CHAPTER_RE.findall(text))
    assert set(blocks) == docs, sorted(docs ^ set(blocks))
    for doc, body in blocks.items():
        objectives = [line for line in body.splitlines() if line.startswith("- ")]
        assert 3 <= len(objectives) <= 5, (doc, len(objectives))
    assert "book/appendix/course" in (ROOT / "_toc.yml").read_text()
    assert "<app-course>" in (ROOT / "book" / "appendix" / "instructors.md").read_text()


SYNTHETIC = {
    "_config.yml": f"""
        title: Synthetic
        only_build_toc_files: true
        execute:
          execute_notebooks: "off"
        parse:
          myst_enable_extensions: [colon_fence, dollarmath]
        html:
          baseurl: https://example.org/book/
        sphinx:
          extra_extensions: [sphinx_exercise, sphinx_proof]
          local_extensions:
            exercise_bank: {ROOT / "_ext"}
            course_kit: {ROOT / "_ext"}
          config:
            exercise_bank_min_per_chapter: 1
            exercise_bank_min_selfchecked: 0
        """,
    "_toc.yml": """
        format: jb-book
        root: index
        parts:
          - caption: Chapters
            numbered: true
            chapters:
              - file: book/01_first
              - file: book/02_second
          - caption: Appendix
            chapters:
              - file: book/appendix/course
        """,
    "index.md": "# Synthetic\n",
    "book/01_first.md": """
        # The first chapter

        :::{prf:theorem} A first result
        :label: thm-first

        One is one.
        :::

        :::{figure} dot.png
        :name: fig-first-dot

        A dot on a page. It is small.
        :::

        :::{exercise} A proof (★★)
        :label: ex-first-proof
        :class: proof

        Prove that one is one.
        :::

        :::{solution} ex-first-proof
        It is.
        :::

        :::{exercise} A code (★)
        :label: ex-first-code
        :class: coding

        Write it and check it with `check_oob_fraction(f)`.
        :::

        :::{solution} ex-first-code
        Done.
        :::

        :::{exercise} A hard derivation (★★★)
        :label: ex-first-hard
        :class: derivation

        Derive two.
        :::

        :::{solution} ex-first-hard
        Two.
        :::
        """,
    "book/02_second.md": """
        # The second chapter

        :::{exercise} An experiment (★)
        :label: ex-second-exp
        :class: experiment

        Run it.
        :::

        :::{solution} ex-second-exp
        Ran.
        :::
        """,
    "book/appendix/course.md": """
        # Course

        ```{course-plan}
        :kinds: proof, derivation
        :levels: ★★ ★★★
        :per-week: 1

        1 | book/01_first | the first things
        2 | book/02_second | the second things
        ```

        ```{course-chapter} book/01_first
        - Say one.
        - Prove one.
        - Use one.
        ```
        """,
}


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory) -> tuple[Path, str]:
    book = tmp_path_factory.mktemp("course")
    for name, text in SYNTHETIC.items():
        (book / name).parent.mkdir(parents=True, exist_ok=True)
        (book / name).write_text(textwrap.dedent(text).lstrip())
    import base64
    (book / "book" / "dot.png").write_bytes(base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="))
    proc = subprocess.run([jupyter_book(), "build", str(book), "--keep-going"], cwd=book,
                          capture_output=True, text=True, timeout=900)
    return book, proc.stdout + proc.stderr


def test_the_week_table_lists_the_chosen_exercises(synthetic):
    book, log = synthetic
    raw = (book / "_build" / "html" / "book" / "appendix" / "course.html").read_text()
    assert "course-plan" in raw, log[-3000:]
    rows = re.findall(r"<tr class=\"row-(?:even|odd)\">(.*?)</tr>", raw.split("course-plan", 1)[1],
                      re.S)
    first, second = rows[1], rows[2]  # rows[0] is the header
    assert 'href="../01_first.html#ex-first-proof"' in first  # a proof of ★★: the plan's kind
    assert "ex-first-hard" not in first  # per-week 1: the first chosen only
    assert "ex-first-code" not in first  # a coding exercise of ★: not this plan's
    assert "The first chapter" in html_text(first) and "the first things" in html_text(first)
    assert "ex-second" not in second and "—" in html_text(second)


def test_the_outline_and_the_handout(synthetic):
    book, log = synthetic
    html = book / "_build" / "html"
    raw = (html / "book" / "appendix" / "course.html").read_text()
    text = html_text(raw)
    assert "Learning objectives" in text and "Prove one." in text
    assert "Theorem 1.1" in text and "A first result" in text, log[-3000:]
    assert "Figure 1.1" in text and "A dot on a page." in text and "It is small" not in text
    assert 'href="../../course/handout-01_first.md"' in raw
    handout = (html / "course" / "handout-01_first.md").read_text()
    assert handout.startswith("# Chapter 1. The first chapter: slide outline")
    assert "https://example.org/book/book/01_first.html" in handout
    for line in ("- Prove one.", "- Theorem 1.1: A first result", "- Figure 1.1: A dot on a page.",
                 "(proof, ★★)", "(coding, ★; self-check)"):
        assert line in handout, (line, handout)


def test_in_print_the_long_lists_are_one_sentence():
    """The PDF keeps the page's prose; its tables and outlines become one sentence, once."""
    from docutils import nodes
    from sphinx import addnodes

    from _ext.print_edition import ONLINE_ONLY, omit_online_only

    part = addnodes.start_of_file(docname="book/appendix/course")
    section = nodes.section()
    section += nodes.paragraph(text="Prose stays.")
    section += nodes.table(classes=["course-plan", "online-only"])
    block = nodes.container(classes=["course-chapter", "online-only"])
    block += nodes.bullet_list()
    section += block
    section += nodes.table()
    part += section
    omit_online_only(part, ONLINE_ONLY["book/appendix/course"])
    text = part.astext()
    assert "Prose stays." in text and text.count("in the online edition") == 1
    assert not list(part.findall(nodes.table)) and not list(part.findall(nodes.bullet_list))
