"""Sphinx extension: the exercise bank, the student edition and the notebook downloads.

**Exercise bank.** The ``exercise-bank`` directive is replaced, once every chapter
has been read, by a table of all the book's ``sphinx-exercise`` exercises in
reading order: chapter, number and label (linked to the exercise), title, kind
(the exercise's ``:class:``: derivation, proof, coding or experiment), difficulty
(the mark that ends the title: ★, ★★ or ★★★), whether the student can check the
work (the statement calls a self-check of ``ensemble_ref``, ``check_...(``, or the
answer check ``check_answer(``), whether it has per-student variants (a self-check,
which takes the variant's seed as ``random_state``, or an answer check registered
with variant parameters in ``ensembles_verified.answers``), a time estimate
(from the kind and the difficulty, :data:`MINUTES`) and a one-line summary (the
first sentence of the statement). Nothing is typed by hand, so the table cannot go out
of date. The conventions of ``CONTRIBUTING.md`` are checked on every build; a
violation is a warning, which fails the strict build:

* every exercise has an explicit ``:label:``, a difficulty mark ending its title
  and exactly one kind;
* every exercise has a plain ``solution`` (the gated ``solution-start`` /
  ``solution-end`` form is refused: sphinx-exercise's ``hide_solutions`` cannot
  remove it);
* every numbered chapter has at least ``exercise_bank_min_per_chapter`` exercises,
  and at least ``exercise_bank_min_selfchecked`` coding exercises with a self-check;
* every ``check_answer("label", ...)`` in a statement names its own exercise and a
  question registered in ``ensembles_verified.answers``, and every registered
  question belongs to an exercise of the book.

**Student edition.** With sphinx-exercise's ``hide_solutions = True`` (as set by
``tools/build_student.py``) the solutions are never parsed, so they are absent
from the pages and the search index. This extension then also

* keeps the Binder/Colab launch buttons, which open the student notebooks
  (``_ext/reader_edition.py`` points them at the ``student-notebooks`` branch),
  removes the edit button (it opens the repository's sources, which contain the
  solutions) and marks the title as the student edition;
* replaces the downloadable sources of every chapter (``_sources/<page>.md`` and
  ``_sources/<page>.ipynb``) by their student versions, made by
  ``tools/student_notebooks.py``.

**Notebook downloads.** Every chapter page offers its ``.ipynb`` in the download
menu: the chapter's reader notebook (``_ext/reader_edition.py``: numbers filled in,
references resolved, no MyST markup; what the Colab and Binder buttons open) is
copied to ``_sources/`` and linked from the page; the student edition offers the
reader notebook without solutions.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

KINDS = ("derivation", "proof", "coding", "experiment")
# Time estimate in minutes, by kind and difficulty (stated on the instructors page).
MINUTES = {"derivation": {"★": 10, "★★": 20, "★★★": 40},
           "proof": {"★": 15, "★★": 30, "★★★": 45},
           "coding": {"★": 15, "★★": 30, "★★★": 60},
           "experiment": {"★": 20, "★★": 40, "★★★": 60}}
SELFCHECK_RE = re.compile(r"\bcheck_(?!answer\b)[a-z_]+\(")
ANSWER_RE = re.compile(r"\bcheck_answer\(\s*[\"']([^\"']+)[\"']")
DIFFICULTY_RE = re.compile(r"\s*\((★{1,3})\)\s*$")
GATED_RE = re.compile(r"^[ \t]*(?::{3,}|`{3,})\{(?:solution|exercise)-(?:start|end)\}", re.M)
# A full stop, question or exclamation mark that ends a sentence (not "e.g." or "i.e.").
SENTENCE_END_RE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)[.!?]")


class exercise_bank_node(nodes.General, nodes.Element):
    """Placeholder replaced by the exercise table at ``doctree-resolved``."""


class ExerciseBankDirective(SphinxDirective):
    has_content = False

    def run(self):
        docs = getattr(self.env, "exercise_bank_docs", set())
        docs.add(self.env.docname)
        self.env.exercise_bank_docs = docs
        return [exercise_bank_node()]


# -- collecting the exercises --------------------------------------------------------

def _doc_order(env) -> list[str]:
    """Documents in reading order: depth first through the toctrees from the root."""
    order, seen = [], set()

    def visit(doc: str) -> None:
        if doc in seen:
            return
        seen.add(doc)
        order.append(doc)
        for child in env.toctree_includes.get(doc, []):
            visit(child)

    visit(env.config.root_doc)
    return order + sorted(set(env.found_docs) - seen)


def _registry(env) -> dict:
    return getattr(env, "sphinx_exercise_registry", {})


def _number(env, docname: str, label: str) -> str:
    number = env.toc_fignumbers.get(docname, {}).get("exercise", {}).get(label, ())
    return ".".join(map(str, number))


def _chapter_number(env, docname: str) -> str:
    return ".".join(map(str, env.toc_secnumbers.get(docname, {}).get("", ())))


def _subtitle(node) -> nodes.Element | None:
    from sphinx_exercise.nodes import exercise_subtitle

    title = node.children[0] if node.children else None
    for child in (title.children if title is not None else []):
        if isinstance(child, exercise_subtitle):
            return child
    return None


def _title_and_difficulty(node) -> tuple[list[nodes.Node], str]:
    """The title's nodes without the difficulty mark, and the mark (``""`` if none)."""
    subtitle = _subtitle(node)
    if subtitle is None:
        return [], ""
    children = [_plain(child) for child in subtitle.children]
    difficulty = ""
    if children and isinstance(children[-1], nodes.Text):
        match = DIFFICULTY_RE.search(str(children[-1]))
        if match:
            difficulty = match.group(1)
            rest = str(children[-1])[:match.start()]
            children[-1] = nodes.Text(rest)
            if not rest:
                children.pop()
    return children, difficulty


