r"""Self-checks for the book's coding exercises.

A coding exercise asks for a small function (the out-of-bag probability, an
AdaBoost weight update, an XGBoost leaf weight, ...). Pass your function to the
matching check: it is called on fixed cases and its answers are compared with the
reference implementation in ``ensemble_ref``. When every case agrees, the check
prints one line starting with ``✔``; otherwise it raises an ``AssertionError``
that shows the call, the expected value and the value received::

    >>> from ensembles_verified.selfcheck import check_oob_fraction
    >>> def oob_fraction(N):
    ...     return (1 - 1 / N) ** N
    >>> check_oob_fraction(oob_fraction)
    ✔ check_oob_fraction: your function agrees with ensemble_ref.oob_fraction_exact on all 8 cases.

Each check documents the signature it calls. Arrays are passed as fresh copies,
so a function that modifies its arguments in place does not change the cases.
Two answers agree when ``|received - expected| <= atol + rtol * |expected|``
elementwise (with the shapes equal); the tolerances allow for a different but
correct order of floating-point operations, nothing more.
"""

from __future__ import annotations

from .bagging import (  # noqa: F401
    check_gini_impurity,
    check_informative_count_pmf,
    check_oob_fraction,
    check_oob_prediction,
    check_prob_no_informative,
    check_variance_of_average,
)
from .boosting import (  # noqa: F401
    check_adaboost_alpha,
    check_adaboost_weight_update,
    check_leaf_weight,
    check_loss_gradient,
    check_loss_hessian,
    check_newton_leaf_value,
    check_split_gain,
    check_weighted_median,
)
from .combining import (  # noqa: F401
    check_ambiguity,
    check_bias_variance,
    check_condorcet,
    check_condorcet_bound,
    check_log_odds_weights,
    check_majority_vote,
    check_soft_vote,
)
from .diversity import check_conformal_quantile, check_q_statistic  # noqa: F401
from .explain import check_tree_shapley  # noqa: F401
from .mixture import check_load_balancing_loss, check_responsibilities, check_top_k_gate  # noqa: F401
from .modern import check_goss_weights, check_ordered_target_statistic  # noqa: F401
from .practice import check_exact_interval, check_undo_weight  # noqa: F401
from .scale import (  # noqa: F401
    check_gradient_histogram,
    check_histogram_gains,
)
from .trees import check_best_threshold, check_impurity_decrease  # noqa: F401

__all__ = [
    "check_tree_shapley",
    "check_q_statistic",
    "check_conformal_quantile",
    "check_majority_vote",
    "check_ambiguity",
    "check_bias_variance",
    "check_oob_prediction",
    "check_informative_count_pmf",
    "check_condorcet_bound",
    "check_soft_vote",
    "check_log_odds_weights",
    "check_gradient_histogram",
    "check_histogram_gains",
    "check_oob_fraction",
    "check_condorcet",
    "check_variance_of_average",
    "check_prob_no_informative",
    "check_gini_impurity",
    "check_adaboost_alpha",
    "check_adaboost_weight_update",
    "check_loss_gradient",
    "check_loss_hessian",
    "check_newton_leaf_value",
    "check_weighted_median",
    "check_leaf_weight",
    "check_split_gain",
    "check_responsibilities",
    "check_top_k_gate",
    "check_load_balancing_loss",
    "check_goss_weights",
    "check_ordered_target_statistic",
    "check_impurity_decrease",
    "check_best_threshold",
    "check_undo_weight",
    "check_exact_interval",
]
