"""Feature importances of a fitted model: impurity decrease (MDI) and permutation.

*Mean decrease in impurity* (MDI, Breiman's "Gini importance") credits each
split node ``t`` of a tree with the weighted impurity decrease it achieves,

    W_t i(t) - W_l i(l) - W_r i(r),

where ``l`` and ``r`` are the node's children, ``i`` is the node impurity and
``W`` the total weight of the training samples reaching a node; a feature's
importance is the sum over the nodes that split on it, divided by the root's
weight ``W_0`` (and, by default, normalised to sum to 1). A forest's MDI is the
mean of its trees' normalised importances. Everything is read from the public
``tree_`` arrays (``children_left``, ``children_right``, ``feature``,
``impurity``, ``weighted_n_node_samples``), which ``ensemble_ref`` trees share
with scikit-learn's, so the same function applies to both.

*Permutation importance* is the drop of a score on held-out data when one
feature's column is permuted, which breaks its link with the target and leaves
its distribution intact. It needs only ``predict`` (or ``score``).

MDI is computed on the training data, so it also credits splits that fit
noise; a feature with many distinct values offers many thresholds and collects
such splits. Permutation importance on held-out data does not reward them
(Strobl et al., 2007).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import numpy as np

from ..core.validation import (
    check_attributes,
    check_bool,
    check_callable,
    check_float,
    check_int,
    check_integers,
    check_nonzero,
    check_permutation,
    check_random_state,
    check_reals,
    check_sequence,
    check_shape,
)

__all__ = ["tree_mdi", "forest_mdi", "boosted_mdi", "ensemble_mdi", "one_split_mdi",
           "gain_importance", "permutation_importance"]


def _tree_arrays(tree: Any) -> Any:
    """The ``tree_`` structure of a fitted tree estimator, or the structure itself."""
    needed = ("children_left", "children_right", "feature", "impurity", "weighted_n_node_samples")
    return check_attributes(getattr(tree, "tree_", tree), "tree", needed,
                            "a fitted tree (with tree_) or a tree_ structure")


def tree_mdi(tree: Any, n_features: int | None = None, normalize: bool = True) -> np.ndarray:
    """Mean decrease in impurity of each feature in one fitted tree.

    Parameters
    ----------
    tree : fitted tree estimator or its ``tree_`` structure
        Anything with the arrays ``children_left``, ``children_right`` (``-1``
        at a leaf), ``feature``, ``impurity`` and ``weighted_n_node_samples``
        (an ``ensemble_ref`` or scikit-learn tree).
    n_features : int, optional
        Number of features ``d``; by default ``tree_.n_features``.
    normalize : bool, default=True
        Divide by the sum so that the importances add up to 1 (left at 0 for
        a tree with no split).

    Returns
    -------
    ndarray of shape (n_features,)
        ``sum_{t splits on j} (W_t i(t) - W_l i(l) - W_r i(r)) / W_0``,
        normalised if asked.
    """
    check_bool(normalize, "normalize")
    s = _tree_arrays(tree)
    left = np.asarray(s.children_left)
    right = np.asarray(s.children_right)
    feature = np.asarray(s.feature)
    impurity = np.asarray(s.impurity, dtype=float)
    w = np.asarray(s.weighted_n_node_samples, dtype=float)
    if n_features is None:
        check_attributes(s, "tree", ("n_features",), "a tree whose tree_ has n_features, or "
                         "n_features must be given")
        n_features = s.n_features
    n_features = check_int(n_features, "n_features", low=1)
    split = np.flatnonzero(left >= 0)
    check_integers(feature[split], "the features used by the tree", high=n_features - 1,
                   message=f"be smaller than n_features={n_features}")
    l, r = left[split], right[split]
    decrease = w[split] * impurity[split] - w[l] * impurity[l] - w[r] * impurity[r]
    importance = np.bincount(feature[split], weights=decrease, minlength=n_features) / w[0]
    if normalize:
        total = importance.sum()
        if total > 0:
            importance = importance / total
    return importance


def _has_split(tree: Any) -> bool:
    """Whether a tree (or its ``tree_``) has at least one split (is more than one leaf)."""
    return np.asarray(_tree_arrays(tree).children_left).size > 1


def _n_features(trees: list, n_features: int | None, owner: Any = None) -> int:
    """``n_features``, else ``owner.n_features_in_``, else the first tree's ``n_features``."""
    if n_features is None:
        n_features = getattr(owner, "n_features_in_", None)
    if n_features is None:
        n_features = _tree_arrays(trees[0]).n_features
    return check_int(n_features, "n_features", low=1)


