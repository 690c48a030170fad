"""A pytest plugin: each chapter's mutants branch off its execution under nbval.

nbval executes a chapter's cells one by one in a kernel of its own. With this
plugin (``python -m pytest --nbval-lax -p tools.nbval_mutants book/*.ipynb``, run
from the repository's root with the root on ``PYTHONPATH``, so that the kernels nbval
starts can import ``tools`` too), the chapter's mutants (``tools/mutants.py``) run
from checkpoints of that same execution (``tools/mutant_checkpoints.py``):
before the first cell the kernel prepares the checkpoints, after the last one it
reports which mutants stopped the chapter. So one execution of a chapter is both
its nbval test and the base of its mutation test.

When the environment variable ``NBVAL_MUTANTS_REPORT`` names a file, the plugin
writes there, as JSON, the kernel's and pytest's ``sys.prefix``, each chapter's
execution time and cells (passed, failed), and every mutant's result.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tools import mutate_book

REPORT_ENV = "NBVAL_MUTANTS_REPORT"
_report: dict = {"kernel_prefix": None, "driver_prefix": sys.prefix, "chapters": {},
                 "cells": {}, "mutants": []}
_open: dict[str, dict] = {}  # per notebook being executed: start time, results folder


def _chapter(path: Path) -> str:
    return path.with_suffix(".md").relative_to(mutate_book.ROOT).as_posix()


def run_aside(kernel, source: str, timeout: float = 900) -> str:
    """Execute ``source`` in nbval's kernel outside the notebook; its standard output."""
    msg_id = kernel.kc.execute(source, store_history=False, allow_stdin=False, stop_on_error=False)
    kernel.await_reply(msg_id, timeout=timeout)
    text, error = [], ""
    while True:
        msg = kernel.get_message("iopub", timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            text.append(content["text"])
        elif kind == "error":
            error = f"{content['ename']}: {content['evalue']}"
        elif kind == "status" and content["execution_state"] == "idle":
            break
    if error:
        raise RuntimeError(f"code run beside the chapter failed: {error}")
    return "".join(text)


def _is_cell(item) -> bool:
    return type(item).__name__ == "IPyNbCell"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """Before a notebook's first cell: prepare its mutants' checkpoints in nbval's kernel."""
    yield  # the notebook's kernel is started by its collector's setup
    if not _is_cell(item) or item.cell_num != 0:
        return
    path = Path(str(item.fspath)).resolve()
    kernel = item.parent.kernel
    if _report["kernel_prefix"] is None:
        _report["kernel_prefix"] = run_aside(kernel, "import sys; print(sys.prefix)").strip()
    chapter = _chapter(path)
    mutants = [m for m in mutate_book.MUTANTS + [mutate_book.CONTROL] if m.chapter == chapter]
    state = {"start": time.perf_counter(), "mutants": mutants, "results": None}
    if mutants:
        state["results"] = tempfile.mkdtemp(prefix="mutants-")
        cells = [c.source for c in item.parent.nb.cells if c.cell_type == "code"]
        try:
            run_aside(kernel, mutate_book.checkpoint_setup(mutants, cells, state["results"]))
        except RuntimeError as err:
            raise RuntimeError(f"{err} (the kernel imports tools.mutant_checkpoints: the "
                               "repository's root must be on its PYTHONPATH)") from err
    _open[str(path)] = state


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    if _is_cell(item) and (nextitem is None or nextitem.parent is not item.parent):
        _finish(item)  # the last cell of a notebook: its kernel is still running
    yield


def pytest_runtest_logreport(report):
    if report.nodeid.split("::")[0].endswith(".ipynb") and (report.when == "call" or report.failed):
        name = Path(report.nodeid.split("::")[0]).name
        counts = _report["cells"].setdefault(name, {"passed": 0, "failed": 0, "skipped": 0})
        counts[report.outcome] += 1


def _finish(item) -> None:
    """After a notebook's last cell: collect its mutants' results (the long way if need be)."""
    path = Path(str(item.fspath)).resolve()
    state = _open.pop(str(path), None)
    if state is None:
        return
    _report["chapters"][path.name] = round(time.perf_counter() - state["start"], 1)
    if not state["mutants"]:
        return
    kernel = item.parent.kernel
    failed = _report["cells"].get(path.name, {}).get("failed", 0)
    try:
        if failed or not kernel.is_alive():  # the unmutated chapter failed: its mutants prove nothing
            _report["mutants"] += [mutate_book.result(m, {"killed": False, "raised": ""}, "not run: "
                                                      "the chapter itself failed") for m in state["mutants"]]
            return
        report = json.loads(run_aside(kernel, mutate_book.FINISH).strip().splitlines()[-1])
        _report["mutants"] += mutate_book.collect(_chapter(path), state["mutants"], report)
    finally:
        shutil.rmtree(state["results"], ignore_errors=True)  # the mutants' result files, read


def pytest_sessionfinish(session):
    target = os.environ.get(REPORT_ENV)
    if target:
        Path(target).write_text(json.dumps(_report))
