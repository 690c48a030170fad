"""One home for validation and one home per formula, checked on the source (``ast``).

Two rules of CONTRIBUTING.md's architecture, read off the code rather than trusted:

* **Validation has one home.** A module of ``ensemble_ref/math/`` checks its arguments
  only by calling the validators of ``ensemble_ref.core.validation`` (which name the
  argument and the values it accepts). It defines no private validator (no function
  named ``_check...`` or ``_validate...``, at any depth) and raises no ``ValueError`` or
  ``TypeError`` itself: no ``raise`` statement of those classes, of a subclass, or of an
  exception whose class cannot be read off the code. A module may combine validators in
  a helper (``_gate_array``, ``_outputs``), but every condition that rejects an input and
  its message are core.validation's. Other exceptions (``NotImplementedError``, a bare
  re-raise) are not validation and are allowed.
* **Each formula has one home.** Three formulas, the ones most easily rewritten inline,
  are recognised by their shape wherever they occur in ``ensemble_ref/``:

  - *the softmax*: scores minus their log-sum-exp (``S - logsumexp(S)``), or minus their
    row maximum kept as a column (``S - S.max(axis=1, keepdims=True)`` or
    ``_row_reduce(np.maximum, S)``, also through a name assigned that maximum, anywhere in
    what is subtracted, or ``S -= ...``), the two ways of writing a stable softmax or
    log-softmax; home: ``_softmax``,
    ``_log_softmax`` and their ``_log_normaliser`` in ``math/mixture.py``;
  - *the leaf weight and the gain*: a division by a sum with the L2 penalty,
    ``... / (H + lam)`` (also ``reg_lambda``, or through a name assigned that sum), the
    shape of :math:`-G/(H + \\lambda)` and of the gain's terms :math:`G^2/(H + \\lambda)`;
    home: ``_leaf_weight`` and ``_score`` of ``math/second_order.py``;
  - *the binomial law of the votes*: ``scipy.stats.binom`` or ``gammaln`` (the binomial
    coefficient in log space); home: ``_binomial_pmf`` of ``math/crowds.py``.

  A match outside its home function is a copy of the formula; the code must call the
  home instead. (AdaBoost's reweighting normalises ``exp(log D - max)`` over the sample,
  without ``keepdims``: equation ``eq-adaboost-weights``, not a softmax over classes.)

``test_the_rules_can_fail`` runs both checks on small sources that break them.
"""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ensemble_ref"
MATH = sorted((PACKAGE / "math").glob("*.py"))

# --- validation ------------------------------------------------------------------------------


def _exception_class(node: ast.expr, namespace: dict) -> type | None:
    """The class a ``raise`` statement raises, read from builtins or the module; None if unknown."""
    target = node.func if isinstance(node, ast.Call) else node
    parts = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if not isinstance(target, ast.Name):
        return None
    obj = namespace.get(target.id, getattr(builtins, target.id, None))
    for attr in reversed(parts):
        obj = getattr(obj, attr, None)
    return obj if isinstance(obj, type) else None


def validation_problems(source: str, namespace: dict) -> list[str]:
    """Private validators and ``ValueError``/``TypeError`` raised directly in a math module's source."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
                ("_check", "_validate")):
            problems.append(f"line {node.lineno}: private validator {node.name}()")
        if isinstance(node, ast.Raise) and node.exc is not None:
            cls = _exception_class(node.exc, namespace)
            if cls is None or issubclass(cls, (ValueError, TypeError)):
                what = "an exception of unknown class" if cls is None else cls.__name__
                problems.append(f"line {node.lineno}: raises {what} itself: {ast.unparse(node)[:70]}")
    return sorted(problems, key=lambda p: int(p.split()[1].rstrip(":")))


@pytest.mark.parametrize("path", MATH, ids=[p.name for p in MATH])
def test_math_checks_its_arguments_only_through_core_validation(path):
    module = importlib.import_module(f"ensemble_ref.math.{path.stem}")
    problems = validation_problems(path.read_text(), vars(module))
    assert not problems, (f"{path.name} validates by itself; call (or add, general) checks of "
                          "ensemble_ref.core.validation:\n  " + "\n  ".join(problems))


def test_math_imports_its_checks_from_core_validation():
    for path in MATH:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and (node.module or "").startswith("core"):
                assert node.module == "core.validation", f"{path.name} imports from {node.module}"


# --- formulas --------------------------------------------------------------------------------

HOMES = {
    "softmax": ("math/mixture.py", {"_softmax", "_log_softmax", "_log_normaliser"}),
    "leaf weight or gain": ("math/second_order.py", {"_leaf_weight", "_score"}),
    "binomial law": ("math/crowds.py", {"_binomial_pmf"}),
}
PENALTIES = {"lam", "reg_lambda", "lambda_", "lmbda"}


def _name(node: ast.AST) -> str | None:
    """The last name of ``x`` or ``a.b.x`` (None for anything else)."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _is_row_max(node: ast.AST) -> bool:
    """``S.max(..., keepdims=True)`` or ``np.max(S, ..., keepdims=True)`` (also ``amax``), or
    ``_row_reduce(np.maximum, S)`` (the same column, taken column by column)."""
    if isinstance(node, ast.Call) and _name(node.func) == "_row_reduce":
        return bool(node.args) and _name(node.args[0]) == "maximum"
    return (isinstance(node, ast.Call) and _name(node.func) in ("max", "amax")
            and any(k.arg == "keepdims" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in node.keywords))


