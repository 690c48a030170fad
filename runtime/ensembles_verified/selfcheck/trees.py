r"""Self-checks for the coding exercises of the chapter on decision trees.

Each check calls your function on fresh random cases (drawn from
``random_state``: pass an integer to repeat them) and compares it with the
reference in ``ensemble_ref``. When every case agrees it prints one line
starting with ``✔``; otherwise it raises an ``AssertionError`` that explains
the first failure in the book's terms: the formula (by its equation label),
the case, what was expected and what was received, and, when your answer
matches a usual mistake, which one::

    >>> from ensembles_verified.selfcheck import check_impurity_decrease
    >>> def decrease(counts_left, counts_right):
    ...     gini = lambda c: 1 - np.sum((c / c.sum()) ** 2)
    ...     W_L, W_R = counts_left.sum(), counts_right.sum()
    ...     W = W_L + W_R
    ...     return (gini(counts_left + counts_right) - W_L / W * gini(counts_left)
    ...             - W_R / W * gini(counts_right))
    >>> check_impurity_decrease(decrease, random_state=0)
    ✔ check_impurity_decrease: your function agrees with eq-tree-impurity-decrease (Gini) on all 30 cases.

Arrays are passed as fresh copies, so a function that modifies its arguments
does not change the cases.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ensemble_ref.core.validation import check_random_state

__all__ = ["check_impurity_decrease", "check_best_threshold"]


def _fmt(value: Any) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        return f"{float(arr):.12g}" if arr.dtype.kind in "biuf" else repr(value)
    with np.printoptions(precision=6, threshold=12, linewidth=100):
        return np.array2string(arr, separator=", ")


def _as_number(received: Any, where: str, expected: float) -> float:
    """The student's answer as a float, or an AssertionError that says why it is not one."""
    if received is None:
        raise AssertionError(f"{where}\n  expected: {expected:.12g}\n  received: None "
                             "(does your function return its result?)")
    arr = np.asarray(received)
    if arr.dtype.kind not in "biuf" or arr.size != 1:
        raise AssertionError(f"{where}\n  expected: {expected:.12g}\n  received: {received!r}, "
                             "which is not a single number")
    return float(arr.reshape(()))


def _call(student_fn: Callable, args: tuple, where: str) -> Any:
    if not callable(student_fn):
        raise TypeError(f"the check expects your function itself, got {type(student_fn).__name__}; "
                        "pass its name without parentheses.")
    try:
        return student_fn(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    except Exception as exc:  # the student's error, shown with the case that caused it
        raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}") from exc


