"""The PDF edition builds with xelatex from the HTML build's execution cache.

``python -m tools.build_pdf`` is run after the strict HTML build (the
session fixture ``built_book``), so no chapter is executed again. The PDF must
have a plausible number of pages, contain every chapter's title and number, and
LaTeX must report no missing glyph and no undefined reference. It must be a book
worth printing: fewer than ``PAGE_LIMIT`` pages, no line, table or code wider than
the text and no page taller than the text block by more than ``TOLERANCE_PT`` (the
overfull boxes of LaTeX's log, counted by ``tools/build_pdf.py``), and the code
without the statements that only check a claim or glue a number
(``_ext/print_edition.py``), which the preface says once.

TeX Live comes from Debian, installed by the setup stage of the test run
(``python -m tools.system_packages``).
"""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from tools.build_pdf import overfull_boxes
from tools.chapters import ROOT, chapter_notebooks

book = pytest.mark.book  # read by the stage 'pdf' of dodo.py, after its product is made;
# the tests of the print edition's rules without a build run with the unit tests

# The printed book: 16 chapters, appendices and every exercise with its solution's argument
# (a solution's code is the online edition's), on US letter paper. A book over 400 pages is
# one readers stop printing.
PAGE_LIMIT = 400
# LaTeX reports every box more than 0.1pt too wide or too high. Under 10pt (3.5 mm, under
# two characters of code), an overrun stays inside the one-inch (72pt) margin, clear of
# the running foot (30pt below the text), and cannot clip anything: the boxes left today
# are code blocks that Sphinx splits across pages, whose frame ends up to 3pt below the
# text block. A table column or a line of code too narrow for its text overruns
# by far more (the errata's table ran 831pt wide, a monospace name in a column 20-60pt).
TOLERANCE_PT = 10.0
CHECKS_IN_PRINT = "In print, the code leaves out the lines that only check a claim"


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


@book
def test_pdf_builds_without_missing_glyphs_or_references(pdf):
    assert not pdf["missing_glyphs"], f"glyphs missing from the fonts: {pdf['missing_glyphs']}"
    assert not pdf["undefined_references"], f"undefined: {pdf['undefined_references'][:10]}"
    assert 100 <= pdf["pages"] <= 1000, f"{pdf['pages']} pages"
    print(f"PDF: {pdf['pages']} pages in {pdf['seconds']} s")


def _plain_tex(text: str) -> str:
    text = text.replace("\\sphinxhyphen {}", "-").replace("\\sphinxhyphen{}", "-")
    return re.sub(r"\\[A-Za-z]+\s*|[{}]", "", text).strip()


@book
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


@book
def test_pdf_is_a_book_to_print(pdf):
    """Fewer than PAGE_LIMIT pages: each chapter starts on the next page (openany), the
    checks and the API's docstrings are in the online edition."""
    assert pdf["pages"] < PAGE_LIMIT, \
        f"the PDF has {pdf['pages']} pages, the printed book must have fewer than {PAGE_LIMIT}"


@book
def test_nothing_runs_off_the_page(pdf):
    """No line, table column or code line more than TOLERANCE_PT wider than its room, and no
    page taller than the text block by more than that (a table or code over the page's
    foot), from the overfull boxes of LaTeX's log (_build/latex/ensembles-verified.log)."""
    overfull = pdf["overfull"]
    tex = (ROOT / "_build" / "latex" / "ensembles-verified.tex").read_text(encoding="utf-8")
    lines = tex.splitlines()
    for kind, largest, what in (("hbox", "widest_hbox", "wide"), ("vbox", "tallest_vbox", "high")):
        over = [(size, line) for size, line in overfull[largest] if size > TOLERANCE_PT]
        where = "; ".join(f"{size:.1f}pt too {what} at .tex line {line}: "
                          f"{lines[line - 1][:70] if 0 < line <= len(lines) else '(a page)'}"
                          for size, line in over[:5])
        assert not over, f"{len(over)} overfull {kind}es over {TOLERANCE_PT}pt: {where}"
        print(f"overfull {kind}es: {overfull[kind]}, all under {TOLERANCE_PT}pt"
              f"{f' (largest {overfull[largest][0][0]:.1f}pt)' if overfull[largest] else ''}")


_TOP_LEVEL_CHECK = re.compile(r"^\\PYG\{n\}\{(?:claims\}\\PYG\{o\}\{\.\}|glue(?:\\PYGZus\{\}numbers)?\}"
                              r"\\PYG\{p\}\{\(\})", re.M)


