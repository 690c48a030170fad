"""A mutation test of the book: break one formula of ensemble_ref, the chapter must fail.

Each mutant rewrites one formula of the package, most of them into a statement
the course notes made or a slip a careful reader could make (a gain without the
square on G, ``(1 - 1/N)^N`` read as the fraction picked, ``alpha`` without the
1/2, ...). The chapter that states the formula is executed with the mutant in
place, and it must stop with an error (normally a :class:`ensembles_verified.ClaimError`).
A mutant the chapter survives is a formula the book claims to verify but does not.

The cells before the first call of the mutated function run as they would
unmutated, so one execution of each chapter serves all its mutants
(``tools/mutant_checkpoints.py``): the kernel takes a checkpoint (a fork) before each
cell, and a mutant runs, with its function's code swapped in, from the checkpoint
of the cell that first calls that function. A mutant no checkpoint can serve (the
rewrite is outside any function, or the function is first called after the chapter
started threads or processes, as the Dask chapter does) is run the long way: the
whole chapter in a kernel of its own, against a mutated copy of the package.

In the test run the mutants branch off the fresh environment's execution of the
chapters (``tests/fresh_env.py``); this command runs them in the current environment.

Usage (from the repository root)::

    python tools/mutate_book.py                  # every mutant, two at a time
    python tools/mutate_book.py --only oob-picked gain-unsquared
    python tools/mutate_book.py --chapter book/04_bagging_oob.md
    python tools/mutate_book.py --list

The exit status is 0 only when every mutant selected is killed.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    """One rewritten formula and the chapter that must notice it."""

    id: str
    chapter: str       # the chapter (MyST notebook) that states the formula
    target: str        # a public object of ensemble_ref whose source file holds the formula
    old: str           # the formula as written (must occur exactly once in that file)
    new: str           # the mutated formula
    error: str         # the false statement the mutant encodes


MUTANTS = [
    # --- why ensembles work ---------------------------------------------------------------
    Mutant("majority-ties", "book/01_introduction.md", "ensemble_ref.majority_error",
           "2 * t < n]", "2 * t <= n]",
           "a tied vote counts as a wrong majority (ties go against the crowd)"),
    Mutant("majority-ties-as-right", "book/01_introduction.md", "ensemble_ref.majority_error",
           "+ tie_weight * pmf[:, 2 * t == n].sum(axis=1)", "+ 0.0 * pmf[:, 2 * t == n].sum(axis=1)",
           "a tied vote counts as a right majority"),
    Mutant("var-average-independent", "book/02_bias_variance.md", "ensemble_ref.variance_of_average",
           "out = rho_arr * s2 + (1 - rho_arr) * s2 / M_arr", "out = s2 / M_arr + 0 * rho_arr",
           "the variance of an average is sigma^2/M whatever the correlation"),
    Mutant("bv-variance-ddof0", "book/02_bias_variance.md", "ensemble_ref.decompose_predictions",
           "s2 = P.var(axis=0, ddof=1)", "s2 = P.var(axis=0, ddof=0)",
           "the variance across training sets with divisor R instead of R - 1"),
    Mutant("crowd-bound-chebyshev", "book/03_wisdom_of_crowds.md", "ensemble_ref.majority_lower_bound",
           "return as_output(delta**2 / (sigma2 + delta**2))", "return as_output(1 - sigma2 / delta**2)",
           "the crowd's accuracy bound from Chebyshev instead of Cantelli"),
    Mutant("var-average-1-over-M", "book/02_bias_variance.md", "ensemble_ref.variance_of_average",
           "out = rho_arr * s2 + (1 - rho_arr) * s2 / M_arr",
           "out = rho_arr * s2 / M_arr + (1 - rho_arr) * s2",
           "the variance of an average with 1/M on the correlated part"),
    Mutant("bv-total-no-noise", "book/02_bias_variance.md", "ensemble_ref.decompose_predictions",
           "total=float(bias2.mean() + s2.mean() + sigma**2)",
           "total=float(bias2.mean() + s2.mean())",
           "a bias-variance total without the noise term, which does not add up"),
    Mutant("bv-bias-uncorrected", "book/02_bias_variance.md", "ensemble_ref.decompose_predictions",
           "bias2 = (f_bar - f_test) ** 2 - s2 / R", "bias2 = (f_bar - f_test) ** 2",
           "the squared bias of the Monte Carlo mean taken as the squared bias (no s^2/R correction)"),
    Mutant("condorcet-exponent", "book/03_wisdom_of_crowds.md", "ensemble_ref.condorcet_bound",
           "** (T / 2.0)", "** (T / 4.0)",
           "Condorcet's bound with half the exponent (a bound that is wrong but still above)"),
    Mutant("cantelli-as-chebyshev", "book/03_wisdom_of_crowds.md", "ensemble_ref.cantelli_bound",
           "var / (var + lam**2)", "var / lam**2",
           "the one-sided bound taken as Chebyshev's var / lambda^2"),
    Mutant("crowd-variance-no-1-over-n", "book/03_wisdom_of_crowds.md",
           "ensemble_ref.mean_vote_variance",
           "v / n + (n - 1) / n * c * v", "v / n + c * v",
           "the variance of the mean vote without the (n - 1)/n factor on the correlation"),
    # --- the base learner ------------------------------------------------------------------
    Mutant("gini-unsquared", "book/03b_decision_trees.md", "ensemble_ref.math.impurity.gini_impurity",
           "sq = sq + c_k * c_k", "sq = sq + c_k * W",
           "the Gini impurity as 1 - sum_k p_k, without the squares (0 for every node)"),
    Mutant("entropy-in-nats", "book/03b_decision_trees.md", "ensemble_ref.math.impurity.entropy_impurity",
           "p * (np.log(p) / np.log(2.0))", "p * np.log(p)",
           "the entropy in nats where the book (and its splits' reported values) use bits"),
    # --- parallel ensembles -----------------------------------------------------------------
    Mutant("oob-picked", "book/04_bagging_oob.md", "ensemble_ref.oob_fraction_exact",
           "P = np.exp(N * np.log1p(-1.0 / N))", "P = -np.expm1(N * np.log1p(-1.0 / N))",
           "(1 - 1/N)^N read as the fraction of points picked"),
    Mutant("oob-regression-average", "book/04_bagging_oob.md", "ensemble_ref.BaggingRegressor",
           "prediction = aggregation._oob_mean(total[:, 0], n_oob)",
           "prediction = aggregation._oob_mean(total[:, 0], np.full_like(n_oob, len(self.estimators_)))",
           "the regression OOB prediction averaged over all M members instead of the OOB ones"),
    Mutant("oob-mixture-unnormalised", "book/04_bagging_oob.md", "ensemble_ref.oob_expected_error",
           "return pi @ R / pi.sum(axis=1)", "return pi @ R",
           "the OOB mixture without conditioning on the point having an OOB member"),
    Mutant("oob-gap-upper-2N", "book/04_bagging_oob.md", "ensemble_ref.oob_gap_bounds",
           "np.expm1(-1.0 / (2.0 * (N - 1.0)))", "np.expm1(-1.0 / (2.0 * N))",
           "the upper bound on the OOB gap with 2N in place of 2(N - 1)"),
    Mutant("rf-blind-with-replacement", "book/05_random_forests.md",
           "ensemble_ref.prob_no_informative",
           "np.prod((d - k - j) / (d - j))", "np.prod((d - k) / d + 0 * j)",
           "the candidate features drawn with replacement, ((d - k)/d)^m"),
    Mutant("mdi-unweighted", "book/05_random_forests.md", "ensemble_ref.math.importance.tree_mdi",
           "decrease = w[split] * impurity[split] - w[l] * impurity[l] - w[r] * impurity[r]",
           "decrease = impurity[split] - (w[l] * impurity[l] + w[r] * impurity[r]) / w[split]",
           "impurity importance without the node's weighted sample count w_t"),
    Mutant("ece-unweighted-bins", "book/06_voting_stacking.md",
           "ensemble_ref.math.calibration.expected_calibration_error",
           "return float(np.sum(share * np.abs(bins.frequency[full] - bins.confidence[full])))",
           "return float(np.mean(np.abs(bins.frequency[full] - bins.confidence[full])) + 0 * share.sum())",
           "the expected calibration error as the plain mean of the bins' gaps, without the weights n_b/n"),
    Mutant("soft-vote-unnormalised", "book/06_voting_stacking.md", "ensemble_ref.VotingClassifier",
           "return P / self.weights_.sum()", "return P / len(self.weights_)",
           "soft voting with unnormalised weights"),
    Mutant("vote-weights-ignored-soft", "book/06_voting_stacking.md", "ensemble_ref.VotingClassifier",
           "P = sum(w * member_proba(m, X, K)", "P = sum(1.0 * member_proba(m, X, K)",
           "soft voting that ignores the weights"),
    Mutant("hard-vote-unweighted", "book/06_voting_stacking.md", "ensemble_ref.VotingClassifier",
           "tally[np.arange(X.shape[0]), labels] += w", "tally[np.arange(X.shape[0]), labels] += 1.0",
           "a weighted hard vote that ignores the weights"),
    # --- sequential ensembles ---------------------------------------------------------------
    Mutant("alpha-without-half", "book/07_adaboost.md", "ensemble_ref.adaboost_alpha",
           "return 0.5 * nu * (np.log1p(-eps)", "return nu * (np.log1p(-eps)",
           "alpha_t = log((1 - eps_t) / eps_t), without the 1/2"),
    Mutant("adaboost-unnormalised", "book/07_adaboost.md", "ensemble_ref.adaboost_weights",
           "D = D / Z  # eq-adaboost-weights", "D = D  # eq-adaboost-weights",
           "AdaBoost's weights left unnormalised (no division by Z_t)"),
    Mutant("adaboost-z-bound", "book/07_adaboost.md", "ensemble_ref.adaboost_product_bound",
           "np.cumprod(2.0 * np.sqrt(eps * (1.0 - eps)))", "np.cumprod(np.sqrt(eps * (1.0 - eps)))",
           "Z_t = sqrt(eps(1 - eps)), without the factor 2"),
    Mutant("adaboost-exp-bound-exponent", "book/07_adaboost.md",
           "ensemble_ref.adaboost_exponential_bound",
           "np.exp(-2.0 * np.cumsum(gamma**2))", "np.exp(-np.cumsum(gamma**2))",
           "the training bound exp(-gamma^2 T), the wrong exponent"),
    Mutant("samme-no-log-k", "book/07_adaboost.md", "ensemble_ref.adaboost_alpha",
           "- np.log(eps) + np.log(K - 1.0))  # eq-adaboost-alpha",
           "- np.log(eps))  # eq-adaboost-alpha",
           "the multi-class vote without log(K - 1) (AdaBoost.M1's vote in SAMME)"),
    Mutant("gb-abs-leaf-mean", "book/08_gradient_boosting.md", "ensemble_ref.GradientBoostingRegressor",
           "value[leaf] = formulas._weighted_median(y[idx] - F[idx], sw[idx])",
           "value[leaf] = np.average(y[idx] - F[idx], weights=sw[idx])",
           "the absolute-error leaf value as the mean residual, not the median"),
    Mutant("gb-newton-uphill", "book/08_gradient_boosting.md", "ensemble_ref.GradientBoostingClassifier",
           "formulas._newton_step(r[idx], hessian(", "formulas._newton_step(-r[idx], hessian(",
           "the log-loss leaf step along the gradient (uphill)"),
    Mutant("gb-residual-sign", "book/08_gradient_boosting.md", "ensemble_ref.GradientBoostingRegressor",
           'r = -L.unchecked("gradient")(y, F)', 'r = L.unchecked("gradient")(y, F)',
           "pseudo-residuals as the gradient, not the negative gradient"),
    Mutant("gb-newton-leaf-mean", "book/08_gradient_boosting.md", "ensemble_ref.newton_leaf_value",
           "return float(numerator / denominator)", "return float(numerator / np.sum(w))",
           "the leaf value of the log loss as the mean residual (no Hessian)"),
    Mutant("gb-step-squared", "book/08_gradient_boosting.md", "ensemble_ref.squared_error_step",
           "return float(r @ h) / hh", "return float(r @ h) / np.sqrt(hh)",
           "the squared-error line search divided by |h| instead of |h|^2"),
    Mutant("gain-unsquared", "book/09_xgboost.md", "ensemble_ref.split_gain",
           "return G**2 / (H + lam)", "return G / (H + lam)",
           "the split gain without the square on G"),
    Mutant("gain-HL-right", "book/09_xgboost.md", "ensemble_ref.split_gain",
           "_score(G_L, H_L, lam) + _score(G_R, H_R, lam) - parent",
           "_score(G_L, H_L, lam) + _score(G_R, H_L, lam) - parent",
           "H_L used for the right child in the gain"),
    Mutant("leaf-weight-no-lambda", "book/09_xgboost.md", "ensemble_ref.leaf_weight",
           "return -G / (H + lam)  # eq-xgb-leaf-weight", "return -G / H  # eq-xgb-leaf-weight",
           "the leaf weight -G/H without lambda"),
    Mutant("structure-score-no-half", "book/09_xgboost.md", "ensemble_ref.structure_score",
           "-0.5 * np.sum(_score(G, H, lam))", "-np.sum(_score(G, H, lam))",
           "the structure score without the 1/2"),
    Mutant("goss-no-factor", "book/09b_modern_boosting.md", "ensemble_ref.math.sampling.goss_weights",
           "w[rng.choice(rest, size=other_k, replace=False)] = factor",
           "w[rng.choice(rest, size=other_k, replace=False)] = 1.0",
           "GOSS without the factor (1 - a)/b on the sampled small-gradient rows"),
    Mutant("goss-ranks-by-g", "book/09b_modern_boosting.md", "ensemble_ref.math.sampling.goss_weights",
           "key = np.abs(g * h)  # LightGBM ranks by |g h|", "key = np.abs(g)  # LightGBM ranks by |g h|",
           "LightGBM's GOSS ranks the rows by |g| (the paper's rule), not by |g h|"),
    Mutant("ordered-ts-own-target", "book/09b_modern_boosting.md",
           "ensemble_ref.math.target_statistics.ordered_target_statistic",
           "before_sum = csum - y_sorted - np.where(", "before_sum = csum - np.where(",
           "the ordered target statistic includes the row's own target"),
    Mutant("sketch-unweighted", "book/09b_modern_boosting.md",
           "ensemble_ref.math.quantile_sketch.weighted_quantile_candidates",
           "mass = np.bincount(inverse, weights=h)", "mass = np.bincount(inverse).astype(float)",
           "the quantile sketch with unweighted ranks"),
    Mutant("softmax-hessian-factor", "book/09b_modern_boosting.md",
           "ensemble_ref.math.softmax_objective.softmax_hessian",
           "return float(factor) * p * (1.0 - p)", "return 2.0 * p * (1.0 - p)",
           "the cross-entropy's Hessian is xgboost's 2p(1 - p)"),
    Mutant("softmax-booster-gradient-sign", "book/09b_modern_boosting.md",
           "ensemble_ref.XGBClassifier",
           "g = softmax._gradient(p, np.eye(F.shape[1])[y])",
           "g = -softmax._gradient(p, np.eye(F.shape[1])[y])",
           "the booster's softmax trees fit y_ik - p_ik (the pseudo-residual) as the gradient"),
    Mutant("softmax-booster-book-hessian", "book/09b_modern_boosting.md",
           "ensemble_ref.XGBClassifier",
           "softmax._hessian(p, self.softmax_hessian_factor)", "softmax._hessian(p, 1.0)",
           "the booster's softmax Hessian is p(1 - p), not xgboost's 2p(1 - p)"),
    Mutant("subsample-left-out", "book/09b_modern_boosting.md",
           "ensemble_ref.math.sampling.subsample_rows",
           "max(1, int(round(rate * n)))  # eq-modern-subsample",
           "max(1, int(round((1 - rate) * n)))  # eq-modern-subsample",
           "subsample read as the fraction of rows left out of each tree"),
    Mutant("subsample-ignored", "book/09b_modern_boosting.md",
           "ensemble_ref.math.sampling.subsample_rows",
           "return np.arange(n) if k == n else", "return np.arange(n) if True else",
           "every tree of the booster grows on all the rows, whatever subsample"),
    # --- beyond ------------------------------------------------------------------------------
    Mutant("moe-responsibilities-unnormalised", "book/10_mixture_of_experts.md",
           "ensemble_ref.math.mixture.responsibilities",
           "return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))",
           "return np.exp(log_joint)",
           "responsibilities g_e p_e without dividing by the sum over experts"),
    Mutant("moe-balance-no-E", "book/10_mixture_of_experts.md",
           "ensemble_ref.math.mixture.load_balancing_loss",
           "return n_experts * float(f @ P)", "return float(f @ P)",
           "the Switch balancing loss without the factor E"),
    Mutant("moe-topk-unrenormalised", "book/10_mixture_of_experts.md",
           "ensemble_ref.math.mixture.top_k_route",
           "return experts, chosen / total", "return experts, chosen",
           "the top-k gate not renormalised over the chosen experts"),
    Mutant("switch-renormalised", "book/10_mixture_of_experts.md",
           "ensemble_ref.math.mixture.top_k_route",
           "    if not renormalise:\n        return experts, chosen", "    if False:\n        return experts, chosen",
           "the Switch Transformer's top-1 weight renormalised (always 1: the router gets no gradient)"),
    Mutant("hist-post-prunes", "book/09_xgboost.md",
           "ensemble_ref.trees.second_order_hist._HistScan",
           "if self.p.pre_prune:  # hist: xgboost splits only when loss_chg >= min_split_loss",
           "if False:  # hist: xgboost splits only when loss_chg >= min_split_loss",
           "gamma prunes after growth with every tree method (hist too)"),
    Mutant("exact-pre-prunes", "book/09_xgboost.md", "ensemble_ref.trees.second_order_scan._LevelScan",
           "if self.p.pre_prune and formulas._gain(bracket, self.p.gamma) < 0:",
           "if formulas._gain(bracket, self.p.gamma) < 0:",
           "gamma is early stopping with the exact method too"),
    Mutant("gain-above-gamma", "book/09_xgboost.md", "ensemble_ref.trees.second_order_tree._prune",
           "if both_leaves and formulas._gain(node.bracket32, gamma) < 0:",
           "if both_leaves and formulas._gain(node.bracket32, 2 * gamma) < 0:",
           "a split is kept only if Gain > gamma (gamma counted twice)"),
    # --- at scale ------------------------------------------------------------------------------
    Mutant("hist-allreduce-mean", "book/11_ensembles_at_scale.md", "ensemble_ref.math.histograms.sum_histograms",
           "return reduce(np.add, [a.astype(np.float64) for a in arrays])",
           "return reduce(np.add, [a.astype(np.float64) for a in arrays]) / len(arrays)",
           "the shard histograms averaged instead of summed (the all-reduce as a mean)"),
    Mutant("hist-numbers-no-hessian", "book/11_ensembles_at_scale.md",
           "ensemble_ref.math.histograms.histogram_numbers",
           "    out = m * d * B * 2.0", "    out = m * d * B * 1.0",
           "one number per bin: the all-reduce without the Hessian sums"),
    Mutant("hist-hessian-counts", "book/11_ensembles_at_scale.md",
           "ensemble_ref.math.histograms.gradient_histogram",
           "H = _bin_sums(flat, np.repeat(h[keep], d), size)", "H = _bin_sums(flat, None, size)",
           "the Hessian sums of a histogram replaced by row counts (right only when h = 1)"),
    Mutant("half-square-dropped", "book/appendix/formulas_to_libraries.md",
           "ensemble_ref.squared_error",
           "return 0.5 * (y - F) ** 2", "return (y - F) ** 2",
           "the book's squared error taken as the whole square (y - F)^2"),
]


def _source_file(target: str) -> Path:
    """The file of ensemble_ref that defines ``target`` (relative to the package)."""
    module, _, name = target.rpartition(".")
    obj = getattr(importlib.import_module(module), name)
    path = Path(inspect.getsourcefile(obj)).resolve()
    return path.relative_to((ROOT / "ensemble_ref").resolve())


def apply(mutant: Mutant, package_copy: Path) -> Path:
    """Rewrite the mutant's formula in a copy of the package; the file changed."""
    relative = _source_file(mutant.target)
    path = package_copy / relative
    text = path.read_text()
    count = text.count(mutant.old)
    if count != 1:
        raise RuntimeError(f"mutant {mutant.id}: the formula {mutant.old!r} occurs {count} times "
                           f"in ensemble_ref/{relative} (expected once); update the mutant.")
    path.write_text(text.replace(mutant.old, mutant.new))
    return relative


