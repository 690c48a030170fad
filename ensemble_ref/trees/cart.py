"""Decision trees grown greedily by impurity decrease (CART), as in scikit-learn.

A node ``t`` holding the (weighted) training points ``D_t`` is split on the
feature ``j`` and threshold ``s`` that maximise the impurity decrease

.. math::

    \\Delta(j, s) = \\frac{W_t}{W}\\Big(i(t) - \\frac{W_L}{W_t}\\, i(L)
                   - \\frac{W_R}{W_t}\\, i(R)\\Big),

equation ``eq-tree-impurity-decrease``, where ``L = {x in D_t : x_j <= s}``,
``R = D_t \\ L`` and ``W`` are sums of sample weights. Because ``i(t)`` and
``W_t`` are fixed within a node, the search only needs the *proxy*
``-(W_L i(L) + W_R i(R))``; for the squared error it reduces to
``S_L^2 / W_L + S_R^2 / W_R`` with ``S`` the weighted sum of the targets
(equation ``eq-tree-sse-proxy``).

How the tree is grown: :mod:`ensemble_ref.trees.cart_growth` (level by level on
features presorted once, :mod:`ensemble_ref.trees.engine`); the impurities and
split scores: :mod:`ensemble_ref.math.impurity`.

Agreement with scikit-learn
---------------------------
The rules are scikit-learn's (``sklearn/tree/_splitter.pyx``): features are
stored in single precision (float32); candidate thresholds are the midpoints
``x_(p-1)/2 + x_(p)/2`` between consecutive distinct sorted values (values
closer than ``1e-7`` count as equal); a point goes left when
``x <= threshold``; ``min_samples_leaf`` counts points, not weight; points of
zero weight are ignored; a node becomes a leaf when it is at ``max_depth``,
has fewer than ``max(min_samples_split, 2 * min_samples_leaf)`` points, is
pure (impurity ``<= 2.2e-16``), or has no admissible split; and the proxy is
evaluated with the same floating-point formula. Within one feature the first
(left-most) best threshold wins, as in scikit-learn.

The one deliberate difference is the order in which features are examined.
scikit-learn visits the features of every node in a random order (even when
``max_features=None``) and keeps the first *strictly* better split; this tree
visits them in index order when all features are used (in a random order only
when ``max_features`` subsamples them). Hence two candidate splits with
*exactly* equal proxies on different features can be resolved differently:

* if they induce the same partition of the node (typical in small nodes, where
  several features separate the same few points), training-set predictions are
  identical but the thresholds differ, so predictions on *new* points can
  differ. For regression on a continuous target this is the only kind of tie,
  and with ``min_samples_leaf >= 10`` nodes are large enough that it does not
  occur: predictions on new points are then identical too;
* if they induce different partitions, even training predictions of a
  depth-limited tree can differ. This happens in classification, where the
  proxy is a function of small integer class counts, so that two features can
  tie exactly even in nodes of a few dozen points (whatever
  ``min_samples_leaf``). scikit-learn fitted with two different
  ``random_state`` values then differs from itself in the same way; whenever
  its answer does not depend on ``random_state``, this tree gives the same.

Regression leaf values are weighted means computed with a different summation
order than scikit-learn's, so they agree to about 1e-15 relative, not bit for
bit; classification values agree exactly for integer sample weights.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin, RegressorMixin
from ..core.validation import (
    check_array,
    check_int,
    check_labels,
    check_random_state,
    check_sample_weight,
    check_seed,
    check_X_y,
)
from ..math import importance
from .cart_growth import ClassCounts, GrowParams, SquaredError, grow
from .coded_criteria import CodedClassCounts, CodedSquaredError
from .coded_growth import grow_coded
from .engine import SortedColumns, descend, stacked, to_float32
from .tree_arrays import TREE_LEAF
from .value_codes import value_codes

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "Tree", "grow_trees"]

STACKED = 2**17  # trees grown together on the sorted segments: at most this many (tree, sample, feature),
# or one tree (larger chunks leave the cache and gain nothing: the NumPy calls are then a small cost)


class Tree:
    """Array representation of a fitted binary tree (scikit-learn's ``tree_`` layout).

    Nodes are numbered in depth-first pre-order (a node, then its left
    subtree, then its right subtree), node ``0`` being the root, as in
    scikit-learn.

    Attributes
    ----------
    node_count : int
        Number of nodes.
    children_left, children_right : ndarray of int, shape (node_count,)
        Ids of the children; ``-1`` for a leaf.
    feature : ndarray of int, shape (node_count,)
        Feature tested at the node; ``-2`` for a leaf.
    threshold : ndarray of float64, shape (node_count,)
        A point goes left when ``x[feature] <= threshold`` (``x`` rounded to
        float32); ``-2.0`` for a leaf.
    value : ndarray of float64
        Prediction stored at each node (leaves and internal nodes). For a
        regressor shape ``(node_count,)``: the weighted mean of ``y``. For a
        classifier shape ``(node_count, n_classes)``: the weighted class
        proportions. Predictions read ``value`` at the leaves, so a caller may
        overwrite leaf values after fitting (as gradient boosting does).
    impurity : ndarray of float64, shape (node_count,)
        Impurity of the training points in the node.
    n_node_samples : ndarray of int, shape (node_count,)
        Number of training points (of positive weight) in the node.
    weighted_n_node_samples : ndarray of float64, shape (node_count,)
        Their total weight.
    depth : ndarray of int, shape (node_count,)
        Depth of each node (root = 0).
    max_depth : int
        Depth of the deepest leaf.
    n_leaves : int
        Number of leaves.
    n_features : int
        Number of features seen in ``fit``.
    """

    def __init__(self, *, children_left, children_right, feature, threshold, value, impurity,
                 n_node_samples, weighted_n_node_samples, depth, n_features) -> None:
        self.children_left = children_left
        self.children_right = children_right
        self.feature = feature
        self.threshold = threshold
        self.value = value
        self.impurity = impurity
        self.n_node_samples = n_node_samples
        self.weighted_n_node_samples = weighted_n_node_samples
        self.depth = depth
        self.n_features = n_features

    @property
    def node_count(self) -> int:
        return int(self.children_left.shape[0])

    @property
    def max_depth(self) -> int:
        return int(self.depth.max())

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.children_left == TREE_LEAF))

    def apply(self, X32: np.ndarray) -> np.ndarray:
        """Leaf id of every row of ``X32`` (rounded to float32 first; all rows descend together).

        Every row takes ``max_depth`` steps; a leaf is its own child on both sides, so a
        row that has reached its leaf stays there.
        """
        X32 = np.asarray(X32, dtype=np.float32)
        feature, threshold, children = self._routing()
        base, root = np.arange(X32.shape[0]) * X32.shape[1], np.zeros(X32.shape[0], dtype=np.intp)
        return descend(X32.ravel(), base, root, feature, threshold, children, self.max_depth)

    def _routing(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``feature``, ``threshold`` and the children interleaved (left, right) per node, with
        every leaf its own child; computed once per tree."""
        if getattr(self, "_routes", None) is None:
            leaf = self.children_left == TREE_LEAF
            own = np.arange(self.node_count)
            children = np.stack([np.where(leaf, own, self.children_left),
                                 np.where(leaf, own, self.children_right)], axis=1).ravel()
            self._routes = (np.where(leaf, 0, self.feature).astype(np.intp),
                            np.asarray(self.threshold, dtype=np.float64), children.astype(np.intp))
        return self._routes


def _resolve_max_features(max_features: Any, d: int) -> int:
    """Number of features searched per node, from None, int, float fraction, "sqrt", "log2"."""
    if max_features is None:
        return d
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(np.sqrt(d)))
        if max_features == "log2":
            return max(1, int(np.log2(d)))
    elif isinstance(max_features, (numbers.Integral, np.integer)) and not isinstance(max_features, bool):
        return check_int(max_features, "max_features", low=1, high=d)
    elif isinstance(max_features, (numbers.Real, np.floating)) and not isinstance(max_features, bool):
        if 0.0 < max_features <= 1.0:
            return max(1, int(max_features * d))
        raise ValueError(f"max_features as a float must be in (0, 1], got {max_features}.")
    raise ValueError(
        "max_features must be None, an int in [1, n_features], a float in (0, 1], "
        f"'sqrt' or 'log2'; got {max_features!r}."
    )


