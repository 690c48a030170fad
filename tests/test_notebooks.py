"""Chapter sources: MyST markdown is the source of truth, the paired .ipynb follows it.

* every executable chapter has a paired ``.ipynb`` whose cells equal jupytext's
  conversion of the ``.md`` (so Colab and nbval see exactly what the book shows)
  and which is committed without outputs;
* no chapter uses NumPy's global random state;
* every Python block inside a solution runs and contains an ``assert``, so that
  the solutions an instructor hands out are checked like the chapters.
"""

from __future__ import annotations

import re

import pytest

from tools.chapters import ROOT, chapter_notebooks
from tools.exercise_sources import solution_code

CHAPTERS = chapter_notebooks()
IDS = [nb.stem for nb in CHAPTERS]


def test_there_are_chapters():
    assert CHAPTERS, "no executable chapter found in _toc.yml"


@pytest.mark.parametrize("nb", CHAPTERS, ids=IDS)
def test_paired_notebook_is_in_sync(nb):
    import jupytext
    import nbformat

    assert nb.exists(), f"{nb.name} missing: run 'jupytext --sync {nb.with_suffix('.md')}'"
    expected = jupytext.read(nb.with_suffix(".md"))
    actual = nbformat.read(nb, as_version=4)
    assert [(c.cell_type, c.source) for c in actual.cells] == [
        (c.cell_type, c.source) for c in expected.cells
    ], f"{nb.name} is out of date: run 'jupytext --sync {nb.with_suffix('.md').relative_to(ROOT)}'"
    assert actual.metadata["kernelspec"]["name"] == "python3"
    outputs = [c for c in actual.cells if c.cell_type == "code" and c.get("outputs")]
    assert not outputs, f"{nb.name} is committed with outputs; clear them"


@pytest.mark.parametrize("nb", CHAPTERS, ids=IDS)
def test_no_global_numpy_random_state(nb):
    source = nb.with_suffix(".md").read_text()
    bad = re.findall(r"np\.random\.(?!default_rng|Generator|SeedSequence)\w+\(", source)
    assert not bad, f"{nb.name} uses the global NumPy random state: {bad}"


def solution_snippets():
    for nb in CHAPTERS:
        for label, k, code in solution_code(nb.with_suffix(".md").read_text()):
            yield pytest.param(code, id=f"{nb.stem}:{label}:{k}")


@pytest.mark.parametrize("code", list(solution_snippets()))
def test_solution_code_runs_and_checks_itself(code):
    assert "assert" in code, "a solution's code must check its own answer with assert"
    exec(compile(code, "<solution>", "exec"), {"__name__": "__solution__"})