_RELOAD = """
import sys
for _name in [n for n in sys.modules if n == "ensemble_ref" or n.startswith("ensemble_ref.")]:
    del sys.modules[_name]
sys.path[:] = [p for p in sys.path if not p.startswith({prefix!r})]
sys.path.insert(0, {path!r})
import ensemble_ref
assert ensemble_ref.__file__.startswith({path!r}), ensemble_ref.__file__
"""


# A rewrite of the code that leaves every value as it was (lam**2 and lam * lam are the
# same correctly rounded product): the chapter must survive it, or the harness would
# "kill" every mutant whatever it changed.
CONTROL = Mutant("control-harmless", "book/03_wisdom_of_crowds.md", "ensemble_ref.cantelli_bound",
                 "var / (var + lam**2))  # eq-cantelli", "var / (var + lam * lam))  # eq-cantelli",
                 "nothing: lam**2 is written lam * lam")


_CHECKPOINTS = """# mutant checkpoints
import sys
sys.path.insert(0, {tools!r})
import mutant_checkpoints
sys.path.remove({tools!r})
mutant_checkpoints.install({mutants!r}, {cells!r}, {results!r}, timeout={timeout!r})
"""
FINISH = """# mutant checkpoints
import json
print(json.dumps(mutant_checkpoints.finish()))
"""


