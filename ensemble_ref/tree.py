"""Import path kept for the chapters: CART and its impurities.

The estimators live in :mod:`ensemble_ref.trees.cart`, the impurities in
:mod:`ensemble_ref.math.impurity`.
"""

from __future__ import annotations

from .math.impurity import entropy_impurity, gini_impurity, squared_error_impurity
from .trees.cart import DecisionTreeClassifier, DecisionTreeRegressor, Tree

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "Tree", "gini_impurity",
           "entropy_impurity", "squared_error_impurity"]
