"""What a Binder user gets: a fresh environment made from ``requirements.txt`` alone runs every chapter.

The environment is made, and every chapter's ``.ipynb`` executed in it with its
own kernel, once per test run by the session fixture ``fresh_env`` (see
``tests/fresh_env.py``). A chapter that needs a package missing from
``requirements.txt`` fails here with its traceback. The run time of each step is
written to ``_build/binder-env.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT


def test_fresh_environment_from_requirements_runs_every_chapter(fresh_env):
    assert fresh_env["notebooks"], "no chapter to execute"
    assert fresh_env["returncode"] == 0, (
        "a chapter failed in the fresh environment:\n" + fresh_env["stderr"][-8000:])
    report, venv = fresh_env["report"], fresh_env["venv"]
    assert Path(report["kernel_prefix"]).resolve() == venv.resolve(), (
        f"the chapters ran in {report['kernel_prefix']}, not in the fresh environment {venv}")
    assert Path(report["driver_prefix"]).resolve() == venv.resolve()
    assert sorted(report["chapters"]) == sorted(Path(nb).name for nb in fresh_env["notebooks"])
    assert all(seconds is not None for seconds in report["chapters"].values())

    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / "binder-env.json").write_text(json.dumps(
        {**fresh_env["times"], "unpinned_dependencies": fresh_env["unpinned"],
         "chapters_s": {k: round(v, 1) for k, v in report["chapters"].items()}}, indent=1))
