"""The code passes ruff (configured in pyproject.toml, pinned in requirements-dev.txt)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    if shutil.which("ruff"):
        return ["ruff"]
    try:
        import ruff  # noqa: F401
    except ImportError:
        pytest.skip("ruff is not installed (pip install -r requirements-dev.txt)")
    return [sys.executable, "-m", "ruff"]


def test_ruff_check_passes():
    result = subprocess.run([*_ruff(), "check", "ensemble_ref", "runtime", "tests", "tools", "_ext",
                             "benchmarks", "dodo.py", "conftest.py"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
