"""Sphinx extension: the course kit, made from the chapters and the exercise bank at build time.

Two directives of the *Course kit* appendix:

``course-plan``
    A week plan: each line of its content is ``week | chapters | topic``, the
    chapters given by their documents (``book/05_bagging_oob``), a part of a
    chapter's exercises as ``book/08_adaboost#1/2`` (the first half of the exercises
    chosen from it). Options ``:kinds:`` (the exercise kinds the course sets, e.g.
    ``proof, derivation``) and ``:levels:`` (the difficulty marks it sets, e.g.
    ``★★ ★★★``) and ``:per-week:`` (at most this many exercises a week) choose the
    exercises from the exercise bank (``_ext/exercise_bank.py``: kind, difficulty,
    self-check), in reading order, the ones with a self-check or answer check first
    when there are more than a week can take. The directive becomes a table: week,
    reading (the chapters, linked, and the topic), exercises (linked, with their kind,
    difficulty and time).

``course-chapter``
    One chapter's part of the kit: its argument is the chapter's document, its
    content the chapter's learning objectives (a Markdown list written by hand from
    the chapter). It becomes the chapter's heading, the objectives, and a slide
    outline generated from the chapter: its key results (the theorems and
    propositions, numbered and titled as in the chapter) and its key figures (number
    and the first sentence of the caption). The build writes the same outline, with
    the objectives and the chapter's exercises by kind, as a Markdown handout per
    chapter, ``course/handout-<chapter>.md`` in the HTML output, linked from the page.

Everything but the objectives and the plans' lines is read from the chapters, so the
kit cannot go out of date. In print the tables and outlines are left to the online
edition (``_ext/print_edition.py``, ``ONLINE_ONLY``).
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

HANDOUTS = "course"  # folder of the handouts in the HTML output
RESULT_KINDS = ("theorem", "proposition", "lemma", "corollary")
SENTENCE_RE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)[.!?](?=\s|$)")


class course_plan_node(nodes.General, nodes.Element):
    """Placeholder replaced by the week table at ``doctree-resolved``."""


class course_outline_node(nodes.General, nodes.Element):
    """Placeholder replaced by a chapter's slide outline at ``doctree-resolved``."""


def _split(value: str) -> list[str]:
    return [v for v in re.split(r"[,\s]+", value or "") if v]


class CoursePlanDirective(SphinxDirective):
    has_content = True
    option_spec = {"kinds": directives.unchanged, "levels": directives.unchanged,
                   "per-week": directives.nonnegative_int}

    def run(self):
        weeks = []
        for line in self.content:
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) != 3:
                raise self.error(f"course-plan: a line is 'week | chapters | topic', got {line!r}")
            week, chapters, topic = parts
            weeks.append({"week": week, "chapters": _split(chapters), "topic": topic})
        node = course_plan_node(classes=["online-only"], weeks=weeks, kinds=_split(self.options.get("kinds", "")),
                                levels=_split(self.options.get("levels", "")),
                                per_week=self.options.get("per-week", 3))
        _depends(self.env)
        return [node]


class CourseChapterDirective(SphinxDirective):
    required_arguments = 1
    has_content = True

    def run(self):
        docname = self.arguments[0]
        container = nodes.container(classes=["course-chapter", "online-only"])
        objectives = nodes.container(classes=["course-objectives"])
        objectives += nodes.rubric(text="Learning objectives")
        self.state.nested_parse(self.content, self.content_offset, objectives)
        container += course_outline_node(docname=docname, heading=True)
        container += objectives
        container += course_outline_node(docname=docname, heading=False)
        kept = getattr(self.env, "course_objectives", {})
        kept[docname] = {"from": self.env.docname, "text": "\n".join(self.content)}
        self.env.course_objectives = kept
        _depends(self.env)
        return [container]


def _depends(env) -> None:
    docs = getattr(env, "course_kit_docs", set())
    docs.add(env.docname)
    env.course_kit_docs = docs


# -- what the chapters say ---------------------------------------------------------------

