"""Helpers for the tests of the exercise bank and the student editions.

The exercises and solutions are read from the chapters' MyST sources with a parser
of their own (independent of ``_ext/exercise_bank.py`` and
``tools/student_notebooks.py``, which they test). Text is compared as sequences
of lower-case words and numbers, so that the same sentence matches in MyST, in
a notebook and in HTML (where markup, highlighting and math delimiters differ).
"""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIRECTIVE_RE = re.compile(
    r"^(?P<fence>:{3,}|`{3,})\{(?P<name>exercise|solution)\}[ \t]*(?P<arg>[^\n]*)\n"
    r"(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
OPTION_RE = re.compile(r"^:(\w+):[ \t]*(.*)$", re.M)
# roles, link targets, labels and code-fence lines (their info string is not shown as text)
ROLE_RE = re.compile(r"\{[\w:-]+\}`[^`]*`|\]\([^)]*\)|^\(.*\)=$|^[ \t]*(?:`{3,}|~{3,}).*$", re.M)
PROBE = 8  # words per probe


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def html_text(raw: str) -> str:
    """The text of an HTML page (tags removed, entities decoded)."""
    raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
    return html_lib.unescape(re.sub(r"<[^>]+>", "", raw))


def _options(body: str) -> tuple[dict, str]:
    lines = body.split("\n")
    options = {}
    while lines and (m := OPTION_RE.match(lines[0])):
        options[m.group(1)] = m.group(2).strip()
        lines.pop(0)
    return options, "\n".join(lines)


def chapter_exercises(md: Path) -> tuple[list[dict], list[dict]]:
    """The exercises and the solutions of a chapter, in order."""
    exercises, solutions = [], []
    for m in DIRECTIVE_RE.finditer(md.read_text(encoding="utf-8")):
        options, body = _options(m.group("body"))
        if m.group("name") == "exercise":
            title = m.group("arg").strip()
            mark = re.search(r"\((★{1,3})\)\s*$", title)
            exercises.append({
                "chapter": md.stem, "label": options.get("label", ""),
                "kind": options.get("class", ""), "difficulty": mark.group(1) if mark else "",
                "title": title[:mark.start()].strip() if mark else title,
                "statement": body.strip(), "start": m.start(),
            })
        else:
            solutions.append({"chapter": md.stem, "target": m.group("arg").strip(),
                              "text": body, "start": m.start()})
    return exercises, solutions


def without_solutions(text: str) -> str:
    """The chapter source with its solution directives cut out (for the probes)."""
    return DIRECTIVE_RE.sub(lambda m: "" if m.group("name") == "solution" else m.group(0), text)


def windows(text: str, n: int = PROBE) -> set[str]:
    """Every run of ``n`` consecutive words, within stretches free of roles and links."""
    out = set()
    for part in ROLE_RE.split(text):
        w = words(part)
        out.update(" ".join(w[i:i + n]) for i in range(len(w) - n + 1))
    return out


def corpus_windows(text: str, n: int = PROBE) -> set[str]:
    """Every run of ``n`` consecutive words of a large text (roles not treated specially)."""
    w = words(text)
    return {" ".join(w[i:i + n]) for i in range(len(w) - n + 1)}


def solution_probes(solution: str, visible: set[str]) -> set[str]:
    """Word runs of a solution that occur nowhere in the text a student may see.

    ``visible`` holds the word runs (:func:`corpus_windows`) of everything else a
    student edition shows; a probe found in a student edition can only have come
    from a solution. Runs made mostly of formula symbols are left out.
    """
    return {p for p in windows(solution)
            if p not in visible and sum(len(t) >= 3 and t.isalpha() for t in p.split()) >= 3}


def normalised(text: str) -> str:
    return " " + " ".join(words(text)) + " "


BUG_SOURCE_RE = re.compile(r"^`{3,}\{bug-source\}[ \t]*(\S+)", re.M)
IMPORT_RE = re.compile(r"^\s*from (ensembles_verified[\w.]*) import ([\w, ]+)", re.M)


def generated(text: str) -> str:
    """What the editions show beside a source's text: the function of each spot-the-bug
    exercise (``{bug-source}``, made from the package) and, in the notebooks' check cells,
    one import line per check that a statement imports."""
    from ensembles_verified.spot_the_bug import bug_source

    parts = [bug_source(label) for label in BUG_SOURCE_RE.findall(text)]
    parts += [f"from {module} import {name.strip()}" for module, names in IMPORT_RE.findall(text)
              for name in names.split(",") if name.strip()]
    return "\n".join(parts)


def visible_sources(root: Path = ROOT) -> str:
    """Every Markdown source of the book, with the solutions removed, and what the
    editions generate from it (:func:`generated`)."""
    texts = [without_solutions(p.read_text(encoding="utf-8")) for p in sorted((root / "book").rglob("*.md"))]
    return "\n".join(texts + [generated(t) for t in texts])


def numbered_chapters(root: Path = ROOT) -> list[Path]:
    """The ``.md`` of every chapter in a numbered part of ``_toc.yml`` (not the appendices)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = []

    def visit(entries):
        for entry in entries:
            if "file" in entry:
                files.append(root / f"{entry['file']}.md")
            visit(entry.get("sections", []) + entry.get("chapters", []))

    for part in toc.get("parts", []):
        if part.get("numbered"):
            visit(part.get("chapters", []))
    return files


TEXT_SUFFIXES = {".html", ".js", ".txt", ".md", ".ipynb", ".json", ".xml"}


def _json_strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return [s for item in value for s in _json_strings(item)]
    return []


# Folders of a build output copied whole from an installed package, not written from the
# book's sources: MathJax, served with the book (``_ext/offline_mathjax.py``; 23 MB of script).
COPIED_FOLDERS = {"mathjax"}


def folder_text(folder: Path, skip=lambda relative: False) -> str:
    """The text of every text file of a build output (HTML without tags, JSON strings), but
    the folders copied whole from a package (``COPIED_FOLDERS``)."""
    import json

    parts = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or skip(relative) \
                or relative.parts[0] in COPIED_FOLDERS:
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".html":
            raw = html_text(raw)
        elif path.suffix in {".ipynb", ".json"}:
            raw = "\n".join(_json_strings(json.loads(raw)))  # "\\n" escapes are not words
        parts.append(raw)
    return "\n".join(parts)


def answer_strings(x: float) -> set[str]:
    """The ways a number is usually written, with at least three significant digits."""
    forms = {f"{x:.{k}g}" for k in (3, 4, 5, 6, 8, 12)} | {f"{x:.{k}f}" for k in (2, 3, 4, 5)}
    forms |= {f"{x:,.0f}", f"{x:.2%}", f"{x:.1%}", repr(float(x))}
    return {f for f in forms if len(re.sub(r"[^1-9]|^0+", "", f.lstrip("-0.,"))) >= 3
            and not re.fullmatch(r"-?0\.?0*", f)}


def occurs(needle: str, haystack: str) -> bool:
    """``needle`` as a number of its own in ``haystack`` (not inside a longer number)."""
    return re.search(rf"(?<![\d.]){re.escape(needle)}(?![\d])", haystack) is not None


SOLUTION_RE = re.compile(r"^(:{3,})\{solution\}\s+(\S+)(.*?)^\1\s*$", re.M | re.S)
CODE_RE = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def solution_code(text: str) -> list[tuple[str, int, str]]:
    """The Python blocks of the solutions in a chapter's MyST source: (exercise label,
    block number, code). The tests run them with the published seed, the seed sweep
    with others (``ChapterSeed`` reads the seed from the environment)."""
    return [(match.group(2), k, code) for match in SOLUTION_RE.finditer(text)
            for k, code in enumerate(CODE_RE.findall(match.group(3)))]
