"""The Colab install cell of every chapter installs every package the chapter imports.

Colab has no requirements step: the first code cell of a chapter (kept in the reader
and student notebooks the launch buttons open) checks with ``find_spec`` which of
the packages the chapter needs are missing and installs them with ``%pip``. Every
top-level package the chapter's code cells import must be either

* part of the standard library, or of Colab's base (``COLAB_BASE``: the scientific
  stack every Colab runtime has), or
* checked by the cell's ``find_spec`` and installed by its ``%pip`` line, or
* a declared dependency of a distribution that line installs (``ensemble_ref``
  brings numpy and scipy, ``ensembles_verified`` IPython, ``distributed`` dask).

Chapters known to lack a package are listed in ``KNOWN_MISSING`` (reported, for the
chapter's author to add to the install cell); the test is then expected to fail
for them and fails as soon as the cell is fixed, so that the entry is removed.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from importlib import metadata

import pytest

from tools.chapters import ROOT, chapter_sources

# packages every Colab runtime has (import name)
COLAB_BASE = {"numpy", "scipy", "matplotlib", "pandas", "sklearn", "IPython"}
# chapter stem -> import names its install cell lacks (reported, not fixed here)
KNOWN_MISSING: dict[str, set[str]] = {}
SPEC_RE = re.compile(r"find_spec\(name\)\s+for\s+name\s+in\s+\(([^)]*)\)")
PIP_RE = re.compile(r"^\s*%pip install (.*)$", re.M)
IMPORT_RE = re.compile(r"^\s*(?:from\s+([A-Za-z_]\w*)[\w.]*\s+import|import\s+([A-Za-z_]\w*))", re.M)


def imported(code: str) -> set[str]:
    """The top-level packages a cell imports (magics are skipped)."""
    lines = [re.sub(r"^(\s*)[%!].*$", r"\1pass", line) for line in code.splitlines()]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:  # a cell ast cannot read: its import lines
        return {a or b for a, b in IMPORT_RE.findall(code)}
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _distribution(requirement: str) -> str:
    text = requirement.strip().strip("\"'")
    name = text.split("@")[0] if "@" in text else re.split(r"[\[<>=!~ ;]", text, maxsplit=1)[0]
    return name.strip().lower().replace("_", "-")


@functools.lru_cache(maxsize=None)
def _owners() -> dict[str, list[str]]:
    """import name -> distributions (one scan of every installed distribution)."""
    return metadata.packages_distributions()


@functools.lru_cache(maxsize=None)
def _modules_of(distribution: str) -> frozenset[str]:
    """The import names of an installed distribution and of its declared dependencies."""
    owners = _owners()
    names = {m for m, dists in owners.items()
             if distribution in {d.lower().replace("_", "-") for d in dists}}
    names.add(distribution.replace("-", "_"))  # editable installs are not in the mapping
    try:
        requires = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return frozenset(names)
    for req in requires:
        if "extra ==" in req:
            continue
        dep = _distribution(req)
        names |= {m for m, dists in owners.items()
                  if dep in {d.lower().replace("_", "-") for d in dists}}
    return frozenset(names)


def install_cell(code: str) -> tuple[set[str], set[str]]:
    """The modules the cell checks with find_spec, and the modules its %pip line installs."""
    spec = SPEC_RE.search(code)
    checked = set(re.findall(r"[\"']([\w.]+)[\"']", spec.group(1))) if spec else set()
    pip = PIP_RE.search(code)
    installed = set()
    for token in re.findall(r"\"[^\"]+\"|\S+", pip.group(1)) if pip else []:
        if token.startswith("-"):
            continue
        installed |= _modules_of(_distribution(token))
    return checked, installed


def missing(md) -> set[str]:
    import jupytext

    code = [c.source for c in jupytext.read(md).cells if c.cell_type == "code"]
    checked, installed = install_cell(code[0])
    needed = set().union(*map(imported, code)) - set(sys.stdlib_module_names) - COLAB_BASE
    return {name for name in needed if name not in installed or
            (name not in checked and not any(name in _modules_of(_distribution(c))
                                             for c in checked))}


CHAPTERS = chapter_sources()


def _param(md):
    known = KNOWN_MISSING.get(md.stem)
    marks = [pytest.mark.xfail(strict=True, reason=f"install cell lacks {sorted(known)} (reported)")
             ] if known else []
    return pytest.param(md, id=md.stem, marks=marks)


@pytest.mark.parametrize("md", [_param(md) for md in CHAPTERS])
def test_the_install_cell_installs_every_imported_package(md):
    lacking = missing(md)
    assert not lacking, f"{md.relative_to(ROOT)}: the Colab install cell lacks {sorted(lacking)}"


def test_known_missing_are_exactly_what_is_missing():
    """The list of reported chapters says exactly what each lacks (so a fix is noticed)."""
    found = {md.stem: missing(md) for md in CHAPTERS}
    assert {k: v for k, v in found.items() if v} == KNOWN_MISSING


def test_the_parser_sees_what_it_must():
    cell = ('from importlib.util import find_spec\n\nif not all(find_spec(name) for name in '
            '("ensemble_ref", "myst_nb")):\n    %pip install --quiet "ensemble_ref @ git+https://x" '
            'myst-nb\n')
    checked, installed = install_cell(cell)
    assert checked == {"ensemble_ref", "myst_nb"}
    assert {"myst_nb", "IPython"} <= installed
    assert imported("import catboost as cb\nfrom xgboost.sklearn import X\n%matplotlib inline\n"
                    "import os") == {"catboost", "xgboost", "os"}
