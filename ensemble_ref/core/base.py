"""Minimal scikit-learn-compatible estimator base classes.

scikit-learn is not a run-time dependency of :mod:`ensemble_ref`, so the
parameter handling that :func:`sklearn.base.clone`, ``GridSearchCV`` and
``Pipeline`` rely on is reimplemented here in a few lines: every estimator
stores its constructor arguments unchanged as attributes of the same name,
and ``get_params`` reads them back from the ``__init__`` signature.
"""

from __future__ import annotations

import copy
import functools
import inspect
import sys
from typing import Any

import numpy as np

from .validation import check_sample_weight, check_target

__all__ = [
    "BaseEstimator",
    "ClassifierMixin",
    "RegressorMixin",
    "NotFittedError",
    "clone",
    "accepts_sample_weight",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when ``predict`` (or similar) is called before ``fit``.

    It subclasses both ``ValueError`` and ``AttributeError``, like
    :class:`sklearn.exceptions.NotFittedError`.
    """


@functools.cache
def _init_parameters(init) -> tuple[str, ...]:
    """The sorted names of the parameters of ``__init__`` (read once per class)."""
    signature = inspect.signature(init)
    return tuple(sorted(name for name, p in signature.parameters.items()
                        if name != "self" and p.kind != p.VAR_KEYWORD))


class BaseEstimator:
    """Parameter handling shared by every estimator in :mod:`ensemble_ref`."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        return list(_init_parameters(cls.__init__))

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the constructor parameters (and nested ones when ``deep``)."""
        params: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for sub_name, sub_value in value.get_params(deep=True).items():
                    params[f"{name}__{sub_name}"] = sub_value
            params[name] = value
        return params

    def set_params(self, **params: Any) -> "BaseEstimator":
        """Set parameters; ``name__sub`` sets ``sub`` on the nested estimator ``name``."""
        valid = self._get_param_names()
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}; "
                    f"valid parameters are {valid}."
                )
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
        for name, sub_params in nested.items():
            getattr(self, name).set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        defaults = {
            name: p.default
            for name, p in inspect.signature(type(self).__init__).parameters.items()
        }
        changed = []
        for name in self._get_param_names():
            value = getattr(self, name)
            default = defaults.get(name, inspect.Parameter.empty)
            same = value is default or (
                not hasattr(value, "get_params")
                and not isinstance(value, np.ndarray)
                and _safe_equal(value, default)
            )
            if not same:
                changed.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(changed)})"

    def _check_is_fitted(self, attribute: str) -> None:
        if not hasattr(self, attribute):
            raise _not_fitted_error()(
                f"This {type(self).__name__} instance is not fitted yet; call 'fit' "
                "with appropriate arguments before using this estimator."
            )

    # What the estimator accepts, told to scikit-learn through its tags (read by
    # __sklearn_tags__ below): NaN in X as a missing value, more than two classes,
    # and whether it is meant to fit well on its own (a stump is not).
    _allow_nan: bool = False
    _binary_only: bool = False
    _poor_score: bool = False

    # scikit-learn >= 1.6 reads estimator tags through this method.
    def __sklearn_tags__(self):  # pragma: no cover - exercised through sklearn
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        tags = Tags(estimator_type=None, target_tags=TargetTags(required=True),
                    input_tags=InputTags(allow_nan=self._allow_nan, sparse=False))
        if hasattr(self, "transform"):  # stacking's meta-features
            tags.transformer_tags = TransformerTags()
        return tags


_BOTH_NOT_FITTED: dict[type, type] = {}


def _not_fitted_error() -> type:
    """:class:`NotFittedError`, also a subclass of scikit-learn's when scikit-learn is loaded.

    scikit-learn is not a dependency (and importing it would double the import
    time), but when a program has imported it, its ``NotFittedError`` is the one
    its tools catch; the error raised is then an instance of both.
    """
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is None:
        return NotFittedError
    theirs = sklearn_exceptions.NotFittedError
    if theirs not in _BOTH_NOT_FITTED:
        _BOTH_NOT_FITTED[theirs] = type("NotFittedError", (NotFittedError, theirs),
                                        {"__module__": __name__})
    return _BOTH_NOT_FITTED[theirs]


def _safe_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects whose == is not a bool
        return False


class ClassifierMixin:
    """``score`` as mean accuracy, and the classifier tag scikit-learn reads."""

    _estimator_type = "classifier"

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``self.predict(X)`` against ``y`` (optionally weighted).

        ``y`` and ``sample_weight`` are validated as in ``fit`` (``X`` by ``predict``).
        """
        prediction = self.predict(X)
        y = check_target(y, prediction.shape[0])
        w = check_sample_weight(sample_weight, prediction.shape[0])
        return float(np.average(prediction == y, weights=w))

    def __sklearn_tags__(self):  # pragma: no cover - exercised through sklearn
        from sklearn.utils import ClassifierTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=not self._binary_only,
                                              poor_score=self._poor_score)
        return tags


class RegressorMixin:
    """``score`` as the coefficient of determination R^2."""

    _estimator_type = "regressor"

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """R^2 of ``self.predict(X)`` against ``y`` (optionally weighted).

        ``y`` and ``sample_weight`` are validated as in ``fit`` (``X`` by ``predict``).
        """
        prediction = self.predict(X)
        y = check_target(y, prediction.shape[0], y_numeric=True)
        w = check_sample_weight(sample_weight, prediction.shape[0], scale_free=True)
        residual = np.sum(w * (y - prediction) ** 2)
        total = np.sum(w * (y - np.average(y, weights=w)) ** 2)
        if total == 0.0:
            return 1.0 if residual == 0.0 else 0.0
        return float(1.0 - residual / total)

    def __sklearn_tags__(self):  # pragma: no cover - exercised through sklearn
        from sklearn.utils import RegressorTags

        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags(poor_score=self._poor_score)
        return tags


def clone(estimator: Any) -> Any:
    """A fresh, unfitted copy of ``estimator`` built from ``get_params`` (recursively).

    Lists and tuples of estimators are cloned element by element; any other
    value without ``get_params`` is deep-copied. This is what
    :func:`sklearn.base.clone` does, without depending on scikit-learn.
    """
    if isinstance(estimator, (list, tuple)):
        return type(estimator)(clone(e) for e in estimator)
    if not hasattr(estimator, "get_params") or isinstance(estimator, type):
        return copy.deepcopy(estimator)
    params = {name: clone(value) for name, value in estimator.get_params(deep=False).items()}
    return type(estimator)(**params)


def accepts_sample_weight(estimator: Any) -> bool:
    """Whether ``estimator.fit`` takes a ``sample_weight`` argument."""
    try:
        return "sample_weight" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False
