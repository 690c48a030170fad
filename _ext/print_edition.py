"""Sphinx extension: a printed book worth printing (the LaTeX builder only).

The HTML is the reference edition; the PDF (``tools/build_pdf.py``) is a book to read
on paper. When the builder writes LaTeX, this extension leaves out what only makes
sense on a screen, from the resolved pages (the HTML is not affected):

* the API reference pages keep their title and introduction, and a sentence that the
  reference is in the online edition (the docstrings of every module run to more than
  a hundred pages); a link from elsewhere to an object documented there becomes plain
  text;
* the claims ledger's and the execution report's tables are replaced by a sentence
  (the ledger has a row for every check of the book);
* each chapter's opening code cell, which only imports the package and sets the
  chapter's seed, is not printed (its outputs, if any, are);
* the statements of a code cell that only check a claim or glue a number into the
  text (``claims.close(...)``, ``claims.holds(...)``, ``glue_numbers(...)``, ...) are
  not printed, nor the comments written just above them; the other lines keep their
  order and comments, and a cell left without code keeps only its outputs. The
  preface says so once, in its section on the checks. The checks' boxes are already
  left out of print (``_ext/check_boxes.py``);
* a code cell whose output is a numbered figure (a caption in the cell's metadata),
  or that draws a figure that moves (it calls ``slider_figure``, of
  ``ensembles_verified.frames``), is not printed, only its output: the drawing code
  is the web edition's, and the printed page keeps the figure, its caption and the
  text around it (a figure that moves prints as a small multiple of its frames);
* tables are laid out for the page: a table too wide for one line per cell, or a
  long one (a LaTeX ``longtable``, which Sphinx sets in unbreakable ``l`` columns when
  no widths are given), gets wrapping columns, each as wide as its widest word or
  name and the rest in proportion to its text;
* the solutions of the exercises keep their argument and lose their code, which is the
  online edition's and the notebooks' (it checks the solution each time the book's
  tests run); a sentence in the solution says so;
* the instructors' table of every exercise and the course kit's plans and outlines
  become one sentence each (they are tools for the online edition: sortable, linked,
  regenerated at each build).

It also sets the print typography (``PREAMBLE``): tables one size smaller than the
text, their cells ragged right; inline code (``n_iter_no_change``,
``ex-intro-majority-bound``) may break after ``_ - = (`` as it already does after
``.`` and ``/``; code in a box may break across pages. The
code's size, the figures' scale and the chapters' starts (no blank pages) are
``latex_elements`` of ``_config.yml``.
"""

from __future__ import annotations

import ast
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

OMITTED_REFERENCE = ("book/appendix/api_core", "book/appendix/api_math", "book/appendix/api_trees",
                     "book/appendix/api_ensembles", "book/appendix/api_runtime")
TABLES = {"book/appendix/claims_ledger": "The table of every check is in the online edition.",
          "book/appendix/execution": "The table of the chapters' execution times is in the online edition."}
# Pages whose generated lists are long: in print their tables and online-only blocks (class
# "online-only") become one sentence, once (the course kit's week plans and outlines).
ONLINE_ONLY = {"book/appendix/course": "The week plans, the learning objectives and the slide "
                                       "outlines of every chapter, with a handout per chapter, "
                                       "are in the online edition.",
               "book/appendix/instructors": "The table of every exercise (its chapter, kind, "
                                            "difficulty, first sentence, check and variants) is "
                                            "in the online edition."}
IN_PRINT = "In print, this part of the API reference is left out: it is in the online edition."
FRAMES_CALL = "slider_figure"
CHECKS_IN_PRINT = ("In print, the code leaves out the lines that only check a claim or pass a "
                   "number to the text, the code that draws a numbered figure, and the boxes of "
                   "checks: they are in the online edition.")
