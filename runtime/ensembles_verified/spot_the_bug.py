r"""Spot the bug: one function of ``ensemble_ref`` per chapter, with one plausible error.

Each chapter's last exercise hands the student a version of a package function with
one error that a careful reader could make (most are statements of the course notes
the book corrects), and asks them to find it with the chapter's own checks, say which
false statement it encodes, and correct it::

    >>> from ensembles_verified.spot_the_bug import show_bug, buggy, planted, check_fix
    >>> show_bug("ex-bug-oob")              # the function with the error, as source
    >>> wrong = buggy("ex-bug-oob")         # ... as a function (the package is untouched)
    >>> with planted("ex-bug-oob"):         # the package itself runs the error here:
    ...     ...                             # re-run a check of the chapter
    >>> check_fix("ex-bug-oob", my_fixed_function)

``check_fix`` calls the corrected function and the package's on random cases, like
the self-checks of the coding exercises (:mod:`ensembles_verified.selfcheck`), and
never shows the right value. Each error is also a mutant of the book's mutation
test, which shows that the chapter's checks stop on it.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import substitution
from .selfcheck.engine import _run, _seed

__all__ = ["BUGS", "Bug", "bug_source", "show_bug", "buggy", "planted", "check_fix"]

Cases = Callable[[np.random.Generator], list]


@dataclass(frozen=True)
class Bug:
    """One function of ``ensemble_ref`` with one error, for the exercise ``label``.

    ``key`` names the function (its qualified name where it is defined); ``old`` is an
    expression or statement of its body and ``new`` what the error computes instead
    (compared as syntax trees, see :func:`ensembles_verified.substitution.edit`);
    ``look_at`` the equation labels of the chapter that the function computes;
    ``cases(rng)`` the random cases of :func:`check_fix`, as lists of the function's
    arguments in order.
    """

    label: str
    chapter: str
    key: str
    old: str
    new: str
    look_at: str
    cases: Cases

    def function(self) -> types.FunctionType:
        """The package's function (right)."""
        return substitution.resolve(self.key)

    def code(self) -> types.CodeType:
        """The function's code with the error."""
        return substitution.rewrite(self.function(), lambda node: substitution.edit(
            node, self.old, self.new))


# --- the cases of each function -------------------------------------------------------------


def _majority_cases(rng):
    specs = [(4, 0.5), (6, 0.5), (5, 0.5), (2, 0.0), (8, 0.5)]
    specs += [(int(rng.integers(2, 12)), float(rng.choice([0.0, 0.5]))) for _ in range(5)]
    return [[rng.dirichlet(np.ones(n + 1), size=3), np.arange(n + 1), n, w] for n, w in specs]


def _variance_cases(rng):
    fixed = [[1.0, 0.0, 10], [2.0, 0.3, 4], [0.5, 1.0, 7]]  # not rho = 1/2, where the error happens to be right
    return fixed + [[float(rng.uniform(0.1, 3)), float(rng.uniform(0, 1)), int(rng.integers(2, 60))]
                    for _ in range(6)]


def _cantelli_cases(rng):
    return [[float(rng.uniform(0.01, 2)), float(rng.uniform(0.1, 3))] for _ in range(8)]


def _gini_cases(rng):
    shapes = [(1, 2), (3, 2), (4, 3), (2, 5)]
    cases = []
    for J, K in shapes:  # every node has at least one point
        counts = rng.integers(0, 30, size=(J, K)).astype(float)
        counts[np.arange(J), rng.integers(0, K, size=J)] += 1
        cases.append([counts, None, -1])
    return cases


def _oob_cases(rng):
    return [[n] for n in (1, 2, 3, 10, *rng.integers(4, 5000, size=4).tolist())]


def _blind_cases(rng):
    cases = [[10, 2, 3], [25, 5, 5]]
    for _ in range(6):
        d = int(rng.integers(5, 60))
        k = int(rng.integers(1, d - 1))  # at least two candidates among the d - k others
        cases.append([d, k, int(rng.integers(2, d - k + 1))])
    return cases


def _ece_cases(rng):
    cases = []
    for _ in range(6):
        n = int(rng.integers(60, 400))
        p = rng.beta(0.7, 1.5, size=n)  # uneven bins: their shares differ
        cases.append([(rng.random(n) < p ** 1.3).astype(int), p, int(rng.integers(5, 16))])
    return cases


def _alpha_cases(rng):
    cases = [[0.25, 3, 1.0], [0.5, 4, 1.0], [0.6, 10, 0.5]]
    for _ in range(6):
        K = int(rng.integers(3, 9))
        cases.append([float(rng.uniform(0.02, 1 - 1 / K - 0.02)), K, float(rng.uniform(0.1, 1))])
    return cases


