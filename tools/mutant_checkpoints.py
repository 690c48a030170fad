"""Mutants run from checkpoints of one execution of a chapter (imported inside its kernel).

A mutant replaces one function (``tools/mutants.py``), so the cells before the first
call of that function run exactly as they do unmutated. This module lets one
execution of a chapter serve all its mutants:

1. :func:`install` resolves each mutant's function and compiles its mutated code.
   Each function is given, in place (its ``__code__``), a copy of its own code that
   records its first call; nothing else changes, so the chapter's outputs stay those of
   the unmutated package.
2. Before each cell, the kernel forks a *checkpoint*: a copy of the process, waiting.
   After the cell, a mutant whose function was called for the first time in it is
   handed to that checkpoint, which forks once more per mutant, substitutes the mutant
   (the same in-place ``__code__`` assignment) and executes the rest of the chapter
   from that cell, silently, until a cell raises (the mutant is killed) or the chapter
   ends (it survived). A checkpoint waits for more mutants until the next one is
   forked, then runs what it was given and exits.
3. :func:`finish` waits for them, gives the functions back their code and returns one
   result per mutant. A mutant that cannot be prepared (its key or its expression is no
   longer in the package) is reported ``"broken"``; the chapter runs on.

A checkpoint is only taken while the process has no more threads or child processes
than when :func:`install` ran (a copy of a process does not inherit its threads, so a
distributed client or a thread pool would not work in it). A mutant first called after
threads started runs from the last checkpoint taken, which is still waiting: its function
was not called before that checkpoint's cell either, so the run is the same. A mutant
first called after child processes started (a cluster's workers, which a run from before
would start again and leave behind), or before any checkpoint, is returned with a
``"fallback"`` reason: the caller runs it the long way, the whole chapter in a kernel of
its own with the mutant substituted before the first cell.

The kernel imports this module as ``tools.mutant_checkpoints``: the repository's root
must be on its ``PYTHONPATH``.
"""

from __future__ import annotations

import ast
import json
import multiprocessing
import os
import sys
import threading
import time
import types
from pathlib import Path

from ensembles_verified import substitution
from tools import mutants as catalogue

_HITS = "__mutant_hits__"  # the set, in the function's module, that records first calls


def recording_code(function: types.FunctionType, key: str) -> types.CodeType:
    """``function``'s own code with ``__mutant_hits__.add(key)`` put first: it computes what
    the original does and records, in its module's ``__mutant_hits__``, that it ran."""
    def transform(node: ast.FunctionDef) -> None:
        hit = ast.parse(f"{_HITS}.add({key!r})").body[0]
        node.body.insert(0, ast.copy_location(hit, node.body[0]))

    return substitution.rewrite(function, transform)


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
    """One mutant in the kernel: the live function it replaces and the code it is given."""

    def __init__(self, mutant_id: str):
        mutant = catalogue.by_id(mutant_id)
        self.id, self.key = mutant.id, mutant.key
        self.function = mutant.function()
        self.code = mutant.code()

    def apply(self) -> None:
        self.function.__code__ = self.code


