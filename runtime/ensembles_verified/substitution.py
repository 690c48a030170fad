"""Substitute a function of a package, in place, by a rewritten copy of itself.

A function is named by its *key*: its qualified name in the module that defines it
(``ensemble_ref.math.crowds.cantelli_bound``, or for a method
``ensemble_ref.ensembles.voting.VotingClassifier.predict``), never the name of a
re-export. :func:`resolve` imports that module and returns the function object
defined there. :func:`rewrite` parses the function's source into a syntax tree,
lets a transform change the tree and compiles it in the function's own context:
inside classes of the same names (so private names are mangled and ``super()``
finds its class as in the original), with the module's ``from __future__`` flags
and the original line numbers. The result is a code object with the arguments and
free variables of the original's.

Swapping it in for ``function.__code__`` (:func:`substituted`) changes what every
reference to the function runs: the package's own ``from ..math.crowds import
cantelli_bound``, a chapter's ``from ensemble_ref import cantelli_bound``, a bound
method of an object made earlier. The new code resolves its names in the original
module's globals (a function's globals belong to the function object, not to its
code) and keeps the original's defaults, keyword defaults and closure.
"""

from __future__ import annotations
import __future__

import ast
import contextlib
import copy
import importlib
import importlib.util
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator
from functools import reduce
from pathlib import Path

_FUTURE_FLAGS = reduce(int.__or__, (getattr(__future__, name).compiler_flag
                                    for name in __future__.all_feature_names))
Transform = Callable[[ast.FunctionDef], None]


def split_key(key: str) -> tuple[types.ModuleType, str]:
    """The module a key names (its longest importable prefix) and the qualified name in it."""
    parts = key.split(".")
    module = importlib.import_module(parts[0])
    taken = 1
    while taken < len(parts) and hasattr(module, "__path__"):
        name = ".".join(parts[:taken + 1])
        if importlib.util.find_spec(name) is None:
            break
        module = importlib.import_module(name)
        taken += 1
    if taken == len(parts):
        raise LookupError(f"{key} names a module, not a function in it.")
    return module, ".".join(parts[taken:])


