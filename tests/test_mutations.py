"""The mutation test of the book: every rewritten formula must make its chapter fail.

``tools/mutate_book.py`` rewrites one formula of ``ensemble_ref`` at a time (most
of them into an error the course notes made) and executes the chapter that
states the formula against the mutated copy. A mutant the chapter survives is a
formula the book says it verifies but does not; this test fails on any survivor.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import mutate_book  # noqa: E402

from conftest import chapter_notebooks  # noqa: E402


def test_mutants_cover_every_chapter_with_claims():
    covered = {m.chapter for m in mutate_book.MUTANTS}
    with_claims = [nb.with_suffix(".md") for nb in chapter_notebooks()
                   if re.search(r"Claims\(", nb.with_suffix(".md").read_text())]
    missing = [str(p.relative_to(ROOT)) for p in with_claims
               if str(p.relative_to(ROOT)) not in covered]
    assert not missing, f"chapters with claims but no mutant: {missing}"
    assert len(mutate_book.MUTANTS) >= 20
    assert len({m.id for m in mutate_book.MUTANTS}) == len(mutate_book.MUTANTS)


def test_every_mutant_applies_once(tmp_path):
    import shutil
    for mutant in mutate_book.MUTANTS:
        copy = tmp_path / mutant.id / "ensemble_ref"
        shutil.copytree(ROOT / "ensemble_ref", copy, ignore=shutil.ignore_patterns("__pycache__"))
        changed = mutate_book.apply(mutant, copy)
        assert (copy / changed).read_text() != (ROOT / "ensemble_ref" / changed).read_text()


@pytest.fixture(scope="module")
def mutation_run() -> dict:
    """Every mutant and the harmless control, run from checkpoints of the fresh environment's
    execution of each chapter (``tests/fresh_env.py``, a background stage of the session)."""
    import background

    run = background.FRESH.result()
    results = run["report"].get("mutants")
    assert results, "the mutation test did not run:\n" + run["log"][-6000:]
    return {"results": results}


@pytest.mark.book
def test_a_harmless_rewrite_survives(mutation_run):
    """The harness can report a survivor: a rewrite that changes no formula is not killed."""
    [control] = [r for r in mutation_run["results"] if r["id"] == mutate_book.CONTROL.id]
    assert not control["killed"], f"a harmless rewrite stopped the chapter: {control['raised']}"


@pytest.mark.book
def test_every_mutant_is_killed(mutation_run):
    results = [r for r in mutation_run["results"] if r["id"] != mutate_book.CONTROL.id]
    assert {r["id"] for r in results} == {m.id for m in mutate_book.MUTANTS}
    print("\n".join(f"{r['id']:<30} {'killed' if r['killed'] else 'SURVIVED'} "
                    f"({r['raised'] or '-'}) {r['seconds']} s, {r['how']} from cell {r['from_cell']}"
                    for r in results))
    survivors = [f"{r['id']} ({r['chapter']}): {r['error']}"
                 + (" [the run timed out: the harness, not the book, must be fixed]"
                    if r.get("timeout") else "")
                 + (f" [the run's process died (status {r['died']}): the harness must be fixed]"
                    if r.get("died") is not None else "")
                 for r in results if not r["killed"]]
    assert not survivors, "mutants the book does not notice:\n  " + "\n  ".join(survivors)

SYNTHETIC = '''
SCALE = 2.0


def outer(x):
    def inner(y):
        return y * SCALE  # inner-formula
    return inner(x) + 1


class Model:
    @property
    def weight(self):
        return 3.0  # weight-formula

    def predict(self, x):
        return outer(x) * self.weight
'''


@pytest.mark.parametrize("old, new, patched, fallback", [
    ("y * SCALE  # inner-formula", "y / SCALE  # inner-formula", ["outer"], ""),
    ("return 3.0  # weight-formula", "return 4.0  # weight-formula", ["Model.weight"], ""),
    ("SCALE = 2.0", "SCALE = 3.0", [], "<module> is not (inside) one function"),
    ("# weight-formula", "# a comment", [], "the rewrite changes no code"),
])
def test_a_checkpoint_plan_finds_the_function_a_rewrite_changes(tmp_path, monkeypatch,
                                                               old, new, patched, fallback):
    import importlib

    import mutant_checkpoints

    (tmp_path / "synthetic_formulas.py").write_text(SYNTHETIC)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("synthetic_formulas")
    plan = mutant_checkpoints.Plan({"id": "m", "target": "synthetic_formulas.outer",
                                    "old": old, "new": new})
    assert plan.fallback == fallback
    assert sorted(f.__qualname__ for f, _ in plan.patches) == patched
    if patched:  # the mutated code, swapped in place, changes what the live objects compute
        before = module.Model().predict(2.0)
        plan.apply()
        assert module.Model().predict(2.0) != before
    del sys.modules["synthetic_formulas"]
