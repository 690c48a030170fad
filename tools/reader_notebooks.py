"""Reader notebooks: each chapter as a notebook that reads like the book.

Usage (from the repository root, after the book's build)::

    python -m tools.reader_notebooks _build/reader-notebooks            # a new or empty folder
    python -m tools.reader_notebooks OUTPUT --student                   # solutions removed
    python -m tools.reader_notebooks OUTPUT --branch                    # + Binder environment

The chapters are MyST notebooks; opened as they are in Jupyter or Colab they show
MyST's markup (``(label)=``, ``:::{prf:theorem}``, ``{eq}`...```,
``{glue:text}`name:.3f```). A reader notebook has the same code cells, in the same
order, and Markdown cells in which

* every glued number is its value, formatted as in the book;
* every reference is resolved as in the HTML: equations as (8.1), figures,
  theorems and exercises by kind and number, sections and chapters by title,
  citations as [Author, year] (with a list of references at the end); references
  to another page link to the published book;
* theorem, definition, algorithm, proof, exercise, solution and admonition boxes
  are plain Markdown (a bold heading; a solution is a collapsed ``<details>``);
* labelled equations carry their number (``\\tag``), labels become HTML anchors;
* a figure's caption follows the cell that draws it;
* every exercise is a Markdown cell of its own, followed by an empty answer cell
  (a code cell for a coding or experiment exercise, a Markdown cell "*Your
  answer:*" for a derivation or proof) and, when the exercise has a self-check or
  an answer check, a code cell that calls it with a placeholder for the answer
  (the cells are tagged ``answer`` and ``answer-check``; ``chapter_code`` leaves
  them out).

The references come from ``_build/reader/refs.json``, written by the book's build
(``_ext/reader_edition.py``), which also writes these notebooks for the download
menu and for the ``reader-notebooks`` branch the launch buttons open.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFS = ROOT / "_build" / "reader" / "refs.json"
REPOSITORY = "https://github.com/ensembles-verified/ensembles-verified"

PROOF_KINDS = {"definition", "theorem", "proposition", "lemma", "corollary", "algorithm",
               "example", "remark", "conjecture", "axiom", "criterion", "assumption",
               "observation", "property", "notation"}
ADMONITIONS = {"note", "tip", "warning", "important", "caution", "attention", "danger",
               "error", "hint", "seealso"}
KIND_NAMES = {"figure": "Figure", "table": "Table", "code-block": "Listing",
              "exercise": "Exercise", "solution": "Solution"}

OPEN_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>:{3,}|`{3,})\{(?P<name>[A-Za-z0-9:_-]+)\}"
                     r"[ \t]*(?P<arg>.*)$")
FENCE_RE = re.compile(r"^[ \t]*(?P<fence>:{3,}|`{3,})(?P<rest>.*)$")
OPTION_RE = re.compile(r"^[ \t]*:(?P<key>[A-Za-z0-9_-]+):[ \t]*(?P<value>.*)$")
ROLE_RE = re.compile(r"\{(?P<role>[A-Za-z0-9:_-]+)\}`(?P<content>[^`]*)`")
TARGET_RE = re.compile(r"^[ \t]*\((?P<label>[^()\s]+)\)=[ \t]*$", re.M)
LABELLED_MATH_RE = re.compile(r"\$\$(?P<body>(?:(?!\$\$).)*?)\$\$[ \t]*\((?P<label>[^()\s]+)\)",
                              re.S)
EXPLICIT_RE = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
MD_LINK_RE = re.compile(r"\]\((?P<target>(?!https?:|mailto:)[^)\s]+)\)")
# What no reader notebook may contain: a MyST role, a directive fence, a label target.
MYST_SYNTAX_RE = re.compile(r"\{[A-Za-z0-9:_-]+\}`|^[ \t]*(?::{3,}|`{3,})\{[A-Za-z0-9:_-]+\}"
                            r"|^[ \t]*\([^()\s]+\)=[ \t]*$", re.M)


def format_glue(text: str, fmt: str) -> str:
    """A glued value formatted as myst-nb formats ``{glue:text}`name:fmt```."""
    from ast import literal_eval

    try:
        value = literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if not fmt:
        return str(value)
    kind = fmt[-1]
    if kind == "s":
        value = str(value)
    elif kind in "bcdoxX":
        value = int(value)
    elif kind in "eEfFgGn%":
        value = float(value)
    return format(value, fmt)


class Resolver:
    """Turns labels, glue names and citation keys of one chapter into reader text."""

    def __init__(self, refs: dict, docname: str):
        self.refs, self.docname = refs, docname
        self.labels = refs.get("labels", {})
        self.cited: list[str] = []
        self.answer_cells = False  # mark each exercise for its answer cells (reader_notebook)
        self.baseurl = refs.get("baseurl", "").rstrip("/") + "/"

    def url(self, doc: str, anchor: str = "") -> str:
        return f"{self.baseurl}{doc}.html" + (f"#{anchor}" if anchor else "")

    def link(self, text: str, label: str) -> str:
        entry = self.labels.get(label)
        if entry is None:
            return text
        if entry["doc"] == self.docname:
            return f"[{text}](#{label})" if entry["kind"] != "equation" else text
        return f"[{text}]({self.url(entry['doc'], entry.get('id', label))})"

    def number(self, label: str) -> str:
        return self.labels.get(label, {}).get("number", "")

    def kind_name(self, label: str) -> str:
        kind = self.labels.get(label, {}).get("kind", "")
        return KIND_NAMES.get(kind, kind.capitalize())

    def title(self, label: str) -> str:
        entry = self.labels.get(label, {})
        if entry.get("kind") in ("exercise", "solution") or (
                entry.get("number") and entry.get("kind") != "section"):
            return f"{self.kind_name(label)} {entry.get('number', '')}".strip()
        return entry.get("title") or label

    def glue(self, content: str) -> str:
        doc = self.docname
        if "::" in content:
            path, content = content.split("::", 1)
            doc = path[:-3] if path.endswith(".md") else path
        name, _, fmt = content.partition(":")
        values = self.refs.get("glue", {}).get(doc, {})
        if name not in values:
            raise KeyError(f"{self.docname}: no glued value {name!r}")
        return format_glue(values[name], fmt)

    def cite(self, role: str, content: str) -> str:
        keys = [k.strip() for k in content.split(",") if k.strip()]
        bib = self.refs.get("bib", {})
        parts = []
        for key in keys:
            if key not in self.cited:
                self.cited.append(key)
            entry = bib.get(key, {"short": key, "year": ""})
            if role == "cite:t":
                parts.append(f"{entry['short']} [{entry['year']}]")
            else:
                parts.append(f"{entry['short']}, {entry['year']}")
        text = "; ".join(parts)
        return text if role == "cite:t" else f"[{text}]"

    def role(self, match: re.Match) -> str:
        role, content = match.group("role"), match.group("content")
        explicit = EXPLICIT_RE.match(content)
        text, target = (explicit.group("text"), explicit.group("target").strip()) if explicit \
            else (None, content.strip())
        if role in ("glue:text", "glue", "glue:any"):
            return self.glue(content)
        if role.startswith("cite"):
            return self.cite(role, content)
        if role == "eq":
            return self.link(f"({self.number(target)})" if self.number(target) else target, target)
        if role == "numref":
            number = self.number(target)
            shown = text.replace("%s", number).replace("{number}", number) if text else \
                f"{self.kind_name(target)} {number}"
            return self.link(shown, target)
        if role in ("ref", "prf:ref", "numref"):
            return self.link(text or self.title(target), target)
        if role == "doc":
            doc = self.doc_path(target)
            title = text or self.refs.get("docs", {}).get(doc, {}).get("title", target)
            return f"[{title}]({self.url(doc)})"
        if role == "math":
            return f"${content}$"
        if role.startswith("py:"):
            return f"`{(text or target).lstrip('~').split('.')[-1]}`"
        if role in ("sub", "sup"):
            return f"<{role}>{content}</{role}>"
        return f"`{text or target}`"

    def doc_path(self, target: str) -> str:
        import posixpath

        target = target[:-3] if target.endswith(".md") else target
        if target.startswith("/"):
            return target.lstrip("/")
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), target))


# -- Markdown conversion ---------------------------------------------------------------

def _closing(lines: list[str], start: int, fence: str) -> int:
    """Index of the line that closes the directive opened just before ``start``."""
    stack: list[str] = []
    for i in range(start, len(lines)):
        match = FENCE_RE.match(lines[i])
        if not match:
            continue
        f, rest = match.group("fence"), match.group("rest").strip()
        if rest:  # an opening fence (a code block or a nested directive)
            stack.append(f)
            continue
        if stack and f[0] == stack[-1][0] and len(f) >= len(stack[-1]):
            stack.pop()
            continue
        if f[0] == fence[0] and len(f) >= len(fence):
            return i
        stack.append(f)  # a bare opening fence of a code block
    return len(lines)


def convert_markdown(text: str, res: Resolver, student: bool = False) -> str:
    """MyST Markdown of one cell (or a directive body) as plain Markdown."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = OPEN_RE.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        end = _closing(lines, i + 1, match.group("fence"))
        body = lines[i + 1:end]
        options = {}
        while body and OPTION_RE.match(body[0]):
            option = OPTION_RE.match(body[0])
            options[option.group("key")] = option.group("value").strip()
            body = body[1:]
        out.extend(directive(match.group("name"), match.group("arg").strip(), options,
                             "\n".join(body).strip("\n"), res, student).split("\n"))
        i = end + 1
    text = "\n".join(out)
    text = LABELLED_MATH_RE.sub(lambda m: _tagged(m, res), text)
    text = TARGET_RE.sub(lambda m: "" if m.group("label").startswith("ch-")
                         else f'<a id="{m.group("label")}"></a>', text)
    text = ROLE_RE.sub(res.role, text)
    text = MD_LINK_RE.sub(lambda m: "](" + _link_target(m.group("target"), res) + ")", text)
    return re.sub(r"\n{3,}", "\n\n", text)