def _execute_aside(client, cell):
    """Execute a cell that is not the notebook's (nbclient stores a cell it executes at the
    index given: the notebook's first cell is put back)."""
    first = client.nb.cells[0]
    try:
        client.execute_cell(cell, 0, store_history=False)
    finally:
        client.nb.cells[0] = first
    return cell


def _spec(mutant: Mutant) -> dict:
    return {"id": mutant.id, "target": mutant.target, "old": mutant.old, "new": mutant.new}


def checkpoint_setup(mutants: list[Mutant], cells: list[str], results: str, timeout: int = 600) -> str:
    """The code a chapter's kernel runs, before its first cell, to serve ``mutants`` from
    checkpoints; ``cells`` are the chapter's code cells in order."""
    return _CHECKPOINTS.format(tools=str(ROOT / "tools"), mutants=[_spec(m) for m in mutants],
                               cells=cells, results=results, timeout=timeout)


def result(mutant: Mutant, outcome: dict, how: str) -> dict:
    return {"id": mutant.id, "chapter": mutant.chapter,
            "file": f"ensemble_ref/{_source_file(mutant.target)}",
            "error": mutant.error, "killed": bool(outcome.get("killed")),
            "raised": outcome.get("raised", ""), "how": how,
            "from_cell": outcome.get("from_cell"), "timeout": bool(outcome.get("timeout")),
            "died": outcome.get("died"),
            "seconds": outcome.get("seconds", 0.0)}


