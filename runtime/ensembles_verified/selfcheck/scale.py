"""Self-checks of the chapter on ensembles at scale: gradient histograms
(see :mod:`ensembles_verified.selfcheck`)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .engine import _run, _seed

__all__ = ["check_gradient_histogram", "check_histogram_gains"]


# --- ensembles at scale: histograms ----------------------------------------------------------


def _histogram_cases(rng: np.random.Generator) -> list[dict]:
    cases = [{"codes": np.array([[0], [1], [1], [2]]), "g": np.array([1.0, -2.0, 0.5, 3.0]),
              "h": np.array([1.0, 1.0, 1.0, 1.0]), "n_bins": 4}]
    for _ in range(8):
        n, d, B = int(rng.integers(1, 40)), int(rng.integers(1, 4)), int(rng.integers(2, 9))
        cases.append({"codes": rng.integers(0, B, (n, d)), "g": rng.normal(size=n),
                      "h": rng.uniform(0.1, 1.0, n), "n_bins": B})
    return cases


def check_gradient_histogram(student_fn: Callable[..., np.ndarray], random_state: Any = None
                             ) -> None:
    r"""Check ``student_fn(codes, g, h, n_bins)``: the gradient histogram of one node.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(codes, g, h, n_bins) -> ndarray`` of shape (d, n_bins, 2), for
        the bin codes ``codes`` (shape (n, d), values in ``0 .. n_bins - 1``) and the
        gradients and hessians ``g``, ``h`` (shape (n,)) of the node's rows:
        ``out[j, b] = (G, H)``, the sums of ``g`` and of ``h`` over the rows whose
        feature ``j`` falls in bin ``b``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.histograms.gradient_histogram` (equation
    ``eq-scale-histogram``) for a single node. Recognised mistakes: counts in the
    place of the hessian sums, and G and H swapped.
    """
    from ensemble_ref.math.histograms import gradient_histogram

    rng, repeat = _seed(random_state)

    def reference(codes, g, h, n_bins):
        return gradient_histogram(codes, g, h, n_bins)[0]

    _run("check_gradient_histogram", student_fn, _histogram_cases(rng), reference,
         "ensemble_ref.math.histograms.gradient_histogram",
         formula="eq-scale-histogram, out[j, b] = (sum of g_i, sum of h_i) over the rows i with "
                 "codes[i, j] == b",
         mistakes=[("the number of rows in the place of the hessian sum",
                    lambda codes, g, h, n_bins: reference(codes, g, np.ones_like(h), n_bins)),
                   ("the two sums swapped",
                    lambda codes, g, h, n_bins: reference(codes, g, h, n_bins)[..., ::-1])],
         repeat=repeat)


def _gains(hist, lam, tau, cumulative=True):
    G, H = hist[:, 0], hist[:, 1]
    GL, HL = (np.cumsum(G)[:-1], np.cumsum(H)[:-1]) if cumulative else (G[:-1], H[:-1])
    GR, HR = G.sum() - GL, H.sum() - HL
    return 0.5 * (GL**2 / (HL + lam) + GR**2 / (HR + lam) - G.sum() ** 2 / (H.sum() + lam)) - tau


def check_histogram_gains(student_fn: Callable[[np.ndarray, float, float], np.ndarray],
                          random_state: Any = None) -> None:
    r"""Check ``student_fn(hist, lam, tau)``: the gain of every split of one feature's histogram.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(hist, lam, tau) -> ndarray`` of shape (n_bins - 1,), for the
        histogram ``hist`` of shape (n_bins, 2) of one feature in one node
        (``hist[b] = (G_b, H_b)``): entry ``b`` is the gain (equation ``eq-xgb-gain``) of the
        split "bins ``0 .. b`` go left, the others right".
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.split_gain` on the cumulative
    sums of the histogram (how :func:`ensemble_ref.math.histograms.best_split` scans
    a feature). Recognised mistakes: a single bin in the place of the cumulative sum,
    and the gain without the penalty per leaf tau.
    """
    from ensemble_ref import split_gain

    rng, repeat = _seed(random_state)
    cases = [{"hist": np.array([[1.0, 1.0], [-2.0, 1.0], [3.0, 2.0]]), "lam": 1.0, "tau": 0.0}]
    for _ in range(8):
        B = int(rng.integers(2, 12))
        hist = np.column_stack([rng.normal(size=B) * 3, rng.uniform(0.1, 5, B)])
        cases.append({"hist": hist, "lam": float(rng.uniform(0, 3)), "tau": float(rng.uniform(0, 1))})

    def reference(hist, lam, tau):
        G, H = np.cumsum(hist[:, 0]), np.cumsum(hist[:, 1])
        return np.array([split_gain(G[b], H[b], G[-1] - G[b], H[-1] - H[b], lam, tau)
                         for b in range(len(hist) - 1)])

    _run("check_histogram_gains", student_fn, cases, reference,
         "ensemble_ref.math.second_order.split_gain on the cumulative sums",
         formula="eq-xgb-gain with G_L, H_L the sums of bins 0..b (cumulative) and G_R = G - G_L, "
                 "H_R = H - H_L",
         mistakes=[("the gain of bin b alone against the rest (no cumulative sum)",
                    lambda hist, lam, tau: _gains(hist, lam, tau, cumulative=False)),
                   ("the gain without tau", lambda hist, lam, tau: _gains(hist, lam, 0.0))],
         repeat=repeat)
