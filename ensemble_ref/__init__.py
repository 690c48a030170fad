"""ensemble_ref: the reference implementation behind *Ensembles, Verified*.

Layers (see CONTRIBUTING.md): ``core`` (base classes, validation), ``math`` (the
book's formulas as pure functions), ``trees`` (the shared fast tree engine and the
trees built on it), ``ensembles`` (the estimators, scikit-learn's API) and
``datasets`` (the generators of the book's synthetic data). The names below are the
ones the chapters import; a name exported here is imported from here, anything
else from the module that defines it (``from ensemble_ref.math.mixture import
softmax_gate``). The book's claims, seeds and exercise checks are not part of this
package: they are the book's runtime, ``ensembles_verified``.
"""

from .core.base import NotFittedError
from .math.bootstrap import (
    bootstrap_indices,
    oob_fraction_exact,
    oob_fractions,
    oob_gap_bounds,
    oob_mask,
)
from .math.aggregation import (
    in_bag_counts,
    one_hot_votes,
    oob_aggregate,
    oob_error,
    oob_error_curve,
    staged_errors,
    oob_expected_error,
)
from .math.random_subspace import (
    breiman_max_features,
    informative_count_pmf,
    prob_no_informative,
    sample_feature_subsets,
    simulate_no_informative,
)
from .math.bias_variance import (
    BiasVariance,
    MemberCovariance,
    MonteCarloEstimate,
    bias_variance_decomposition,
    decompose_predictions,
    member_covariance,
    equicorrelated_normals,
    expected_squared_error,
    simulate_predictions,
    variance_of_average,
)
from .math.crowds import (
    beta_difficulty_parameters,
    cantelli_bound,
    cantelli_extremal,
    conditionally_independent_votes,
    condorcet_bound,
    correlated_majority_accuracy,
    correlated_votes,
    majority_error,
    majority_lower_bound,
    mean_vote_variance,
)
from .ensembles.linear_boosting import LinearBoostingRegressor
from .math.boosting_theory import (
    best_stump_brute_force,
    line_search,
    reweight_misclassified,
    samme_exponential_loss,
    squared_error_step,
)
from .datasets import flip_labels, make_rings_classification
from .datasets import (
    CIRCLE_RADIUS2,
    make_circle_classification,
    make_sine_regression,
    sample_sine_inputs,
    sine_function,
    make_redundant_classification,
    redundant_bayes_error,
)
from .trees.cart import DecisionTreeClassifier, DecisionTreeRegressor
from .trees.stump import DecisionStump
from .trees.second_order_tree import SecondOrderTree
from .ensembles.adaboost import AdaBoostClassifier
from .math.adaboost import (
    adaboost_alpha,
    adaboost_exponential_bound,
    adaboost_normalizer,
    adaboost_product_bound,
    adaboost_weights,
    samme_codes,
)
from .ensembles.gradient_boosting import GradientBoostingClassifier, GradientBoostingRegressor
from .math.gradient_boosting import (
    newton_leaf_value,
    weighted_median,
)
from .math.losses import (
    Loss,
    absolute_error,
    absolute_error_gradient,
    absolute_error_hessian,
    exponential_loss,
    exponential_loss_gradient,
    exponential_loss_hessian,
    get_loss,
    log_loss,
    log_loss_gradient,
    log_loss_hessian,
    sigmoid,
    squared_error,
    squared_error_gradient,
    squared_error_hessian,
)
from .ensembles.xgboost_style import XGBClassifier, XGBRegressor
from .math.second_order import (
    leaf_weight,
    quadratic_objective,
    split_gain,
    structure_score,
)
from .ensembles.bagging import BaggingClassifier, BaggingRegressor
from .ensembles.forest import RandomForestClassifier, RandomForestRegressor
from .ensembles.voting import VotingClassifier, VotingRegressor
from .ensembles.stacking import (
    LeastSquaresRegressor,
    SoftmaxRegression,
    StackingClassifier,
    StackingRegressor,
    stratified_kfold_indices,
)
from .math.diversity import MemberDiversity, mean_pairwise_correlation, member_correctness, member_diversity

__version__ = "0.4.0"

__all__ = [
    "NotFittedError",
    "bootstrap_indices",
    "oob_fraction_exact",
    "oob_fractions",
    "oob_gap_bounds",
    "oob_mask",
    "breiman_max_features",
    "informative_count_pmf",
    "prob_no_informative",
    "sample_feature_subsets",
    "simulate_no_informative",
    "in_bag_counts",
    "one_hot_votes",
    "oob_aggregate",
    "oob_error",
    "oob_error_curve",
    "staged_errors",
    "BiasVariance",
    "MonteCarloEstimate",
    "MemberCovariance",
    "decompose_predictions",
    "member_covariance",
    "bias_variance_decomposition",
    "equicorrelated_normals",
    "expected_squared_error",
    "simulate_predictions",
    "variance_of_average",
    "beta_difficulty_parameters",
    "cantelli_bound",
    "cantelli_extremal",
    "conditionally_independent_votes",
    "condorcet_bound",
    "correlated_majority_accuracy",
    "correlated_votes",
    "majority_error",
    "majority_lower_bound",
    "mean_vote_variance",
    "CIRCLE_RADIUS2",
    "make_circle_classification",
    "make_sine_regression",
    "sample_sine_inputs",
    "sine_function",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "LinearBoostingRegressor",
    "best_stump_brute_force",
    "line_search",
    "reweight_misclassified",
    "samme_exponential_loss",
    "squared_error_step",
    "flip_labels",
    "make_rings_classification",
    "AdaBoostClassifier",
    "DecisionStump",
    "adaboost_alpha",
    "adaboost_exponential_bound",
    "adaboost_normalizer",
    "adaboost_product_bound",
    "adaboost_weights",
    "samme_codes",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
    "newton_leaf_value",
    "weighted_median",
    "Loss",
    "absolute_error",
    "absolute_error_gradient",
    "absolute_error_hessian",
    "exponential_loss",
    "exponential_loss_gradient",
    "exponential_loss_hessian",
    "get_loss",
    "log_loss",
    "log_loss_gradient",
    "log_loss_hessian",
    "sigmoid",
    "squared_error",
    "squared_error_gradient",
    "squared_error_hessian",
    "SecondOrderTree",
    "XGBClassifier",
    "XGBRegressor",
    "leaf_weight",
    "quadratic_objective",
    "split_gain",
    "structure_score",
    "BaggingClassifier",
    "BaggingRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "VotingClassifier",
    "VotingRegressor",
    "LeastSquaresRegressor",
    "SoftmaxRegression",
    "StackingClassifier",
    "StackingRegressor",
    "stratified_kfold_indices",
    "MemberDiversity",
    "mean_pairwise_correlation",
    "member_correctness",
    "member_diversity",
    "oob_expected_error",
    "make_redundant_classification",
    "redundant_bayes_error",
]
