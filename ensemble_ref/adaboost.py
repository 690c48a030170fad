"""Import path kept for the chapters: AdaBoost and its formulas.

The formulas live in :mod:`ensemble_ref.math.adaboost`, the stump in
:mod:`ensemble_ref.trees.stump`, the estimator in :mod:`ensemble_ref.ensembles.adaboost`.
"""

from __future__ import annotations

from .ensembles.adaboost import AdaBoostClassifier
from .math.adaboost import (
    adaboost_alpha,
    adaboost_exponential_bound,
    adaboost_normalizer,
    adaboost_product_bound,
    adaboost_weights,
    samme_codes,
)
from .trees.stump import DecisionStump

__all__ = ["AdaBoostClassifier", "DecisionStump", "adaboost_alpha", "adaboost_normalizer",
           "adaboost_weights", "adaboost_product_bound", "adaboost_exponential_bound",
           "samme_codes"]
