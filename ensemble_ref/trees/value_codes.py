"""Features with few distinct values, coded as the ranks of their values.

Real tables (counts, ratings, categories coded as integers, one-hot columns) hold each
feature's few distinct values many times over. Their CART trees are grown on **codes**:
the code of a value is its rank among the feature's distinct float32 values, so "code
``<= c``" is "value ``<=`` the ``c``-th distinct value", and the candidate thresholds of a
node lie between the codes present in it. The sums left of every threshold then come from
histograms over the codes (:mod:`ensemble_ref.trees.coded_candidates`) instead of sorted
segments: no sorting inside a node at all.

For the features with very few values the histograms of all nodes of a level come from one
matrix product: the node-by-sample matrix of a statistic times the **thermometer** matrix
of the features, whose column ``(j, c)`` is 1 where ``code_j <= c``; its entries are the
left sums of every threshold directly, each a sum over the node's samples in their order.

The engine uses this form when every feature has at most one distinct value per
``FEW_VALUES`` rows; continuous features keep the sorted segments of
:mod:`ensemble_ref.trees.cart_growth`.
"""

from __future__ import annotations

import numpy as np

from .engine import FEATURE_THRESHOLD, SortedColumns

__all__ = ["FEW_VALUES", "ValueCodes", "Thermometer", "value_codes"]

FEW_VALUES = 8  # coded when every feature has at most n_samples / FEW_VALUES distinct values


class ValueCodes:
    """The features of one ``fit`` as codes, from their presorted float32 values.

    Attributes
    ----------
    codes : ndarray of unsigned int, shape (n_features, n_samples)
        ``codes[j, i]``: rank of ``x_ij`` among the distinct values of feature ``j``.
    n_values : ndarray of int, shape (n_features,)
        Number of distinct values of each feature.
    values : ndarray of float32
        The distinct values of every feature, increasing, one feature after the other;
        feature ``j``'s start at ``value_start[j]``.
    close : ndarray of bool, shape (n_features,)
        Whether two consecutive distinct values of the feature are closer than
        ``FEATURE_THRESHOLD`` (scikit-learn treats them as equal, so a split between them
        depends on which values the node holds: such features are never in a product).
    """

    def __init__(self, data: SortedColumns) -> None:
        sv = data.sorted_values
        d, N = sv.shape
        new = np.ones((d, N), dtype=bool)  # a sorted position holding a new value
        np.not_equal(sv[:, 1:], sv[:, :-1], out=new[:, 1:])
        rank = np.cumsum(new, axis=1) - 1
        self.n_values = rank[:, -1] + 1 if N else np.zeros(d, dtype=np.int64)
        self.codes = np.empty((d, N), dtype=np.uint16 if self.n_values.max(initial=0) <= 2**16 else np.int64)
        np.put_along_axis(self.codes, data.order, rank, axis=1)
        self.values = sv[new]  # row by row: the distinct values of each feature
        self.value_start = np.cumsum(self.n_values) - self.n_values
        gap_ok = np.ones(self.values.size, dtype=bool)
        np.greater(self.values[1:], self.values[:-1] + FEATURE_THRESHOLD, out=gap_ok[1:])
        gap_ok[self.value_start] = True  # a feature's first value has no predecessor
        self.close = np.logical_or.reduceat(~gap_ok, self.value_start) if d else np.zeros(0, bool)
        self._thermometers: dict[tuple, Thermometer] = {}

    @property
    def n_samples(self) -> int:
        return int(self.codes.shape[1])

    def value(self, feature: np.ndarray, code: np.ndarray) -> np.ndarray:
        """The float32 value of ``code`` of ``feature`` (arrays of the same shape)."""
        return np.take(self.values, np.take(self.value_start, feature) + code)

    def thermometer(self, features: np.ndarray) -> Thermometer:
        """The thermometer matrix of ``features`` (built once per fit and feature set)."""
        key = tuple(int(f) for f in features)
        if key not in self._thermometers:
            self._thermometers[key] = Thermometer(self, features)
        return self._thermometers[key]


class Thermometer:
    """Column ``(j, c)``, ``c = 0, ..., n_values[j] - 2``, is 1.0 where ``code_j <= c``.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_columns)
    column_start : ndarray of int, shape (n_features,)
        First column of each feature of the matrix (-1 for the others).
    column_feature, column_code : ndarray of int, shape (n_columns,)
        The feature ``j`` and the code ``c`` of each column.
    """

    def __init__(self, coded: ValueCodes, features: np.ndarray) -> None:
        width = coded.n_values[features] - 1
        self.column_start = np.full(coded.n_values.size, -1, dtype=np.int64)
        self.column_start[features] = np.cumsum(width) - width
        self.column_feature = np.repeat(features, width)
        self.column_code = np.arange(self.column_feature.size) - self.column_start[self.column_feature]
        blocks = [coded.codes[j][:, None] <= np.arange(w)[None, :] for j, w in zip(features, width)]
        self.X = np.ascontiguousarray(np.hstack(blocks) if blocks else np.zeros((coded.n_samples, 0)),
                                      dtype=np.float64)


def value_codes(data: SortedColumns) -> ValueCodes | None:
    """The coded form of ``data`` when every feature has few distinct values, else None
    (computed once per ``SortedColumns``, which every tree of a fit shares)."""
    if "_value_codes" not in vars(data):
        sv = data.sorted_values
        n_values = np.count_nonzero(sv[:, 1:] != sv[:, :-1], axis=1) + 1 if sv.shape[1] else [1]
        few = np.max(n_values, initial=1) * FEW_VALUES <= max(data.n_samples, FEW_VALUES)
        data._value_codes = ValueCodes(data) if few else None
    return data._value_codes
