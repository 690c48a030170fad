"""One histogram tree at scale: the data-parallel tree in one process against xgboost's hist.

Run from the repository root with the project's environment::

    python benchmarks/scale.py                # 2,000,000 x 20, depth 6, 7 repeats (about 4 min)
    python benchmarks/scale.py --quick        # 20,000 x 5, 2 repeats: a smoke test
    python benchmarks/report.py               # the README table, from results.json

Two comparisons, each ``--repeats`` times after a warm-up, alternating the side that
starts, single-threaded on both sides:

* **binning** (cut points and codes): :func:`ensemble_ref.trees.binning.quantile_bins`,
  the code that bins the booster's features (``Codes``) and the shards of the
  data-parallel tree, against the construction of ``xgboost.QuantileDMatrix(X, y,
  max_bin=256, nthread=1)``, xgboost's binning (its ``DMatrix`` construction, which
  bins nothing, is recorded too);
* **one tree**: :func:`ensemble_ref.ensembles.distributed.build_histogram_tree` on one
  shard with ``local_map`` (the booster's histogram grower; gradients included, a fresh
  copy of the shard each time, so that nothing is reused from the previous tree) against
  ``xgboost.train({"tree_method": "hist", "max_depth": 6, "nthread": 1, "max_bin": 256},
  QuantileDMatrix, num_boost_round=1)`` on the matrix built beforehand. The same tree on
  two shards is recorded too.

The machine is shared, so the ratios compare the *minima* over the repeats (the run
least disturbed by other programs) of the CPU times; medians, wall-clock times, the load
average and ``uptime`` are stored with them. The results go into ``results.json`` under
``"scale"`` (the rest of the file is kept; ``run.py`` keeps this entry in turn).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
FULL = dict(n=2_000_000, d=20, repeats=7)
QUICK = dict(n=20_000, d=5, repeats=2)
MAX_BIN, MAX_DEPTH, TARGET = 256, 6, 3.0


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def _timed(fit) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    fit()
    return time.process_time() - c0, time.perf_counter() - w0


def sides(n: int, d: int) -> dict:
    """name -> the fit functions timed, and the comparisons (ours, reference, target)."""
    import xgboost

    from ensemble_ref.ensembles.distributed import build_histogram_tree
    from ensemble_ref.trees.binning import quantile_bins

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + np.sin(3.0 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    cuts, codes = quantile_bins(X, MAX_BIN)
    qdm = xgboost.QuantileDMatrix(X, y, max_bin=MAX_BIN, nthread=1)
    params = dict(tree_method="hist", max_depth=MAX_DEPTH, nthread=1, max_bin=MAX_BIN,
                  objective="reg:squarederror", learning_rate=0.3)
    fresh = {}  # a new copy of the codes before every tree: no state kept from the last one

    def tree(k: int):
        g = np.mean(y) - y
        parts = np.array_split(np.arange(n), k) if k > 1 else [slice(None)]
        shards = [(fresh["codes"][p], g[p], np.ones(g[p].size)) for p in parts]
        return build_histogram_tree(shards, cuts, max_depth=MAX_DEPTH, learning_rate=0.3)

    fits = {
        "binning: quantile_bins (cuts + codes)": lambda: quantile_bins(X, MAX_BIN),
        "binning: xgboost.QuantileDMatrix": lambda: xgboost.QuantileDMatrix(
            X, y, max_bin=MAX_BIN, nthread=1),
        "xgboost.DMatrix (no binning)": lambda: xgboost.DMatrix(X, y, nthread=1),
        "tree: build_histogram_tree, 1 shard": lambda: tree(1),
        "tree: build_histogram_tree, 2 shards": lambda: tree(2),
        "tree: xgboost.train hist, 1 round": lambda: xgboost.train(params, qdm, num_boost_round=1),
    }
    before = {name: (lambda: fresh.update(codes=codes.copy(order="F"))) if "shard" in name
              else (lambda: None) for name in fits}
    pairs = [("binning: quantile_bins (cuts + codes)", "binning: xgboost.QuantileDMatrix"),
             ("tree: build_histogram_tree, 1 shard", "tree: xgboost.train hist, 1 round")]
    return dict(fits=fits, before=before, pairs=pairs)


def run(n: int, d: int, repeats: int) -> dict:
    """Every fit ``repeats`` times, alternating; the times and the ratios of the minima."""
    s = sides(n, d)
    names = list(s["fits"])
    times = {name: {"cpu": [], "wall": []} for name in names}
    for name in names:  # warm-up
        s["before"][name]()
        s["fits"][name]()
    for r in range(repeats):
        for name in names if r % 2 == 0 else names[::-1]:
            s["before"][name]()
            cpu, wall = _timed(s["fits"][name])
            times[name]["cpu"].append(cpu)
            times[name]["wall"].append(wall)
    out = {name: dict(t, cpu_min=min(t["cpu"]), cpu_median=float(np.median(t["cpu"])),
                      wall_min=min(t["wall"]), wall_median=float(np.median(t["wall"])))
           for name, t in times.items()}
    comparisons = []
    for ours, ref in s["pairs"]:
        a, b = out[ours], out[ref]
        comparisons.append(dict(ours=ours, reference=ref, target=TARGET,
                                ratio_cpu_min=a["cpu_min"] / b["cpu_min"],
                                ratio_wall_min=a["wall_min"] / b["wall_min"],
                                ratio_cpu_median=a["cpu_median"] / b["cpu_median"],
                                meets_target=bool(a["cpu_min"] / b["cpu_min"] <= TARGET)))
    return dict(times=out, comparisons=comparisons)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, two repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--label", default="")
    parser.add_argument("--out", default=str(HERE / "results.json"),
                        help="results file; its other entries are kept")
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL
    repeats = args.repeats or size["repeats"]
    sys.path.insert(0, str(HERE))
    from run import machine

    result = dict(label=args.label, quick=args.quick, n=size["n"], d=size["d"], max_bin=MAX_BIN,
                  max_depth=MAX_DEPTH, repeats=repeats,
                  started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  load_before=list(os.getloadavg()), uptime_before=_uptime(), machine=machine())
    result.update(run(size["n"], size["d"], repeats))
    result["load_after"], result["uptime_after"] = list(os.getloadavg()), _uptime()
    for c in result["comparisons"]:
        print(f"{c['ours']:45s} / {c['reference']:35s}: {c['ratio_cpu_min']:.2f} "
              f"(CPU, minima; target <= {c['target']:g}; wall {c['ratio_wall_min']:.2f})")
    out = Path(args.out)
    previous = json.loads(out.read_text()) if out.is_file() else {}
    previous["scale"] = result
    out.write_text(json.dumps(previous, indent=1) + "\n")
    print(f"wrote {out} ({result['uptime_after']})")
    return result


if __name__ == "__main__":
    sys.exit(main() and 0)
