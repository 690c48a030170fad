r"""Self-checks for the coding exercises of the chapter *Mixture of experts*.

Each check calls your function on random cases drawn from a seeded generator
(another ``random_state`` gives other cases, ``None`` new ones on every call) and
on a few edge cases, and compares every answer with the formula of the chapter as
implemented in :mod:`ensemble_ref.math.mixture`. When all cases agree it prints
one line starting with ``✔``; at the first disagreement it raises an
``AssertionError`` that shows the case, names the formula (by its equation in the
chapter), shows the expected answer and yours, and, when your answer matches a
usual mistake, says which::

    >>> from ensembles_verified.selfcheck import check_responsibilities
    >>> import numpy as np
    >>> def my_responsibilities(gate, log_density):
    ...     joint = gate * np.exp(log_density)
    ...     return joint / joint.sum(axis=1, keepdims=True)
    >>> check_responsibilities(my_responsibilities)  # doctest: +ELLIPSIS
    ✔ check_responsibilities: your function agrees with ensemble_ref.math.mixture.responsibilities on all ... cases.

Two answers agree when ``|received - expected| <= atol + rtol * |expected|``
elementwise, with equal shapes.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ensemble_ref.math.mixture import load_balancing_loss, responsibilities, top_k_gate

from .engine import _run, _seed

__all__ = ["check_responsibilities", "check_top_k_gate", "check_load_balancing_loss"]


def _random_gate(rng: np.random.Generator, n: int, E: int, concentration: float) -> np.ndarray:
    return rng.dirichlet(np.full(E, concentration), size=n)


# --- responsibilities ----------------------------------------------------------------------


def _responsibility_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, E, spread in [(1, 2, 1.0), (4, 2, 3.0), (6, 3, 5.0), (10, 5, 10.0), (3, 4, 40.0)]:
        cases.append({"gate": _random_gate(rng, n, E, 1.0),
                      "log_density": -spread * rng.random((n, E))})
    # an expert the gate ignores (probability 0) and equal densities (answer: the gate)
    cases.append({"gate": np.array([[0.0, 0.3, 0.7], [0.5, 0.5, 0.0]]),
                  "log_density": np.array([[-1.0, -2.0, -0.5], [-3.0, -1.0, -2.0]])})
    cases.append({"gate": np.array([[0.2, 0.8], [0.6, 0.4]]), "log_density": np.full((2, 2), -1.3)})
    return cases


def check_responsibilities(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                           random_state: Any = 0) -> None:
    r"""Check ``student_fn(gate, log_density)``: EM's responsibilities.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(gate, log_density) -> ndarray`` of shape (n, E), where
        ``gate[i, e]`` is :math:`g_e(x_i)` (rows sum to one) and
        ``log_density[i, e]`` is :math:`\log p_e(y_i \mid x_i)`. It returns
        :math:`r_{ie} = g_e(x_i) p_e(y_i \mid x_i) / \sum_f g_f(x_i) p_f(y_i \mid x_i)`.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.mixture.responsibilities` (equation
    ``eq-moe-responsibility``). Recognised mistakes: the numerator without the
    normalisation, the densities alone (no gate), and the gate alone.
    """
    rng, repeat = _seed(random_state)
    mistakes = [
        ("the products not normalised over the experts",
         lambda gate, log_density: gate * np.exp(log_density)),
        ("the densities alone, normalised (the gate's prior left out)",
         lambda gate, log_density: np.exp(log_density) / np.exp(log_density).sum(1, keepdims=True)),
        ("the gate alone (the likelihood left out)", lambda gate, log_density: gate),
    ]
    _run("check_responsibilities", student_fn, _responsibility_cases(rng), responsibilities,
         "ensemble_ref.math.mixture.responsibilities",
         formula="eq-moe-responsibility, r_ie = g_e p_e / sum_f g_f p_f (Bayes' rule with the gate "
                 "as prior)", mistakes=mistakes, repeat=repeat)


# --- top-k routing -----------------------------------------------------------------------------


def _top_k_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, E, k in [(1, 2, 1), (5, 4, 1), (5, 4, 2), (6, 8, 2), (4, 8, 3), (3, 5, 5)]:
        cases.append({"gate": _random_gate(rng, n, E, 0.7), "k": k})
    cases.append({"gate": np.array([[0.25, 0.25, 0.25, 0.25], [0.1, 0.4, 0.4, 0.1]]), "k": 1})
    return cases


def check_top_k_gate(student_fn: Callable[[np.ndarray, int], np.ndarray],
                     random_state: Any = 0) -> None:
    r"""Check ``student_fn(gate, k)``: the sparse gate of top-``k`` routing.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(gate, k) -> ndarray`` of shape (n, E): in each row, the
        ``k`` largest gate values divided by their sum, and 0 for the other
        experts. Ties go to the expert of lower index.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.mixture.top_k_gate` (equation
    ``eq-moe-topk``). Recognised mistakes: the ``k`` largest values kept but not
    renormalised, and the ``k`` smallest values chosen.
    """
    rng, repeat = _seed(random_state)

    def unnormalised(gate, k):
        out = top_k_gate(gate, k)
        return np.where(out > 0, gate, 0.0)

    def smallest(gate, k):
        order = np.argsort(gate, axis=1, kind="stable")[:, :k]
        out = np.zeros_like(gate)
        chosen = np.take_along_axis(gate, order, axis=1)
        np.put_along_axis(out, order, chosen / chosen.sum(axis=1, keepdims=True), axis=1)
        return out

    mistakes = [("keeping the k largest gate values without renormalising them", unnormalised),
                ("choosing the k smallest gate values", smallest)]
    _run("check_top_k_gate", student_fn, _top_k_cases(rng), top_k_gate,
         "ensemble_ref.math.mixture.top_k_gate",
         formula="eq-moe-topk, the k largest gate values of each row divided by their sum, 0 elsewhere",
         mistakes=mistakes, repeat=repeat)


# --- the load-balancing loss --------------------------------------------------------------------


def _balance_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    for n, E, concentration in [(8, 2, 1.0), (20, 4, 0.5), (50, 8, 2.0), (12, 3, 0.2)]:
        gate = _random_gate(rng, n, E, concentration)
        cases.append({"gate": gate, "assignment": np.argmax(gate, axis=1)})
    uniform = np.full((6, 3), 1 / 3)
    cases.append({"gate": uniform, "assignment": np.array([0, 1, 2, 0, 1, 2])})
    cases.append({"gate": np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4]]),
                  "assignment": np.array([0, 0, 0])})
    return cases


def check_load_balancing_loss(student_fn: Callable[[np.ndarray, np.ndarray], float],
                              random_state: Any = 0) -> None:
    r"""Check ``student_fn(gate, assignment)``: the Switch Transformer's balancing loss.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(gate, assignment) -> float`` with ``gate`` of shape (n, E)
        (the router's probabilities) and ``assignment`` of shape (n,) (the expert
        each input is sent to). It returns :math:`\mathcal{A} = E \sum_e \phi_e P_e`, with
        :math:`\phi_e` the fraction of inputs sent to expert :math:`e` and
        :math:`P_e` the mean of ``gate[:, e]``.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the random cases (``None``: new cases on every call).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.mixture.load_balancing_loss` (equation
    ``eq-moe-balance``). Recognised mistakes: the loss without the factor
    :math:`E`, and counts in place of fractions.
    """
    rng, repeat = _seed(random_state)

    def no_factor(gate, assignment):
        return load_balancing_loss(gate, assignment) / gate.shape[1]

    def counts(gate, assignment):
        return load_balancing_loss(gate, assignment) * gate.shape[0]

    mistakes = [("the loss without the factor E, sum_e phi_e P_e", no_factor),
                ("counts of inputs in place of the fractions phi_e", counts)]
    _run("check_load_balancing_loss", student_fn, _balance_cases(rng), load_balancing_loss,
         "ensemble_ref.math.mixture.load_balancing_loss", formula="eq-moe-balance, E sum_e phi_e P_e",
         mistakes=mistakes, repeat=repeat)
