"""Turn benchmarks/results.json into the README tables and the scaling figure.

Run from the repository root::

    python benchmarks/report.py                       # tables and benchmarks/scaling.png
    python benchmarks/report.py --before benchmarks/results_before.json

The tables replace whatever stands between the markers ``<!-- BEGIN benchmark-table -->``
/ ``<!-- END benchmark-table -->``, ``<!-- BEGIN scaling-table -->`` /
``<!-- END scaling-table -->`` and ``<!-- BEGIN scale-table -->`` / ``<!-- END scale-table -->``
(``benchmarks/scale.py``'s run) in ``benchmarks/README.md`` and in the top-level
``README.md`` (where they exist); nothing else in the files is touched.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARKERS = ("benchmark-table", "scaling-table", "scale-table")


def _load(s: list) -> str:
    return ", ".join(f"{x:.2f}" for x in s)


def provenance(res: dict) -> str:
    m = res["machine"]
    return (f"{res.get('label') or 'run'} of {res['started']}: {m['cpu']} ({m['n_cpus']} cores), "
            f"Python {m['python']}, numpy {m['numpy']}, scikit-learn {m['sklearn']}, "
            f"xgboost {m['xgboost']}; medians of {res['repeats']} alternating fits per side; "
            f"load average (1, 5, 15 min) {_load(res['load_before'])} before, "
            f"{_load(res['load_after'])} after.")


def case_table(res: dict, before: dict | None) -> str:
    """Markdown table of the cases (CPU-time medians and ratios)."""
    old = {c["name"]: c for c in before["cases"]} if before else {}
    head = "| case | reference | ours [ms] | reference [ms] | ratio (CPU) | ratio (wall) |"
    rule = "|---|---|---:|---:|---:|---:|"
    if before:
        head, rule = head + " ratio before |", rule + "---:|"
    head, rule = head + " target | met |", rule + "---:|:---:|"
    lines = [head, rule]
    for c in res["cases"]:
        row = (f"| {c['name']} | {c['reference']} | {c['ours_cpu_median'] * 1e3:.1f} | "
               f"{c['theirs_cpu_median'] * 1e3:.1f} | {c['ratio_cpu']:.2f} | {c['ratio_wall']:.2f} |")
        if before:
            b = old.get(c["name"])
            row += f" {b['ratio_cpu']:.2f} |" if b else " - |"
        row += f" <= {c['target']:g} | {'yes' if c['meets_target'] else '**no**'} |"
        lines.append(row)
    notes = [f"*After*: {provenance(res)}"]
    if before:
        notes.append(f"*Before*: {provenance(before)}")
    return "\n".join(lines) + "\n\n" + "\n\n".join(notes) + "\n"


def scaling_table(res: dict) -> str:
    """Markdown table of the fitted slopes and of the times at the largest n."""
    sc = res.get("scaling")
    if not sc:
        return "(no scaling study in this run)\n"
    n_max = max(r["n"] for r in sc["rows"])
    t = {(r["model"], r["side"], r["d"]): r["cpu"] for r in sc["rows"] if r["n"] == n_max}
    s = {(r["model"], r["side"], r["d"]): r["slope"] for r in sc["slopes"]}
    lines = [f"| model | d | slope ours | slope library | ours at n={n_max} [s] | "
             f"library at n={n_max} [s] | ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    for model, _, d in sorted({k for k in s if k[1] == "ours"}):
        a, b = t[(model, "ours", d)], t[(model, "library", d)]
        lines.append(f"| {model} | {d} | {s[(model, 'ours', d)]:.2f} | "
                     f"{s[(model, 'library', d)]:.2f} | {a:.3f} | {b:.3f} | {a / b:.2f} |")
    return "\n".join(lines) + f"\n\nSlopes of log(CPU time) against log(n), n in " \
        f"{sorted({r['n'] for r in sc['rows']})}, median of {sc['repeats']} fits per point.\n"


def scale_table(res: dict) -> str:
    """Markdown table of benchmarks/scale.py's run (minima and medians of CPU times)."""
    sc = res.get("scale")
    if not sc:
        return "(no run of benchmarks/scale.py in this file)\n"
    t = sc["times"]
    lines = ["| measured | min CPU [s] | median CPU [s] | min wall [s] |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {v['cpu_min']:.3f} | {v['cpu_median']:.3f} | {v['wall_min']:.3f} |"
              for name, v in t.items()]
    lines += ["", "| ours / reference | ratio of minima (CPU) | (wall) | ratio of medians (CPU) | "
              "target | met |", "|---|---:|---:|---:|---:|:---:|"]
    lines += [f"| {c['ours']} / {c['reference']} | {c['ratio_cpu_min']:.2f} | "
              f"{c['ratio_wall_min']:.2f} | {c['ratio_cpu_median']:.2f} | <= {c['target']:g} | "
              f"{'yes' if c['meets_target'] else '**no**'} |" for c in sc["comparisons"]]
    return "\n".join(lines) + (
        f"\n\n{sc['n']:,} x {sc['d']} features, max_bin {sc['max_bin']}, depth {sc['max_depth']}; "
        f"{sc['repeats']} alternating repeats of {sc['started']}; `uptime` before: "
        f"`{sc['uptime_before']}`, after: `{sc['uptime_after']}`.\n")


def plot(res: dict, path: Path) -> None:
    """Log-log fit time against n, one panel per model, with the fitted slopes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sc = res["scaling"]
    models = list(dict.fromkeys(r["model"] for r in sc["rows"]))
    slope = {(r["model"], r["side"], r["d"]): r["slope"] for r in sc["slopes"]}
    fig, axes = plt.subplots(1, len(models), figsize=(4.6 * len(models), 4), squeeze=False)
    for ax, model in zip(axes[0], models):
        for side, style in (("ours", "-o"), ("library", "--s")):
            for d in sorted({r["d"] for r in sc["rows"]}):
                pts = [r for r in sc["rows"] if (r["model"], r["side"], r["d"]) == (model, side, d)]
                library = "xgboost" if "booster" in model else "scikit-learn"
                name = "ensemble_ref" if side == "ours" else library
                ax.loglog([p["n"] for p in pts], [p["cpu"] for p in pts], style,
                          label=f"{name}, d={d} (slope {slope[(model, side, d)]:.2f})")
        ax.set_title(model, fontsize=10)
        ax.set_xlabel("n (rows)")
        ax.set_ylabel("fit CPU time [s]")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def replace_between(text: str, marker: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- BEGIN {marker} -->\n).*?(<!-- END {marker} -->)", re.S)
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(HERE / "results.json"))
    parser.add_argument("--before", default=None, help="an earlier results file to compare with")
    parser.add_argument("--readme", nargs="*", default=[str(HERE / "README.md"),
                                                        str(HERE.parent / "README.md")])
    parser.add_argument("--png", default=str(HERE / "scaling.png"))
    args = parser.parse_args(argv)
    res = json.loads(Path(args.results).read_text())
    before = json.loads(Path(args.before).read_text()) if args.before else None
    bodies = dict(zip(MARKERS, (case_table(res, before), scaling_table(res), scale_table(res))))
    for readme in map(Path, args.readme):
        if not readme.exists():
            continue
        text = readme.read_text()
        new = text
        for marker, body in bodies.items():
            new = replace_between(new, marker, body)
        if new != text:
            readme.write_text(new)
            print(f"updated {readme}")
    if res.get("scaling"):
        plot(res, Path(args.png))
        print(f"wrote {args.png}")


if __name__ == "__main__":
    sys.exit(main())
