"""Sphinx extension: MathJax 3 served with the book, so formulas render offline.

The HTML must typeset every formula without network access (readers offline,
archived copies, privacy). MathJax 3 comes from the ``django-static-mathjax``
wheel pinned in ``requirements.txt``, which ships MathJax's ``es5`` build with
its CHTML woff fonts; no copy of MathJax is kept in the repository.

When the configuration is read, this extension finds the installed package,
exposes its ``es5`` folder as ``mathjax/`` at the root of the HTML output
through ``html_extra_path`` (a link in ``_build/.mathjax`` to the installed
folder; not under ``_static``, every script of which Jupyter Book would load on
every page) and points ``mathjax_path`` at ``mathjax/tex-mml-chtml.js``.
"""

from __future__ import annotations

import os
import shutil
from importlib.util import find_spec
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

PACKAGE = "mathjax"  # the import name of the django-static-mathjax distribution
ENTRY = "tex-mml-chtml.js"  # TeX and MathML input, CommonHTML output


def mathjax_es5_dir() -> Path:
    """The ``es5`` folder of the installed MathJax 3 package."""
    spec = find_spec(PACKAGE)
    es5 = (Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
           if spec and spec.submodule_search_locations else None)
    if es5 is None or not (es5 / ENTRY).is_file():
        raise ExtensionError(
            "offline MathJax: the package django-static-mathjax is not installed (or has no "
            f"es5/{ENTRY}); install the book's environment with "
            "'python -m pip install -r requirements.txt'.")
    return es5


def _stage(es5: Path, staging: Path) -> None:
    """Make ``staging/mathjax`` point at ``es5`` (a symbolic link, else a copy)."""
    target = staging / "mathjax"
    staging.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() and target.resolve() == es5.resolve():
        return
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        if (target / ENTRY).read_bytes() == (es5 / ENTRY).read_bytes():
            return  # a copy made earlier on a system without symbolic links
        shutil.rmtree(target)
    try:
        os.symlink(es5, target, target_is_directory=True)
    except OSError:
        shutil.copytree(es5, target)


def config_inited(app: Sphinx, config: Config) -> None:
    staging = Path(app.outdir).parent / ".mathjax"
    _stage(mathjax_es5_dir(), staging)
    config.html_extra_path = [*config.html_extra_path, str(staging)]
    # Sphinx reads a relative mathjax_path below _static/; "../" climbs back to the
    # output root, so each page loads <root>/mathjax/tex-mml-chtml.js by a relative URL.
    config.mathjax_path = f"../mathjax/{ENTRY}"


def setup(app: Sphinx) -> dict:
    # Before Sphinx's own html_extra_path check (priority 800), which needs the folder.
    app.connect("config-inited", config_inited, priority=400)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
