"""Spot the bug: one exercise per chapter, whose check rejects the error and accepts the fix.

For every exercise of ``ensembles_verified.spot_the_bug``: ``check_fix`` rejects the
function with its error (and says that it is the exercise's error) for several seeds
of its cases, and accepts the package's function and a fix written from the source
the exercise shows (its one wrong expression written back, as a student would); the
source shown has the error and no docstring; ``planted`` makes the package compute the
error and undoes it; the error is a mutant of the mutation test (so the chapter's checks
stop on it); each numbered chapter has exactly one such exercise, showing the function
and calling ``check_fix``; the instructors' page lists them all.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

from ensembles_verified import spot_the_bug as stb
from ensembles_verified import substitution
from ensembles_verified.selfcheck.engine import _fresh
from tools import mutants, reader_notebooks
from tools.chapters import chapter_sources

ROOT = Path(__file__).resolve().parents[1]
LABELS = list(stb.BUGS)
CHAPTERS = [p for p in chapter_sources(ROOT) if p.parent.name == "book" and p.name[:2].isdigit()]


def _quiet(call, *args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        call(*args, **kwargs)
    return out.getvalue()


def _student_fix(label: str):
    """The shown source with its wrong code written back as the right one (at the same
    place, comments kept), defined in the module's namespace, as a student's cell would
    (with the module's names imported)."""
    bug = stb.BUGS[label]
    fixed = substitution.edited_source(bug.function(), bug.old, bug.old)
    assert fixed != stb.bug_source(label)
    namespace = dict(bug.function().__globals__)
    exec(compile(fixed, f"<fix of {label}>", "exec"), namespace)
    return namespace[bug.function().__name__]


SEEDS = range(20)  # the cases of a student's seed: every one must tell the error from the fix


@pytest.mark.parametrize("label", LABELS)
def test_check_fix_rejects_the_error_and_names_it(label):
    for seed in SEEDS:
        with pytest.raises(AssertionError, match="error of this exercise"):
            _quiet(stb.check_fix, label, stb.buggy(label), random_state=seed)


@pytest.mark.parametrize("label", LABELS)
def test_check_fix_accepts_the_package_and_a_written_fix(label):
    for fn in (stb.BUGS[label].function(), _student_fix(label)):
        for seed in SEEDS:
            assert "\u2714" in _quiet(stb.check_fix, label, fn, random_state=seed)


@pytest.mark.parametrize("label", LABELS)
def test_the_shown_source_has_the_error_and_no_docstring(label):
    bug = stb.BUGS[label]
    tree = ast.parse(stb.bug_source(label)).body[0]
    assert isinstance(tree, ast.FunctionDef) and tree.name == bug.function().__name__
    assert not (isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant))
    assert ast.dump(substitution.fragment(bug.new)) in {ast.dump(n) for n in ast.walk(tree)}
    assert ast.dump(substitution.fragment(bug.old)) not in {ast.dump(n) for n in ast.walk(tree)}


@pytest.mark.parametrize("label", LABELS)
def test_planted_runs_the_error_in_the_package_and_undoes_it(label):
    bug = stb.BUGS[label]
    function = bug.function()
    names = function.__code__.co_varnames[:function.__code__.co_argcount]
    case = dict(zip(names, bug.cases(np.random.default_rng(5))[1]))
    right = np.asarray(function(**_fresh(case)), dtype=float)
    with pytest.raises(RuntimeError):
        with stb.planted(label):
            wrong = np.asarray(function(**_fresh(case)), dtype=float)
            raise RuntimeError("the block fails: the package must still be restored")
    assert not np.allclose(wrong, right, rtol=1e-9, atol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(np.asarray(function(**_fresh(case)), dtype=float), right)


def test_every_error_is_a_mutant_of_its_chapter():
    by_edit = {(m.chapter, m.key, m.old, m.new) for m in mutants.MUTANTS}
    for bug in stb.BUGS.values():
        assert (bug.chapter, bug.key, bug.old, bug.new) in by_edit, bug.label


def test_one_exercise_per_chapter_showing_the_function_and_checking_the_fix():
    chapters = {bug.chapter: bug.label for bug in stb.BUGS.values()}
    assert sorted(chapters) == sorted(p.relative_to(ROOT).as_posix() for p in CHAPTERS)
    assert len(chapters) == len(stb.BUGS)
    for path in CHAPTERS:
        text = path.read_text(encoding="utf-8")
        label = chapters[path.relative_to(ROOT).as_posix()]
        assert re.search(rf"^:label: {label}$", text, re.M), f"{path.name}: no exercise {label}"
        assert re.search(rf"^```{{bug-source}} {label}$", text, re.M), f"{path.name}: {label} not shown"
        assert text.count(f'check_fix("{label}"') >= 2, \
            f"{path.name}: {label}'s statement and solution must both call check_fix"
        assert re.search(rf"^:::{{solution}} {label}$", text, re.M), f"{path.name}: {label} unsolved"


def test_the_instructors_page_lists_them():
    text = (ROOT / "book" / "appendix" / "instructors.md").read_text(encoding="utf-8")
    for label, bug in stb.BUGS.items():
        assert f"{{ref}}`{label}`" in text and bug.function().__name__ in text, label


def test_the_notebooks_show_the_function():
    res = reader_notebooks.Resolver({}, "x")
    text = reader_notebooks.convert_markdown("```{bug-source} ex-bug-oob\n```\n", res)
    assert text.startswith("```python\ndef oob_fraction_exact(") and "{bug-source}" not in text


@pytest.mark.parametrize("call", [stb.show_bug, stb.buggy, stb.bug_source])
def test_bad_labels_are_named(call):
    with pytest.raises(TypeError, match="label"):
        call(3)
    with pytest.raises(ValueError, match="ex-bug-oob"):
        call("ex-bug-nothing")
    with pytest.raises(ValueError, match="label"):
        stb.check_fix("ex-bug-nothing", print)
