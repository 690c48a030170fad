"""Run the book's library facts against the newest releases of the libraries.

The book checks what scikit-learn, xgboost, lightgbm, catboost and Dask do, with the
versions pinned in ``requirements.txt``. A new release can change a default, a leaf
value or a deprecation, and the book would then describe an older library than the
one a reader installs. This command finds such changes in minutes:

1. it makes a scratch virtual environment, installs ``requirements.txt`` and then
   upgrades the libraries to their newest releases on the package index;
2. it runs, in that environment and with their published seeds, the chapters that
   state facts about the libraries (the formulas appendix and every chapter with a
   ``# Comparison with ...`` cell), through ``tools/seed_sweep.py``, so every claim
   that fails is listed, not only the first;
3. it prints the pinned and the newest version of each library and the chapters'
   failing claims (Markdown), and writes them as JSON (``--out``).

    python -m tools.library_drift                       # scratch environment in a temporary folder
    python -m tools.library_drift --venv /tmp/drift     # keep (and reuse) the environment

The exit status is 0 when every claim holds with the newest releases.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ("scikit-learn", "xgboost-cpu", "lightgbm", "catboost", "dask", "distributed")


def pinned_versions() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        name, _, version = line.partition("==")
        base = name.split("[")[0].strip().lower()
        if base in LIBRARIES and version:
            pins[base] = version.strip()
    return pins


def library_chapters() -> list[Path]:
    """The formulas appendix and the chapters with a comparison cell."""
    from tools.seed_sweep import chapters_in_toc

    return [md for md in chapters_in_toc()
            if "formulas_to_libraries" in md.name or "# Comparison with" in md.read_text(encoding="utf-8")]


def environment(venv: Path, work: Path) -> dict:
    """The scratch environment's variables: its Python first, Jupyter's folders its own."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "ENSEMBLES_VERIFIED_SEED"}}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_DISABLE_PIP_VERSION_CHECK="1", JUPYTER_DATA_DIR=str(work / "jupyter-data"),
               JUPYTER_CONFIG_DIR=str(work / "jupyter-config"), IPYTHONDIR=str(work / "ipython"))
    return env


def run(args: list[str], env: dict, what: str) -> str:
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{what} failed:\n{(proc.stdout + proc.stderr)[-3000:]}")
    return proc.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, help="the scratch environment (default: a temporary folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "library_drift.json")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="library-drift-"))
    venv = args.venv or work / "venv"
    python = venv / "bin" / "python"
    env = environment(venv, work)
    if not python.exists():
        run([sys.executable, "-m", "venv", str(venv)], env, "creating the environment")
        run([str(python), "-m", "pip", "install", "-q", "-r", "requirements.txt"], env,
            "pip install -r requirements.txt")
    run([str(python), "-m", "pip", "install", "-q", "--upgrade", *LIBRARIES], env,
        "upgrading the libraries")
    newest = json.loads(run([str(python), "-c", "import json, importlib.metadata as m; print(json.dumps("
                             f"{{n: m.version(n) for n in {list(LIBRARIES)!r}}}))"], env, "reading versions"))
    chapters = [str(md) for md in library_chapters()]
    sweep_json = work / "sweep.json"
    proc = subprocess.run([str(python), str(ROOT / "tools" / "seed_sweep.py"), "--published",
                           "--out", str(sweep_json), *chapters], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    sweep = json.loads(sweep_json.read_text()) if sweep_json.exists() else {"chapters": {}}
    pins = pinned_versions()
    lines = ["| library | pinned | newest |", "|---|---|---|"]
    lines += [f"| {name} | {pins.get(name, '-')} | {newest[name]}"
              f"{' (newer)' if pins.get(name) and pins[name] != newest[name] else ''} |" for name in LIBRARIES]
    print("\n".join(lines) + "\n")
    print(proc.stdout or proc.stderr[-3000:])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"pinned": pins, "newest": newest, "sweep": sweep["chapters"]}, indent=1))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
