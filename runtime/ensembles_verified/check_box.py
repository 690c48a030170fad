"""The checks of a notebook cell, shown as one closed box.

In a notebook (a Jupyter kernel: the book build, JupyterLab, Binder, Colab), the
claims that hold in a cell are not printed one by one: at the end of the cell they
are displayed as one closed box, "✔ 3 statements checked", that opens to a readable
list (each statement, what was measured against what was expected, and the false
statement it rules out). The page keeps the subject in front and the verification
one click away. Outside a notebook (a script, the tests) each claim prints one line.
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["CellChecks", "CheckBox", "notebook_shell"]


def notebook_shell() -> Any:
    """The running Jupyter kernel's shell, or ``None`` outside a notebook."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the book
        return None
    shell = get_ipython()
    return shell if shell is not None and type(shell).__name__ == "ZMQInteractiveShell" else None


def _human(text: str) -> str:
    """A ledger's number for people: no 'array of', tolerances in words."""
    text = re.sub(r"array of (\d+) values in \[(.*?), (.*?)\]", r"\1 values from \2 to \3", text)
    text = re.sub(r"\batol=0, rtol=", "rtol=", text)
    text = re.sub(r"\batol=", "within ", text)
    text = re.sub(r"\brtol=(\S+)", lambda m: f"relative {m.group(1)}", text)
    return re.sub(r"\bslack=", "slack ", text)


class CheckBox:
    """The passed claims of one cell, displayed as one closed ``<details>`` box."""

    def __init__(self, entries: list[dict]) -> None:
        self.entries = list(entries)

    def summary(self) -> str:
        n = len(self.entries)
        return f"\u2714 {n} statement{'s' if n != 1 else ''} checked"

    def _repr_html_(self) -> str:
        items = []
        for e in self.entries:
            numbers = ""
            if e["measured"]:
                numbers = (f"<br><span class='ev-numbers'>measured {html.escape(_human(e['measured']))}; "
                           f"expected {html.escape(_human(e['expected']))} "
                           f"({html.escape(_human(e['tolerance']))})</span>")
            rules_out = "" if not e.get("rival") else (
                f"<br><span class='ev-rules-out'>rules out: {html.escape(e['rival'])}</span>")
            items.append(f"<li>{html.escape(e['statement'])}{numbers}{rules_out}</li>")
        return (f"<details class='ev-checks'><summary>{self.summary()}</summary>"
                f"<ol>{''.join(items)}</ol></details>")

    def __repr__(self) -> str:  # the plain view (the PDF): one line; the claims ledger lists them
        return self.summary()


class CellChecks:
    """Collects the passed claims of the running cell and shows them when the cell ends."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.entries: list[dict] = []

    def add(self, entry: dict) -> None:
        if not self.entries:
            self.shell.events.register("post_run_cell", self._show)
        self.entries.append(entry)

    def _show(self, result: Any = None) -> None:
        from IPython.display import display

        self.shell.events.unregister("post_run_cell", self._show)
        entries, self.entries = self.entries, []
        if entries:
            display(CheckBox(entries))