GLUE_CALLS = {"glue_numbers", "glue"}  # ensembles_verified's and myst-nb's
CHECKER = "claims"  # every chapter's Claims(...) object
# Print typography (the LaTeX preamble). Sphinx breaks inline code after . , ; ? ! /
# only, so a long name (n_iter_no_change, ex-intro-majority-bound) in a narrow table
# column ran off the page: here it may also break after _ - = and ( (the line ends with
# the character, as after a dot). Tables are set one size smaller than the text, as
# books set them, so that a column of code has room for its names; a table whose names
# do not fit side by side even so, two sizes smaller (``lay_out_tables``).
PREAMBLE = r"""
% _ext/print_edition.py: inline code may break after _ - = ( too; tables in \small
\makeatletter
\let\EVupquote\sphinxupquote
\let\EVunderscore\_
\protected\def\EVbreakunderscore{\EVunderscore\discretionary{}{}{}}
\protected\def\EVbreakhyphen#1{-\discretionary{}{}{}}
\protected\def\sphinxupquote#1{{\let\_\EVbreakunderscore
  \let\sphinxhyphenininlineliteral\EVbreakhyphen
  \expandafter\def\expandafter\sphinxbreaksafteractivelist\expandafter
    {\sphinxbreaksafteractivelist\do\=\do\(}%
  \EVupquote{#1}}}
% code in a box (an exercise, a solution) may break across pages, as code outside
% boxes does: Sphinx frames it in an unbreakable minipage when it seems to fit on the
% page, which it cannot tell inside a box (a solution's code ran over the page's foot);
% in print the box is its frame
\RequirePackage{etoolbox}
\patchcmd\endsphinxVerbatim{\pagetotal+\pagedepth>\pagegoal}{\pagetotal+\textheight>\pagegoal}
  {}{\PackageWarningNoLine{print_edition}{sphinxVerbatim not patched: code in boxes}}
% table cells ragged right: a narrow column does not stretch its spaces to justify
\newcolumntype{\X}[2]{>{\raggedright\arraybackslash}p{\dimexpr
      (\linewidth-\spx@arrayrulewidth)*#1/#2-\tw@\tabcolsep-\spx@arrayrulewidth\relax}}
\newcolumntype{T}{L}
\let\EVtablesize\small
\g@addto@macro\sphinxattablestart{\EVtablesize}
\g@addto@macro\sphinxatlongtablestart{\EVtablesize}
\makeatother
"""
SMALLER_TABLE, SIZE_OF_TABLES = r"\let\EVtablesize\footnotesize", r"\let\EVtablesize\small"
# Sizes for laying out tables (sphinxmanual on letter paper, 0.85in side margins as set by
# sphinxsetup in _config.yml; tables in 9pt
# FreeSerif, FreeMono and Computer Modern): the text width, a column's padding (two
# \tabcolsep), and the mean width of a character of prose, of a header (FreeSans), of
# code and of a formula.
TEXT_WIDTH_PT, PAD_PT = 491.43, 12.0
TEXT_PT, HEAD_PT, MONO_PT, MATH_PT = 4.3, 5.0, 5.4, 5.0
# The instructors' table in print (8 columns): the label and the summary wrap, the
# one-word columns are wide enough for their words (the HTML keeps its widths).
EXERCISE_BANK_WIDTHS = (8, 21, 12, 10, 9, 9, 7, 24)


def _note(text: str) -> nodes.paragraph:
    return nodes.paragraph("", "", nodes.emphasis("", text))


def omit_reference(part: nodes.Element) -> None:
    """Keep the page's title and first paragraph; the rest becomes one sentence."""
    section = part.next_node(nodes.section)
    if section is None:
        return
    kept = [child for child in section.children if isinstance(child, (nodes.title, nodes.target))]
    first = next((child for child in section.children if isinstance(child, nodes.paragraph)), None)
    section.children = []
    section.extend(kept + ([first] if first is not None else []) + [_note(IN_PRINT)])


def omit_tables(part: nodes.Element, sentence: str) -> None:
    tables = list(part.findall(nodes.table))
    for table in tables:
        table.replace_self(_note(sentence))
    if not tables:  # a generated table that is not a docutils table (cards, raw HTML)
        for raw in list(part.findall(nodes.raw)):
            if raw.get("format") == "html":
                raw.parent.remove(raw)
        part.next_node(nodes.section).append(_note(sentence))


