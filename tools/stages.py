"""Run one stage of the test run, record it, and print the table of time per stage.

``dodo.py`` declares the stages and their order; each stage's action calls :func:`run`
for its commands. A command's output goes to ``_build/logs/<stage>.log``; its exit
code, duration, processor seconds (of every process it started, :mod:`tools.processor_time`)
and the clock time of its start and end to ``_build/stages/<stage>.json``
(the tests that read a stage's product, like the book build's, check that record).
When a stage ends, one line says so, followed by pytest's summary or, when the
command failed, the end of its log. The last task prints :func:`report`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time

from tools.chapters import ROOT
from tools.processor_time import SAMPLER

STAGES = ROOT / "_build" / "stages"
LOGS = ROOT / "_build" / "logs"
# One OpenMP and BLAS thread per kernel or process: the stages share the cores.
ONE_THREAD = {var: "1" for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def record(name: str) -> dict | None:
    """The record a stage left in this run (``None`` if it has not run)."""
    path = STAGES / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _pytest_counts(log: str) -> str:
    """pytest's final counts ("12 passed, 1 skipped") from its output, or ''."""
    found = re.findall(r"^=+ (.*? in [\d.]+s.*?) =+$", log, flags=re.M)
    return re.sub(r" in [\d.]+s.*", "", found[-1]) if found else ""


def _command(name: str, args: list[str], log, nice: int, env: dict | None,
             timeout: int) -> tuple[int, float]:
    """One command of the stage ``name``: its exit code and the processor seconds (user +
    system) of it and the children it waited for; killed after ``timeout`` seconds."""
    proc = subprocess.Popen(args, cwd=ROOT, env={**os.environ, **(env or {})}, stdout=log,
                            stderr=subprocess.STDOUT,
                            preexec_fn=(lambda: os.nice(nice)) if nice else None)
    SAMPLER.add(proc.pid, name)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own usage, not the other stages'
    timer.cancel()
    SAMPLER.done(proc.pid)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


def run(name: str, *commands: list[str], nice: int = 0, env: dict | None = None,
        timeout: int = 3600) -> bool:
    """Run ``commands`` one after the other (stopping at the first failure); True if all passed."""
    STAGES.mkdir(parents=True, exist_ok=True)
    LOGS.mkdir(parents=True, exist_ok=True)
    log_path = LOGS / f"{name}.log"
    start, code, cpu = time.time(), 0, 0.0
    with log_path.open("w") as log:
        for args in commands:
            log.write(f"$ {' '.join(args)}\n")
            log.flush()
            code, seconds = _command(name, args, log, nice, env, timeout)
            cpu += seconds
            if code != 0:
                break
    # every process the stage started, Chromium's included (tools/processor_time.py)
    cpu = max(cpu, SAMPLER.seconds(name))
    text = log_path.read_text(errors="replace")
    rec = {"name": name, "returncode": code, "start": start, "end": time.time(), "cpu": round(cpu, 1),
           "tests": _pytest_counts(text), "log": str(log_path.relative_to(ROOT))}
    (STAGES / f"{name}.json").write_text(json.dumps(rec, indent=1))
    seconds = rec["end"] - start
    print(f"[{name}] {'passed' if code == 0 else 'FAILED'} in {seconds:.0f} s"
          f"{' (' + rec['tests'] + ')' if rec['tests'] else ''}; log: {rec['log']}", flush=True)
    if code != 0:  # pytest's short summary when there is one, else the end of the log
        summary = text.rfind("short test summary info")
        print(text[summary - 30:][-8000:] if summary >= 0 else text[-8000:], flush=True)
    return code == 0


def report(names: list[str], since: float = 0.0) -> None:
    """The table of time per stage run since ``since`` (a ``time.time()``), and each
    chapter's nbval result in the fresh environment."""
    recs = [r for r in map(record, names) if r is not None and r["start"] >= since]
    if not recs:
        return
    t0 = min(r["start"] for r in recs)
    print(f"\n{'stage':12s} {'result':8s} {'seconds':>8s} {'cpu s':>7s}  {'from - to (s)':>13s}  tests")
    for r in recs:
        print(f"{r['name']:12s} {'passed' if r['returncode'] == 0 else 'FAILED':8s} "
              f"{r['end'] - r['start']:8.1f} {r.get('cpu', 0):7.0f}  "
              f"{r['start'] - t0:5.0f} - {r['end'] - t0:5.0f}  {r['tests']}")
    print(f"{'total (wall clock)':21s} {max(r['end'] for r in recs) - t0:8.1f} "
          f"{sum(r.get('cpu', 0) for r in recs):7.0f}")
    fresh = STAGES / "fresh-result.json"
    if fresh.is_file() and fresh.stat().st_mtime >= since:
        report_ = json.loads(fresh.read_text())["report"]
        print(f"\nchapters under nbval, seed {report_['seed']} (fresh environment):")
        for nb, cells in sorted(report_["cells"].items()):
            print(f"{nb:40s} {cells['passed']:4d} cells passed, {cells['failed']} failed"
                  f"  ({report_['chapters'].get(nb) or 0:.1f} s)")
        print("nbval's log, one line per cell: _build/nbval-fresh-env.log")
    sys.stdout.flush()
