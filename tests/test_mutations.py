"""The mutation test of the book: every mutant must make its chapter fail.

Each mutant (``tools/mutants.py``) replaces one function of ``ensemble_ref``, keyed
by its qualified name in the module that defines it, by the same function with one
deliberate error, and is applied by substituting the function's code in place. The
fast tests here check the mutants without executing a chapter: each key names a
function where it is defined, the mutant takes the same arguments and computes
something else, restoring gives the original back, and a rewrite of the function's
layout does not matter. The two book-level tests read the results of the mutants run
from the fresh environment's execution of the chapters (``tools/fresh_env.py``): a
mutant the chapter survives is a formula the book says it verifies but does not.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys

import numpy as np
import pytest

import ensemble_ref as er
from ensemble_ref.math import (
    adaboost,
    aggregation,
    bias_variance,
    boosting_theory,
    bootstrap,
    calibration,
    crowds,
    diversity,
    histograms,
    importance,
    impurity,
    losses,
    mixture,
    quantile_sketch,
    random_subspace,
    sampling,
    second_order,
    shapley,
    softmax_objective,
    target_statistics,
    uncertainty,
)
from ensemble_ref.math import gradient_boosting as gb_math
from ensembles_verified import substitution
from tools import mutant_checkpoints, mutate_book
from tools.chapters import ROOT, chapter_notebooks
from tools.mutants import CONTROL, MUTANTS, Mutant

EVERY = [*MUTANTS, CONTROL]


def test_mutants_cover_every_chapter_with_claims():
    covered = {m.chapter for m in MUTANTS}
    with_claims = [nb.with_suffix(".md") for nb in chapter_notebooks()
                   if re.search(r"Claims\(", nb.with_suffix(".md").read_text())]
    missing = [str(p.relative_to(ROOT)) for p in with_claims
               if str(p.relative_to(ROOT)) not in covered]
    assert not missing, f"chapters with claims but no mutant: {missing}"
    assert len(MUTANTS) >= 57
    assert len({m.id for m in EVERY}) == len(EVERY)
    assert mutate_book.MUTANTS is MUTANTS and mutate_book.CONTROL is CONTROL


@pytest.mark.parametrize("mutant", EVERY, ids=lambda m: m.id)
def test_a_mutant_is_keyed_by_its_function_where_it_is_defined(mutant):
    module, qualname = substitution.split_key(mutant.key)
    function = mutant.function()
    assert (function.__module__, function.__qualname__) == (module.__name__, qualname)
    assert inspect.getsourcefile(function) == inspect.getsourcefile(module)
    assert (ROOT / mutant.file()).is_file()


@pytest.mark.parametrize("mutant", EVERY, ids=lambda m: m.id)
def test_a_mutant_is_its_function_with_one_change(mutant):
    """Same signature, other code; its function compiled from its source without the
    change is the loaded function, byte for byte (so the mutant differs in the one change)."""
    function = mutant.function()
    replacement = mutant.replacement()
    assert inspect.signature(replacement) == inspect.signature(function)
    assert substitution.shape(replacement.__code__) != substitution.shape(function.__code__)
    assert substitution.shape(substitution.rewrite(function)) == substitution.shape(function.__code__)


@pytest.mark.parametrize("mutant", EVERY, ids=lambda m: m.id)
def test_a_mutant_is_applied_in_place_and_restored(mutant):
    function = mutant.function()
    original = function.__code__
    mutant.apply()
    try:
        assert substitution.shape(function.__code__) == substitution.shape(mutant.code())
        assert mutant.function() is function  # the same object, every reference to it
    finally:
        mutant.restore()
    assert function.__code__ is original
    with mutant.applied():
        assert function.__code__ is not original
    assert function.__code__ is original


_Y3 = np.array([0.5, -1.0, 2.0])
_CODES = np.array([[0, 1], [2, 1], [1, 0], [0, 2]])
_GATE = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]])
_P = np.array([[1.0, 2.0], [1.5, 1.0], [0.5, 2.5]])
# Three members right (1) or wrong (0) on six points; their labels; a small regression.
_RIGHT = np.array([[1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 1], [0, 1, 1, 0, 1, 0]])
_LABELS = np.array([[0, 1, 1, 2, 0, 1], [0, 1, 2, 2, 1, 1], [1, 1, 0, 2, 0, 0]])
_XR = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
_YR = np.array([0.1, 1.2, 1.9, 3.2])
_BAG = np.array([[True, False, True, False], [False, True, True, False], [True, True, False, True]])
_TREE = type("Tree", (), dict(children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
                              feature=np.array([0, -2, -2]), impurity=np.array([0.5, 0.2, 0.4]),
                              weighted_n_node_samples=np.array([10.0, 4.0, 6.0]), n_features=2))
_TREE_B = type("Tree", (), dict(children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
                                feature=np.array([1, -2, -2]), impurity=np.array([2.0, 0.5, 1.0]),
                                weighted_n_node_samples=np.array([10.0, 5.0, 5.0]), n_features=2))
# A depth-2 tree on two features (the root splits feature 0, its left child feature 1).
_SHAP_TREE = shapley.TreeArrays(children_left=np.array([1, 3, -1, -1, -1]),
                                children_right=np.array([2, 4, -1, -1, -1]),
                                feature=np.array([0, 1, -2, -2, -2]),
                                threshold=np.array([0.5, 0.5, 0.0, 0.0, 0.0]),
                                value=np.array([0.0, 0.0, 10.0, 40.0, -20.0]),
                                cover=np.array([10.0, 6.0, 4.0, 2.0, 4.0]))
# A small call through the function's public API, for each mutant of a formula that has one:
# the mutant must change its value, and the control must not.
PROBES = {
    "majority-ties": lambda: crowds.majority_error(0.6, 4),
    "majority-ties-as-right": lambda: crowds.majority_error(0.6, 4),
    "var-average-independent": lambda: bias_variance.variance_of_average(1.0, 0.25, 4),
    "var-average-1-over-M": lambda: bias_variance.variance_of_average(1.0, 0.25, 4),
    "bv-variance-ddof0": lambda: bias_variance.decompose_predictions(_P, [1.0, 2.0], 0.5).variance,
    "bv-total-no-noise": lambda: bias_variance.decompose_predictions(_P, [1.0, 2.0], 0.5).total,
    "bv-bias-uncorrected": lambda: bias_variance.decompose_predictions(_P, [1.0, 2.0], 0.5).bias2,
    "crowd-bound-chebyshev": lambda: crowds.majority_lower_bound(0.7, 0.2, 5),
    "condorcet-exponent": lambda: crowds.condorcet_bound(0.6, 5),
    "cantelli-as-chebyshev": lambda: crowds.cantelli_bound(2.0, [0.1, 0.3, 3.0]),
    "control-harmless": lambda: crowds.cantelli_bound(2.0, [0.1, 0.3, 3.0, 1e-3, 7.7]),
    "crowd-variance-no-1-over-n": lambda: crowds.mean_vote_variance(0.7, 0.2, 5),
    "gini-unsquared": lambda: impurity.gini_impurity([[3.0, 1.0]]),
    "entropy-in-nats": lambda: impurity.entropy_impurity([[3.0, 1.0]]),
    "oob-picked": lambda: bootstrap.oob_fraction_exact(10),
    "oob-mixture-unnormalised": lambda: aggregation.oob_expected_error(np.array([0.3, 0.2, 0.15]), 10),
    "oob-gap-upper-2N": lambda: bootstrap.oob_gap_bounds(10),
    "rf-blind-with-replacement": lambda: random_subspace.prob_no_informative(10, 3, 4),
    "mdi-unweighted": lambda: importance.tree_mdi(_TREE, normalize=False),
    "mdi-forest-unnormalised-trees": lambda: importance.forest_mdi([_TREE, _TREE_B], n_features=2),
    "shap-extend-no-subset-weight": lambda: shapley.tree_shap(_SHAP_TREE, [[0.2, 0.8]], 2),
    "ece-unweighted-bins": lambda: calibration.expected_calibration_error(
        [0, 1, 1, 0, 1], [0.1, 0.8, 0.6, 0.4, 0.95], n_bins=3),
    "alpha-without-half": lambda: adaboost.adaboost_alpha(0.2),
    "samme-no-log-k": lambda: adaboost.adaboost_alpha(0.2, n_classes=3),
    "adaboost-unnormalised": lambda: adaboost.adaboost_weights(np.full(3, 1 / 3), [1, -1, 1], [1, 1, 1], 0.5)[0],
    "adaboost-z-bound": lambda: adaboost.adaboost_product_bound([0.2, 0.3]),
    "adaboost-exp-bound-exponent": lambda: adaboost.adaboost_exponential_bound([0.2, 0.3]),
    "gb-newton-leaf-mean": lambda: gb_math.newton_leaf_value([0.5, -0.2], [0.25, 0.1]),
    "gb-step-squared": lambda: boosting_theory.squared_error_step([1.0, 2.0], [1.0, 1.0]),
    "population-minimizer-log-odds": lambda: boosting_theory.exponential_population_minimizer(0.8),
    "stagewise-signed-argmax": lambda: boosting_theory.forward_stagewise_path(np.eye(2), [-1.0, 0.5],
                                                                              0.25, 2),
    "stagewise-always-up": lambda: boosting_theory.forward_stagewise_path(np.eye(2), [-1.0, 0.5],
                                                                          0.25, 2),
    "mixed-difference-unsigned": lambda: boosting_theory.mixed_difference(
        lambda Z: Z[:, 0] * Z[:, 1], np.ones((2, 2)), [0, 1], [0.5, 0.5]),
    "gain-unsquared": lambda: second_order.split_gain(1.0, 2.0, -3.0, 4.0),
    "gain-HL-right": lambda: second_order.split_gain(1.0, 2.0, -3.0, 4.0),
    "leaf-weight-no-lambda": lambda: second_order.leaf_weight(1.0, 2.0),
    "real-booster-no-lambda": lambda: second_order.leaf_weight(1.0, 2.0),
    "structure-score-no-half": lambda: second_order.structure_score([1.0, 2.0], [3.0, 4.0]),
    "goss-no-factor": lambda: sampling.goss_weights(_Y3.tolist() * 4, 0.25, 0.25, random_state=0),
    "goss-ranks-by-g": lambda: sampling.goss_weights([3.0, 1.0, 2.0, 0.5], 0.25, 0.25, random_state=0,
                                                     hessians=[0.1, 1.0, 1.0, 1.0]),
    "ordered-ts-own-target": lambda: target_statistics.ordered_target_statistic(
        [0, 0, 1, 0], [1.0, 0.0, 1.0, 1.0], [0, 1, 2, 3], 0.5),
    "sketch-unweighted": lambda: quantile_sketch.weighted_quantile_candidates(
        [1.0, 2.0, 3.0, 4.0, 5.0], [10.0, 1.0, 1.0, 1.0, 1.0], 0.3),
    "softmax-hessian-factor": lambda: softmax_objective.softmax_hessian([[0.0, 1.0]], [1]),
    "subsample-left-out": lambda: sampling.subsample_rows(10, 0.3, random_state=0),
    "subsample-ignored": lambda: sampling.subsample_rows(10, 0.3, random_state=0),
    "moe-responsibilities-unnormalised": lambda: mixture.responsibilities(_GATE, np.log(_GATE[::-1])),
    "moe-balance-no-E": lambda: mixture.load_balancing_loss(_GATE, [0, 1]),
    "moe-topk-unrenormalised": lambda: mixture.top_k_route(_GATE, 2)[1],
    "switch-renormalised": lambda: mixture.top_k_route(_GATE, 1, renormalise=False)[1],
    "hist-allreduce-mean": lambda: histograms.sum_histograms([np.ones(3), np.ones(3)]),
    "hist-numbers-no-hessian": lambda: histograms.histogram_numbers(3, 8),
    "hist-hessian-counts": lambda: histograms.gradient_histogram(_CODES, [1.0, 2.0, 3.0, 4.0],
                                                                 [0.5, 0.5, 2.0, 1.0], 3),
    "half-square-dropped": lambda: losses.squared_error(1.0, 3.0),
    "div-q-sums": lambda: diversity.q_statistic(_RIGHT),
    "div-disagreement-one-way": lambda: diversity.disagreement(_RIGHT),
    "div-double-fault-both-right": lambda: diversity.double_fault(_RIGHT),
    "div-kappa-raw-agreement": lambda: diversity.kappa_statistic(_LABELS),
    "div-ambiguity-sample-variance": lambda: diversity.error_ambiguity(_P, [1.0, 2.0]).ambiguity,
    "div-ncl-sign": lambda: diversity.ncl_gradient(_P, [1.0, 2.0], 0.5),
    "div-selection-best-only": lambda: diversity.forward_selection(
        [[1.5, 1.5, 1.5], [2.6, 2.6, 2.6], [1.4, 1.4, 1.4]], [2.0, 2.0, 2.0], 2)[0],
    "unc-evidence-no-fit": lambda: uncertainty.log_evidence_linear(_XR, _YR, 0.5, 2.0),
    "unc-bma-uniform": lambda: uncertainty.bma_weights([-3.0, -1.0, -2.0]),
    "unc-quantile-rank-n": lambda: uncertainty.conformal_quantile(np.arange(1.0, 10.0), 0.25),
    "unc-split-signed": lambda: uncertainty.split_conformal_interval(
        [0.0, 0.0, 0.0, 0.0, 0.0], [-3.0, -2.0, 1.0, -4.0, 0.5], [0.0], 0.2)[1],
    "unc-jab-in-bag": lambda: np.concatenate(uncertainty.jackknife_plus_after_bootstrap(
        [[0.0, 1.0, 2.0, 3.0], [0.2, 1.1, 1.8, 3.1], [0.1, 0.9, 2.2, 2.9]],
        [[0.0], [1.0], [5.0]], _BAG, _YR, 0.2)),
}


@pytest.mark.parametrize("mutant", [m for m in EVERY if m.id in PROBES], ids=lambda m: m.id)
def test_a_mutant_changes_what_its_function_computes(mutant):
    before = np.asarray(PROBES[mutant.id](), dtype=float)
    with mutant.applied():
        mutated = np.asarray(PROBES[mutant.id](), dtype=float)
    after = np.asarray(PROBES[mutant.id](), dtype=float)
    assert np.array_equal(after, before)
    if mutant is CONTROL:
        assert np.array_equal(mutated, before), "the harmless control changed a value"
    else:
        assert mutated.shape != before.shape or not np.allclose(mutated, before, rtol=1e-12, atol=0), \
            f"{mutant.id} does not change {mutant.key} on the probe"


def test_most_mutants_of_a_formula_are_probed():
    functions = [m for m in MUTANTS if "." not in substitution.split_key(m.key)[1]]
    assert len([m for m in functions if m.id in PROBES]) >= len(functions) - 4
    assert set(PROBES) <= {m.id for m in EVERY}


# --- the substitution itself, on a module of its own ------------------------------------------

SYNTHETIC = '''
import math

SCALE = 2.0


def outer(x, *, k=3):
    def inner(y):
        return y * SCALE  # inner-formula
    return inner(x) + k


class Base:
    def __init__(self):
        self.__w = 3.0


class Model(Base):
    def __init__(self):
        super().__init__()
        self.__secret = 5.0

    @property
    def weight(self):
        return self.__secret * math.sqrt(4.0)

    @staticmethod
    def twice(x):
        return 2 * x


def square(x):
    return x * x


alias = square  # the same function under another name
'''
# The same module laid out otherwise: other line breaks, comments and parentheses.
REFORMATTED = SYNTHETIC.replace('''    def inner(y):
        return y * SCALE  # inner-formula
    return inner(x) + k''', '''    def inner(y):
        # the formula, on lines of its own
        return (y
                * SCALE)
    return (inner(x)
            + k)''')


@pytest.fixture
def synthetic(tmp_path, monkeypatch):
    """Import a module from source text, as ``name`` (only for the test)."""
    def load(name: str, source: str = SYNTHETIC):
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        return module
    return load


def test_a_substituted_function_runs_the_mutant_wherever_it_is_referenced(synthetic):
    module = synthetic("synthetic_outer")
    alias = module.outer  # as `from synthetic_outer import outer` elsewhere
    mutant = Mutant("m", "", "synthetic_outer.outer", "y * SCALE", "y / SCALE", "")
    assert alias(4.0) == 11.0
    with mutant.applied():
        assert alias(4.0) == 5.0 and alias(4.0, k=1) == 3.0  # the module's SCALE, the original's defaults
        module.SCALE = 4.0
        assert alias(4.0) == 4.0  # names are looked up in the original module's globals
    assert alias(4.0) == 19.0


def test_a_mutant_ignores_the_layout_of_its_function(synthetic):
    mutant = Mutant("m", "", "synthetic_layout.outer", "y * SCALE", "y / SCALE", "")
    synthetic("synthetic_layout")
    code = mutant.code()
    synthetic("synthetic_layout", REFORMATTED)
    assert substitution.shape(mutant.code()) == substitution.shape(code)


@pytest.mark.parametrize("key, old, new, check", [
    ("Model.__init__", "5.0", "6.0", lambda m: m.Model().weight == 12.0 and m.Model()._Base__w == 3.0),
    ("Model.weight", "math.sqrt(4.0)", "math.sqrt(9.0)", lambda m: m.Model().weight == 15.0),
    ("Model.twice", "2 * x", "3 * x", lambda m: m.Model.twice(2) == 6 and m.Model().twice(1) == 3),
])
def test_methods_properties_and_static_methods_are_substituted(synthetic, key, old, new, check):
    module = synthetic("synthetic_methods")
    mutant = Mutant("m", "", f"synthetic_methods.{key}", old, new, "")
    with mutant.applied():
        assert check(module)  # super() and the private names work as in the class
    assert module.Model().weight == 10.0 and module.Model.twice(2) == 4


@pytest.mark.parametrize("key, message", [
    ("synthetic_keys.alias", "re-export"),
    ("synthetic_keys.math", "not a function"),
    ("synthetic_keys.Model.missing", "not defined"),
    ("synthetic_keys.SCALE", "not a function"),
    ("synthetic_keys", "names a module"),
])
def test_a_key_must_name_a_function_where_it_is_defined(synthetic, key, message):
    synthetic("synthetic_keys")
    with pytest.raises((LookupError, TypeError), match=message):
        substitution.resolve(key)


def test_a_key_must_not_be_a_reexport_of_the_package():
    assert er.cantelli_bound is crowds.cantelli_bound
    with pytest.raises(LookupError, match="re-export"):
        substitution.resolve("ensemble_ref.cantelli_bound")


@pytest.mark.parametrize("key, old", [("outer", "y * 3.0"), ("square", "x")])  # absent; twice
def test_a_mutant_whose_expression_is_not_there_once_says_so(synthetic, key, old):
    synthetic("synthetic_missing")
    with pytest.raises(LookupError, match="expected once"):
        Mutant("m", "", f"synthetic_missing.{key}", old, "1.0", "").code()


def test_a_checkpoint_records_the_first_call_without_changing_a_value(synthetic):
    module = synthetic("synthetic_hits")
    hits: set = set()
    module.__mutant_hits__ = hits
    recording = mutant_checkpoints.recording_code(module.outer, "synthetic_hits.outer")
    with substitution.substituted(module.outer, recording):
        assert module.outer(4.0) == 11.0
    assert hits == {"synthetic_hits.outer"}


# --- the book: every mutant run from the fresh environment's execution of its chapter -----------

@pytest.fixture(scope="module")
def mutation_results(fresh_env) -> list[dict]:
    """Every mutant and the harmless control, run from checkpoints of the fresh environment's
    execution of each chapter (the fixture ``fresh_env``)."""
    results = fresh_env["report"].get("mutants")
    assert results, "the mutation test did not run:\n" + fresh_env["log"][-6000:]
    return results


@pytest.mark.book
def test_a_harmless_rewrite_survives(mutation_results):
    """The harness can report a survivor: a rewrite that changes no formula is not killed."""
    [control] = [r for r in mutation_results if r["id"] == CONTROL.id]
    assert not control["killed"], f"a harmless rewrite stopped the chapter: {control['raised']}"


@pytest.mark.book
def test_every_mutant_is_killed(mutation_results):
    results = [r for r in mutation_results if r["id"] != CONTROL.id]
    assert {r["id"] for r in results} == {m.id for m in MUTANTS}
    print("\n".join(f"{r['id']:<34} {'killed' if r['killed'] else 'SURVIVED'} "
                    f"({r['raised'] or '-'}) {r['seconds']} s, {r['how']} from cell {r['from_cell']}"
                    + (f" to cell {r['at_cell']}" if r.get("at_cell") is not None else "")
                    for r in results))
    survivors = [f"{r['id']} ({r['chapter']}, {r.get('key', r['file'])}): {r['error']}"
                 + (" [the run timed out: the harness, not the book, must be fixed]"
                    if r.get("timeout") else "")
                 + (f" [the run's process died (status {r['died']}): the harness must be fixed]"
                    if r.get("died") is not None else "")
                 + (f" [the mutant does not apply, update it: {r['broken']}]" if r.get("broken") else "")
                 for r in results if not r["killed"]]
    assert not survivors, "mutants the book does not notice:\n  " + "\n  ".join(survivors)