def omit_online_only(part: nodes.Element, sentence: str) -> None:
    """The page's tables and online-only blocks become one sentence, where the first was."""
    blocks = [n for n in part.findall(nodes.Element)
              if isinstance(n, nodes.table) or "online-only" in n.get("classes", [])]
    blocks = [b for b in blocks if not any(a in blocks for a in _ancestors(b))]
    for i, block in enumerate(blocks):
        if i == 0:
            block.replace_self(_note(sentence))
        else:
            block.parent.remove(block)


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


def unlink_omitted(doctree: nodes.document) -> None:
    """A link into an omitted page becomes its text."""
    for ref in list(doctree.findall(nodes.reference)):
        target = ref.get("refuri", "")
        if any(target.startswith(f"%{doc}") or target.startswith(f"{doc}") for doc in OMITTED_REFERENCE):
            ref.replace_self(nodes.literal("", ref.astext()))


def hide_opening_imports(part: nodes.Element) -> None:
    """The chapter's first code cell, if it starts with imports, loses its input in print."""
    for cell in part.findall(nodes.container):
        if "cell" not in cell.get("classes", []):
            continue
        source = next((n for n in cell.findall(nodes.literal_block)), None)
        if source is not None and source.astext().lstrip().startswith(("import ", "from ")):
            for piece in [c for c in cell.children if "cell_input" in c.get("classes", [])]:
                cell.remove(piece)
        return  # only the first code cell of the page


def _is_check(stmt: ast.stmt) -> bool:
    """A statement that only checks or glues: a call of ``claims.<anything>(...)`` or of
    a glue function as a statement, or a loop or branch whose body holds nothing else."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return (isinstance(func, ast.Name) and func.id in GLUE_CALLS) or (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == CHECKER)
    if isinstance(stmt, (ast.For, ast.If)):
        return all(_is_check(s) for s in stmt.body + stmt.orelse)
    return False


def strip_checks(source: str) -> str:
    """``source`` without its top-level statements that only check or glue, and the
    comment lines directly above each of them; blank lines left doubled, leading or
    trailing go too. A source that does not parse (an IPython magic) is returned as it is."""
    try:
        body = ast.parse(source).body
    except SyntaxError:
        return source
    lines = source.splitlines()
    kept_lines = {n for stmt in body if not _is_check(stmt)
                  for n in range(stmt.lineno, stmt.end_lineno + 1)}
    drop: set[int] = set()  # 1-based line numbers
    for stmt in body:
        span = set(range(stmt.lineno, stmt.end_lineno + 1))
        if not _is_check(stmt) or span & kept_lines:  # shares a line with kept code
            continue
        drop |= span
        above = stmt.lineno - 1
        while above >= 1 and lines[above - 1].startswith("#") and above not in kept_lines:
            drop.add(above)
            above -= 1
    if not drop:
        return source
    out: list[str] = []
    after_drop = False
    for number, line in enumerate(lines, start=1):
        if number in drop:
            after_drop = True
        elif line.strip():
            out.append(line)
            after_drop = False
        elif not (after_drop and (not out or not out[-1].strip())):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out)


def draws_frames(source: str) -> bool:
    """Whether the code calls ``slider_figure`` (a figure that moves on the web page)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Call) and FRAMES_CALL in (getattr(node.func, "id", None),
                                                               getattr(node.func, "attr", None))
               for node in ast.walk(tree))


def hide_figure_code(doctree: nodes.Element) -> int:
    """Every code cell that draws a figure (its output holds a numbered figure, or it calls
    ``slider_figure``) loses its input; how many did."""
    hidden = 0
    for cell in list(doctree.findall(nodes.container)):
        if cell.get("nb_element") != "cell_code":
            continue
        sources = [c for c in cell.children if c.get("nb_element") == "cell_code_source"]
        if any(True for _ in cell.findall(nodes.figure)) or any(draws_frames(s.astext()) for s in sources):
            for piece in sources:
                cell.remove(piece)
                hidden += 1
    return hidden


SOLUTION_CODE_ONLINE = "The code of this solution, which checks it, is in the online edition."


