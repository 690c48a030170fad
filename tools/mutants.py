"""The mutants of the book: one deliberate error each in one function of ``ensemble_ref``.

A mutant is keyed by the function it replaces: its qualified name in the module that
defines it (``ensemble_ref.math.crowds.cantelli_bound``, or for a method
``ensemble_ref.ensembles.voting.VotingClassifier.predict``), never a re-export. The
replacement is the original function with one explicit change of its syntax tree:
the expression (or statement) ``old`` of its body, which must occur there exactly
once, becomes ``new``. ``old`` and ``new`` are code, parsed and compared as syntax
trees, so the function's layout, line breaks, comments and redundant parentheses
play no part; the mutant stops applying only if the function no longer computes
``old`` or is renamed, and then says so. Sixteen of them are the errors that the
spot-the-bug exercises hand out (:meth:`Mutant.of_bug`, from
``ensembles_verified.spot_the_bug``). Most errors are a statement the course notes
made or a slip a careful reader could make (a gain without the square on G,
``(1 - 1/N)^N`` read as the fraction picked, ``alpha`` without the 1/2, ...).

:meth:`Mutant.apply` substitutes the replacement in place: the original function
object's ``__code__`` becomes the mutated code (``ensembles_verified/substitution.py``), so every
reference to it runs the mutant; :meth:`Mutant.restore` puts the original code back.
The chapter that states the formula must then stop with an error (normally a failing
claim, :class:`ensembles_verified.ClaimError`); ``tools/mutate_book.py`` runs them.
"""

from __future__ import annotations

import ast
import contextlib
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ensembles_verified import substitution
from ensembles_verified.spot_the_bug import BUGS, Bug


@dataclass(frozen=True)
class Mutant:
    """One deliberate error in one function, and the chapter that must notice it."""

    id: str
    chapter: str  # the chapter (MyST notebook) that states the formula
    key: str      # the function replaced: its qualified name in its defining module
    old: str      # an expression or statement of its body, occurring there once
    new: str      # what the mutant computes instead
    error: str    # the false statement the mutant encodes

    @classmethod
    def of_bug(cls, id: str, bug: Bug, error: str) -> Mutant:
        """The mutant of a spot-the-bug exercise: its function and its error, as the exercise
        hands them out (``ensembles_verified.spot_the_bug``); the chapter must stop on it."""
        return cls(id, bug.chapter, bug.key, bug.old, bug.new, error)

    def function(self) -> types.FunctionType:
        """The function the mutant replaces (imports its module)."""
        return substitution.resolve(self.key)

    def transform(self, node: ast.FunctionDef) -> None:
        """Rewrite the syntax tree of the function's definition into the mutant's."""
        try:
            substitution.edit(node, self.old, self.new)
        except LookupError as exc:
            raise LookupError(f"mutant {self.id}: {exc} Update the mutant.") from None

    def code(self) -> types.CodeType:
        """The mutated code, compiled in the function's module and class."""
        return substitution.rewrite(self.function(), self.transform)

    def replacement(self) -> types.FunctionType:
        """The mutant as a function object of its own (the original is left as it is)."""
        return substitution.replacement(self.function(), self.code())

    def apply(self) -> None:
        """Substitute the mutant for the function, in place, until :meth:`restore`."""
        function = self.function()
        _ORIGINAL_CODE.setdefault(self.key, function.__code__)
        function.__code__ = self.code()

    def restore(self) -> None:
        """Give the function back its original code."""
        if self.key in _ORIGINAL_CODE:
            self.function().__code__ = _ORIGINAL_CODE.pop(self.key)

    @contextlib.contextmanager
    def applied(self) -> Iterator[types.FunctionType]:
        """The mutant substituted while the block runs."""
        function = self.function()
        with substitution.substituted(function, self.code()):
            yield function

    def file(self) -> str:
        """The source file of the function, relative to its package's folder's parent."""
        module, _ = substitution.split_key(self.key)
        package = sys.modules[module.__name__.split(".")[0]]
        return Path(module.__file__).resolve().relative_to(
            Path(package.__file__).resolve().parents[1]).as_posix()


_ORIGINAL_CODE: dict[str, types.CodeType] = {}

