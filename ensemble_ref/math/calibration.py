r"""Calibration of predicted probabilities: reliability bins and the expected calibration error.

A binary classifier's probability ``p(x)`` of the positive class is
*calibrated* when, among the points to which it gives probability ``p``, a
share ``p`` is positive. The reliability diagram checks this bin by bin: split
``[0, 1]`` into ``B`` equal bins, and compare in each bin ``b`` the mean
predicted probability ``conf_b`` with the observed share of positives
``freq_b``. The *expected calibration error* weighs the gaps by the share of
points in each bin,

.. math::

    \mathrm{ECE} = \sum_b \frac{n_b}{n} \lvert \mathrm{freq}_b - \mathrm{conf}_b \rvert,

(Naeini et al., 2015; Guo et al., 2017). A classifier that always answers 0
or 1 (a fully grown tree) puts every point in the first or the last bin, and
its ECE is its error rate.

The bins are those of scikit-learn's ``calibration_curve(strategy="uniform")``:
``p`` goes to bin ``b`` when ``b/B < p <= (b+1)/B`` (bin 0 also takes 0).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..core.validation import check_int, check_reals, check_same_shape, check_values

__all__ = ["ReliabilityBins", "reliability_bins", "expected_calibration_error"]


class ReliabilityBins(NamedTuple):
    """The reliability diagram of a binary classifier (one entry per bin, empty bins included)."""

    edges: np.ndarray      # shape (B + 1,): 0, 1/B, ..., 1
    count: np.ndarray      # n_b, points in each bin
    confidence: np.ndarray  # conf_b, mean predicted probability (nan if empty)
    frequency: np.ndarray  # freq_b, share of positives (nan if empty)


def reliability_bins(y_true: Any, y_prob: Any, n_bins: int = 10) -> ReliabilityBins:
    """Counts, mean predicted probabilities and observed frequencies in ``n_bins`` equal bins.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels in {0, 1}.
    y_prob : array-like of shape (n,)
        Predicted probabilities of label 1.
    n_bins : int, default=10

    Returns
    -------
    ReliabilityBins
        For the non-empty bins, ``frequency`` and ``confidence`` are scikit-learn's
        ``calibration_curve(y_true, y_prob, n_bins=n_bins)``.
    """
    B = check_int(n_bins, "n_bins", low=1)
    p = check_reals(y_prob, "y_prob", 0.0, 1.0, vector=True)  # probabilities of the positive class
    y = check_values(check_reals(y_true, "y_true"), "y_true", (0.0, 1.0))
    check_same_shape(y_prob=p, y_true=y)
    edges = np.linspace(0.0, 1.0, B + 1)
    b = np.searchsorted(edges[1:-1], p)              # b/B < p <= (b+1)/B
    count = np.bincount(b, minlength=B)
    with np.errstate(invalid="ignore", divide="ignore"):
        confidence = np.bincount(b, weights=p, minlength=B) / count
        frequency = np.bincount(b, weights=y, minlength=B) / count
    return ReliabilityBins(edges, count, confidence, frequency)


def expected_calibration_error(y_true: Any, y_prob: Any, n_bins: int = 10) -> float:
    """``sum_b (n_b / n) |freq_b - conf_b|`` over the non-empty bins of :func:`reliability_bins`."""
    bins = reliability_bins(y_true, y_prob, n_bins)
    full = bins.count > 0
    share = bins.count[full] / bins.count.sum()
    return float(np.sum(share * np.abs(bins.frequency[full] - bins.confidence[full])))
