r"""A decision tree you can read whole: CART grown greedily and pruned by weakest links.

This module is the book's pseudo-code in Python, for reading rather than for
speed (:class:`~ensemble_ref.trees.cart.DecisionTreeRegressor` and
:class:`~ensemble_ref.trees.cart.DecisionTreeClassifier` grow the same trees, level by
level and vectorised). Everything is NumPy and every function is short:

* :func:`gini`, :func:`entropy`, :func:`misclassification` and
  :func:`squared_error` are the impurities of a node (equations
  ``eq-tree-gini``, ``eq-tree-entropy`` and ``eq-tree-sse``);
* :func:`best_split` searches every feature and every threshold of a node for
  the largest impurity decrease (``eq-tree-impurity-decrease``);
* :func:`grow_tree` calls it recursively until a stopping rule holds;
  :func:`predict` sends points down the tree;
* :func:`pruning_path` and :func:`prune` implement minimal cost-complexity
  (weakest-link) pruning;
* :func:`exhaustive_splits` is the brute force the chapter checks both growers
  against: the impurities of the two children of *every* split ``x_j <= s``.

Conventions (the fast trees' and scikit-learn's): a point goes left when
``x_j <= s``; thresholds are midpoints ``x_(p-1)/2 + x_(p)/2`` between
consecutive distinct values of the node; features are visited in index order,
thresholds from left to right, and a candidate replaces the best so far only
when it is *strictly* better, so ties go to the first feature and the
left-most threshold. Classification labels are integers ``0, ..., K-1``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core.growers import check_tree_data
from ..math import impurity as formulas

__all__ = ["Node", "gini", "entropy", "misclassification", "squared_error", "node_impurity",
           "best_split", "grow_tree", "predict", "leaves", "n_leaves", "pruning_path", "prune",
           "exhaustive_splits", "impurity_decrease", "bootstrap_nearest_weights",
           "min_cost_complexity", "cost_complexity", "PruningPath", "Splits"]

EPSILON = np.finfo(float).eps  # a node whose impurity is at most this is pure


# --- impurities ----------------------------------------------------------------------------
def gini(counts) -> float:
    """Gini impurity 1 - sum_k p_k^2 of a node with class counts ``counts`` (eq-tree-gini).

    The formula is the package's one implementation, which the fast trees use too.
    """
    return float(formulas.gini_impurity(np.asarray(counts, dtype=float)))


def entropy(counts) -> float:
    """Entropy -sum_k p_k log2 p_k, in bits, of a node with class counts ``counts`` (eq-tree-entropy)."""
    return float(formulas.entropy_impurity(np.asarray(counts, dtype=float)))


def misclassification(counts) -> float:
    """Misclassification rate 1 - max_k p_k of a node (an impurity CART does not grow with)."""
    c = np.asarray(counts, dtype=float)
    return 1.0 - c.max() / c.sum()


def squared_error(y) -> float:
    """Mean squared deviation of the targets from their mean (eq-tree-sse)."""
    y = np.asarray(y, dtype=float)
    return np.mean((y - y.mean()) ** 2)


def impurity_decrease(counts_left, counts_right, impurity=gini) -> float:
    """i(t) - (W_L/W_t) i(L) - (W_R/W_t) i(R) for a node split into two children (eq-tree-impurity-decrease)."""
    cl, cr = np.asarray(counts_left, dtype=float), np.asarray(counts_right, dtype=float)
    W_L, W_R = cl.sum(), cr.sum()
    W = W_L + W_R
    return impurity(cl + cr) - W_L / W * impurity(cl) - W_R / W * impurity(cr)


IMPURITIES = {"gini": gini, "entropy": entropy, "misclassification": misclassification}


def node_impurity(y, criterion: str, n_classes: int = 0) -> float:
    """Impurity of the node holding targets ``y``: class counts first, unless regression."""
    if criterion == "squared_error":
        return squared_error(y)
    return IMPURITIES[criterion](np.bincount(y, minlength=n_classes))


# --- the tree ------------------------------------------------------------------------------
@dataclass
class Node:
    """A node: its prediction, impurity and size; a split and two children unless a leaf."""

    value: np.ndarray   # mean of y (regression) or class proportions (classification)
    impurity: float
    n: int
    feature: int = -1
    threshold: float = np.nan
    left: "Node | None" = None
    right: "Node | None" = None

    @property
    def is_leaf(self) -> bool:
        return self.left is None


def best_split(X, y, criterion: str, n_classes: int = 0, min_samples_leaf: int = 1):
    """Feature and threshold of the split with the smallest n_L i(L) + n_R i(R), or None.

    Minimising the children's weighted impurity is maximising the impurity
    decrease (eq-tree-impurity-decrease): i(t) and n_t are fixed within the node.
    """
    n, d = X.shape
    best_score, best = np.inf, None
    for j in range(d):
        order = np.argsort(X[:, j], kind="stable")
        x, ys = X[order, j], y[order]
        for i in range(min_samples_leaf, n - min_samples_leaf + 1):
            if x[i] == x[i - 1]:
                continue  # no threshold separates equal values
            score = (i * node_impurity(ys[:i], criterion, n_classes)
                     + (n - i) * node_impurity(ys[i:], criterion, n_classes))
            if score < best_score:  # strictly better: ties keep the first split found
                best_score, best = score, (j, x[i - 1] / 2.0 + x[i] / 2.0)
    return best


def grow_tree(X, y, criterion: str = "squared_error", max_depth: int | None = None,
              min_samples_leaf: int = 1, n_classes: int | None = None, depth: int = 0) -> Node:
    """Grow a tree greedily (the book's algorithm alg-tree-grow), recursively from ``depth``."""
    if depth == 0:  # the root checks the arguments once, for the whole recursion
        X, y, n_classes = check_tree_data(X, y, criterion=criterion, max_depth=max_depth,
                                          min_samples_leaf=min_samples_leaf, n_classes=n_classes,
                                          criteria=("squared_error", *IMPURITIES))
    if criterion == "squared_error":
        value = np.mean(y)
    else:
        value = np.bincount(y, minlength=n_classes) / len(y)
    node = Node(value, node_impurity(y, criterion, n_classes), len(y))
    if ((max_depth is not None and depth >= max_depth) or len(y) < 2 * min_samples_leaf
            or node.impurity <= EPSILON):
        return node  # stopping rules: deep enough, too small to split, or pure
    split = best_split(X, y, criterion, n_classes, min_samples_leaf)
    if split is None:
        return node  # every feature is constant in the node
    node.feature, node.threshold = split
    go_left = X[:, node.feature] <= node.threshold
    node.left = grow_tree(X[go_left], y[go_left], criterion, max_depth, min_samples_leaf,
                          n_classes, depth + 1)
    node.right = grow_tree(X[~go_left], y[~go_left], criterion, max_depth, min_samples_leaf,
                           n_classes, depth + 1)
    return node


def predict(tree: Node, X) -> np.ndarray:
    """The value of the leaf each row of ``X`` falls into (a class's proportion per column)."""
    def leaf_value(x):
        node = tree
        while not node.is_leaf:
            node = node.left if x[node.feature] <= node.threshold else node.right
        return node.value

    return np.array([leaf_value(x) for x in np.asarray(X, dtype=float)])


# --- minimal cost-complexity pruning --------------------------------------------------------
def leaves(node: Node) -> list[Node]:
    """The leaves below ``node``, left to right."""
    return [node] if node.is_leaf else leaves(node.left) + leaves(node.right)


def n_leaves(node: Node) -> int:
    return len(leaves(node))


def _inner_nodes(node: Node) -> list[Node]:
    if node.is_leaf:
        return []
    return [node] + _inner_nodes(node.left) + _inner_nodes(node.right)


def _cost(node: Node, N: int) -> float:
    """R(node) = (n_t / N) i(t): the node's share of the training impurity."""
    return node.n / N * node.impurity


def _link_alpha(node: Node, N: int) -> float:
    """g(t) = (R(t) - R(T_t)) / (|T_t| - 1), the penalty per leaf tau at which the branch stops paying."""
    branch = sum(_cost(leaf, N) for leaf in leaves(node))
    return (_cost(node, N) - branch) / (n_leaves(node) - 1)


class PruningPath(NamedTuple):
    """Weakest-link pruning: for a penalty per leaf tau in [alphas[k], alphas[k+1]) the best
    subtree has ``n_leaves[k]`` leaves and training cost ``costs[k]`` (sum of R over its leaves).

    ``alphas`` holds the breakpoints tau_k of eq-tree-weakest-link, named as scikit-learn's
    ``ccp_alphas``."""

    alphas: np.ndarray
    costs: np.ndarray
    n_leaves: np.ndarray


def _collapse_weakest(tree: Node, N: int, rtol: float = 1e-9) -> float:
    """Turn every weakest link (smallest g, up to rounding) into a leaf; return its g."""
    inner = _inner_nodes(tree)
    g = np.array([_link_alpha(t, N) for t in inner])
    alpha = g.min()
    for t, g_t in zip(inner, g):
        if g_t <= alpha + rtol * abs(alpha):
            t.left = t.right = None  # ancestors come first, so a tie inside is dropped with it
    return float(alpha)


def pruning_path(tree: Node) -> PruningPath:
    """The increasing penalties per leaf tau_k at which the optimal subtree shrinks, down to
    the root alone."""
    tree = copy.deepcopy(tree)
    N = tree.n
    alphas, costs, sizes = [0.0], [sum(_cost(l, N) for l in leaves(tree))], [n_leaves(tree)]
    while not tree.is_leaf:
        alphas.append(_collapse_weakest(tree, N))
        costs.append(sum(_cost(l, N) for l in leaves(tree)))
        sizes.append(n_leaves(tree))
    return PruningPath(np.array(alphas), np.array(costs), np.array(sizes))


def prune(tree: Node, alpha: float) -> Node:
    """The smallest subtree minimising ``R(T) + tau |T|``, tau = ``alpha`` (scikit-learn's
    ``ccp_alpha``): collapse weakest links while g <= tau."""
    tree = copy.deepcopy(tree)
    while not tree.is_leaf and min(_link_alpha(t, tree.n) for t in _inner_nodes(tree)) <= alpha:
        _collapse_weakest(tree, tree.n)
    return tree


def min_cost_complexity(node: Node, alpha: float, N: int | None = None) -> float:
    """min over all pruned subtrees T of ``R(T) + tau |T|``, tau = ``alpha``, by brute force.

    A subtree of ``node`` either stops at ``node`` (cost R(t) + tau) or keeps
    its split and prunes both children as well as they can be pruned.
    """
    N = node.n if N is None else N
    stop = _cost(node, N) + alpha
    if node.is_leaf:
        return stop
    return min(stop, min_cost_complexity(node.left, alpha, N)
               + min_cost_complexity(node.right, alpha, N))


def cost_complexity(tree: Node, alpha: float) -> float:
    """``R_tau(T) = R(T) + tau |T|`` of the tree as it stands, tau = ``alpha``
    (eq-tree-cost-complexity)."""
    return sum(_cost(leaf, tree.n) for leaf in leaves(tree)) + alpha * n_leaves(tree)


# --- a full tree on one feature under the bootstrap ----------------------------------------
def bootstrap_nearest_weights(N: int) -> np.ndarray:
    """P(the k-th nearest of N points is the nearest one in a bootstrap sample), k = 1..N.

    The k - 1 nearer points are all absent with probability (1 - (k-1)/N)^N, so
    pi_k = (1 - (k-1)/N)^N - (1 - k/N)^N (eq-tree-bagged-nn).
    """
    k = np.arange(1, N + 1)
    return (1 - (k - 1) / N) ** N - (1 - k / N) ** N


# --- brute force ---------------------------------------------------------------------------
class Splits(NamedTuple):
    """Every split ``x_j <= s`` of a node with two non-empty children (brute force)."""

    feature: np.ndarray
    threshold: np.ndarray
    n_left: np.ndarray
    n_right: np.ndarray
    impurity_left: np.ndarray
    impurity_right: np.ndarray


def exhaustive_splits(X, y, impurity) -> Splits:
    """Children's sizes and impurities for every feature j and every data value s as threshold.

    ``impurity`` maps the targets of a child to its impurity, e.g.
    ``lambda y: gini(np.bincount(y))``. No sorting, no cumulative sums: each
    split is evaluated from scratch, so this checks the growers independently.
    """
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    rows = []
    for j in range(X.shape[1]):
        for s in np.unique(X[:, j])[:-1]:  # the largest value would leave the right child empty
            left = X[:, j] <= s
            rows.append((j, s, left.sum(), (~left).sum(), impurity(y[left]), impurity(y[~left])))
    return Splits(*(np.array(col) for col in zip(*rows)))