def _newton_cases(rng):
    cases = []
    for _ in range(6):
        n = int(rng.integers(2, 40))
        p = rng.uniform(0.05, 0.95, size=n)
        cases.append([rng.integers(0, 2, size=n) - p, p * (1 - p), rng.uniform(0.5, 2, size=n)])
    return cases


def _bracket_cases(rng):
    return [[float(rng.normal(0, 5)), float(rng.uniform(0.5, 20)), float(rng.normal(0, 5)),
             float(rng.uniform(0.5, 20)), float(rng.uniform(0, 3)), None] for _ in range(8)]


def _goss_cases(rng):
    cases = []
    for _ in range(6):
        n = int(rng.integers(20, 200))
        a, b = float(rng.uniform(0.1, 0.4)), float(rng.uniform(0.1, 0.4))
        cases.append([rng.normal(size=n), a, b, np.random.default_rng(int(rng.integers(2**31))), None])
    return cases


def _top_k_cases(rng):
    cases = []
    for _ in range(6):
        E = int(rng.integers(3, 8))
        logits = rng.normal(size=(int(rng.integers(2, 10)), E))
        gate = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        cases.append([gate, int(rng.integers(1, E)), True])
    return cases


def _quantile_cases(rng):
    cases = []
    for _ in range(8):  # delta >= 1/(n + 1): the rank is at most n, the quantile finite
        n = int(rng.integers(5, 120))
        cases.append([rng.exponential(size=n), float(rng.uniform(1.2 / (n + 1), 0.3)), -1])
    return cases


def _leaf_weight_cases(rng):
    return [[rng.normal(0, 5, size=4), rng.uniform(0.5, 20, size=4), float(rng.uniform(0.5, 5))]
            for _ in range(6)]


def _extend_cases(rng):
    from ensemble_ref.math.shapley import _extend

    cases = []
    for length in (0, 1, 2, 3, 4, 5, 3, 4):
        m: list = []
        for j in range(length):  # a path grown the way TreeSHAP grows it
            m = _extend(m, float(rng.uniform(0.1, 1)), float(rng.integers(0, 2)), j)
        cases.append([m, float(rng.uniform(0.1, 1)), float(rng.integers(0, 2)), length])
    return cases


def _histogram_cases(rng):
    cases = []
    for _ in range(5):
        n, d, n_bins = int(rng.integers(5, 60)), int(rng.integers(1, 4)), int(rng.integers(2, 9))
        p = rng.uniform(0.05, 0.95, size=n)
        cases.append([rng.integers(0, n_bins, size=(n, d)), rng.normal(size=n), p * (1 - p),
                      n_bins, None, 1])
    return cases


# --- the registry ---------------------------------------------------------------------------

