"""Mutants run from checkpoints of one execution of a chapter (imported inside its kernel).

A mutant changes one formula, so the cells before the first call of the function
that holds it run exactly as they do unmutated. This module lets one execution of a
chapter serve all its mutants:

1. :func:`install` compiles each mutant's file twice, as written and mutated, and
   finds the functions whose code differs. Those functions are given, in place (their
   ``__code__``), a copy that records its first call; nothing else changes, so the
   chapter's outputs stay those of the unmutated package.
2. Before each cell, the kernel forks a *checkpoint*: a copy of the process, waiting.
   After the cell, a mutant whose function was called for the first time in it is
   handed to that checkpoint, which forks once more per mutant, swaps in the mutated
   code (the same in-place ``__code__`` assignment) and executes the rest of the
   chapter from that cell, silently, until a cell raises (the mutant is killed) or
   the chapter ends (it survived). Checkpoints given nothing exit.
3. :func:`finish` waits for them and returns one result per mutant.

A checkpoint is only taken while the process has no more threads or child processes
than when :func:`install` ran (a copy of a process does not inherit its threads, so a
distributed client or a thread pool would not work in it). A mutant first called
after that, or one that changes code outside any function (a module constant, a class
attribute), or whose function cannot be found, is returned with a ``"fallback"`` reason:
the caller runs it the slow way, the whole chapter against a mutated copy of the package.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import multiprocessing
import os
import sys
import threading
import time
import types
from pathlib import Path

_LOCALS = ".<locals>."


def _units(code: types.CodeType, out: dict[str, list[types.CodeType]] | None = None) -> dict:
    """Every code object under ``code``, by qualified name (a name may repeat)."""
    out = {} if out is None else out
    out.setdefault(code.co_qualname, []).append(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _units(const, out)
    return out


def _shape(code: types.CodeType) -> tuple:
    """What a code object does, without line numbers (nested code by name only)."""
    consts = tuple(("code", c.co_qualname) if isinstance(c, types.CodeType) else (type(c), c)
                   for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_argcount, code.co_kwonlyargcount, code.co_flags)


def _is_function(code: types.CodeType) -> bool:
    return bool(code.co_flags & inspect.CO_OPTIMIZED)  # a class body or a module is not


def _live_functions(module: types.ModuleType, path: str) -> dict[str, list[types.FunctionType]]:
    """The functions defined in ``path`` that ``module`` reaches, by qualified name."""
    found: dict[str, dict[int, types.FunctionType]] = {}
    seen: set[int] = set()

    def visit(obj, depth: int = 0) -> None:
        if id(obj) in seen or depth > 4:
            return
        seen.add(id(obj))
        if isinstance(obj, (staticmethod, classmethod)):
            return visit(obj.__func__, depth)
        if isinstance(obj, property):
            return [visit(f, depth) for f in (obj.fget, obj.fset, obj.fdel) if f is not None]
        if isinstance(obj, types.FunctionType):
            if os.path.realpath(obj.__code__.co_filename) == path:
                found.setdefault(obj.__code__.co_qualname, {})[id(obj)] = obj
            wrapped = getattr(obj, "__wrapped__", None)
            return visit(wrapped, depth) if wrapped is not None else None
        if isinstance(obj, type) and obj.__module__ == module.__name__:
            for value in vars(obj).values():
                visit(value, depth + 1)

    for value in vars(module).values():
        visit(value)
    return {name: list(objs.values()) for name, objs in found.items()}


class _HitRecorder(ast.NodeTransformer):
    """Put ``__mutant_hits__.add((path, qualname))`` first in the functions named."""

    def __init__(self, path: str, names: set[str]):
        self.path, self.names, self.scope = path, names, []

    def _scoped(self, node, suffix: str):
        self.scope.append(node.name + suffix)
        self.generic_visit(node)
        self.scope.pop()
        return node

    def visit_ClassDef(self, node):
        return self._scoped(node, ".")

    def visit_FunctionDef(self, node):
        qualname = "".join(self.scope) + node.name
        if qualname in self.names:
            hit = ast.parse(f"__mutant_hits__.add(({self.path!r}, {qualname!r}))").body[0]
            node.body.insert(0, ast.copy_location(hit, node.body[0]))
            ast.fix_missing_locations(node)
        return self._scoped(node, _LOCALS)

    visit_AsyncFunctionDef = visit_FunctionDef


# Threads of the kernel itself (and of zmq, its messaging library): a checkpoint never
# sends a message, so it does not need them. jemalloc (the allocator bundled by a
# boosting library) prepares itself for a fork and restarts its purging thread after it.
_KERNEL_THREADS = ("ipykernel", "zmq", "jupyter_client", "IPython")
_FORK_SAFE_NATIVE = ("ZMQbg", "jemalloc_bg_thd")


def _threads() -> tuple[int, int]:
    """Threads a checkpoint would miss: Python threads started by anything but the kernel,
    and native threads (OpenMP or BLAS pools, a library's workers) with no Python thread."""
    python = threading.enumerate()
    foreign = sum(not (type(t).__module__ or "").startswith(_KERNEL_THREADS) for t in python)
    tasks = Path("/proc/self/task")
    if not tasks.is_dir():
        return foreign, 0
    safe = sum((task / "comm").read_text().startswith(_FORK_SAFE_NATIVE) for task in tasks.iterdir())
    return foreign, len(os.listdir(tasks)) - safe - len(python)


class Plan:
    """What one mutant changes: the live functions and the code each is given."""

    def __init__(self, spec: dict):
        self.id, self.fallback = spec["id"], ""
        self.patches: list[tuple[types.FunctionType, types.CodeType]] = []
        self.keys: set[tuple[str, str]] = set()
        module_name, _, name = spec["target"].rpartition(".")
        obj = getattr(importlib.import_module(module_name), name)
        self.path = os.path.realpath(inspect.getsourcefile(obj))
        self.module = next(m for m in list(sys.modules.values())
                           if getattr(m, "__file__", None)
                           and os.path.realpath(m.__file__) == self.path)
        source = Path(self.path).read_text()
        if source.count(spec["old"]) != 1:
            raise RuntimeError(f"mutant {self.id}: the formula must occur once in {self.path}")
        self.source = source
        before = _units(compile(source, self.path, "exec"))
        after = _units(compile(source.replace(spec["old"], spec["new"]), self.path, "exec"))
        changed = {q for q in set(before) | set(after)
                   if [_shape(c) for c in before.get(q, [])] != [_shape(c) for c in after.get(q, [])]}
        live = _live_functions(self.module, self.path)
        for q in sorted(changed):
            outer = q.split(_LOCALS)[0]  # the module-level function or method holding it
            codes = after.get(outer, [])
            if len(codes) != 1 or len(before.get(outer, [])) != 1 or not _is_function(codes[0]):
                self.fallback = f"{q} is not (inside) one function"
            elif len(live.get(outer, [])) != 1:
                self.fallback = f"{outer} is not found once in the loaded package"
            elif live[outer][0].__code__.co_freevars != codes[0].co_freevars:
                self.fallback = f"{outer} changes its closure"
            else:
                self.patches.append((live[outer][0], codes[0]))
                self.keys.add((self.path, outer))
        if not changed:
            self.fallback = "the rewrite changes no code"

    def apply(self) -> None:
        for function, code in self.patches:
            function.__code__ = code


class Checkpoints:
    """The hooks that fork a checkpoint before each cell and hand it its mutants."""

    def __init__(self, shell, plans: list[Plan], cells: list[str], results: Path,
                 timeout: float, busy: int):
        self.shell, self.cells, self.results, self.timeout, self.busy = shell, cells, results, timeout, busy
        self.pending = [p for p in plans if not p.fallback]
        self.fallback = {p.id: p.fallback for p in plans if p.fallback}
        self.index = 0
        self.threads = _threads()
        self.checkpoint: tuple[int, int] | None = None  # (pid, write end) before this cell
        self.running: list[int] = []
        self.idle: list[int] = []
        self.hits: set = set()
        self.error = ""

    def safe(self) -> bool:
        now = _threads()
        return now[0] <= self.threads[0] and now[1] <= self.threads[1] \
            and not multiprocessing.active_children()

    def pre_run_cell(self, info) -> None:
        if info.raw_cell.startswith("# mutant checkpoints"):
            return
        if self.index >= len(self.cells) or info.raw_cell != self.cells[self.index]:
            self.error = f"cell {self.index} is not the chapter's"
            self.pending = []
        if self.checkpoint is not None:  # every cell is followed by post_run_cell
            self.error = f"cell {self.index} started before the previous one ended"
            self._hand([])
        if self.pending and self.safe():
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(write)
                self._serve(read, self.index)
            os.close(read)
            self.checkpoint = (pid, write)

    def post_run_cell(self, result) -> None:
        if result.info.raw_cell.startswith("# mutant checkpoints"):
            return
        new = set(self.hits)
        ready = [p for p in self.pending if p.keys & new]
        self.pending = [p for p in self.pending if p not in ready]
        if self.checkpoint is None:
            for p in ready:
                self.fallback[p.id] = f"first called in cell {self.index}, after threads started"
        else:
            self._hand(ready)
            self._reap(limit=self.busy)
        self.index += 1

    def _hand(self, ready: list[Plan]) -> None:
        """Give the waiting checkpoint its mutants (none: it exits)."""
        pid, write = self.checkpoint
        self.checkpoint = None
        os.write(write, json.dumps([p.id for p in ready]).encode())
        os.close(write)
        (self.running if ready else self.idle).append(pid)

    def _reap(self, limit: int) -> None:
        for pid in self.idle:
            os.waitpid(pid, 0)
        self.idle = []
        while len(self.running) > limit:
            os.waitpid(self.running.pop(0), 0)

    def _serve(self, read: int, start: int) -> None:
        """In a checkpoint: wait for the mutants to run from cell ``start``, run each, exit."""
        try:
            devnull = open(os.devnull, "w")
            sys.stdout = sys.stderr = devnull
            self.shell.display_pub = types.SimpleNamespace(publish=lambda *a, **k: None,
                                                           clear_output=lambda *a, **k: None)
            chunks = []
            while chunk := os.read(read, 1 << 16):
                chunks.append(chunk)
            ids = json.loads(b"".join(chunks) or b"[]")
            plans = {p.id: p for p in self.pending}
            for mutant_id in ids:
                self._run_mutant(plans[mutant_id], start)
        finally:
            os._exit(0)

    def _run_mutant(self, plan: Plan, start: int) -> None:
        began = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            killed, raised = False, ""
            try:
                plan.apply()
                for index in range(start, len(self.cells)):
                    code = self.shell.transform_cell(self.cells[index])
                    exec(compile(code, f"<cell {index}>", "exec"), self.shell.user_ns)
            except BaseException as err:  # noqa: BLE001 - any error stops the chapter
                killed, raised = True, type(err).__name__
            self._write(plan.id, {"killed": killed, "raised": raised, "from_cell": start,
                                  "seconds": round(time.perf_counter() - began, 1)})
            os._exit(0)
        deadline = time.monotonic() + self.timeout
        while (status := os.waitpid(pid, os.WNOHANG)) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                self._write(plan.id, {"timeout": True, "from_cell": start,
                                      "seconds": round(time.perf_counter() - began, 1)})
                return
            time.sleep(0.05)
        if not (self.results / f"{plan.id}.json").exists():  # a failure of the harness, not a kill
            self._write(plan.id, {"died": status[1], "from_cell": start,
                                  "seconds": round(time.perf_counter() - began, 1)})

    def _write(self, mutant_id: str, result: dict) -> None:
        (self.results / f"{mutant_id}.json").write_text(json.dumps(result))


_STATE: dict[str, Checkpoints] = {}


def install(mutants: list[dict], cells: list[str], results: str, timeout: float = 600,
            busy: int = 1) -> None:
    """Prepare the mutants (dicts with id, target, old, new) of a chapter whose code cells,
    in order, are ``cells``; results are written as JSON files to the folder ``results``."""
    from IPython import get_ipython

    shell = get_ipython()
    plans = [Plan(spec) for spec in mutants]
    by_file: dict[str, tuple[types.ModuleType, str, set[str]]] = {}
    for plan in plans:
        if not plan.fallback:
            by_file.setdefault(plan.path, (plan.module, plan.source, set()))[2].update(
                q for _, q in plan.keys)
    state = Checkpoints(shell, plans, cells, Path(results), timeout, busy)
    for path, (module, source, names) in by_file.items():
        module.__dict__["__mutant_hits__"] = state.hits
        tree = _HitRecorder(path, names).visit(ast.parse(source))
        recorded = _units(compile(tree, path, "exec"))
        live = _live_functions(module, path)
        for name in names:
            live[name][0].__code__ = recorded[name][0]
    shell.events.register("pre_run_cell", state.pre_run_cell)
    shell.events.register("post_run_cell", state.post_run_cell)
    _STATE["current"] = state


def finish() -> dict:
    """Wait for every checkpoint; the result of each mutant (or why it needs a full run)."""
    state = _STATE.pop("current")
    state.shell.events.unregister("pre_run_cell", state.pre_run_cell)
    state.shell.events.unregister("post_run_cell", state.post_run_cell)
    state._reap(limit=0)
    out = {}
    for plan in state.pending:  # never called by the chapter: it cannot notice the mutant
        out[plan.id] = {"killed": False, "raised": "", "never_called": True, "seconds": 0.0}
    for path in state.results.glob("*.json"):
        out[path.stem] = json.loads(path.read_text())
    for mutant_id, reason in state.fallback.items():
        out[mutant_id] = {"fallback": reason}
    return {"mutants": out, "error": state.error}
