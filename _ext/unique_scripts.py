"""Sphinx extension: each script appears once in a page.

Sphinx 7.4 adds the scripts that extensions register after the HTML builder
started (inline ``<script>`` bodies of sphinx-togglebutton and sphinx-thebe)
a second time when it prepares writing: once with ``filename=None``, once with
``''``, which it does not recognise as equal. sphinx-thebe's inline script
declares ``const THEBE_JS_URL``, so the second copy is a JavaScript
``SyntaxError`` on every page. This extension drops such duplicates from each
page's ``script_files`` before the page is rendered.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _key(script) -> tuple:
    attributes = getattr(script, "attributes", {})
    return (str(getattr(script, "filename", script) or ""), getattr(script, "priority", None),
            tuple(sorted((k, str(v)) for k, v in attributes.items())))


def remove_duplicate_scripts(app: Sphinx, pagename: str, templatename: str, context: dict,
                             doctree) -> None:
    scripts = context.get("script_files")
    if not scripts:
        return
    seen: set[tuple] = set()
    unique = []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique  # the builder's own list: later handlers and the template see it


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", remove_duplicate_scripts, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