def execute_with_mutants(client, nb, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """Execute ``nb`` (unmutated; its outputs are kept) with ``client``, whose kernel must be
    set up, and run ``mutants`` from checkpoints of that execution (``mutant_checkpoints``).

    Mutants a checkpoint cannot serve are run afterwards by :func:`run_full`. Raises
    :class:`nbclient.exceptions.CellExecutionError` if the unmutated chapter fails.
    """
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    with tempfile.TemporaryDirectory(prefix="mutants-") as results:
        _execute_aside(client, nbformat_cell(checkpoint_setup(mutants, cells, results, timeout)))
        for index, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                client.execute_cell(cell, index)
        report = json.loads(_execute_aside(client, nbformat_cell(FINISH)).outputs[0]["text"])
    chapter = mutants[0].chapter if mutants else ""
    return collect(chapter, mutants, report, timeout)


def collect(chapter: str, mutants: list[Mutant], report: dict, timeout: int = 600) -> list[dict]:
    """The mutants' results from the checkpoints' ``report`` (``FINISH``'s output); the
    mutants no checkpoint could serve are run the long way (:func:`run_full`)."""
    if report["error"]:
        raise RuntimeError(f"mutation checkpoints: {report['error']}")
    out, full = [], []
    for mutant in mutants:
        outcome = report["mutants"][mutant.id]
        if "fallback" in outcome:
            full.append(mutant)
        else:
            out.append(result(mutant, outcome, "checkpoint"))
    for result_ in run_full(chapter, full, timeout) if full else []:
        out.append({**result_, "how": f"full run ({report['mutants'][result_['id']]['fallback']})"})
    return out


def run_chapter(chapter: str, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """Execute ``chapter`` once, unmutated, and every mutant from its checkpoints."""
    import jupytext
    from nbclient import NotebookClient

    source = ROOT / chapter
    nb = jupytext.read(source)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(source.parent)}})
    with client.setup_kernel(env=_kernel_env()):
        return execute_with_mutants(client, nb, mutants, timeout)


