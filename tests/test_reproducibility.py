"""Executing a chapter twice gives the same text.

Every random draw in a chapter comes from a seeded generator, so its printed
numbers, tables and glued values must not change from one execution to the
next. The first execution is the book build's own (the strict build of the
session fixture ``built_book`` stores each executed chapter in the execution
cache ``_build/.jupyter_cache``, read here through jupyter-cache); the second is
the execution of every chapter's ``.ipynb`` in a fresh environment made from
``requirements.txt`` (the session fixture ``fresh_env``, which the Binder test
shares), so no chapter is executed a third time.

The outputs compared are the text ones: streams (stdout and stderr, each
joined per cell, since how a stream is split into chunks depends on timing),
and the ``text/plain``, ``text/html``, ``text/markdown`` and ``text/latex`` data
of results, displays and glued values (images are not compared). Before
comparing, memory addresses, durations and pandas Styler ids are replaced by
placeholders.
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import ROOT, chapter_notebooks  # noqa: E402

CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()]
IDS = [md.stem for md in CHAPTERS]
CACHE = ROOT / "_build" / ".jupyter_cache"
TEXT_MIMES = ("text/plain", "text/html", "text/markdown", "text/latex")

NOISE = [
    (re.compile(r"0x[0-9a-fA-F]{6,16}"), "0x<address>"),  # object reprs
    (re.compile(r"^(Wall time|CPU times):.*$", re.M), r"\1: <time>"),  # %time
    (re.compile(r"^.* per loop \(mean ± std\. dev\. of .*$", re.M), "<timeit>"),  # %timeit
    (re.compile(r"\b\d+\.\d+\s?(?:s|min)\b|\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|sec|seconds)\b"),
     "<time>"),  # durations such as 0.53 s, 12 ms
    (re.compile(r"\bT_[0-9a-f]{5}(?=_|\b)"), "T_<uuid>"),  # pandas Styler table ids
]


def normalise(text: str) -> str:
    for pattern, replacement in NOISE:
        text = pattern.sub(replacement, text)
    return text


def text_outputs(cell) -> dict[str, str]:
    """The comparable text of one executed code cell, keyed by stream or mime type."""
    found: dict[str, list[str]] = {}
    for i, out in enumerate(cell.get("outputs", [])):
        kind = out["output_type"]
        if kind == "stream":
            found.setdefault(f"stream:{out['name']}", []).append(out["text"])
        elif kind in ("execute_result", "display_data"):
            for mime, value in out.get("data", {}).items():
                if mime in TEXT_MIMES or mime.endswith(tuple("/" + m for m in TEXT_MIMES)):
                    text = value if isinstance(value, str) else "".join(value)
                    found.setdefault(f"{kind}:{mime}", []).append(text)
        elif kind == "error":
            found.setdefault("error", []).append(f"{out['ename']}: {out['evalue']}")
    return {key: normalise("\n----\n".join(v) if not key.startswith("stream")
                           else "".join(v)) for key, v in found.items()}


def differences(first, second) -> list[str]:
    """Differences in text outputs between two executions of the same notebook."""
    code1 = [c for c in first.cells if c.cell_type == "code"]
    code2 = [c for c in second.cells if c.cell_type == "code"]
    if [c.source for c in code1] != [c.source for c in code2]:
        return ["the two executions are not of the same code cells"]
    found = []
    for number, (c1, c2) in enumerate(zip(code1, code2), start=1):
        out1, out2 = text_outputs(c1), text_outputs(c2)
        for key in sorted(set(out1) | set(out2)):
            a, b = out1.get(key, ""), out2.get(key, "")
            if a != b:
                diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), "build",
                                                      "fresh", lineterm="", n=1))
                head = c1.source.strip().splitlines()[0][:70] if c1.source.strip() else ""
                found.append(f"code cell {number} ({head!r}), {key}:\n{diff[:2000]}")
    return found


def read_chapter(md: Path):
    """The notebook that the build executes for a MyST chapter (code cells as in the build)."""
    from myst_nb.core.read import read_myst_markdown_notebook

    return read_myst_markdown_notebook(md.read_text(encoding="utf-8"))


def build_execution(md: Path):
    """The build's executed notebook of a chapter, from the execution cache."""
    from jupyter_cache import get_cache

    cache = get_cache(str(CACHE))
    try:
        record = cache.match_cache_notebook(read_chapter(md))
    except KeyError:
        pytest.fail(f"the execution cache {CACHE.relative_to(ROOT)} holds no execution of the "
                    f"current {md.relative_to(ROOT)}: the book build did not execute it")
    return cache.get_cache_bundle(record.pk).nb


@pytest.fixture(scope="module")
def fresh_executions(built_book, fresh_env):
    """Every chapter as executed in the fresh environment (or the reason it is missing)."""
    import nbformat

    results = {}
    for md in CHAPTERS:
        path = fresh_env["executed"] / md.with_suffix(".ipynb").name
        results[md] = (nbformat.read(path, as_version=4) if path.exists() else RuntimeError(
            "no execution in the fresh environment:\n" + fresh_env["stderr"][-3000:]))
    return results


def test_normalisation_and_comparison_can_fail():
    """Noise is removed, but a changed number is reported."""
    import nbformat

    def notebook(text, address, duration):
        cell = nbformat.v4.new_code_cell("print(x)")
        cell.outputs = [
            nbformat.v4.new_output("stream", name="stdout", text=text[:4]),
            nbformat.v4.new_output("stream", name="stdout", text=text[4:] + "\n"),
            nbformat.v4.new_output("execute_result", data={
                "text/plain": f"<Model at {address}> fitted in {duration}",
                "image/png": address}, execution_count=1),
        ]
        return nbformat.v4.new_notebook(cells=[cell])

    same_a = notebook("mean OOB 0.3679", "0x7f3a2b1c9d80", "0.53 s")
    same_b = notebook("mean OOB 0.3679", "0x7f00deadbeef", "12 ms")
    assert differences(same_a, same_b) == []
    changed = notebook("mean OOB 0.3680", "0x7f3a2b1c9d80", "0.53 s")
    report = differences(same_a, changed)
    assert len(report) == 1 and "stream:stdout" in report[0] and "0.3680" in report[0]


def test_every_chapter_is_checked():
    assert CHAPTERS, "no executable chapter found in _toc.yml"


@pytest.mark.parametrize("md", CHAPTERS, ids=IDS)
def test_two_executions_give_the_same_text(md, fresh_executions):
    fresh = fresh_executions[md]
    if isinstance(fresh, Exception):
        pytest.fail(f"{md.name} failed in a fresh execution: {type(fresh).__name__}: {fresh}")
    build = build_execution(md)
    assert any(text_outputs(c) for c in build.cells if c.cell_type == "code"), \
        f"the build's execution of {md.name} has no text output to compare"
    report = differences(build, fresh)
    assert not report, (f"{md.name}: a second execution changed {len(report)} output(s):\n"
                        + "\n\n".join(report))