def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = SENTENCE_RE.search(text)
    return text[:match.end()] if match else text


def _number(env, docname: str, kind: str, label: str) -> str:
    return ".".join(map(str, env.toc_fignumbers.get(docname, {}).get(kind, {}).get(label, ())))


def _outline_of(doctree: nodes.document, env, docname: str) -> dict:
    """The key results and figures of a resolved chapter doctree."""
    results, figures = [], []
    proofs = getattr(env, "proof_list", {})
    for label, entry in proofs.items():
        if entry.get("docname") == docname and entry.get("realtype") in RESULT_KINDS:
            results.append({"label": label, "kind": entry["realtype"], "title": "",
                            "number": _number(env, docname, entry["countertype"], label)})
    titles = {}
    for node in doctree.findall(nodes.Element):
        if node.get("realtype") in RESULT_KINDS and node.get("label"):
            title = node.children[0].astext() if node.children else ""
            titles[node["label"]] = re.sub(r"^\s*\((.*)\)\s*$", r"\1", title).strip()
    for result in results:
        result["title"] = titles.get(result["label"], "")
    results.sort(key=lambda r: [int(x) for x in r["number"].split(".") if x.isdigit()])
    for figure in doctree.findall(nodes.figure):
        ids = [i for i in figure.get("ids", []) if i.startswith("fig-")]
        caption = next(iter(figure.findall(nodes.caption)), None)
        if not ids or caption is None:
            continue
        figures.append({"label": ids[0], "number": _number(env, docname, "figure", ids[0]),
                        "caption": _first_sentence(caption.astext())})
    return {"results": results, "figures": figures}


def outline(app: Sphinx, docname: str) -> dict:
    """A chapter's outline, from the doctree the builder resolved (or resolved now)."""
    kept = app.builder.__dict__.setdefault("course_outlines", {})
    if docname not in kept:
        kept[docname] = _outline_of(app.env.get_and_resolve_doctree(docname, app.builder),
                                    app.env, docname)
    return kept[docname]


def _bank(app: Sphinx) -> list[dict]:
    from exercise_bank import collect

    return [e for e in collect(app) if not e["hidden"]]


# -- the week plan ---------------------------------------------------------------------------