_CROWDS, _BV = "ensemble_ref.math.crowds", "ensemble_ref.math.bias_variance"
_ADA, _SO = "ensemble_ref.math.adaboost", "ensemble_ref.math.second_order"
_GB = "ensemble_ref.ensembles.gradient_boosting._BaseGradientBoosting"
_SAMPLING, _MIX, _HIST = "ensemble_ref.math.sampling", "ensemble_ref.math.mixture", "ensemble_ref.math.histograms"
_CH1, _CH2, _CH3 = "book/01_introduction.md", "book/02_bias_variance.md", "book/03_wisdom_of_crowds.md"
_CH10, _CH11, _CH12 = "book/10_xgboost.md", "book/11_modern_boosting.md", "book/12_mixture_of_experts.md"

MUTANTS = [
    # --- why ensembles work ---------------------------------------------------------------
    Mutant.of_bug("majority-ties", BUGS["ex-bug-intro"],
                  'a tied vote counts as a wrong majority (ties go against the crowd)'),
    Mutant("majority-ties-as-right", _CH1, f"{_CROWDS}._majority_tail",
           "tie_weight * pmf[:, 2 * t == n].sum(axis=1)", "0.0 * pmf[:, 2 * t == n].sum(axis=1)",
           "a tied vote counts as a right majority"),
    Mutant("var-average-independent", _CH2, f"{_BV}.variance_of_average",
           "rho_arr * s2 + (1 - rho_arr) * s2 / M_arr", "s2 / M_arr",
           "the variance of an average is sigma^2/M whatever the correlation"),
    Mutant("bv-variance-ddof0", _CH2, f"{_BV}.decompose_predictions",
           "P.var(axis=0, ddof=1)", "P.var(axis=0, ddof=0)",
           "the variance across training sets with divisor R instead of R - 1"),
    Mutant("crowd-bound-chebyshev", _CH3, f"{_CROWDS}.majority_lower_bound",
           "delta**2 / (sigma2 + delta**2)", "1 - sigma2 / delta**2",
           "the crowd's accuracy bound from Chebyshev instead of Cantelli"),
    Mutant.of_bug("var-average-1-over-M", BUGS["ex-bug-bv"],
                  'the variance of an average with 1/M on the correlated part'),
    Mutant("bv-total-no-noise", _CH2, f"{_BV}.decompose_predictions",
           "bias2.mean() + s2.mean() + sigma**2", "bias2.mean() + s2.mean()",
           "a bias-variance total without the noise term, which does not add up"),
    Mutant("bv-bias-uncorrected", _CH2, f"{_BV}.decompose_predictions",
           "(f_bar - f_test) ** 2 - s2 / R", "(f_bar - f_test) ** 2",
           "the squared bias of the Monte Carlo mean taken as the squared bias (no s^2/R correction)"),
    Mutant("condorcet-exponent", _CH3, f"{_CROWDS}.condorcet_bound", "T / 2.0", "T / 4.0",
           "Condorcet's bound with half the exponent (a bound that is wrong but still above)"),
    Mutant.of_bug("cantelli-as-chebyshev", BUGS["ex-bug-crowds"],
                  "the one-sided bound taken as Chebyshev's var / lambda^2"),
    Mutant("crowd-variance-no-1-over-n", _CH3, f"{_CROWDS}.mean_vote_variance",
           "v / n + (n - 1) / n * c * v", "v / n + c * v",
           "the variance of the mean vote without the (n - 1)/n factor on the correlation"),
    # --- the base learner ------------------------------------------------------------------
    Mutant.of_bug("gini-unsquared", BUGS["ex-bug-tree"],
                  'the Gini impurity as 1 - sum_k p_k, without the squares (0 for every node)'),
    Mutant("entropy-in-nats", "book/04_decision_trees.md", "ensemble_ref.math.impurity.entropy_impurity",
           "p * (np.log(p) / np.log(2.0))", "p * np.log(p)",
           "the entropy in nats where the book (and its splits' reported values) use bits"),
    # --- parallel ensembles -----------------------------------------------------------------
    Mutant.of_bug("oob-picked", BUGS["ex-bug-oob"],
                  '(1 - 1/N)^N read as the fraction of points picked'),
    Mutant("oob-regression-average", "book/05_bagging_oob.md",
           "ensemble_ref.ensembles.bagging.BaggingRegressor._set_oob",
           "aggregation._oob_mean(total[:, 0], n_oob)",
           "aggregation._oob_mean(total[:, 0], np.full_like(n_oob, len(self.estimators_)))",
           "the regression OOB prediction averaged over all M members instead of the OOB ones"),
    Mutant("oob-mixture-unnormalised", "book/05_bagging_oob.md",
           "ensemble_ref.math.aggregation.oob_expected_error", "pi @ R / pi.sum(axis=1)", "pi @ R",
           "the OOB mixture without conditioning on the point having an OOB member"),
    Mutant("oob-gap-upper-2N", "book/05_bagging_oob.md", "ensemble_ref.math.bootstrap.oob_gap_bounds",
           "np.expm1(-1.0 / (2.0 * (N - 1.0)))", "np.expm1(-1.0 / (2.0 * N))",
           "the upper bound on the OOB gap with 2N in place of 2(N - 1)"),
    Mutant.of_bug("rf-blind-with-replacement", BUGS["ex-bug-rf"],
                  'the candidate features drawn with replacement, ((d - k)/d)^m'),
    Mutant("mdi-unweighted", "book/06_random_forests.md", "ensemble_ref.math.importance.tree_mdi",
           "w[split] * impurity[split] - w[l] * impurity[l] - w[r] * impurity[r]",
           "impurity[split] - (w[l] * impurity[l] + w[r] * impurity[r]) / w[split]",
           "impurity importance without the node's weighted sample count w_t"),
    Mutant("mdi-forest-unnormalised-trees", "book/06_random_forests.md",
           "ensemble_ref.math.importance.forest_mdi", "tree_mdi(t, d)", "tree_mdi(t, d, normalize=False)",
           "a forest's MDI averages its trees' unnormalised MDIs (gradient boosting's rule), so a tree "
           "with a larger root impurity counts more"),
    Mutant.of_bug("ece-unweighted-bins", BUGS["ex-bug-vote"],
                  "the expected calibration error as the plain mean of the bins' gaps, without the weights n_b/n"),
    Mutant("soft-vote-unnormalised", "book/07_voting_stacking.md",
           "ensemble_ref.ensembles.voting.VotingClassifier._predict_proba",
           "P / self.weights_.sum()", "P / len(self.weights_)",
           "soft voting with unnormalised weights"),
    Mutant("vote-weights-ignored-soft", "book/07_voting_stacking.md",
           "ensemble_ref.ensembles.voting.VotingClassifier._predict_proba",
           "w * member_proba(m, X, K)", "1.0 * member_proba(m, X, K)",
           "soft voting that ignores the weights"),
    Mutant("hard-vote-unweighted", "book/07_voting_stacking.md",
           "ensemble_ref.ensembles.voting.VotingClassifier.predict",
           "tally[np.arange(X.shape[0]), labels] += w", "tally[np.arange(X.shape[0]), labels] += 1.0",
           "a weighted hard vote that ignores the weights"),
    # --- sequential ensembles ---------------------------------------------------------------
    Mutant("alpha-without-half", "book/08_adaboost.md", f"{_ADA}._alpha", "0.5 * nu", "nu",
           "alpha_t = log((1 - eps_t) / eps_t), without the 1/2"),
    Mutant("adaboost-unnormalised", "book/08_adaboost.md", f"{_ADA}._reweight", "D / Z", "D",
           "AdaBoost's weights left unnormalised (no division by Z_t)"),
    Mutant("adaboost-z-bound", "book/08_adaboost.md", f"{_ADA}.adaboost_product_bound",
           "2.0 * np.sqrt(eps * (1.0 - eps))", "np.sqrt(eps * (1.0 - eps))",
           "Z_t = sqrt(eps(1 - eps)), without the factor 2"),
    Mutant("adaboost-exp-bound-exponent", "book/08_adaboost.md", f"{_ADA}.adaboost_exponential_bound",
           "-2.0 * np.cumsum(gamma**2)", "-np.cumsum(gamma**2)",
           "the training bound exp(-gamma^2 T), the wrong exponent"),
    Mutant.of_bug("samme-no-log-k", BUGS["ex-bug-adaboost"],
                  "the multi-class vote without log(K - 1) (AdaBoost.M1's vote in SAMME)"),
    Mutant("gb-abs-leaf-mean", "book/09_gradient_boosting.md", f"{_GB}._set_leaf_values",
           "formulas._weighted_median(y[idx] - F[idx], sw[idx])",
           "np.average(y[idx] - F[idx], weights=sw[idx])",
           "the absolute-error leaf value as the mean residual, not the median"),
    Mutant("gb-newton-uphill", "book/09_gradient_boosting.md", f"{_GB}._set_leaf_values",
           "formulas._newton_step(r[idx], hessian(y[idx], F[idx]), sw[idx])",
           "formulas._newton_step(-r[idx], hessian(y[idx], F[idx]), sw[idx])",
           "the log-loss leaf step along the gradient (uphill)"),
    Mutant("gb-residual-sign", "book/09_gradient_boosting.md", f"{_GB}._boost",
           '-L.unchecked("gradient")(y, F)', 'L.unchecked("gradient")(y, F)',
           "pseudo-residuals as the gradient, not the negative gradient"),
    Mutant.of_bug("gb-newton-leaf-mean", BUGS["ex-bug-gb"],
                  'the leaf value of the log loss as the mean residual (no Hessian)'),
    Mutant("gb-step-squared", "book/09_gradient_boosting.md",
           "ensemble_ref.math.boosting_theory.squared_error_step",
           "float(r @ h) / hh", "float(r @ h) / np.sqrt(hh)",
           "the squared-error line search divided by |h| instead of |h|^2"),
    Mutant("population-minimizer-log-odds", "book/08_adaboost.md",
           "ensemble_ref.math.boosting_theory._half_log_odds",
           "0.5 * np.log(p / (1 - p))", "np.log(p / (1 - p))",
           "the exponential loss's population minimiser is the log-odds itself, not half of it"),
    Mutant("stagewise-signed-argmax", "book/09_gradient_boosting.md",
           "ensemble_ref.math.boosting_theory._stagewise_step", "np.abs(c)", "c",
           "stagewise steps on the largest correlation, not the largest in absolute value"),
    Mutant("stagewise-always-up", "book/09_gradient_boosting.md",
           "ensemble_ref.math.boosting_theory._stagewise_step", "s * np.sign(c[j])", "s",
           "stagewise always raises the chosen coefficient, whatever the sign of its correlation"),
    Mutant("mixed-difference-unsigned", "book/09_gradient_boosting.md",
           "ensemble_ref.math.boosting_theory._mixed_difference",
           "values[1] - values[0]", "values[1] + values[0]",
           "the mixed difference without its alternating signs (the corners summed)"),
    Mutant("gain-unsquared", _CH10, f"{_SO}._score", "G**2 / (H + lam)", "G / (H + lam)",
           "the split gain without the square on G"),
    Mutant.of_bug("gain-HL-right", BUGS["ex-bug-xgb"],
                  'H_L used for the right child in the gain'),
    Mutant("leaf-weight-no-lambda", _CH10, f"{_SO}._leaf_weight", "-G / (H + lam)", "-G / H",
           "the leaf weight -G/H without lambda"),
    Mutant("structure-score-no-half", _CH10, f"{_SO}.structure_score",
           "-0.5 * np.sum(_score(G, H, lam))", "-np.sum(_score(G, H, lam))",
           "the structure score without the 1/2"),
    Mutant.of_bug("goss-no-factor", BUGS["ex-bug-modern"],
                  'GOSS without the factor (1 - a)/b on the sampled small-gradient rows'),
    Mutant("goss-ranks-by-g", _CH11, f"{_SAMPLING}.goss_weights", "np.abs(g * h)", "np.abs(g)",
           "LightGBM's GOSS ranks the rows by |g| (the paper's rule), not by |g h|"),
    Mutant("ordered-ts-own-target", _CH11, "ensemble_ref.math.target_statistics.ordered_target_statistic",
           "csum - y_sorted", "csum",
           "the ordered target statistic includes the row's own target"),
    Mutant("sketch-unweighted", _CH11, "ensemble_ref.math.quantile_sketch.weighted_quantile_candidates",
           "np.bincount(inverse, weights=h)", "np.bincount(inverse).astype(float)",
           "the quantile sketch with unweighted ranks"),
    Mutant("softmax-hessian-factor", _CH11, "ensemble_ref.math.softmax_objective._hessian",
           "float(factor)", "2.0",
           "the cross-entropy's Hessian is xgboost's 2p(1 - p)"),
    Mutant("softmax-booster-gradient-sign", _CH11,
           "ensemble_ref.ensembles.xgboost_style.XGBClassifier._gradients",
           "softmax._gradient(p, np.eye(F.shape[1])[y])", "-softmax._gradient(p, np.eye(F.shape[1])[y])",
           "the booster's softmax trees fit y_ik - p_ik (the pseudo-residual) as the gradient"),
    Mutant("softmax-booster-book-hessian", _CH11,
           "ensemble_ref.ensembles.xgboost_style.XGBClassifier._gradients",
           "softmax._hessian(p, self.softmax_hessian_factor)", "softmax._hessian(p, 1.0)",
           "the booster's softmax Hessian is p(1 - p), not xgboost's 2p(1 - p)"),
    Mutant("subsample-left-out", _CH11, f"{_SAMPLING}._subsample_count", "rate * n", "(1 - rate) * n",
           "subsample read as the fraction of rows left out of each tree"),
    Mutant("subsample-ignored", _CH11, f"{_SAMPLING}._subsample_rows", "k == n", "True",
           "every tree of the booster grows on all the rows, whatever subsample"),
    # --- beyond ------------------------------------------------------------------------------
    Mutant("moe-responsibilities-unnormalised", _CH12, f"{_MIX}.responsibilities",
           "_softmax(_log_joint(gate, log_density))", "np.exp(_log_joint(gate, log_density))",
           "responsibilities g_e p_e without dividing by the sum over experts"),
    Mutant("moe-balance-no-E", _CH12, f"{_MIX}.load_balancing_loss", "n_experts * float(f @ P)",
           "float(f @ P)", "the Switch balancing loss without the factor E"),
    Mutant.of_bug("moe-topk-unrenormalised", BUGS["ex-bug-moe"],
                  'the top-k gate not renormalised over the chosen experts'),
    Mutant("switch-renormalised", _CH12, f"{_MIX}.top_k_route", "not renormalise", "False",
           "the Switch Transformer's top-1 weight renormalised (always 1: the router gets no gradient)"),
    Mutant("hist-post-prunes", _CH10, "ensemble_ref.trees.second_order_rules.select", "p.pre_prune", "False",
           "the penalty tau prunes after growth with every tree method (hist too)"),
    Mutant("exact-pre-prunes", _CH10, "ensemble_ref.trees.second_order_rules.select", "p.pre_prune", "True",
           "the penalty tau is early stopping with the exact method too"),
    Mutant("gain-above-tau", _CH10, "ensemble_ref.trees.second_order_tree._prune",
           "formulas._gain(node.bracket32, tau)", "formulas._gain(node.bracket32, 2 * tau)",
           "a split is kept only if Gain > tau (tau counted twice)"),
    # --- at scale ------------------------------------------------------------------------------
    Mutant("hist-allreduce-mean", "book/16_ensembles_at_scale.md", f"{_HIST}.sum_histograms",
           "reduce(np.add, [a.astype(np.float64) for a in arrays])",
           "reduce(np.add, [a.astype(np.float64) for a in arrays]) / len(arrays)",
           "the shard histograms averaged instead of summed (the all-reduce as a mean)"),
    Mutant("hist-numbers-no-hessian", "book/16_ensembles_at_scale.md", f"{_HIST}.histogram_numbers",
           "m * d * B * 2.0", "m * d * B * 1.0",
           "one number per bin: the all-reduce without the Hessian sums"),
    Mutant.of_bug("hist-hessian-counts", BUGS["ex-bug-scale"],
                  'the Hessian sums of a histogram replaced by row counts (right only when h = 1)'),
    Mutant("half-square-dropped", "book/appendix/formulas_to_libraries.md",
           "ensemble_ref.math.losses._squared_error", "0.5 * (y - F) ** 2", "(y - F) ** 2",
           "the book's squared error taken as the whole square (y - F)^2"),
    # --- diversity, selection and uncertainty ---------------------------------------------------
    Mutant("div-q-sums", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity._q_statistic",
           "(n11 * n00 - n01 * n10) / (n11 * n00 + n01 * n10)", "(n11 + n00 - n01 - n10) / (n11 + n00 + n01 + n10)",
           "Q as the share of agreements minus the share of disagreements (sums, not products)"),
    Mutant("div-disagreement-one-way", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity.disagreement",
           "(n01 + n10) / C.shape[1]", "n10 / C.shape[1]",
           "disagreement counts one direction only: the first member right, the second wrong"),
    Mutant("div-double-fault-both-right", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity.double_fault",
           "_pair_counts(C)[3] / C.shape[1]", "_pair_counts(C)[0] / C.shape[1]",
           "the double fault counts the points where both members are right"),
    Mutant("div-kappa-raw-agreement", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity.kappa_statistic",
           "(agree - chance) / (1.0 - chance)", "agree",
           "kappa is the raw agreement, without the correction for chance"),
    Mutant("div-ambiguity-sample-variance", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity.error_ambiguity",
           "float(np.mean(w @ (P - f_bar) ** 2))", "float(np.mean(w @ (P - f_bar) ** 2)) * M / (M - 1)",
           "the ambiguity as the members' sample variance (divisor M - 1)"),
    Mutant("div-ncl-sign", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity._ncl_gradient",
           "(P - y) - xi * (P - f_bar)", "(P - y) + xi * (P - f_bar)",
           "negative correlation learning pulls the members towards their average"),
    Mutant("div-selection-best-only", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.diversity.forward_selection",
           "np.mean(((total + P) / (s + 1) - y) ** 2, axis=1)", "np.mean((P - y) ** 2, axis=1)",
           "forward selection judges each candidate alone, not the average it joins"),
    Mutant("unc-evidence-no-fit", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.uncertainty.log_evidence_linear",
           "(y @ y - z @ z) / s2", "(y @ y) / s2",
           "the evidence's quadratic form without the part the model explains"),
    Mutant("unc-bma-uniform", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.uncertainty.bma_weights",
           "mixture._softmax((e + np.log(p))[None, :])[0]", "p",
           "Bayesian model averaging keeps the prior weights whatever the data"),
    Mutant.of_bug("unc-quantile-rank-n", BUGS["ex-bug-conformal"],
                  "the conformal quantile's rank ceil((1 - delta) n), without the test point's place"),
    Mutant("unc-split-signed", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.uncertainty.split_conformal_interval",
           "_conformal_quantile(np.abs(y - pred), _level(delta))", "_conformal_quantile(y - pred, _level(delta))",
           "split conformal scores the signed residuals"),
    Mutant("unc-jab-in-bag", "book/13_diversity_uncertainty.md",
           "ensemble_ref.math.uncertainty.jackknife_plus_after_bootstrap",
           "out = (~bag).astype(float)", "out = bag.astype(float)",
           "the jackknife+-after-bootstrap averages the members that drew point i at x"),
    Mutant.of_bug("real-booster-no-lambda", BUGS["ex-bug-real"],
                  "the second-order booster's leaf weight without lambda, on real data: its "
                  "probabilities are no longer xgboost's"),
    Mutant.of_bug("shap-extend-no-subset-weight", BUGS["ex-bug-shap"],
                  "TreeSHAP's EXTEND keeps a subset's weight when the path grows, without the "
                  "factor (l - i)/(l + 1) of the Shapley weights |S|!(d - |S| - 1)!/d!"),
]

# A rewrite that leaves every value as it was (lam**2 and lam * lam are the same correctly
# rounded product): the chapter must survive it, or the harness would "kill" every mutant
# whatever it changed.
CONTROL = Mutant("control-harmless", _CH3, f"{_CROWDS}.cantelli_bound", "lam**2", "lam * lam",
                 "nothing: lam**2 is written lam * lam")

_BY_ID = {m.id: m for m in [*MUTANTS, CONTROL]}


def by_id(mutant_id: str) -> Mutant:
    """The mutant (or the control) of that id."""
    return _BY_ID[mutant_id]