def _tagged(match: re.Match, res: Resolver) -> str:
    body, label = match.group("body"), match.group("label")
    number = res.number(label)
    if number and "\\tag" not in body and not re.search(r"\\begin\{(align|equation|gather)", body):
        body = body.rstrip() + f" \\tag{{{number}}}\n"
    return f'<a id="{label}"></a>\n\n$${body}$$'


def _link_target(target: str, res: Resolver) -> str:
    if target.startswith("#"):
        label = target[1:]
        entry = res.labels.get(label)
        if entry and entry["doc"] != res.docname:
            return res.url(entry["doc"], entry.get("id", label))
        return target
    path, _, anchor = target.partition("#")
    if path.endswith((".md", ".ipynb")):
        return res.url(res.doc_path(path.rsplit(".", 1)[0]), anchor)
    return target


def directive(name: str, arg: str, options: dict, body: str, res: Resolver,
              student: bool) -> str:
    label = options.get("label", "")
    anchor = f'<a id="{label}"></a>\n\n' if label else ""
    inner = convert_markdown(body, res, student) if body else ""
    kind = name.split(":", 1)[1] if name.startswith("prf:") else name
    if name.startswith("prf:") and kind == "proof":
        return f"*Proof.* {inner.strip()} $\\blacksquare$\n"
    if name.startswith("prf:") or kind in PROOF_KINDS:
        number = res.number(label) if label else ""
        head = f"{kind.capitalize()} {number}".strip()
        title = f" ({convert_markdown(arg, res, student).strip()})" if arg else ""
        return f"{anchor}**{head}{title}.** {inner.strip()}\n"
    if name == "exercise":
        number = res.number(label) if label else ""
        title = f" — {convert_markdown(arg, res, student).strip()}" if arg else ""
        text = f"{anchor}**Exercise {number}**{title}\n\n{inner.strip()}\n"
        if not res.answer_cells:
            return text
        kind = options.get("class", "").split()
        mark = json.dumps({"label": label, "number": number, "kind": kind[0] if kind else "",
                           "checks": exercise_checks(body)})
        return f"\n{EXERCISE_START}\n{text}\n{EXERCISE_END}{mark}{EXERCISE_END}\n"
    if name == "solution":
        if student:
            return ""
        target = arg.split()[0] if arg else ""
        number = res.number(target)
        return (f"<details>\n<summary><b>Solution to Exercise {number}</b></summary>\n\n"
                f"{inner.strip()}\n\n</details>\n")
    if name == "admonition" or name in ADMONITIONS:
        title = convert_markdown(arg, res, student).strip() if arg else name.capitalize()
        return f"**{title}.** {inner.strip()}\n"
    if name in ("math",):
        return f"{anchor}$$\n{body}\n$$\n"
    if name in ("figure", "image"):
        return f"{anchor}![{inner.strip()}]({arg})\n"
    if name in ("code-block", "code", "sourcecode"):
        return f"```{arg}\n{body}\n```\n"
    if name == "bug-source":  # the function of a spot-the-bug exercise, with its error
        from ensembles_verified.spot_the_bug import bug_source
        return f"```python\n{bug_source(arg.strip())}```\n"
    if name in ("margin", "sidebar", "epigraph", "topic", "div", "container", "dropdown",
                "card", "tab-item", "tab-set", "grid", "grid-item", "grid-item-card"):
        title = f"**{convert_markdown(arg, res, student).strip()}.** " if arg else ""
        return f"{title}{inner.strip()}\n"
    return inner  # anything else: its content, converted