def _chosen(exercises: list[dict], docname: str, node, part: tuple[int, int]) -> list[dict]:
    rows = [e for e in exercises if e["docname"] == docname
            and (not node["kinds"] or set(e["kinds"]) & set(node["kinds"]))
            and (not node["levels"] or e["difficulty"] in node["levels"])]
    index, parts = part
    size = -(-len(rows) // parts) if rows else 0
    return rows[(index - 1) * size:index * size]


def _week_exercises(exercises: list[dict], week: dict, node) -> list[dict]:
    chosen = []
    for ref in week["chapters"]:
        docname, _, part = ref.partition("#")
        index, parts = (int(x) for x in part.split("/")) if part else (1, 1)
        chosen += _chosen(exercises, docname, node, (index, parts))
    checked = [e for e in chosen if e["selfcheck"] or e["answers"]]
    rest = [e for e in chosen if not (e["selfcheck"] or e["answers"])]
    if len(chosen) > node["per_week"]:
        keep = {id(e) for e in (checked + rest)[:node["per_week"]]}
        chosen = [e for e in chosen if id(e) in keep]
    return chosen


def _paragraph(*children: nodes.Node) -> nodes.paragraph:
    para = nodes.paragraph()
    for child in children:
        para += child
    return para


def _entry(*children: nodes.Node) -> nodes.entry:
    entry = nodes.entry()
    for child in children:
        entry += child if isinstance(child, nodes.Element) and not isinstance(
            child, (nodes.reference, nodes.inline, nodes.literal)) else _paragraph(child)
    return entry


def _exercise_ref(app: Sphinx, fromdoc: str, e: dict) -> nodes.Node:
    uri = app.builder.get_relative_uri(fromdoc, e["docname"]) + f"#{e['label']}"
    text = f"Exercise {e['number']}" if e["number"] else e["label"]
    return nodes.reference("", text, internal=True, refuri=uri)


def _chapter_ref(app: Sphinx, fromdoc: str, docname: str) -> nodes.Node:
    from exercise_bank import _chapter_number

    number = _chapter_number(app.env, docname)
    title = app.env.titles[docname].astext() if docname in app.env.titles else docname
    return nodes.reference("", f"{number}. {title}" if number else title, internal=True,
                           refuri=app.builder.get_relative_uri(fromdoc, docname))


def _plan_table(app: Sphinx, fromdoc: str, node, exercises: list[dict]) -> nodes.table:
    table = nodes.table(classes=["course-plan", "online-only"])
    group = nodes.tgroup(cols=3)
    table += group
    for width in (8, 42, 50):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    row = nodes.row()
    for text in ("Week", "Reading", "Exercises"):
        row += _entry(nodes.Text(text))
    head += row
    group += head
    body = nodes.tbody()
    for week in node["weeks"]:
        row = nodes.row()
        row += _entry(nodes.Text(week["week"]))
        reading = nodes.paragraph()
        docs = list(dict.fromkeys(ref.partition("#")[0] for ref in week["chapters"]))
        for i, doc in enumerate(docs):
            if i:
                reading += nodes.Text("; ")
            reading += _chapter_ref(app, fromdoc, doc)
        if week["topic"]:
            reading += nodes.Text(f": {week['topic']}")
        row += _entry(reading)
        items = nodes.bullet_list()
        for e in _week_exercises(exercises, week, node):
            check = " — self-check" if e["selfcheck"] or e["answers"] else ""
            minutes = f", {e['minutes']} min" if e["minutes"] else ""
            items += nodes.list_item("", _paragraph(
                _exercise_ref(app, fromdoc, e),
                nodes.Text(f" ({', '.join(e['kinds'])}, {e['difficulty']}{minutes}{check})")))
        row += _entry(items if items.children else nodes.Text("—"))
        body += row
    group += body
    return table


# -- the outline and the handouts ----------------------------------------------------------

def _outline_nodes(app: Sphinx, fromdoc: str, docname: str, heading: bool) -> list[nodes.Node]:
    if heading:
        title = nodes.rubric(classes=["course-chapter-title"])
        title += _chapter_ref(app, fromdoc, docname)
        return [title]
    data = outline(app, docname)
    out: list[nodes.Node] = [nodes.rubric(text="Slide outline")]
    results = nodes.bullet_list()
    for r in data["results"]:
        uri = app.builder.get_relative_uri(fromdoc, docname) + f"#{r['label']}"
        name = f"{r['kind'].capitalize()} {r['number']}".strip()
        results += nodes.list_item("", _paragraph(
            nodes.reference("", name, internal=True, refuri=uri),
            nodes.Text(f" ({r['title']})" if r["title"] else "")))
    figures = nodes.bullet_list()
    for f in data["figures"]:
        uri = app.builder.get_relative_uri(fromdoc, docname) + f"#{f['label']}"
        figures += nodes.list_item("", _paragraph(
            nodes.reference("", f"Figure {f['number']}".strip(), internal=True, refuri=uri),
            nodes.Text(f": {f['caption']}")))
    out += [_paragraph(nodes.strong(text="Key results.")), results] if results.children else []
    out += [_paragraph(nodes.strong(text="Key figures.")), figures] if figures.children else []
    if app.builder.format == "html":
        handout = _handout_uri(app, fromdoc, docname)
        out.append(_paragraph(nodes.Text("Handout: "), nodes.reference(
            "", f"handout-{Path(docname).name}.md", refuri=handout, classes=["course-handout"]),
            nodes.Text(" (the objectives, this outline and the chapter's exercises, in Markdown).")))
    return out


def _handout_uri(app: Sphinx, fromdoc: str, docname: str) -> str:
    depth = fromdoc.count("/")
    return "../" * depth + f"{HANDOUTS}/handout-{Path(docname).name}.md"


def handout(app: Sphinx, docname: str) -> str:
    """A chapter's handout: objectives, key results and figures, exercises by kind (Markdown)."""
    from exercise_bank import _chapter_number

    env = app.env
    number = _chapter_number(env, docname)
    title = env.titles[docname].astext() if docname in env.titles else docname
    base = (env.config.html_baseurl or "").rstrip("/")
    url = f"{base}/{docname}.html" if base else f"{docname}.html"
    lines = [f"# Chapter {number}. {title}: slide outline", "", f"Read the chapter: <{url}>", ""]
    objectives = getattr(env, "course_objectives", {}).get(docname, {}).get("text", "").strip()
    if objectives:
        lines += ["## Learning objectives", "", objectives, ""]
    data = outline(app, docname)
    if data["results"]:
        lines += ["## Key results", ""]
        lines += [f"- {r['kind'].capitalize()} {r['number']}" + (f": {r['title']}" if r["title"] else "")
                  for r in data["results"]] + [""]
    if data["figures"]:
        lines += ["## Key figures", ""]
        lines += [f"- Figure {f['number']}: {f['caption']}" for f in data["figures"]] + [""]
    rows = [e for e in _bank(app) if e["docname"] == docname]
    if rows:
        lines += ["## Exercises", ""]
        for e in rows:
            name = "".join(n.astext() for n in e["title"]).strip()
            check = "; self-check" if e["selfcheck"] or e["answers"] else ""
            lines.append(f"- Exercise {e['number']} ({', '.join(e['kinds'])}, {e['difficulty']}"
                         f"{check}): {name} (`{e['label']}`)")
        lines.append("")
    return "\n".join(lines)


# -- events ------------------------------------------------------------------------------------

def doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    plans = list(doctree.findall(course_plan_node))
    outlines = list(doctree.findall(course_outline_node))
    if not plans and not outlines:
        if docname.split("/")[-1][:2].isdigit():  # a chapter: keep its outline for the kit
            app.builder.__dict__.setdefault("course_outlines", {})[docname] = \
                _outline_of(doctree, app.env, docname)
        return
    exercises = _bank(app) if plans else []
    for node in plans:
        node.replace_self(_plan_table(app, docname, node, exercises))
    for node in outlines:
        node.replace_self(_outline_nodes(app, docname, node["docname"], node["heading"]))


def build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    chapters = sorted(getattr(app.env, "course_objectives", {}))
    if not chapters:
        return
    folder = Path(app.outdir) / HANDOUTS
    folder.mkdir(parents=True, exist_ok=True)
    for docname in chapters:
        if docname in app.env.found_docs:
            (folder / f"handout-{Path(docname).name}.md").write_text(handout(app, docname),
                                                                      encoding="utf-8")


def env_get_outdated(app, env, added, changed, removed):
    return sorted(getattr(env, "course_kit_docs", set()) - set(removed))


def env_purge_doc(app, env, docname):
    getattr(env, "course_kit_docs", set()).discard(docname)
    kept = getattr(env, "course_objectives", {})
    for chapter in [c for c, entry in kept.items() if entry["from"] == docname]:
        del kept[chapter]


def env_merge_info(app, env, docnames, other):  # pragma: no cover - parallel builds only
    env.course_kit_docs = getattr(env, "course_kit_docs", set()) | getattr(
        other, "course_kit_docs", set())
    env.course_objectives = {**getattr(env, "course_objectives", {}),
                             **getattr(other, "course_objectives", {})}


def setup(app: Sphinx) -> dict:
    app.setup_extension("exercise_bank")
    app.add_node(course_plan_node)
    app.add_node(course_outline_node)
    app.add_directive("course-plan", CoursePlanDirective)
    app.add_directive("course-chapter", CourseChapterDirective)
    app.connect("env-purge-doc", env_purge_doc)
    app.connect("env-get-outdated", env_get_outdated)
    app.connect("env-merge-info", env_merge_info)
    app.connect("doctree-resolved", doctree_resolved)
    app.connect("build-finished", build_finished)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