def hide_solution_code(doctree: nodes.Element) -> int:
    """Every solution of an exercise (sphinx-exercise's ``solution_node``) loses its code
    blocks and says where they are; how many solutions did."""
    hidden = 0
    for solution in list(doctree.findall(lambda n: type(n).__name__ == "solution_node")):
        blocks = [b for b in solution.findall(nodes.literal_block)]
        if not blocks:
            continue
        for block in blocks:
            block.parent.remove(block)
        solution += nodes.paragraph("", "", nodes.emphasis("", SOLUTION_CODE_ONLINE))
        hidden += 1
    return hidden


def hide_checks(doctree: nodes.Element) -> int:
    """Every code cell loses the statements that only check or glue; a cell left
    without code loses its input. Returns how many cells changed."""
    changed = 0
    for source in list(doctree.findall(nodes.container)):
        if source.get("nb_element") != "cell_code_source":
            continue
        for block in list(source.findall(nodes.literal_block)):
            text = block.astext()
            kept = strip_checks(text)
            if kept == text:
                continue
            changed += 1
            if kept.strip():
                block.rawsource = kept
                block.children = []
                block += nodes.Text(kept)
            else:
                source.parent.remove(source)
                break
    return changed


def say_checks_are_online(doctree: nodes.Element, parts: list[addnodes.start_of_file]) -> None:
    """One sentence, in the preface's section on the checks (else at the start of the
    first chapter), that the checks are printed in the online edition."""
    where = None
    for part in parts:
        if part["docname"] == "book/front/preface":
            where = next((s for s in part.findall(nodes.section)
                          if "how-the-checks-work" in s["ids"]), None)
            break
    if where is None:
        where = next((part.next_node(nodes.section) for part in parts
                      if _is_chapter(part["docname"])), None)
    if where is None:
        return
    first = next((k for k, child in enumerate(where.children)
                  if isinstance(child, nodes.paragraph)), len(where.children) - 1)
    where.insert(first + 1, nodes.paragraph("", CHECKS_IN_PRINT))


def _colspecs(table: nodes.table) -> list[nodes.colspec]:
    return [c for group in table.findall(nodes.tgroup) for c in group.children
            if isinstance(c, nodes.colspec)]


def _pieces(entry: nodes.Element, prose_pt: float = 0.0) -> tuple[float, float]:
    """The widths (pt, in the tables' 9pt type) of a cell's widest unbreakable piece and of
    its whole text on one line: code breaks at spaces and after ``_ - = ( . , ; ? ! /``
    (``PREAMBLE``), a formula at its top-level relations and signs, prose at spaces."""
    widest = total = 0.0
    for text in entry.findall(nodes.Text):
        parent = text.parent
        if isinstance(parent, nodes.literal):
            per, pieces = MONO_PT, re.split(r"(?<=[_\-=(.,;?!/])|\s+", str(text))
        elif isinstance(parent, nodes.math):
            source = re.sub(r"\\[A-Za-z]+", "x", str(text))  # a command: about one glyph
            source = re.sub(r"[{}_^]|\\,|\\;", "", source)
            per, pieces = MATH_PT, re.split(r"\s*(?<![{(])[=<>+-]\s*", source)
        else:
            per, pieces = prose_pt or TEXT_PT, str(text).split()
        widths = [per * len(piece) for piece in pieces]
        widest = max([widest, *widths])
        total += per * len(str(text))
    return widest, total


