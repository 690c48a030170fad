"""The benchmark tool works: a quick run on tiny sizes writes valid JSON, and the report
turns it into tables (between the README markers) and the scaling figure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("sklearn")
pytest.importorskip("xgboost")
pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def quick_results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--label",
                    "smoke", "--out", str(out)], check=True, cwd=ROOT, env=env,
                   capture_output=True, timeout=300)
    return out


def test_quick_run_writes_valid_json(quick_results):
    res = json.loads(quick_results.read_text())
    assert res["quick"] is True and res["label"] == "smoke"
    assert len(res["load_before"]) == 3 and len(res["load_after"]) == 3
    names = [c["name"] for c in res["cases"]]
    assert len(names) == 14 and len(set(names)) == 14
    assert any("random forest" in n for n in names) and any("hist" in n for n in names)
    assert any("Caravan" in n for n in names) and any("Bikeshare" in n for n in names)
    for c in res["cases"]:
        for side in ("ours", "theirs"):
            for clock in ("cpu", "wall"):
                times = c[f"{side}_{clock}"]
                assert len(times) == res["repeats"] and all(t >= 0 for t in times)
        assert c["ratio_cpu"] > 0 and c["ratio_wall"] > 0
        assert c["meets_target"] == (c["ratio_cpu"] <= c["target"])
    sc = res["scaling"]
    assert {r["side"] for r in sc["rows"]} == {"ours", "library"}
    assert len(sc["slopes"]) == 2 * len({r["model"] for r in sc["rows"]}) * len({r["d"] for r in sc["rows"]})


def test_report_fills_the_markers_and_draws_the_figure(quick_results, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- BEGIN benchmark-table -->\nold\n<!-- END benchmark-table -->\n"
                      "middle\n<!-- BEGIN scaling-table -->\n<!-- END scaling-table -->\nend\n")
    png = tmp_path / "scaling.png"
    from benchmarks import report

    report.main(["--results", str(quick_results), "--before", str(quick_results),
                 "--readme", str(readme), "--png", str(png)])
    text = readme.read_text()
    assert text.startswith("intro\n") and "middle\n" in text and text.endswith("end\n")
    assert "old" not in text and "| random forest classifier" in text and "ratio before" in text
    assert "slope ours" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_run_without_the_scaling_study_keeps_the_previous_one(quick_results, tmp_path):
    out = tmp_path / "results.json"
    out.write_text(quick_results.read_text())
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--no-scaling",
                    "--only", "AdaBoost", "--label", "table only", "--out", str(out)], check=True,
                   cwd=ROOT, env=env, capture_output=True, timeout=300)
    res = json.loads(out.read_text())
    assert res["label"] == "table only" and [c["name"] for c in res["cases"]] != []
    assert all("AdaBoost" in c["name"] for c in res["cases"])
    assert res["scaling"] == json.loads(quick_results.read_text())["scaling"]
