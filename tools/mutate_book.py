"""A mutation test of the book: break one formula of ensemble_ref, the chapter must fail.

Each mutant (``tools/mutants.py``) replaces one function of the package, keyed by its
qualified name where it is defined, by a copy with one deliberate error, most of them
a statement the course notes made or a slip a careful reader could make (a gain
without the square on G, ``(1 - 1/N)^N`` read as the fraction picked, ``alpha``
without the 1/2, ...). It is applied by substitution: the function object's code is
swapped for the mutant's, so every reference to the function runs the mutant. The
chapter that states the formula is executed with the mutant in place, and it must
stop with an error (normally a :class:`ensembles_verified.ClaimError`). A mutant the
chapter survives is a formula the book claims to verify but does not.

The cells before the first call of the mutated function run as they would
unmutated, so one execution of each chapter serves all its mutants
(``tools/mutant_checkpoints.py``): the kernel takes a checkpoint (a fork) before each
cell, and a mutant runs, substituted, from the checkpoint of the cell that first calls
its function. After the chapter has started threads (a thread pool), no checkpoint is
taken, and a mutant first called then runs from the last checkpoint taken before. A
mutant no checkpoint can serve (its function is first called after the chapter started
processes, as the Dask chapter's cluster, or before any checkpoint) is run the long way:
the mutant substituted at the start of a kernel of its own, then the whole chapter.
Substitution acts in the kernel's process: processes the chapter starts (a cluster's
workers) run the original function.

In the test run the mutants branch off the fresh environment's execution of the
chapters (``tools/fresh_env.py``, with the plugin ``tools/nbval_mutants.py``); this
command runs them in the current environment. The chapters' kernels import
``tools.mutant_checkpoints``: the repository's root is put on their ``PYTHONPATH``.

Usage (from the repository root)::

    python -m tools.mutate_book                  # every mutant, two chapters at a time
    python -m tools.mutate_book --only oob-picked gain-unsquared
    python -m tools.mutate_book --chapter book/05_bagging_oob.md --with-control
    python -m tools.mutate_book --list

The exit status is 0 only when every mutant selected is killed (and the control, if
run, survives).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tools.mutants import CONTROL, MUTANTS, Mutant

ROOT = Path(__file__).resolve().parents[1]
__all__ = ["CONTROL", "MUTANTS", "Mutant", "ROOT", "checkpoint_setup", "collect", "result",
           "run_chapter", "run_full", "run_or_report"]

_CHECKPOINTS = """# mutant checkpoints
from tools import mutant_checkpoints
mutant_checkpoints.install({ids!r}, {cells!r}, {results!r}, timeout={timeout!r})
"""
FINISH = """# mutant checkpoints
import json
from tools import mutant_checkpoints
print(json.dumps(mutant_checkpoints.finish()))
"""
_SUBSTITUTE = """# mutant
from tools import mutants
mutants.by_id({id!r}).apply()
del mutants
"""


def _execute_aside(client, cell):
    """Execute a cell that is not the notebook's (nbclient stores a cell it executes at the
    index given: the notebook's first cell is put back)."""
    first = client.nb.cells[0]
    try:
        client.execute_cell(cell, 0, store_history=False)
    finally:
        client.nb.cells[0] = first
    return cell


def checkpoint_setup(mutants: list[Mutant], cells: list[str], results: str, timeout: int = 600) -> str:
    """The code a chapter's kernel runs, before its first cell, to serve ``mutants`` from
    checkpoints; ``cells`` are the chapter's code cells in order."""
    return _CHECKPOINTS.format(ids=[m.id for m in mutants], cells=cells, results=results,
                               timeout=timeout)


def result(mutant: Mutant, outcome: dict, how: str) -> dict:
    """One line of the report: the mutant, and what became of it."""
    return {"id": mutant.id, "chapter": mutant.chapter, "key": mutant.key, "file": mutant.file(),
            "error": mutant.error, "killed": bool(outcome.get("killed")),
            "raised": outcome.get("raised", ""), "how": how,
            "from_cell": outcome.get("from_cell"), "at_cell": outcome.get("at_cell"),
            "timeout": bool(outcome.get("timeout")),
            "died": outcome.get("died"), "broken": outcome.get("broken", ""),
            "seconds": outcome.get("seconds", 0.0)}