def _resolve_min_samples(value: Any, name: str, N: int, low_int: int) -> int:
    """``min_samples_split`` / ``min_samples_leaf`` as a count (an int, or a fraction of N)."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        return check_int(value, name, low=low_int)
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
        if 0.0 < value <= 1.0:
            return max(low_int, int(np.ceil(value * N)))
        raise ValueError(f"{name} as a float must be in (0, 1], got {value}.")
    raise TypeError(f"{name} must be an int >= {low_int} or a float in (0, 1], got {value!r}.")


def grow_trees(trees: list, data: SortedColumns, y: np.ndarray, weights: list,
               classes: np.ndarray | None = None) -> None:
    """Grow the trees ``trees`` (of one class, with one set of parameters) on ``data``, tree
    ``b`` with the sample weights ``weights[b]`` and its own ``random_state`` (classifiers:
    on labels encoded as indices into ``classes``).

    They grow together, one level of every tree at a time: on coded features
    (:func:`~ensemble_ref.trees.value_codes.value_codes`) by
    :func:`~ensemble_ref.trees.coded_growth.grow_coded`, otherwise on the sorted segments of
    one copy of the samples per tree (:func:`~ensemble_ref.trees.cart_growth.grow`), as many
    trees at a time as ``STACKED`` values hold. Each is the tree its own ``fit`` grows.
    """
    if classes is not None:
        for tree in trees:
            tree._set_classes(classes)
    first = trees[0]
    d, N = data.XT.shape
    params = first._grow_params(N, d)
    # the generators of the feature draws (only a subsample draws: the others are checked)
    check = check_random_state if params.max_features < d else check_seed
    rngs = [check(tree.random_state) for tree in trees]
    offsets = np.array([first._offset(y, w) for w in weights])
    coded = value_codes(data)
    if coded is not None:
        arrays = grow_coded(coded, first._coded_criterion(y, offsets), weights, rngs, params)
    else:  # points of zero weight play no part, as in scikit-learn
        arrays = []
        B, per_chunk = len(trees), max(1, STACKED // (N * d))
        for c in np.array_split(np.arange(B), -(-B // per_chunk)):
            w = np.concatenate([weights[b] for b in c])  # tree b on the samples b N + i
            crit = first._criterion(np.tile(y, c.size), w, np.repeat(offsets[c], N))
            arrays += grow(stacked(data, c.size), w, crit, params, [rngs[b] for b in c])
    for tree, a, offset in zip(trees, arrays, offsets):
        tree.n_features_in_ = d
        tree.max_features_ = params.max_features
        tree.tree_ = Tree(**a)
        if offset:
            tree.tree_.value = tree.tree_.value + offset


class _BaseDecisionTree(BaseEstimator):
    """Parameter handling, growing and leaf look-up shared by both trees."""

    def _grow_params(self, N: int, d: int) -> GrowParams:
        if self.max_depth is None:
            max_depth = np.iinfo(np.int32).max
        else:
            max_depth = check_int(self.max_depth, "max_depth", low=1)
        min_samples_leaf = _resolve_min_samples(self.min_samples_leaf, "min_samples_leaf", N, 1)
        min_samples_split = _resolve_min_samples(self.min_samples_split, "min_samples_split", N, 2)
        return GrowParams(max_depth, max(min_samples_split, 2 * min_samples_leaf),
                          min_samples_leaf, _resolve_max_features(self.max_features, d))

    def _validate_X_predict(self, X: Any) -> np.ndarray:
        self._check_is_fitted("tree_")
        return to_float32(check_array(X, "X", estimator=self))

    def apply(self, X: Any) -> np.ndarray:
        """Index (into ``tree_`` arrays) of the leaf each row of ``X`` falls into.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        X32 = self._validate_X_predict(X)
        return self.tree_.apply(X32)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Normalised mean decrease in impurity of each feature (equation ``eq-rf-mdi``).

        :func:`~ensemble_ref.math.importance.tree_mdi` of ``tree_``: the weighted impurity
        decreases of the splits on each feature, divided by their sum (all 0 for a tree
        that is a single leaf), as scikit-learn's ``feature_importances_``.
        """
        self._check_is_fitted("tree_")
        return importance.tree_mdi(self.tree_, self.n_features_in_)

    def get_depth(self) -> int:
        """Depth of the tree (the root alone has depth 0)."""
        self._check_is_fitted("tree_")
        return self.tree_.max_depth

    def get_n_leaves(self) -> int:
        """Number of leaves of the tree."""
        self._check_is_fitted("tree_")
        return self.tree_.n_leaves


class DecisionTreeRegressor(RegressorMixin, _BaseDecisionTree):
    """Regression tree minimising the squared error (CART).

    Parameters
    ----------
    max_depth : int or None, default=None
        Maximum depth; ``None`` grows until leaves are pure or too small to split.
    min_samples_split : int or float, default=2
        Minimum number of points a node needs to be split (a float is a
        fraction of the training set, rounded up).
    min_samples_leaf : int or float, default=1
        Minimum number of points in each child of a split.
    max_features : None, int, float, "sqrt" or "log2", default=None
        Number of features drawn at random (without replacement) and searched
        at every node; ``None`` searches all of them.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the feature draws (only used when ``max_features`` subsamples).

    Attributes
    ----------
    tree_ : Tree
        The fitted tree; ``tree_.value`` has shape ``(node_count,)`` and holds the
        weighted mean of ``y`` in each node.
    n_features_in_ : int
    max_features_ : int

    Notes
    -----
    Each split maximises the decrease of the weighted squared error,
    equivalently ``S_L^2/W_L + S_R^2/W_R`` (equations
    ``eq-tree-impurity-decrease`` and ``eq-tree-sse-proxy``); a leaf predicts
    the weighted mean ``S_t / W_t`` of its targets. See the module docstring
    for how the tree is grown and how it matches scikit-learn's
    ``DecisionTreeRegressor``: identical training predictions, and identical
    predictions on new points whenever ``min_samples_leaf >= 10``.

    Like scikit-learn's, the impurity is evaluated as ``Q/W - (S/W)^2``
    (:func:`~ensemble_ref.math.impurity.squared_error_impurity`), which loses precision when the targets
    have a large common offset (``|mean(y)|`` many orders of magnitude above
    their spread); unlike scikit-learn, the tree therefore grows on ``y``
    centred on its mid-range, so that a shift of ``y`` shifts the
    predictions and changes no split.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> y = np.array([0., 0., 0., 0., 1., 1., 1., 1.])
    >>> float(DecisionTreeRegressor(max_depth=1).fit(X, y).tree_.threshold[0])
    3.5
    """

    def __init__(self, *, max_depth: int | None = None, min_samples_split: int | float = 2,
                 min_samples_leaf: int | float = 1, max_features: Any = None,
                 random_state: Any = None) -> None:
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "DecisionTreeRegressor":
        """Grow the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights with a positive sum; points of weight 0 are ignored.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        w = check_sample_weight(sample_weight, X.shape[0], scale_free=True)
        return self.fit_presorted(SortedColumns(to_float32(X)), y, w)

    def fit_presorted(self, data: SortedColumns, y: np.ndarray, w: np.ndarray
                      ) -> "DecisionTreeRegressor":
        """Fit on features presorted once (a booster's rounds), ``y`` and ``w`` validated.

        The criterion sees ``y`` centred on its mid-range (added back to the
        leaf values): its sums of ``w y^2`` would otherwise lose the spread of
        ``y`` to a large common offset (``y`` near 1e9 with spread 1).
        """
        grow_trees([self], data, y, [w])
        return self

    @staticmethod
    def _offset(y: np.ndarray, w: np.ndarray) -> float:
        positive = w > 0  # the mid-range: the same for weights or repeated rows, unlike a mean
        return 0.5 * float(y[positive].min()) + 0.5 * float(y[positive].max())

    @staticmethod
    def _coded_criterion(y: np.ndarray, offsets: np.ndarray) -> CodedSquaredError:
        return CodedSquaredError(y, offsets)

    @staticmethod
    def _criterion(y: np.ndarray, w: np.ndarray, offset: np.ndarray) -> SquaredError:
        return SquaredError(y - offset, w)

    def predict(self, X: Any) -> np.ndarray:
        """Value of the leaf each row falls into (``tree_.value[apply(X)]``)."""
        leaves = self.apply(X)
        return self.tree_.value.take(leaves, axis=0)  # (take: value[leaves], ten times faster)


