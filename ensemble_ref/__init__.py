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
]
