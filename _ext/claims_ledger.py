"""Sphinx extension: the generated *Claims ledger*.

Every chapter records its checked claims through :class:`ensemble_ref.Claims`.
During the build this extension points the environment variable
``ENSEMBLES_VERIFIED_LEDGER`` at ``_build/claims`` before any notebook is
executed, so each executed chapter writes ``<chapter>.jsonl`` there. The
``claims-ledger`` directive is replaced, after every chapter has been read
(and executed), by a table of all recorded claims.

A chapter whose source opens a ``Claims("...")`` ledger but left no record
(for example because its record was deleted while the execution cache was
kept) produces a warning, which fails a strict build.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ensembles_verified.claims import LEDGER_ENV, MODE_ENV

logger = logging.getLogger(__name__)
CLAIMS_RE = re.compile(r"""Claims\(\s*["']([^"']+)["']""")


class claims_ledger_node(nodes.General, nodes.Element):
    """Placeholder replaced by the ledger table at ``doctree-resolved``."""


class ClaimsLedgerDirective(SphinxDirective):
    has_content = False

    def run(self):
        self.env.claims_ledger_docs = getattr(self.env, "claims_ledger_docs", set())
        self.env.claims_ledger_docs.add(self.env.docname)
        return [claims_ledger_node()]


def _ledger_dir(app: Sphinx) -> Path:
    return Path(app.outdir).parent / "claims"


def builder_inited(app: Sphinx) -> None:
    folder = _ledger_dir(app)
    folder.mkdir(parents=True, exist_ok=True)
    os.environ[LEDGER_ENV] = str(folder)  # inherited by every notebook kernel
    os.environ[MODE_ENV] = "strict"  # the build stops at a failing claim, whatever the shell set


def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    ids = CLAIMS_RE.findall(source[0])
    chapters = getattr(app.env, "claims_chapters", {})
    chapters = {k: v for k, v in chapters.items() if v != docname}
    for chapter in ids:
        chapters[chapter] = docname
    app.env.claims_chapters = chapters


def env_get_outdated(app, env, added, changed, removed):
    # The ledger page depends on every chapter: always rebuild it.
    return sorted(getattr(env, "claims_ledger_docs", set()))


def env_merge_info(app, env, docnames, other):  # pragma: no cover - parallel builds only
    env.claims_chapters = {**getattr(env, "claims_chapters", {}),
                           **getattr(other, "claims_chapters", {})}
    env.claims_ledger_docs = getattr(env, "claims_ledger_docs", set()) | getattr(
        other, "claims_ledger_docs", set())


def _load_records(app: Sphinx) -> list[dict]:
    folder = _ledger_dir(app)
    chapters = getattr(app.env, "claims_chapters", {})
    records = []
    # chapters in the order of the table of contents (alphabetical without one)
    docs = getattr(app.env, "external_site_map", None) or sorted(app.env.found_docs)
    order = {doc: i for i, doc in enumerate(docs)}
    for chapter, docname in sorted(chapters.items(), key=lambda kv: (order.get(kv[1], 1e9), kv[0])):
        path = folder / f"{chapter}.jsonl"
        if not path.exists() or not path.read_text().strip():
            logger.warning(
                "claims ledger: chapter %r (%s) left no claim records in %s; rebuild it with "
                "'jupyter-book build --all .'", chapter, docname, folder, location=docname)
            continue
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            entry["docname"] = docname
            records.append(entry)
    return records


def _margin(record: dict) -> float:
    """Tolerances between the rival's prediction and the measurement (inf: exact)."""
    value = record.get("margin")
    return float("inf") if value == "inf" else float(value)


def _margin_text(record: dict) -> str:
    if not record.get("rival"):
        return "-"
    margin = _margin(record)
    return "exact" if margin == float("inf") else f"{margin:.3g}"


HEADERS = ["Chapter", "#", "Claim", "Measured", "Expected", "Tolerance", "Rival", "Margin",
           "Pass"]


def _column_class(header: str) -> str:
    """The class of a column's cells: on a phone each row is a stack of labelled cells
    (book/_static/reader.css writes the column's name before each cell)."""
    return "ev-col-" + ("number" if header == "#" else header.lower())


def _chapter_title(app: Sphinx, docname: str) -> str:
    """The chapter's title as the sidebar shows it, with its number (not its slug)."""
    env = app.env
    title = env.titles[docname].astext() if docname in env.titles else docname
    number = env.toc_secnumbers.get(docname, {}).get("", ())
    return f"{'.'.join(map(str, number))}. {title}" if number else title


def _cell(text: str, literal: bool = False, header: str = "") -> nodes.entry:
    entry = nodes.entry(classes=[_column_class(header)] if header else [])
    para = nodes.paragraph()
    para += nodes.literal(text=text) if literal else nodes.Text(text)
    entry += para
    return entry


def doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    for node in list(doctree.findall(claims_ledger_node)):
        records = _load_records(app)
        failed = [r for r in records if not r["passed"]]
        for r in failed:
            logger.warning("claims ledger: claim %s#%s failed: %s", r["chapter"], r["number"],
                           r["statement"], location=docname)
        unrivalled = [r for r in records if not r.get("rival")]
        for r in unrivalled:
            logger.warning("claims ledger: claim %s#%s names no rival (the false statement it "
                           "rules out): %s", r["chapter"], r["number"], r["statement"],
                           location=docname)
        margins = [_margin(r) for r in records if r.get("rival")]
        smallest = min(margins) if margins else float("nan")
        summary = nodes.paragraph(text=(
            f"{len(records)} claims checked in {len({r['chapter'] for r in records})} chapters; "
            f"{len(records) - len(failed)} passed, {len(failed)} failed; "
            f"{len(records) - len(unrivalled)} name a rival, and the smallest margin by which "
            f"a rival is ruled out is {smallest:.3g} tolerances."))
        table = nodes.table(classes=["claims-ledger"])
        headers = HEADERS
        group = nodes.tgroup(cols=len(headers))
        table += group
        for width in (10, 3, 30, 13, 13, 9, 24, 6, 4):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for h in headers:
            row += _cell(h, header=h)
        head += row
        group += head
        body = nodes.tbody()
        titles = {}
        for r in records:
            row = nodes.row()
            chapter_entry = nodes.entry(classes=[_column_class("Chapter")])
            para = nodes.paragraph()
            if r["docname"] not in titles:
                titles[r["docname"]] = _chapter_title(app, r["docname"])
            ref = nodes.reference("", titles[r["docname"]], internal=True,
                                  refuri=app.builder.get_relative_uri(docname, r["docname"]))
            para += ref
            chapter_entry += para
            row += chapter_entry
            row += _cell(str(r["number"]), header="#")
            row += _cell(r["statement"], header="Claim")
            row += (_cell(r["measured"], literal=True, header="Measured") if r["measured"]
                    else _cell("\u2013", header="Measured"))  # a condition: nothing measured
            row += _cell(r["expected"], literal=True, header="Expected")
            row += _cell(r["tolerance"], header="Tolerance")
            rival = r.get("rival") or "none"
            if r.get("rival_value"):
                rival += f" (predicts {r['rival_value']})"
            row += _cell(rival, header="Rival")
            row += _cell(_margin_text(r), header="Margin")
            row += _cell("\u2714" if r["passed"] else "\u2718", header="Pass")
            body += row
        group += body
        node.replace_self([summary, table])


def setup(app: Sphinx) -> dict:
    app.add_node(claims_ledger_node)
    app.add_directive("claims-ledger", ClaimsLedgerDirective)
    app.connect("builder-inited", builder_inited)
    app.connect("source-read", source_read)
    app.connect("env-get-outdated", env_get_outdated)
    app.connect("env-merge-info", env_merge_info)
    app.connect("doctree-resolved", doctree_resolved)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