def _kernel_env() -> dict:
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop("ENSEMBLES_VERIFIED_LEDGER", None)  # a mutant writes no ledger
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"  # no thread pools: a checkpoint (a fork) can use the libraries
    return env


def run_full(chapter: str, mutants: list[Mutant], timeout: int = 600) -> list[dict]:
    """Execute ``chapter`` from its first cell once per mutant, in one kernel, each time
    against a mutated copy of the package (for mutants no checkpoint can serve).

    The kernel imports the third-party libraries once; before each run the package is
    dropped from ``sys.modules`` and the mutant's copy put first on ``sys.path``, so the
    chapter's own ``import ensemble_ref`` loads the mutated formula. A run stops at the
    first cell that raises: the mutant is killed.
    """
    import jupytext
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    source = ROOT / chapter
    nb = jupytext.read(source)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(source.parent)}})
    results = []
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp, client.setup_kernel(env=_kernel_env()):
        for mutant in mutants:
            start = time.perf_counter()
            copy = Path(tmp) / mutant.id
            shutil.copytree(ROOT / "ensemble_ref", copy / "ensemble_ref",
                            ignore=shutil.ignore_patterns("__pycache__"))
            apply(mutant, copy / "ensemble_ref")
            killed, error = False, ""
            try:
                _execute_aside(client, nbformat_cell(_RELOAD.format(prefix=tmp, path=str(copy))))
                for index, cell in enumerate(nb.cells):
                    if cell.cell_type == "code":
                        client.execute_cell(cell, index)
            except CellExecutionError as err:
                killed, error = True, getattr(err, "ename", type(err).__name__)
            results.append(result(mutant, {"killed": killed, "raised": error, "from_cell": 0,
                                            "seconds": round(time.perf_counter() - start, 1)},
                                   "full run"))
    return results


