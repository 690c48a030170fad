"""Random forests: bagged trees that also draw the candidate features at every node.

A random forest (algorithm ``alg-random-forest``) is bagging
(``eq-bagging-average``) of fully grown CART trees in which every node searches
only ``m`` features drawn at random, without replacement, among the ``d``
available (``max_features``; ``m = floor(sqrt(d))`` for classification and
``m = d`` for regression by default, as in scikit-learn).
Drawing the features decorrelates the trees: for ``M`` identically distributed
trees with variance ``sigma^2`` and pairwise correlation ``rho``, the variance
of their average is

.. math:: \\rho\\,\\sigma^2 + \\frac{1 - \\rho}{M}\\,\\sigma^2,

equation ``eq-var-average``, so lowering ``rho`` lowers what averaging
cannot remove.

Everything except the trees (the bootstrap samples, the seeds drawn up front,
``n_jobs``, the out-of-bag estimates) is :mod:`ensemble_ref.ensembles.bagging`.
"""

from __future__ import annotations

from typing import Any

from ..trees.cart import DecisionTreeClassifier, DecisionTreeRegressor
from .bagging import BaggingClassifier, BaggingRegressor

__all__ = ["RandomForestClassifier", "RandomForestRegressor"]


class RandomForestClassifier(BaggingClassifier):
    """Random forest classifier: bootstrap samples and random feature subsets at every node.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees ``M``.
    max_features : None, int, float, "sqrt" or "log2", default="sqrt"
        Number ``m`` of features searched at each node (see
        :class:`~ensemble_ref.trees.cart.DecisionTreeClassifier`).
    max_depth : int or None, default=None
        Maximum depth of the trees (``None``: fully grown).
    min_samples_leaf : int or float, default=1
        Minimum number of distinct points in a leaf.
    bootstrap : bool, default=True
        Bootstrap samples of size ``n_samples``; ``False`` trains every tree on
        the whole training set (only the feature draws then differ).
    oob_score : bool, default=False
        Compute the out-of-bag accuracy ``oob_score_``.
    random_state : None, int or numpy.random.Generator, default=None
    n_jobs : int or None, default=None
        Train trees in parallel with joblib; results do not depend on it.

    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
    estimators_samples_ : list of ndarray
    classes_ : ndarray of shape (n_classes,)
    oob_score_ : float
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)

    Notes
    -----
    ``predict_proba`` averages the trees' leaf class proportions (equation
    ``eq-bagging-average``), like scikit-learn's ``RandomForestClassifier``.
    A tree is fitted on the distinct points of its bootstrap sample weighted by
    their number of draws, which is what scikit-learn does.
    """

    def __init__(self, n_estimators: int = 100, *, max_features: Any = "sqrt",
                 max_depth: int | None = None, min_samples_leaf: int | float = 1,
                 bootstrap: bool = True, oob_score: bool = False, random_state: Any = None,
                 n_jobs: int | None = None) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _member_template(self) -> DecisionTreeClassifier:
        return DecisionTreeClassifier(max_features=self.max_features, max_depth=self.max_depth,
                                      min_samples_leaf=self.min_samples_leaf)

    def _n_draws(self, n_samples: int) -> int:
        return n_samples  # bootstrap samples have the size of the training set


class RandomForestRegressor(BaggingRegressor):
    """Random forest regressor: bootstrap samples and random feature subsets at every node.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees ``M``.
    max_features : None, int, float, "sqrt" or "log2", default=1.0
        Number ``m`` of features searched at each node; the default searches all
        of them (scikit-learn's default), so only the bootstrap decorrelates the
        trees. ``1/3`` is Breiman's classical choice for regression.
    max_depth : int or None, default=None
        Maximum depth of the trees (``None``: fully grown).
    min_samples_leaf : int or float, default=1
        Minimum number of distinct points in a leaf.
    bootstrap : bool, default=True
        Bootstrap samples of size ``n_samples``; ``False`` trains every tree on
        the whole training set.
    oob_score : bool, default=False
        Compute the out-of-bag R^2 ``oob_score_``.
    random_state : None, int or numpy.random.Generator, default=None
    n_jobs : int or None, default=None
        Train trees in parallel with joblib; results do not depend on it.

    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
    estimators_samples_ : list of ndarray
    oob_score_ : float
    oob_prediction_ : ndarray of shape (n_samples,)

    Notes
    -----
    ``predict`` averages the trees' predictions (equation ``eq-bagging-average``).
    """

    def __init__(self, n_estimators: int = 100, *, max_features: Any = 1.0,
                 max_depth: int | None = None, min_samples_leaf: int | float = 1,
                 bootstrap: bool = True, oob_score: bool = False, random_state: Any = None,
                 n_jobs: int | None = None) -> None:
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _member_template(self) -> DecisionTreeRegressor:
        return DecisionTreeRegressor(max_features=self.max_features, max_depth=self.max_depth,
                                     min_samples_leaf=self.min_samples_leaf)

    def _n_draws(self, n_samples: int) -> int:
        return n_samples  # bootstrap samples have the size of the training set