def ensemble_mdi(per_member: Any, weights: Any = None) -> np.ndarray:
    """An ensemble's MDI: the (weighted) mean of its members' importances, normalised to 1.

    Equation ``eq-rf-mdi`` applied to an ensemble, the way scikit-learn combines its
    members' ``feature_importances_``: a forest or bagging of trees averages its trees'
    *normalised* MDIs, gradient boosting its trees' *unnormalised* ones (each divided by
    its root weight only), AdaBoost its members' importances weighted by their votes
    :math:`\\alpha_t`; the mean is then normalised to sum to 1 (left at 0 when it is 0).

    Parameters
    ----------
    per_member : array-like of shape (n_members, n_features)
        Non-negative importances of the members, one row each.
    weights : array-like of shape (n_members,), optional
        Non-negative weights of the members (equal by default). An infinite weight (the
        vote of a perfect AdaBoost member) outweighs every finite one: the members of
        infinite weight are then averaged with equal weights.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    rows = check_shape(check_reals(per_member, "per_member", low=0.0, ndim=2), "per_member",
                       (None, None), at_least=(1, 1), described="(n_members >= 1, n_features >= 1)")
    if weights is not None:
        weights = check_reals(weights, "weights", low=0.0, allow_inf=True, vector=True)
        check_shape(check_nonzero(weights, "weights"), "weights", (rows.shape[0],))
    return _weighted_mean(rows, weights)


def _weighted_mean(per_member: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Unvalidated :func:`ensemble_mdi`: the weighted mean of the rows, normalised to 1."""
    if weights is not None and np.isinf(weights).any():
        weights = np.isinf(weights).astype(float)  # the limit of the mean as alpha -> inf
    mean = np.average(per_member, axis=0, weights=weights)
    total = mean.sum()
    return mean / total if total > 0 else mean


def forest_mdi(forest: Any, n_features: int | None = None) -> np.ndarray:
    """MDI of a fitted forest: the mean of its trees' normalised MDIs, normalised.

    Trees without a split (a single leaf) are left out, as scikit-learn does.

    Parameters
    ----------
    forest : fitted ensemble with ``estimators_`` (trees), or a list of trees
    n_features : int, optional
        Number of features; by default ``forest.n_features_in_`` or the trees'.
    """
    trees = check_sequence(getattr(forest, "estimators_", forest), "forest",
                           "fitted trees (or a fitted forest with estimators_)")
    d = _n_features(trees, n_features, forest)
    per_tree = [tree_mdi(t, d) for t in trees if _has_split(t)]
    if not per_tree:
        return np.zeros(d)
    return _weighted_mean(np.array(per_tree), None)


def boosted_mdi(trees: Any, n_features: int | None = None) -> np.ndarray:
    """MDI of gradient boosting: the mean of its trees' *unnormalised* MDIs, normalised.

    Each stage tree's impurity decreases are divided by its root weight ``W_0`` only
    (``tree_mdi(tree, normalize=False)``), so a stage that reduces the squared error of
    the residuals more counts more; trees without a split are left out. This is
    scikit-learn's ``GradientBoosting*.feature_importances_``.
    """
    trees = check_sequence(getattr(trees, "estimators_", trees), "trees", "fitted trees")
    d = _n_features(trees, n_features)
    per_tree = [tree_mdi(t, d, normalize=False) for t in trees if _has_split(t)]
    if not per_tree:
        return np.zeros(d)
    return _weighted_mean(np.array(per_tree), None)


def one_split_mdi(feature: int, n_features: int, decrease: float) -> np.ndarray:
    """Normalised MDI of a tree with one split (a stump): ``e_feature`` if ``decrease > 0``.

    Equation ``eq-rf-mdi`` for a root split on ``feature`` whose weighted impurity
    decrease is ``decrease`` (0 for a stump that predicts one class on both sides).
    """
    d = check_int(n_features, "n_features", low=1)
    j = int(check_integers(feature, "feature", 0, d - 1))
    check_float(decrease, "decrease", low=0.0)
    stump = SimpleNamespace(children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
                            feature=np.array([j, -2, -2]), impurity=np.array([decrease, 0.0, 0.0]),
                            weighted_n_node_samples=np.array([1.0, 0.5, 0.5]))
    return tree_mdi(stump, d)


