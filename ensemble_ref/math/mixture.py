r"""The formulas of a mixture of experts, as pure functions of arrays.

A mixture of experts combines :math:`E` models, the *experts*, with an
input-dependent weighting, the *gate*. With the softmax gate

.. math:: g(x) = \operatorname{softmax}(V \tilde x), \qquad \tilde x = (1, x),

(equation ``eq-moe-gate``) and expert densities :math:`p_e(y \mid x)`, the model's
density is :math:`p(y \mid x) = \sum_e g_e(x)\, p_e(y \mid x)` (``eq-moe-likelihood``).
This module holds those formulas and the ones EM and sparse routing are built
from:

- :func:`softmax`, :func:`softmax_gate`: the gate (``eq-moe-gate``);
- :func:`linear_gaussian_log_density`: the log-density of linear-Gaussian experts;
- :func:`mixture_log_likelihood`: :math:`\sum_i \log \sum_e g_e(x_i) p_e(y_i \mid x_i)`;
- :func:`responsibilities`: the posterior probability of each expert given
  :math:`(x_i, y_i)`, EM's E-step (``eq-moe-responsibility``);
- :func:`gate_objective`: the part of EM's expected log-likelihood the gate maximises;
- :func:`top_k_route`, :func:`top_k_gate`: sparse routing to the :math:`k` largest
  gate values, renormalised (``eq-moe-topk``) or not;
- :func:`route_scores`: the same from the router's scores, as the sparse
  mixtures of language models route: Mixtral renormalises over its top 2, the
  Switch Transformer keeps the softmax probability of its top 1, and models
  configured with ``norm_topk_prob: false`` keep those of their top :math:`k`;
- :func:`expert_load`, :func:`load_balancing_loss`: the Switch Transformer's
  auxiliary loss :math:`E \sum_e \phi_e P_e` (``eq-moe-balance``).

Every function validates its inputs and raises ``ValueError`` or ``TypeError``
naming the offending argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.validation import (
    check_bool,
    check_distribution,
    check_int,
    check_integers,
    check_reals,
    check_same_shape,
    check_shape,
)

__all__ = [
    "softmax",
    "softmax_gate",
    "linear_gaussian_log_density",
    "mixture_log_likelihood",
    "responsibilities",
    "gate_objective",
    "top_k_route",
    "top_k_gate",
    "route_scores",
    "expert_load",
    "load_balancing_loss",
]


# --- the softmax: the package's one definition -------------------------------------------


def _log_normaliser(log_joint):
    r"""Row-wise :math:`\log \sum_{e} e^{s_{ie}}` of scores of shape (n, E), shape (n, 1).

    The row's maximum is taken out before exponentiating, so large scores do not
    overflow; a row of ``-inf`` gives ``-inf``. (scipy's ``logsumexp`` computes the same
    but costs a hundred times more per call on the small arrays of an EM iteration.)
    """
    top = _row_reduce(np.maximum, log_joint)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return top + np.log(_row_reduce(np.add, np.exp(log_joint - top)))


def _row_reduce(ufunc, A):
    """``ufunc.reduce(A, axis=1, keepdims=True)`` (``np.max``, ``np.sum`` of every row), the same
    numbers, column by column when a float array has 2 to 7 columns.

    Reducing a few columns along each row costs numpy ten times more than combining the
    columns one by one (18 us against 2 for 600 rows of 3). A maximum is exact in any order;
    numpy sums fewer than 8 numbers from left to right, as this does
    (``tests/test_mixture_of_experts.py`` holds both to numpy's own reduction; a row of
    negative zeros may sum to ``-0.0`` here and ``+0.0`` there, which the sums of
    exponentials above never meet).
    """
    if not (A.ndim == 2 and 1 < A.shape[1] < 8 and A.dtype.kind == "f"):
        return ufunc.reduce(A, axis=1, keepdims=True)
    out = ufunc(A[:, 0], A[:, 1])
    for k in range(2, A.shape[1]):
        ufunc(out, A[:, k], out=out)
    return out[:, None]


def _softmax(log_joint):
    r"""Row-wise softmax :math:`e^{s_{ie}} / \sum_{e'} e^{s_{ie'}}` of scores of shape (n, E), stable.

    Scores are unnormalised log-probabilities: the gate's :math:`V \tilde x`
    (``eq-moe-gate``), the log joint :math:`\log g_e + \log p_e` whose softmax is the
    posterior (``eq-moe-responsibility``), a booster's class scores (``eq-modern-softmax``).
    The log-sum-exp is subtracted in log space, so large scores do not overflow and a
    score of ``-inf`` gets probability 0. Every softmax of the package is this function.
    """
    return np.exp(log_joint - _log_normaliser(log_joint))


def _log_softmax(log_joint):
    """The logarithm of ``_softmax()``, computed directly: a probability that underflows to 0
    keeps a finite logarithm (the losses: cross-entropy, the gate's objective)."""
    return log_joint - _log_normaliser(log_joint)


def _gate_array(gate: Any, name: str = "gate") -> np.ndarray:
    """A matrix of gate probabilities: non-negative rows, each summing to one."""
    return check_distribution(check_reals(gate, name, ndim=2), name, "a probability for each expert")


# --- the gate ---------------------------------------------------------------------------


def softmax(S: Any) -> np.ndarray:
    r"""Row-wise softmax :math:`\exp(s_{ie}) / \sum_{e'} \exp(s_{ie'})` of scores ``S`` (n, E).

    Computed in log space (``_softmax()``), so large scores do not overflow.
    """
    return _softmax(check_reals(S, "S", ndim=2))


def _with_intercept(X: np.ndarray) -> np.ndarray:
    return np.hstack([np.ones((X.shape[0], 1)), X])


def softmax_gate(X: Any, V: Any) -> np.ndarray:
    r"""The softmax gate :math:`g(x) = \operatorname{softmax}(V \tilde x)`, :math:`\tilde x = (1, x)`.

    Parameters
    ----------
    X : array-like of shape (n, d)
    V : array-like of shape (E, d + 1)
        Row ``e`` holds expert ``e``'s gate intercept (column 0) and slopes.

    Returns
    -------
    G : ndarray of shape (n, E)
        ``G[i, e] = g_e(x_i)``; every row is a probability vector (equation ``eq-moe-gate``).
    """
    X = check_reals(X, "X", ndim=2)
    V = check_shape(check_reals(V, "V", ndim=2), "V", (None, X.shape[1] + 1),
                    described=f"(E, d + 1 = {X.shape[1] + 1}): an intercept and one slope per feature of X")
    return _gate(_with_intercept(X), V)


def _gate(X1: np.ndarray, V: np.ndarray) -> np.ndarray:
    """:func:`softmax_gate` on the inputs with their intercept column, ``X1 = (1, X)``, unvalidated."""
    return _softmax(X1 @ V.T)  # eq-moe-gate


# --- experts and the likelihood -----------------------------------------------------------


def linear_gaussian_log_density(X: Any, y: Any, W: Any, sigma2: Any) -> np.ndarray:
    r"""Log-densities :math:`\log \mathcal{N}(y_i; \beta_e \cdot \tilde x_i, \sigma_e^2)` of linear-Gaussian experts.

    Parameters
    ----------
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
    W : array-like of shape (E, d + 1)
        Expert ``e`` predicts :math:`\beta_e \cdot \tilde x` (intercept in column 0).
    sigma2 : array-like of shape (E,)
        The experts' noise variances (> 0).

    Returns
    -------
    ndarray of shape (n, E)
    """
    X = check_reals(X, "X", ndim=2)
    y = check_shape(check_reals(y, "y"), "y", (X.shape[0],), described=f"({X.shape[0]},), one value per row of X")
    W = check_shape(check_reals(W, "W", ndim=2), "W", (None, X.shape[1] + 1))
    s2 = check_shape(check_reals(sigma2, "sigma2", 0.0, None, low_open=True, message="hold positive variances"),
                     "sigma2", (W.shape[0],), described=f"({W.shape[0]},), one variance per expert")
    return _log_density(_with_intercept(X), y, W, s2)


def _log_density(X1: np.ndarray, y: np.ndarray, W: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """:func:`linear_gaussian_log_density` on the inputs with their intercept column, unvalidated."""
    residual = y[:, None] - X1 @ W.T
    return -0.5 * (np.log(2 * np.pi * s2) + residual**2 / s2)


def _log_joint(gate: Any, log_density: Any) -> np.ndarray:
    G = _gate_array(gate)
    L = check_reals(log_density, "log_density", None, np.inf, high_open=True, allow_inf=True,
                    message="not contain NaN or +inf (a density is finite)")
    check_same_shape(gate=G, log_density=L)
    return _joint(G, L)


def _joint(G: np.ndarray, L: np.ndarray) -> np.ndarray:
    """``log g_e(x_i) + log p_e(y_i | x_i)``, unvalidated (EM's own gate and densities)."""
    with np.errstate(divide="ignore"):
        return np.log(G) + L


def mixture_log_likelihood(gate: Any, log_density: Any) -> float:
    r"""The mixture's log-likelihood :math:`\sum_i \log \sum_e g_e(x_i)\, p_e(y_i \mid x_i)`.

    Parameters
    ----------
    gate : array-like of shape (n, E)
        Gate probabilities ``g_e(x_i)`` (rows sum to one).
    log_density : array-like of shape (n, E)
        ``log p_e(y_i | x_i)``.

    Notes
    -----
    Equation ``eq-moe-likelihood``, summed over the sample, computed with
    ``logsumexp`` so that tiny densities do not underflow.
    """
    return _log_likelihood(_log_joint(gate, log_density))


def _log_likelihood(log_joint: np.ndarray) -> float:
    """:func:`mixture_log_likelihood` from the log joint :func:`_joint`, unvalidated."""
    return float(np.sum(_log_normaliser(log_joint)))


def responsibilities(gate: Any, log_density: Any) -> np.ndarray:
    r"""EM's E-step: :math:`r_{ie} = g_e(x_i) p_e(y_i \mid x_i) / \sum_{e'} g_{e'}(x_i) p_{e'}(y_i \mid x_i)`.

    The posterior probability that expert ``e`` produced :math:`y_i`, by Bayes'
    rule with the gate as prior (equation ``eq-moe-responsibility``).

    Parameters
    ----------
    gate : array-like of shape (n, E)
    log_density : array-like of shape (n, E)

    Returns
    -------
    R : ndarray of shape (n, E); every row sums to one.
    """
    return _softmax(_log_joint(gate, log_density))  # eq-moe-responsibility


def gate_objective(gate: Any, resp: Any) -> float:
    r"""The gate's part of EM's expected log-likelihood, :math:`\sum_i \sum_e r_{ie} \log g_e(x_i)`.

    Parameters
    ----------
    gate : array-like of shape (n, E)
    resp : array-like of shape (n, E)
        Responsibilities (rows sum to one).
    """
    G = _gate_array(gate)
    R = _gate_array(resp, "resp")
    check_same_shape(gate=G, resp=R)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(R > 0, R * np.log(G), 0.0)
    return float(np.sum(terms))


# --- sparse routing --------------------------------------------------------------------------


def top_k_route(gate: Any, k: int, renormalise: bool = True) -> tuple[np.ndarray, np.ndarray]:
    r"""Route each input to its ``k`` experts of largest gate value.

    Parameters
    ----------
    gate : array-like of shape (n, E)
    k : int in [1, E]
    renormalise : bool, default=True
        Divide the chosen gate values by their sum (equation ``eq-moe-topk``;
        Mixtral's router). ``False`` keeps them as they are (the Switch
        Transformer's top-1 router, and ``norm_topk_prob: false``).

    Returns
    -------
    experts : ndarray of int, shape (n, k)
        The chosen experts of each row, by decreasing gate value (ties to the
        lower index).
    weights : ndarray of shape (n, k)
        Renormalised, :math:`\tilde g_e(x) = g_e(x) / \sum_{e' \in \mathrm{top}_k(x)} g_{e'}(x)` for
        the chosen experts, and every row sums to one; otherwise :math:`g_e(x)`,
        and a row sums to one minus the gate's mass on the experts not chosen.
    """
    G = _gate_array(gate)
    k = check_int(k, "k", low=1, high=G.shape[1])
    check_bool(renormalise, "renormalise")
    experts = np.argsort(-G, axis=1, kind="stable")[:, :k]
    chosen = np.take_along_axis(G, experts, axis=1)
    if not renormalise:
        return experts, chosen
    total = chosen.sum(axis=1, keepdims=True)
    # a row whose k largest values are all zero cannot happen: its largest is >= 1/E
    return experts, chosen / total


def top_k_gate(gate: Any, k: int, renormalise: bool = True) -> np.ndarray:
    r"""The sparse gate of equation ``eq-moe-topk`` as a dense (n, E) matrix.

    Entry ``(i, e)`` is :math:`g_e(x_i) / \sum_{e' \in \mathrm{top}_k(x_i)} g_{e'}(x_i)` (or
    :math:`g_e(x_i)` with ``renormalise=False``) when ``e`` is among the ``k``
    largest gate values of row ``i``, and 0 otherwise.
    """
    G = _gate_array(gate)
    experts, weights = top_k_route(G, k, renormalise)
    sparse = np.zeros_like(G)
    np.put_along_axis(sparse, experts, weights, axis=1)
    return sparse


def route_scores(scores: Any, k: int, renormalise: bool) -> tuple[np.ndarray, np.ndarray]:
    r"""Sparse routing from the router's scores :math:`s = V \tilde x` (logits), shape (n, E).

    The router's probabilities are :func:`softmax` over all :math:`E` scores; each
    input goes to its ``k`` experts of largest score, and the layer's output is
    :math:`\sum_j` ``weights[:, j]`` :math:`f_{\text{experts}[:, j]}(x)`.

    - ``renormalise=True``: the chosen probabilities divided by their sum, which is
      the softmax over the ``k`` largest scores (Mixtral, top 2; ``norm_topk_prob:
      true``). With ``k = 1`` the weight is exactly 1 for every input, so the
      output does not depend on the scores except through the choice.
    - ``renormalise=False``: the chosen probabilities as they are (the Switch
      Transformer, top 1, whose output :math:`p_{e^*}(x) f_{e^*}(x)` passes a
      gradient to the router; ``norm_topk_prob: false``, e.g. Qwen1.5-MoE's top 4
      and DeepSeek-V2's top 6, which then multiplies them by a constant
      ``routed_scaling_factor``). The weights sum to one minus the probability of
      the experts not chosen.

    Returns
    -------
    experts : ndarray of int, shape (n, k)
    weights : ndarray of shape (n, k)
    """
    return top_k_route(softmax(scores), k, renormalise)


def _assignment_array(assignment: Any, n_rows: int, n_experts: int) -> np.ndarray:
    """The expert indices of each row as a matrix (n, k)."""
    A = check_integers(assignment, "assignment", 0, n_experts - 1,
                       message=f"hold expert indices in [0, {n_experts - 1}]")
    A = A[:, None] if A.ndim == 1 else A
    return check_shape(A, "assignment", (n_rows, None), at_least=1,
                       described=f"({n_rows},) or ({n_rows}, k)")


def expert_load(assignment: Any, n_experts: int) -> np.ndarray:
    r"""The fraction :math:`\phi_e` of routed slots sent to each expert.

    Parameters
    ----------
    assignment : array-like of int, shape (n,) or (n, k)
        The expert(s) each input is sent to.
    n_experts : int

    Returns
    -------
    phi : ndarray of shape (n_experts,), summing to one.
    """
    n_experts = check_int(n_experts, "n_experts", low=1)
    A = np.asarray(assignment)
    A = _assignment_array(A, A.shape[0] if A.ndim else 0, n_experts)
    return np.bincount(A.ravel(), minlength=n_experts) / A.size


def load_balancing_loss(gate: Any, assignment: Any) -> float:
    r"""The Switch Transformer's load-balancing loss :math:`E \sum_e \phi_e P_e`.

    Parameters
    ----------
    gate : array-like of shape (n, E)
        The router's probabilities :math:`g_e(x_i)`.
    assignment : array-like of int, shape (n,) or (n, k)
        The expert(s) each input is dispatched to (the arg-max of the gate for
        the Switch Transformer's top-1 routing).

    Returns
    -------
    float
        :math:`E \sum_e \phi_e P_e` with :math:`\phi_e` the fraction of routed slots
        sent to expert :math:`e` and :math:`P_e = \frac1n \sum_i g_e(x_i)` the
        router's mean probability for it (equation ``eq-moe-balance``). It equals
        1 when the routing is balanced (:math:`\phi_e = 1/E`) and, when
        :math:`\phi = P`, it is :math:`E \sum_e P_e^2 \ge 1`.
    """
    G = _gate_array(gate)
    n_experts = G.shape[1]
    f = expert_load(_assignment_array(assignment, G.shape[0], n_experts), n_experts)
    P = G.mean(axis=0)
    return n_experts * float(f @ P)
