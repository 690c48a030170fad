"""The test run's stages and what each one needs: ``python -m doit`` runs them all.

Each stage makes something (the strict book build, the student edition, the PDF, a
fresh environment that executes every chapter again with another seed and runs the
mutation test) and then runs the tests that read it; pytest only runs tests. Stages
start as soon as the stages they need are done, all at once (the operating system shares
the cores by priority): on a two-core machine the long fresh environment runs beside the
build at a lower priority, and the build's followers (student edition, browser, PDF, the
HTML checks) start together when it ends, so no stage waits for a slot while a core idles.
Among the followers, the ones that are one process after another (the student edition and
the PDF) get the cores first and the browser, which checks pages in two Chromiums at once,
comes last: it is the stage that can keep both cores busy until the end.

    python -m doit             # every stage, then the table of time per stage
    python -m doit list        # the stages
    python -m doit build html  # one stage and the stages it needs

Adding a book-level test: put ``pytestmark = pytest.mark.book`` in the file and its
name in the stage that makes what it reads (``READS`` below). Any other test file
runs in ``unit``.
"""

from __future__ import annotations

import sys
import time

from doit.reporter import ConsoleReporter

from tools import stages
from tools.book_builds import jupyter_book
from tools.stages import ONE_THREAD


class StageReporter(ConsoleReporter):
    """doit's console report, then the table of time per stage (also after a failure)."""

    started = time.time()

    def complete_run(self):
        super().complete_run()
        stages.report(ORDER, since=self.started)


DOIT_CONFIG = {"default_tasks": ["test"], "num_process": 8, "par_type": "thread",
               "continue": True, "verbosity": 2, "dep_file": "_build/.doit.json",
               "backend": "json", "reporter": StageReporter}

PY = sys.executable
PYTEST = [PY, "-m", "pytest", "-q", "-rfE"]
# The book-level test files, by the stage whose product they read.
READS = {
    "html": ["tests/test_book.py", "tests/test_exact_checks.py", "tests/test_reader_notebooks.py",
             "tests/test_exercise_bank.py", "tests/test_student_notebooks.py",
             "tests/test_publishing.py"],
    "student": ["tests/test_student_build.py"],
    "browser": ["tests/test_browser.py"],
    "pdf": ["tests/test_pdf.py"],
    "fresh": ["tests/test_binder_env.py", "tests/test_mutations.py"],
}
ORDER = ["system", "unit", "build", "html", "student", "browser", "pdf", "fresh"]


def _stage(name, *commands, after=(), nice=0, env=None):
    """A doit task that runs ``commands`` as the stage ``name`` after the stages ``after``."""
    return {"actions": [(stages.run, [name, *commands], {"nice": nice, "env": env})],
            "task_dep": list(after), "doc": (globals()[f"task_{name}"].__doc__ or "").strip(),
            "verbosity": 2}


def task_system():
    """Chromium and TeX Live from Debian, when missing (apt, waiting for the dpkg lock)."""
    return _stage("system", [PY, "-m", "tools.system_packages"])


def task_unit():
    """The unit tests, property tests, hostile inputs and chapter sources (pytest -m 'not book')."""
    return _stage("unit", [*PYTEST, "-m", "not book", "tests"], nice=5)


def task_build():
    """The README's build command: every chapter executed, strict, one thread per kernel."""
    return _stage("build", [jupyter_book(), "build", ".", "-W", "-n", "--keep-going"], env=ONE_THREAD)


def task_html():
    """The tests of the built HTML, the reader and student notebooks and the exercise bank."""
    return _stage("html", [*PYTEST, *READS["html"]], after=["build"], nice=5)


def task_student():
    """The student edition (from the build's execution cache), then its tests."""
    return _stage("student", [PY, "-m", "tools.build_student"], [*PYTEST, *READS["student"]],
                  after=["build"])


def task_browser():
    """Every page of the built book in headless Chromium, at 1,400 and 412 px, with axe-core."""
    return _stage("browser", [*PYTEST, *READS["browser"]], after=["build", "system"], nice=5)


def task_pdf():
    """The PDF edition (LaTeX from the build's cache, xelatex), then its tests."""
    return _stage("pdf", [PY, "-m", "tools.build_pdf"], [*PYTEST, *READS["pdf"]],
                  after=["build", "system"])


def task_fresh():
    """Every chapter again in a fresh environment from requirements.txt, another seed, the mutants."""
    return _stage("fresh", [PY, "-m", "tools.fresh_env"], [*PYTEST, "-m", "book", *READS["fresh"]],
                  nice=15)


def task_test():
    """Every stage (the run ends with the table of time per stage)."""
    return {"actions": None, "task_dep": ORDER}
