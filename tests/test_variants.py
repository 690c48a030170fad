"""Per-student variants: the command writes two different variant sets whose keys the checks accept.

``tools/variants.py`` is run as documented (a subprocess) for two classes with
different seeds. Then

* both runs succeed and write the hand-out, the answer key (Markdown and JSON);
* the two sets differ: the parameters of the variant exercises and the seeds of
  the self-checks are not the same;
* every answer of both keys is accepted by the same check the students use,
  ``check_answer(label, answer, seed=seed)``, and for every self-checked
  exercise of the key, the reference solution passes the same self-check on the
  variant's cases (``random_state=seed``) while a wrong one fails;
* the hand-out contains no answer; a class list in CSV works; a non-empty output
  folder is refused without ``--overwrite``.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from selfcheck_cases import CASES  # noqa: E402

from ensembles_verified import spot_the_bug  # noqa: E402
from ensembles_verified.answers import QUESTIONS, check_answer  # noqa: E402
from tools.chapters import ROOT  # noqa: E402
from tools.exercise_sources import answer_strings, occurs  # noqa: E402

TOOL = ROOT / "tools" / "variants.py"
CLASSES = {"a": [101, 102, 103], "b": [201, 202, 203]}


def run_tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def sets(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    out = {}
    for name, seeds in CLASSES.items():
        folder = tmp_path_factory.mktemp(f"class-{name}")
        proc = run_tool("--seeds", *map(str, seeds), "--out", str(folder), "--overwrite")
        assert proc.returncode == 0, proc.stderr
        assert "students" in proc.stdout
        out[name] = (folder, json.loads((folder / "answer_key.json").read_text()))
    return out


def test_the_files_are_written(sets):
    for folder, key in sets.values():
        assert {p.name for p in folder.iterdir()} == {"variants.md", "answer_key.md",
                                                       "answer_key.json"}
        assert len(key) == 3


def test_the_two_sets_differ(sets):
    (_, a), (_, b) = sets["a"], sets["b"]
    params_a = [e.get("parameters") for s in a.values() for e in s["exercises"].values()]
    params_b = [e.get("parameters") for s in b.values() for e in s["exercises"].values()]
    assert params_a != params_b
    first_a, first_b = next(iter(a.values())), next(iter(b.values()))
    assert first_a["exercises"].keys() == first_b["exercises"].keys()
    differ = [label for label, e in first_a["exercises"].items() if "parameters" in e
              and e["parameters"] != first_b["exercises"][label]["parameters"]]
    assert len(differ) >= 0.7 * sum("parameters" in e and QUESTIONS[label].draw is not None
                                    for label, e in first_a["exercises"].items())


def test_the_keys_pass_the_students_checks(sets, capsys):
    for _, key in sets.values():
        for student in key.values():
            seed = student["seed"]
            for label, entry in student["exercises"].items():
                if "answer" in entry:
                    check_answer(label, entry["answer"], seed=seed)
                    assert capsys.readouterr().out.startswith(f"\u2714 {label}: right")


def test_the_self_checks_of_the_keys_use_the_variant_seed(sets, capsys):
    calls = 0
    for _, key in sets.values():
        for student in key.values():
            seed = student["seed"]
            for label, entry in student["exercises"].items():
                for call in entry.get("self_checks", []):
                    assert f"random_state={seed})" in call
                    module, name = re.match(r"from (\S+) import (\w+);", call).groups()
                    check = getattr(importlib.import_module(module), name)
                    if name == "check_fix":  # spot the bug: the package's function and its error
                        assert f"check_fix({label!r}, your_function" in call
                        check = functools.partial(check, label)
                        right, wrong = spot_the_bug.BUGS[label].function(), spot_the_bug.buggy(label)
                    else:
                        right, wrong = CASES[name][0][0], CASES[name][1][0]
                    check(right, random_state=seed)
                    assert "\u2714" in capsys.readouterr().out
                    with pytest.raises(AssertionError, match=f"random_state={seed} repeats"):
                        check(wrong, random_state=seed)
                    calls += 1
    assert calls >= 20


def test_the_hand_out_shows_no_answer(sets):
    for folder, key in sets.values():
        text = (folder / "variants.md").read_text()
        for student in key.values():
            assert f"seed {student['seed']}" in text
            for label, entry in student["exercises"].items():
                if isinstance(entry.get("answer"), float):
                    shown = text.replace(str(entry.get("parameters")), "")
                    for form in answer_strings(entry["answer"]):
                        assert not occurs(form, shown), (label, form)
        assert "answer:" not in text and "answer:" in (folder / "answer_key.md").read_text()


def test_class_list_and_refusals(tmp_path):
    roster = tmp_path / "class.csv"
    roster.write_text("name,seed\nAda,7\nBrook,8\n")
    out = tmp_path / "out"
    proc = run_tool("--class-list", str(roster), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    key = json.loads((out / "answer_key.json").read_text())
    assert sorted(key) == ["Ada", "Brook"] and key["Ada"]["seed"] == 7
    again = run_tool("--class-list", str(roster), "--out", str(out))
    assert again.returncode == 2 and "not empty" in again.stderr
    same = run_tool("--seeds", "5", "5", "--out", str(tmp_path / "x"))
    assert same.returncode == 2 and "distinct" in same.stderr
    inside = run_tool("--seeds", "5", "--out", str(ROOT / "book" / "variants"))
    assert inside.returncode == 2 and "outside" in inside.stderr
