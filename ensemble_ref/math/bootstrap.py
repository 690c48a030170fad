"""Bootstrap samples and the out-of-bag fraction (chapter *Bootstrap samples*).

A bootstrap sample draws ``N`` indices uniformly *with replacement* from
``{0, ..., N-1}``. A given point is missed by all ``N`` draws with probability

.. math:: P_N = (1 - 1/N)^N \\longrightarrow e^{-1} \\approx 0.368,

equation ``eq-oob-exact`` of the book, so about 36.8% of the data
is *out of bag* for each member of a bagged ensemble.
"""

from __future__ import annotations

import numpy as np

from ..core.validation import check_int, check_integers, check_random_state, check_shape, check_size

__all__ = [
    "oob_fraction_exact",
    "oob_gap_bounds",
    "bootstrap_indices",
    "oob_mask",
    "oob_fractions",
]


def oob_fraction_exact(n_samples: int | np.ndarray) -> float | np.ndarray:
    r"""Probability that a given point is absent from a bootstrap sample of size ``N``.

    Parameters
    ----------
    n_samples : int or array of int
        ``N >= 1``, the size of the data set (and of the sample).

    Returns
    -------
    float or ndarray
        :math:`(1 - 1/N)^N`, computed as ``exp(N * log1p(-1/N))`` so that it is
        accurate for very large ``N`` (the naive power loses digits).

    Notes
    -----
    Equation ``eq-oob-exact``. Each of the ``N`` independent draws
    misses the point with probability :math:`1 - 1/N`.
    """
    N = check_integers(n_samples, "n_samples", low=1).astype(np.float64)
    with np.errstate(divide="ignore"):  # N = 1 gives log(0) = -inf and P = 0, exactly
        P = np.exp(N * np.log1p(-1.0 / N))  # (1 - 1/N)^N, eq-oob-exact
    return float(P) if P.ndim == 0 else P


def oob_gap_bounds(n_samples: int | np.ndarray) -> tuple[float | np.ndarray, float | np.ndarray]:
    r"""Lower and upper bounds on the gap :math:`e^{-1} - (1 - 1/N)^N` (theorem ``thm-oob``).

    Since :math:`\ln(1-x) = -\sum_{k\ge1} x^k/k`,

    .. math:: -1 - \frac{1}{2(N-1)} \le N \ln(1 - 1/N) \le -1 - \frac{1}{2N},

    so the gap is positive (the fraction approaches ``1/e`` from *below*) and

    .. math:: e^{-1}(1 - e^{-1/(2N)}) \le e^{-1} - (1-1/N)^N \le e^{-1}(1 - e^{-1/(2(N-1))}),

    equation ``eq-oob-gap``; both sides are :math:`\tfrac{1}{2eN} + O(N^{-2})`.

    Parameters
    ----------
    n_samples : int or array of int
        ``N >= 2``.

    Returns
    -------
    (lower, upper) : tuple of float or ndarray
    """
    N = check_integers(n_samples, "n_samples", low=2).astype(np.float64)
    lower = -np.exp(-1.0) * np.expm1(-1.0 / (2.0 * N))  # e^-1 (1 - e^{-1/(2N)})
    upper = -np.exp(-1.0) * np.expm1(-1.0 / (2.0 * (N - 1.0)))  # e^-1 (1 - e^{-1/(2(N-1))})
    if lower.ndim == 0:
        return float(lower), float(upper)
    return lower, upper


def bootstrap_indices(n_samples: int, rng: np.random.Generator | int | None,
                      n_draws: int | None = None) -> np.ndarray:
    """Draw a bootstrap sample: ``n_draws`` indices uniform on ``0..n_samples-1``, with replacement.

    Parameters
    ----------
    n_samples : int
        Size ``N`` of the data set (``N >= 1``).
    rng : numpy.random.Generator or int
        Source of randomness (an ``int`` is used as a seed). ``None`` is
        accepted but gives a non-reproducible draw.
    n_draws : int, optional
        Number of draws; defaults to ``n_samples`` (the classical bootstrap).

    Returns
    -------
    ndarray of int, shape (n_draws,)
    """
    N = check_int(n_samples, "n_samples", low=1)
    n_draws = N if n_draws is None else check_int(n_draws, "n_draws", low=1)
    check_size(n_draws, "n_samples" if n_draws == N else "n_draws")
    rng = check_random_state(rng, "rng")
    return rng.integers(0, N, size=n_draws)


def oob_mask(indices: np.ndarray, n_samples: int) -> np.ndarray:
    """Boolean mask of the points of ``0..n_samples-1`` that ``indices`` never drew."""
    N = check_int(n_samples, "n_samples", low=1)
    idx = check_integers(indices, "indices", 0, N - 1, message=f"lie in [0, {N - 1}] for n_samples={N}")
    check_shape(idx, "indices", (None,))
    drawn = np.zeros(N, dtype=bool)
    drawn[idx] = True
    return ~drawn


def oob_fractions(n_samples: int, n_repeats: int, rng: np.random.Generator | int | None
                  ) -> np.ndarray:
    """Out-of-bag fraction of ``n_repeats`` independent bootstrap samples of size ``n_samples``.

    Row ``r`` of an ``(n_repeats, N)`` table of draws is one bootstrap sample;
    the returned value ``r`` is the fraction of ``0..N-1`` that row never drew.
    Its expectation is :func:`oob_fraction_exact` ``(N)``.

    Returns
    -------
    ndarray of float, shape (n_repeats,)
    """
    N = check_int(n_samples, "n_samples", low=1)
    R = check_int(n_repeats, "n_repeats", low=1)
    rng = check_random_state(rng, "rng")
    check_size(float(R) * N, "n_samples * n_repeats")
    draws = rng.integers(0, N, size=(R, N))  # R bootstrap samples, one per row
    drawn = np.zeros((R, N), dtype=bool)
    drawn[np.arange(R)[:, None], draws] = True
    return 1.0 - drawn.mean(axis=1)  # fraction never drawn = OOB fraction
