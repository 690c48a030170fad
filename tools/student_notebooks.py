"""Write the student notebooks: every chapter as an ``.ipynb`` with its solutions removed.

Usage (from the repository root)::

    python -m tools.student_notebooks _build/student/notebooks            # a new or empty folder
    python -m tools.student_notebooks _build/student/notebooks --overwrite

Each chapter listed in ``_toc.yml`` (a MyST notebook ``book/NN_name.md``) is read with
jupytext and written as ``OUTPUT/NN_name.ipynb`` without outputs, with

* every plain ``solution`` directive removed from the Markdown cells (the exercises stay),
* every gated ``solution-start`` ... ``solution-end`` block removed, including the cells
  between its two ends,
* every cell tagged ``solution`` removed,

and without jupytext's pairing metadata (the notebook stands alone).

The notebooks read like the book (``tools/reader_notebooks.py``): glued numbers
are filled in, references resolved to their numbers and the theorem and exercise
boxes written as plain Markdown, from the references the book's build recorded in
``_build/reader/refs.json`` (so the book must be built first). Code cells are kept
unchanged, in particular the first cell, which installs ``ensemble_ref`` on Colab
when it is missing.

The sources are never touched: the output folder may not be ``book/``, lie inside
it or contain it, and an existing non-empty folder is refused unless ``--overwrite``
is given (which replaces only the notebooks this command writes).

The same functions produce the downloadable ``.ipynb`` and ``.md`` of the student
HTML book (``_ext/exercise_bank.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from tools.chapters import chapter_sources

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
SOLUTION_TAG = "solution"

# A plain solution directive, fenced with colons (:::{solution}) or backticks
# (```{solution}); it ends at the first line holding the same fence alone, so code
# blocks or directives nested inside it (with shorter fences) stay inside.
_FENCED_SOLUTION = re.compile(
    r"^[ \t]*(?P<fence>:{3,}|`{3,})\{solution\}[^\n]*\n"  # opening fence line
    r".*?"                                               # options and content
    r"^[ \t]*(?P=fence)[ \t]*(?:\n|\Z)",                 # the matching closing fence
    re.M | re.S,
)
_GATED_START = re.compile(r"^[ \t]*(:{3,}|`{3,})\{solution-start\}", re.M)
_GATED_END = re.compile(r"^[ \t]*(:{3,}|`{3,})\{solution-end\}[^\n]*\n(?:[ \t]*\1[ \t]*(?:\n|\Z))?",
                        re.M)


def strip_solution_text(text: str) -> str:
    """Remove every plain ``solution`` directive (fence to closing fence) from MyST text.

    Parameters
    ----------
    text : str
        MyST Markdown: a whole chapter or one Markdown cell.

    Returns
    -------
    str
        The text without the solutions; runs of three or more blank lines left
        behind are reduced to one blank line.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}.")
    out = _FENCED_SOLUTION.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", out)


def strip_gated_solutions(text: str) -> str:
    """Remove gated ``solution-start`` ... ``solution-end`` blocks from MyST text."""
    while True:
        start = _GATED_START.search(text)
        if start is None:
            return text
        end = _GATED_END.search(text, start.end())
        if end is None:
            raise ValueError("a solution-start directive has no matching solution-end.")
        text = text[:start.start()] + text[end.end():]


def student_markdown(text: str) -> str:
    """The MyST source of a chapter as a student sees it: every solution removed."""
    return strip_solution_text(strip_gated_solutions(text))


def student_notebook(md_path: Path | str):
    """Read a chapter's MyST source and return its student notebook (``nbformat`` v4).

    Parameters
    ----------
    md_path : path
        A chapter ``book/NN_name.md`` with a jupytext ``myst`` header.

    Returns
    -------
    nbformat.NotebookNode
        The notebook without solution directives, gated solution blocks, cells
        tagged ``solution`` and outputs; every other cell unchanged.
    """
    import jupytext

    md_path = Path(md_path)
    if not md_path.is_file():
        raise ValueError(f"md_path must be an existing chapter file, got {md_path}.")
    nb = jupytext.read(md_path)
    cells, in_gated = [], False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            source = cell.source
            if in_gated:  # inside a gated block that began in an earlier cell
                end = _GATED_END.search(source)
                if end is None:
                    continue
                source, in_gated = source[end.end():], False
            while (start := _GATED_START.search(source)) is not None:
                end = _GATED_END.search(source, start.end())
                if end is None:  # the block goes on past this cell
                    source, in_gated = source[:start.start()], True
                    break
                source = source[:start.start()] + source[end.end():]
            source = strip_solution_text(source)
            if not source.strip():
                continue
            cell.source = source.strip("\n")
        elif in_gated or SOLUTION_TAG in cell.metadata.get("tags", []):
            continue
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cells.append(cell)
    if in_gated:
        raise ValueError(f"{md_path}: a solution-start directive has no matching solution-end.")
    nb.cells = cells
    nb.metadata.pop("jupytext", None)  # a standalone notebook, not paired with a .md
    return nb


def check_output_dir(output: Path, overwrite: bool, root: Path = ROOT) -> Path:
    """Refuse an output folder that could touch the sources; return it resolved."""
    out = Path(output).expanduser().resolve()
    book = (root / "book").resolve()
    if out == book or out.is_relative_to(book):
        raise ValueError(f"output must be outside {book} (the sources), got {out}.")
    if book.is_relative_to(out):
        raise ValueError(f"output must not contain the sources ({book}), got {out}.")
    if out.exists() and not out.is_dir():
        raise ValueError(f"output must be a folder, but {out} is a file.")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise ValueError(f"output folder {out} exists and is not empty; "
                         "choose another folder or pass --overwrite.")
    return out


def write_student_notebooks(output: Path | str, overwrite: bool = False,
                            root: Path = ROOT) -> list[Path]:
    """Write one student notebook per chapter into ``output``; return their paths."""
    out = check_output_dir(Path(output), overwrite, root)  # refuse before the slow imports
    import nbformat

    from tools.reader_notebooks import load_refs, reader_notebook

    sources = chapter_sources(root)
    if not sources:
        raise ValueError(f"no chapter found in {root / '_toc.yml'}.")
    refs = load_refs(root / "_build" / "reader" / "refs.json")
    notebooks = [reader_notebook(student_notebook(md), refs,
                                 md.relative_to(root).with_suffix("").as_posix(), student=True)
                 for md in sources]  # all converted before any write
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for md, nb in zip(sources, notebooks):
        target = out / f"{md.stem}.ipynb"
        nbformat.write(nb, target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write every chapter as a student notebook (.ipynb, solutions removed).")
    parser.add_argument("output", type=Path,
                        help="folder to write to, outside book/ (e.g. _build/student/notebooks)")
    parser.add_argument("--overwrite", action="store_true",
                        help="write into an existing non-empty folder, replacing the notebooks")
    args = parser.parse_args(argv)
    try:
        written = write_student_notebooks(args.output, overwrite=args.overwrite)
    except ValueError as exc:
        parser.exit(2, f"student_notebooks: error: {exc}\n")
    for path in written:
        print(path)
    print(f"{len(written)} student notebooks written to {Path(args.output).resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
