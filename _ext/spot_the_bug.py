"""The ``bug-source`` directive: the function of a spot-the-bug exercise, with its error.

```{bug-source} ex-bug-oob
```

prints, as a Python code block (HTML and PDF alike), the source of the package function
that the exercise ``ex-bug-oob`` hands out with one error
(:func:`ensembles_verified.spot_the_bug.bug_source`), so the page shows the code the
student gets from ``show_bug`` and never drifts from the package.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class BugSourceDirective(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        from ensembles_verified.spot_the_bug import bug_source

        try:
            text = bug_source(self.arguments[0])
        except (TypeError, ValueError) as exc:
            raise self.error(str(exc)) from None
        block = nodes.literal_block(text, text, language="python", classes=["bug-source"])
        self.set_source_info(block)
        return [block]


def setup(app: Sphinx) -> dict:
    app.add_directive("bug-source", BugSourceDirective)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
