"""Input validation shared by every public function and estimator.

Each check raises ``TypeError`` or ``ValueError`` with a message that names the
offending parameter and the values it accepts, so that a student's mistake is
reported where it is made instead of surfacing later as a NaN.

This module is the one entry point: the checks of scalars (:mod:`.scalars`) and of
array shapes, integer codes and orders (:mod:`ensemble_ref.core.arrays`) are re-exported here. The
modules of ``math/`` import their checks from here and define none of their own
(``tests/test_layers.py``); a new kind of check is added here, general and named
after what it accepts.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from typing import Any

import numpy as np

from .arrays import (  # noqa: F401  (re-exported: one entry point for validation)
    DtypeError,
    centre_integers,
    check_distribution,
    check_dtype,
    check_equicorrelation,
    check_increasing,
    check_integers,
    check_nonzero,
    check_permutation,
    check_same_shape,
    check_sequence,
    check_shape,
    check_values,
    integer_offsets,
)
from .feature_names import _check_feature_names, check_numeric_columns, feature_names  # noqa: F401
from .scalars import (  # noqa: F401  (re-exported: one entry point for validation)
    as_output,
    check_attributes,
    check_bool,
    check_callable,
    check_choice,
    check_estimator,
    check_float,
    check_int,
    check_n_jobs,
    check_pair,
    check_random_state,
    check_reals,
    check_seed,
    check_size,
)

__all__ = [
    "check_array",
    "check_X_y",
    "check_sample_weight",
    "check_class_weights",
    "check_labels",
    "check_scale",
    "check_target",
    "check_finite_scores",
]


def check_array(X: Any, name: str = "X", *, ensure_2d: bool = True, allow_nan: bool = False,
                n_features: int | None = None, estimator: Any = None) -> np.ndarray:
    """Convert ``X`` to a finite float64 array of shape ``(n_samples, n_features)``.

    Parameters
    ----------
    X : array-like
        The data. Strings, ragged lists, complex numbers and objects are rejected.
    name : str
        Parameter name used in error messages.
    ensure_2d : bool
        Require a 2-D array (a 1-D ``X`` is rejected with a hint to reshape).
    allow_nan : bool
        Allow NaN (but never infinity); used by estimators that learn a
        default direction for missing values.
    n_features : int, optional
        The number of columns seen in ``fit``; a different count is an error.
    estimator : fitted estimator, optional
        At prediction time: ``X`` must have ``estimator.n_features_in_`` columns and,
        when the estimator was fitted on a data frame, the same column names in the
        same order (``feature_names_in_``).
    """
    if X is None:
        raise TypeError(f"{name} must be an array-like of numbers, got None.")
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # scipy.sparse matrix or array
        raise TypeError(f"{name} is a scipy sparse {type(X).__name__}; sparse input is not supported "
                        f"by ensemble_ref: pass a dense array ({name}.toarray()).")
    check_numeric_columns(X, name)  # a data frame: every column int, float or bool
    if estimator is not None:
        _check_feature_names(X, estimator, name)
        n_features = estimator.n_features_in_
    try:
        arr = np.asarray(X)
    except ValueError as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a rectangular array of numbers (ragged input?): {exc}") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise type(exc)(
                f"{name} must be a rectangular array of real numbers; got ragged rows or "
                f"non-numeric entries ({exc})."
            ) from None
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must contain real numbers: Complex data not supported "
                         f"(got dtype {arr.dtype}).")
    if arr.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must contain real numbers (bool, int or float), got dtype {arr.dtype}."
        )
    arr = arr.astype(np.float64, copy=False)
    if ensure_2d:
        if arr.ndim == 1:
            raise ValueError(
                f"{name} must be 2-D of shape (n_samples, n_features), got a 1-D array of "
                f"shape {arr.shape}. Reshape your data: {name}.reshape(-1, 1) for a single feature."
            )
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features), got {arr.ndim}-D.")
        if arr.shape[1] == 0:
            raise ValueError(f"{name} must have at least one feature (column): found array with "
                             f"0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one sample, got shape {arr.shape}.")
    if allow_nan:
        if np.isinf(arr).any():
            raise ValueError(f"{name} must not contain infinity (NaN marks a missing value).")
    elif not np.isfinite(arr).all():
        raise ValueError(f"{name} must not contain NaN or infinity.")
    if n_features is not None and ensure_2d and arr.shape[1] != n_features:
        owner = "the estimator" if estimator is None else type(estimator).__name__
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but {owner} is expecting {n_features} features "
            f"as input (it was fitted with {n_features} features)."
        )
    return arr


def check_X_y(X: Any, y: Any, *, y_numeric: bool = False, allow_nan: bool = False,
              estimator: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix and a target of matching length.

    With ``y_numeric=True`` the target is converted to finite float64 values
    (regression); otherwise it is returned as a 1-D array of labels. With
    ``estimator``, records ``estimator.n_features_in_`` and, for a data frame
    with string column names, ``estimator.feature_names_in_`` (predictions then
    check them, see :func:`check_array`).
    """
    if y is None:
        raise ValueError("y is None: this estimator requires y to be passed, but the target y is None.")
    X_checked = check_array(X, "X", allow_nan=allow_nan)
    y = check_target(y, X_checked.shape[0], y_numeric=y_numeric)
    if estimator is not None:
        estimator.n_features_in_ = X_checked.shape[1]
        names = feature_names(X)
        if names is not None:
            estimator.feature_names_in_ = names
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    return X_checked, y


