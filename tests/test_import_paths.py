"""One way to import each thing: the chapters' imports, and the two packages kept apart.

* ``ensemble_ref`` (the algorithms) exports its everyday names at the top level; a name
  exported there is imported from there, anything else from the module that defines it
  (``from ensemble_ref.math.mixture import softmax_gate``). No module of the package only
  re-exports another's names.
* ``ensembles_verified`` (the book's runtime: seeds, claims, glue, exercise checks) is a
  separate package. The algorithms never import it; the chapters import it by name.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

import ensemble_ref

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ensemble_ref"
CHAPTERS = sorted((ROOT / "book").rglob("*.md"))
LAYERS = ("core", "math", "trees", "ensembles")
CODE = re.compile(r"^```(?:\{code-cell\}[^\n]*|python)\n(.*?)^```", re.S | re.M)


def _imports(source: str, cell: bool = True):
    """(module, [names]) of every ``import`` statement of ``source`` (a code cell, or a module)."""
    if not cell:
        return _import_nodes(ast.parse(source))
    source = re.sub(r"\A---\n.*?\n---\n", "", source, flags=re.S)  # a code cell's YAML options
    source = "\n".join(line[:len(line) - len(line.lstrip())] + "pass"  # IPython magics, cell options
                       if line.lstrip().startswith(("%", "!", ":")) else line
                       for line in source.splitlines())
    return _import_nodes(ast.parse(source))


def _import_nodes(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None


def import_problems(module: str, names: list[str] | None) -> list[str]:
    """Why ``from module import names`` (or ``import module`` if names is None) breaks the rule."""
    top = module.split(".")[0]
    if top not in ("ensemble_ref", "ensembles_verified"):
        return []
    if names is None:
        return [f"`import {module}`: import names (`from {module} import ...`)"]
    if top == "ensembles_verified":
        return []
    parts = module.split(".")
    if module == "ensemble_ref":
        return [f"`{n}` is not exported by ensemble_ref" for n in names if n not in ensemble_ref.__all__]
    if len(parts) == 2 and parts[1] in LAYERS and all(
            importlib.util.find_spec(f"{module}.{n}") for n in names):
        return []  # modules of a layer: from ensemble_ref.trees import readable
    if not (len(parts) == 3 and parts[1] in LAYERS or module == "ensemble_ref.datasets"):
        return [f"`from {module} import`: import from ensemble_ref or from a module of "
                f"ensemble_ref.{{{','.join(LAYERS)}}}"]
    defined = importlib.import_module(module)
    return [f"`{n}` is exported by ensemble_ref: `from ensemble_ref import {n}`" for n in names
            if n in ensemble_ref.__all__ and getattr(ensemble_ref, n) is getattr(defined, n, None)]


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapters_import_each_name_one_way(md):
    problems = []
    for block in CODE.findall(md.read_text(encoding="utf-8")):
        if not re.search(r"\bensemble", block):
            continue
        for module, names in _imports(block):
            problems += import_problems(module, names)
    assert not problems, f"{md.relative_to(ROOT)}: " + "; ".join(problems)


def test_the_rule_can_fail():
    assert import_problems("ensemble_ref.math.adaboost", ["adaboost_alpha"])   # exported at the top
    assert import_problems("ensemble_ref.adaboost", ["AdaBoostClassifier"])   # not a layer module
    assert import_problems("ensemble_ref", None)
    assert not import_problems("ensemble_ref.trees.readable", ["squared_error"])  # another object
    assert not import_problems("ensembles_verified.selfcheck", ["check_leaf_weight"])


def _modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_algorithms_never_import_the_runtime_and_never_only_reexport(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    runtime = [m for m, _ in _import_nodes(tree)
               if m.split(".")[0] == "ensembles_verified"]
    assert not runtime, f"{path.name} imports the book's runtime: {runtime}"
    if path.name == "__init__.py":
        return
    defines = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
               or isinstance(n, ast.Assign) and not any(getattr(t, "id", "") == "__all__" for t in n.targets)]
    assert defines, f"{path.relative_to(ROOT)} defines nothing: a module only re-exporting is not allowed"


# ------------------------------------------------------------------ layers and cycles

RANK = {"core": 0, "datasets": 1, "math": 2, "trees": 3, "ensembles": 4}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """``{module: modules of ensemble_ref it imports}`` (relative imports resolved)."""
    graph = {}
    for path in _modules():
        name = _module_name(path)
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and getattr(block.test, "id", "") == "TYPE_CHECKING" for n in ast.walk(block)}
        for node in ast.walk(tree):
            if id(node) in typing_only:  # annotations only: not an import at run time
                continue
            if isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                target = ".".join(base + ([node.module] if node.module else []))
                targets |= {target} if not node.level or node.module else \
                    {f"{target}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
        graph[name] = {t for t in targets if t.split(".")[0] == "ensemble_ref" and t != name}
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")
    return RANK.get(parts[1], 5) if len(parts) > 1 else 5  # the top-level __init__ is above all


def test_no_import_runs_back_up_a_layer():
    upward = [f"{m} -> {t}" for m, targets in import_graph().items() for t in targets
              if _layer(t) > _layer(m)]
    assert not upward, "imports that run back up a layer:\n" + "\n".join(sorted(upward))


def test_the_import_graph_has_no_cycle():
    graph = import_graph()
    known = set(graph)

    def resolve(t):  # a name imported from a package's __init__ counts as the package
        while t not in known and "." in t:
            t = t.rsplit(".", 1)[0]
        return t

    edges = {m: {resolve(t) for t in ts} - {m} for m, ts in graph.items()}
    state: dict[str, int] = {}

    def visit(m, trail):
        state[m] = 1
        for t in edges.get(m, ()):
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(trail + [m, t]))
            if t not in state:
                visit(t, trail + [m])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [])