def _plain(node: nodes.Node) -> nodes.Node:
    """A copy of ``node`` without links (they would point from the wrong page)."""
    if isinstance(node, nodes.Text):
        return nodes.Text(str(node).replace("\n", " "))
    if isinstance(node, (nodes.reference, addnodes.pending_xref, nodes.target)):
        return nodes.inline("", "", *[_plain(c) for c in node.children])
    copy = node.copy()  # shallow: children are added below
    for child in node.children:
        copy += _plain(child)
    return copy


def _first_sentence(paragraph: nodes.paragraph) -> nodes.paragraph:
    """The first sentence of a paragraph, keeping its math and inline markup."""
    out = nodes.paragraph()
    children = list(paragraph.children)
    for i, child in enumerate(children):
        if not isinstance(child, nodes.Text):
            out += _plain(child)
            continue
        text = str(child).replace("\n", " ")
        for match in SENTENCE_END_RE.finditer(text):
            end = match.end()
            last = i == len(children) - 1
            nxt = children[i + 1] if not last else None
            if (end < len(text) and text[end].isspace()) or (end == len(text) and (
                    last or (isinstance(nxt, nodes.Text) and str(nxt)[:1].isspace()))):
                out += nodes.Text(text[:end])
                return out
        out += nodes.Text(text)
    if not out.astext().rstrip().endswith((".", "?", "!", ":")):
        out += nodes.Text(" \u2026")  # the sentence goes on past the paragraph (a display formula)
    return out


def _first_sentences(doctree: nodes.Node) -> dict[str, nodes.paragraph]:
    """Label -> first sentence of the statement, for every exercise in a resolved doctree."""
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

    found: dict[str, nodes.paragraph] = {}
    for node in doctree.findall(lambda n: isinstance(n, (exercise_enumerable_node,
                                                         exercise_node))):
        for paragraph in node.findall(nodes.paragraph):
            if not any(isinstance(p, nodes.title) for p in _ancestors(paragraph)):
                for label in node.get("ids", []):
                    found.setdefault(label, _first_sentence(paragraph))
                break
    return found


def _summaries(app: Sphinx, doctree: nodes.document, exercises: list[dict]) -> dict:
    """The first sentence of each of ``exercises``, from their chapters' resolved doctrees.

    A chapter's doctree is resolved anyway when its page is written, and
    ``doctree_resolved`` keeps its exercises' first sentences then (link-free copies),
    so the table does not resolve every chapter a second time. The LaTeX builder's
    single document holds every chapter already; a chapter not yet written (an
    incremental build) is resolved here.
    """
    found = _first_sentences(doctree)
    kept = getattr(app.builder, "exercise_sentences", {})
    for docname in dict.fromkeys(e["docname"] for e in exercises if e["label"] not in found):
        found.update(kept[docname] if docname in kept else
                     _first_sentences(app.env.get_and_resolve_doctree(docname, app.builder)))
    return found


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