def _data_conversion_warning() -> type:
    """scikit-learn's ``DataConversionWarning`` when scikit-learn is loaded, else ``UserWarning``."""
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    return UserWarning if sklearn_exceptions is None else sklearn_exceptions.DataConversionWarning


def check_target(y: Any, n_samples: int, *, y_numeric: bool = False) -> np.ndarray:
    """A 1-D target of length ``n_samples``: finite floats (``y_numeric``) or class labels."""
    if y is None:
        raise ValueError("y is None: this estimator requires y to be passed, but the target y is None.")
    if hasattr(y, "toarray") and hasattr(y, "nnz"):
        raise TypeError("y is a scipy sparse matrix; sparse input is not supported: pass a dense 1-D y.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected: y of shape "
                      f"{y.shape} is used as shape ({y.shape[0]},).", _data_conversion_warning(),
                      stacklevel=3)
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D of shape (n_samples,), got shape {y.shape}; "
                         "multi-output targets are not supported.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X and y have inconsistent lengths: X has {n_samples} samples, y has {y.shape[0]}."
        )
    if y_numeric:
        if y.dtype == object:
            try:
                y = y.astype(np.float64)
            except (TypeError, ValueError):
                raise TypeError("y must contain real numbers for regression, got non-numeric "
                                "entries.") from None
        if y.dtype.kind not in "biuf":
            raise TypeError(f"y must contain real numbers for regression, got dtype {y.dtype}.")
        y = y.astype(np.float64)
        if not np.isfinite(y).all():
            raise ValueError("y must not contain NaN or infinity.")
        check_scale(y, "y")
    elif y.dtype.kind == "c":
        raise ValueError(f"Unknown label type: y must hold class labels, got complex values "
                         f"(dtype {y.dtype}).")
    elif y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y must not contain NaN or infinity.")
    elif y.dtype.kind not in "biufUSO":
        raise ValueError(f"Unknown label type: y must hold class labels (numbers or strings), "
                         f"got dtype {y.dtype}.")
    return y


# Sums of squares of values beyond this range overflow or underflow in float64.
SCALE_RANGE = (1e-100, 1e100)


def check_scale(a: np.ndarray, name: str = "y") -> None:
    """Reject values whose squares would overflow or underflow in float64.

    Regression criteria sum squared residuals and least squares forms ``X^T X``;
    with ``max |a|`` above 1e100 those sums overflow to infinity, and below
    1e-100 they underflow to zero (a tree would silently never split). An
    all-zero array is accepted. Rescale (e.g. divide by the standard deviation)
    and transform the predictions back.
    """
    scale = float(np.max(np.abs(a))) if a.size else 0.0
    low, high = SCALE_RANGE
    if scale > high or 0.0 < scale < low:
        raise ValueError(
            f"{name} has magnitude {scale:.3g}, outside [{low:g}, {high:g}] where squared errors "
            f"are representable in float64; rescale {name} (e.g. divide by its standard deviation)."
        )


def check_finite_scores(F: np.ndarray, learning_rate: float, stage: int,
                        limit: float = SCALE_RANGE[1]) -> np.ndarray:
    """``F`` unchanged if ``|F| <= limit``; else a ``ValueError`` naming ``learning_rate``, whose
    excess (``1e200``) made ``F_m = F_(m-1) + learning_rate h_m`` overflow, or the next stage's
    squared residuals (beyond ``SCALE_RANGE``; a float32 gain, beyond ``limit``), not NaN."""
    if not np.all(np.abs(F) <= limit):
        raise ValueError(f"learning_rate={learning_rate!r} makes the scores F_m overflow at stage {stage} "
                         f"(|F| > {limit:g}); use a learning rate of order 1 or below.")
    return F


