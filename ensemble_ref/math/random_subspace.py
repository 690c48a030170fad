"""Feature subsampling: how often a random subset of features misses every informative one.

A random forest chooses, at every split, ``m`` of the ``d`` features uniformly
at random *without replacement* and looks for the best split among those only
(chapter *Random forests*). When only ``k`` of the ``d`` features carry
information, the split is *blind* -- it can only cut on noise -- when none of
the ``k`` is among the ``m`` drawn. Its probability is the hypergeometric
probability of zero successes,

.. math:: P(\\text{blind}) = \\binom{d-k}{m} \\Big/ \\binom{d}{m}
          = \\prod_{j=0}^{m-1} \\frac{d-k-j}{d-j},

equation ``eq-rf-blind`` of the book. This module computes it exactly, gives
the whole distribution of the number of informative features drawn, the
default sizes ``m`` recommended by Breiman, and a Monte Carlo simulator that
draws the subsets the way a forest does, so the chapter can check the formula.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.validation import check_choice, check_int, check_random_state

__all__ = [
    "breiman_max_features",
    "prob_no_informative",
    "informative_count_pmf",
    "sample_feature_subsets",
    "simulate_no_informative",
]


def _sizes(n_features: int, n_informative: int, max_features: int) -> tuple[int, int, int]:
    """``(d, k, m)``: features, informative ones (``0 <= k <= d``), candidates (``1 <= m <= d``)."""
    d = check_int(n_features, "n_features", low=1)
    k = check_int(n_informative, "n_informative", low=0, high=d)
    m = check_int(max_features, "max_features", low=1, high=d)
    return d, k, m


def breiman_max_features(n_features: int, task: str = "classification") -> int:
    """Breiman's default number of candidate features per split.

    Parameters
    ----------
    n_features : int
        ``d >= 1``, the number of features.
    task : {"classification", "regression"}
        ``floor(sqrt(d))`` for classification, ``floor(d / 3)`` for regression,
        in both cases at least 1.

    Returns
    -------
    int
        The value ``m`` (scikit-learn's ``max_features="sqrt"`` gives the same
        number for classification; for regression scikit-learn's default is
        ``max_features=1.0``, i.e. all ``d`` features, see the book's
        "In practice" note).

    Notes
    -----
    Equation ``eq-rf-mtry`` of the book: :math:`m = \\lfloor\\sqrt d\\rfloor`
    (classification) and :math:`m = \\max(1, \\lfloor d/3 \\rfloor)` (regression).
    """
    d = check_int(n_features, "n_features", low=1)
    if check_choice(task, "task", ("classification", "regression")) == "classification":
        return max(1, math.isqrt(d))  # floor(sqrt(d)), exact for every integer d
    return max(1, d // 3)  # floor(d / 3)


def prob_no_informative(n_features: int, n_informative: int, max_features: int) -> float:
    """Probability that ``m`` features drawn without replacement from ``d`` miss all ``k`` informative ones.

    Parameters
    ----------
    n_features : int
        ``d >= 1``, the total number of features.
    n_informative : int
        ``0 <= k <= d``, the number of informative features.
    max_features : int
        ``1 <= m <= d``, the number of features drawn (the candidates of one split).

    Returns
    -------
    float
        :math:`\\binom{d-k}{m}/\\binom{d}{m}`; it is 0 when ``m > d - k`` (every
        draw then contains an informative feature) and 1 when ``k = 0``.

    Notes
    -----
    Equation ``eq-rf-blind``. Computed as the product
    :math:`\\prod_{j=0}^{m-1} (d-k-j)/(d-j)`: the ``j``-th feature drawn is
    noise with probability ``(d-k-j)/(d-j)`` given that the ``j`` before it
    were. The product never forms the (huge) binomial coefficients.
    """
    d, k, m = _sizes(n_features, n_informative, max_features)
    if m > d - k:
        return 0.0
    j = np.arange(m, dtype=np.float64)
    return float(np.prod((d - k - j) / (d - j)))  # prod_j (d-k-j)/(d-j), eq-rf-blind


def informative_count_pmf(n_features: int, n_informative: int, max_features: int) -> np.ndarray:
    """Distribution of the number of informative features among ``m`` drawn from ``d``.

    Returns
    -------
    ndarray of float, shape (min(k, m) + 1,)
        Entry ``j`` is the hypergeometric probability
        :math:`\\binom{k}{j}\\binom{d-k}{m-j}/\\binom{d}{m}`, computed from exact
        integer binomial coefficients; entry 0 equals :func:`prob_no_informative`.

    Notes
    -----
    The mean of this distribution is :math:`mk/d` (exercise ``ex-rf-mean-informative``).
    """
    d, k, m = _sizes(n_features, n_informative, max_features)
    total = math.comb(d, m)
    return np.array([math.comb(k, j) * math.comb(d - k, m - j) / total
                     for j in range(min(k, m) + 1)])


def sample_feature_subsets(n_features: int, max_features: int, n_draws: int,
                           rng: np.random.Generator | int | None) -> np.ndarray:
    """Draw ``n_draws`` independent subsets of ``m`` distinct features out of ``d``.

    Each row is what a random forest examines at one split: ``m`` feature
    indices drawn uniformly without replacement. Row ``r`` holds the positions
    of the ``m`` smallest of ``d`` independent uniforms, i.e. the first ``m``
    entries of a uniformly random permutation of ``0..d-1`` (in no particular
    order), so every ``m``-subset is equally likely.

    Returns
    -------
    ndarray of int, shape (n_draws, max_features)
    """
    d = check_int(n_features, "n_features", low=1)
    m = check_int(max_features, "max_features", low=1, high=d)
    R = check_int(n_draws, "n_draws", low=1)
    rng = check_random_state(rng, "rng")
    keys = rng.random((R, d))  # one random permutation per row ...
    return np.argpartition(keys, m - 1, axis=1)[:, :m]  # ... whose first m entries are the subset


def simulate_no_informative(n_features: int, n_informative: int, max_features: int,
                            n_draws: int, rng: np.random.Generator | int | None) -> np.ndarray:
    """Simulate the blind-split indicator: does a random ``m``-subset miss all informative features?

    The informative features are taken to be ``0..k-1`` (by symmetry, which
    ``k`` of the ``d`` are informative does not matter).

    Returns
    -------
    ndarray of bool, shape (n_draws,)
        ``True`` where the subset contains no informative feature. Its mean
        estimates :func:`prob_no_informative`, with standard error
        :math:`\\sqrt{p(1-p)/R}`.
    """
    d, k, m = _sizes(n_features, n_informative, max_features)
    subsets = sample_feature_subsets(d, m, n_draws, rng)
    return ~np.any(subsets < k, axis=1)  # no index among the informative 0..k-1
