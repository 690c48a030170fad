r"""Self-checks for the coding exercises of the chapter *Mixture of experts*.

Each check calls your function on random cases drawn from a seeded generator
(change ``random_state`` for new ones) and on a few edge cases, and compares
every answer with the formula of the chapter as implemented in
:mod:`ensemble_ref.math.mixture`. When all cases agree it prints one line
starting with ``✔``; at the first disagreement it raises an ``AssertionError``
that names the formula (by its equation in the chapter), shows the case, the
expected answer and yours, and, when your answer matches a usual mistake, says
which::

    >>> from ensembles_verified.selfcheck import check_responsibilities
    >>> import numpy as np
    >>> def my_responsibilities(gate, log_density):
    ...     joint = gate * np.exp(log_density)
    ...     return joint / joint.sum(axis=1, keepdims=True)
    >>> check_responsibilities(my_responsibilities)  # doctest: +ELLIPSIS
    ✔ check_responsibilities: your function agrees with eq-moe-responsibility on all ... cases.

Two answers agree when ``|yours - expected| <= atol + rtol * |expected|``
elementwise, with equal shapes.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ensemble_ref.core.validation import check_random_state
from ensemble_ref.math.mixture import load_balancing_loss, responsibilities, top_k_gate

from .engine import _check_callable

__all__ = ["check_responsibilities", "check_top_k_gate", "check_load_balancing_loss"]


def _fmt(value: Any) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return f"{arr.item():.10g}" if arr.dtype.kind == "f" else repr(arr.item())
    with np.printoptions(precision=6, threshold=24, linewidth=90, suppress=True):
        return np.array2string(arr, separator=", ")


def _run(name: str, formula: str, student_fn: Callable, cases: Sequence[dict],
         reference: Callable, mistakes: Sequence[tuple[str, Callable]] = (), *,
         rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Compare ``student_fn(*case.values())`` with ``reference(**case)`` case by case."""
    _check_callable(student_fn, len(cases[0]), name)
    for number, case in enumerate(cases, start=1):
        fresh = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in case.items()}
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in case.items())
        where = f"{name}: {formula}, case {number} of {len(cases)}:\n  your_function({shown})"
        expected = np.asarray(reference(**case), dtype=float)
        try:
            received = student_fn(*fresh.values())
        except Exception as exc:  # the student's error, with the case that caused it
            raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}") from exc
        if received is None:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  got: None "
                                 "(does your function return its result?)")
        got = np.asarray(received)
        if got.dtype.kind not in "biuf":
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  got: {received!r}, "
                                 "which is not a number or an array of numbers")
        got = got.astype(float)
        if got.shape != expected.shape:
            raise AssertionError(f"{where}\n  expected shape {expected.shape}: {_fmt(expected)}\n"
                                 f"  got shape {got.shape}: {_fmt(got)}")
        ok = np.isfinite(got) & (np.abs(got - expected) <= atol + rtol * np.abs(expected))
        if ok.all():
            continue
        first = int(np.flatnonzero(~ok.ravel())[0])
        detail = (f"\n  first difference at flat index {first}: expected "
                  f"{expected.ravel()[first]:.10g}, got {got.ravel()[first]:.10g}"
                  if got.ndim else "")
        hint = ""
        for description, wrong in mistakes:
            guess = np.asarray(wrong(**case), dtype=float)
            if guess.shape == got.shape and np.allclose(got, guess, rtol=1e-7, atol=1e-10):
                hint = f"\n  your answer is what {description} gives."
                break
        raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  got:      {_fmt(got)}"
                             f"{detail}\n  tolerance: |got - expected| <= {atol:g} + {rtol:g} "
                             f"|expected|{hint}")
    print(f"\u2714 {name}: your function agrees with {formula} on all {len(cases)} cases.")


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
    random_state : int or numpy.random.Generator, default=0
        Seeds the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.mixture.responsibilities` (equation
    ``eq-moe-responsibility``). Recognised mistakes: the numerator without the
    normalisation, the densities alone (no gate), and the gate alone.
    """
    rng = check_random_state(random_state)
    mistakes = [
        ("g_e p_e without dividing by the sum over experts (no normalisation)",
         lambda gate, log_density: gate * np.exp(log_density)),
        ("the densities alone, normalised (the gate's prior left out)",
         lambda gate, log_density: np.exp(log_density) / np.exp(log_density).sum(1, keepdims=True)),
        ("the gate alone (the likelihood left out)", lambda gate, log_density: gate),
    ]
    _run("check_responsibilities", "eq-moe-responsibility (Bayes' rule with the gate as prior)",
         student_fn, _responsibility_cases(rng), responsibilities, mistakes)


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
    random_state : int or numpy.random.Generator, default=0
        Seeds the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.mixture.top_k_gate` (equation
    ``eq-moe-topk``). Recognised mistakes: the ``k`` largest values kept but not
    renormalised, and the ``k`` smallest values chosen.
    """
    rng = check_random_state(random_state)

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
    _run("check_top_k_gate", "eq-moe-topk (top-k gate, renormalised)", student_fn,
         _top_k_cases(rng), top_k_gate, mistakes)


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
        each input is sent to). It returns :math:`E \sum_e f_e P_e`, with
        :math:`f_e` the fraction of inputs sent to expert :math:`e` and
        :math:`P_e` the mean of ``gate[:, e]``.
    random_state : int or numpy.random.Generator, default=0
        Seeds the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.mixture.load_balancing_loss` (equation
    ``eq-moe-balance``). Recognised mistakes: the loss without the factor
    :math:`E`, and counts in place of fractions.
    """
    rng = check_random_state(random_state)

    def no_factor(gate, assignment):
        return load_balancing_loss(gate, assignment) / gate.shape[1]

    def counts(gate, assignment):
        return load_balancing_loss(gate, assignment) * gate.shape[0]

    mistakes = [("the loss without the factor E, sum_e f_e P_e", no_factor),
                ("counts of inputs in place of the fractions f_e", counts)]
    _run("check_load_balancing_loss", "eq-moe-balance (E sum_e f_e P_e)", student_fn,
         _balance_cases(rng), load_balancing_loss, mistakes)