def _is_penalised_sum(node: ast.AST) -> bool:
    """``H + lam`` (either order), the penalty being a name or an attribute such as ``p.reg_lambda``."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
            and (_name(node.left) in PENALTIES or _name(node.right) in PENALTIES))


def _formulas_in(function: ast.AST) -> set[tuple[str, int]]:
    """``(formula, line)`` of each formula written in one function (or module) body."""
    shifts, penalised = set(), set()  # names assigned a row maximum, or a penalised sum
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _is_row_max(node.value):
                shifts.add(node.targets[0].id)
            if _is_penalised_sum(node.value):
                penalised.add(node.targets[0].id)
    found = set()
    for node in ast.walk(function):
        right = (node.right if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) else
                 node.value if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Sub) else None)
        if right is not None and any(_is_row_max(r) or isinstance(r, ast.Name) and r.id in shifts
                                     or isinstance(r, ast.Call) and _name(r.func) == "logsumexp"
                                     for r in ast.walk(right)):
            found.add(("softmax", node.lineno))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and (
                _is_penalised_sum(node.right) or isinstance(node.right, ast.Name) and node.right.id in penalised):
            found.add(("leaf weight or gain", node.lineno))
        if isinstance(node, (ast.Name, ast.Attribute)) and _name(node) in ("binom", "gammaln"):
            found.add(("binomial law", node.lineno))
    return found


def reimplementations(source: str, relative: str) -> list[str]:
    """Formulas of ``HOMES`` written in ``source`` (the file ``relative`` to the package) outside their home."""
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    inner = {id(m) for f in functions for m in ast.walk(f) if m is not f}
    problems = []
    for function in [f for f in functions if id(f) not in inner] + [tree]:
        body = function if function is not tree else ast.Module(
            body=[s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))],
            type_ignores=[])
        name = getattr(function, "name", "<module>")
        for formula, line in sorted(_formulas_in(body)):
            home, home_functions = HOMES[formula]
            if not (relative == home and name in home_functions):
                problems.append(f"{relative}:{line} ({name}): the {formula}, whose home is {home}")
    return problems


def test_each_formula_is_written_once_in_its_home():
    problems, homes_seen = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = str(path.relative_to(PACKAGE))
        problems += reimplementations(path.read_text(), relative)
        homes_seen |= {formula for formula, (home, _) in HOMES.items() if home == relative
                       and _formulas_in(ast.parse(path.read_text()))}
    assert not problems, "formulas written outside their home (call it instead):\n  " + "\n  ".join(problems)
    assert homes_seen == set(HOMES), "a home no longer holds its formula: update HOMES"


# --- the rules can fail ----------------------------------------------------------------------

BROKEN_MATH = '''
import numpy as np
from ..core.validation import check_reals

def _check_p(p):
    if not 0 <= p <= 1:
        raise ValueError("p must lie in [0, 1].")

def f(x, k):
    if k < 1:
        raise TypeError("k")
    raise type(x)("cannot tell")
'''

COPIES = {
    "softmax": ["def f(S):\n    return np.exp(S - logsumexp(S, axis=1, keepdims=True))\n",
                "def f(S):\n    S = S - S.max(axis=1, keepdims=True)\n    P = np.exp(S)\n    return P / P.sum(1)\n",
                "def f(S):\n    top = S.max(axis=1, keepdims=True)\n    return np.exp(S - top)\n",
                "def f(S):\n    S -= np.max(S, axis=-1, keepdims=True)\n    return np.exp(S)\n",
                "def f(Z):\n    top = Z.max(axis=1, keepdims=True)\n    return np.exp(Z - np.where(top > 0, top, 0))",
                "def f(S):\n    top = mixture._row_reduce(np.maximum, S)\n    return np.exp(S - top)\n"],
    "leaf weight or gain": ["def f(G, H, lam):\n    return -G / (H + lam)\n",
                            "def f(g, h, p):\n    return g.sum() ** 2 / (h.sum() + p.reg_lambda)\n",
                            "def f(g, h, reg_lambda):\n    H = h.sum() + reg_lambda\n    return -g.sum() / H\n"],
    "binomial law": ["from scipy.stats import binom\ndef f(k, n, p):\n    return binom.pmf(k, n, p)\n",
                     "def f(n, t):\n    return special.gammaln(n + 1) - special.gammaln(t + 1)\n"],
}


def test_the_rules_can_fail():
    problems = validation_problems(BROKEN_MATH, {})
    assert [p.split(":")[0] for p in problems] == ["line 5", "line 7", "line 11", "line 12"], problems
    assert validation_problems("def f(x):\n    raise NotImplementedError\n", {}) == []
    for formula, sources in COPIES.items():
        home, functions = HOMES[formula]
        for source in sources:
            found = reimplementations(source, "ensembles/some_estimator.py")
            assert len(found) == 1 and f"the {formula}," in found[0], (source, found)
            at_home = source.replace("def f(", f"def {sorted(functions)[0]}(")
            assert reimplementations(at_home, home) == [], (source, home)
    # AdaBoost's normalisation over the sample (no keepdims) is not a softmax over classes
    assert reimplementations("def f(log_D):\n    top = log_D.max()\n    return np.exp(log_D - top)\n",
                             "math/adaboost.py") == []