# -- notebooks ------------------------------------------------------------------------

# Put before the first code cell of a reader notebook: a claim that does not hold for the
# reader's own seed prints an explanation and the notebook runs on (the book build and the
# tests stay strict; ``ensembles_verified.claims``).
EXPLAIN_CLAIMS = (
    "# A claim that does not hold for a seed you chose is explained, and the notebook runs on.\n"
    "import os\n"
    "os.environ.setdefault(\"ENSEMBLES_VERIFIED_CLAIMS\", \"explain\")\n\n")


# -- answer cells -----------------------------------------------------------------------

EXERCISE_START, EXERCISE_END = "\x1d", "\x1e"  # marks around an exercise, in reader_notebook only
ANSWER_TAGS = ("answer", "answer-check")
_IMPORT_RE = re.compile(r"^\s*from (ensembles_verified[\w.]*) import ([\w, ]+)", re.M)
_CALL_RE = re.compile(r"^\s*(check_\w+)\((.*?)\)\s*(?:#.*)?$", re.M)


def exercise_checks(body: str) -> list[dict]:
    """The checks an exercise's statement shows: each check's module, name and first call."""
    modules = {name.strip(): module for module, names in _IMPORT_RE.findall(body)
               for name in names.split(",")}
    found: dict[str, dict] = {}
    for name, args in _CALL_RE.findall(body):
        if name not in found:
            found[name] = {"module": modules.get(name, "ensembles_verified.selfcheck"),
                           "name": name, "args": args.strip()}
    return list(found.values())


