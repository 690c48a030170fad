"""The test run's layout: pytest runs tests, ``dodo.py`` runs the stages.

* Every book-level test file (``pytestmark = pytest.mark.book``) is run by the stage
  that makes what it reads, and only book-level files are listed there; every other
  test file runs in the ``unit`` stage.
* Tests are only tests: no test edits ``sys.path``, imports another test module, or
  installs system packages (the ``system`` stage does).
* The fresh environment runs its chapters in a few pytest processes, longest first.
"""

from __future__ import annotations

import ast
import re

import dodo
from tools.chapters import ROOT

TESTS = sorted((ROOT / "tests").glob("*.py"))


def _marked_book(path) -> bool:
    """Whether the file has book-level tests (the whole file, or some of its tests, marked book)."""
    return "pytest.mark.book" in path.read_text()


def test_every_book_level_file_is_run_by_the_stage_that_makes_what_it_reads():
    listed = [f for files in dodo.READS.values() for f in files]
    assert len(listed) == len(set(listed)), "a test file is listed in two stages"
    marked = {p.relative_to(ROOT).as_posix() for p in TESTS if _marked_book(p) and p.name != "test_stages.py"}
    assert marked == set(listed), (
        f"marked book but in no stage: {sorted(marked - set(listed))}; "
        f"in a stage but not marked book: {sorted(set(listed) - marked)}")
    for stage in dodo.READS:
        assert stage in dodo.ORDER and hasattr(dodo, f"task_{stage}")


def test_stages_need_only_earlier_stages():
    tasks = {name: getattr(dodo, f"task_{name}")() for name in dodo.ORDER}
    for k, name in enumerate(dodo.ORDER):
        earlier = set(dodo.ORDER[:k])
        assert set(tasks[name]["task_dep"]) <= earlier, f"{name} needs a later stage"


def test_tests_are_only_tests():
    problems = []
    for path in TESTS:
        text = path.read_text()
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("test_"):
                problems.append(f"{path.name} imports the test module {node.module}")
            if isinstance(node, ast.Import):
                problems += [f"{path.name} imports the test module {a.name}" for a in node.names
                             if a.name.startswith("test_")]
            if isinstance(node, ast.Attribute) and node.attr == "path" and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                problems.append(f"{path.name} uses sys.path (line {node.lineno})")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.search(r"\bapt(-get)? +install\b", node.value) and path.name != "test_stages.py":
                problems.append(f"{path.name} installs system packages (line {node.lineno})")
    assert not problems, "\n".join(problems)


def test_the_fresh_environment_runs_the_chapters_in_few_batches_longest_first():
    """Every chapter in exactly one batch, in the queue's order (longest first), each batch
    worth at least a third of what was left (two workers), so fewer pytest processes start
    than there are chapters."""
    from tools.chapters import chapter_notebooks
    from tools.fresh_env import cost, next_batch

    queue = sorted((str(nb) for nb in chapter_notebooks()), key=lambda nb: -cost(nb))
    left, batches = list(queue), []
    while left:
        total = sum(cost(nb) for nb in left)
        batches.append(next_batch(left, workers=2))
        assert len(batches[-1]) == 1 or sum(cost(nb) for nb in batches[-1][:-1]) < total / 3
        assert sum(cost(nb) for nb in batches[-1]) >= total / 3 or not left
    assert [nb for batch in batches for nb in batch] == queue
    assert 2 < len(batches) < len(queue) / 2
