"""Processor seconds of each stage of the test run, counting every process it starts.

The operating system adds a process's processor time to its parent's only when the
parent waits for it. A process whose parent exits first is handed to ``init`` and its
time is lost to the stage that started it: the browser stage's Chromium is the large
case (its renderers outlive the browser process that started them), about four fifths
of that stage's real cost. So a thread of the test run reads ``/proc`` once a second,
gives each process to the stage whose command it descends from (found while its parent
is still alive, then remembered), and adds up the processor time each one used since
the last reading. A process that starts and ends between two readings is missed: the
stages' table shows the larger of this count and the waited-for children's.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from pathlib import Path

PROC = Path("/proc")
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _table() -> dict[int, tuple[int, str, int]]:
    """pid: (parent pid, start time, processor ticks used so far) of every process."""
    table = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            fields = (PROC / entry.name / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        table[int(entry.name)] = (int(fields[1]), fields[19], int(fields[11]) + int(fields[12]))
    return table


class StageTime(threading.Thread):
    """Reads ``/proc`` every ``period`` seconds; :meth:`seconds` of a stage so far."""

    def __init__(self, period: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.period = period
        self.roots: dict[int, str] = {}  # a stage command's pid: its stage
        self.owner: dict[tuple[int, str], str | None] = {}  # (pid, start): stage or None
        self.used: dict[tuple[int, str], int] = {}  # (pid, start): ticks at the last reading
        self.ticks: Counter = Counter()
        self.lock = threading.Lock()

    def add(self, pid: int, stage: str) -> None:
        """Count ``pid`` and its descendants as ``stage``'s (reading starts with the first)."""
        with self.lock:
            self.roots[pid] = stage
            if self.ident is None:
                self.start()

    def seconds(self, stage: str) -> float:
        with self.lock:
            return self.ticks[stage] / TICK

    def done(self, pid: int) -> None:
        """The stage command ``pid`` ended (its descendants seen so far stay the stage's)."""
        with self.lock:
            self.roots.pop(pid, None)

    def _stage(self, pid: int, table: dict) -> str | None:
        """The stage ``pid`` descends from, by its parents now alive (remembered)."""
        chain, found = [], None
        while pid in table and len(chain) < 64:
            key = (pid, table[pid][1])
            if pid in self.roots or key in self.owner:
                found = self.roots[pid] if pid in self.roots else self.owner[key]
                break
            chain.append(key)
            pid = table[pid][0]
        for key in chain:
            self.owner[key] = found
        return found

    def read(self) -> None:
        table = _table()
        with self.lock:
            for pid, (_, start, ticks) in table.items():
                key = (pid, start)
                stage = self._stage(pid, table)
                if stage is not None:
                    self.ticks[stage] += ticks - self.used.get(key, 0)
                self.used[key] = ticks

    def run(self) -> None:
        while PROC.is_dir():
            self.read()
            time.sleep(self.period)


SAMPLER = StageTime()
