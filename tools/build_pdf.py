"""Build the PDF edition of the book: ``_build/pdf/ensembles-verified.pdf``.

Usage (from the repository root, after the HTML build, whose execution cache it reuses)::

    python -m tools.build_pdf

Two steps, the way QuantEcon's lectures make their PDF:

1. ``jupyter-book build . --builder latex -W -n --keep-going`` writes LaTeX to
   ``_build/latex`` from the same sources and the same execution cache
   (``_build/.jupyter_cache``), so no chapter is executed again; glued numbers and
   figures come from the cached outputs. Only the chapters the HTML numbers are
   numbered (``_ext/reader_edition.py``), so every number matches the HTML.
2. ``xelatex`` three times typesets it with Debian's TeX Live (packages
   ``texlive-xetex texlive-latex-recommended texlive-latex-extra
   texlive-fonts-recommended fonts-freefont-otf latexmk``). The book has no index (the
   glossary is its list of terms), so no index program runs.

The build fails when LaTeX stops, when a glyph is missing from the fonts
("Missing character") or when a reference is left undefined. A summary (pages,
seconds, warnings, and the boxes LaTeX reports as overfull: a line wider than the
text, a page taller than the text block) is written to ``_build/pdf/summary.json``;
``tests/test_pdf.py`` reads it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tools.book_builds import jupyter_book
from tools.system_packages import TEX_PACKAGES, missing_tex

ROOT = Path(__file__).resolve().parents[1]
LATEX = ROOT / "_build" / "latex"
OUT = ROOT / "_build" / "pdf"
NAME = "ensembles-verified"
# "Overfull \hbox (12.3pt too wide) in paragraph at lines 100--102", "in alignment at ...",
# "detected at line 7"; "Overfull \vbox (3.2pt too high) has occurred while \output is active"
OVERFULL = re.compile(r"Overfull \\([hv])box \(([\d.]+)pt too (?:wide|high)\) (?:[^\n]*?at lines? "
                      r"(\d+)|has occurred while \\output is active)")


def overfull_boxes(log: str, keep: int = 20) -> dict:
    """The overfull boxes of an unwrapped LaTeX log: how many lines (``hbox``: wider than
    the text or than a table's column) and pages (``vbox``: taller than the text block)
    LaTeX reports, and the ``keep`` largest of each as [size in pt, line of the .tex]
    (line 0 when LaTeX names none, as for a page)."""
    found: dict[str, list[list]] = {"hbox": [], "vbox": []}
    for kind, size, line in OVERFULL.findall(log):
        found[f"{kind}box"].append([float(size), int(line or 0)])
    return {"hbox": len(found["hbox"]), "vbox": len(found["vbox"]),
            "widest_hbox": sorted(found["hbox"], key=lambda box: -box[0])[:keep],
            "tallest_vbox": sorted(found["vbox"], key=lambda box: -box[0])[:keep]}


def build(timeout: int = 1800) -> dict:
    if missing_tex():
        raise RuntimeError(f"missing {missing_tex()}: install TeX Live with "
                           f"'apt-get install -y {' '.join(TEX_PACKAGES)}'")
    start = time.perf_counter()
    proc = subprocess.run([jupyter_book(), "build", ".", "--builder", "latex", "-W", "-n",
                           "--keep-going"], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)
    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / "latex-build.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError("the LaTeX build failed:\n" + (proc.stdout + proc.stderr)[-5000:])
    sphinx_seconds = time.perf_counter() - start
    # xelatex three times: the references, then the page numbers of the contents once the
    # references' text has its final width. The first two passes only write the auxiliary
    # files (page numbers, contents, outlines) and skip the PDF itself (-no-pdf, as
    # latexmk does), a third of their time.
    # xdvipdfmx compresses the figures at zlib's level 6, not its own default of 9: the PDF is
    # 3% larger and the last pass half as long (16 s to 9 s for the 130 figures).
    xelatex = ["xelatex", "-interaction=nonstopmode", "-halt-on-error", f"{NAME}.tex"]
    draft = [*xelatex[:1], "-no-pdf", *xelatex[1:]]
    xelatex.insert(1, "-output-driver=xdvipdfmx -z 6")
    for step in (draft, draft, xelatex):
        tex = subprocess.run(step, cwd=LATEX, capture_output=True, text=True, timeout=timeout)
        if tex.returncode != 0:
            break
    log = (LATEX / f"{NAME}.log").read_text(encoding="utf-8", errors="replace") \
        if (LATEX / f"{NAME}.log").is_file() else ""
    pdf = LATEX / f"{NAME}.pdf"
    if tex.returncode != 0 or not pdf.is_file():
        raise RuntimeError("xelatex failed:\n" + (tex.stdout + tex.stderr)[-3000:] + log[-3000:])
    log = re.sub(r"(?<=[^\n]{79})\n", "", log)  # TeX wraps its log at 79 characters
    pages = re.findall(r"Output written on .*?\((\d+) pages?", log)
    missing = sorted(set(re.findall(r"Missing character: There is no (.+?) in font", log)))
    undefined = sorted(set(re.findall(r"(?:Reference|Citation|Hyper reference) `([^']+)' on "
                                      r"page \d+ undefined", log)))
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pdf, OUT / f"{NAME}.pdf")
    summary = {"pdf": str((OUT / f"{NAME}.pdf").relative_to(ROOT)),
               "pages": int(pages[-1]) if pages else 0,
               "seconds": round(time.perf_counter() - start, 1),
               "sphinx_seconds": round(sphinx_seconds, 1),
               "missing_glyphs": missing, "undefined_references": undefined,
               "overfull": overfull_boxes(log)}
    (OUT / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def main() -> int:
    try:
        summary = build()
    except RuntimeError as exc:
        print(f"build_pdf: error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summary, indent=1))
    bad = summary["missing_glyphs"] or summary["undefined_references"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
