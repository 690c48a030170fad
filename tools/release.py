"""Produce the release assets of the book in ``_build/release/<version>/``.

Usage (from the repository root)::

    python -m tools.release            # builds what is missing, then packs
    python -m tools.release --no-build # pack the existing builds only

The version is ``release`` in ``_config.yml``; it must equal ``CITATION.cff``'s
``version`` and have a section in ``CHANGELOG.md``. The assets:

* ``ensembles-verified-<v>-html.tar.gz`` — the HTML book (``_build/html``);
* ``ensembles-verified-<v>.pdf`` — the PDF edition (``tools/build_pdf.py``);
* ``ensembles-verified-<v>-student-html.tar.gz`` — the student edition
  (``tools/build_student.py``);
* ``ensembles-verified-<v>-student-notebooks.zip`` and
  ``ensembles-verified-<v>-notebooks.zip`` — the student and reader notebooks;
* ``SHA256SUMS`` — the SHA-256 checksum of each asset (``sha256sum -c SHA256SUMS``).

Every build reuses the HTML build's execution cache: no chapter is executed again.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"


def version(root: Path = ROOT) -> str:
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    release = str(config["sphinx"]["config"]["release"])
    cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    if str(cff["version"]) != release:
        raise ValueError(f"CITATION.cff has version {cff['version']}, _config.yml {release}")
    if not re.search(rf"^## {re.escape(release)}\b", (root / "CHANGELOG.md").read_text(
            encoding="utf-8"), re.M):
        raise ValueError(f"CHANGELOG.md has no section '## {release}'")
    return release


def run(*args: str) -> None:
    proc = subprocess.run(list(args), cwd=ROOT)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode})")


def tar_folder(folder: Path, target: Path, name: str) -> None:
    with tarfile.open(target, "w:gz") as tar:
        tar.add(folder, arcname=name)


def zip_files(files: list[Path], target: Path, name: str) -> None:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for f in files:
            z.write(f, f"{name}/{f.name}")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def release(build: bool = True) -> Path:
    v = version()
    stem = f"ensembles-verified-{v}"
    jb = str(Path(sys.executable).with_name("jupyter-book"))
    if build or not (BUILD / "html" / "index.html").is_file():
        run(jb if Path(jb).exists() else "jupyter-book", "build", ".", "-W", "-n", "--keep-going")
    if build or not (BUILD / "pdf" / "ensembles-verified.pdf").is_file():
        run(sys.executable, "tools/build_pdf.py")
    if build or not (BUILD / "student" / "html" / "index.html").is_file():
        run(sys.executable, "tools/build_student.py", "--quiet")
    out = BUILD / "release" / v
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    tar_folder(BUILD / "html", out / f"{stem}-html.tar.gz", f"{stem}-html")
    shutil.copyfile(BUILD / "pdf" / "ensembles-verified.pdf", out / f"{stem}.pdf")
    tar_folder(BUILD / "student" / "html", out / f"{stem}-student-html.tar.gz",
               f"{stem}-student-html")
    with tempfile.TemporaryDirectory() as tmp:
        students, readers = Path(tmp) / "students", Path(tmp) / "readers"
        run(sys.executable, "tools/student_notebooks.py", str(students))
        run(sys.executable, "tools/reader_notebooks.py", str(readers))
        zip_files(sorted(students.glob("*.ipynb")), out / f"{stem}-student-notebooks.zip",
                  f"{stem}-student-notebooks")
        zip_files(sorted(readers.glob("*.ipynb")), out / f"{stem}-notebooks.zip",
                  f"{stem}-notebooks")
    assets = sorted(p for p in out.iterdir() if p.name != "SHA256SUMS")
    (out / "SHA256SUMS").write_text("".join(f"{sha256(p)}  {p.name}\n" for p in assets))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build and pack the release assets.")
    parser.add_argument("--no-build", action="store_true", help="pack the existing builds")
    args = parser.parse_args(argv)
    try:
        out = release(build=not args.no_build)
    except (ValueError, RuntimeError) as exc:
        print(f"release: error: {exc}", file=sys.stderr)
        return 1
    for path in sorted(out.iterdir()):
        print(f"{path.stat().st_size:>12,d}  {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
