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
    >>> check_impurity_decrease(decrease, random_state=0)  # doctest: +ELLIPSIS
    ✔ check_impurity_decrease: your function agrees with the decrease of ...gini_impurity on all 30 cases.

Arrays are passed as fresh copies, so a function that modifies its arguments
does not change the cases.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .engine import _fmt, _run, _seed

__all__ = ["check_impurity_decrease", "check_best_threshold"]


# --- the impurity decrease of a split -------------------------------------------------------
def _decrease_cases(rng: np.random.Generator) -> list[dict]:
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
    return [{"counts_left": cl, "counts_right": cr} for cl, cr in cases]


def _decrease_mistakes(i: Callable, name: str) -> list[tuple[str, Callable]]:
    """The usual mistakes, as functions of the two children's counts (impurity ``i``, called ``name``)."""
    def parts(cl, cr):
        ct = cl + cr
        return float(i(ct)), float(i(cl)), float(i(cr)), cl.sum() / ct.sum(), cr.sum() / ct.sum(), ct.sum()

    def decrease(cl, cr, impurity):
        pL, pR = cl.sum() / (cl + cr).sum(), cr.sum() / (cl + cr).sum()
        return impurity(cl + cr) - pL * impurity(cl) - pR * impurity(cr)

    def mistake(description, value):
        return description, lambda counts_left, counts_right: value(*parts(counts_left, counts_right))

    return [
        mistake("the unweighted decrease (weight each child by its share of the node)",
                lambda iT, iL, iR, pL, pR, W: iT - (iL + iR) / 2),
        mistake("minus the children's weighted impurity, without the parent's impurity i(t)",
                lambda iT, iL, iR, pL, pR, W: -(pL * iL + pR * iR)),
        mistake("the children's weights swapped (W_R/W_t on the left child)",
                lambda iT, iL, iR, pL, pR, W: iT - pR * iL - pL * iR),
        mistake("the decrease multiplied by W_t (divide the children's weights by the node's weight)",
                lambda iT, iL, iR, pL, pR, W: W * (iT - pL * iL - pR * iR)),
        mistake("the decrease in nats (the entropy, eq-tree-entropy, takes log base 2)",
                lambda iT, iL, iR, pL, pR, W: (iT - pL * iL - pR * iR) * np.log(2.0)),
        ("the decrease of the misclassification rate, not of the " + name,
         lambda counts_left, counts_right: decrease(counts_left, counts_right,
                                                    lambda c: 1 - c.max() / c.sum())),
    ]


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
    rng, repeat = _seed(random_state)

    def reference(counts_left, counts_right):
        W_L, W_R = counts_left.sum(), counts_right.sum()
        W = W_L + W_R
        return float(i(counts_left + counts_right)) - W_L / W * float(i(counts_left)) \
            - W_R / W * float(i(counts_right))

    def formula(counts_left, counts_right):
        iT, iL, iR = (float(i(c)) for c in (counts_left + counts_right, counts_left, counts_right))
        return (f"eq-tree-impurity-decrease, i(t) - (W_L/W_t) i(L) - (W_R/W_t) i(R), with i the {name} "
                f"({label})\n  i(t) = {iT:.6g}, i(L) = {iL:.6g}, i(R) = {iR:.6g}, "
                f"W_L = {counts_left.sum():.6g}, W_R = {counts_right.sum():.6g}")

    _run("check_impurity_decrease", student_fn, _decrease_cases(rng), reference,
         f"the decrease of ensemble_ref.math.impurity.{i.__name__}", formula=formula, rtol=1e-9,
         atol=1e-9, mistakes=_decrease_mistakes(i, name), repeat=repeat, single=True)


# --- the best threshold of one feature ------------------------------------------------------
def _threshold_cases(rng: np.random.Generator) -> list[dict]:
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
    return [{"x": x, "y": y} for x, y in cases]


def _children_sse(x: np.ndarray, y: np.ndarray, s: float) -> float:
    left = x <= s
    sse = lambda v: float(np.sum((v - v.mean()) ** 2)) if v.size else np.inf  # noqa: E731
    return sse(y[left]) + sse(y[~left])


def _compare_thresholds(got: np.ndarray, expected: float, case: dict) -> tuple[str, str, str] | None:
    """``None`` for the best threshold; else the two thresholds, their children's errors and why."""
    x, y = case["x"], case["y"]
    if got.ndim:
        return (f"s = {expected:.12g}, a single number", f"{_fmt(got)}, which is not a single number", "")
    s = float(got)
    if abs(s - expected) <= 1e-12 + 1e-12 * abs(expected):
        return None
    values = np.unique(x)
    best_sse, got_sse = _children_sse(x, y, expected), _children_sse(x, y, s)
    if not np.isfinite(s):
        hint = "it is not a finite number."
    elif not values[0] <= s < values[-1]:
        hint = "it leaves one child empty: s must lie between the smallest and largest x."
    elif not np.isclose(got_sse, best_sse, rtol=1e-12, atol=1e-12):
        unweighted = min(values[:-1], key=lambda t: np.var(y[x <= t]) + np.var(y[x > t]))
        same = (x <= s) == (x <= unweighted)
        hint = ("it minimises the children's impurities unweighted: each child counts with its "
                "number of points (eq-tree-impurity-decrease)." if same.all() else
                "a larger sum of squared errors than the best threshold.")
    elif np.any(np.isclose(s, values)):
        hint = "the split is right but s is a data value: put it at the midpoint between " \
               "the two consecutive distinct values it separates."
    else:
        hint = ("as good a split as the best one, but not the first: among equally good "
                "thresholds take the smallest, or the midpoint is computed differently.")
    return (f"s = {expected:.12g} (children's squared errors {best_sse:.6g})",
            f"s = {s:.12g} (children's squared errors {got_sse:.6g})", f"\n  your threshold: {hint}")


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

    rng, repeat = _seed(random_state)
    _run("check_best_threshold", student_fn, _threshold_cases(rng),
         lambda x, y: float(best_split(x[:, None], y, "squared_error")[1]),
         "ensemble_ref.trees.readable.best_split",
         formula="eq-tree-impurity-decrease with eq-tree-sse: minimise n_L i(L) + n_R i(R) over s, "
                 "s a midpoint of consecutive distinct x",
         compare=_compare_thresholds, repeat=repeat, single=True)