def check_labels(y: np.ndarray, *, n_classes: int | None = None, min_classes: int = 2
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Encode class labels as ``0..K-1``; return ``(classes, y_encoded)``.

    Raises a ``ValueError`` naming ``y`` when there are fewer than
    ``min_classes`` distinct labels, or not exactly ``n_classes`` when given;
    when the labels mix types (strings and numbers, ``None``); and when ``y``
    is continuous (floats that are not whole numbers): a regression target
    passed to a classifier would otherwise make one class of every value.
    """
    y = np.asarray(y)
    kinds: set = set()
    if y.dtype == object:
        kinds = {"str" if isinstance(v, str) else
                 "number" if isinstance(v, (numbers.Real, np.number)) and not isinstance(v, bool)
                 else type(v).__name__ for v in y.tolist()}
        if len(kinds) > 1 or not kinds <= {"str", "number", "bool"}:
            raise ValueError(f"Unknown label type: y mixes labels of types {sorted(kinds)}; class "
                             "labels must be all numbers or all strings (and never None).")
    values = y.astype(np.float64) if y.dtype == object and kinds == {"number"} else y
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise ValueError("y must not contain NaN or infinity.")
    if values.dtype.kind == "f" and np.any(values != np.round(values)):
        example = values[values != np.round(values)][0]
        raise ValueError(f"Unknown label type: y is continuous (e.g. {example!r} is not a whole "
                         "number); a classifier needs class labels. Use a regressor, or encode "
                         "the classes as integers or strings.")
    classes, y_encoded = np.unique(y, return_inverse=True)
    if classes.size < min_classes:
        raise ValueError(
            f"y must contain at least {min_classes} classes, got {classes.size} "
            f"{'class' if classes.size == 1 else 'classes'} ({classes.tolist()[:10]})."
        )
    if n_classes is not None and classes.size != n_classes:
        raise ValueError(
            f"y must contain exactly {n_classes} classes for this estimator, got "
            f"{classes.size} ({classes.tolist()[:10]})"
            + (". Only binary classification is supported." if n_classes == 2 else ".")
        )
    return classes, y_encoded


def check_class_weights(y_encoded: np.ndarray, sample_weight: Any, classes: np.ndarray) -> None:
    """Every class of ``y`` must keep a positive total weight (a log-odds start needs it)."""
    if sample_weight is None:
        return
    w = check_sample_weight(sample_weight, y_encoded.shape[0])
    totals = np.bincount(y_encoded, weights=w, minlength=classes.size)
    if np.any(totals <= 0):
        empty = classes[totals <= 0].tolist()
        raise ValueError(f"sample_weight gives the classes {empty} of y a total weight of 0; every "
                         "class needs a positive weight (drop its points from X and y instead).")


def check_sample_weight(sample_weight: Any, n_samples: int, name: str = "sample_weight", *,
                        scale_free: bool = False) -> np.ndarray:
    """Return non-negative, finite float64 weights of length ``n_samples`` with a positive sum.

    ``None`` gives unit weights. ``scale_free=True`` (estimators whose fit does
    not depend on the scale of the weights: trees, gradient boosting, least
    squares) returns equal positive weights as ones, and other weights multiplied
    by the power of two that brings the largest into ``[1, 2)``: exact in floating
    point, so weights of any scale (1e-300 or 1e300) give bit for bit the fit of
    the rescaled ones, without underflow or overflow in the sums of the criterion.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    if hasattr(sample_weight, "toarray") and hasattr(sample_weight, "nnz"):
        raise TypeError(f"{name} is a scipy sparse matrix; pass a dense 1-D array.")
    w = np.asarray(sample_weight)
    if w.dtype == object:
        try:
            w = w.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must contain real numbers, got non-numeric entries.") from None
    if w.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain real numbers, got dtype {w.dtype}.")
    w = w.astype(np.float64)
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise ValueError(f"{name} must have shape ({n_samples},), got {w.shape}.")
    if not np.isfinite(w).all():
        raise ValueError(f"{name} must not contain NaN or infinity.")
    if (w < 0).any():
        raise ValueError(f"{name} must be non-negative; found {int((w < 0).sum())} negative weights.")
    if w.max(initial=0.0) <= 0:
        raise ValueError(f"{name} must have a positive sum; all weights are zero.")
    if scale_free:
        positive = w > 0
        if np.all(w[positive] == w[positive][0]):
            return positive.astype(np.float64)
        w = np.ldexp(w, -np.frexp(w.max())[1] + 1)
    if not np.isfinite(w.sum()):
        raise ValueError(f"{name} sums to infinity; divide the weights by their largest value.")
    return w


