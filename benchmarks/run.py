"""Time ensemble_ref against scikit-learn and xgboost; write the results as JSON.

Run from the repository root with the project's environment::

    python benchmarks/run.py                  # every case, then the scaling study
    python benchmarks/run.py --quick          # tiny sizes, one fit per side (smoke test)
    python benchmarks/run.py --only forest    # the cases whose name contains "forest"
    python benchmarks/run.py --no-scaling     # the table only
    python benchmarks/report.py               # README tables and scaling.png from the JSON
    python benchmarks/scale.py                # one hist tree on 2,000,000 rows (its own script)

Every case is fitted alternately with ``ensemble_ref`` and with the reference library
(the side that starts alternates too), ``--repeats`` times after one warm-up fit per
side; the CPU time (``time.process_time``) and the wall-clock time (``time.perf_counter``)
of every fit are recorded and their medians compared. Everything runs single-threaded:
``n_jobs=1`` and one BLAS/OpenMP thread. CPU time does not grow when other programs
compete for the cores, which is why the ratios are CPU-time ratios; the wall-clock
ratios are stored as well, with the load average before and after the run.

The scaling study fits a fully grown tree, a 10-tree forest and a 10-round booster
(exact and hist) on n = 1k, 4k, 16k, 64k rows with d = 10 and 40 features (median CPU time of
``--scaling-repeats`` fits per point) and fits the slope of log(time) on log(n).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

# single-threaded numerical libraries on both sides (before numpy is imported)
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
FULL = dict(n=5000, d=20, n_bag=2000, d_bag=10, forest=100, bag=10, ada=200, gb=100, rounds=100,
            scaling_n=[1000, 4000, 16000, 64000], scaling_d=[10, 40], scaling_members=10)
QUICK = dict(n=300, d=6, n_bag=200, d_bag=4, forest=4, bag=3, ada=5, gb=3, rounds=3,
             scaling_n=[200, 400, 800], scaling_d=[4], scaling_members=2)


def make_data(n_samples: int, n_features: int, seed: int):
    """Continuous features; a non-linear regression target and its sign as classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    y = X[:, 0] + np.sin(3.0 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n_samples)
    return X, y, (y > 0).astype(int)


def real_data(quick: bool):
    """Two real tables as a lab would use them: Caravan's 85 integer-coded columns (many ties,
    6 % buyers) and Bikeshare's one-hot encoded hour, month and weather beside its numbers."""
    import pandas as pd

    from ensembles_verified.datasets import load_bikeshare, load_caravan
    caravan = load_caravan()
    Xc = caravan.drop(columns="Purchase").to_numpy(float)
    yc = (caravan["Purchase"] == "Yes").to_numpy(int)
    bikes = load_bikeshare()
    Xb = pd.get_dummies(bikes.drop(columns=["casual", "registered", "bikers"]), dtype=float)
    Xb, yb = Xb.to_numpy(float), bikes["bikers"].to_numpy(float)
    if quick:
        return Xc[:300], yc[:300], Xb[:300], yb[:300]
    return Xc, yc, Xb, yb


def _booster_pair(rounds: int, method: str):
    import xgboost

    import ensemble_ref as er
    return (lambda X, y: er.XGBRegressor(n_estimators=rounds, max_depth=6,
                                         tree_method=method).fit(X, y),
            lambda X, y: xgboost.XGBRegressor(n_estimators=rounds, max_depth=6, tree_method=method,
                                              n_jobs=1).fit(X, y))


