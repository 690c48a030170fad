"""Voting: a fixed combination of heterogeneous, separately trained members.

With members :math:`f_1, \\dots, f_M`, weights :math:`w_t \\ge 0`, class
probabilities :math:`p_{tk}(x)` and predicted labels :math:`\\hat y_t(x)`,

.. math::

    H(x) = \\arg\\max_k \\sum_t w_t\\, \\mathbb 1[\\hat y_t(x) = k]
    \\quad\\text{(hard, eq-hard-vote)}, \\qquad
    S(x) = \\arg\\max_k \\sum_t w_t\\, p_{tk}(x)
    \\quad\\text{(soft, eq-soft-vote)},

ties going to the lowest class. A voting regressor predicts the weighted mean
:math:`\\sum_t w_t h_t(x) / \\sum_t w_t`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin, RegressorMixin
from ..core.base import accepts_sample_weight as _accepts_sample_weight
from ..core.base import clone as _clone
from ..core.members import member_proba
from ..core.validation import (
    check_array,
    check_choice,
    check_estimator,
    check_labels,
    check_sample_weight,
    check_X_y,
)

__all__ = ["VotingClassifier", "VotingRegressor"]


class _NamedEstimators(BaseEstimator):
    """``get_params``/``set_params`` that also reach the members by name (``"tree__max_depth"``),
    as ``GridSearchCV`` expects of a composite estimator."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        params = super().get_params(deep=False)
        if deep and isinstance(self.estimators, (list, tuple)):
            for pair in self.estimators:
                if isinstance(pair, (list, tuple)) and len(pair) == 2:
                    name, estimator = pair
                    params[name] = estimator
                    if hasattr(estimator, "get_params"):
                        for key, value in estimator.get_params(deep=True).items():
                            params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params: Any) -> "_NamedEstimators":
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        pairs = self.estimators if isinstance(self.estimators, (list, tuple)) else []
        # only well-formed (name, estimator) pairs are reachable; fit reports the others
        names = [pair[0] if isinstance(pair, (list, tuple)) and len(pair) == 2 else None
                 for pair in pairs]
        own = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name in names:
                i = names.index(name)
                if sub:
                    self.estimators[i][1].set_params(**{sub: value})
                else:
                    self.estimators = list(self.estimators)
                    self.estimators[i] = (name, value)
            else:
                own[key] = value
        return super().set_params(**own) if own else self

    def _validate_estimators(self) -> tuple[list[str], list[Any]]:
        if not isinstance(self.estimators, (list, tuple)) or len(self.estimators) == 0:
            raise ValueError(
                "estimators must be a non-empty list of (name, estimator) pairs, "
                f"got {self.estimators!r}."
            )
        names, members = [], []
        for pair in self.estimators:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)):
                raise ValueError(f"estimators must hold (name, estimator) pairs, got {pair!r}.")
            name, estimator = pair
            if "__" in name or name in names or name in self._get_param_names():
                raise ValueError(
                    f"estimators names must be unique, without '__', and differ from the "
                    f"parameter names {self._get_param_names()}; got {name!r}."
                )
            check_estimator(estimator, f"estimators[{name!r}]")
            names.append(name)
            members.append(estimator)
        return names, members

    def _validate_weights(self, n_members: int) -> np.ndarray:
        if self.weights is None:
            return np.ones(n_members)
        try:
            w = np.asarray(self.weights, dtype=float)
        except (TypeError, ValueError):
            w = np.array([np.nan])  # not numbers: reported just below
        if w.shape != (n_members,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError(
                f"weights must be None or {n_members} non-negative finite numbers with a positive "
                f"sum (one per estimator), got {self.weights!r}."
            )
        return w

    def _fit_members(self, X: np.ndarray, y: np.ndarray, sample_weight: Any) -> None:
        names, members = self._validate_estimators()
        self.weights_ = self._validate_weights(len(members))
        self.estimators_ = []
        for name, member in zip(names, members):
            member = _clone(member)
            if sample_weight is None:
                member.fit(X, y)
            elif _accepts_sample_weight(member):
                member.fit(X, y, sample_weight=sample_weight)
            else:
                raise ValueError(f"sample_weight is given but estimators[{name!r}] does not accept it.")
            self.estimators_.append(member)
        self.named_estimators_ = dict(zip(names, self.estimators_))
        self.n_features_in_ = X.shape[1]

    def _check_X_predict(self, X: Any) -> np.ndarray:
        self._check_is_fitted("estimators_")
        return check_array(X, "X", estimator=self)


class VotingClassifier(ClassifierMixin, _NamedEstimators):
    """Hard or soft (weighted) voting of heterogeneous classifiers.

    Parameters
    ----------
    estimators : list of (str, estimator)
        Named, unfitted classifiers; each is copied and fitted on the whole
        training set (on labels encoded as ``0..n_classes-1``).
    voting : {"hard", "soft"}, default="hard"
        ``"hard"``: weighted count of predicted labels; ``"soft"``: weighted
        average of predicted probabilities (every member needs ``predict_proba``).
    weights : array-like of shape (n_estimators,) or None, default=None
        Non-negative weights ``w_t`` (``None``: all 1).

    Attributes
    ----------
    estimators_ : list of fitted estimators
    named_estimators_ : dict
    classes_ : ndarray of shape (n_classes,)

    Notes
    -----
    Hard voting is equation ``eq-hard-vote`` and soft voting ``eq-soft-vote``;
    ``predict_proba`` (soft voting only) is
    :math:`\\sum_t w_t p_t(x) / \\sum_t w_t`. Both break ties toward the
    lowest label (the first of ``classes_``).
    """

    def __init__(self, estimators: list, *, voting: str = "hard", weights: Any = None) -> None:
        self.estimators = estimators
        self.voting = voting
        self.weights = weights

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "VotingClassifier":
        """Fit a copy of every member on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Passed to every member (which must accept it).

        Returns
        -------
        self
        """
        check_choice(self.voting, "voting", ("hard", "soft"))
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_encoded = check_labels(y)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
        if self.voting == "soft":
            names, members = self._validate_estimators()
            for name, member in zip(names, members):
                if not hasattr(member, "predict_proba"):
                    raise ValueError(
                        f"voting='soft' needs predict_proba, which estimators[{name!r}] lacks; "
                        "use voting='hard'."
                    )
        self._fit_members(X, y_encoded, sample_weight)
        return self

    @property
    def predict_proba(self):
        """Weighted average of the members' class probabilities (``voting="soft"`` only)."""
        if self.voting != "soft":
            raise AttributeError("predict_proba is only available when voting='soft'.")
        return self._predict_proba

    def _predict_proba(self, X: Any) -> np.ndarray:
        X = self._check_X_predict(X)
        K = self.classes_.size
        P = sum(w * member_proba(m, X, K) for w, m in zip(self.weights_, self.estimators_))
        return P / self.weights_.sum()  # eq-soft-vote

    def predict(self, X: Any) -> np.ndarray:
        """Winning class of the hard or soft vote (ties to the smallest label)."""
        X = self._check_X_predict(X)
        K = self.classes_.size
        if self.voting == "soft":
            tally = self._predict_proba(X)
        else:
            tally = np.zeros((X.shape[0], K))
            for w, member in zip(self.weights_, self.estimators_):
                labels = np.asarray(member.predict(X)).astype(np.intp)
                tally[np.arange(X.shape[0]), labels] += w  # eq-hard-vote
        return self.classes_[np.argmax(tally, axis=1)]


class VotingRegressor(RegressorMixin, _NamedEstimators):
    """Weighted average of heterogeneous regressors.

    Parameters
    ----------
    estimators : list of (str, estimator)
        Named, unfitted regressors; each is copied and fitted on the whole training set.
    weights : array-like of shape (n_estimators,) or None, default=None
        Non-negative weights ``w_t`` (``None``: all 1).

    Attributes
    ----------
    estimators_ : list of fitted estimators
    named_estimators_ : dict

    Notes
    -----
    ``predict`` returns :math:`\\sum_t w_t h_t(x) / \\sum_t w_t`, the regression
    counterpart of ``eq-soft-vote``.
    """

    def __init__(self, estimators: list, *, weights: Any = None) -> None:
        self.estimators = estimators
        self.weights = weights

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "VotingRegressor":
        """Fit a copy of every member on ``(X, y)``; returns ``self``."""
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X.shape[0])
        self._fit_members(X, y, sample_weight)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Weighted mean of the members' predictions."""
        X = self._check_X_predict(X)
        F = np.array([np.asarray(m.predict(X), dtype=float) for m in self.estimators_])
        return self.weights_ @ F / self.weights_.sum()
