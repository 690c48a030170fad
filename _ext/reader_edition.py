"""Sphinx extension: what the reader sees, made from the chapters at build time.

The chapters stay as they are written; this extension changes only what is built
from them.

**Prose before plumbing.** Every code cell is folded behind a "Show code" toggle
(myst-nb's ``hide-input``, set on the parsed cell, so the execution cache is not
affected). A cell stays open when the chapter tags it ``lesson`` (or
``show-input``); cells tagged ``hide-*`` or ``remove-*`` keep their own setting.

**No internal names.** An inline literal that is an equation label
(``eq-bagging-average``, as written in the package's docstrings and in the API
page) becomes a numbered link to the equation, e.g. (4.1); a literal in a
docstring that holds TeX (``\\hat f_b(x)``) becomes a formula. A
cross-reference whose text is a section title with a formula (``{ref}`` to
"The split gain and $\\tau$") shows the title with its formula typeset, not
its TeX source.

**Reader notebooks.** When the HTML is written, every chapter is converted into a
notebook that reads like the book (``tools/reader_notebooks.py``): glued numbers
filled in, theorem and exercise boxes as Markdown, references resolved to their
numbers, no MyST syntax; code cells unchanged. The resolved references are
written to ``_build/reader/refs.json`` (the student notebooks use them), the
notebooks to ``_build/reader/notebooks/book/`` (published on the repository's
``reader-notebooks`` branch, which the Binder and Colab buttons open) and to the
page's download menu (``_sources/<page>.ipynb``). The student edition's buttons
open the student notebooks instead (the same notebooks without the solutions,
``tools/reader_notebooks.py --student --branch``), published on the
``student-notebooks`` branch by the same workflow.

**Figures have alt text.** A figure image without ``alt`` gets its caption's text.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

EQ_LABEL_RE = re.compile(r"^eq-[A-Za-z0-9_-]+$")
TEX_LITERAL_RE = re.compile(r"``([^`\n]*\\[A-Za-z]+[^`\n]*)``")
TEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
SHOWN_TAGS = {"lesson", "show-input"}
READER_BRANCH = "reader-notebooks"
STUDENT_BRANCH = "student-notebooks"  # the student notebooks: what the student edition opens


def tools_module(app: Sphinx, name: str):
    path = Path(app.srcdir) / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- folding code ---------------------------------------------------------------------

def fold_code_cells(app: Sphinx, doctree: nodes.document) -> None:
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code" or cell.get("hide_mode"):
            continue
        if not cell.children or cell.children[0].get("nb_element") != "cell_code_source":
            continue  # the source is removed (remove-input): nothing to fold
        tags = set((cell.get("cell_metadata") or {}).get("tags", []))
        if tags & SHOWN_TAGS:
            continue
        cell["hide_mode"] = "input"
        cell["prompt_show"] = "Show code"
        cell["prompt_hide"] = "Hide code"


# -- equation labels and TeX in docstrings ------------------------------------------

def docstring_math(app, what, name, obj, options, lines: list[str]) -> None:
    """``\\hat f_b(x)`` written as a literal in a docstring becomes :math:."""
    for i, line in enumerate(lines):
        lines[i] = TEX_LITERAL_RE.sub(lambda m: f":math:`{m.group(1)}`", line)


def book_equation_labels(srcdir: str) -> set[str]:
    """The labels of the numbered equations in the book's sources."""
    labels = set()
    for path in (Path(srcdir) / "book").rglob("*.md"):
        text = path.read_text(encoding="utf-8")
        labels.update(re.findall(r"\$\$[ \t]*\((eq-[A-Za-z0-9_-]+)\)", text))
        labels.update(re.findall(r"^[ \t]*:label:[ \t]*(eq-[A-Za-z0-9_-]+)", text, re.M))
    return labels


