"""ensemble_ref: the reference implementation behind *Ensembles, Verified*.

Each algorithm lives in its own module, named after the method, and mirrors the
book's pseudo-code and notation. Estimators follow scikit-learn's API.
"""

from ._base import NotFittedError
from .bootstrap import (
    bootstrap_indices,
    oob_fraction_exact,
    oob_fractions,
    oob_gap_bounds,
    oob_mask,
)
from .claims import ClaimError, Claims
from .aggregation import (
    in_bag_counts,
    one_hot_votes,
    oob_aggregate,
    oob_error,
    oob_error_curve,
    staged_errors,
)
from .random_subspace import (
    breiman_max_features,
    informative_count_pmf,
    prob_no_informative,
    sample_feature_subsets,
    simulate_no_informative,
)
from .bias_variance import (
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
from .crowds import (
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
from .boosting_theory import (
    LinearBoostingRegressor,
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
)
from .tree import DecisionTreeClassifier, DecisionTreeRegressor

__version__ = "0.1.0"

__all__ = [
    "NotFittedError",
    "Claims",
    "ClaimError",
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
]
