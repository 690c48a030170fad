"""The test run's long stages, started in the background as soon as the tests are collected.

The slow parts of a test run are separate processes that do not depend on the unit
tests: the strict book build (README's command), the student and PDF editions built
from its execution cache, the fresh environment that executes every chapter a second
time, the mutation test, and the system packages (Chromium, TeX Live) the browser and
PDF tests need. Run one after the other they leave one of the two cores of a small
machine idle most of the time; here each is a :class:`Stage`, a thread that starts its
process(es) and keeps the result, so that they run side by side with the unit tests.
A stage that needs another one (the PDF needs the HTML build and TeX Live) waits for it.

The tests that need a stage's result call :meth:`Stage.result`, which waits for the
stage and re-raises its failure in the test, so a failing stage fails the tests that
depend on it, with its own message. ``conftest.py`` starts the stages the collected
tests need (:func:`start_needed`) and reports each stage's duration in the table of
time per stage; the time a test spends waiting for a stage is counted there, not in
the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


# Seconds the tests spent waiting for stages since the last test report (conftest.py
# subtracts them from the test's own time).
waited_since_report = 0.0


class Stage:
    """A long step of the test run, run once in a background thread."""

    def __init__(self, name: str, target: Callable[[], object], after: tuple[Stage, ...] = (),
                 nice: int = 0):
        self.name, self._target, self._after, self.nice = name, target, after, nice
        self.value: object = None
        self.error: BaseException | None = None
        self.seconds: float | None = None  # wall time of the stage itself
        self.span: tuple[float, float] | None = None  # start and end (perf_counter)
        self.waited = 0.0  # time tests spent waiting for it
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> Stage:
        with self._lock:
            if self._thread is None:
                for stage in self._after:
                    stage.start()
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for stage in self._after:
                stage.result(count_wait=False)
        except BaseException as err:  # noqa: BLE001 - a stage this one needs has failed
            self.error = err
            return
        if self.nice and hasattr(os, "setpriority"):  # this thread and the processes it starts
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), self.nice)
        start = time.perf_counter()
        try:
            self.value = self._target()
        except BaseException as err:  # noqa: BLE001 - re-raised in the tests that need it
            self.error = err
        finally:
            self.seconds = time.perf_counter() - start
            self.span = (start, start + self.seconds)

    def result(self, count_wait: bool = True):
        """Wait for the stage (starting it if needed); its value, or its failure raised."""
        global waited_since_report
        self.start()
        start = time.perf_counter()
        self._thread.join()
        if count_wait:
            waited = time.perf_counter() - start
            self.waited += waited
            waited_since_report += waited
        if self.error is not None:
            raise self.error
        return self.value


def _run_logged(name: str, args: list[str], timeout: int = 3000, env: dict | None = None) -> dict:
    """Run a command from the repository root; its exit code and output (kept in _build/)."""
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    log = proc.stdout + proc.stderr
    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / f"{name}.log").write_text(log)
    return {"returncode": proc.returncode, "log": log}


def _jupyter_book() -> str:
    from book_builds import jupyter_book

    return jupyter_book()


def _book_build() -> dict:
    """README's build command: every chapter executed, strict. The other stages keep the
    second core busy, so its kernels get one thread each, as the fresh environment's do."""
    from fresh_env import ONE_THREAD

    return _run_logged("build", [_jupyter_book(), "build", ".", "-W", "-n", "--keep-going"],
                       env={**os.environ, **ONE_THREAD})


def _student_build() -> dict:
    return _run_logged("student-build", [sys.executable, "tools/build_student.py"])


def _chromium() -> None:
    from test_browser import ensure_chromium

    ensure_chromium()


def _tex_live() -> None:
    from test_pdf import ensure_tex

    ensure_tex()


def _pdf_build() -> dict:
    summary_path = ROOT / "_build" / "pdf" / "summary.json"
    summary_path.unlink(missing_ok=True)  # a summary left by an earlier build proves nothing
    start = time.perf_counter()
    run = _run_logged("pdf-build", [sys.executable, "tools/build_pdf.py"], timeout=2400)
    summary = json.loads(summary_path.read_text()) if summary_path.is_file() else None
    return {**run, "summary": summary, "wall_seconds": round(time.perf_counter() - start, 1)}


def _browser() -> dict:
    from test_browser import check_book

    return check_book(ROOT / "_build" / "html")


def _fresh_environment() -> dict:
    import fresh_env

    return fresh_env.run(Path(tempfile.mkdtemp(prefix="fresh-env-", dir=TEMP.get("root"))))


BUILD = Stage("book build", _book_build)
CHROMIUM = Stage("Chromium (Debian)", _chromium)
TEX = Stage("TeX Live (Debian)", _tex_live, after=(CHROMIUM,))  # one apt at a time
# Build, then browser: the longest path through the run, at the normal priority (the
# tests themselves run at a lower one, see start_needed). The PDF edition too: it ends
# with three xelatex passes, one after the other on one core, which at a lower priority
# were the last thing running, the other core idle. The student edition runs at the
# tests' priority: at the normal one it starves the fresh environment.
BROWSER = Stage("browser", _browser, after=(BUILD, CHROMIUM))
STUDENT = Stage("student edition", _student_build, after=(BUILD,), nice=5)
PDF = Stage("PDF edition", _pdf_build, after=(BUILD, TEX))
# The stage that nothing waits for until the end gives way to all the others: the fresh
# environment, which executes every chapter and runs its mutants from checkpoints of
# that execution (the mutation test, tools/mutate_book.py).
FRESH = Stage("fresh environment and mutants", _fresh_environment, nice=15)
STAGES = [BUILD, CHROMIUM, TEX, BROWSER, STUDENT, PDF, FRESH]

# The stages each test file needs (a test of the mutation harness itself needs none).
NEEDS = {
    "test_book.py": [BUILD], "test_reader_notebooks.py": [BUILD],
    "test_exercise_bank.py": [BUILD], "test_student_notebooks.py": [BUILD],
    "test_student_build.py": [STUDENT], "test_browser.py": [BROWSER],
    "test_pdf.py": [PDF], "test_binder_env.py": [FRESH],
}
NEEDS_BY_TEST = {"test_every_mutant_is_killed": [FRESH], "test_a_harmless_rewrite_survives": [FRESH],
                 "test_every_implemented_equation_has_an_exact_check": [BUILD]}


TEMP: dict[str, Path] = {}  # "root": pytest's temporary folder of the session


def start_needed(items, temp_root: Path | None = None) -> None:
    """Start the stages the collected tests need, longest first."""
    if temp_root is not None:
        TEMP["root"] = temp_root
    needed: list[Stage] = []
    for item in items:
        file = Path(str(item.fspath)).name
        name = getattr(item, "originalname", None) or item.name
        needed += NEEDS.get(file, []) + NEEDS_BY_TEST.get(name, [])
    for stage in STAGES:
        if stage in needed:
            stage.start()
    if needed and hasattr(os, "setpriority"):
        # The tests (this thread, and the threads and processes it starts from now on)
        # give way to the book build and the browser, the longest path through the run.
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 5)
