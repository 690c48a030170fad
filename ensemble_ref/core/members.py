"""Helpers the ensembles share: training members in parallel and reading their votes."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["parallel_map", "member_proba"]


def parallel_map(function: Callable, tasks: Sequence[tuple], n_jobs: int | None) -> list:
    """``[function(*task) for task in tasks]``, through joblib when ``n_jobs`` asks for it.

    joblib is imported only here, so it is needed only for parallel training.
    The active joblib backend is used, so ``with joblib.parallel_backend("dask"):``
    (or ``"ray"``) sends the work to a cluster.
    """
    if n_jobs is None or n_jobs == 1:
        return [function(*task) for task in tasks]
    try:
        from joblib import Parallel, delayed
    except ImportError:
        raise ImportError(
            f"n_jobs={n_jobs} trains the members in parallel with joblib, which is not "
            "installed; install it (pip install joblib, or ensemble_ref[parallel]) or use "
            "n_jobs=None."
        ) from None
    return Parallel(n_jobs=n_jobs)(delayed(function)(*task) for task in tasks)


def member_proba(estimator: Any, X: np.ndarray, n_classes: int) -> np.ndarray:
    """Class probabilities of a member trained on labels ``0..n_classes-1``, shape (n, n_classes).

    A member without ``predict_proba`` contributes a one-hot vote. A member that
    saw only some classes gets zero probability for the others.
    """
    if hasattr(estimator, "predict_proba"):
        P = np.asarray(estimator.predict_proba(X), dtype=float)
        columns = np.asarray(estimator.classes_, dtype=np.intp)
    else:
        labels = np.asarray(estimator.predict(X)).astype(np.intp)
        P = np.zeros((X.shape[0], n_classes))
        P[np.arange(X.shape[0]), labels] = 1.0  # one vote for the predicted class
        return P
    out = np.zeros((X.shape[0], n_classes))
    out[:, columns] = P
    return out
