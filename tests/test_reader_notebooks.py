"""Reader notebooks: what the launch buttons, the downloads and the student notebooks give.

After the strict build (session fixture ``built_book``), every chapter's reader
notebook (``_build/reader/notebooks``; the same file is the page's ``.ipynb``
download) is converted to Markdown (jupytext's ``md`` format) and must contain no MyST role,
directive or label target, and every glued number of the chapter as its value.
Its code cells must be the chapter's code cells, unchanged and in order, and the
cells the strict build executed without an error, so it runs as the chapter ran;
nothing is executed here (each chapter runs at most twice in a test run: in the
build and in the fresh environment). Every exercise is a cell of its own followed
by an empty answer cell (code for coding and experiment exercises, Markdown for
derivations and proofs) and, where the statement shows a self-check or an answer
check, a cell that calls it. The launch buttons must open the reader-notebooks branch.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tools.chapters import ROOT, chapter_notebooks  # noqa: E402
from tools.exercise_sources import chapter_exercises  # noqa: E402
from tools.reader_notebooks import (  # noqa: E402
    ANSWER_TAGS,
    EXPLAIN_CLAIMS,
    MYST_SYNTAX_RE,
    Resolver,
    chapter_code,
    convert_markdown,
    format_glue,
    reader_notebook,
)

pytestmark = pytest.mark.book  # read by the stage 'html' of dodo.py, after its product is made

CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()]
GLUE_RE = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")


def reader(md: Path) -> Path:
    return ROOT / "_build" / "reader" / "notebooks" / md.relative_to(ROOT).with_suffix(".ipynb")


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_reader_notebook_has_no_myst_and_every_number(md, built_book):
    import jupytext
    import nbformat
    nb = nbformat.read(reader(md), as_version=4)
    nbformat.validate(nb)
    markdown = jupytext.writes(nb, fmt="md")
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    leftovers = [m.group(0) for m in MYST_SYNTAX_RE.finditer(prose)]
    assert not leftovers, f"MyST syntax left in {md.name}: {leftovers[:5]}"
    refs = json.loads((ROOT / "_build" / "reader" / "refs.json").read_text())
    docname = md.relative_to(ROOT).with_suffix("").as_posix()
    text = md.read_text(encoding="utf-8")
    for name, fmt in GLUE_RE.findall(text):
        value = format_glue(refs["glue"][docname][name], fmt or "")
        assert value in markdown, f"{md.name}: glued {name} ({value}) is not in the notebook"
    source = jupytext.read(md)
    assert chapter_code(nb) == [c.source for c in source.cells if c.cell_type == "code"], \
        "code cells changed"
    assert "jupytext" not in nb.metadata
    # the page's download is this notebook
    download = built_book / "_sources" / md.relative_to(ROOT).with_suffix(".ipynb")
    assert download.read_bytes() == reader(md).read_bytes()


def assert_answer_cells(nb, exercises: list[dict], where: str) -> None:
    """Every exercise is its own cell, followed by its answer cell and, if it has one, its check."""
    cells = nb.cells
    for ex in exercises:
        at = [i for i, c in enumerate(cells) if c.cell_type == "markdown"
              and c.source.startswith(f'<a id="{ex["label"]}"></a>') and "**Exercise" in c.source]
        assert len(at) == 1, f"{where}: exercise {ex['label']} is not a cell of its own"
        i = at[0]
        assert "**Exercise" not in cells[i].source.split("**Exercise", 1)[1], \
            f"{where}: {ex['label']} shares its cell with another exercise"
        answer = cells[i + 1]
        assert answer.metadata.get("tags") == ["answer"], f"{where}: {ex['label']} has no answer cell"
        if ex["kind"] in ("coding", "experiment"):
            assert answer.cell_type == "code" and answer.source == "", (where, ex["label"])
        else:
            assert answer.cell_type == "markdown" and answer.source == "*Your answer:*"
        checks = re.findall(r"\b(check_\w+)\(", ex["statement"])
        after = [c for c in cells[i + 2:i + 2 + len(set(checks))]
                 if c.metadata.get("tags") == ["answer-check"]]
        assert len(after) == len(set(checks)), f"{where}: {ex['label']} lacks its check cells"
        for name in set(checks):
            assert any(f"{name}(" in c.source for c in after), (where, ex["label"], name)
        if "check_answer" in checks:
            assert any(f"check_answer({ex['label']!r}, your_answer" in c.source for c in after)


NUMBERED = [md for md in CHAPTERS if md.parent.name == "book"]  # the appendices set no exercises


@pytest.mark.parametrize("md", NUMBERED, ids=[md.stem for md in NUMBERED])
def test_every_exercise_is_followed_by_an_answer_cell(md, built_book):
    import nbformat

    nb = nbformat.read(reader(md), as_version=4)
    exercises = chapter_exercises(md)[0]
    assert exercises, f"{md.stem} has no exercises"
    assert_answer_cells(nb, exercises, md.stem)


def test_answer_cells_of_a_small_chapter():
    """The answer cells on a synthetic chapter: one cell per exercise, even two in one cell."""
    import jupytext

    text = CHANGED_SEED.replace("# A claim that depends on the draw", """# Exercises

