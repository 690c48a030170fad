"""Build the student edition of the book: the same HTML book with every solution removed.

Usage (from the repository root)::

    python -m tools.build_student            # writes _build/student/html
    python -m tools.build_student --all      # rebuild every page (the chapters still come from the cache)

This is the book's own build (``jupyter-book build . -W -n --keep-going`` with
``_config.yml`` and ``_toc.yml``) with one setting changed: sphinx-exercise's
``hide_solutions = True``, under which the ``solution`` directives are not parsed at
all, so no solution text reaches the pages or the search index
(``_ext/exercise_bank.py`` replaces the downloadable sources by their student
versions as well, and the launch buttons open the student notebooks, published on
the ``student-notebooks`` branch).

The chapters are not executed again: the build reads the execution cache of the
main build (``_build/.jupyter_cache``, see ``_config.yml``), and the claims those
executions recorded (``_build/claims``, shared through a link). A chapter missing
from the cache is executed once, and its result is then cached for both builds.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"
STUDENT = BUILD / "student"
OUTPUT = STUDENT / "html"

# The only differences from the main build (merged into the configuration of _config.yml).
STUDENT_OVERRIDES = {"hide_solutions": True}


def share_claims_records() -> None:
    """Make ``_build/student/claims`` the main build's ``_build/claims``.

    The claims ledger reads the records that executed chapters wrote next to the
    output folder; the student build executes nothing, so it must read the main
    build's records.
    """
    main, link = BUILD / "claims", STUDENT / "claims"
    main.mkdir(parents=True, exist_ok=True)
    STUDENT.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() and link.resolve() == main.resolve():
        return
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        for path in link.iterdir():
            path.unlink()
        link.rmdir()
    os.symlink(os.path.relpath(main, STUDENT), link, target_is_directory=True)


def build(force_all: bool = False, quiet: bool = False) -> int:
    """Run the strict build with the student settings; return Sphinx's exit status."""
    from jupyter_book.sphinx import build_sphinx

    share_claims_records()
    os.chdir(ROOT)  # the execution cache path in _config.yml is relative to the root
    overrides = {
        "external_toc_path": (ROOT / "_toc.yml").as_posix(),
        "latex_individualpages": False,
        "nitpicky": True,  # -n
        **STUDENT_OVERRIDES,
    }
    result = build_sphinx(
        ROOT, OUTPUT, noconfig=True, path_config=str(ROOT / "_config.yml"),
        confoverrides=overrides, builder="html", warningiserror=True,  # -W
        keep_going=True, force_all=force_all, quiet=quiet,
    )
    if isinstance(result, Exception):
        raise result
    return int(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the student edition (no solutions) into _build/student/html.")
    parser.add_argument("--all", action="store_true", help="write every page again")
    parser.add_argument("--quiet", action="store_true", help="print warnings and errors only")
    args = parser.parse_args(argv)
    status = build(force_all=args.all, quiet=args.quiet)
    if status == 0:
        print(f"\nThe student edition is in {OUTPUT / 'index.html'}")
    else:
        print("\nThe student build failed; see the warnings above.", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