def cases(s: dict) -> list[dict]:
    """The benchmarked cases: name, reference library, target ratio, the two fits."""
    import sklearn.ensemble as ske
    import sklearn.tree as skt

    import ensemble_ref as er

    X, y_reg, y_clf = make_data(s["n"], s["d"], seed=0)
    Xb, _, yb = make_data(s["n_bag"], s["d_bag"], seed=1)
    size, size_bag = f"{s['n']} x {s['d']}", f"{s['n_bag']} x {s['d_bag']}"
    exact, hist = _booster_pair(s["rounds"], "exact"), _booster_pair(s["rounds"], "hist")
    rows = [
        (f"regression tree, fully grown, {size}", "scikit-learn", 1.0,
         lambda: er.DecisionTreeRegressor().fit(X, y_reg),
         lambda: skt.DecisionTreeRegressor(random_state=0).fit(X, y_reg)),
        (f"classification tree, fully grown, {size}", "scikit-learn", 1.0,
         lambda: er.DecisionTreeClassifier().fit(X, y_clf),
         lambda: skt.DecisionTreeClassifier(random_state=0).fit(X, y_clf)),
        (f"regression tree, depth 6, {size}", "scikit-learn", 1.0,
         lambda: er.DecisionTreeRegressor(max_depth=6).fit(X, y_reg),
         lambda: skt.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y_reg)),
        (f"classification tree, depth 6, {size}", "scikit-learn", 1.0,
         lambda: er.DecisionTreeClassifier(max_depth=6).fit(X, y_clf),
         lambda: skt.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y_clf)),
        (f"random forest classifier, {s['forest']} trees, {size}", "scikit-learn", 1.0,
         lambda: er.RandomForestClassifier(n_estimators=s["forest"], random_state=0).fit(X, y_clf),
         lambda: ske.RandomForestClassifier(n_estimators=s["forest"], random_state=0,
                                            n_jobs=1).fit(X, y_clf)),
        (f"bagged classification trees, {s['bag']} trees, {size_bag}", "scikit-learn", 1.0,
         lambda: er.BaggingClassifier(n_estimators=s["bag"], random_state=0).fit(Xb, yb),
         lambda: ske.BaggingClassifier(skt.DecisionTreeClassifier(), n_estimators=s["bag"],
                                       random_state=0, n_jobs=1).fit(Xb, yb)),
        (f"AdaBoost, {s['ada']} stumps, {size}", "scikit-learn", 3.0,
         lambda: er.AdaBoostClassifier(n_estimators=s["ada"]).fit(X, y_clf),
         lambda: ske.AdaBoostClassifier(skt.DecisionTreeClassifier(max_depth=1),
                                        n_estimators=s["ada"], random_state=0).fit(X, y_clf)),
        (f"gradient boosting, {s['gb']} stages, depth 3, {size}", "scikit-learn", 3.0,
         lambda: er.GradientBoostingRegressor(n_estimators=s["gb"], max_depth=3).fit(X, y_reg),
         lambda: ske.GradientBoostingRegressor(n_estimators=s["gb"], max_depth=3,
                                               random_state=0).fit(X, y_reg)),
        (f"second-order booster, {s['rounds']} rounds, depth 6, exact, {size}", "xgboost exact", 1.5,
         lambda: exact[0](X, y_reg), lambda: exact[1](X, y_reg)),
        (f"second-order booster, {s['rounds']} rounds, depth 6, hist, {size}", "xgboost hist", 2.0,
         lambda: hist[0](X, y_reg), lambda: hist[1](X, y_reg)),
    ]
    Xc, yc, Xr, yr = real_data(quick=s["n"] < 1000)
    real = f"{len(yc)} x {Xc.shape[1]}", f"{len(yr)} x {Xr.shape[1]}"
    rows += [
        (f"random forest classifier, {s['forest']} trees, Caravan (integer codes) {real[0]}",
         "scikit-learn", 1.5,
         lambda: er.RandomForestClassifier(n_estimators=s["forest"], random_state=0).fit(Xc, yc),
         lambda: ske.RandomForestClassifier(n_estimators=s["forest"], random_state=0,
                                            n_jobs=1).fit(Xc, yc)),
        (f"gradient boosting classifier, {s['gb']} stages, depth 3, Caravan {real[0]}",
         "scikit-learn", 1.5,
         lambda: er.GradientBoostingClassifier(n_estimators=s["gb"], max_depth=3).fit(Xc, yc),
         lambda: ske.GradientBoostingClassifier(n_estimators=s["gb"], max_depth=3,
                                                random_state=0).fit(Xc, yc)),
        (f"random forest regressor, {s['forest']} trees, Bikeshare (one-hot) {real[1]}",
         "scikit-learn", 1.5,
         lambda: er.RandomForestRegressor(n_estimators=s["forest"], max_features=1 / 3,
                                          random_state=0).fit(Xr, yr),
         lambda: ske.RandomForestRegressor(n_estimators=s["forest"], max_features=1 / 3,
                                           random_state=0, n_jobs=1).fit(Xr, yr)),
        (f"gradient boosting regressor, {s['gb']} stages, depth 3, Bikeshare {real[1]}",
         "scikit-learn", 1.5,
         lambda: er.GradientBoostingRegressor(n_estimators=s["gb"], max_depth=3).fit(Xr, yr),
         lambda: ske.GradientBoostingRegressor(n_estimators=s["gb"], max_depth=3,
                                               random_state=0).fit(Xr, yr)),
    ]
    return [dict(name=n, reference=r, target=t, ours=o, theirs=th) for n, r, t, o, th in rows]