def _statement_text(node) -> str:
    """The exercise's text, code blocks included (its title excluded)."""
    return "\n".join(child.astext() for child in node.children[1:]) if node.children else ""


def _questions() -> dict:
    """The registered answer checks (``ensembles_verified.answers.QUESTIONS``)."""
    try:
        from ensembles_verified.answers import QUESTIONS
    except ImportError:  # pragma: no cover - the book always has ensemble_ref
        return {}
    return QUESTIONS


def collect(app: Sphinx) -> list[dict]:
    """Every exercise of the book, in reading order, with what the table shows."""
    env = app.env
    registry = _registry(env)
    solved = {entry["node"].get("target_label") for entry in registry.values()
              if entry["type"] in ("solution", "solution-start")}
    position = {doc: i for i, doc in enumerate(_doc_order(env))}
    exercises = []
    for label, entry in registry.items():
        if entry["type"] not in ("exercise", "exercise-start"):
            continue
        node, docname = entry["node"], entry["docname"]
        title, difficulty = _title_and_difficulty(node)
        kinds = [c for c in node.get("classes", []) if c in KINDS]
        text = _statement_text(node)
        answers = ANSWER_RE.findall(text)
        questions = _questions()
        question = questions.get(label)
        exercises.append({
            "selfcheck": bool(SELFCHECK_RE.search(text)), "answers": answers,
            "variants": bool(SELFCHECK_RE.search(text))
            or bool(question is not None and question.draw is not None and label in answers),
            "minutes": MINUTES.get(kinds[0] if len(kinds) == 1 else "", {}).get(difficulty),
            "label": label, "docname": docname, "node": node,
            "number": _number(env, docname, label), "title": title,
            "difficulty": difficulty, "kinds": kinds,
            "explicit_label": not label.startswith(f"{docname}-exercise-"),
            "solved": label in solved, "hidden": bool(node.get("hidden")),
            "serial": node.get("serial_number", 0),
        })
    exercises.sort(key=lambda e: (position.get(e["docname"], 1e9), e["serial"]))
    return exercises


# -- checks ---------------------------------------------------------------------------

def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    for match in GATED_RE.finditer(source[0]):
        line = source[0][:match.start()].count("\n") + 1
        logger.warning("exercise bank: gated %r found; use the plain exercise and solution "
                       "directives (the student build cannot remove gated solutions)",
                       match.group(0).strip(), location=(docname, line))


def check_consistency(app: Sphinx, env) -> None:
    exercises = collect(app)
    hide = app.config.hide_solutions
    for e in exercises:
        where = (e["docname"], e["node"].line)
        name = e["label"]
        if not e["explicit_label"]:
            logger.warning("exercise bank: an exercise has no :label:", location=where)
        if not e["difficulty"]:
            logger.warning("exercise bank: exercise %s: the title must end with a difficulty "
                           "mark, (★), (★★) or (★★★)", name, location=where)
        if len(e["kinds"]) != 1:
            logger.warning("exercise bank: exercise %s: :class: must name exactly one kind "
                           "of %s, got %s", name, ", ".join(KINDS), e["kinds"] or "none",
                           location=where)
        if not hide and not e["solved"]:
            logger.warning("exercise bank: exercise %s has no solution directive", name,
                           location=where)
        for asked in e["answers"]:
            if asked != name or asked not in _questions():
                logger.warning("exercise bank: exercise %s calls check_answer(%r, ...), which is "
                               "not a question registered for this exercise in "
                               "ensembles_verified.answers", name, asked, location=where)
    minimum = app.config.exercise_bank_min_per_chapter
    min_checked = app.config.exercise_bank_min_selfchecked
    counts, checked = {}, {}
    for e in exercises:
        counts[e["docname"]] = counts.get(e["docname"], 0) + 1
        if e["selfcheck"] and e["kinds"] == ["coding"]:
            checked[e["docname"]] = checked.get(e["docname"], 0) + 1
    for docname in _doc_order(env):
        if not env.toc_secnumbers.get(docname, {}).get(""):
            continue
        if counts.get(docname, 0) < minimum:
            logger.warning("exercise bank: chapter %s has %d exercises; at least %d are "
                           "required", docname, counts.get(docname, 0), minimum,
                           location=docname)
        if counts.get(docname, 0) and checked.get(docname, 0) < min_checked:
            logger.warning("exercise bank: chapter %s has %d self-checked coding exercises; at "
                           "least %d are required", docname, checked.get(docname, 0),
                           min_checked, location=docname)
    labels = {e["label"] for e in exercises}
    for label in sorted(set(_questions()) - labels):
        if exercises:  # a synthetic book without the chapters checks nothing here
            logger.warning("exercise bank: the answer check %r of ensembles_verified.answers "
                           "belongs to no exercise", label)