def _unwrap(obj: object) -> object:
    """The function behind a static or class method, a property's getter, a decorator's wrapper."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    elif isinstance(obj, property):
        obj = obj.fget
    return inspect.unwrap(obj) if callable(obj) else obj


def resolve(key: str) -> types.FunctionType:
    """The function object ``key`` names, defined (not imported) in the module it names.

    Each step of the qualified name is looked up in the namespace itself (``vars``):
    a method inherited from a base class, or a function the module imports from
    another one, is not found there and must be keyed where it is defined.
    """
    module, qualname = split_key(key)
    obj: object = module
    for part in qualname.split("."):
        namespace = vars(obj) if isinstance(obj, (type, types.ModuleType)) else {}
        if part not in namespace:
            raise LookupError(f"{key}: {part!r} is not defined in {getattr(obj, '__name__', obj)!r}.")
        obj = _unwrap(namespace[part])
    if not isinstance(obj, types.FunctionType):
        raise LookupError(f"{key} is a {type(obj).__name__}, not a function.")
    defined = f"{obj.__module__}.{obj.__qualname__}"
    if (obj.__module__, obj.__qualname__) != (module.__name__, qualname):
        raise LookupError(f"{key} is a re-export (or an alias) of {defined}: key it by its definition.")
    return obj


def source_tree(function: types.FunctionType) -> ast.FunctionDef:
    """The syntax tree of ``function``'s definition as its file has it, with the file's
    line numbers and without decorators (they were applied when the module was loaded)."""
    lines, first = inspect.getsourcelines(function)
    source = "".join(lines)
    if source[:1].isspace():  # a method: parsed as the body of an `if`, indentation and all
        tree, offset = ast.parse("if 1:\n" + source), first - 2
        node = tree.body[0].body[0]
    else:
        tree, offset = ast.parse(textwrap.dedent(source)), first - 1
        node = tree.body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != function.__name__:
        raise LookupError(f"the source of {function.__qualname__} is not a def statement of that name.")
    ast.increment_lineno(node, offset)
    node.decorator_list = []
    return node


def _imports(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The import statements of a module's top level (also those under if, try or with)."""
    found: list[ast.stmt] = []
    for statement in statements:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            found.append(statement)
        elif isinstance(statement, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                found += _imports(getattr(statement, block, []))
            for handler in getattr(statement, "handlers", []):
                found += _imports(handler.body)
    return found


def _nested_code(code: types.CodeType, names: list[str]) -> types.CodeType:
    for name in names:
        code = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
    return code


def compile_function(function: types.FunctionType, node: ast.FunctionDef) -> types.CodeType:
    """Compile ``node`` (a def of ``function``, possibly rewritten) into a code object that can
    replace ``function.__code__``: same qualified name, arguments and free variables."""
    names = function.__qualname__.split(".")
    if "<locals>" in names:
        raise LookupError(f"{function.__qualname__} is created anew by each call of the function "
                          "around it: substitute that one.")
    statement: ast.stmt = node
    for name in reversed(names[:-1]):  # a method: inside classes of the same names
        wrapper = ast.parse(f"class {name}:\n    pass").body[0]
        wrapper.body = [statement]
        statement = wrapper
    # The module's imports, never run: the compiler calls an imported module's functions
    # (np.exp(x)) without LOAD_METHOD, so they make the code the original's, byte for byte.
    imports = _imports(ast.parse(Path(inspect.getsourcefile(function)).read_text()).body)
    module = ast.fix_missing_locations(ast.Module(body=[*imports, statement], type_ignores=[]))
    original = function.__code__
    compiled = compile(module, original.co_filename, "exec",
                       flags=original.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    code = _nested_code(compiled, names)
    if code.co_freevars != original.co_freevars:
        raise ValueError(f"the rewritten {function.__qualname__} has the free variables "
                         f"{code.co_freevars}, the original {original.co_freevars}.")
    if (code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount) != (
            original.co_argcount, original.co_posonlyargcount, original.co_kwonlyargcount) or \
            code.co_varnames[:_n_args(code)] != original.co_varnames[:_n_args(original)]:
        raise ValueError(f"the rewritten {function.__qualname__} does not take the original's arguments.")
    return code


def _n_args(code: types.CodeType) -> int:
    varargs = bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_argcount + code.co_kwonlyargcount + varargs


def rewrite(function: types.FunctionType, transform: Transform | None = None) -> types.CodeType:
    """The code of ``function`` compiled from its source after ``transform`` changed the
    tree of its definition in place (``None``: the source as it is)."""
    node = source_tree(function)
    if transform is not None:
        transform(node)
    return compile_function(function, node)


def shape(code: types.CodeType) -> tuple:
    """What a code object computes, without its positions: equal shapes, equal behaviour."""
    consts = tuple(shape(c) if isinstance(c, types.CodeType) else (type(c), c) for c in code.co_consts)
    return (code.co_name, code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
            code.co_flags)


def replacement(function: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    """A new function object running ``code`` as ``function`` would: the same globals,
    name, defaults and closure (``function`` itself is left as it is)."""
    new = types.FunctionType(code, function.__globals__, function.__name__,
                             function.__defaults__, function.__closure__)
    new.__kwdefaults__ = dict(function.__kwdefaults__) if function.__kwdefaults__ else None
    new.__qualname__, new.__module__, new.__doc__ = function.__qualname__, function.__module__, function.__doc__
    new.__annotations__ = dict(function.__annotations__)
    return new


# --- one edit of a function's syntax tree ------------------------------------------------------


def fragment(code: str) -> ast.AST:
    """The syntax tree of one expression or one statement."""
    body = ast.parse(textwrap.dedent(code)).body
    if len(body) != 1:
        raise ValueError(f"{code!r} must be one expression or one statement.")
    return body[0].value if isinstance(body[0], ast.Expr) else body[0]


class _Replace(ast.NodeTransformer):
    """Replace every subtree equal to ``old`` (positions aside) by a copy of ``new``."""

    def __init__(self, old: str, new: str):
        self.old, self.new, self.count = ast.dump(fragment(old)), fragment(new), 0
        if isinstance(self.new, ast.stmt) != isinstance(fragment(old), ast.stmt):
            raise ValueError(f"{old!r} and {new!r} must both be expressions or both statements.")
        self.found: list[ast.AST] = []

    def visit(self, node: ast.AST) -> ast.AST:
        if ast.dump(node) == self.old:
            self.count += 1
            self.found.append(node)
            return ast.copy_location(copy.deepcopy(self.new), node)
        return super().visit(node)


def edit(node: ast.FunctionDef, old: str, new: str) -> ast.AST:
    """Replace, in place, the one subtree of the body of ``node`` that is the code ``old``
    (compared as syntax trees: layout, comments and redundant parentheses play no part) by
    the code ``new``; the subtree replaced (with its positions)."""
    replace = _Replace(old, new)
    node.body = [replace.visit(statement) for statement in node.body]
    if replace.count != 1:
        raise LookupError(f"{old!r} occurs {replace.count} times in {node.name} (expected once).")
    return replace.found[0]


def edited_source(function: types.FunctionType, old: str, new: str) -> str:
    """The source of ``function`` as its file has it (comments kept, dedented, without its
    docstring), with the code ``old`` written as ``new``."""
    lines, first = inspect.getsourcelines(function)
    text = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    node = source_tree(function)
    body = node.body
    doc = (body[0].lineno - first, body[0].end_lineno - first) if (
        isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)) else None
    found = edit(node, old, new)
    rows = text.splitlines(keepends=True)
    start, end = found.lineno - first, found.end_lineno - first
    prefix = rows[start][:found.col_offset - indent]
    suffix = rows[end][found.end_col_offset - indent:]
    rows[start:end + 1] = [prefix + ast.unparse(fragment(new)) + suffix]
    if doc is not None:  # the docstring precedes the edit: its rows have not moved
        del rows[doc[0]:doc[1] + 1]
    return "".join(rows)


@contextlib.contextmanager
def substituted(function: types.FunctionType, code: types.CodeType) -> Iterator[types.FunctionType]:
    """Run ``code`` in place of ``function``'s own while the block runs; restored after it."""
    original = function.__code__
    function.__code__ = code
    try:
        yield function
    finally:
        function.__code__ = original