Some prose.

:::{exercise} A derivation (★)
:label: ex-a
:class: derivation

Derive it, and check it:

```text
from ensembles_verified.answers import check_answer
check_answer("ex-a", 0.1)             # your number
```
:::

:::{exercise} Code (★)
:label: ex-b
:class: coding

Write `f` and check it with

```text
from ensembles_verified.selfcheck import check_oob_fraction
check_oob_fraction(f)     # prints a line
```
:::

:::{solution} ex-b
:class: dropdown

Worked.
:::
""")
    nb = reader_notebook(jupytext.reads(text, fmt="md:myst"), {"labels": {}}, "book/x")
    exercises = [{"label": "ex-a", "kind": "derivation", "statement": 'check_answer("ex-a", 0.1)'},
                 {"label": "ex-b", "kind": "coding", "statement": "check_oob_fraction(f)"}]
    assert_answer_cells(nb, exercises, "synthetic")
    sources = [c.source for c in nb.cells]
    assert any("Some prose" in s and "**Exercise" not in s for s in sources)
    assert any("<details>" in s for s in sources), "the solution follows the answer cells"
    code = chapter_code(nb)
    assert len(code) == 3 and not any("your_answer" in c for c in code)


def test_launch_buttons_open_the_reader_notebooks(built_book):
    page = (built_book / "book" / "09_gradient_boosting.html").read_text(encoding="utf-8")
    assert "mybinder.org/v2/gh/ensembles-verified/ensembles-verified/reader-notebooks?" in page
    assert "colab.research.google.com/github/ensembles-verified/ensembles-verified/blob/" \
           "reader-notebooks/book/09_gradient_boosting.ipynb" in page


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_reader_notebook_runs_as_the_build_ran(md, built_book):
    """A reader notebook runs: its code cells are, in order, the cells the strict build
    executed without an error (``_build/jupyter_execute``), in the same kernel and from
    the same folder (``book/``, as on the reader-notebooks branch). Nothing is executed
    here: the build's execution is the first of each chapter's two in a test run."""
    import nbformat

    nb = nbformat.read(reader(md), as_version=4)
    executed = nbformat.read(ROOT / "_build" / "jupyter_execute" /
                             md.relative_to(ROOT).with_suffix(".ipynb"), as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"
            and not set(c.metadata.get("tags", [])) & set(ANSWER_TAGS)]
    ran = [c for c in executed.cells if c.cell_type == "code"]
    assert code, f"{md.name}: no code cell"
    assert code[0].startswith(EXPLAIN_CLAIMS), f"{md.name}: the first cell must set the claims to explain"
    code[0] = code[0][len(EXPLAIN_CLAIMS):]
    assert code == [c.source for c in ran], f"{md.name}: not the cells the build executed"
    # (execution counts are not compared: a later build for another format, such as the
    # PDF's, rewrites _build/jupyter_execute from the execution cache, which drops them)
    errors = [o for c in ran for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{md.name}: the build's execution raised {errors[0].get('ename')}"
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert nb.metadata["kernelspec"]["name"] == executed.metadata["kernelspec"]["name"] == "python3"
    assert "pip install" in code[0], f"{md.name}: the first cell must install the package (Colab)"
    branch = reader(md).relative_to(ROOT / "_build" / "reader" / "notebooks")
    assert branch.parent.as_posix() == md.relative_to(ROOT).parent.as_posix()


def test_conversion_of_each_construct():
    refs = {"baseurl": "https://x.org/", "labels": {
        "eq-a": {"doc": "book/c", "id": "equation-eq-a", "kind": "equation", "number": "2.1"},
        "thm-a": {"doc": "book/c", "id": "thm-a", "kind": "theorem", "number": "2.3"},
        "ex-a": {"doc": "book/c", "id": "ex-a", "kind": "exercise", "number": "2.4"},
        "fig-a": {"doc": "book/d", "id": "fig-a", "kind": "figure", "number": "3.1"}},
        "docs": {}, "glue": {"book/c": {"v": "0.12345"}},
        "bib": {"k": {"short": "Breiman", "year": "1996", "full": "x"}}}
    text = ("(sec-x)=\n## T\n\nSee {eq}`eq-a`, {prf:ref}`thm-a`, {ref}`ex-a`, {numref}`fig-a`, "
            "value {glue:text}`v:.2f` {cite}`k`.\n\n:::{prf:theorem} Name\n:label: thm-a\n\n"
            "$$\nx = 1\n$$ (eq-a)\n:::\n\n:::{solution} ex-a\n:class: dropdown\n\nS\n:::\n")
    out = convert_markdown(text, Resolver(refs, "book/c"))
    assert "(2.1)" in out and "Theorem 2.3" in out and "Exercise 2.4" in out
    assert "[Figure 3.1](https://x.org/book/d.html#fig-a)" in out and "0.12" in out
    assert "[Breiman, 1996]" in out and "\\tag{2.1}" in out and "<details>" in out
    assert not MYST_SYNTAX_RE.search(out), out
    assert "<details>" not in convert_markdown(text, Resolver(refs, "book/c"), student=True)


CHANGED_SEED = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A claim that depends on the draw

```{code-cell} ipython3
import numpy as np
from ensembles_verified import ChapterSeed, Claims

SEED = 1
seed = ChapterSeed(SEED)
claims = Claims("changed-seed")
```

```{code-cell} ipython3
u = seed.rng("draw").random()
claims.at_most("the draw is below one half", u, 0.5, rival=("the draw is below -1", -1.0))
```

```{code-cell} ipython3
print("the next cell ran")
```
"""


