"""Write the digests the answer checks compare with: ``runtime/ensembles_verified/answer_digests.json``.

Usage (from the repository root)::

    python -m tools.answer_digests                  # every question (about 15 minutes, 2 processes)
    python -m tools.answer_digests --labels ex-bv-mean ex-oob-subsample   # only these questions
    python -m tools.answer_digests --check          # which stored questions are out of date

For every question of ``ensembles_verified.question_bank`` and every variant (the
book's and the seeds 0 to 999), the answer of ``tools/answer_bank.py`` and the
value of each usual mistake are rounded to the question's precision and stored as
slow, salted digests (``ensembles_verified.answers.digest``: PBKDF2-SHA256, its
iterations chosen so that one check takes about 20 ms). A formula question stores
the digests of its values at the check's fixed points. The file holds no answer;
re-run the command for a question whose answer, parameters, precision or mistakes
change (``--check`` and ``tests/test_answer_secrecy.py`` find the stale ones).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ensembles_verified import answers
from ensembles_verified.question_bank import QUESTIONS
from tools.answer_bank import ANSWERS, answer_value, mistake_values

ITERATIONS = 40_000  # about 20 ms a digest on one core of a 2020s laptop
SAMPLE = (None, 0, 1, 17, 500, 999)  # the variants --check recomputes


def _slot_values(label: str, seed: int | None) -> list[tuple[float, dict]]:
    """For each point of the variant: the answer and the usual mistakes' values."""
    q = QUESTIONS[label]
    params = answers.variant(label, seed)
    if not q.variables:
        return [(float(answer_value(label, params)), mistake_values(label, params))]
    values = answers.points(q)
    right = np.asarray(answer_value(label, params, values), dtype=float)
    wrong = mistake_values(label, params, values)
    return [(float(right[i]), {k: None if v is None else float(np.broadcast_to(v, right.shape)[i])
                               for k, v in wrong.items()}) for i in range(answers.POINTS)]


def variant_slots(label: str, seed: int | None, salt: str, iterations: int) -> list[str]:
    """The stored strings of one variant: per point, the answer's digest then the mistakes'."""
    q = QUESTIONS[label]
    keys = list(q.hints)
    out = []
    for point, (right, wrong) in enumerate(_slot_values(label, seed)):
        slot = answers.slot_name(None if q.draw is None else seed, point)

        def one(value, slot=slot):
            if value is None or not np.isfinite(value):
                return answers._MISSING
            return answers.digest(answers.rounded(value, q.precision), label, slot, salt, iterations)

        out.append(one(right) + "".join(one(wrong.get(k)) for k in keys))
    return out


def _question_entry(args: tuple[str, str, int]) -> tuple[str, dict]:
    label, salt, iterations = args
    q = QUESTIONS[label]
    entry = {"precision": list(q.precision), "mistakes": list(q.hints),
             "book": variant_slots(label, None, salt, iterations)}
    if q.draw is not None:
        entry["variants"] = [variant_slots(label, s, salt, iterations) for s in answers.SEEDS]
    return label, entry


def check_bank() -> None:
    """The question bank and the answer bank name the same questions and mistakes."""
    if set(QUESTIONS) != set(ANSWERS):
        raise ValueError(f"questions without an answer: {sorted(set(QUESTIONS) - set(ANSWERS))}; "
                         f"answers without a question: {sorted(set(ANSWERS) - set(QUESTIONS))}")
    for label, q in QUESTIONS.items():
        if set(q.hints) != set(ANSWERS[label].mistakes):
            raise ValueError(f"{label}: the hints {sorted(q.hints)} and the mistakes "
                             f"{sorted(ANSWERS[label].mistakes)} differ")


def stale(table: dict, labels=None, sample=SAMPLE) -> list[str]:
    """The questions whose stored digests differ from the answer bank's on the sample of variants."""
    out = []
    for label in labels or sorted(QUESTIONS):
        q, entry = QUESTIONS[label], table.get("questions", {}).get(label)
        if entry is None or entry["precision"] != list(q.precision) \
                or entry["mistakes"] != list(q.hints) or (q.draw is not None) != ("variants" in entry):
            out.append(label)
            continue
        for seed in sample if q.draw is not None else (None,):
            stored = entry["book"] if seed is None else entry["variants"][seed]
            if stored != variant_slots(label, seed, table["salt"], table["iterations"]):
                out.append(label)
                break
    return out


def write(labels=None, jobs: int = 2) -> list[str]:
    """Write the digests of ``labels`` (every question: ``None``), keeping the others."""
    check_bank()
    path = answers.DIGESTS
    table = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if not table:
        table = {"format": 1, "salt": secrets.token_hex(16), "iterations": ITERATIONS,
                 "seeds": [answers.SEEDS.start, answers.SEEDS.stop - 1], "questions": {}}
    todo = sorted(labels or QUESTIONS)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for label, entry in pool.map(_question_entry,
                                     [(label, table["salt"], table["iterations"]) for label in todo]):
            table["questions"][label] = entry
            print(f"{label}: {1 + len(entry.get('variants', []))} variants")
    for label in set(table["questions"]) - set(QUESTIONS):
        del table["questions"][label]
    table["questions"] = dict(sorted(table["questions"].items()))
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(table, separators=(",", ":")) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    answers._table.cache_clear()
    return todo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the answer checks' digests.")
    parser.add_argument("--labels", nargs="+", help="only these questions")
    parser.add_argument("--check", action="store_true", help="list the out-of-date questions")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.check:
        check_bank()
        table = json.loads(answers.DIGESTS.read_text(encoding="utf-8"))
        old = stale(table, args.labels)
        print("\n".join(old) if old else "every question's digests are up to date")
        return 1 if old else 0
    write(args.labels, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