class DecisionTreeClassifier(ClassifierMixin, _BaseDecisionTree):
    """Classification tree minimising the Gini impurity or the entropy (CART).

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
        Impurity ``i(t)``; ``"log_loss"`` is a synonym of ``"entropy"``.
    max_depth : int or None, default=None
        Maximum depth; ``None`` grows until leaves are pure or too small to split.
    min_samples_split : int or float, default=2
        Minimum number of points a node needs to be split.
    min_samples_leaf : int or float, default=1
        Minimum number of points in each child of a split.
    max_features : None, int, float, "sqrt" or "log2", default=None
        Number of features drawn at random and searched at every node.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the feature draws (only used when ``max_features`` subsamples).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted class labels.
    n_classes_ : int
    tree_ : Tree
        The fitted tree; ``tree_.value`` has shape ``(node_count, n_classes)``
        and holds the weighted class proportions of each node.
    n_features_in_ : int
    max_features_ : int

    Notes
    -----
    Each split maximises the impurity decrease (equation
    ``eq-tree-impurity-decrease``) with the Gini impurity
    ``1 - sum_k p_k^2`` (``eq-tree-gini``) or the entropy
    ``-sum_k p_k log2 p_k`` (``eq-tree-entropy``). ``predict_proba`` returns
    the class proportions of the leaf and ``predict`` the most frequent class
    (ties to the smallest label). See the module docstring for how the tree
    matches scikit-learn's ``DecisionTreeClassifier``.
    """

    def __init__(self, *, criterion: str = "gini", max_depth: int | None = None,
                 min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
                 max_features: Any = None, random_state: Any = None) -> None:
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.random_state = random_state

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "DecisionTreeClassifier":
        """Grow the tree on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (any sortable values; at least two distinct classes).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights with a positive sum; points of weight 0 are ignored.

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, estimator=self)
        classes, y_encoded = check_labels(y)
        w = check_sample_weight(sample_weight, X.shape[0], scale_free=True)
        return self.fit_encoded(X, y_encoded, w, classes)

    def fit_encoded(self, X: np.ndarray, y_encoded: np.ndarray, w: np.ndarray,
                     classes: np.ndarray) -> "DecisionTreeClassifier":
        """Fit on validated data with labels already encoded as ``0..len(classes)-1``.

        Ensembles use it so that every member knows all classes, even those
        missing from its bootstrap sample.
        """
        return self.fit_presorted(SortedColumns(to_float32(X)), y_encoded, w, classes)

    def fit_presorted(self, data: SortedColumns, y_encoded: np.ndarray, w: np.ndarray,
                      classes: np.ndarray) -> "DecisionTreeClassifier":
        """Fit on features presorted once (the members of a forest), labels encoded as in
        :meth:`fit_encoded`; points of weight 0 are left out."""
        grow_trees([self], data, y_encoded, [w], classes)
        return self

    def _set_classes(self, classes: np.ndarray) -> None:
        if self.criterion not in ("gini", "entropy", "log_loss"):
            raise ValueError(
                f"criterion must be 'gini', 'entropy' or 'log_loss', got {self.criterion!r}."
            )
        self.classes_ = classes
        self.n_classes_ = classes.size

    @staticmethod
    def _offset(y: np.ndarray, w: np.ndarray) -> float:
        return 0.0  # class labels are not shifted

    def _impurity(self) -> str:
        return "gini" if self.criterion == "gini" else "entropy"

    def _coded_criterion(self, y: np.ndarray, offsets: np.ndarray) -> CodedClassCounts:
        return CodedClassCounts(y, self.n_classes_, self._impurity())

    def _criterion(self, y: np.ndarray, w: np.ndarray, offset: np.ndarray) -> ClassCounts:
        return ClassCounts(y, w, self.n_classes_, self._impurity())

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class proportions of the leaf each row falls into, shape (n_samples, n_classes)."""
        leaves = self.apply(X)
        return self.tree_.value.take(leaves, axis=0)  # (take: value[leaves], ten times faster)

    def predict(self, X: Any) -> np.ndarray:
        """Most frequent class of the leaf each row falls into (ties to the smallest label)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
