"""Pickled doctrees without a copy of the build environment.

MyST parses an ``{eval-rst}`` block (the API pages' ``automodule`` directives) into a
document of its own, and the nodes it returns keep a reference to that document. Its
settings hold Sphinx's whole build environment, which Sphinx removes from the page's
own document before pickling it, but not from these: each API page's doctree carried
a copy of the environment (5 MB against 0.4 MB of content), and Sphinx unpickles a
doctree every time a later step reads it (numbered references, the LaTeX builder's
single document, the toctree walks).

After a page is read, every node is attached to the page's own document, so the
pickle holds the page and nothing else. Nothing reads a node's document once the page
is parsed except through the page itself.
"""

from __future__ import annotations

from docutils import nodes


def attach_to_page(app, doctree: nodes.document) -> None:
    """Point every node of ``doctree`` at ``doctree`` itself (its ``document``)."""
    for node in doctree.findall():  # elements and text nodes
        if node.__dict__.get("_document") not in (None, doctree):
            node.document = doctree


def setup(app):
    app.connect("doctree-read", attach_to_page, priority=900)  # after the other handlers
    return {"parallel_read_safe": True, "parallel_write_safe": True}
