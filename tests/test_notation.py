"""One symbol per quantity: the symbols the notation page retired stay out of the chapters.

``book/front/notation.md`` gives each quantity one symbol (the edge gamma, the weighted
error epsilon_t, the learning rate nu, the penalty per leaf tau, M members, J leaves).
The symbols other texts use for the same quantities may appear in a chapter's
mathematics only in the sentence that says so ("the XGBoost paper writes ..."): a line
of prose that contains "write". Code cells are not read.
"""

from __future__ import annotations

import re

import pytest

from tools.chapters import ROOT, chapter_sources

CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```", flags=re.S | re.M)
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$|^```\{math\}.*?^```", flags=re.S | re.M)
TRANSPOSE = re.compile(r"\^\{?T\}?")

# (what the chapters must not write, the pattern, the chapters where it is the book's symbol)
RETIRED = [
    ("the learning rate as eta (the book writes nu)", r"\\eta\b", ()),
    ("the penalty per leaf or a leaf value as gamma (the book writes tau and w_j)",
     r"\\gamma", ("01_introduction", "03_wisdom_of_crowds", "06_random_forests", "08_adaboost")),
    ("a count of members, a tree's leaves or a crowd as T (the book writes M and J)",
     r"(?<![\\A-Za-z])T(?![A-Za-z])", ("04_decision_trees",)),
    ("the cost-complexity parameter or another weight as alpha (alpha is AdaBoost's vote)",
     r"\\alpha", ("01_introduction", "08_adaboost", "formulas_to_libraries")),
    ("the edge as epsilon (the book writes p = 1/2 + gamma)",
     r"\\tfrac12\s*\+\s*\\(var)?epsilon\b(?!_)|\\(var)?epsilon\s*=\s*\\?[a-z]*p\b", ()),
]


def math_lines(text: str) -> list[tuple[int, str, str]]:
    """(line number, the line, one mathematical span on it) for the prose of a chapter."""
    prose = CODE_CELL.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for m in MATH.finditer(prose):
        first = prose.count("\n", 0, m.start()) + 1
        lines = prose.splitlines()
        context = " ".join(lines[max(first - 2, 0):first + m.group(0).count("\n") + 1])
        out.append((first, context, TRANSPOSE.sub("", m.group(0))))
    return out


@pytest.mark.parametrize("source", chapter_sources(), ids=lambda p: p.stem)
def test_retired_symbols_stay_out(source):
    found = []
    for what, pattern, home in RETIRED:
        if source.stem in home:
            continue
        for line, context, span in math_lines(source.read_text(encoding="utf-8")):
            if re.search(pattern, span) and "write" not in context:
                found.append(f"line {line}: {what}: {span.strip()[:80]}")
    assert not found, f"{source.relative_to(ROOT)} uses a retired symbol:\n" + "\n".join(found)


def test_notation_page_names_every_retired_symbol_once():
    page = (ROOT / "book" / "front" / "notation.md").read_text(encoding="utf-8")
    for symbol in (r"\nu", r"\tau", r"\gamma", r"\epsilon_t", "$M$", "$J$", r"\alpha_t"):
        assert symbol in page, f"the notation page does not define {symbol}"
