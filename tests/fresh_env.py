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
pip would fetch it, and listed in the report. Then, with that environment's
Python and its own ``python3`` kernel, it

* opens every chapter's MyST source with jupytext, as Jupyter does on Binder, and
  checks it gives the same cells as the paired ``.ipynb``, and
* executes every chapter's ``.ipynb`` (what the launch buttons open) with nbclient,
  two chapters at a time, keeping the executed notebooks, and
* runs the chapter's mutants (``tools/mutate_book.py``) from checkpoints of that
  execution: the outputs kept are those of the unmutated chapter.

This is the second and last execution of every chapter in a test run (the first
is the book build): ``tests/test_binder_env.py`` checks that it succeeded in the
fresh environment, ``tests/test_reproducibility.py`` compares its outputs with
the build's, and ``tests/test_mutations.py`` reads the mutants' results.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import ROOT, chapter_notebooks  # noqa: E402

# One OpenMP and BLAS thread per kernel, when other work keeps the second core busy.
ONE_THREAD = {var: "1" for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}

SKIP_DIRS = {".git", "_build", ".venv", "__pycache__", ".ipynb_checkpoints", ".hypothesis",
             ".pytest_cache", "build", "dist"}

DRIVER = r'''
"""Run in the fresh environment: open and execute the chapters given on the command line,
and run each chapter's mutants from checkpoints of its execution."""
import json, sys, time, traceback
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def execute(args):
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    path, out_dir, repo = Path(args[0]), Path(args[1]), Path(args[2])
    sys.path.insert(0, str(repo / "tools"))
    import mutate_book

    chapter = path.with_suffix(".md").relative_to(repo).as_posix()
    mutants = [m for m in mutate_book.MUTANTS + [mutate_book.CONTROL] if m.chapter == chapter]
    nb = nbformat.read(path, as_version=4)
    myst = jupytext.read(path.with_suffix(".md"))
    if [(c.cell_type, c.source) for c in myst.cells] != [(c.cell_type, c.source) for c in nb.cells]:
        return path.name, None, "jupytext opens the .md as a different notebook than the .ipynb", []
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        with client.setup_kernel():
            info = client.wait_for_reply(client.kc.kernel_info())
            nb.metadata["language_info"] = info["content"]["language_info"]
            results = mutate_book.execute_with_mutants(client, nb, mutants)
    except Exception:
        return path.name, None, traceback.format_exc()[-6000:], []
    seconds = time.perf_counter() - start
    nbformat.write(nb, out_dir / path.name)  # compared with the build's execution
    return path.name, seconds, "", results


def by_cost(notebook):
    return -Path(notebook).with_suffix(".md").stat().st_size  # the longest chapters first


def kernel_prefix():
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import sys; print(sys.prefix)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return nb.cells[0].outputs[0]["text"].strip()


if __name__ == "__main__":
    report = {"kernel_prefix": kernel_prefix(), "driver_prefix": sys.prefix, "chapters": {},
              "mutants": []}
    failures = []
    with ProcessPoolExecutor(max_workers=2) as pool:
        out_dir, repo = sys.argv[1], sys.argv[2]
        jobs = [(p, out_dir, repo) for p in sorted(sys.argv[3:], key=by_cost)]
        for name, seconds, error, mutants in pool.map(execute, jobs):
            report["chapters"][name] = seconds
            report["mutants"] += mutants
            if error:
                failures.append(f"--- {name}\n{error}")
    print(json.dumps(report))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
'''


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
    """Install a fresh environment and execute every chapter in it; a report.

    The report holds ``returncode`` and ``stderr`` of the execution, the driver's
    ``report`` (kernel prefix, seconds per chapter), ``venv``, ``notebooks``
    (the copies executed), ``executed`` (folder of executed notebooks), ``times``
    and ``unpinned`` dependencies.
    """
    times = {}
    start = time.perf_counter()
    repo, venv, executed = tmp_path / "repo", tmp_path / "venv", tmp_path / "executed"
    executed.mkdir()
    copy_repository(repo)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = fresh_environment(venv, tmp_path)

    unpinned = install_requirements(python, repo, env, tmp_path)
    proc = subprocess.run([str(python), "-m", "pip", "check"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, "inconsistent environment:\n" + proc.stdout + proc.stderr
    times["install_s"] = round(time.perf_counter() - start, 1)

    notebooks = [str(repo / nb.relative_to(ROOT)) for nb in chapter_notebooks()]
    driver = tmp_path / "run_chapters.py"
    driver.write_text(DRIVER)
    run_start = time.perf_counter()
    proc = subprocess.run([str(python), str(driver), str(executed), str(repo), *notebooks],
                          cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=3000)
    times["execute_s"] = round(time.perf_counter() - run_start, 1)
    times["total_s"] = round(time.perf_counter() - start, 1)
    lines = proc.stdout.strip().splitlines()
    report = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    return {"returncode": proc.returncode, "stderr": proc.stderr, "report": report,
            "venv": venv, "notebooks": notebooks, "executed": executed, "times": times,
            "unpinned": unpinned}
