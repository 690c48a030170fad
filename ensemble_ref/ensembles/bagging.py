"""Bagging and pasting, with out-of-bag (OOB) estimates.

Bagging (bootstrap aggregating, algorithm ``alg-bagging``) trains ``M`` copies
of a base estimator (``n_estimators``), member ``t`` on the points of a sample
``I^(t)`` of indices drawn from the training set, and averages them:

.. math::

    \\bar f(x) = \\frac{1}{M} \\sum_{t=1}^{M} h_t(x),

equation ``eq-bagging-average``. For a classifier, ``h_t(x)`` is the
member's vector of class probabilities (a one-hot vote if it has none) and the
prediction is the class of largest average. ``I^(t)`` draws ``max_samples``
points *with* replacement (``bootstrap=True``, bagging) or *without* it
(``bootstrap=False``, pasting).

Each point ``i`` is left out of a fraction of the samples (about ``1/e`` of
them for the bootstrap). Averaging only those members gives the out-of-bag
prediction

.. math::

    \\hat f^{\\mathrm{OOB}}(x_i) = \\frac{1}{|\\mathcal M_i|} \\sum_{t \\in \\mathcal M_i} h_t(x_i),
    \\qquad \\mathcal M_i = \\{t : i \\notin I^{(t)}\\},

equation ``eq-oob-estimate``, an honest estimate of the ensemble's error
without a held-out set.

Reproducibility: one seed per member is drawn from ``random_state`` before
any member is trained; member ``t`` draws its sample and its own
``random_state`` from that seed alone. The fitted ensemble is therefore the
same for every ``n_jobs`` and every joblib backend.
"""

from __future__ import annotations

import numbers
import os
import warnings
from typing import Any, Callable, Iterator

import numpy as np

from ..core.base import BaseEstimator, ClassifierMixin, RegressorMixin
from ..core.base import accepts_sample_weight as _accepts_sample_weight
from ..core.base import clone as _clone
from ..core.members import member_proba, parallel_map
from ..core.validation import (
    check_array,
    check_bool,
    check_estimator,
    check_int,
    check_labels,
    check_n_jobs,
    check_random_state,
    check_sample_weight,
    check_X_y,
)
from ..math import aggregation, importance
from ..math.bootstrap import bootstrap_indices
from ..trees.cart import DecisionTreeClassifier, DecisionTreeRegressor, grow_trees
from ..trees.engine import SortedColumns, to_float32
from ..trees.leaves import package_trees, tree_values

__all__ = ["BaggingClassifier", "BaggingRegressor"]


def _draw_sample(rng: np.random.Generator, n_samples: int, n_draws: int, bootstrap: bool
                 ) -> np.ndarray:
    """Indices of one member's training sample: with replacement (bagging) or without (pasting)."""
    if bootstrap:
        return bootstrap_indices(n_samples, rng, n_draws)
    return np.sort(rng.choice(n_samples, size=n_draws, replace=False))


def _fit_member(estimator: Any, X: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                seed: int, n_draws: int, bootstrap: bool, classes: np.ndarray | None
                ) -> tuple[Any, np.ndarray]:
    """Draw member ``b``'s sample from its own seed and fit a copy of ``estimator`` on it."""
    member = _clone(estimator)
    random_state, idx = _member_draws(seed, X.shape[0], n_draws, bootstrap)
    if "random_state" in member.get_params(deep=False):
        member.set_params(random_state=random_state)
    if _accepts_sample_weight(member):
        # fitting on the distinct drawn rows, weighted by how often each was drawn,
        # is fitting on the drawn rows with their repetitions
        counts = np.bincount(idx, minlength=X.shape[0])
        rows = np.flatnonzero(counts)
        weight = counts[rows] * (1.0 if w is None else w[rows])
        if classes is not None and isinstance(member, DecisionTreeClassifier):
            member.fit_encoded(X[rows], y[rows], weight, classes)  # knows every class
        else:
            member.fit(X[rows], y[rows], sample_weight=weight)
    else:
        member.fit(X[idx], y[idx])
    return member, idx


def _member_draws(seed: int, n_samples: int, n_draws: int, bootstrap: bool) -> tuple[int, np.ndarray]:
    """A member's own ``random_state`` and its sample, both drawn from its seed alone."""
    rng = np.random.default_rng(seed)
    random_state = int(rng.integers(np.iinfo(np.int32).max))
    return random_state, _draw_sample(rng, n_samples, n_draws, bootstrap)


