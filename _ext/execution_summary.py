"""Sphinx extension: print each chapter's execution time at the end of the build.

myst-nb records, for every executed notebook, when it ran, how long it took and
how (``cache`` or ``force``). The *Execution report* page shows that table in the
book; this extension prints the same figures at the end of the build log and
writes them to ``_build/execution_times.json``, so that a terminal user (and CI)
sees them without opening the HTML.
"""

from __future__ import annotations

import json
from pathlib import Path

from myst_nb.sphinx_ import NbMetadataCollector
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)


def build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None:
        return
    metadata = NbMetadataCollector.get_doc_data(app.env)
    rows = []
    for docname in sorted(metadata):
        data = metadata[docname].get("exec_data")
        if data:
            rows.append({"docname": docname, "runtime_s": round(float(data["runtime"] or 0.0), 2),
                         "method": data["method"], "succeeded": bool(data["succeeded"])})
    if not rows:
        return
    out = Path(app.outdir).parent / "execution_times.json"
    out.write_text(json.dumps(rows, indent=1))
    width = max(len(r["docname"]) for r in rows)
    lines = ["", "Chapter execution times (s):"]
    for r in rows:
        status = "ok" if r["succeeded"] else "FAILED"
        lines.append(f"  {r['docname']:<{width}}  {r['runtime_s']:>7.2f}  {r['method']:<6} {status}")
    lines.append(f"  {'total':<{width}}  {sum(r['runtime_s'] for r in rows):>7.2f}")
    logger.info("\n".join(lines))


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", build_finished)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