def _check_source(check: dict, label: str, number: str) -> str:
    """The code of a check cell: the call, with a placeholder for the student's answer."""
    name, module = check["name"], check["module"]
    if name == "check_answer":
        return (f"# Check your answer to Exercise {number}: put it in place of None (a number, "
                f"or a formula\n# as a string), and your seed if you were given one.\n"
                f"from {module} import check_answer\n\n"
                f"your_answer = None\nyour_seed = None\n"
                f"if your_answer is not None:\n"
                f"    check_answer({label!r}, your_answer, seed=your_seed)")
    call = f"{name}({check['args']})"
    return (f"# Check your function (define it in the cell above first; pass random_state=your "
            f"seed for a variant).\nfrom {module} import {name}\n\ntry:\n    {call}\n"
            f"except NameError as exc:  # the function is not defined yet\n"
            f"    print(f\"Define your function first ({{exc}}).\")")


def _answer_cells(mark: dict) -> list:
    """The empty answer cell of an exercise, and its check cells."""
    import nbformat

    if mark["kind"] in ("coding", "experiment"):
        cells = [nbformat.v4.new_code_cell("")]
    else:
        cells = [nbformat.v4.new_markdown_cell("*Your answer:*")]
    cells[0].metadata["tags"] = ["answer"]
    for check in mark["checks"]:
        cell = nbformat.v4.new_code_cell(_check_source(check, mark["label"], mark["number"]))
        cell.metadata["tags"] = ["answer-check"]
        cells.append(cell)
    return cells