def execute_with_mutants(client, nb, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """Execute ``nb`` (unmutated; its outputs are kept) with ``client``, whose kernel must be
    set up, and run ``mutants`` from checkpoints of that execution (``mutant_checkpoints``).

    Mutants a checkpoint cannot serve are run afterwards by :func:`run_full`. Raises
    :class:`nbclient.exceptions.CellExecutionError` if the unmutated chapter fails.
    """
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    with tempfile.TemporaryDirectory(prefix="mutants-") as results:
        _execute_aside(client, nbformat_cell(checkpoint_setup(mutants, cells, results, timeout)))
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        report = json.loads(_execute_aside(client, nbformat_cell(FINISH)).outputs[0]["text"])
    chapter = mutants[0].chapter if mutants else ""
    return collect(chapter, mutants, report, timeout)


def collect(chapter: str, mutants: list[Mutant], report: dict, timeout: int = 600) -> list[dict]:
    """The mutants' results from the checkpoints' ``report`` (``FINISH``'s output); the
    mutants no checkpoint could serve are run the long way (:func:`run_full`)."""
    if report["error"]:
        raise RuntimeError(f"mutation checkpoints: {report['error']}")
    out, full = [], []
    for mutant in mutants:
        outcome = report["mutants"][mutant.id]
        if "fallback" in outcome:
            full.append(mutant)
        else:
            out.append(result(mutant, outcome, "checkpoint"))
    for result_ in run_full(chapter, full, timeout) if full else []:
        out.append({**result_, "how": f"full run ({report['mutants'][result_['id']]['fallback']})"})
    return out


def _client(chapter: str, timeout: int):
    """A notebook client for ``chapter`` (its MyST source read as a notebook), run in its folder."""
    import jupytext
    from nbclient import NotebookClient

    source = ROOT / chapter
    nb = jupytext.read(source)
    return NotebookClient(nb, timeout=timeout, kernel_name="python3",
                          resources={"metadata": {"path": str(source.parent)}})


def run_chapter(chapter: str, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """Execute ``chapter`` once, unmutated, and every mutant from its checkpoints."""
    client = _client(chapter, timeout)
    with client.setup_kernel(env=_kernel_env()):
        return execute_with_mutants(client, client.nb, mutants, timeout)


def run_or_report(chapter: str, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """:func:`run_chapter`; if the chapter fails unmutated (or a mutant cannot be prepared),
    one result per mutant, not killed, saying so: a failing chapter proves nothing."""
    try:
        return run_chapter(chapter, mutants, timeout)
    except Exception as err:  # noqa: BLE001 - reported, and the other chapters go on
        reason = getattr(err, "ename", "") or f"{type(err).__name__}: {str(err)[:200]}"
        return [result(m, {"killed": False}, f"not run: the chapter failed unmutated ({reason})")
                for m in mutants]


def _kernel_env() -> dict:
    """The environment of a chapter's kernel: the repository's root on ``PYTHONPATH`` (for
    ``tools``), one thread per library, no ledger."""
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop("ENSEMBLES_VERIFIED_LEDGER", None)  # a mutant writes no ledger
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"  # no thread pools: a checkpoint (a fork) can use the libraries
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if not any(Path(p).resolve() == ROOT for p in paths):
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *paths])
    return env


def run_full(chapter: str, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """Execute ``chapter`` from its first cell once per mutant (for mutants no checkpoint
    can serve), each time in a new kernel where the mutant is substituted before the
    chapter's first cell. A run stops at the first cell that raises: the mutant is killed.
    """
    from nbclient.exceptions import CellExecutionError

    results = []
    for mutant in mutants:
        start = time.perf_counter()
        client = _client(chapter, timeout)
        killed, error = False, ""
        with client.setup_kernel(env=_kernel_env()):
            try:
                _execute_aside(client, nbformat_cell(_SUBSTITUTE.format(id=mutant.id)))
            except CellExecutionError as err:  # the mutant no longer applies
                results.append(result(mutant, {"broken": f"{err.ename}: {err.evalue}"}, "full run"))
                continue
            try:
                for index, cell in enumerate(client.nb.cells):
                    if cell.cell_type == "code":
                        client.execute_cell(cell, index)
            except CellExecutionError as err:
                killed, error = True, getattr(err, "ename", type(err).__name__)
        results.append(result(mutant, {"killed": killed, "raised": error, "from_cell": 0,
                                        "seconds": round(time.perf_counter() - start, 1)},
                               "full run"))
    return results


def nbformat_cell(source: str):
    import nbformat

    return nbformat.v4.new_code_cell(source)


def main(argv: list[str] | None = None) -> int:
    """Run the mutants selected, print one line each; 0 when all are killed (the control survives)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="mutant ids to run")
    parser.add_argument("--chapter", help="run the mutants of one chapter (path of its .md)")
    parser.add_argument("--jobs", type=int, default=2, help="chapters run at once (default 2)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--with-control", action="store_true",
                        help="also run the harmless control rewrite, which must survive")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    args = parser.parse_args(argv)
    selected = [m for m in MUTANTS if (not args.only or m.id in args.only)
                and (not args.chapter or m.chapter == args.chapter)]
    unknown = set(args.only or []) - {m.id for m in MUTANTS}
    if unknown:
        parser.error(f"unknown mutant ids: {sorted(unknown)}")
    if args.list:
        for m in selected:
            print(f"{m.id:<34} {m.key:<72} {m.chapter}")
        return 0
    if args.with_control:
        selected.append(CONTROL)
    chapters: dict[str, list[Mutant]] = {}
    for m in selected:
        chapters.setdefault(m.chapter, []).append(m)
    groups = sorted(chapters.items(), key=lambda kv: -len(kv[1]))  # longest first
    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for group in pool.map(lambda kv: run_or_report(*kv), groups):  # each chapter as it ends
            for r in group:
                verdict = f"killed ({r['raised']})" if r["killed"] else f"SURVIVED ({r['how']})"
                print(f"{r['id']:<34} {verdict:<30} {r['seconds']:>6.1f} s  {r['chapter']}", flush=True)
            results += group
    control = [r for r in results if r["id"] == CONTROL.id]
    results = [r for r in results if r["id"] != CONTROL.id]
    killed = sum(r["killed"] for r in results)
    print(f"{killed} of {len(results)} mutants killed")
    if control:
        print(f"the harmless control {'was KILLED' if control[0]['killed'] else 'survived'}")
    if args.json:
        args.json.write_text(json.dumps(results + control, indent=1))
    return 0 if killed == len(results) and not any(r["killed"] for r in control) else 1


if __name__ == "__main__":
    sys.exit(main())
