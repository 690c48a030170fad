"""A fresh environment made from ``requirements.txt`` alone, executing every chapter once.

This is what a Binder user gets. Binder copies the repository and installs
``requirements.txt``; nothing else is installed. :func:`run` does the same: it
copies the repository's files (without build output) to a temporary folder,
creates a new virtual environment there, installs ``requirements.txt`` into it with
uv (the same exact pins pip would install, in a tenth of pip's time) and checks the
result with ``uv pip check``. A dependency that ``requirements.txt`` does not pin is
resolved as Binder would resolve it (the newest release on the index) and listed in
the report. The test runner (pytest and nbval,
pinned as in ``requirements-dev.txt``) is installed after it. Then, with that
environment's Python and its own ``python3`` kernel, it runs every chapter's
``.ipynb`` (what the launch buttons open) under ``pytest --nbval-lax``, two
chapters at once (two pytest processes, each taking batches of chapters from one
queue), **with the seed** ``TEST_SEED`` **instead of each
chapter's published one** (``ENSEMBLES_VERIFIED_SEED``): a claim that holds only
for the seed it was written with fails here. Each chapter's mutants
(``tools/mutate_book.py``) branch off that same execution
(``tools/nbval_mutants.py``).

This is the second and last execution of every chapter in a test run (the first
is the book build, with the published seeds), the stage ``fresh`` of ``dodo.py``
(``python -m tools.fresh_env``). Its result is written to
``_build/stages/fresh-result.json``: ``tests/test_binder_env.py`` checks that every
chapter passed under nbval in the fresh environment, and ``tests/test_mutations.py``
reads the mutants' results. The nbval log is kept in ``_build/nbval-fresh-env.log``
and summarised at the end of the test run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.chapters import ROOT, chapter_notebooks
from tools.stages import ONE_THREAD, STAGES

SKIP_DIRS = {".git", "_build", ".venv", "__pycache__", ".ipynb_checkpoints", ".hypothesis",
             ".pytest_cache", "build", "dist"}

# The seed the chapters run with here: not their published one (the book build runs those),
# so every test run checks that each chapter's claims hold for another seed too.
TEST_SEED = 1
# The test runner, installed into the fresh environment after requirements.txt (Binder's
# environment has no pytest): pinned as in requirements-dev.txt.
RUNNER = ("pytest", "nbval", "coverage", "iniconfig", "pluggy")
# What jupyter_client raises when a kernel process exits before its first reply.
KERNEL_NEVER_STARTED = "Kernel died before replying to kernel_info"


def runner_pins(repo: Path) -> list[str]:
    lines = (repo / "requirements-dev.txt").read_text().splitlines()
    pins = [line.strip() for line in lines if line.split("==")[0].strip().lower() in RUNNER]
    assert len(pins) == len(RUNNER), f"requirements-dev.txt must pin each of {RUNNER}"
    return pins


def cost(notebook: str) -> int:
    """A rough guess of a chapter's cost: the size of its source."""
    return Path(notebook).with_suffix(".md").stat().st_size


def _nbval(python: Path, repo: Path, env: dict, work: Path, notebooks: list[str], name: str) -> tuple[int, str, dict]:
    """``notebooks`` under nbval in one pytest process: exit code, log, report."""
    report, log_path = work / f"nbval-{name}.json", work / f"nbval-{name}.log"
    args = [str(python), "-m", "pytest", "--nbval-lax", "--nbval-cell-timeout=900",
            "-p", "tools.nbval_mutants", "-p", "no:cacheprovider", "--confcutdir", str(repo / "book"),
            "-o", "addopts=", "-rf", "-v", *notebooks]
    with log_path.open("w") as log:
        code = subprocess.run(args, cwd=repo, env={**env, "NBVAL_MUTANTS_REPORT": str(report)},
                              stdout=log, stderr=subprocess.STDOUT, timeout=3000 * len(notebooks)).returncode
    return code, log_path.read_text(), json.loads(report.read_text()) if report.exists() else {}


def _unfinished(notebooks: list[str], part: dict) -> list[str]:
    """The notebooks of a run that did not finish or had a failing cell."""
    cells = part.get("cells", {})
    return [nb for nb in notebooks if Path(nb).name not in part.get("chapters", {})
            or cells.get(Path(nb).name, {}).get("failed", 0)]


