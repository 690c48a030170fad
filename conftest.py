"""Repository-wide pytest configuration.

The chapters run under nbval (``--nbval-lax``: every cell must execute without an
error; a failing claim raises). A notebook that nbval silently fails to collect
would let a broken chapter pass, so collection is checked here: whenever the
``book`` folder is part of the run, every chapter listed in ``_toc.yml`` must
contribute at least one executed cell.

The strict book build is a session fixture (``built_book``) shared by the tests
that read its output (the build checks, the browser test, the editions), so the
book is built once per run. At the end of the run the time spent
in each stage (unit tests, notebooks under nbval, book build, browser,
fresh environment, ...) is printed, with each chapter's nbval items.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
HTML = ROOT / "_build" / "html"


def chapter_notebooks() -> list[Path]:
    """The paired ``.ipynb`` of every executable chapter listed in ``_toc.yml``."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    stack = list(toc.get("parts", [])) + list(toc.get("chapters", []))
    while stack:
        entry = stack.pop(0)
        if "file" in entry:
            files.append(entry["file"])
        stack.extend(entry.get("chapters", []) + entry.get("sections", []))
    notebooks = []
    for name in files:
        md = ROOT / f"{name}.md"
        if md.exists() and "format_name: myst" in md.read_text()[:400]:
            notebooks.append(md.with_suffix(".ipynb"))
    return notebooks


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "book: executes chapters or builds the book (deselect with -m 'not book')")


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if type(item).__name__ == "IPyNbCell" or Path(str(item.fspath)).name in BOOK_FILES:
            item.add_marker(pytest.mark.book)
    # The fast layer first, then the tests of the book's stages in the order the stages
    # finish; the stages themselves start in the background as soon as collection ends.
    late = {name: k for k, name in enumerate(BOOK_ORDER)}
    items.sort(key=lambda item: late.get(Path(str(item.fspath)).name, -1)
               if item.get_closest_marker("book") else -1)
    book = (ROOT / "book").resolve()
    args = [Path(a.split("::")[0]).resolve() for a in config.args] or [ROOT]
    if not any(book == a or book.is_relative_to(a) or a.is_relative_to(book) for a in args):
        return  # a partial run (e.g. one unit-test file): nothing to enforce
    cells = Counter(Path(str(item.fspath)).resolve() for item in items
                    if type(item).__name__ == "IPyNbCell")
    expected = [nb for nb in chapter_notebooks()
                if any(nb == a or nb.is_relative_to(a) for a in args)]
    missing = [str(nb.relative_to(ROOT)) for nb in expected if cells[nb.resolve()] == 0]
    if not expected or missing or sum(cells.values()) < len(expected):
        raise pytest.UsageError(
            "nbval collected no cells from these chapters: "
            f"{missing or 'all'} ({sum(cells.values())} cells from {len(cells)} notebooks). "
            "Each chapter must be a MyST notebook with a paired .ipynb "
            "(jupytext --sync book/<chapter>.md) and nbval must be installed.")


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The strict build of the whole book (README's build command, once); the HTML folder.

    The build runs in the background from the start of the session (``tests/background.py``).
    """
    import background

    build = background.BUILD.result()
    assert build["returncode"] == 0, "strict book build failed:\n" + build["log"][-6000:]
    return HTML


@pytest.fixture(scope="session")
def fresh_env() -> dict:
    """Every chapter executed once in a fresh environment made from requirements.txt.

    The second and last execution of the chapters in a test run (the first is the
    book build), under nbval and with a seed other than the chapters' own; used by
    the Binder test, and the execution the mutation test branches off. It runs in the background from the start
    of the session (``tests/background.py``).
    """
    import background

    return background.FRESH.result()


# ---------------------------------------------------------------- time per stage

STAGE_OF_FILE = {
    "test_book.py": "book build",
    "test_exact_checks.py": "book build",
    "test_browser.py": "browser",
    "test_notebooks.py": "chapter sources and solutions",
    "test_properties.py": "properties (hypothesis)",
    "test_hostile_inputs.py": "hostile inputs",
    "test_mutations.py": "fresh environment and mutants",
    "test_binder_env.py": "fresh environment and mutants",
    "test_pdf.py": "PDF edition",
    "test_reader_notebooks.py": "reader notebooks",
    "test_student_build.py": "student edition",
    "test_student_notebooks.py": "student edition",
}
# Test files that execute chapters or build the book: the "book" layer
# (``pytest -m "not book"`` runs the fast layer alone).
BOOK_FILES = {"test_book.py", "test_browser.py", "test_binder_env.py",
              "test_student_build.py", "test_student_notebooks.py", "test_publishing.py",
              "test_pdf.py", "test_reader_notebooks.py", "test_exercise_bank.py", "test_exact_checks.py"}
# The order of the book layer's test files at the end of the run: roughly the order in
# which the background stages they need finish (tests/background.py).
BOOK_ORDER = ["test_book.py", "test_exact_checks.py", "test_reader_notebooks.py", "test_exercise_bank.py",
              "test_publishing.py", "test_student_notebooks.py", "test_browser.py",
              "test_student_build.py", "test_pdf.py", "test_binder_env.py", "test_mutations.py"]
STAGE_ORDER = ["collection", "unit tests", "properties (hypothesis)", "hostile inputs",
               "chapter sources and solutions", "notebooks (nbval)", "book build",
               "reader notebooks", "student edition", "Chromium (Debian)", "browser",
               "TeX Live (Debian)", "PDF edition", "fresh environment and mutants"]
_stage_seconds: defaultdict[str, float] = defaultdict(float)
_stage_tests: Counter[str] = Counter()
_clock: dict[str, float] = {}


def _stage(report) -> str:
    path = report.nodeid.split("::")[0]
    if path.endswith(".ipynb"):
        return "notebooks (nbval)"
    return STAGE_OF_FILE.get(Path(path).name, "unit tests")


def pytest_sessionstart(session):
    _clock["start"] = time.perf_counter()


def pytest_collection_finish(session):
    _stage_seconds["collection"] += time.perf_counter() - _clock.get("start", time.perf_counter())
    if session.config.option.collectonly:
        return
    sys.path.insert(0, str(ROOT / "tests"))
    import background

    factory = getattr(session.config, "_tmp_path_factory", None)  # pytest's session folder
    background.start_needed(session.items, factory.getbasetemp() if factory else None)


def pytest_runtest_logreport(report):
    duration = report.duration
    background = sys.modules.get("background")
    if background is not None:  # time spent waiting for a background stage is the stage's
        duration = max(0.0, duration - background.waited_since_report)
        background.waited_since_report = 0.0
    stage = _stage(report)
    _stage_seconds[stage] += duration
    if report.when == "call":
        _stage_tests[stage] += 1


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _stage_seconds:
        return
    total = time.perf_counter() - _clock.get("start", time.perf_counter())
    background = sys.modules.get("background")
    t0 = _clock.get("start", 0.0)
    ran = {st.name: st for st in (background.STAGES if background else []) if st.span}
    stages = [s for s in STAGE_ORDER if s in _stage_seconds or s in ran]
    stages += sorted((set(_stage_seconds) | set(ran)) - set(stages))
    write = terminalreporter.write_line
    terminalreporter.write_sep("=", "time per stage")
    write(f"{'stage':32s} {'tests':>5s} {'in the tests':>14s} {'in the background':>19s}"
          f"  {'(from - to)':>15s}")
    for stage in stages:
        count = f"{_stage_tests[stage]:5d}" if stage != "collection" else " " * 5
        own = f"{_stage_seconds[stage]:12.1f} s" if stage in _stage_seconds else " " * 14
        behind = ""
        if stage in ran:
            a, b = (t - t0 for t in ran[stage].span)
            behind = f"{ran[stage].seconds:17.1f} s  ({a:5.0f} - {b:5.0f} s)"
        write(f"{stage:32s} {count} {own} {behind}")
    write(f"{'total (wall clock)':32s} {' ' * 5} {total:12.1f} s")
    if ran:
        write("The background stages start when collection ends and run beside the tests and "
              "each other; a test's time excludes its wait for them.")
    fresh = getattr(background, "FRESH", None) if background else None
    if fresh is not None and fresh.value:
        _nbval_summary(terminalreporter, fresh.value)


def _nbval_summary(terminalreporter, fresh: dict) -> None:
    """Each chapter's nbval items in the fresh environment, run with another seed."""
    report = fresh["report"]
    terminalreporter.write_sep("=", f"chapters under nbval, seed {report['seed']} (fresh environment)")
    for name in sorted(report["cells"]):
        cells = report["cells"][name]
        terminalreporter.write_line(
            f"{name:40s} {cells['passed']:4d} cells passed, {cells['failed']} failed"
            f"{', ' + str(cells['skipped']) + ' skipped' if cells['skipped'] else ''}"
            f"  ({report['chapters'].get(name, 0):.1f} s)")
    terminalreporter.write_line("nbval's log, one line per cell: _build/nbval-fresh-env.log")
