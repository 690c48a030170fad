"""K-fold cross-validation: the estimate of the test error that the out-of-bag error competes with.

The data are shuffled once and cut into ``K`` folds of sizes differing by at
most one. For each fold, a fresh copy of the estimator is trained on the other
``K - 1`` folds and scored on the fold left out; the cross-validation error is
the average of the per-point losses over all ``N`` points,

.. math:: \\widehat{\\mathrm{Err}}^{\\mathrm{CV}} = \\frac{1}{N} \\sum_{j=1}^{K}
          \\sum_{i \\in F_j} \\ell\\bigl(y_i, f^{(-j)}(x_i)\\bigr),

equation ``eq-cv-error`` of the book (chapter *Bagging, pasting and out-of-bag
estimation*), where :math:`f^{(-j)}` is trained without fold :math:`F_j`.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ensemble_ref.core.base import clone
from ensemble_ref.core.validation import check_array, check_int, check_random_state

__all__ = ["kfold_indices", "cross_val_error"]


def kfold_indices(n_samples: int, n_splits: int, random_state: np.random.Generator | int | None
                  ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield ``(train, test)`` index arrays of ``K``-fold cross-validation.

    Parameters
    ----------
    n_samples : int
        ``N``, the number of points.
    n_splits : int
        ``K``, with ``2 <= K <= N``.
    random_state : numpy.random.Generator or int
        Seed of the single shuffle that assigns points to folds.

    Yields
    ------
    train, test : ndarray of int
        Sorted indices; the ``K`` test folds partition ``0..N-1`` and have sizes
        ``floor(N/K)`` or ``ceil(N/K)``.
    """
    N = check_int(n_samples, "n_samples", low=2)
    K = check_int(n_splits, "n_splits", low=2, high=N)
    rng = check_random_state(random_state, "random_state")
    return _kfold(N, K, rng)  # validated now, not when the folds are first asked for


def _kfold(N: int, K: int, rng: np.random.Generator) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    folds = np.array_split(rng.permutation(N), K)  # one shuffle, K near-equal folds F_j
    for j in range(K):
        test = np.sort(folds[j])
        train = np.sort(np.concatenate([folds[i] for i in range(K) if i != j]))
        yield train, test


def cross_val_error(estimator: Any, X: Any, y: Any, n_splits: int = 5, *,
                    loss: str = "zero_one",
                    random_state: np.random.Generator | int | None = None) -> float:
    """K-fold cross-validation error of ``estimator`` (equation ``eq-cv-error``).

    Parameters
    ----------
    estimator : estimator with ``fit``, ``predict`` and ``get_params``
        Copied (never modified) once per fold.
    X : array of shape (n_samples, n_features)
    y : array of shape (n_samples,)
    n_splits : int, default=5
        ``K``.
    loss : {"zero_one", "squared_error"}, default="zero_one"
        Misclassification rate (classifiers) or mean squared error (regressors).
    random_state : numpy.random.Generator or int
        Seed of the assignment of points to folds.

    Returns
    -------
    float
        The average loss of the out-of-fold predictions over all ``N`` points.
    """
    if not all(hasattr(estimator, a) for a in ("fit", "predict", "get_params")):
        raise TypeError("estimator must have fit, predict and get_params (a scikit-learn style "
                        f"estimator), got {type(estimator).__name__}.")
    X = check_array(X, "X")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) to match X, got {y.shape}.")
    if loss not in ("zero_one", "squared_error"):
        raise ValueError(f"loss must be 'zero_one' or 'squared_error', got {loss!r}.")
    total = 0.0
    for train, test in kfold_indices(X.shape[0], n_splits, random_state):
        model = clone(estimator).fit(X[train], y[train])  # f^(-j): trained without fold j
        pred = model.predict(X[test])
        if loss == "zero_one":
            total += float(np.sum(pred != y[test]))
        else:
            total += float(np.sum((np.asarray(pred, float) - y[test]) ** 2))
    return total / X.shape[0]  # eq-cv-error
