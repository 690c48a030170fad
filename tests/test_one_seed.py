"""Every random draw of a chapter derives from its one seed.

A chapter sets ``SEED = <int>`` in one line and draws everything random through
``ChapterSeed(SEED)`` (``seed("name")`` for a ``random_state``, ``seed.rng("name")``
for a ``Generator``). Then re-executing a chapter gives the same outputs, a reader
who changes that one number changes every draw, and the test run can execute the
chapter with another seed (``ENSEMBLES_VERIFIED_SEED``, ``tools/fresh_env.py``).
This test reads every code cell of every chapter (exercise solutions included) and
fails on a literal seed, an unseeded generator or NumPy's global random state.
The numbers of exercise variants (``check_answer(label, value, seed=17)``,
``variant(label, 17)``) are a student's variant, not a random draw, and are allowed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools.chapters import ROOT, chapter_notebooks

CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()]
SEED_LINE = re.compile(r"^SEED = (\d+)\b", re.M)
LITERAL = re.compile(r"\b(random_state|random_seed|seed)\s*=\s*\d|default_rng\(\s*\d|"
                     r"SeedSequence\(\s*\d|RandomState\(\s*\d")
UNSEEDED = re.compile(r"default_rng\(\s*\)|np\.random\.(seed|rand|randn|randint|normal|uniform|choice|"
                      r"shuffle|permutation)\(")
VARIANT = re.compile(r"\b(check_answer|variant|answer_key)\(")


def code_lines(md: Path) -> list[tuple[int, str]]:
    """(line number, code without its comment) of every line inside a code cell."""
    out, inside = [], False
    for number, line in enumerate(md.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("```{code-cell}"):
            inside = True
        elif inside and line.startswith("```"):
            inside = False
        elif inside:
            out.append((number, re.sub(r"#.*$", "", line)))
    return out


def test_literal_seeds_are_found():
    assert LITERAL.search("X, y = make_circle(100, random_state=3)")
    assert LITERAL.search("rng = np.random.default_rng(0)")
    assert not LITERAL.search("X, y = make_circle(100, random_state=seed('training set'))")
    assert UNSEEDED.search("rng = np.random.default_rng()")
    assert VARIANT.search('check_answer("ex-bv-mean", 0.1, seed=17)')


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_every_random_draw_derives_from_the_chapter_seed(md):
    lines = code_lines(md)
    code = "\n".join(line for _, line in lines)
    if not re.search(r"seed|random|rng|sample|shuffle", code, re.I):
        return  # a page without randomness
    assert len(SEED_LINE.findall(code)) == 1, f"{md.name}: set the chapter's seed in one line, SEED = <int>"
    assert "ChapterSeed(SEED)" in code, f"{md.name}: derive the draws with seed = ChapterSeed(SEED)"
    bad = [f"line {n}: {line.strip()}" for n, line in lines
           if (LITERAL.search(line) and not VARIANT.search(line)) or UNSEEDED.search(line)]
    assert not bad, (f"{md.relative_to(ROOT)}: random draws not derived from the chapter's seed "
                     "(use seed('name') or seed.rng('name')):\n  " + "\n  ".join(bad))


def test_chapters_have_distinct_seeds():
    seeds = {}
    for md in CHAPTERS:
        found = SEED_LINE.findall("\n".join(line for _, line in code_lines(md)))
        if found:
            seeds.setdefault(found[0], []).append(md.stem)
    shared = {s: names for s, names in seeds.items() if len(names) > 1}
    assert not shared, f"chapters sharing a seed: {shared}"