def equation_literals(app: Sphinx, doctree: nodes.document) -> None:
    """A literal ``eq-name`` becomes a reference to the equation (its number)."""
    if not hasattr(app, "reader_equation_labels"):
        app.reader_equation_labels = book_equation_labels(app.srcdir)
    for literal in list(doctree.findall(nodes.literal)):
        text = literal.astext()
        if not EQ_LABEL_RE.match(text) or text not in app.reader_equation_labels:
            continue
        if isinstance(literal.parent, nodes.reference):
            continue
        if isinstance(literal.parent, (nodes.literal_block, addnodes.desc_signature)):
            continue
        xref = addnodes.pending_xref("", nodes.Text(text), refdomain="math", reftype="eq",
                                    reftarget=text, refexplicit=False, refwarn=False,
                                    refdoc=app.env.docname, reader_literal=True)
        literal.replace_self(xref)


def unknown_equation_literal(app, env, node, contnode):
    """A literal naming an equation the book does not have stays as it was (listed by the test)."""
    if node.get("reader_literal"):
        missing = getattr(env, "reader_missing_equations", set())
        missing.add((node.get("refdoc"), node["reftarget"]))
        env.reader_missing_equations = missing
        return nodes.literal(text=node["reftarget"])
    return None


def section_titles_with_math(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """A reference that shows a section title as TeX source shows the formatted title."""
    std = app.env.get_domain("std")
    titles = {}
    for label, (doc, labelid, sectname) in std.labels.items():
        if sectname and TEX_COMMAND_RE.search(str(sectname)):
            titles[(doc, labelid)] = str(sectname)
    if not titles:
        return
    for ref in list(doctree.findall(nodes.reference)):
        text = ref.astext()
        if not TEX_COMMAND_RE.search(text) or ref.next_node(nodes.math) is not None:
            continue
        target_doc = docname
        uri = ref.get("refuri", "")
        anchor = ref.get("refid") or (uri.split("#", 1)[1] if "#" in uri else "")
        if uri and not uri.startswith("#"):
            page = uri.split("#", 1)[0]
            target_doc = _doc_of_uri(app, docname, page)
        if (target_doc, anchor) not in titles:
            continue
        title = _section_title(app, target_doc, anchor)
        if title is None:
            continue
        inner = ref.children[0] if len(ref.children) == 1 and isinstance(
            ref.children[0], nodes.inline) else ref
        inner.children = []
        for child in title.children:
            inner += _unlinked(child.deepcopy())


def _doc_of_uri(app: Sphinx, fromdoc: str, page: str) -> str:
    import posixpath

    base = posixpath.dirname(fromdoc)
    path = posixpath.normpath(posixpath.join(base, page))
    suffix = app.builder.out_suffix if hasattr(app.builder, "out_suffix") else ".html"
    return path[:-len(suffix)] if path.endswith(suffix) else path


def _section_title(app: Sphinx, docname: str, anchor: str):
    """The title node (read-only) of the section ``anchor`` of the page ``docname``."""
    from lean_doctrees import page_to_look_up

    try:
        tree = page_to_look_up(app.builder, app.env, docname)
    except Exception:  # pragma: no cover - an unknown document
        return None
    for section in tree.findall(nodes.section):
        if anchor in section.get("ids", []):
            return section.next_node(nodes.title)
    return None


def _markdown_title(title: nodes.Node) -> str:
    """A title as Markdown text: its formulas between dollars, not as bare TeX."""
    parts = []
    for node in title.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(node, nodes.math):
            parts.append(f"${node.astext()}$")
        elif not any(isinstance(a, nodes.math) for a in _ancestors(node)):
            parts.append(node.astext())
    return "".join(parts)


def _unlinked(node: nodes.Node) -> nodes.Node:
    if isinstance(node, (nodes.reference, addnodes.pending_xref)):
        return nodes.inline("", "", *[_unlinked(c) for c in node.children])
    for i, child in enumerate(list(node.children) if isinstance(node, nodes.Element) else []):
        node.children[i] = _unlinked(child)
        node.children[i].parent = node
    return node


def figure_alt_text(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for figure in doctree.findall(nodes.figure):
        caption = figure.next_node(nodes.caption)
        text = " ".join(caption.astext().split()) if caption is not None else ""
        for image in figure.findall(nodes.image):
            if not image.get("alt") and text:
                image["alt"] = text
    for image in doctree.findall(nodes.image):  # an output image with no figure around it
        if not image.get("alt"):
            image["alt"] = "Figure made by the code above"


# -- reader notebooks ------------------------------------------------------------------

def collect_refs(app: Sphinx) -> dict:
    """Everything the conversion needs to resolve a chapter's references, as JSON data."""
    env = app.env
    std = env.get_domain("std")
    labels: dict[str, dict] = {}
    for docname, kinds in env.toc_fignumbers.items():
        for kind, numbers in kinds.items():
            for node_id, number in numbers.items():
                label = node_id[len("equation-"):] if kind == "displaymath" else node_id
                labels[label] = {"doc": docname, "id": node_id,
                                 "kind": "equation" if kind == "displaymath" else kind,
                                 "number": ".".join(map(str, number))}
    for label, (docname, labelid, sectname) in std.labels.items():
        entry = labels.setdefault(label, {"doc": docname, "id": labelid, "kind": "section"})
        if sectname:
            entry["title"] = str(sectname)
            if TEX_COMMAND_RE.search(str(sectname)):  # "\gamma: ..." -> "$\gamma$: ..."
                title = _section_title(app, docname, labelid)
                if title is not None:
                    entry["title"] = _markdown_title(title)
    for label, data in getattr(env, "sphinx_exercise_registry", {}).items():
        if label in labels:
            labels[label]["kind"] = data.get("type", labels[label]["kind"])
    docs = {}
    for docname in env.found_docs:
        number = env.toc_secnumbers.get(docname, {}).get("", ())
        docs[docname] = {"title": env.titles[docname].astext() if docname in env.titles else
                         docname, "number": ".".join(map(str, number))}
    glue: dict[str, dict] = {}
    execute = Path(app.outdir).parent / "jupyter_execute"
    for path in execute.rglob("*.glue.json"):
        docname = path.relative_to(execute).as_posix()[:-len(".glue.json")]
        data = json.loads(path.read_text(encoding="utf-8"))
        glue[docname] = {name: out.get("data", {}).get("text/plain", "")
                         for name, out in data.items()}
    return {"baseurl": app.config.html_baseurl, "labels": labels, "docs": docs, "glue": glue,
            "bib": _bibliography(app), "version": app.config.release}


def _bibliography(app: Sphinx) -> dict:
    import pybtex.database

    entries = {}
    for name in app.config.bibtex_bibfiles:
        data = pybtex.database.parse_file(str(Path(app.srcdir) / name))
        for key, entry in data.entries.items():
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            last = [" ".join(p.last_names) for p in people]
            short = (last[0] if len(last) == 1 else f"{last[0]} and {last[1]}" if len(last) == 2
                     else f"{last[0]} et al." if last else key)
            fields = entry.fields
            where = fields.get("journal") or fields.get("booktitle") or fields.get("publisher", "")
            full = ", ".join(str(p) for p in people)
            full = f"{full.rstrip('.')}. {fields.get('title', '')}. {where}, {fields.get('year', '')}."
            entries[key] = {"short": _latex_plain(short), "year": fields.get("year", ""),
                            "full": _latex_plain(full).replace(". .", ".")}
    return entries


def _latex_plain(text: str) -> str:
    try:
        import latexcodec  # noqa: F401

        text = text.encode("latin-1", "ignore").decode("latex") if "\\" in text else text
    except Exception:  # pragma: no cover
        pass
    return text.replace("{", "").replace("}", "").replace("--", "–")


def reader_sources(app: Sphinx):
    """(docname, .md path) of every chapter that is a MyST notebook."""
    for docname in sorted(app.env.found_docs):
        source = Path(app.env.doc2path(docname))
        if source.suffix == ".md" and "format_name: myst" in source.read_text(
                encoding="utf-8")[:400]:
            yield docname, source


def write_reader_notebooks(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import nbformat

    tools = tools_module(app, "reader_notebooks")
    refs = collect_refs(app)
    build = Path(app.outdir).parent
    student = bool(app.config.hide_solutions)
    reader = build / "reader"
    if not student:
        reader.mkdir(parents=True, exist_ok=True)
        (reader / "refs.json").write_text(json.dumps(refs, indent=1, sort_keys=True),
                                          encoding="utf-8")
    for docname, source in reader_sources(app):
        if student:
            continue  # the student edition's downloads are written by exercise_bank
        nb = tools.reader_notebook(source, refs, docname)
        target = reader / "notebooks" / f"{docname}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)


def accessible_html(app: Sphinx, exception) -> None:
    """docutils marks the bibliography ``role="list"`` without list items (an ARIA error)."""
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        fixed = text.replace('<div role="list" class="citation-list">', '<div class="citation-list">')
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


def launch_buttons(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """The Binder and Colab buttons open the reader notebook of the page (in the student
    edition, its student notebook)."""
    branch = STUDENT_BRANCH if app.config.hide_solutions else READER_BRANCH
    buttons = context.get("header_buttons") or []
    for group in buttons:
        for item in group.get("buttons", []) if isinstance(group, dict) else []:
            url = item.get("url", "")
            if item.get("text") == "Binder" and "/v2/gh/" in url:
                item["url"] = re.sub(r"(/v2/gh/[^/]+/[^/]+/)[^?]+", rf"\g<1>{branch}", url)
            elif item.get("text") == "Colab" and "/blob/" in url:
                item["url"] = re.sub(r"/blob/[^/]+/", f"/blob/{branch}/", url)


def latex_numbering(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """In the PDF only the chapters the HTML numbers are numbered (front matter and
    appendices are not), so chapter, equation, figure and theorem numbers match."""
    if app.builder.format != "latex":
        return
    # the root page (its sections come first) is not numbered in the HTML
    doctree.insert(0, nodes.raw("", "\\setcounter{secnumdepth}{-1}\n", format="latex"))
    numbered_before, first = False, True
    for start in list(doctree.findall(addnodes.start_of_file)):
        doc = start.get("docname")
        numbered = bool(app.env.toc_secnumbers.get(doc, {}).get(""))
        if numbered != numbered_before:
            depth = 2 if numbered else -1
            reset = "\\setcounter{chapter}{0}" if numbered and first else ""
            first = first and not numbered
            start.insert(0, nodes.raw("", f"\\setcounter{{secnumdepth}}{{{depth}}}{reset}\n",
                                      format="latex"))
            numbered_before = numbered
    # sphinx-exercise labels an exercise "exercise:<label>" in LaTeX, while references to
    # it (from its solution) point at "<doc>:<label>": give it that label too.
    from sphinx_exercise.nodes import exercise_enumerable_node

    for exercise in list(doctree.findall(exercise_enumerable_node)):
        registry = getattr(app.env, "sphinx_exercise_registry", {})
        for label in exercise.get("ids", []):
            doc = registry.get(label, {}).get("docname", docname)
            exercise.insert(0, nodes.raw(
                "", f"\\phantomsection\\label{{\\detokenize{{{doc}:{label}}}}}", format="latex"))


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", fold_code_cells)
    app.connect("doctree-read", equation_literals)
    app.connect("autodoc-process-docstring", docstring_math)
    app.connect("missing-reference", unknown_equation_literal)
    app.connect("doctree-resolved", section_titles_with_math)
    app.connect("doctree-resolved", figure_alt_text)
    app.connect("doctree-resolved", latex_numbering)
    app.connect("html-page-context", launch_buttons, priority=600)
    app.connect("build-finished", write_reader_notebooks, priority=400)
    app.connect("build-finished", accessible_html)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