@book
def test_print_leaves_out_the_checks(pdf):
    """No code cell of the PDF has a top-level call of claims.<...>(...) or glue_numbers(...)
    (the solutions of exercises print no code at all), and the preface says where the
    checks are."""
    tex = (ROOT / "_build" / "latex" / "ensembles-verified.tex").read_text(encoding="utf-8")
    cells = re.findall(r"\\begin\{sphinxuseclass\}\{cell_input\}(.*?)\\end\{sphinxuseclass\}",
                       tex, re.S)
    assert len(cells) > 100, f"only {len(cells)} code cells in the PDF"
    printed = [m.group(0) for cell in cells for m in _TOP_LEVEL_CHECK.finditer(cell)]
    assert not printed, f"{len(printed)} checks printed, e.g. {printed[:3]}"
    assert tex.count(CHECKS_IN_PRINT) == 1, "the PDF does not say once that the checks are online"


# -- the print edition's rules, without a build ------------------------------------------

def _print_edition():
    spec = importlib.util.spec_from_file_location("_print_edition",
                                                  ROOT / "_ext" / "print_edition.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CELL = """\
x = f(3)                  # kept, with its comment
# the check of x
claims.close("x is 9", x, 9, atol=0,
             rival=Rival("x is 6", 6))

# a comment that belongs to y
y = x + 1
for n in (1, 2):
    claims.holds(f"y > {n}", y > n)
glue_numbers(x=x, power=claims.stated_power(1, 0.1))
print(y)
"""


def test_print_leaves_out_the_code_of_solutions():
    from docutils import nodes
    from sphinx_exercise.nodes import solution_node

    edition = _print_edition()
    page = nodes.section()
    solution = solution_node()
    solution += nodes.paragraph("", "The argument stays.")
    solution += nodes.literal_block("assert 1 + 1 == 2", "assert 1 + 1 == 2")
    bare = solution_node()
    bare += nodes.paragraph("", "A solution without code.")
    page += [solution, bare, nodes.literal_block("x = 1", "x = 1")]
    assert edition.hide_solution_code(page) == 1
    assert "The argument stays." in solution.astext() and "assert" not in solution.astext()
    assert edition.SOLUTION_CODE_ONLINE in solution.astext()
    assert edition.SOLUTION_CODE_ONLINE not in bare.astext()
    assert "x = 1" in page.astext()  # code outside solutions is printed


def test_print_leaves_out_statements_that_only_check_or_glue():
    strip = _print_edition().strip_checks
    assert strip(CELL) == ("x = f(3)                  # kept, with its comment\n\n"
                           "# a comment that belongs to y\ny = x + 1\nprint(y)")
    assert strip("claims.close('a', 1, 1)\nglue('b', 2, display=False)\n") == ""
    kept = ["%matplotlib inline\nclaims.close('a', 1, 1)",        # does not parse: as it is
            "power = claims.stated_power(1, 0.1)",               # an assignment is not a check
            "for n in (1, 2):\n    y = n\n    claims.holds('y', y > 0)",  # the loop computes
            "x = 1; claims.close('x', x, 1)"]                    # one line, kept code on it
    for source in kept:
        assert strip(source) == source


def test_print_leaves_out_the_code_of_a_figure_that_moves():
    draws = _print_edition().draws_frames
    assert draws("fig = slider_figure(draw, depths, name='d', label='Depth')\nfig")
    assert draws("frames.slider_figure(draw, [1, 2], name='d', label='Depth')")
    assert not draws("fig, ax = plt.subplots()\nax.plot(x, y)")
    assert not draws("%matplotlib inline")


def test_overfull_boxes_are_read_from_the_log():
    log = ("Overfull \\hbox (831.50722pt too wide) in alignment at lines 23912--23925\n"
           " []\n\nOverfull \\hbox (2.4pt too wide) in paragraph at lines 10--12\n"
           "Overfull \\vbox (75.27608pt too high) has occurred while \\output is active []\n"
           "Overfull \\vbox (3.2pt too high) detected at line 18797\n"
           "Underfull \\hbox (badness 10000) in paragraph at lines 5--6\n")
    assert overfull_boxes(log) == {"hbox": 2, "vbox": 2,
                                   "widest_hbox": [[831.50722, 23912], [2.4, 10]],
                                   "tallest_vbox": [[75.27608, 0], [3.2, 18797]]}