def env_get_outdated(app, env, added, changed, removed):
    # The bank depends on every chapter: always rebuild its pages.
    return sorted(getattr(env, "exercise_bank_docs", set()) - set(removed))


def env_purge_doc(app, env, docname):
    getattr(env, "exercise_bank_docs", set()).discard(docname)


def env_merge_info(app, env, docnames, other):  # pragma: no cover - parallel builds only
    env.exercise_bank_docs = getattr(env, "exercise_bank_docs", set()) | getattr(
        other, "exercise_bank_docs", set())


# -- the table ------------------------------------------------------------------------

def _entry(*children: nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    para = nodes.paragraph()
    for child in children:
        para += child
    entry += para
    return entry


def doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(exercise_bank_node))
    if not placeholders:
        # docname -> label -> first sentence, kept by the builder (as lean_doctrees' pages)
        app.builder.__dict__.setdefault("exercise_sentences", {})[docname] = \
            _first_sentences(doctree)
        return
    env = app.env
    exercises = [e for e in collect(app) if not e["hidden"]]
    chapters = list(dict.fromkeys(e["docname"] for e in exercises))
    per_kind = {k: sum(k in e["kinds"] for e in exercises) for k in KINDS}
    per_level = {s: sum(e["difficulty"] == s for e in exercises) for s in ("★", "★★", "★★★")}
    summary_text = (
        f"{len(exercises)} exercises in {len(chapters)} chapters: "
        + ", ".join(f"{n} {k}" for k, n in per_kind.items())
        + "; difficulty " + ", ".join(f"{s} {n}" for s, n in per_level.items()) + "; "
        + f"{sum(e['selfcheck'] or bool(e['answers']) for e in exercises)} with a self-check, "
        + f"{sum(e['variants'] for e in exercises)} with variants.")
    if not app.config.hide_solutions:
        summary_text += f" {sum(e['solved'] for e in exercises)} have a worked solution."

    output: list[nodes.Node] = [nodes.paragraph(text=summary_text)]
    sentences = _summaries(app, doctree, exercises)
    for chapter in chapters:
        rows = [e for e in exercises if e["docname"] == chapter]
        uri = app.builder.get_relative_uri(docname, chapter)
        number = _chapter_number(env, chapter)
        title = env.titles[chapter].astext()
        heading = nodes.rubric(classes=["exercise-bank-chapter"])
        heading += nodes.reference("", f"{number}. {title}" if number else title,
                                   internal=True, refuri=uri)
        heading += nodes.Text(f" ({len(rows)} exercises)")
        output += [heading, _table(uri, rows, sentences)]
    if any(True for node in output for _ in node.findall(nodes.math)):
        # MathJax is loaded only on pages known to contain formulas.
        env.get_domain("math").data["has_equations"][docname] = True
    for node in placeholders:
        node.replace_self([n.deepcopy() for n in output])


