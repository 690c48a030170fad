"""Write per-student variants of the exercises and their answer key: the instructors' edition.

Usage (from the repository root)::

    python -m tools.variants --seeds 101 102 103 --out _build/variants
    python -m tools.variants --class-list class.csv --out _build/variants   # columns: name,seed
    python -m tools.variants --print                # the book's answers and seed 0's, on screen
    python -m tools.variants --print --seeds 17     # the answers of seed 17's variant

Every student gets a seed from 0 to 999 (the seeds whose answers the book's
runtime can check).
Every student gets a seed. For each exercise with an answer check
(``ensembles_verified.answers``) the seed fixes the exercise's parameters (the
data sizes, rates and constants of the statement); for each self-checked coding
exercise it fixes the cases of the self-check (its ``random_state``). The command
writes into ``--out`` (a new or empty folder, or any folder with ``--overwrite``):

* ``variants.md``: one section per student, to hand out: for each exercise, the
  question with the student's values, and the calls that check the work
  (``check_answer(label, answer, seed=...)``, ``check_...(f, random_state=...)``);
* ``answer_key.json`` and ``answer_key.md``: for each student and exercise, the
  answer of the variant (a number, or one right formula) and the self-check calls.

The answer key is computed from ``ensemble_ref`` by the answer bank of the
instructors' tooling (``tools/answer_bank.py``), the functions whose rounded
values ``tools/answer_digests.py`` stored as digests for the checks, so
``check_answer(label, key[label], seed=seed)`` accepts every entry. Neither the
answers nor the functions are part of the book's runtime or the student edition.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

from tools.chapters import chapter_sources

ROOT = Path(__file__).resolve().parents[1]

_EXERCISE = re.compile(r"^(:{3,})\{exercise\}[^\n]*\n(?P<body>.*?)^\1[ \t]*$", re.M | re.S)
_LABEL = re.compile(r"^:label:\s*(\S+)", re.M)
_CHECK = re.compile(r"\b(check_[a-z_]+)\(")
_MODULE = re.compile(r"from\s+(ensembles_verified[\w.]*)\s+import\s+([^\n]+)")


def exercises(root: Path = ROOT) -> list[dict]:
    """Every exercise of the book with its label, chapter and the self-checks its statement calls."""
    found = []
    for md in chapter_sources(root):
        text = md.read_text(encoding="utf-8")
        for match in _EXERCISE.finditer(text):
            body = match.group("body")
            label = _LABEL.search(body)
            if label is None:
                continue
            modules = {}
            for module, names in _MODULE.findall(body):
                for name in re.findall(r"check_[a-z_]+", names):
                    modules[name] = module
            checks = list(dict.fromkeys(_CHECK.findall(body)))
            found.append({"label": label.group(1), "chapter": md.stem,
                          "checks": [(modules.get(c, "ensembles_verified.selfcheck"), c) for c in checks
                                     if c != "check_answer"]})
    return found


def variant_set(seeds: dict[str, int], root: Path = ROOT) -> dict:
    """The variants and answer key of a class: ``{student: {label: entry}}``."""
    from ensembles_verified import answers
    from tools.answer_bank import answer_key

    out = {}
    for student, seed in seeds.items():
        entries = {}
        for ex in exercises(root):
            label = ex["label"]
            entry = {}
            if label in answers.QUESTIONS:
                entry["question"] = answers.describe(label, seed)
                entry["parameters"] = answers.variant(label, seed)
                entry["answer"] = answer_key(label, seed)
                entry["check"] = f"check_answer({label!r}, your_answer, seed={seed})"
            if ex["checks"]:
                # check_fix (spot the bug) names its exercise first
                entry["self_checks"] = [f"from {m} import {c}; {c}("
                                        f"{repr(label) + ', ' if c == 'check_fix' else ''}"
                                        f"your_function, random_state={seed})"
                                        for m, c in ex["checks"]]
            if entry:
                entry["chapter"] = ex["chapter"]
                entries[label] = entry
        out[student] = {"seed": seed, "exercises": entries}
    return out


def _markdown(variants: dict, key: bool) -> str:
    lines = ["# Answer key" if key else "# Exercise variants", ""]
    for student, data in variants.items():
        lines += [f"## {student} (seed {data['seed']})", ""]
        for label, entry in data["exercises"].items():
            lines.append(f"- **{label}** ({entry['chapter']})")
            if "question" in entry:
                lines.append(f"  - question: {entry['question']}")
                if key:
                    lines.append(f"  - answer: {entry['answer']}")
                lines.append(f"  - check: `from ensembles_verified.answers import check_answer; "
                             f"{entry['check']}`")
            for call in entry.get("self_checks", []):
                lines.append(f"  - self-check: `{call}`")
        lines.append("")
    return "\n".join(lines)


def write_variants(seeds: dict[str, int], output: Path, overwrite: bool = False,
                   root: Path = ROOT) -> list[Path]:
    out = Path(output).expanduser().resolve()
    book = (root / "book").resolve()
    if out == book or out.is_relative_to(book):
        raise ValueError(f"output must be outside {book}, got {out}.")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise ValueError(f"output folder {out} is not empty; choose another or pass --overwrite.")
    variants = variant_set(seeds, root)
    out.mkdir(parents=True, exist_ok=True)
    hand_out = {s: {"seed": d["seed"], "exercises": {
        label: {k: v for k, v in e.items() if k != "answer"} for label, e in d["exercises"].items()}}
        for s, d in variants.items()}
    paths = [out / "variants.md", out / "answer_key.md", out / "answer_key.json"]
    paths[0].write_text(_markdown(hand_out, key=False), encoding="utf-8")
    paths[1].write_text(_markdown(variants, key=True), encoding="utf-8")
    paths[2].write_text(json.dumps(variants, indent=1), encoding="utf-8")
    return paths


def read_class_list(path: Path) -> dict[str, int]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or not {"name", "seed"} <= set(rows[0]):
        raise ValueError(f"{path} must be a CSV file with the columns name and seed.")
    return {row["name"]: int(row["seed"]) for row in rows}


def answer_table(seeds: list[int | None]) -> str:
    """The answers of every question for the book (``None``) and the given seeds, as text."""
    from ensembles_verified.answers import QUESTIONS, describe
    from tools.answer_bank import answer_key

    lines = []
    for label in sorted(QUESTIONS):
        for seed in seeds:
            if seed is not None and QUESTIONS[label].draw is None:
                continue
            lines.append(f"{label} [{'book' if seed is None else f'seed {seed}'}] "
                         f"{describe(label, seed)}: {answer_key(label, seed)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write exercise variants and their answer key.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--seeds", type=int, nargs="+", help="one seed (0 to 999) per student")
    group.add_argument("--class-list", type=Path, help="CSV file with the columns name and seed")
    parser.add_argument("--print", action="store_true",
                        help="print the answer key of the book and of --seeds (default: seed 0)")
    parser.add_argument("--out", type=Path, help="folder to write to")
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    if args.print:
        print(answer_table([None, *(args.seeds or [0])]))
        return 0
    if args.out is None or not (args.seeds or args.class_list):
        parser.error("--out and one of --seeds, --class-list are required (or --print)")
    try:
        if args.seeds and len(set(args.seeds)) != len(args.seeds):
            raise ValueError("seeds must be non-negative and distinct.")
        seeds = (read_class_list(args.class_list) if args.class_list
                 else {f"student-{s}": s for s in args.seeds})
        if any(s < 0 for s in seeds.values()) or len(set(seeds.values())) != len(seeds):
            raise ValueError("seeds must be non-negative and distinct.")
        if any(s > 999 for s in seeds.values()):
            raise ValueError("seeds must be at most 999 (the variants the answer checks know).")
        paths = write_variants(seeds, args.out, args.overwrite)
    except ValueError as exc:
        parser.exit(2, f"variants: error: {exc}\n")
    for path in paths:
        print(path)
    n = len(json.loads(paths[2].read_text())[next(iter(seeds))]["exercises"])
    print(f"{len(seeds)} students, {n} exercises with variants each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
