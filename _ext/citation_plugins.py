"""Sphinx extension: the bibliography's plugins are looked up once per build, not once per citation.

sphinxcontrib-bibtex resolves every citation (``{cite:t}``) by asking pybtex for its
plain-text backend, and pybtex finds a plugin by scanning the entry points of every
installed distribution (``importlib.metadata.entry_points``), about 50 ms in the
book's environment: the book's hundred citations cost five seconds of every build
(HTML, student edition, LaTeX). The installed entry points do not change during a
build, so the scan's answer for each (group, name) is kept; plugins registered at
run time (``pybtex.plugin.register_plugin``) are still looked up first, by pybtex
itself.
"""

from __future__ import annotations

import functools

import pybtex.plugin


def _cached(entry_points):
    @functools.lru_cache(maxsize=None)
    def lookup(group: str, name: str) -> tuple:
        return tuple(entry_points(group=group, name=name))

    @functools.wraps(entry_points)
    def cached_entry_points(*, group: str, name: str):
        return lookup(group, name)
    cached_entry_points.uncached = entry_points
    return cached_entry_points


def setup(app) -> dict:
    if not hasattr(pybtex.plugin.entry_points, "uncached"):
        pybtex.plugin.entry_points = _cached(pybtex.plugin.entry_points)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
