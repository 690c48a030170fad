"""The chapters' plumbing, written once: glued numbers, members' outputs, staged errors."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["glue_numbers", "glue_text", "member_outputs", "staged_error_curve"]


# MyST-NB's glue protocol: an output of MIME types under this prefix, named in the
# "scrapbook" metadata, is what ``{glue:text}`` reads (``myst_nb.ext.glue.GLUE_PREFIX``).
GLUE_PREFIX = "application/papermill.record/"


def _glue(name: str, value: Any) -> None:
    """Record ``value`` under ``name`` for the book's text, without displaying it.

    The output of ``myst_nb.glue(name, value, display=False)``, written here because
    importing MyST-NB's glue module imports ``nbformat`` and with it ``jsonschema``,
    whose IRI checker builds some thirty parsers on import: 1.3 s in every kernel
    that runs a chapter, for nothing a chapter uses (``tests/test_glue.py`` checks
    that both outputs are the same).
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display

    bundle, metadata = format_display_data(value)
    metadata["scrapbook"] = {"name": name, "mime_prefix": GLUE_PREFIX}
    display({GLUE_PREFIX + mime: data for mime, data in bundle.items()}, raw=True,
            metadata=metadata)


def glue_numbers(**values: Any) -> None:
    """Glue each keyword as a number the prose quotes with ``{glue:text}`name:fmt```.

    NumPy scalars and 0-d arrays are converted to Python ``float`` (or ``int``
    for integers), so the text formats apply. Nothing is displayed.
    """
    for name, value in values.items():
        arr = np.asarray(value)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be a single number, got {type(value).__name__} "
                            f"of shape {arr.shape}.")
        if arr.dtype.kind == "f" and not np.isfinite(arr):
            raise ValueError(f"{name} must be finite, got {value}.")
        number = int(arr) if arr.dtype.kind in "biu" else float(arr)
        _glue(name, number)


def glue_text(**values: Any) -> None:
    """Glue each keyword as text the prose quotes: a string with ``{glue:text}`name```, an
    ``IPython.display.Markdown`` (a version number, a value in code font) with
    ``{glue:md}`name```. Nothing is displayed.
    """
    from IPython.display import Markdown

    for name, value in values.items():  # every value checked before any is glued
        if not isinstance(value, str | Markdown):
            raise TypeError(f"{name} must be a str or an IPython.display.Markdown, got "
                            f"{type(value).__name__} (glue numbers with glue_numbers).")
    for name, value in values.items():
        _glue(name, value if isinstance(value, Markdown) else str(value))  # np.str_ as its text


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
