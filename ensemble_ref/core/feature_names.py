"""Feature names: what an estimator fitted on a data frame records, and the check at predict time.

An estimator fitted on a table with string column names records them in
``feature_names_in_``; data with its columns renamed or reordered is then an error,
and a plain array given to an estimator fitted on a table (or the other way round)
a warning, as in scikit-learn. :mod:`ensemble_ref.core.validation` re-exports these.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

__all__ = ["feature_names"]


def feature_names(X: Any) -> np.ndarray | None:
    """The column names of a data frame when they are all strings, else ``None``.

    Like scikit-learn, only string names are recorded (integer column labels, as
    a frame built from an array has, are positions rather than names).
    """
    columns = getattr(X, "columns", None)
    if columns is None or isinstance(X, np.ndarray):
        return None
    names = np.asarray(list(columns), dtype=object)
    if names.size and all(isinstance(c, str) for c in names):
        return names
    return None


def _check_feature_names(X: Any, estimator: Any, name: str) -> None:
    """Compare the column names of ``X`` with those seen in ``fit`` (order included)."""
    fitted = getattr(estimator, "feature_names_in_", None)
    given = feature_names(X)
    owner = type(estimator).__name__
    if fitted is None and given is None:
        return
    if fitted is None:
        warnings.warn(f"{name} has feature names, but {owner} was fitted without feature names",
                      UserWarning, stacklevel=3)
        return
    if given is None:
        warnings.warn(f"{name} does not have valid feature names, but {owner} was fitted with "
                      "feature names", UserWarning, stacklevel=3)
        return
    if len(given) == len(fitted) and np.array_equal(given, fitted):
        return
    if len(given) == len(fitted) and set(given) == set(fitted):
        problem = "are in a different order than in fit (reorder the columns)"
    else:
        unseen = [c for c in given if c not in set(fitted)][:5]
        missing = [c for c in fitted if c not in set(given)][:5]
        problem = (f"differ from those seen in fit: unseen {unseen}, missing {missing}")
    raise ValueError(f"The feature names of {name} should match those that were passed during "
                     f"fit: the feature names of {name} {problem}; fitted with {list(fitted)}.")
