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

from typing import Any, Callable

import numpy as np

from ..core.validation import (
    check_attributes,
    check_bool,
    check_callable,
    check_int,
    check_integers,
    check_permutation,
    check_random_state,
    check_sequence,
    check_shape,
)

__all__ = ["tree_mdi", "forest_mdi", "permutation_importance"]


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
    if n_features is None:
        n_features = getattr(forest, "n_features_in_", None)
    per_tree = [tree_mdi(t, n_features) for t in trees
                if np.asarray(_tree_arrays(t).children_left).size > 1]
    if not per_tree:
        d = n_features if n_features is not None else _tree_arrays(trees[0]).n_features
        return np.zeros(d)
    mean = np.mean(per_tree, axis=0)
    return mean / mean.sum()


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