def _fit_trees(template: Any, y: np.ndarray, w: np.ndarray | None, seeds: np.ndarray,
               n_draws: int, bootstrap: bool, classes: np.ndarray | None, data: SortedColumns
               ) -> list[tuple[Any, np.ndarray]]:
    """Members that are trees of the package, on the shared presort: each drawn as
    :func:`_fit_member` draws it, fitted on the distinct drawn rows weighted by their counts
    (undrawn rows weigh 0), all grown in one loop (:func:`~ensemble_ref.trees.cart.grow_trees`)."""
    draws = [_member_draws(int(seed), data.n_samples, n_draws, bootstrap) for seed in seeds]
    trees = [_clone(template).set_params(random_state=random_state) for random_state, _ in draws]
    weights = [np.bincount(idx, minlength=data.n_samples) * (1.0 if w is None else w) for _, idx in draws]
    grow_trees(trees, data, y, weights, classes)
    return [(tree, idx) for tree, (_, idx) in zip(trees, draws)]


def _n_groups(n_jobs: int | None) -> int:
    """How many groups of trees to grow, one per job (a group's trees grow together)."""
    if n_jobs is None or n_jobs == 1:
        return 1
    return n_jobs if n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + n_jobs)


def _shared_presort(template: Any, X: np.ndarray, classes: np.ndarray | None
                    ) -> SortedColumns | None:
    """The features sorted once for all members when they are the package's trees."""
    tree = DecisionTreeClassifier if classes is not None else DecisionTreeRegressor
    if type(template) is not tree:
        return None
    return SortedColumns(to_float32(X))