# --- the impurity decrease of a split -------------------------------------------------------
def _decrease_cases(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    cases = [(np.array([5.0, 0.0]), np.array([0.0, 5.0])),    # a perfect split
             (np.array([2.0, 2.0]), np.array([6.0, 6.0])),    # same proportions: no decrease
             (np.array([3.0, 1.0, 0.0]), np.array([1.0, 1.0, 8.0]))]
    for _ in range(22):
        K = int(rng.integers(2, 5))
        left = rng.integers(0, 15, K).astype(float)
        right = rng.integers(0, 15, K).astype(float)
        left[rng.integers(K)] += 1  # each child holds at least one point
        right[rng.integers(K)] += 1
        cases.append((left, right))
    for _ in range(5):  # weighted counts, as boosting's sample weights make them
        K = int(rng.integers(2, 4))
        cases.append((rng.uniform(0.1, 3.0, K), rng.uniform(0.1, 3.0, K)))
    return cases


def check_impurity_decrease(student_fn: Callable[[np.ndarray, np.ndarray], float],
                            criterion: str = "gini", random_state: Any = None) -> None:
    r"""Check ``student_fn(counts_left, counts_right)``: the impurity decrease of a split.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(counts_left, counts_right) -> float``: for the (possibly
        weighted) class counts of the two children, the decrease
        :math:`i(t) - \frac{W_L}{W_t} i(L) - \frac{W_R}{W_t} i(R)` of the node
        ``t`` they split, whose counts are ``counts_left + counts_right``
        (equation ``eq-tree-impurity-decrease`` without its factor
        :math:`W_t / W`, i.e. for the node alone).
    criterion : {"gini", "entropy"}, default="gini"
        The impurity :math:`i`: Gini (``eq-tree-gini``) or the entropy in bits
        (``eq-tree-entropy``).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases (30 of them: integer and weighted counts,
        two to four classes, a perfect split and a useless one).

    Notes
    -----
    Reference: :func:`~ensemble_ref.math.impurity.gini_impurity` or
    :func:`~ensemble_ref.math.impurity.entropy_impurity`. A failure names the case and,
    when your value matches a usual mistake (children not weighted, the
    parent's impurity left out, the entropy in nats, the misclassification
    rate), says which.
    """
    from ensemble_ref.math.impurity import entropy_impurity, gini_impurity

    if criterion not in ("gini", "entropy"):
        raise ValueError(f"criterion must be 'gini' or 'entropy', got {criterion!r}.")
    i = gini_impurity if criterion == "gini" else entropy_impurity
    label = "eq-tree-gini" if criterion == "gini" else "eq-tree-entropy"
    name = "Gini" if criterion == "gini" else "entropy in bits"
    cases = _decrease_cases(check_random_state(random_state))
    for number, (cl, cr) in enumerate(cases, start=1):
        ct = cl + cr
        W_L, W_R, W = cl.sum(), cr.sum(), ct.sum()
        iL, iR, iT = float(i(cl)), float(i(cr)), float(i(ct))
        expected = iT - W_L / W * iL - W_R / W * iR
        where = (f"check_impurity_decrease: case {number} of {len(cases)}, "
                 f"counts_left={_fmt(cl)}, counts_right={_fmt(cr)}")
        got = _as_number(_call(student_fn, (cl, cr), where), where, expected)
        if np.isfinite(got) and abs(got - expected) <= 1e-9 + 1e-9 * abs(expected):
            continue
        miscl = lambda c: 1 - c.max() / c.sum()  # noqa: E731
        mistakes = [
            (iT - (iL + iR) / 2, "the unweighted decrease i(t) - (i(L) + i(R))/2: weight each "
                                 "child by its share W_L/W_t, W_R/W_t of the node"),
            (-(W_L / W * iL + W_R / W * iR), "minus the children's weighted impurity, without "
                                             "the parent's impurity i(t)"),
            (iT - W_R / W * iL - W_L / W * iR, "the children's weights swapped (W_R/W_t on the "
                                               "left child)"),
            (W * iT - W_L * iL - W_R * iR, "the decrease multiplied by W_t: divide the children's "
                                           "weights by the node's weight"),
            ((iT - W_L / W * iL - W_R / W * iR) * np.log(2.0), "the decrease in nats: the entropy "
                                                                "(eq-tree-entropy) takes log base 2"),
            (miscl(ct) - W_L / W * miscl(cl) - W_R / W * miscl(cr),
             "the decrease of the misclassification rate 1 - max p_k, not of the " + name),
        ]
        hint = next((f"\n  your value equals {text}." for value, text in mistakes
                     if abs(got - value) <= 1e-9 + 1e-9 * abs(value)
                     and abs(value - expected) > 1e-9), "")
        raise AssertionError(
            f"{where}\n  formula: eq-tree-impurity-decrease, i(t) - (W_L/W_t) i(L) - (W_R/W_t) i(R), "
            f"with i the {name} ({label})\n"
            f"  i(t) = {iT:.6g}, i(L) = {iL:.6g}, i(R) = {iR:.6g}, W_L = {W_L:.6g}, W_R = {W_R:.6g}\n"
            f"  expected: {expected:.12g}\n  received: {got:.12g}{hint}")
    print(f"\u2714 check_impurity_decrease: your function agrees with eq-tree-impurity-decrease "
          f"({'Gini' if criterion == 'gini' else 'entropy'}) on all {len(cases)} cases.")


# --- the best threshold of one feature ------------------------------------------------------
def _threshold_cases(rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    cases = [(np.array([1.0, 2.0]), np.array([0.0, 1.0])),
             (np.array([3.0, 1.0, 2.0, 4.0]), np.array([1.0, 0.0, 0.0, 1.0])),  # unsorted x
             (np.array([0.0, 0.0, 1.0, 1.0, 1.0]), np.array([5.0, 5.2, -1.0, 0.0, 1.0]))]
    for _ in range(20):
        n = int(rng.integers(3, 30))
        x = rng.uniform(-2, 2, n)
        step = rng.uniform(-1.5, 1.5)
        cases.append((x, np.where(x > step, 1.0, 0.0) + rng.normal(scale=0.5, size=n)))
    for _ in range(7):  # repeated feature values: no threshold may separate equal values
        n = int(rng.integers(4, 25))
        x = rng.integers(0, 5, n).astype(float)
        if np.unique(x).size < 2:
            x[0] = 5.0
        cases.append((x, rng.normal(size=n) + x))
    return cases


def _children_sse(x: np.ndarray, y: np.ndarray, s: float) -> float:
    left = x <= s
    sse = lambda v: float(np.sum((v - v.mean()) ** 2)) if v.size else np.inf  # noqa: E731
    return sse(y[left]) + sse(y[~left])


def check_best_threshold(student_fn: Callable[[np.ndarray, np.ndarray], float],
                         random_state: Any = None) -> None:
    r"""Check ``student_fn(x, y)``: the best threshold of one feature for a regression node.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(x, y) -> float`` for the values ``x`` of one feature (not
        sorted, possibly repeated, at least two distinct) and the targets ``y``
        of a node: the threshold ``s`` of the split ``x <= s`` with the smallest
        sum of the two children's squared errors (the largest decrease
        ``eq-tree-impurity-decrease`` with ``eq-tree-sse``), placed at the
        midpoint between the two consecutive distinct values it separates; among
        equally good thresholds, the smallest.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases (30 of them, 2 to 30 points, some with
        repeated values).

    Notes
    -----
    Reference: :func:`ensemble_ref.trees.readable.best_split` on the single
    feature. A failure names the case, the two thresholds and the children's
    squared errors each one gives, and what your threshold gets wrong.
    """
    from ensemble_ref.trees.readable import best_split

    cases = _threshold_cases(check_random_state(random_state))
    for number, (x, y) in enumerate(cases, start=1):
        _, expected = best_split(x[:, None], y, "squared_error")
        where = f"check_best_threshold: case {number} of {len(cases)}, x={_fmt(x)}, y={_fmt(y)}"
        got = _as_number(_call(student_fn, (x, y), where), where, expected)
        if abs(got - expected) <= 1e-12 + 1e-12 * abs(expected):
            continue
        values = np.unique(x)
        best_sse, got_sse = _children_sse(x, y, expected), _children_sse(x, y, got)
        if not values[0] <= got < values[-1]:
            hint = "it leaves one child empty: s must lie between the smallest and largest x."
        elif not np.isclose(got_sse, best_sse, rtol=1e-12, atol=1e-12):
            unweighted = min(values[:-1], key=lambda s: (
                np.var(y[x <= s]) + np.var(y[x > s])))
            same = (x <= got) == (x <= unweighted)
            hint = ("it minimises var(L) + var(R) unweighted: compare n_L i(L) + n_R i(R) "
                    "(eq-tree-impurity-decrease)." if same.all() else
                    "a larger sum of squared errors than the best threshold.")
        elif np.any(np.isclose(got, values)):
            hint = "the split is right but s is a data value: put it at the midpoint between " \
                   "the two consecutive distinct values it separates."
        else:
            hint = ("as good a split as the best one, but not the first: among equally good "
                    "thresholds take the smallest, or the midpoint is computed differently.")
        raise AssertionError(
            f"{where}\n  formula: eq-tree-impurity-decrease with eq-tree-sse: minimise "
            f"n_L i(L) + n_R i(R) over s, s a midpoint of consecutive distinct x\n"
            f"  expected: s = {expected:.12g} (children's squared errors {best_sse:.6g})\n"
            f"  received: s = {got:.12g} (children's squared errors {got_sse:.6g})\n"
            f"  your threshold: {hint}")
    print(f"\u2714 check_best_threshold: your function agrees with "
          f"ensemble_ref.trees.readable.best_split on all {len(cases)} cases.")
