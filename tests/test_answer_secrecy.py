"""No answer of any variant can be obtained from what a student has; the instructors' tool lists them.

A student has the student edition (its pages, the API page among them), the
student notebooks and the installed runtime ``ensembles_verified``. The test tries
each way an answer could leak:

* **the API page**: the text autodoc renders for the modules the student
  edition's API page documents (their docstrings and their public members'), and
  the built page itself when the student edition has been built, holds no answer
  at its stated precision and names no function that gives one (``answer_key``);
* **the public names** of ``ensembles_verified.answers``: none is ``answer_key``,
  and what ``variant`` and ``describe`` return (the parameters, the question in
  words) holds no answer; a question's record holds no answer either;
* **the package's files**: every file of the installed runtime (the digests
  included) is searched for each answer of the book's version and of sample
  variants, written at the question's stated precision and with more digits, and
  for each formula answer; the digests are slow (PBKDF2 with at least 20,000
  iterations) and salted by question and variant;
* **the self-checks' messages** on a wrong function show no reference value.

And the instructors' side still works: the stored digests agree with the answer
bank (a question whose answer changes without new digests fails here, naming
``python -m tools.answer_digests``), and ``python -m tools.variants --print`` lists
every answer, which the checks accept.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ensembles_verified
from ensembles_verified import answers, selfcheck
from ensembles_verified.answers import QUESTIONS, check_answer, describe, rounded, variant
from tools.answer_bank import ANSWERS, answer_key
from tools.answer_digests import stale
from tools.chapters import ROOT
from tools.exercise_sources import answer_strings, occurs

SAMPLE = (None, 0, 1, 17, 999)
NUMERIC = sorted(label for label, q in QUESTIONS.items() if not q.variables)
FORMULAS = sorted(set(QUESTIONS) - set(NUMERIC))
API_PAGE = ROOT / "book" / "appendix" / "api_runtime.md"


def _forms(label: str, seed) -> set[str]:
    """An answer as a student might search for it: at the stated precision, and more digits."""
    from decimal import Decimal

    right = answer_key(label, seed)
    q = QUESTIONS[label]
    kind, k = q.precision
    forms = {repr(right), format(Decimal(rounded(right, q.precision)), "f")}
    for extra in (0, 1, 2, 4):
        forms.add(f"{right:.{k + extra}f}" if kind == "decimals" else f"{right:.{k + extra}g}")
        if kind == "significant" and abs(right) >= 1:
            forms.add(f"{right:.{max(k + extra - len(str(int(abs(right)))), 0)}f}")
    return {f for f in forms if len(re.sub(r"\D", "", f).strip("0")) >= 3}


def _documented_text() -> str:
    """What autodoc renders for the runtime modules of the API page: docstrings of modules and members."""
    import importlib

    modules = re.findall(r"automodule:: (ensembles_verified[\w.]*)", API_PAGE.read_text())
    assert "ensembles_verified.answers" in modules
    parts = []
    for name in modules:
        module = importlib.import_module(name)
        parts.append(module.__doc__ or "")
        for member in getattr(module, "__all__", []):
            obj = getattr(module, member)
            parts += [member, inspect.getdoc(obj) or ""]
            if callable(obj):
                try:
                    parts.append(str(inspect.signature(obj)))
                except (TypeError, ValueError):
                    pass
    return "\n".join(parts)


def _assert_no_answer(text: str, where: str, skip_short: bool = False) -> None:
    for label in NUMERIC:
        for seed in SAMPLE:
            for form in _forms(label, seed):
                if skip_short and len(re.sub(r"\D", "", form).strip("0")) < 4:
                    continue
                assert not occurs(form, text), f"{where}: the answer of {label} (seed {seed}): {form}"
    for label in FORMULAS:
        assert ANSWERS[label].formula.replace(" ", "") not in text.replace(" ", ""), (where, label)


def test_the_api_page_documents_no_answer_and_no_key():
    text = _documented_text()
    assert "answer_key" not in text
    assert "tools.answer_bank" not in API_PAGE.read_text() and "answer_digests" not in \
        API_PAGE.read_text().replace("answer_digests.json", "")
    _assert_no_answer(text, "the API page's documented text")
    built = ROOT / "_build" / "student" / "html" / "book" / "appendix" / "api_runtime.html"
    if built.is_file():  # the student edition has been built: its page too
        page = built.read_text(encoding="utf-8")
        assert "answer_key" not in page
        _assert_no_answer(re.sub(r"<[^>]+>", " ", page), "the student edition's API page")


def test_the_public_names_give_no_answer():
    assert not hasattr(answers, "answer_key")
    assert all("answer_key" not in name and "answer_value" not in name for name in dir(answers))
    for label in QUESTIONS:
        record = repr(QUESTIONS[label])
        for seed in SAMPLE:
            said = f"{variant(label, seed)} {describe(label, seed)} {record}"
            said = said.replace(repr(QUESTIONS[label].book), "")  # the book's own parameters
            if label in NUMERIC:
                for form in _forms(label, seed):
                    assert not occurs(form, said.replace(str(variant(label, seed)), "")), (label, form)
            else:
                assert ANSWERS[label].formula.replace(" ", "") not in said.replace(" ", "")


def test_the_package_files_hold_no_answer():
    package = Path(ensembles_verified.__file__).parent
    files = [p for p in package.rglob("*") if p.is_file() and p.suffix in (".py", ".json", ".txt")]
    assert answers.DIGESTS in files
    table = json.loads(answers.DIGESTS.read_text())
    digests = [s for entry in table["questions"].values()
               for slots in [entry["book"], *entry.get("variants", [])] for s in slots]
    assert all(len(s) % 12 == 0 and re.fullmatch(r"[A-Za-z0-9_=.-]+", s) for s in digests)
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":  # the parameters written in the question bank are not answers
            text = re.sub(r"book=\{[^}]*\}", "", text)
        if path == answers.DIGESTS:  # the digests are base64 (their digits are no numbers):
            text = re.sub(r'"[A-Za-z0-9_=.-]{12,}"', '""', text)  # what is left is searched
        _assert_no_answer(text, str(path.relative_to(package)))
    assert table["iterations"] >= 20_000 and len(table["salt"]) >= 16
    assert set(table["questions"]) == set(QUESTIONS)
    assert "answer" not in {k for entry in table["questions"].values() for k in entry}


def test_the_digests_are_up_to_date_with_the_answer_bank():
    table = json.loads(answers.DIGESTS.read_text())
    old = stale(table)
    assert not old, (f"the stored answer digests of {old} are out of date: run "
                     f"`python -m tools.answer_digests --labels {' '.join(old)}`")


def test_the_digests_differ_by_variant():
    """The same rounded answer has a different digest in every question and variant (salted)."""
    table = json.loads(answers.DIGESTS.read_text())
    first = [s for entry in table["questions"].values()
             for s in [entry["book"][0][:12]] + [v[0][:12] for v in entry.get("variants", [])[:50]]]
    assert len(set(first)) == len(first)


def test_self_check_messages_show_no_reference_value():
    from ensemble_ref import oob_fraction_exact

    with pytest.raises(AssertionError) as info:
        selfcheck.check_oob_fraction(lambda N: 0.5, random_state=4)
    message = str(info.value)
    N = int(re.search(r"your_function\(N=(\d+)\)", message).group(1))
    for form in answer_strings(float(oob_fraction_exact(N))):
        assert not occurs(form, message), message
    assert "expected" not in message and "(1 - 1/N)" not in message and "look at: eq-" in message
    with pytest.raises(AssertionError) as info:
        selfcheck.check_leaf_weight(lambda G, H, lam: -G / H, random_state=4)
    assert "H + lambda" not in str(info.value) and "without the penalty lambda" in str(info.value)


def test_the_instructors_tool_lists_every_answer(capsys):
    proc = subprocess.run([sys.executable, "-m", "tools.variants", "--print", "--seeds", "3", "999"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for label, q in QUESTIONS.items():
        for seed in (None, 3, 999):
            if seed is not None and q.draw is None:
                continue
            tag = f"{label} [{'book' if seed is None else f'seed {seed}'}] "
            line = next(line for line in lines if line.startswith(tag))
            value = line.rsplit(": ", 1)[1]
            assert value == str(answer_key(label, seed))
            check_answer(label, value if q.variables else float(value), seed=seed)
            assert "\u2714" in capsys.readouterr().out


def test_a_check_costs_about_a_slow_digest():
    import time

    start = time.perf_counter()
    with pytest.raises(AssertionError):
        check_answer("ex-bv-mean", 123.0, seed=5)
    assert time.perf_counter() - start >= 0.004  # PBKDF2 at its iterations, even on a fast core
    assert np.isfinite(answer_key("ex-bv-mean", 5))