def timed(fit) -> tuple[float, float]:
    """CPU and wall-clock seconds of one call."""
    c0, w0 = time.process_time(), time.perf_counter()
    fit()
    return time.process_time() - c0, time.perf_counter() - w0


def run_case(case: dict, repeats: int) -> dict:
    """Alternate fits of both sides; every time and the medians."""
    case["ours"](), case["theirs"]()  # warm-up: imports, caches
    t = {side: {"cpu": [], "wall": []} for side in ("ours", "theirs")}
    for r in range(repeats):
        for side in (("ours", "theirs") if r % 2 == 0 else ("theirs", "ours")):
            cpu, wall = timed(case[side])
            t[side]["cpu"].append(cpu)
            t[side]["wall"].append(wall)
    out = {k: case[k] for k in ("name", "reference", "target")}
    for side in t:
        for clock in ("cpu", "wall"):
            out[f"{side}_{clock}"] = t[side][clock]
            out[f"{side}_{clock}_median"] = float(np.median(t[side][clock]))
    for clock in ("cpu", "wall"):
        out[f"ratio_{clock}"] = out[f"ours_{clock}_median"] / out[f"theirs_{clock}_median"]
    out["meets_target"] = bool(out["ratio_cpu"] <= case["target"])
    return out


def scaling_models(members: int) -> dict:
    """name -> (ours, library's) fit functions of (X, y_reg, y_clf)."""
    import sklearn.ensemble as ske
    import sklearn.tree as skt

    import ensemble_ref as er
    exact, hist = _booster_pair(members, "exact"), _booster_pair(members, "hist")
    return {
        "tree (fully grown, regression)": (
            lambda X, y, c: er.DecisionTreeRegressor().fit(X, y),
            lambda X, y, c: skt.DecisionTreeRegressor(random_state=0).fit(X, y)),
        f"random forest ({members} trees, classification)": (
            lambda X, y, c: er.RandomForestClassifier(n_estimators=members, random_state=0).fit(X, c),
            lambda X, y, c: ske.RandomForestClassifier(n_estimators=members, random_state=0,
                                                       n_jobs=1).fit(X, c)),
        f"second-order booster ({members} rounds, depth 6, exact)": (
            lambda X, y, c: exact[0](X, y), lambda X, y, c: exact[1](X, y)),
        f"second-order booster ({members} rounds, depth 6, hist)": (
            lambda X, y, c: hist[0](X, y), lambda X, y, c: hist[1](X, y)),
    }


