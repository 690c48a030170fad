"""Where a chapter spends its time: each code cell's execution time, the slowest first.

Usage (from the repository root)::

    python -m tools.cell_times book/05_bagging_oob.ipynb [more notebooks] [--top 8]

Every chapter runs twice in a test run (the book build and the fresh environment, with
another seed), on two cores shared with the other stages, so a cell that costs ten
seconds costs the test run about ten. This runs each notebook once in a kernel of its
own (one thread, as the build runs them) with its published seed and prints the
``--top`` slowest cells with their first line, and the kernel's start and imports
(the first code cell) separately. Times are wall-clock seconds: run it on a quiet
machine.
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tools.stages import ONE_THREAD


def _seconds(cell) -> float | None:
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = lambda stamp: datetime.fromisoformat(stamp.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def cell_times(path: Path) -> tuple[float, list[tuple[float, int, str]]]:
    """Run ``path``; its total wall time and (seconds, cell index, first line) per code cell."""
    nb = nbformat.read(path, as_version=4)
    os.environ.update(ONE_THREAD)  # inherited by the kernel
    start = time.perf_counter()
    NotebookClient(nb, kernel_name="python3", timeout=1800, record_timing=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    total = time.perf_counter() - start
    cells = [(seconds, k, (cell.source.splitlines() or [""])[0][:72])
             for k, cell in enumerate(nb.cells)
             if cell.cell_type == "code" and (seconds := _seconds(cell)) is not None]
    return total, cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Each code cell's execution time, slowest first.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=8, help="how many cells to list per notebook")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        total, cells = cell_times(path)
        print(f"{path}: {total:.1f} s in all, {sum(s for s, _, _ in cells):.1f} s in its cells")
        for seconds, k, line in sorted(cells, reverse=True)[:args.top]:
            print(f"  {seconds:6.2f} s  cell {k:3d}  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
