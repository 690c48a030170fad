"""Sphinx extension: the chapters' figures at twice their displayed resolution.

The kernels that execute the chapters during the build read IPython's settings from
``_ext/ipython`` (``IPYTHONDIR``, inherited by every kernel the build starts), which
asks matplotlib's inline backend for ``retina`` figures: PNGs with twice the pixels,
shown at their usual size, so a figure stays sharp on a phone or a high-density
screen and in the PDF. The chapters themselves are not changed: on Binder or Colab
they draw figures as usual.
"""

from __future__ import annotations

import os
from pathlib import Path

from sphinx.application import Sphinx


def builder_inited(app: Sphinx) -> None:
    os.environ["IPYTHONDIR"] = str(Path(__file__).resolve().parent / "ipython")


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
