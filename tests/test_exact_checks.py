"""Every equation the package implements has an exact check in the book.

A formula checked only statistically (a Monte Carlo study whose tolerance is wider
than a wrong denominator would move the result) is not verified. So each equation
label that ``ensemble_ref`` cites in its algorithms (``math``, ``trees``,
``ensembles``, ``core``) needs, somewhere in the book, a claim made with
``label="eq-..."``: ``Claims.close`` or ``Claims.holds`` refuse a label unless the
tolerance is rounding only and a rival (a plausible wrong variant of the formula:
a denominator off by one, a missing prior or penalty term, a missing square, the
wrong axis) is given, and the check must tell the rival apart (margin above 1).
The strict build records every claim in ``_build/claims``; this test reads it and
prints, per label, the chapter and claim that checks it.

``PENDING`` lists the labels that do not have such a check yet. A label that gets
one must leave the list (the test fails otherwise), and a new label cannot join it:
the list only shrinks.
"""

from __future__ import annotations

import json
import re

import pytest

from tools.chapters import ROOT

pytestmark = pytest.mark.book  # read by the stage 'html' of dodo.py, after its product is made

CITED = re.compile(r"\beq-[a-z0-9]+(?:-[a-z0-9]+)*")
LAYERS = ("math", "trees", "ensembles", "core")
LEDGER = ROOT / "_build" / "claims"

# Labels still checked only statistically or through a library comparison on random data.
PENDING = frozenset({
})


def implemented_labels() -> set[str]:
    """The equation labels cited by the package's algorithms."""
    return {label for layer in LAYERS for path in (ROOT / "ensemble_ref" / layer).rglob("*.py")
            for label in CITED.findall(path.read_text(encoding="utf-8"))}


def exact_checks() -> dict[str, list[str]]:
    """Label -> the claims of the build's ledger that check it exactly and beat their rival."""
    found: dict[str, list[str]] = {}
    for path in sorted(LEDGER.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            margin = entry.get("margin")
            beats = margin == "inf" or (margin is not None and float(margin) > 1)
            if entry.get("label") and entry["passed"] and beats:
                found.setdefault(entry["label"], []).append(f"{entry['chapter']}#{entry['number']}")
    return found


def test_pending_labels_are_implemented_labels():
    unknown = PENDING - implemented_labels()
    assert not unknown, f"PENDING names labels the package does not cite: {sorted(unknown)}"


@pytest.mark.book
def test_every_implemented_equation_has_an_exact_check(built_book):
    checks = exact_checks()
    labels = implemented_labels()
    print("\n".join(f"{label:28s} {', '.join(checks.get(label, [])) or '(pending)'}"
                    for label in sorted(labels)))
    missing = sorted(labels - set(checks) - PENDING)
    assert not missing, ("equations implemented in ensemble_ref without an exact check in the book "
                         f"(a claim with label=...): {missing}")
    done = sorted(PENDING & set(checks))
    assert not done, f"these labels now have an exact check: remove them from PENDING: {done}"
    stray = sorted(set(checks) - labels)
    assert not stray, f"claims labelled with equations the package does not implement: {stray}"
