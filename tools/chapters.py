"""The book's chapters as the table of contents lists them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def chapter_notebooks() -> list[Path]:
    """The paired ``.ipynb`` of every executable chapter listed in ``_toc.yml``."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    stack = list(toc.get("parts", [])) + list(toc.get("chapters", []))
    while stack:
        entry = stack.pop(0)
        if "file" in entry:
            files.append(entry["file"])
        stack.extend(entry.get("chapters", []) + entry.get("sections", []))
    notebooks = []
    for name in files:
        md = ROOT / f"{name}.md"
        if md.exists() and "format_name: myst" in md.read_text()[:400]:
            notebooks.append(md.with_suffix(".ipynb"))
    return notebooks
