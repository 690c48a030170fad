"""The book's builds, once per test session, with the documented commands.

``main_book()`` is the README's build command and ``student_book()`` the student
build (``python tools/build_student.py``, after the main build, so that it takes
every chapter from the execution cache). Both run as background stages of the test
run (``tests/background.py``); these functions wait for them.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def jupyter_book() -> str:
    exe = Path(sys.executable).with_name("jupyter-book")
    return str(exe) if exe.exists() else (shutil.which("jupyter-book") or "jupyter-book")


def main_book() -> Path:
    """The HTML of the main build (README: ``jupyter-book build . -W -n --keep-going``)."""
    import background

    build = background.BUILD.result()
    assert build["returncode"] == 0, "the book build failed:\n" + build["log"][-6000:]
    return ROOT / "_build" / "html"


def student_book() -> tuple[Path, str]:
    """The HTML of the student edition and the log of its build."""
    import background

    main_book()
    build = background.STUDENT.result()
    assert build["returncode"] == 0, "the student build failed:\n" + build["log"][-6000:]
    return ROOT / "_build" / "student" / "html", build["log"]
