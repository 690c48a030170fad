"""The student notebooks: every exercise and code cell kept, every solution gone, sources safe.

``tools/student_notebooks.py`` is run as documented (a subprocess, into a
temporary folder). Each chapter's student notebook must keep all the chapter's
code cells (the Colab install cell first), every exercise statement, and none of
the solutions' text; the command must refuse to write inside ``book/``, into a
folder containing it, or into a non-empty folder without ``--overwrite``, and must
never change a source. The removal of solutions is also tested on small
synthetic chapters, including the gated ``solution-start``/``solution-end`` form.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from tools.chapters import ROOT, chapter_notebooks  # noqa: E402
from tools.exercise_sources import (  # noqa: E402
    chapter_exercises,
    corpus_windows,
    normalised,
    solution_probes,
    visible_sources,
    windows,
)
from tools.reader_notebooks import ANSWER_TAGS, EXPLAIN_CLAIMS  # noqa: E402

pytestmark = pytest.mark.book  # read by the stage 'html' of dodo.py, after its product is made

TOOL = ROOT / "tools" / "student_notebooks.py"
CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()]


def run_tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def source_digest() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((ROOT / "book").rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def written(tmp_path_factory, built_book) -> Path:
    # the notebooks read like the book: they need the references the build recorded
    before = source_digest()
    out = tmp_path_factory.mktemp("students") / "notebooks"
    proc = run_tool(str(out))
    assert proc.returncode == 0, proc.stderr
    assert source_digest() == before, "writing the student notebooks changed book/"
    return out


def test_one_notebook_per_chapter(written):
    assert sorted(p.name for p in written.iterdir()) == sorted(f"{md.stem}.ipynb" for md in CHAPTERS)


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_student_notebook_keeps_exercises_and_code_and_drops_solutions(md, written):
    import jupytext
    import nbformat

    nb = nbformat.read(written / f"{md.stem}.ipynb", as_version=4)
    nbformat.validate(nb)
    source = jupytext.read(md)
    code = [c.source for c in nb.cells if c.cell_type == "code"
            and not set(c.metadata.get("tags", [])) & set(ANSWER_TAGS)]
    assert code[0].startswith(EXPLAIN_CLAIMS), "a failing claim must explain itself, not stop the notebook"
    code[0] = code[0][len(EXPLAIN_CLAIMS):]
    assert code == [c.source for c in source.cells if c.cell_type == "code"]
    assert "ensemble_ref" in code[0] and "pip install" in code[0], "the Colab install cell"
    assert all(not c.outputs for c in nb.cells if c.cell_type == "code")
    assert "jupytext" not in nb.metadata and nb.metadata["kernelspec"]["name"] == "python3"

    text = normalised("\n".join(c.source for c in nb.cells))
    exercises, solutions = chapter_exercises(md)
    for ex in exercises:
        missing = [w for w in windows(ex["statement"]) if f" {w} " not in text]
        assert not missing, f"exercise {ex['label']} lost text: {missing[:3]}"
    visible = corpus_windows(visible_sources())
    for sol in solutions:
        probes = solution_probes(sol["text"], visible)
        assert probes
        assert not [p for p in probes if f" {p} " in text], f"solution to {sol['target']} kept"
    # every exercise is its own cell, followed by an answer cell (and its check cells)
    for ex in exercises:
        at = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
              and c.source.startswith(f'<a id="{ex["label"]}"></a>')]
        assert len(at) == 1 and nb.cells[at[0] + 1].metadata.get("tags") == ["answer"], ex["label"]
        kind = "code" if ex["kind"] in ("coding", "experiment") else "markdown"
        assert nb.cells[at[0] + 1].cell_type == kind, ex["label"]
        if "check_" in ex["statement"]:
            assert nb.cells[at[0] + 2].metadata.get("tags") == ["answer-check"], ex["label"]
    # everything that is not a solution is still there
    original = normalised("\n".join(c.source for c in source.cells if c.cell_type == "markdown"))
    kept = normalised("\n".join(c.source for c in nb.cells if c.cell_type == "markdown"))
    assert len(kept) > 0.5 * len(original)


def test_refuses_paths_that_could_touch_the_sources(tmp_path):
    before = source_digest()
    for target in (ROOT / "book", ROOT / "book" / "students", ROOT):
        proc = run_tool(str(target))
        assert proc.returncode == 2, proc
        assert "output must" in proc.stderr
        proc = run_tool(str(target), "--overwrite")
        assert proc.returncode == 2, "--overwrite must not allow writing near the sources"
    assert source_digest() == before
    assert not (ROOT / "book" / "students").exists()


def test_refuses_a_non_empty_folder_unless_told_to_overwrite(tmp_path):
    out = tmp_path / "handout"
    out.mkdir()
    keep = out / "notes.txt"
    keep.write_text("mine")
    proc = run_tool(str(out))
    assert proc.returncode == 2 and "not empty" in proc.stderr and "--overwrite" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    stale = out / f"{CHAPTERS[0].stem}.ipynb"
    stale.write_text("{}")
    proc = run_tool(str(out), "--overwrite")
    assert proc.returncode == 0, proc.stderr
    assert keep.read_text() == "mine"  # other files are left alone
    assert '"cells"' in stale.read_text()  # the old notebook was replaced
    file_target = tmp_path / "a_file"
    file_target.write_text("x")
    assert run_tool(str(file_target), "--overwrite").returncode == 2


# --- the removal itself, on synthetic chapters --------------------------------------------

HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def student_cells(tmp_path, body: str) -> list[tuple[str, str]]:
    from tools.student_notebooks import student_notebook

    md = tmp_path / "chapter.md"
    md.write_text(HEADER + body)
    return [(c.cell_type, c.source) for c in student_notebook(md).cells]


def test_plain_solutions_with_both_fences_and_nested_code_are_removed(tmp_path):
    body = (
        "# Title\n\n:::{exercise} One (★)\n:label: ex-one\n:class: coding\n\nDo ONE.\n:::\n\n"
        ":::{solution} ex-one\n:class: dropdown\n\nSECRET1\n\n```python\nassert SECRET2\n```\n:::\n\n"
        "Between.\n\n````{solution} ex-one\nSECRET3\n```python\nx = 'SECRET4'\n```\n````\n\nAfter.\n"
    )
    cells = student_cells(tmp_path, body)
    text = "\n".join(s for _, s in cells)
    assert "Do ONE." in text and "Between." in text and "After." in text
    assert ":label: ex-one" in text
    assert "SECRET" not in text and "{solution}" not in text


def test_gated_solutions_are_removed_across_cells(tmp_path):
    body = (
        "Intro.\n\n```{solution-start} ex-two\n:class: dropdown\n```\n\nSECRET1 text.\n\n"
        "```{code-cell} ipython3\nsecret = 2\n```\n\nSECRET2 more.\n\n```{solution-end}\n```\n\n"
        "Visible again.\n\n```{code-cell} ipython3\n:tags: [solution]\nalso_secret = 3\n```\n\n"
        "```{code-cell} ipython3\nkept = 1\n```\n"
    )
    cells = student_cells(tmp_path, body)
    text = "\n".join(s for _, s in cells)
    assert "Intro." in text and "Visible again." in text and "kept = 1" in text
    assert "SECRET" not in text and "secret" not in text and "solution-" not in text
    assert [t for t, _ in cells].count("code") == 1


def test_an_unterminated_gated_solution_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no matching solution-end"):
        student_cells(tmp_path, "```{solution-start} ex\n```\n\nSECRET\n")
