"""Run the book's builds once per test session, with the documented commands.

``main_book()`` runs the README's build command (incremental: when
``tests/test_book.py`` has just built the book, nothing is executed or rewritten
except the generated pages). ``student_book()`` runs the student build
(``python tools/build_student.py``) after the main build, so that it can take
every chapter from the execution cache.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_LOGS: dict[str, str] = {}


def _run(name: str, args: list[str]) -> str:
    if name not in _LOGS:
        proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=3000)
        log = proc.stdout + proc.stderr
        (ROOT / "_build").mkdir(exist_ok=True)
        (ROOT / "_build" / f"{name}.log").write_text(log)
        assert proc.returncode == 0, f"{name} failed:\n{log[-6000:]}"
        _LOGS[name] = log
    return _LOGS[name]


def jupyter_book() -> str:
    exe = Path(sys.executable).with_name("jupyter-book")
    return str(exe) if exe.exists() else (shutil.which("jupyter-book") or "jupyter-book")


def main_book() -> Path:
    """The HTML of the main build (README: ``jupyter-book build . -W -n --keep-going``)."""
    _run("main-build", [jupyter_book(), "build", ".", "-W", "-n", "--keep-going"])
    return ROOT / "_build" / "html"


def student_book() -> tuple[Path, str]:
    """The HTML of the student edition and the log of its build."""
    main_book()
    log = _run("student-build", [sys.executable, "tools/build_student.py"])
    return ROOT / "_build" / "student" / "html", log
