"""What a Binder user gets: a fresh environment made from ``requirements.txt`` alone runs every chapter.

The environment is made, and every chapter's ``.ipynb`` executed in it under nbval
with its own kernel and a seed other than its published one, once per test run by
the session fixture ``fresh_env`` (see ``tools/fresh_env.py``). A chapter that needs
a package missing from ``requirements.txt``, or one of whose claims holds only for
its published seed, fails here with nbval's report. The run time of each step is
written to ``_build/binder-env.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.chapters import ROOT

pytestmark = pytest.mark.book  # read by the stage 'fresh' of dodo.py, after its product is made


def test_fresh_environment_from_requirements_runs_every_chapter(fresh_env):
    assert fresh_env["notebooks"], "no chapter to execute"
    assert fresh_env["returncode"] == 0, (
        f"a chapter failed under nbval in the fresh environment (seed {fresh_env['report']['seed']}):\n"
        + fresh_env["log"][-8000:])
    report, venv = fresh_env["report"], fresh_env["venv"]
    assert Path(report["kernel_prefix"]).resolve() == venv.resolve(), (
        f"the chapters ran in {report['kernel_prefix']}, not in the fresh environment {venv}")
    assert Path(report["driver_prefix"]).resolve() == venv.resolve()
    assert sorted(report["chapters"]) == sorted(Path(nb).name for nb in fresh_env["notebooks"])
    assert all(seconds is not None for seconds in report["chapters"].values())
    for name in report["chapters"]:
        cells = report["cells"][name]
        assert cells["passed"] > 0 and cells["failed"] == 0, f"{name} under nbval: {cells}"

    (ROOT / "_build").mkdir(exist_ok=True)
    (ROOT / "_build" / "binder-env.json").write_text(json.dumps(
        {**fresh_env["times"], "unpinned_dependencies": fresh_env["unpinned"],
         "chapters_s": {k: round(v, 1) for k, v in report["chapters"].items()}}, indent=1))
