"""A fresh environment made from ``requirements.txt`` alone, executing every chapter once.

This is what a Binder user gets. Binder copies the repository and runs ``pip
install -r requirements.txt``; nothing else is installed. :func:`run` does the
same: it copies the repository's files (without build output) to a temporary
folder, creates a new virtual environment there, installs ``requirements.txt``
into it and checks the result with ``pip check``. To save time the pinned wheels
are first downloaded by a few ``pip download`` processes at once (pip's own
cache is used when it works), and the installation itself then runs from those
files only (``--no-index``), so it installs exactly what ``requirements.txt``
resolves to; a dependency that ``requirements.txt`` does not pin is fetched as
pip would fetch it, and listed in the report. The test runner (pytest and nbval,
pinned as in ``requirements-dev.txt``) is installed after it. Then, with that
environment's Python and its own ``python3`` kernel, it runs every chapter's
``.ipynb`` (what the launch buttons open) under ``pytest --nbval-lax``, two
chapters at once, **with the seed** ``TEST_SEED`` **instead of each
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
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

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


def runner_pins(repo: Path) -> list[str]:
    lines = (repo / "requirements-dev.txt").read_text().splitlines()
    pins = [line.strip() for line in lines if line.split("==")[0].strip().lower() in RUNNER]
    assert len(pins) == len(RUNNER), f"requirements-dev.txt must pin each of {RUNNER}"
    return pins


def longest_first(notebooks: list[str]) -> list[str]:
    """The chapters, the longest source first: a rough guess of their cost, good enough for
    a queue that gives each free worker the next chapter."""
    return sorted(notebooks, key=lambda n: -Path(n).with_suffix(".md").stat().st_size)


def _nbval_one(python: Path, repo: Path, env: dict, work: Path, notebook: str) -> tuple[int, str, dict]:
    """One chapter under nbval in a pytest process of its own: exit code, log, report."""
    name = Path(notebook).stem
    report, log_path = work / f"nbval-{name}.json", work / f"nbval-{name}.log"
    args = [str(python), "-m", "pytest", "--nbval-lax", "--nbval-cell-timeout=900",
            "-p", "tools.nbval_mutants", "-p", "no:cacheprovider", "--confcutdir", str(repo / "book"),
            "-o", "addopts=", "-rf", "-v", notebook]
    with log_path.open("w") as log:
        code = subprocess.run(args, cwd=repo, env={**env, "NBVAL_MUTANTS_REPORT": str(report)},
                              stdout=log, stderr=subprocess.STDOUT, timeout=3000).returncode
    return code, log_path.read_text(), json.loads(report.read_text()) if report.exists() else {}


def run_nbval(python: Path, repo: Path, env: dict, work: Path, notebooks: list[str],
              workers: int = 2) -> dict:
    """Every chapter under nbval (``--nbval-lax``) with the seed ``TEST_SEED``, each chapter's
    mutants branching off its execution; the merged reports.

    The chapters form a queue, longest first, served by ``workers`` pytest processes at a
    time (one per chapter), so a worker that finishes early takes the next chapter.
    """
    from concurrent.futures import ThreadPoolExecutor

    env = {**env, "ENSEMBLES_VERIFIED_SEED": str(TEST_SEED), "ENSEMBLES_VERIFIED_CLAIMS": "strict",
           "PYTHONPATH": str(repo)}  # the kernels import tools.mutant_checkpoints
    with ThreadPoolExecutor(max_workers=workers) as pool:
        runs = list(pool.map(lambda nb: _nbval_one(python, repo, env, work, nb), longest_first(notebooks)))
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


class Pip:
    """``python -m pip ARGS`` started in the background, its output kept in a file."""

    def __init__(self, python: Path, *args: str, cwd: Path, env: dict, log: Path):
        self.log = log
        with log.open("w") as out:
            self.proc = subprocess.Popen([str(python), "-m", "pip", *args], cwd=cwd, env=env,
                                         stdout=out, stderr=subprocess.STDOUT)

    def wait(self, timeout: int = 1800) -> tuple[int, str]:
        code = self.proc.wait(timeout=timeout)
        return code, self.log.read_text()


def install_requirements(python: Path, repo: Path, env: dict, work: Path,
                         parallel: int = 6) -> list[str]:
    """``pip install -r requirements.txt``, with the downloads done in parallel.

    Returns the names of the dependencies that ``requirements.txt`` does not pin.
    """
    import tomllib

    wheels = work / "wheels"
    wheels.mkdir()
    lines = [line.strip() for line in (repo / "requirements.txt").read_text().splitlines()]
    pinned = [line for line in lines if line and not line.startswith(("#", "-"))]
    build = tomllib.loads((repo / "pyproject.toml").read_text())["build-system"]["requires"]
    chunks = [chunk for chunk in [pinned[k::parallel] for k in range(parallel)] + [build] if chunk]
    jobs = [Pip(python, "download", "--no-deps", "-d", str(wheels), *chunk, cwd=repo, env=env,
                log=work / f"download-{k}.log") for k, chunk in enumerate(chunks)]
    for job in jobs:
        code, out = job.wait()
        assert code == 0, "pip download failed:\n" + out[-3000:]
    unpinned = []
    for attempt in range(20):
        code, out = Pip(python, "install", "--no-compile", "--no-index", "--find-links", str(wheels), "-r",
                        "requirements.txt", cwd=repo, env=env,
                        log=work / f"install-{attempt}.log").wait()
        if code == 0:
            return unpinned
        missing = re.search(r"No matching distribution found for ([A-Za-z0-9_.-]+)", out)
        assert missing, "pip install -r requirements.txt failed:\n" + out[-4000:]
        name = missing.group(1)
        unpinned.append(name)  # fetched as pip would: the newest release on the index
        code, out = Pip(python, "download", "--no-deps", "-d", str(wheels), name, cwd=repo,
                        env=env, log=work / f"download-{name}.log").wait()
        assert code == 0, f"pip download {name} failed:\n" + out[-3000:]
    raise AssertionError(f"too many unpinned dependencies: {unpinned}")



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
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = fresh_environment(venv, tmp_path)

    unpinned = install_requirements(python, repo, env, tmp_path)
    proc = subprocess.run([str(python), "-m", "pip", "check"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "inconsistent environment:\n" + proc.stdout + proc.stderr
    code, out = Pip(python, "install", "--no-compile", *runner_pins(repo), cwd=repo, env=env,
                    log=tmp_path / "install-runner.log").wait()
    assert code == 0, "installing the test runner failed:\n" + out[-3000:]
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
    """Run the fresh environment and write its result (the tests judge it)."""
    import tempfile

    result = run(Path(tempfile.mkdtemp(prefix="fresh-env-")))
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps({**result, "venv": str(result["venv"])}, indent=1))
    print(f"fresh environment: nbval exit {result['returncode']}, {result['times']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
