"""Run chapters with other seeds and report, per claim, how often it failed.

Every random draw of a chapter derives from its one seed (``ChapterSeed``), and
the environment variable ``ENSEMBLES_VERIFIED_SEED`` replaces it without editing
the chapter. This tool executes each chapter's MyST source once per seed, with
the claims in ``explain`` mode (a failing claim is recorded and the chapter runs
on, so every failing claim of a run is counted), and reads the claims' ledgers.

    python -m tools.seed_sweep --seeds 20                     # every chapter, seeds 1..20
    python -m tools.seed_sweep --seeds 10 --first 101 book/06_random_forests.md
    python -m tools.seed_sweep --seed-list 3 17 book/08_adaboost.md --jobs 2
    python -m tools.seed_sweep --published                     # each chapter's own seed

After the chapter, the code of every exercise's solution runs with the same seed
(``--no-solutions`` skips it): an experiment's checked conclusions must hold for
every seed too. A run passes when no claim failed, no cell raised and no solution's
code raised. The report (Markdown on
standard output, JSON in ``--out``) gives each chapter's pass rate and every claim
that failed at least once, with the seeds it failed for.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ensembles_verified.claims import LEDGER_ENV, MODE_ENV
from ensembles_verified.seeds import SEED_ENV

ROOT = Path(__file__).resolve().parents[1]
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def chapters_in_toc() -> list[Path]:
    """The executable chapters of ``_toc.yml``, in order (MyST notebooks)."""
    from tools.chapters import chapter_sources

    return chapter_sources(ROOT)


def run_solutions(md: Path) -> list[dict]:
    """Run the code of every solution of the chapter ``md`` with the seed in the environment;
    one record per block, failed when it raised (an assert that does not hold for the seed)."""
    from tools.exercise_sources import solution_code

    records = []
    for label, k, code in solution_code(md.read_text(encoding="utf-8")):
        try:
            exec(compile(code, f"<solution of {label}>", "exec"), {"__name__": "__solution__"})
            error = ""
        except Exception as exc:  # noqa: BLE001 -- every failure of a solution is reported
            error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
        records.append({"chapter": "solutions", "number": f"{label}:{k}", "passed": not error,
                        "statement": f"the solution of {label} (block {k}) holds",
                        "measured": error, "expected": "", "margin": "", "label": ""})
    return records


def run_once(job: tuple[str, int | None, int, bool]) -> dict:
    """Execute one chapter with one seed, then its solutions' code; the claims' and the
    solutions' records and any error of the chapter."""
    import jupytext
    from nbclient import NotebookClient

    md, seed, threads, solutions = Path(job[0]), job[1], job[2], job[3]
    with tempfile.TemporaryDirectory() as ledger:
        os.environ.update({MODE_ENV: "explain", LEDGER_ENV: ledger})
        if seed is None:  # the chapter's published seed
            os.environ.pop(SEED_ENV, None)
        else:
            os.environ[SEED_ENV] = str(seed)
        os.environ.update({var: str(threads) for var in THREADS})
        nb = jupytext.read(md)
        error = ""
        start = time.perf_counter()
        try:
            NotebookClient(nb, timeout=1800, kernel_name="python3",
                           resources={"metadata": {"path": str(md.parent)}}).execute()
        except Exception as exc:  # a cell raised: the run fails, its claims so far still count
            lines = [line for line in str(exc).splitlines() if line.strip()]
            error = lines[-1][:300] if lines else traceback.format_exc(limit=1)[-300:]
        solution_records = run_solutions(md) if solutions else []
        seconds = time.perf_counter() - start
        records = []
        for path in sorted(Path(ledger).glob("*.jsonl")):
            records += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        records += solution_records
    failed = [{"ledger": r["chapter"], "number": r["number"], "statement": r["statement"],
               "measured": r["measured"], "expected": r["expected"], "margin": r["margin"]}
              for r in records if not r["passed"]]
    labels = sorted({r["label"] for r in records if r.get("label") and r["passed"]})
    return {"chapter": md.relative_to(ROOT).as_posix(), "seed": seed, "seconds": round(seconds, 1),
            "claims": len(records), "labels": labels, "failed": failed, "error": error}