_M = "ensemble_ref.math."
BUGS: dict[str, Bug] = {b.label: b for b in [
    Bug("ex-bug-intro", "book/01_introduction.md", _M + "crowds._majority_tail",
        "2 * t < n", "2 * t <= n", "eq-condorcet-exact", _majority_cases),
    Bug("ex-bug-bv", "book/02_bias_variance.md", _M + "bias_variance.variance_of_average",
        "rho_arr * s2 + (1 - rho_arr) * s2 / M_arr", "rho_arr * s2 / M_arr + (1 - rho_arr) * s2",
        "eq-var-average", _variance_cases),
    Bug("ex-bug-crowds", "book/03_wisdom_of_crowds.md", _M + "crowds.cantelli_bound",
        "var / (var + lam**2)", "var / lam**2", "eq-cantelli", _cantelli_cases),
    Bug("ex-bug-tree", "book/04_decision_trees.md", _M + "impurity.gini_impurity",
        "sq + c_k * c_k", "sq + c_k * W", "eq-tree-gini", _gini_cases),
    Bug("ex-bug-oob", "book/05_bagging_oob.md", _M + "bootstrap.oob_fraction_exact",
        "np.exp(N * np.log1p(-1.0 / N))", "-np.expm1(N * np.log1p(-1.0 / N))", "eq-oob-exact",
        _oob_cases),
    Bug("ex-bug-rf", "book/06_random_forests.md", _M + "random_subspace.prob_no_informative",
        "(d - k - j) / (d - j)", "(d - k) / d + 0 * j", "eq-rf-blind", _blind_cases),
    Bug("ex-bug-vote", "book/07_voting_stacking.md", _M + "calibration.expected_calibration_error",
        "np.sum(share * np.abs(bins.frequency[full] - bins.confidence[full]))",
        "np.mean(np.abs(bins.frequency[full] - bins.confidence[full]))", "eq-ece", _ece_cases),
    Bug("ex-bug-adaboost", "book/08_adaboost.md", _M + "adaboost._alpha",
        "np.log1p(-eps) - np.log(eps) + np.log(K - 1.0)", "np.log1p(-eps) - np.log(eps)",
        "eq-adaboost-alpha", _alpha_cases),
    Bug("ex-bug-gb", "book/09_gradient_boosting.md", _M + "gradient_boosting._newton_step",
        "numerator / denominator", "numerator / np.sum(w)", "eq-gb-leaf", _newton_cases),
    Bug("ex-bug-xgb", "book/10_xgboost.md", _M + "second_order._bracket",
        "_score(G_R, H_R, lam)", "_score(G_R, H_L, lam)", "eq-xgb-gain", _bracket_cases),
    Bug("ex-bug-modern", "book/11_modern_boosting.md", _M + "sampling.goss_weights",
        "w[rng.choice(rest, size=other_k, replace=False)] = factor",
        "w[rng.choice(rest, size=other_k, replace=False)] = 1.0", "eq-modern-goss", _goss_cases),
    Bug("ex-bug-moe", "book/12_mixture_of_experts.md", _M + "mixture.top_k_route",
        "chosen / total", "chosen", "eq-moe-topk", _top_k_cases),
    Bug("ex-bug-conformal", "book/13_diversity_uncertainty.md", _M + "uncertainty._conformal_quantile",
        "int(np.ceil((1.0 - delta) * (n + 1) - 1e-12))", "int(np.ceil((1.0 - delta) * n - 1e-12))",
        "eq-unc-quantile", _quantile_cases),
    Bug("ex-bug-real", "book/14_real_data.md", _M + "second_order._leaf_weight",
        "-G / (H + lam)", "-G / H", "eq-xgb-leaf-weight", _leaf_weight_cases),
    Bug("ex-bug-shap", "book/15_explaining_ensembles.md", _M + "shapley._extend",
        "m[i][3] = pz * m[i][3] * (l - i) / (l + 1)", "m[i][3] = pz * m[i][3]",
        "eq-shapley-path", _extend_cases),
    Bug("ex-bug-scale", "book/16_ensembles_at_scale.md", _M + "histograms.gradient_histogram",
        "_bin_sums(flat, np.repeat(h[keep], d), size)", "_bin_sums(flat, None, size)",
        "eq-scale-histogram", _histogram_cases),
]}


def _bug(label: Any) -> Bug:
    if not isinstance(label, str):
        raise TypeError(f"label must be the exercise's label, a str such as 'ex-bug-oob'; got "
                        f"{type(label).__name__}.")
    if label not in BUGS:
        raise ValueError(f"label must be one of {', '.join(BUGS)}; got {label!r}.")
    return BUGS[label]


# --- what the student uses ------------------------------------------------------------------


def bug_source(label: str) -> str:
    """The source of the function of exercise ``label``, with its error.

    The docstring is left out (the exercise says what the function computes); the
    comments are the package's.
    """
    bug = _bug(label)
    return substitution.edited_source(bug.function(), bug.old, bug.new)


def show_bug(label: str) -> None:
    """Print the source of the function of exercise ``label``, with its error."""
    print(bug_source(label), end="")


def buggy(label: str) -> types.FunctionType:
    """The function of exercise ``label`` with its error, as a function of its own
    (the package's function is left as it is)."""
    bug = _bug(label)
    return substitution.replacement(bug.function(), bug.code())


@contextlib.contextmanager
def planted(label: str) -> Iterator[types.FunctionType]:
    """While the block runs, the package runs the error of exercise ``label``: every
    reference to the function (the package's own calls, the chapter's imports, methods
    of estimators made earlier) computes it. The right code is back after the block."""
    bug = _bug(label)
    with substitution.substituted(bug.function(), bug.code()) as function:
        yield function


def check_fix(label: str, student_fn: Callable, random_state: Any = None) -> None:
    """Check a corrected version of the function of exercise ``label``.

    Calls ``student_fn`` with the function's arguments (positionally, in its order) on
    random cases and compares with the package's function. A failure names the case
    and the equation to look at, says when your function still computes the error of
    the exercise, and never shows the right value.

    Parameters
    ----------
    label : str
        The exercise's label, a key of ``BUGS``.
    student_fn : callable
        Your corrected function, with the same arguments as the one shown.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases (``None``: new cases on every call).
    """
    bug = _bug(label)
    rng, repeat = _seed(random_state)
    names = bug.function().__code__.co_varnames[:bug.function().__code__.co_argcount]
    cases = [dict(zip(names, args)) for args in bug.cases(rng)]
    wrong = buggy(label)
    _run(f"check_fix({label!r})", student_fn, cases, bug.function(),
         f"the package's {bug.key.rsplit('.', 1)[-1]}", formula=bug.look_at, rtol=1e-9, atol=1e-12,
         mistakes=[("the error of this exercise", wrong)],
         repeat=repeat)
