"""Validation of the readable tree growers' arguments, built on :mod:`.validation`.

The readable growers of :mod:`ensemble_ref.trees.readable` and
:mod:`ensemble_ref.trees.readable_second_order` are public functions that the chapters
call directly, without an estimator's ``fit`` in front of them; they check their
arguments here, once, at the root of the recursion.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import check_integers
from .scalars import check_choice, check_float, check_int, check_reals
from .validation import check_array


def _check_rows(X: Any, *, allow_nan: bool) -> np.ndarray:
    X = check_array(X, "X", allow_nan=allow_nan)
    if X.shape[0] == 0:
        raise ValueError("X has no rows: a tree needs at least one sample.")
    return X


def check_tree_data(X: Any, y: Any, *, criterion: str, max_depth: Any, min_samples_leaf: Any,
                    n_classes: Any, criteria: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, int | None]:
    """``(X, y, n_classes)`` for the readable CART grower (alg-tree-grow), or an error naming the argument.

    ``X`` is a finite 2-D array with at least one row; ``y`` a 1-D array of the same
    length: finite reals for ``squared_error``, class labels ``0..K-1`` (integers) for
    the classification criteria, with ``n_classes`` (default ``max(y) + 1``) above every label.
    """
    X = _check_rows(X, allow_nan=False)
    check_choice(criterion, "criterion", criteria)
    check_int(max_depth, "max_depth", low=0, allow_none=True)
    check_int(min_samples_leaf, "min_samples_leaf", low=1)
    if criterion == "squared_error":
        y = check_reals(y, "y", ndim=1)
    else:
        y = check_integers(y, "y", low=0, message="class labels 0, 1, ..., K - 1")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-D with one entry per row of X ({X.shape[0]}); got shape {y.shape}.")
    if criterion != "squared_error":
        n_classes = int(y.max()) + 1 if n_classes is None else \
            check_int(n_classes, "n_classes", low=int(y.max()) + 1)
    return X, y, n_classes


def check_gradient_data(g: Any, h: Any, X: Any, *, lam: Any, tau: Any, max_depth: Any,
                        min_child_weight: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(g, h, X)`` for the readable second-order grower (alg-xgb-tree), or an error naming the argument.

    ``X`` is 2-D with at least one row (NaN marks a missing value, infinity is refused);
    ``g`` finite and ``h`` finite and non-negative, one entry per row; the penalties and
    ``min_child_weight`` non-negative, ``max_depth`` a non-negative integer.
    """
    X = _check_rows(X, allow_nan=True)
    g = check_reals(g, "g", ndim=1)
    h = check_reals(h, "h", low=0.0, ndim=1)
    for name, v in (("g", g), ("h", h)):
        if v.shape[0] != X.shape[0]:
            raise ValueError(f"{name} must have one entry per row of X ({X.shape[0]}); got {v.shape[0]}.")
    check_float(lam, "lam", low=0.0)
    check_float(tau, "tau", low=0.0)
    check_int(max_depth, "max_depth", low=0)
    check_float(min_child_weight, "min_child_weight", low=0.0)
    return g, h, X


def check_shards(shards: Any) -> list:
    """The data-parallel tree's shards as a non-empty list (their contents are checked where they live)."""
    if not isinstance(shards, (list, tuple)):
        raise TypeError(f"shards must be a list of shards (codes, g, h) or of handles to them, "
                        f"got {type(shards).__name__}.")
    if not shards:
        raise ValueError("shards is empty: the tree needs at least one shard (codes, g, h).")
    return list(shards)


def check_shard(shard: Any, n_rows_of: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """One shard ``(codes, g, h)``: ``g`` finite and ``h`` finite and non-negative, one entry
    per row of ``codes`` (``n_rows_of(codes)`` rows; the codes are checked by the grower)."""
    if not isinstance(shard, (list, tuple)) or len(shard) != 3:
        size = f" of length {len(shard)}" if hasattr(shard, "__len__") else ""
        raise ValueError(f"shards: each shard must be a triple (codes, g, h), got {type(shard).__name__}{size}.")
    codes, g, h = shard
    check_reals(g, "g", ndim=1)
    check_reals(h, "h", low=0.0, ndim=1)
    # the arrays themselves, not copies: a worker recognises its shard's rows by them
    g, h = np.asarray(g, dtype=np.float64), np.asarray(h, dtype=np.float64)
    n = n_rows_of(codes)
    for name, v in (("g", g), ("h", h)):
        if v.shape[0] != n:
            raise ValueError(f"{name} must have one entry per row of the shard's codes ({n}); got {v.shape[0]}.")
    return codes, g, h


def check_cuts_match(n_cuts: int, n_features: int) -> None:
    """One array of cut points per feature of the shards' codes."""
    if n_cuts != n_features:
        raise ValueError(f"cuts must hold one array of cut points per feature: {n_cuts} arrays "
                         f"for codes with {n_features} features.")