def summarise(runs: list[dict]) -> dict:
    """Per chapter: runs, passes, pass rate, and each failing claim with its seeds."""
    chapters: dict[str, dict] = {}
    for run in runs:
        entry = chapters.setdefault(run["chapter"], {"runs": 0, "passed": 0, "claims": 0,
                                                     "failing": {}, "errors": [], "seconds": 0.0})
        entry["runs"] += 1
        entry["seconds"] += run["seconds"]
        entry["claims"] = max(entry["claims"], run["claims"])
        entry["passed"] += int(not run["failed"] and not run["error"])
        if run["error"]:
            entry["errors"].append({"seed": run["seed"], "error": run["error"]})
        for claim in run["failed"]:
            key = f"{claim['ledger']}#{claim['number']}"
            slot = entry["failing"].setdefault(key, {"statement": claim["statement"], "seeds": []})
            slot["seeds"].append(run["seed"])
    for entry in chapters.values():
        entry["pass_rate"] = entry["passed"] / entry["runs"]
    return chapters


def _seed_name(seed: int | None) -> str:
    return "published" if seed is None else str(seed)


def markdown(chapters: dict) -> str:
    lines = ["| chapter | claims | runs | passed | pass rate | failing claims (seeds) |",
             "|---|---:|---:|---:|---:|---|"]
    for name, e in chapters.items():
        fails = "; ".join(f"{key} {v['statement'][:70]!r} (seeds {', '.join(map(_seed_name, v['seeds']))})"
                          for key, v in e["failing"].items())
        errors = "; ".join(f"seed {_seed_name(x['seed'])}: {x['error'][:80]}" for x in e["errors"])
        lines.append(f"| {Path(name).stem} | {e['claims']} | {e['runs']} | {e['passed']} | "
                     f"{e['pass_rate']:.0%} | {fails}{' ERRORS: ' + errors if errors else ''} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", help="MyST sources (default: every chapter of _toc.yml)")
    parser.add_argument("--seeds", type=int, default=20, help="how many seeds (default 20)")
    parser.add_argument("--first", type=int, default=1, help="the first seed (default 1)")
    parser.add_argument("--seed-list", type=int, nargs="+", help="these seeds instead")
    parser.add_argument("--published", action="store_true", help="each chapter's published seed only")
    parser.add_argument("--jobs", type=int, default=2, help="chapters executed at once (default 2)")
    parser.add_argument("--no-solutions", action="store_true",
                        help="run the chapters only, not the code of their exercises' solutions")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "seed_sweep.json")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.jobs < 1:
        parser.error("--seeds and --jobs must be at least 1")
    seeds = [None] if args.published else (args.seed_list or list(range(args.first, args.first + args.seeds)))
    chapters = [Path(c).resolve() for c in args.chapters] or chapters_in_toc()
    threads = 1 if args.jobs > 1 else os.cpu_count() or 1
    # The longest chapters first, so the last jobs are short ones.
    jobs = sorted(((str(md), s, threads, not args.no_solutions) for md in chapters for s in seeds),
                  key=lambda job: -Path(job[0]).stat().st_size)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        runs = []
        for run in pool.map(run_once, jobs):
            runs.append(run)
            status = "ok" if not run["failed"] and not run["error"] else (
                f"{len(run['failed'])} claim(s) failed" + (f"; error: {run['error'][:100]}" if run["error"] else ""))
            print(f"{Path(run['chapter']).stem} seed {_seed_name(run['seed'])}: {status} "
                  f"({run['seconds']} s)",
                  file=sys.stderr, flush=True)
    chapters_report = summarise(runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"seeds": seeds, "seconds": round(time.perf_counter() - start, 1),
                                    "chapters": chapters_report, "runs": runs}, indent=1))
    print(markdown(chapters_report))
    return 0 if all(e["passed"] == e["runs"] for e in chapters_report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