def _split_exercises(text: str) -> list:
    """A converted Markdown cell as cells: the prose, each exercise alone and its answer cells."""
    import nbformat

    cells = []
    pattern = re.compile(f"{EXERCISE_START}(.*?){EXERCISE_END}(.*?){EXERCISE_END}", re.S)
    position = 0
    for match in pattern.finditer(text):
        before = text[position:match.start()].strip("\n")
        if before.strip():
            cells.append(nbformat.v4.new_markdown_cell(re.sub(r"\n{3,}", "\n\n", before)))
        cells.append(nbformat.v4.new_markdown_cell(match.group(1).strip("\n")))
        cells += _answer_cells(json.loads(match.group(2)))
        position = match.end()
    rest = text[position:].strip("\n")
    if rest.strip():
        cells.append(nbformat.v4.new_markdown_cell(re.sub(r"\n{3,}", "\n\n", rest)))
    return cells


def chapter_code(nb) -> list[str]:
    """The code cells of a reader notebook as the chapter has them (the first one without
    the lines ``EXPLAIN_CLAIMS`` adds), without the answer and check cells of the exercises."""
    code = [c.source for c in nb.cells if c.cell_type == "code"
            and not set(c.metadata.get("tags", [])) & set(ANSWER_TAGS)]
    if code and code[0].startswith(EXPLAIN_CLAIMS):
        code[0] = code[0][len(EXPLAIN_CLAIMS):]
    return code

def reader_notebook(source, refs: dict, docname: str, student: bool = False):
    """The reader notebook (nbformat v4, no outputs) of a chapter.

    ``source`` is a chapter's ``.md`` path or a notebook already read (e.g. a
    student notebook); ``refs`` the data of ``_build/reader/refs.json``.
    """
    import jupytext
    import nbformat

    nb = jupytext.read(source) if isinstance(source, (str, Path)) else nbformat.from_dict(source)
    res = Resolver(refs, docname)
    res.answer_cells = True
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            text = convert_markdown(cell.source, res, student).strip("\n")
            if EXERCISE_START in text:
                cells += _split_exercises(text)
            elif text.strip():
                cell.source = text
                cell.metadata.pop("tags", None)
                cells.append(cell)
            continue
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cells.append(cell)
            figure = (cell.metadata.get("mystnb") or {}).get("figure") or {}
            if figure.get("caption"):
                name = figure.get("name", "")
                number = res.number(name)
                head = f"Figure {number}." if number else "Figure."
                anchor = f'<a id="{name}"></a>' if name else ""
                caption = convert_markdown(str(figure["caption"]), res, student).strip()
                cells.append(nbformat.v4.new_markdown_cell(f"{anchor}**{head}** {caption}"))
        else:
            cells.append(cell)
    doc = refs.get("docs", {}).get(docname, {})
    intro = (f"*This notebook is chapter {doc.get('number', '')} of* Ensembles, Verified"
             f" *(version {refs.get('version', '')}; read it online at "
             f"<{res.url(docname)}>). Run the cells from the top: the first one installs the "
             "book's package when it is missing (on Colab).*")
    cells.insert(0, nbformat.v4.new_markdown_cell(intro))
    first = next((c for c in cells if c.cell_type == "code"
                  and not set(c.metadata.get("tags", [])) & set(ANSWER_TAGS)), None)
    if first is not None:
        first.source = EXPLAIN_CLAIMS + first.source
    if res.cited:
        bib = refs.get("bib", {})
        lines = ["## References", ""]
        lines += [f"- [{bib.get(k, {}).get('short', k)}, {bib.get(k, {}).get('year', '')}] "
                  f"{bib.get(k, {}).get('full', k)}" for k in res.cited]
        cells.append(nbformat.v4.new_markdown_cell("\n".join(lines)))
    nb.cells = cells
    for cell in nb.cells:
        cell.pop("id", None)
    nb.metadata.pop("jupytext", None)
    nb = nbformat.v4.upgrade(nb) if nb.nbformat < 4 else nb
    nb.nbformat, nb.nbformat_minor = 4, 5
    for cell in nb.cells:  # stable ids: the cell's position
        cell["id"] = f"cell-{nb.cells.index(cell):03d}"
    return nb


