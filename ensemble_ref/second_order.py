"""Import path kept for the chapters: the second-order booster and its formulas.

The formulas live in :mod:`ensemble_ref.math.second_order`, the tree in
:mod:`ensemble_ref.trees.second_order_tree`, the boosters in
:mod:`ensemble_ref.ensembles.xgboost_style`.
"""

from __future__ import annotations

from .ensembles.xgboost_style import XGBClassifier, XGBRegressor
from .math.second_order import leaf_weight, quadratic_objective, split_gain, structure_score
from .trees.second_order_tree import SecondOrderTree

__all__ = ["leaf_weight", "structure_score", "split_gain", "quadratic_objective",
           "SecondOrderTree", "XGBRegressor", "XGBClassifier"]