class Checkpoints:
    """The hooks that fork a checkpoint before each cell and hand it its mutants."""

    def __init__(self, shell, plans: list[Plan], cells: list[str], results: Path,
                 timeout: float, busy: int):
        """``busy``: how many checkpoints may run mutants while the chapter goes on."""
        self.shell, self.cells, self.results, self.timeout, self.busy = shell, cells, results, timeout, busy
        self.pending = list(plans)
        self.fallback: dict[str, str] = {}  # mutant id: why it needs the long way
        self.broken: dict[str, str] = {}  # mutant id: why it cannot be prepared
        self.index = 0
        self.threads = _threads()
        self.checkpoint: tuple[int, int] | None = None  # (pid, write end) before this cell
        self.last: tuple[int, int, bool] | None = None  # the last checkpoint, still waiting
        self.running: list[int] = []
        self.idle: list[int] = []
        self.hits: set = set()
        self.originals: dict[str, tuple[types.FunctionType, types.CodeType]] = {}
        self.error = ""

    def safe(self) -> bool:
        now = _threads()
        return now[0] <= self.threads[0] and now[1] <= self.threads[1] \
            and not multiprocessing.active_children()

    def pre_run_cell(self, info) -> None:
        """Before a chapter's cell: fork the checkpoint of that cell, while it is safe to."""
        if info.raw_cell.startswith("# mutant checkpoints"):
            return
        if self.index >= len(self.cells) or info.raw_cell != self.cells[self.index]:
            self.error = f"cell {self.index} is not the chapter's"
            self.pending = []
        if self.checkpoint is not None:  # every cell is followed by post_run_cell
            self.error = f"cell {self.index} started before the previous one ended"
            self._hand([])
        safe = self.pending and self.safe()
        if safe or multiprocessing.active_children():  # (a run from before child processes
            self._release()                             # would start them again, and leave them)
        if safe:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(write)
                self._serve(read, self.index)
            os.close(read)
            self.checkpoint = (pid, write)

    def post_run_cell(self, result) -> None:
        """After a chapter's cell: hand its checkpoint the mutants whose function it called first."""
        if result.info.raw_cell.startswith("# mutant checkpoints"):
            return
        new = set(self.hits)
        ready = [p for p in self.pending if p.key in new]
        self.pending = [p for p in self.pending if p not in ready]
        if self.checkpoint is not None:
            self._hand(ready)
            self._reap(limit=self.busy - bool(ready))  # this cell's checkpoint is busy too
        elif self.last is not None:  # threads started: the last checkpoint runs them
            self._send(ready)
        else:
            for p in ready:
                self.fallback[p.id] = (f"first called in cell {self.index}, after child processes "
                                       "started or before any checkpoint")
        self.index += 1

    def _hand(self, ready: list[Plan]) -> None:
        """Give the checkpoint of this cell its mutants; it waits for more until released."""
        pid, write = self.checkpoint
        self.checkpoint = None
        self.last = (pid, write, False)
        self._send(ready)

    def _send(self, ready: list[Plan]) -> None:
        if ready:
            pid, write, _ = self.last
            os.write(write, (json.dumps([p.id for p in ready]) + "\n").encode())
            self.last = (pid, write, True)

    def _release(self) -> None:
        """Tell the last checkpoint that nothing more comes: it runs what it has and exits."""
        if self.last is not None:
            pid, write, given = self.last
            self.last = None
            os.close(write)
            (self.running if given else self.idle).append(pid)

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
            plans = {p.id: p for p in self.pending}
            with os.fdopen(read) as orders:  # a line of mutant ids at a time, until released
                for line in orders:
                    for mutant_id in json.loads(line):
                        self._run_mutant(plans[mutant_id], start)
        finally:
            os._exit(0)

    def _run_mutant(self, plan: Plan, start: int) -> None:
        """In a checkpoint: fork, substitute the mutant and run the cells from ``start``; wait
        for the result (a kill, a survival, a timeout or a death of the process)."""
        began = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            killed, raised, index = False, "", start
            try:
                plan.apply()
                for index in range(start, len(self.cells)):
                    code = self.shell.transform_cell(self.cells[index])
                    exec(compile(code, f"<cell {index}>", "exec"), self.shell.user_ns)
            except BaseException as err:  # noqa: BLE001 - any error stops the chapter
                killed, raised = True, type(err).__name__
            self._write(plan.id, {"killed": killed, "raised": raised, "from_cell": start,
                                  "at_cell": index if killed else None,
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


def install(mutant_ids: list[str], cells: list[str], results: str, timeout: float = 600,
            busy: int = 1) -> None:
    """Prepare the mutants (ids of ``tools/mutants.py``) of a chapter whose code cells, in
    order, are ``cells``; results are written as JSON files to the folder ``results``."""
    from IPython import get_ipython

    shell = get_ipython()
    plans, broken = [], {}
    for mutant_id in mutant_ids:
        try:
            plans.append(Plan(mutant_id))
        except Exception as err:  # noqa: BLE001 - a mutant that no longer applies: reported
            broken[mutant_id] = f"{type(err).__name__}: {err}"
    state = Checkpoints(shell, plans, cells, Path(results), timeout, busy)
    state.broken = broken
    for plan in plans:
        if plan.key not in state.originals:
            state.originals[plan.key] = (plan.function, plan.function.__code__)
            plan.function.__globals__[_HITS] = state.hits
            plan.function.__code__ = recording_code(plan.function, plan.key)
    shell.events.register("pre_run_cell", state.pre_run_cell)
    shell.events.register("post_run_cell", state.post_run_cell)
    _STATE["current"] = state


def finish() -> dict:
    """Wait for every checkpoint, give the functions back their code; the result of each
    mutant (or why it needs the long way)."""
    state = _STATE.pop("current")
    state.shell.events.unregister("pre_run_cell", state.pre_run_cell)
    state.shell.events.unregister("post_run_cell", state.post_run_cell)
    if state.checkpoint is not None:
        state._hand([])
    state._release()
    state._reap(limit=0)
    for function, code in state.originals.values():
        function.__code__ = code
        function.__globals__.pop(_HITS, None)
    out = {}
    for plan in state.pending:  # never called by the chapter: it cannot notice the mutant
        out[plan.id] = {"killed": False, "raised": "", "never_called": True, "seconds": 0.0}
    for path in state.results.glob("*.json"):
        out[path.stem] = json.loads(path.read_text())
    for mutant_id, reason in state.fallback.items():
        out[mutant_id] = {"fallback": reason}
    for mutant_id, reason in state.broken.items():  # the harness must be fixed, not the book
        out[mutant_id] = {"killed": False, "raised": "", "broken": reason, "seconds": 0.0}
    return {"mutants": out, "error": state.error}