def myst_leftovers(nb) -> list[str]:
    """Every piece of MyST syntax left in a notebook's Markdown cells (should be none)."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = re.sub(r"```.*?```", "", cell.source, flags=re.S)  # code blocks are literal
        found += [m.group(0) for m in MYST_SYNTAX_RE.finditer(text)]
    return found


def load_refs(path: Path = REFS) -> dict:
    if not path.is_file():
        raise ValueError(f"{path} is missing: build the book first "
                         "(jupyter-book build . -W -n --keep-going).")
    return json.loads(path.read_text(encoding="utf-8"))


def binder_requirements(root: Path = ROOT, commit: str = "main") -> str:
    """``requirements.txt`` for the reader-notebooks branch: the two packages from the main branch."""
    lines = (root / "requirements.txt").read_text(encoding="utf-8").splitlines()
    packages = {"-e .": f"ensemble_ref @ git+{REPOSITORY}@{commit}",
                "-e ./runtime": f"ensembles_verified @ git+{REPOSITORY}@{commit}#subdirectory=runtime"}
    return "\n".join(packages.get(line.strip(), line) for line in lines) + "\n"


def write_notebooks(output: Path, student: bool = False, branch: bool = False,
                    overwrite: bool = False, root: Path = ROOT, commit: str = "main") -> list[Path]:
    import nbformat

    from tools.chapters import chapter_sources
    from tools.student_notebooks import check_output_dir, student_notebook

    out = check_output_dir(Path(output), overwrite, root)
    refs = load_refs(root / "_build" / "reader" / "refs.json")
    written = []
    notebooks = []
    for md in chapter_sources(root):
        docname = md.relative_to(root).with_suffix("").as_posix()
        source = student_notebook(md) if student else md
        notebooks.append((md, reader_notebook(source, refs, docname, student=student)))
    for md, nb in notebooks:
        target = out / (md.relative_to(root).with_suffix(".ipynb") if branch else
                        Path(f"{md.stem}.ipynb"))
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target)
        written.append(target)
    if branch:
        (out / "requirements.txt").write_text(binder_requirements(root, commit), encoding="utf-8")
        (out / "runtime.txt").write_text((root / "runtime.txt").read_text(), encoding="utf-8")
        kind = "student notebooks (without solutions)" if student else "reader notebooks"
        edition = "the student edition's pages" if student else "the book's pages"
        (out / "README.md").write_text(
            f"# Ensembles, Verified: {kind}\n\nThe chapters of the book as notebooks "
            f"(generated from the main branch; do not edit). Open them on Binder or Colab "
            f"from {edition}.\n", encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write every chapter as a reader notebook.")
    parser.add_argument("output", type=Path, help="folder to write to, outside book/")
    parser.add_argument("--student", action="store_true", help="remove the solutions")
    parser.add_argument("--branch", action="store_true",
                        help="write the tree of the reader-notebooks branch (book/, Binder files); "
                             "with --student, of the student-notebooks branch")
    parser.add_argument("--commit", default="main", help="ensemble_ref's commit for Binder")
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    try:
        written = write_notebooks(args.output, args.student, args.branch, args.overwrite,
                                  commit=args.commit)
    except ValueError as exc:
        parser.exit(2, f"reader_notebooks: error: {exc}\n")
    print(f"{len(written)} reader notebooks written to {Path(args.output).resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
