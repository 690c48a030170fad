"""The book's chapters as the table of contents lists them: the one list every stage reads."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def chapter_sources(root: Path = ROOT) -> list[Path]:
    """The ``.md`` source of every executable chapter (a MyST notebook) of ``_toc.yml``, in order."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]
    stack = list(toc.get("parts", [])) + list(toc.get("chapters", []))
    while stack:
        entry = stack.pop(0)
        if "file" in entry:
            files.append(entry["file"])
        stack[0:0] = entry.get("chapters", []) + entry.get("sections", [])
    mds = [root / f"{name}.md" for name in files]
    return [md for md in mds if md.exists() and "format_name: myst" in md.read_text(encoding="utf-8")[:400]]


def chapter_notebooks(root: Path = ROOT) -> list[Path]:
    """The paired ``.ipynb`` of every executable chapter of ``_toc.yml``, in order."""
    return [md.with_suffix(".ipynb") for md in chapter_sources(root)]