def _nbval_batch(python: Path, repo: Path, env: dict, work: Path, notebooks: list[str],
                 name: str) -> tuple[int, str, dict]:
    """A batch of chapters under nbval; a chapter whose kernel died before it started (two
    kernels started at once can be given the same TCP port) runs once more, and says so."""
    code, log, part = _nbval(python, repo, env, work, notebooks, name)
    again = _unfinished(notebooks, part) if code and KERNEL_NEVER_STARTED in log else []
    if not again:
        return code, log, part
    names = {Path(nb).name for nb in again}
    log += f"\n{', '.join(sorted(names))}: the kernel died before it started; run again\n"
    code, log_again, rerun = _nbval(python, repo, env, work, again, name + "-again")
    chapters = {Path(nb).with_suffix(".md").relative_to(repo).as_posix() for nb in again}
    for key in ("chapters", "cells"):
        part[key] = {k: v for k, v in part.get(key, {}).items() if k not in names} | rerun.get(key, {})
    part["mutants"] = [m for m in part.get("mutants", []) if m["chapter"] not in chapters] + \
        rerun.get("mutants", [])
    part["kernel_prefix"] = part.get("kernel_prefix") or rerun.get("kernel_prefix")
    return max(code, _failed(part)), log + log_again, part


def _failed(part: dict) -> int:
    return int(any(c.get("failed", 0) for c in part.get("cells", {}).values()))


def next_batch(queue: list[str], workers: int) -> list[str]:
    """Take from the head of ``queue`` (longest first) the next batch of a free worker:
    chapters worth at least ``1 / (workers + 1)`` of the cost left, so batches shrink as
    the queue empties and the workers finish together (guided self-scheduling); for two
    workers and the book's 17 chapters, 7 pytest processes."""
    left, batch, taken = sum(cost(nb) for nb in queue), [], 0
    while queue and (not batch or taken < left / (workers + 1)):
        batch.append(queue.pop(0))
        taken += cost(batch[-1])
    return batch


