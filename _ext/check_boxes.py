"""Sphinx extension: one closed box of checks per section.

In a notebook, the claims that hold in a cell are displayed at the end of the cell as
one closed box, "✔ 3 statements checked" (``ensembles_verified.check_box``). On the
book's pages the boxes of a section's cells are merged into one box at the end of the
section's own text (before its first subsection), "✔ 12 statements checked", which
opens to the whole list. The prose and the figures stay in front; the verification is
one click away. In print the boxes are left out (the claims ledger records every check).
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.application import Sphinx

BOX = re.compile(r"<details class='ev-checks'><summary>.*?</summary><ol>(.*?)</ol></details>", re.S)
PLAIN = re.compile(r"^\u2714 \d+ statements? checked$")


def _own_boxes(section: nodes.Element) -> list[nodes.raw]:
    """The raw HTML boxes in ``section`` that are not inside one of its subsections."""
    found = []
    for raw in section.findall(nodes.raw):
        if raw.get("format") != "html" or "ev-checks" not in raw.astext():
            continue
        owner = raw.parent
        while owner is not None and not isinstance(owner, nodes.section):
            owner = owner.parent
        if owner is section:
            found.append(raw)
    return found


def _merged(items: list[str]) -> str:
    n = sum(item.count("<li>") for item in items)
    label = f"\u2714 {n} statement{'s' if n != 1 else ''} checked in this section"
    return (f"<details class='ev-checks'><summary>{label}</summary>"
            f"<ol>{''.join(items)}</ol></details>")


def merge_section(section: nodes.section) -> None:
    boxes = _own_boxes(section)
    if not boxes:
        return
    items = [m.group(1) for raw in boxes for m in BOX.finditer(raw.astext())]
    for raw in boxes:
        parent = raw.parent
        parent.remove(raw)
        while parent is not None and not parent.children and not isinstance(parent, nodes.section):
            grand = parent.parent  # an output container left empty goes too
            grand.remove(parent)
            parent = grand
    where = next((k for k, child in enumerate(section.children) if isinstance(child, nodes.section)),
                 len(section.children))
    section.insert(where, nodes.raw("", _merged(items), format="html"))


def merge_boxes(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format == "html":
        for section in list(doctree.findall(nodes.section)):
            merge_section(section)
    elif app.builder.format == "latex":
        for block in list(doctree.findall(nodes.literal_block)):
            if PLAIN.match(block.astext().strip()):
                block.parent.remove(block)


def setup(app: Sphinx) -> dict:
    app.connect("doctree-resolved", merge_boxes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