def _widths(table: nodes.table, ncols: int) -> tuple[list[int], bool] | None:
    """Columns at least as wide as their widest unbreakable piece (a word, a number, a
    piece of code); the room left is shared in proportion to each column's mean text.
    ``None`` when LaTeX's tabulary can lay the table out (a short table whose cells fit
    on one line each; tabulary squeezes columns of a wider one below their widest word,
    a number such as 0.200 or a name). The flag says the table needs the smaller size
    (8pt): its pieces do not fit side by side in 9pt."""
    rows = [row for row in table.findall(nodes.row) if len(row.children) == ncols]
    if not rows:
        return None
    measured = [[_pieces(entry, HEAD_PT if isinstance(row.parent, nodes.thead) else TEXT_PT)
                 for entry in row.children] for row in rows]
    widest = [max(cell[k][0] for cell in measured) for k in range(ncols)]
    natural = [max(cell[k][1] for cell in measured) for k in range(ncols)]
    mean = [sum(cell[k][1] for cell in measured) / len(rows) for k in range(ncols)]
    room = TEXT_WIDTH_PT - ncols * PAD_PT
    long = len(rows) > 30  # a longtable: Sphinx would set it in l columns
    if not long and sum(natural) <= room:
        return None
    smaller = sum(widest) >= room
    if smaller:  # the same pieces in 8pt type
        widest, mean = [w * 8 / 9 for w in widest], [m * 8 / 9 for m in mean]
    if sum(widest) >= room:  # no layout avoids an overrun: the least one
        shares = widest
    else:
        extra = [max(m - w, 0.0) for m, w in zip(mean, widest)]
        spare = room - sum(widest)
        shares = [w + spare * e / (sum(extra) or 1) for w, e in zip(widest, extra)]
    scale = 1000 / TEXT_WIDTH_PT  # Sphinx's \X{a}{b}: a/b of the line, less the padding
    return [max(1, round((share + PAD_PT) * scale)) for share in shares], smaller


def lay_out_tables(doctree: nodes.Element) -> None:
    """Widths for the tables LaTeX cannot lay out by itself (see the module's docstring).
    A table whose source sets its LaTeX columns (``tabularcolumns``) or widths keeps them."""
    for table in doctree.findall(nodes.table):
        specs = _colspecs(table)
        if not specs:
            continue
        if "exercise-bank" in table["classes"] and "longtable" in table["classes"]:
            continue  # laid out already (the loop meets it again after the insertions)
        if "exercise-bank" in table["classes"] and len(specs) == len(EXERCISE_BANK_WIDTHS):
            for spec, width in zip(specs, EXERCISE_BANK_WIDTHS):
                spec["colwidth"] = width
            table["classes"].append("longtable")  # a chapter's exercises may fill a page
            where = table.parent.index(table)  # in 8pt, like the other wide tables
            table.parent.insert(where + 1, nodes.raw("", SIZE_OF_TABLES, format="latex"))
            table.parent.insert(where, nodes.raw("", SMALLER_TABLE, format="latex"))
            continue
        before = table.parent.index(table) - 1 if table.parent is not None else -1
        if "colwidths-given" in table["classes"] or (
                before >= 0 and isinstance(table.parent[before], addnodes.tabular_col_spec)):
            continue
        layout = _widths(table, len(specs))
        if layout is None:
            continue
        widths, smaller = layout
        for spec, width in zip(specs, widths):
            spec["colwidth"] = width
        table["classes"].append("colwidths-given")
        if smaller:
            where = table.parent.index(table)
            table.parent.insert(where + 1, nodes.raw("", SIZE_OF_TABLES, format="latex"))
            table.parent.insert(where, nodes.raw("", SMALLER_TABLE, format="latex"))


def _is_chapter(docname: str) -> bool:
    return docname.startswith("book/") and docname.split("/")[-1][:2].isdigit()


def add_preamble(app: Sphinx, config) -> None:
    elements = dict(config.latex_elements or {})
    elements["preamble"] = elements.get("preamble", "") + PREAMBLE
    config.latex_elements = elements


def print_edition(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """The LaTeX builder resolves one tree of the whole book, each page in a ``start_of_file``."""
    if app.builder.format != "latex":
        return
    parts = list(doctree.findall(addnodes.start_of_file))
    for part in parts:
        page = part["docname"]
        if page in OMITTED_REFERENCE:
            omit_reference(part)
        elif page in TABLES:
            omit_tables(part, TABLES[page])
        elif page in ONLINE_ONLY:
            omit_online_only(part, ONLINE_ONLY[page])
        elif _is_chapter(page):
            hide_opening_imports(part)
    hide_figure_code(doctree)
    hide_solution_code(doctree)
    if hide_checks(doctree):
        say_checks_are_online(doctree, parts)
    lay_out_tables(doctree)
    unlink_omitted(doctree)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", add_preamble)
    app.connect("doctree-resolved", print_edition)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