def run_scaling(s: dict, repeats: int) -> dict:
    """Median CPU times over the grid of sizes, and the fitted log-log slopes."""
    rows = []
    for model, (ours, theirs) in scaling_models(s["scaling_members"]).items():
        for d in s["scaling_d"]:
            for n in s["scaling_n"]:
                X, y, c = make_data(n, d, seed=2)
                times = {"ours": [], "library": []}
                for _ in range(repeats):  # alternating, like the cases
                    for side, fit in (("ours", ours), ("library", theirs)):
                        times[side].append(timed(partial(fit, X, y, c)))
                for side, ts in times.items():
                    rows.append(dict(model=model, side=side, d=d, n=n,
                                     cpu=float(np.median([t[0] for t in ts])),
                                     wall=float(np.median([t[1] for t in ts]))))
                print(f"  scaling {model}, d={d}, n={n}: ours {rows[-2]['cpu']:.3f} s, "
                      f"library {rows[-1]['cpu']:.3f} s", flush=True)
    slopes = []
    for key in sorted({(r["model"], r["side"], r["d"]) for r in rows}):
        pts = [r for r in rows if (r["model"], r["side"], r["d"]) == key]
        slope = np.polyfit(np.log([p["n"] for p in pts]), np.log([p["cpu"] for p in pts]), 1)[0]
        slopes.append(dict(model=key[0], side=key[1], d=key[2], slope=float(slope)))
    return dict(repeats=repeats, rows=rows, slopes=slopes)


def machine() -> dict:
    import scipy
    import sklearn
    import xgboost

    import ensemble_ref
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=HERE, check=False).stdout.strip()
    except OSError:
        commit = ""
    cpu = platform.processor()
    if Path("/proc/cpuinfo").exists():
        names = [ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                 if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    return dict(cpu=cpu, n_cpus=os.cpu_count(), platform=platform.platform(),
                python=platform.python_version(), numpy=np.__version__, scipy=scipy.__version__,
                sklearn=sklearn.__version__, xgboost=xgboost.__version__,
                ensemble_ref=str(Path(ensemble_ref.__file__).parent), commit=commit)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one fit per side")
    parser.add_argument("--repeats", type=int, default=None, help="fits per side (default 5)")
    parser.add_argument("--scaling-repeats", type=int, default=None, help="default 3")
    parser.add_argument("--only", default="", help="the cases whose name contains this text")
    parser.add_argument("--no-scaling", action="store_true", help="skip the scaling study")
    parser.add_argument("--label", default="", help="a name for this run (stored in the JSON)")
    parser.add_argument("--out", default=None, help="JSON file (default benchmarks/results.json; "
                        "benchmarks/results_quick.json with --quick)")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    repeats = args.repeats or (1 if args.quick else 5)
    out = Path(args.out or HERE / ("results_quick.json" if args.quick else "results.json"))
    result = dict(schema=1, label=args.label, quick=args.quick, repeats=repeats,
                  started=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                  load_before=list(os.getloadavg()), machine=machine(), cases=[])
    print(f"{'case':62s} {'ours':>9s} {'ref':>9s} {'ratio':>6s} {'target':>6s}  (CPU s, median)")
    for case in cases(sizes):
        if args.only in case["name"]:
            row = run_case(case, repeats)
            result["cases"].append(row)
            print(f"{row['name']:62s} {row['ours_cpu_median']:9.3f} {row['theirs_cpu_median']:9.3f} "
                  f"{row['ratio_cpu']:6.2f} {row['target']:6.1f}", flush=True)
    previous = json.loads(out.read_text()) if out.is_file() else {}
    if not args.no_scaling:
        result["scaling"] = run_scaling(sizes, args.scaling_repeats or (1 if args.quick else 3))
    elif "scaling" in previous:
        result["scaling"] = previous["scaling"]  # the last full run's study is kept
    if "scale" in previous:
        result["scale"] = previous["scale"]  # benchmarks/scale.py's results are its own
    result["load_after"] = list(os.getloadavg())
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return result


if __name__ == "__main__":
    sys.exit(main() and 0)