def test_a_claim_failing_on_a_changed_seed_is_explained_and_the_notebook_runs_on(tmp_path, monkeypatch):
    """A reader notebook with a seed for which a claim fails: the claim prints its explanation
    (what was expected, what was measured, how rare a miss is) and the later cells run; the
    same chapter executed as the build executes it (strict) stops at the claim."""
    import nbformat
    import numpy as np
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    from ensembles_verified import ChapterSeed

    failing = next(s for s in range(100) if np.random.default_rng(ChapterSeed(s)("draw")).random() > 0.5)
    md = tmp_path / "chapter.md"
    md.write_text(CHANGED_SEED.replace("SEED = 1", f"SEED = {failing}"))
    nb = reader_notebook(md, {}, "chapter")
    monkeypatch.delenv("ENSEMBLES_VERIFIED_CLAIMS", raising=False)
    monkeypatch.delenv("ENSEMBLES_VERIFIED_SEED", raising=False)
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "Not confirmed on this run: the draw is below one half" in text
    assert "expected <= 0.5" in text and "one seed in a thousand" in text
    assert "the next cell ran" in text
    assert not any(o.output_type == "error" for c in nb.cells if c.cell_type == "code" for o in c.outputs)

    strict = nbformat.reads(nbformat.writes(nb), as_version=4)
    first = next(c for c in strict.cells if c.cell_type == "code")
    first.source = first.source[len(EXPLAIN_CLAIMS):]
    with pytest.raises(CellExecutionError, match="ClaimError"):
        NotebookClient(strict, timeout=120, kernel_name="python3").execute()