def gain_importance(trees: Any, n_features: int, tau: float = 0.0) -> np.ndarray:
    """xgboost's ``importance_type="gain"`` of second-order trees, normalised to 1.

    For each feature, the *average* over the splits on it (in every tree) of the loss
    reduction the split achieved before the penalty :math:`\\tau`, that is
    ``Gain + tau`` of ``eq-xgb-gain`` (half the bracket xgboost reports as ``gain``; the
    factor cancels in the normalisation); 0 for a feature never split on. This is
    ``xgboost.XGBModel.feature_importances_`` with its default ``importance_type``
    (``Booster.get_score(importance_type="gain")``, normalised).

    Parameters
    ----------
    trees : list of fitted second-order trees
        Anything with the arrays ``children_left``, ``feature`` and ``gain`` (the book's
        ``Gain``, with :math:`\\tau` subtracted), e.g. ``XGBRegressor.trees_``.
    n_features : int
    tau : float, default=0.0
        The penalty per leaf the trees were grown with (added back to each ``gain``).
    """
    trees = check_sequence(trees, "trees", "fitted second-order trees")
    d = check_int(n_features, "n_features", low=1)
    tau = check_float(tau, "tau", low=0.0)
    total, count = np.zeros(d), np.zeros(d)
    for tree in trees:
        check_attributes(tree, "tree", ("children_left", "feature", "gain"), "a second-order tree")
        split = np.flatnonzero(np.asarray(tree.children_left) >= 0)
        used = check_integers(np.asarray(tree.feature)[split], "the features used by the tree", 0, d - 1)
        total += np.bincount(used, weights=np.asarray(tree.gain)[split] + tau, minlength=d)
        count += np.bincount(used, minlength=d)
    average = np.divide(total, count, out=np.zeros(d), where=count > 0)
    return _weighted_mean(average[None, :], None)


def permutation_importance(estimator: Any, X: Any, y: Any, *, n_repeats: int = 5,
                           random_state: Any = None, permutations: Any = None,
                           score: Callable[[Any, Any, Any], float] | None = None) -> np.ndarray:
    """Drop of a score when each feature's column is permuted.

    Parameters
    ----------
    estimator : fitted estimator
        With ``score(X, y)``, or any object ``score`` accepts.
    X : array-like of shape (n, d)
        Held-out data.
    y : array-like of shape (n,)
    n_repeats : int, default=5
        Number of permutations per feature (ignored if ``permutations`` is given).
    random_state : None, int or numpy.random.Generator
        Seed of the permutations: each feature gets its own ``n_repeats``
        permutations, drawn with ``Generator.permutation``.
    permutations : array-like of shape (n_repeats, n), optional
        Explicit permutations of ``0..n-1``, the same for every feature (to
        reproduce another library's draws).
    score : callable ``score(estimator, X, y) -> float``, optional
        Defaults to ``estimator.score(X, y)`` (accuracy for a classifier).

    Returns
    -------
    ndarray of shape (d, n_repeats)
        ``score(X) - score(X with column j permuted)`` for each feature and
        permutation; average over axis 1 for the importance.
    """
    X = check_shape(np.asarray(X), "X", (None, None), at_least=(2, 0), described="(n >= 2, d)")
    y = check_shape(np.asarray(y), "y", (X.shape[0],))
    if score is None:
        check_attributes(estimator, "estimator", ("score",), "an estimator with a score method (or pass score)")
        score = lambda est, A, b: est.score(A, b)  # noqa: E731
    check_callable(score, "score")
    n, d = X.shape
    if permutations is not None:
        perms = check_permutation(permutations, "permutations", n)
        draws = [check_shape(perms, "permutations", (None, n), described=f"(n_repeats, {n})")] * d
    else:
        check_int(n_repeats, "n_repeats", low=1)
        rng = check_random_state(random_state)
        draws = [np.array([rng.permutation(n) for _ in range(n_repeats)]) for _ in range(d)]
    baseline = float(score(estimator, X, y))
    drops = np.empty((d, len(draws[0])))
    for j in range(d):
        X_perm = X.copy()
        for r, perm in enumerate(draws[j]):
            X_perm[:, j] = X[perm, j]
            drops[j, r] = baseline - float(score(estimator, X_perm, y))
    return drops
