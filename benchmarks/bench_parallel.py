"""Time ensemble_ref against scikit-learn on the same data, single-threaded on both sides.

Run from the repository root::

    python benchmarks/bench_parallel.py            # all cases
    python benchmarks/bench_parallel.py --quick    # fewer repeats

Each case is fitted alternately with ``ensemble_ref`` and with scikit-learn
(``n_jobs=1``), ``--repeats`` times, and the *best* time of each side is kept.
Times are CPU times of this process (``time.process_time``): both sides run on
one thread, and CPU time, unlike wall-clock time, does not grow when other
programs compete for the cores. ``--wall`` reports wall-clock times instead.
The printed ratio is ensemble_ref time / scikit-learn time; the target is a
ratio of at most 3 for every case.
"""

from __future__ import annotations

import argparse
import os
import time

# single-threaded numerical libraries on both sides
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402


def make_data(n_samples: int, n_features: int, seed: int):
    """Continuous features; a non-linear regression target and its sign as classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    y = X[:, 0] + np.sin(3.0 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n_samples)
    return X, y, (y > 0).astype(int)


def cases():
    import sklearn.ensemble as ske
    import sklearn.tree as skt

    import ensemble_ref as er

    X, y_reg, y_clf = make_data(5000, 20, seed=0)
    Xb, _, yb = make_data(2000, 10, seed=1)
    return [
        ("regression tree, fully grown, 5000 x 20",
         lambda: er.DecisionTreeRegressor().fit(X, y_reg),
         lambda: skt.DecisionTreeRegressor(random_state=0).fit(X, y_reg)),
        ("classification tree, fully grown, 5000 x 20",
         lambda: er.DecisionTreeClassifier().fit(X, y_clf),
         lambda: skt.DecisionTreeClassifier(random_state=0).fit(X, y_clf)),
        ("regression tree, depth 6, 5000 x 20",
         lambda: er.DecisionTreeRegressor(max_depth=6).fit(X, y_reg),
         lambda: skt.DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y_reg)),
        ("classification tree, depth 6, 5000 x 20",
         lambda: er.DecisionTreeClassifier(max_depth=6).fit(X, y_clf),
         lambda: skt.DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y_clf)),
        ("random forest classifier, 100 trees, 5000 x 20",
         lambda: er.RandomForestClassifier(n_estimators=100, random_state=0).fit(X, y_clf),
         lambda: ske.RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1).fit(X, y_clf)),
        ("bagged classification trees, 10 trees, 2000 x 10",
         lambda: er.BaggingClassifier(n_estimators=10, random_state=0).fit(Xb, yb),
         lambda: ske.BaggingClassifier(skt.DecisionTreeClassifier(), n_estimators=10,
                                       random_state=0, n_jobs=1).fit(Xb, yb)),
    ]


def best_times(ours, theirs, repeats: int, clock=time.process_time) -> tuple[float, float]:
    t_ours, t_theirs = np.inf, np.inf
    for _ in range(repeats):
        t0 = clock()
        ours()
        t_ours = min(t_ours, clock() - t0)
        t0 = clock()
        theirs()
        t_theirs = min(t_theirs, clock() - t0)
    return t_ours, t_theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fits per side and case")
    parser.add_argument("--quick", action="store_true", help="2 repeats, forests only once")
    parser.add_argument("--only", default="", help="run the cases whose name contains this text")
    parser.add_argument("--wall", action="store_true", help="wall-clock instead of CPU time")
    args = parser.parse_args()
    clock = time.perf_counter if args.wall else time.process_time
    print(f"{'case':52s} {'ensemble_ref':>13s} {'scikit-learn':>13s} {'ratio':>6s}"
          f"   ({'wall-clock' if args.wall else 'CPU'} time, best of the repeats)")
    for name, ours, theirs in cases():
        if args.only not in name:
            continue
        repeats = args.repeats
        if args.quick:
            repeats = 1 if "forest" in name else 2
        elif "forest" in name:
            repeats = max(1, repeats // 2)
        ours()  # warm-up (imports, caches)
        t_ours, t_theirs = best_times(ours, theirs, repeats, clock)
        print(f"{name:52s} {t_ours * 1e3:10.1f} ms {t_theirs * 1e3:10.1f} ms {t_ours / t_theirs:6.2f}",
              flush=True)


if __name__ == "__main__":
    main()
