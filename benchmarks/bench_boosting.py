"""Time the boosting estimators of ensemble_ref against scikit-learn and xgboost.

Run from the repository root::

    python benchmarks/bench_boosting.py            # 3 alternating fits per side
    python benchmarks/bench_boosting.py --quick    # 1 fit per side

Cases (5,000 samples x 20 features, single-threaded everywhere):

* AdaBoost, 200 decision stumps, against ``sklearn.ensemble.AdaBoostClassifier``
  with ``DecisionTreeClassifier(max_depth=1)``;
* gradient boosting, 100 stages of depth-3 trees, against
  ``sklearn.ensemble.GradientBoostingRegressor``;
* the second-order booster, 100 rounds of depth-6 trees, against
  ``xgboost.XGBRegressor(tree_method="exact", n_jobs=1)``.

Each case is fitted alternately with both libraries and the *best* time of each
is kept (the minimum is the least noisy estimate on a shared machine). The
printed ratio is ensemble_ref time / reference time; the targets are at most 3
against scikit-learn and at most 5 against xgboost.
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
    import xgboost

    import ensemble_ref as er

    X, y_reg, y_clf = make_data(5000, 20, seed=0)
    return [
        ("AdaBoost, 200 stumps", "scikit-learn", 3.0,
         lambda: er.AdaBoostClassifier(n_estimators=200).fit(X, y_clf),
         lambda: ske.AdaBoostClassifier(skt.DecisionTreeClassifier(max_depth=1),
                                        n_estimators=200, random_state=0).fit(X, y_clf)),
        ("gradient boosting, 100 stages, depth 3", "scikit-learn", 3.0,
         lambda: er.GradientBoostingRegressor(n_estimators=100, max_depth=3).fit(X, y_reg),
         lambda: ske.GradientBoostingRegressor(n_estimators=100, max_depth=3,
                                               random_state=0).fit(X, y_reg)),
        ("second-order booster, 100 rounds, depth 6", "xgboost exact", 5.0,
         lambda: er.XGBRegressor(n_estimators=100, max_depth=6).fit(X, y_reg),
         lambda: xgboost.XGBRegressor(n_estimators=100, max_depth=6, tree_method="exact",
                                      n_jobs=1).fit(X, y_reg)),
    ]


def best_times(ours, theirs, repeats: int) -> tuple[float, float]:
    t_ours, t_theirs = np.inf, np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        ours()
        t_ours = min(t_ours, time.perf_counter() - t0)
        t0 = time.perf_counter()
        theirs()
        t_theirs = min(t_theirs, time.perf_counter() - t0)
    return t_ours, t_theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="fits per side (best time kept)")
    parser.add_argument("--quick", action="store_true", help="one fit per side")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    print(f"{'case (5000 x 20)':44s} {'reference':14s} {'ours [s]':>9s} {'ref [s]':>9s} "
          f"{'ratio':>7s} {'target':>7s}")
    for name, reference, target, ours, theirs in cases():
        t_ours, t_ref = best_times(ours, theirs, repeats)
        ratio = t_ours / t_ref
        flag = "" if ratio <= target else "  (above target)"
        print(f"{name:44s} {reference:14s} {t_ours:9.2f} {t_ref:9.2f} {ratio:7.2f} "
              f"{target:7.1f}{flag}")


if __name__ == "__main__":
    main()