def run_nbval(python: Path, repo: Path, env: dict, work: Path, notebooks: list[str],
              workers: int = 2) -> dict:
    """Every chapter under nbval (``--nbval-lax``) with the seed ``TEST_SEED``, each chapter's
    mutants branching off its execution; the merged reports.

    ``workers`` pytest processes run at a time, each on a batch of chapters taken from a
    queue, longest first (:func:`next_batch`): a worker that finishes early takes the next
    batch, and a few pytest processes start instead of one per chapter (3 s each, most of
    it importing nbformat and the mutants).
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    env = {**env, "ENSEMBLES_VERIFIED_SEED": str(TEST_SEED), "ENSEMBLES_VERIFIED_CLAIMS": "strict",
           "PYTHONPATH": str(repo)}  # the kernels import tools.mutant_checkpoints
    queue, lock, runs = sorted(notebooks, key=lambda nb: -cost(nb)), threading.Lock(), []

    def worker(k: int) -> None:
        for batch_no in range(len(notebooks)):
            with lock:
                batch = next_batch(queue, workers)
            if not batch:
                return
            runs.append(_nbval_batch(python, repo, env, work, batch, f"{k}-{batch_no}"))

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(worker, range(workers)))
    merged = {"kernel_prefix": None, "driver_prefix": None, "chapters": {}, "cells": {}, "mutants": [],
              "seed": TEST_SEED}
    for _, _, part in runs:
        for key in ("kernel_prefix", "driver_prefix"):
            merged[key] = merged[key] or part.get(key)
        for key in ("chapters", "cells"):
            merged[key].update(part.get(key, {}))
        merged["mutants"] += part.get("mutants", [])
    return {"returncode": max(code for code, _, _ in runs), "log": "\n".join(log for _, log, _ in runs),
            "report": merged}


def copy_repository(target: Path) -> None:
    def ignore(folder, names):
        return {n for n in names if n in SKIP_DIRS or n.endswith(".egg-info")}

    shutil.copytree(ROOT, target, ignore=ignore, symlinks=True)


def fresh_environment(venv: Path, work: Path) -> dict:
    # PYTHONDONTWRITEBYTECODE goes too: Binder writes bytecode, and the packages are
    # installed without it (--no-compile), so without bytecode every kernel would compile
    # its imports again (2.6 s per kernel for scikit-learn, the boosting libraries, dask).
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP",
                        "PYTHONDONTWRITEBYTECODE",
                        "ENSEMBLES_VERIFIED_LEDGER", "JUPYTER_PATH", "JUPYTER_PLATFORM_DIRS"}
           and not k.startswith(("PYTEST", "JPY_", "CONDA"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # Jupyter's and IPython's per-user folders would take precedence over the environment's
    # own kernel: point them at empty folders, as on a new Binder image.
    for var, name in [("JUPYTER_DATA_DIR", "jupyter-data"), ("JUPYTER_CONFIG_DIR", "jupyter-config"),
                      ("IPYTHONDIR", "ipython")]:
        env[var] = str(work / name)
    env.update(ONE_THREAD)  # two chapters run at once on two cores: one thread each
    return env


def uv_pip(python: Path, *args: str, repo: Path, env: dict) -> str:
    """``uv pip ARGS`` for the environment of ``python``; its output (an error fails the stage)."""
    proc = subprocess.run([sys.executable, "-m", "uv", "pip", *args, "--python", str(python)],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"uv pip {args[0]} failed:\n" + (proc.stdout + proc.stderr)[-4000:]
    return proc.stdout


def _name(requirement: str) -> str:
    """The normalised project name of a pin such as ``dask[dataframe]==2026.8.0``."""
    return canonicalize_name(Requirement(requirement).name)


def install_requirements(python: Path, repo: Path, env: dict) -> list[str]:
    """``requirements.txt`` installed into the fresh environment, then checked for consistency.

    Returns the installed dependencies that ``requirements.txt`` does not pin (they were
    resolved to the newest release the index offers, as Binder would resolve them).
    """
    uv_pip(python, "install", "-r", "requirements.txt", repo=repo, env=env)
    uv_pip(python, "check", repo=repo, env=env)
    lines = (repo / "requirements.txt").read_text().splitlines()
    pinned = {_name(line) for line in lines if line.strip() and not line.startswith(("#", "-"))}
    frozen = uv_pip(python, "freeze", "--exclude-editable", repo=repo, env=env).splitlines()
    return sorted(_name(line) for line in frozen if _name(line) not in pinned)


def run(tmp_path: Path) -> dict:
    """Install a fresh environment and execute every chapter in it under nbval; a report.

    The report holds ``returncode`` and ``log`` of the nbval runs, their ``report``
    (kernel and pytest prefixes, seconds and cells per chapter, the mutants' results),
    ``venv``, ``notebooks`` (the copies executed), ``times`` and ``unpinned`` dependencies.
    """
    times = {}
    start = time.perf_counter()
    repo, venv = tmp_path / "repo", tmp_path / "venv"
    copy_repository(repo)
    subprocess.run([sys.executable, "-m", "uv", "venv", "--quiet", "--python", sys.executable, str(venv)],
                   check=True, timeout=300)
    python = venv / "bin" / "python"
    env = fresh_environment(venv, tmp_path)

    unpinned = install_requirements(python, repo, env)
    uv_pip(python, "install", *runner_pins(repo), repo=repo, env=env)
    times["install_s"] = round(time.perf_counter() - start, 1)

    notebooks = [str(repo / nb.relative_to(ROOT)) for nb in chapter_notebooks()]
    run_start = time.perf_counter()
    nbval = run_nbval(python, repo, env, tmp_path, notebooks)
    times["execute_s"] = round(time.perf_counter() - run_start, 1)
    times["total_s"] = round(time.perf_counter() - start, 1)
    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / "nbval-fresh-env.log").write_text(nbval["log"])
    return {**nbval, "venv": venv, "notebooks": notebooks, "times": times, "unpinned": unpinned}


RESULT = STAGES / "fresh-result.json"


def main() -> int:
    """Run the fresh environment, write its result (the tests judge it) and remove it.

    The environment and the copy of the repository (1.6 GB) go once the result, which
    holds every log and report the tests read, is written.
    """
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="fresh-env-"))
    try:
        result = run(work)
        RESULT.parent.mkdir(parents=True, exist_ok=True)
        RESULT.write_text(json.dumps({**result, "venv": str(result["venv"])}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"fresh environment: nbval exit {result['returncode']}, {result['times']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