def nbformat_cell(source: str):
    import nbformat

    return nbformat.v4.new_code_cell(source)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", help="mutant ids to run")
    parser.add_argument("--chapter", help="run the mutants of one chapter (path of its .md)")
    parser.add_argument("--jobs", type=int, default=2, help="chapters run at once (default 2)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--with-control", action="store_true",
                        help="also run the harmless control rewrite, which must survive")
    parser.add_argument("--json", type=Path, help="write the results to this file")
    args = parser.parse_args(argv)
    selected = [m for m in MUTANTS if (not args.only or m.id in args.only)
                and (not args.chapter or m.chapter == args.chapter)]
    unknown = set(args.only or []) - {m.id for m in MUTANTS}
    if unknown:
        parser.error(f"unknown mutant ids: {sorted(unknown)}")
    if args.list:
        for m in selected:
            print(f"{m.id:<30} {m.chapter:<42} {m.error}")
        return 0
    sys.path.insert(0, str(ROOT))
    if args.with_control:
        selected.append(CONTROL)
    chapters: dict[str, list[Mutant]] = {}
    for m in selected:
        chapters.setdefault(m.chapter, []).append(m)
    groups = sorted(chapters.items(), key=lambda kv: -len(kv[1]))  # longest first
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = [r for group in pool.map(lambda kv: run_chapter(*kv), groups) for r in group]
    for r in results:
        verdict = f"killed ({r['raised']})" if r["killed"] else "SURVIVED"
        print(f"{r['id']:<30} {verdict:<22} {r['seconds']:>6.1f} s  {r['chapter']}")
    control = [r for r in results if r["id"] == CONTROL.id]
    results = [r for r in results if r["id"] != CONTROL.id]
    killed = sum(r["killed"] for r in results)
    print(f"{killed} of {len(results)} mutants killed")
    if control:
        print(f"the harmless control {'was KILLED' if control[0]['killed'] else 'survived'}")
    if args.json:
        args.json.write_text(json.dumps(results + control, indent=1))
    return 0 if killed == len(results) and not any(r["killed"] for r in control) else 1


if __name__ == "__main__":
    sys.exit(main())