# --------------------------------------------------------------------------------------
# The ensembles
# --------------------------------------------------------------------------------------
class _BaseBagging(BaseEstimator):
    """Training of the members and the out-of-bag bookkeeping shared by bagging and forests."""

    def _member_template(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _n_draws(self, n_samples: int) -> int:
        """Size of each member's sample, from ``max_samples`` (int, or fraction of N)."""
        m = self.max_samples
        if isinstance(m, (numbers.Integral, np.integer)) and not isinstance(m, bool):
            if not 1 <= m <= n_samples:
                raise ValueError(f"max_samples must be in [1, n_samples={n_samples}] as an int, got {m}.")
            return int(m)
        if isinstance(m, (numbers.Real, np.floating)) and not isinstance(m, bool):
            if not 0.0 < m <= 1.0 or int(m * n_samples) < 1:
                raise ValueError(
                    f"max_samples must be in (0, 1] as a float, with max_samples * n_samples >= 1; "
                    f"got {m} for n_samples={n_samples}."
                )
            return int(m * n_samples)
        raise TypeError(f"max_samples must be an int or a float, got {m!r}.")

    def _fit_ensemble(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                      classes: np.ndarray | None) -> None:
        B = check_int(self.n_estimators, "n_estimators", low=1)
        check_bool(self.bootstrap, "bootstrap")
        check_bool(self.oob_score, "oob_score")
        n_jobs = check_n_jobs(self.n_jobs)
        N = X.shape[0]
        n_draws = self._n_draws(N)
        if self.oob_score and not self.bootstrap and n_draws == N:
            raise ValueError(
                "oob_score=True needs points left out of the members' samples: use "
                "bootstrap=True, or max_samples < n_samples with bootstrap=False."
            )
        template = self._member_template()
        if w is not None and not _accepts_sample_weight(template):
            raise ValueError(
                f"sample_weight is given but the estimator {type(template).__name__} does not "
                "accept sample_weight in fit."
            )
        rng = check_random_state(self.random_state)
        seeds = rng.integers(0, 2**63 - 1, size=B)  # one seed per member, drawn up front
        data = _shared_presort(template, X, classes)  # sorted once, not once per member
        if data is not None:  # the package's trees: grown together, a group per job
            groups = np.array_split(seeds, min(B, _n_groups(n_jobs)))
            results = [member for group in parallel_map(
                _fit_trees, [(template, y, w, g, n_draws, bool(self.bootstrap), classes, data)
                             for g in groups], n_jobs) for member in group]
        else:
            results = parallel_map(
                _fit_member,
                [(template, X, y, w, int(seeds[b]), n_draws, bool(self.bootstrap), classes)
                 for b in range(B)],
                n_jobs,
            )
        self.estimators_ = [member for member, _ in results]
        self.estimators_samples_ = [idx for _, idx in results]
        self.n_features_in_ = X.shape[1]
        for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
            self.__dict__.pop(name, None)
        if self.oob_score:
            self._set_oob(X, y)

    def _outputs(self, X: np.ndarray, member_output: Callable, rows: list | None = None) -> Iterator:
        """``member_output(member, X[rows[b]])`` for every member ``b`` in turn (all rows of ``X``
        without ``rows``). Trees of the package, fitted on every class, give their leaf values,
        all trees descending together (:func:`~ensemble_ref.trees.leaves.tree_leaves`): the
        numbers their ``predict_proba`` (``predict``) gives, without validating ``X`` again."""
        if package_trees(self.estimators_, getattr(self, "n_classes_", None)):
            return tree_values(self.estimators_, X, rows)
        subsets = (X if r is None else X[r] for r in (rows or [None] * len(self.estimators_)))
        return (member_output(member, X_b) if X_b.shape[0] else None  # (no point: no call)
                for member, X_b in zip(self.estimators_, subsets))

    def _oob_sum(self, X: np.ndarray, member_output: Callable, width: int
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Sum of the members' outputs at the points each left out, and how many did."""
        total = np.zeros((X.shape[0], width))
        n_oob = np.zeros(X.shape[0], dtype=np.intp)
        # i is out of bag for b when b never drew it
        rows = [np.flatnonzero(np.bincount(idx, minlength=X.shape[0]) == 0)
                for idx in self.estimators_samples_]
        for at, out in zip(rows, self._outputs(X, member_output, rows)):
            if at.size:
                total[at] += out.reshape(at.size, width)
                n_oob[at] += 1
        covered = n_oob > 0
        if not covered.any():
            raise ValueError(
                "No point was left out of any member's sample, so there is no out-of-bag "
                "estimate; increase n_estimators or decrease max_samples."
            )
        if not covered.all():
            warnings.warn(
                f"{int((~covered).sum())} of {X.shape[0]} points were in every member's sample; "
                "their out-of-bag estimate is NaN and oob_score_ uses the other points. "
                "Increase n_estimators.", UserWarning, stacklevel=3)
        return total, n_oob

    def _check_X_predict(self, X: Any) -> np.ndarray:
        self._check_is_fitted("estimators_")
        return check_array(X, "X", estimator=self)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean of the member trees' normalised MDIs, normalised (equation ``eq-rf-mdi``).

        :func:`~ensemble_ref.math.importance.forest_mdi`: trees that are a single leaf
        are left out, as in scikit-learn's forests. Only for members that are trees
        (an ``AttributeError`` otherwise, so ``hasattr`` says whether there is one).
        """
        self._check_is_fitted("estimators_")
        if not all(hasattr(member, "tree_") for member in self.estimators_):
            raise AttributeError(f"feature_importances_ needs members that are trees; "
                                 f"{type(self.estimators_[0]).__name__} has no tree_.")
        return importance.forest_mdi(self.estimators_, self.n_features_in_)


class BaggingClassifier(ClassifierMixin, _BaseBagging):
    """Bagging (or pasting) classifier: members vote with their class probabilities.

    Parameters
    ----------
    estimator : estimator or None, default=None
        Unfitted base classifier, copied for each member; ``None`` means a fully
        grown :class:`~ensemble_ref.trees.cart.DecisionTreeClassifier`.
    n_estimators : int, default=10
        Number of members ``M``.
    max_samples : int or float, default=1.0
        Size of each member's sample: an int, or a fraction of ``n_samples``.
    bootstrap : bool, default=True
        Draw with replacement (bagging) or without (pasting).
    oob_score : bool, default=False
        Compute the out-of-bag accuracy ``oob_score_``.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the samples and of the members' own randomness.
    n_jobs : int or None, default=None
        Train members in parallel with joblib (``-1``: all cores). Results do not
        depend on it.

    Attributes
    ----------
    estimators_ : list of fitted estimators
        The members, trained on labels encoded as ``0..n_classes-1``.
    estimators_samples_ : list of ndarray
        Indices of each member's sample (with repetitions when bootstrapping).
    classes_ : ndarray of shape (n_classes,)
    oob_score_ : float
        Accuracy of the out-of-bag predictions (when ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities; NaN for a point that no member left out.

    Notes
    -----
    ``predict_proba`` is the average of the members' class probabilities
    (equation ``eq-bagging-average``) and ``predict`` its arg-max (ties to the
    smallest label). The out-of-bag decision function averages, for each point,
    only the members whose sample missed it (equation ``eq-oob-estimate``).
    When the members accept ``sample_weight``, a member is fitted on the
    distinct drawn points weighted by their number of draws, which is the same
    as fitting on the drawn points with repetitions (scikit-learn does the same).
    """

    def __init__(self, estimator: Any = None, n_estimators: int = 10,
                 *, max_samples: int | float = 1.0, bootstrap: bool = True, oob_score: bool = False,
                 random_state: Any = None, n_jobs: int | None = None) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _member_template(self) -> Any:
        if self.estimator is None:
            return DecisionTreeClassifier()
        check_estimator(self.estimator, "estimator")
        return self.estimator

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "BaggingClassifier":
        """Train the members on their samples of ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies the members' sample weights (the estimator must accept them).

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, estimator=self)
        self.classes_, y_encoded = check_labels(y)
        self.n_classes_ = self.classes_.size
        w = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
        try:
            self._fit_ensemble(X, y_encoded, w, np.arange(self.n_classes_))
        except ValueError as exc:  # a member that cannot fit one class (trees know every class)
            if "at least 2 classes" not in str(exc):
                raise
            raise ValueError(
                f"a member's sample (max_samples={self.max_samples!r}) holds a single class of y, and "
                f"{type(self._member_template()).__name__} needs two to fit: increase max_samples, "
                f"or use tree members, which know every class ({exc})") from None
        return self

    def _set_oob(self, X: np.ndarray, y_encoded: np.ndarray) -> None:
        K = self.n_classes_
        total, n_oob = self._oob_sum(X, lambda m, Xo: member_proba(m, Xo, K), K)
        covered = n_oob > 0
        decision = aggregation._oob_mean(total, n_oob)  # eq-oob-estimate
        self.oob_decision_function_ = decision
        self.oob_score_ = float(np.mean(np.argmax(decision[covered], axis=1) == y_encoded[covered]))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Average of the members' class probabilities, shape (n_samples, n_classes)."""
        X = self._check_X_predict(X)
        P = np.zeros((X.shape[0], self.n_classes_))
        for out in self._outputs(X, lambda m, Xs: member_proba(m, Xs, self.n_classes_)):
            P += out
        return P / len(self.estimators_)  # eq-bagging-average

    def predict(self, X: Any) -> np.ndarray:
        """Class of largest average probability (ties to the smallest label)."""
        P = self.predict_proba(X)
        return self.classes_[np.argmax(P, axis=1)]


class BaggingRegressor(RegressorMixin, _BaseBagging):
    """Bagging (or pasting) regressor: the average of the members' predictions.

    Parameters
    ----------
    estimator : estimator or None, default=None
        Unfitted base regressor, copied for each member; ``None`` means a fully
        grown :class:`~ensemble_ref.trees.cart.DecisionTreeRegressor`.
    n_estimators : int, default=10
        Number of members ``M``.
    max_samples : int or float, default=1.0
        Size of each member's sample: an int, or a fraction of ``n_samples``.
    bootstrap : bool, default=True
        Draw with replacement (bagging) or without (pasting).
    oob_score : bool, default=False
        Compute the out-of-bag coefficient of determination ``oob_score_``.
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the samples and of the members' own randomness.
    n_jobs : int or None, default=None
        Train members in parallel with joblib. Results do not depend on it.

    Attributes
    ----------
    estimators_ : list of fitted estimators
    estimators_samples_ : list of ndarray
        Indices of each member's sample (with repetitions when bootstrapping).
    oob_score_ : float
        R^2 of the out-of-bag predictions (when ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,)
        Out-of-bag predictions; NaN for a point that no member left out.

    Notes
    -----
    ``predict`` is :math:`\\frac1B\\sum_b \\hat f_b(x)` (equation
    ``eq-bagging-average``); ``oob_prediction_`` averages only the members whose
    sample missed the point (equation ``eq-oob-estimate``).
    """

    def __init__(self, estimator: Any = None, n_estimators: int = 10,
                 *, max_samples: int | float = 1.0, bootstrap: bool = True, oob_score: bool = False,
                 random_state: Any = None, n_jobs: int | None = None) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _member_template(self) -> Any:
        if self.estimator is None:
            return DecisionTreeRegressor()
        check_estimator(self.estimator, "estimator")
        return self.estimator

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "BaggingRegressor":
        """Train the members on their samples of ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Multiplies the members' sample weights (the estimator must accept them).

        Returns
        -------
        self
        """
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        w = None if sample_weight is None else check_sample_weight(sample_weight, X.shape[0])
        self._fit_ensemble(X, y, w, None)
        return self

    def _set_oob(self, X: np.ndarray, y: np.ndarray) -> None:
        total, n_oob = self._oob_sum(X, lambda m, Xo: np.asarray(m.predict(Xo), float)[:, None], 1)
        covered = n_oob > 0
        prediction = aggregation._oob_mean(total[:, 0], n_oob)  # eq-oob-estimate
        self.oob_prediction_ = prediction
        residual = np.sum((y[covered] - prediction[covered]) ** 2)
        spread = np.sum((y[covered] - y[covered].mean()) ** 2)
        self.oob_score_ = float(1.0 - residual / spread) if spread > 0 else float(residual == 0)

    def predict(self, X: Any) -> np.ndarray:
        """Average of the members' predictions."""
        X = self._check_X_predict(X)
        total = np.zeros(X.shape[0])
        for out in self._outputs(X, lambda m, Xs: np.asarray(m.predict(Xs), dtype=float)):
            total += out
        return total / len(self.estimators_)  # eq-bagging-average
