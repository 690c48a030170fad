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

__all__ = ["feature_names", "check_numeric_columns"]

NUMERIC_KINDS = "biuf"  # bool, signed and unsigned integers, floats


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


def check_numeric_columns(X: Any, name: str = "X") -> None:
    """A data frame's columns must all be numeric (int, float or bool), as scikit-learn requires.

    A column of strings (``object``, ``string``), of categories or of dates is refused
    (an ``object`` column that holds only numbers is accepted)
    with a ``ValueError`` that names every such column and its dtype, and says what is
    accepted, instead of failing later in a float conversion (or, for categories with
    numeric labels, silently using the labels as numbers). Anything without ``dtypes``
    and ``columns`` (an array, a list) is left to :func:`~ensemble_ref.core.validation.check_array`.
    """
    dtypes, columns = getattr(X, "dtypes", None), getattr(X, "columns", None)
    if dtypes is None or columns is None or isinstance(X, np.ndarray):
        return
    bad = [(column, dtype) for i, (column, dtype) in enumerate(zip(columns, dtypes))
           if getattr(dtype, "kind", "O") not in NUMERIC_KINDS and not _numbers(X.iloc[:, i], dtype)]
    if bad:
        listed = ", ".join(f"{column!r} ({dtype})" for column, dtype in bad[:10])
        raise ValueError(
            f"{name} has {len(bad)} non-numeric column(s): {listed}{' ...' if len(bad) > 10 else ''}. "
            "ensemble_ref accepts numeric columns only (int, float or bool dtypes): encode "
            "categories and strings as numbers (e.g. one-hot or ordinal codes) and dates as "
            "numbers (e.g. days since a reference date) first.")


def _numbers(column: Any, dtype: Any) -> bool:
    """Whether an ``object`` column holds only numbers (scikit-learn converts such a column)."""
    if str(dtype) != "object":
        return False
    try:
        np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


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
