"""Pickled pages: without a copy of the build environment, and unpickled once per build.

Two costs of Sphinx's pickled doctrees that grow with every page of the book:

* MyST parses an ``{eval-rst}`` block (the API pages' ``automodule`` directives) into
  a document of its own, and the nodes it returns keep a reference to that document.
  Its settings hold Sphinx's whole build environment, which Sphinx removes from the
  page's own document before pickling it, but not from these: each API page's doctree
  carried a copy of the environment (5 MB against 0.4 MB of content). After a page is
  read, every node is attached to the page's own document, so the pickle holds the
  page and nothing else.
* A numbered reference (``{numref}``, ``{prf:ref}`` to a numbered directive, an
  equation) is resolved by unpickling the whole target page to look at one node
  (``StandardDomain._resolve_numref_xref`` in Sphinx 7.4): 162 references unpickled
  pages 162 times, about a fifth of a build. Here each target page is unpickled once
  per builder (which writes only after every page is read) and kept, read-only, for
  the references that follow. The reader edition's lookups of section titles
  (``reader_edition.py``) read their pages through the same copies
  (:func:`page_to_look_up`).
"""

from __future__ import annotations

import functools

from docutils import nodes
from sphinx.domains.std import StandardDomain


def attach_to_page(app, doctree: nodes.document) -> None:
    """Point every node of ``doctree`` at ``doctree`` itself (its ``document``)."""
    for node in doctree.findall():  # elements and text nodes
        if node.__dict__.get("_document") not in (None, doctree):
            node.document = doctree


class _TargetPages:
    """``env.get_doctree`` for a numbered reference's lookup: each page unpickled once."""

    def __init__(self, env):
        self.env, self.pages = env, {}

    def get_doctree(self, docname: str) -> nodes.document:
        if docname not in self.pages:
            self.pages[docname] = self.env.get_doctree(docname)
        return self.pages[docname]

    def __getattr__(self, name):  # every other attribute is the environment's
        return getattr(self.env, name)


def _target_pages(builder, env) -> _TargetPages:
    # a builder writes after every page is read: the pages it keeps stay valid
    return builder.__dict__.setdefault("target_pages", _TargetPages(env))


def page_to_look_up(builder, env, docname: str) -> nodes.document:
    """The pickled page ``docname``, unpickled once per builder; read it, never change it."""
    return _target_pages(builder, env).get_doctree(docname)


def _numref_reading_each_page_once(resolve):
    @functools.wraps(resolve)
    def wrapper(self, env, fromdocname, builder, *args, **kwargs):
        return resolve(self, _target_pages(builder, env), fromdocname, builder, *args, **kwargs)
    return wrapper


def setup(app):
    app.connect("doctree-read", attach_to_page, priority=900)  # after the other handlers
    if not getattr(StandardDomain._resolve_numref_xref, "__wrapped__", None):
        StandardDomain._resolve_numref_xref = _numref_reading_each_page_once(
            StandardDomain._resolve_numref_xref)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