def _table(uri: str, rows: list[dict], sentences: dict) -> nodes.table:
    """One chapter's exercises: number (linked), title and label, kind, difficulty,
    self-check, variants, time and summary."""
    table = nodes.table(classes=["exercise-bank", "colwidths-given"])
    headers = ["Exercise", "Title", "Kind", "Difficulty", "Self-check", "Variants", "Time",
               "Summary"]
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in (8, 22, 10, 8, 8, 8, 7, 29):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for h in headers:
        row += _entry(nodes.Text(h))
    head += row
    group += head
    body = nodes.tbody()
    for e in rows:
        row = nodes.row(ids=[f"bank-{e['label']}"])
        row += _entry(nodes.reference("", e["number"] or "–", internal=True,
                                      refuri=f"{uri}#{e['label']}"))
        title = _entry(*e["title"])
        label = nodes.paragraph(classes=["exercise-bank-label"])
        label += nodes.literal(text=e["label"])
        title += label
        row += title
        row += _entry(nodes.Text(", ".join(e["kinds"])))
        row += _entry(nodes.Text(e["difficulty"]))
        check = [k for k, on in (("code", e["selfcheck"]), ("answer", bool(e["answers"]))) if on]
        row += _entry(nodes.Text("yes (" + ", ".join(check) + ")" if check else "no"))
        row += _entry(nodes.Text("yes" if e["variants"] else "no"))
        row += _entry(nodes.Text(f"{e['minutes']} min" if e["minutes"] else "–"))
        entry = nodes.entry()
        entry += sentences.get(e["label"], nodes.paragraph()).deepcopy()
        row += entry
        body += row
    group += body
    return table


# -- student edition and notebook downloads ------------------------------------------

def _student_tools(app: Sphinx):
    path = Path(app.srcdir) / "tools" / "student_notebooks.py"
    spec = importlib.util.spec_from_file_location("_student_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def config_inited(app: Sphinx, config) -> None:
    if not config.hide_solutions:
        return
    options = dict(config.html_theme_options or {})
    options["use_edit_page_button"] = False  # the repository's sources hold the solutions
    config.html_theme_options = options
    config.html_title = f"{config.html_title} (student edition)"


def _paired_notebook(app: Sphinx, docname: str) -> Path | None:
    source = Path(app.env.doc2path(docname))
    if source.suffix != ".md" or not source.with_suffix(".ipynb").is_file():
        return None
    if "format_name: myst" not in source.read_text(encoding="utf-8")[:400]:
        return None
    return source.with_suffix(".ipynb")


def html_page_context(app: Sphinx, pagename, templatename, context, doctree) -> None:
    # Runs before sphinx-book-theme builds its download menu (priority 501).
    if pagename in app.env.found_docs and _paired_notebook(app, pagename) is not None:
        context["ipynb_source"] = pagename + ".ipynb"


def build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import nbformat
    from reader_edition import collect_refs, tools_module

    sources = Path(app.outdir) / "_sources"
    tools = _student_tools(app) if app.config.hide_solutions else None
    reader = Path(app.outdir).parent / "reader" / "notebooks"
    refs = collect_refs(app) if tools is not None else None
    for docname in sorted(app.env.found_docs):
        paired = _paired_notebook(app, docname)
        if paired is None:
            continue
        target = sources / f"{docname}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        if tools is None:  # the reader notebook (_ext/reader_edition.py), else the paired one
            made = reader / f"{docname}.ipynb"
            shutil.copyfile(made if made.is_file() else paired, target)
            continue
        source = Path(app.env.doc2path(docname))
        nb = tools_module(app, "reader_notebooks").reader_notebook(
            tools.student_notebook(source), refs, docname, student=True)
        nbformat.write(nb, target)
        text = tools.student_markdown(source.read_text(encoding="utf-8"))
        (sources / f"{docname}.md").write_text(text, encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_exercise")  # its registry, numbering and hide_solutions
    app.add_config_value("exercise_bank_min_per_chapter", 4, "env", [int])
    app.add_config_value("exercise_bank_min_selfchecked", 2, "env", [int])
    app.add_node(exercise_bank_node)
    app.add_directive("exercise-bank", ExerciseBankDirective)
    app.connect("config-inited", config_inited, priority=900)
    app.connect("source-read", source_read)
    app.connect("env-purge-doc", env_purge_doc)
    app.connect("env-get-outdated", env_get_outdated)
    app.connect("env-merge-info", env_merge_info)
    app.connect("env-check-consistency", check_consistency)
    app.connect("doctree-resolved", doctree_resolved)
    app.connect("html-page-context", html_page_context, priority=500)
    app.connect("build-finished", build_finished)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
