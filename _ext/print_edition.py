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
  chapter's seed, is not printed (its outputs, if any, are).
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

OMITTED_REFERENCE = ("book/appendix/api_core", "book/appendix/api_math", "book/appendix/api_trees",
                     "book/appendix/api_ensembles", "book/appendix/api_runtime")
TABLES = {"book/appendix/claims_ledger": "The table of every check is in the online edition.",
          "book/appendix/execution": "The table of the chapters' execution times is in the online edition."}
IN_PRINT = "In print, this part of the API reference is left out: it is in the online edition."


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


def print_edition(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """The LaTeX builder resolves one tree of the whole book, each page in a ``start_of_file``."""
    if app.builder.format != "latex":
        return
    for part in list(doctree.findall(addnodes.start_of_file)):
        page = part["docname"]
        if page in OMITTED_REFERENCE:
            omit_reference(part)
        elif page in TABLES:
            omit_tables(part, TABLES[page])
        elif page.startswith("book/") and page.split("/")[-1][:2].isdigit():
            hide_opening_imports(part)
    unlink_omitted(doctree)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", print_edition)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
