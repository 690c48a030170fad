"""The chapters' plumbing, written once: glued numbers, members' outputs, staged errors."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["glue_numbers", "member_outputs", "staged_error_curve"]


def glue_numbers(**values: Any) -> None:
    """Glue each keyword as a number the prose quotes with ``{glue:text}`name:fmt```.

    NumPy scalars and 0-d arrays are converted to Python ``float`` (or ``int``
    for integers), so the text formats apply. Nothing is displayed.
    """
    from myst_nb import glue  # the book's environment; not a dependency of the package

    for name, value in values.items():
        arr = np.asarray(value)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be a single number, got {type(value).__name__} "
                            f"of shape {arr.shape}.")
        if arr.dtype.kind == "f" and not np.isfinite(arr):
            raise ValueError(f"{name} must be finite, got {value}.")
        number = int(arr) if arr.dtype.kind in "biu" else float(arr)
        glue(name, number, display=False)


def member_outputs(ensemble: Any, X: Any, method: str = "predict_proba") -> np.ndarray:
    """Each fitted member's output on ``X``, stacked: shape ``(M, n, ...)``.

    Parameters
    ----------
    ensemble : fitted estimator with ``estimators_``
    X : array-like of shape (n, d)
    method : {"predict_proba", "predict", "decision_function"}, default="predict_proba"
    """
    if method not in ("predict_proba", "predict", "decision_function"):
        raise ValueError("method must be 'predict_proba', 'predict' or 'decision_function', "
                         f"got {method!r}.")
    members = getattr(ensemble, "estimators_", None)
    if members is None:
        raise TypeError(f"ensemble must be a fitted ensemble with estimators_, "
                        f"got {type(ensemble).__name__}.")
    return np.array([getattr(member, method)(X) for member in members])


def staged_error_curve(model: Any, X: Any, y: Any) -> np.ndarray:
    """Misclassification rate after each stage of a boosted model (``staged_predict``)."""
    y = np.asarray(y)
    if not hasattr(model, "staged_predict"):
        raise TypeError(f"model must have staged_predict, got {type(model).__name__}.")
    return np.array([np.mean(pred != y) for pred in model.staged_predict(X)])
