"""The book's builds in this test run: the HTML of the strict build and of the student edition.

The stage ``build`` of ``dodo.py`` runs the README's build command and the stage
``student`` the student build (``python -m tools.build_student``, after the main
build, so that it takes every chapter from the execution cache). The tests that read
their output call these functions, which fail with the command to run when the build
has not run (or failed) in this test run.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tools.stages import LOGS, ROOT, record


def jupyter_book() -> str:
    exe = Path(sys.executable).with_name("jupyter-book")
    return str(exe) if exe.exists() else (shutil.which("jupyter-book") or "jupyter-book")


def main_book() -> Path:
    """The HTML of the main build (README: ``jupyter-book build . -W -n --keep-going``)."""
    build = record("build")
    assert build is not None, "the book was not built in this run: python -m doit build"
    log = (ROOT / build["log"]).read_text(errors="replace")
    assert build["returncode"] == 0, "the book build failed:\n" + log[-6000:]
    return ROOT / "_build" / "html"


def student_book() -> tuple[Path, str]:
    """The HTML of the student edition and the log of its build."""
    main_book()
    log = LOGS / "student.log"  # the stage's log: the student build's output comes first
    html = ROOT / "_build" / "student" / "html"
    built = log.is_file() and "The student edition is in" in log.read_text(errors="replace")
    assert built and (html / "index.html").is_file(), \
        "the student edition was not built in this run: python -m doit student"
    return html, log.read_text(errors="replace")
