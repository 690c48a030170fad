r"""Self-checks for the book's coding exercises.

A coding exercise asks for a small function (the out-of-bag probability, an
AdaBoost weight update, an XGBoost leaf weight, ...). Pass your function to the
matching check: it is called on fixed cases and its answers are compared with the
reference implementation in ``ensemble_ref``. When every case agrees, the check
prints one line starting with ``✔``; otherwise it raises an ``AssertionError``
that shows the call, the expected value and the value received::

    >>> from ensemble_ref.selfcheck import check_oob_fraction
    >>> def oob_fraction(N):
    ...     return (1 - 1 / N) ** N
    >>> check_oob_fraction(oob_fraction)
    ✔ check_oob_fraction: your function agrees with ensemble_ref.oob_fraction_exact on all 8 cases.

Each check documents the signature it calls. Arrays are passed as fresh copies,
so a function that modifies its arguments in place does not change the cases.
Two answers agree when ``|received - expected| <= atol + rtol * |expected|``
elementwise (with the shapes equal); the tolerances allow for a different but
correct order of floating-point operations, nothing more.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np

__all__ = [
    "check_oob_fraction",
    "check_condorcet",
    "check_variance_of_average",
    "check_prob_no_informative",
    "check_gini_impurity",
    "check_adaboost_alpha",
    "check_adaboost_weight_update",
    "check_loss_gradient",
    "check_loss_hessian",
    "check_newton_leaf_value",
    "check_weighted_median",
    "check_leaf_weight",
    "check_split_gain",
]


# --- the engine ---------------------------------------------------------------------------


def _fmt(value: Any) -> str:
    arr = np.asarray(value)
    if arr.ndim == 0:
        x = arr.item()
        if not isinstance(x, float):
            return repr(x)
        text = f"{x:.12g}"
        return text if any(c in text for c in ".eni") else text + ".0"
    with np.printoptions(precision=10, threshold=20, linewidth=100):
        return np.array2string(arr, separator=", ")


def _call_text(kwargs: dict) -> str:
    return "your_function(" + ", ".join(f"{k}={_fmt(v)}" for k, v in kwargs.items()) + ")"


def _fresh(kwargs: dict) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}


def _check_callable(student_fn: Any, n_args: int, name: str) -> None:
    if not callable(student_fn):
        raise TypeError(f"{name} expects your function itself (a callable), got "
                        f"{type(student_fn).__name__}; pass the name without parentheses.")
    try:
        signature = inspect.signature(student_fn)
    except (TypeError, ValueError):  # builtins without a signature: let the call decide
        return
    try:
        signature.bind(*range(n_args))
    except TypeError:
        shown = getattr(student_fn, '__name__', 'your_function')
        raise TypeError(f"{name} calls your function with {n_args} positional argument(s), "
                        f"but its signature is {shown}{signature}.") from None


def _run(name: str, student_fn: Callable, cases: Sequence[dict], reference: Callable,
         reference_name: str, *, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Call ``student_fn(**case)`` (positionally) and ``reference(**case)`` on every case."""
    _check_callable(student_fn, len(cases[0]), name)
    for number, case in enumerate(cases, start=1):
        where = f"{name}: case {number} of {len(cases)}, {_call_text(case)}"
        expected = np.asarray(reference(**_fresh(case)), dtype=float)
        try:
            received = student_fn(*_fresh(case).values())
        except Exception as exc:  # the student's error, reported with the case that caused it
            raise AssertionError(f"{where}\n  raised {type(exc).__name__}: {exc}") from exc
        if received is None:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  received: None "
                                 "(does your function return its result?)")
        try:
            got = np.asarray(received)
        except (TypeError, ValueError):  # ragged sequences
            got = np.asarray(None)
        if got.dtype.kind not in "biuf":
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}\n  received: "
                                 f"{received!r}, which is not a number or an array of numbers")
        got = got.astype(float)
        if got.shape != expected.shape:
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)} (shape "
                                 f"{expected.shape})\n  received: {_fmt(got)} (shape {got.shape})")
        ok = np.isfinite(got) & (np.abs(got - expected) <= atol + rtol * np.abs(expected))
        if not ok.all():
            detail = ""
            if got.ndim:
                first = int(np.flatnonzero(~ok.ravel())[0])
                detail = (f"\n  first difference at index {first}: expected "
                          f"{expected.ravel()[first]:.12g}, received {got.ravel()[first]:.12g}")
            raise AssertionError(f"{where}\n  expected: {_fmt(expected)}   ({reference_name})\n"
                                 f"  received: {_fmt(got)}{detail}\n  tolerance: |received - "
                                 f"expected| <= {atol:g} + {rtol:g} |expected|")
    print(f"\u2714 {name}: your function agrees with {reference_name} on all {len(cases)} cases.")


def _grid(**axes: Sequence) -> list[dict]:
    """Every combination of the given values, as keyword dictionaries (in order)."""
    cases = [{}]
    for key, values in axes.items():
        cases = [{**case, key: v} for case in cases for v in values]
    return cases


# --- bagging and random forests ----------------------------------------------------------


def check_oob_fraction(student_fn: Callable[[int], float]) -> None:
    r"""Check ``student_fn(N)``: the probability that a point is out of bag.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(N) -> float`` for an integer ``N >= 2``: the probability
        that a given point is missing from a bootstrap sample of ``N`` draws
        from ``N`` points.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.bootstrap.oob_fraction_exact`, :math:`(1 - 1/N)^N`
    (equation ``eq-oob-exact``), on ``N`` from 2 to :math:`10^5`.
    """
    from ..math.bootstrap import oob_fraction_exact

    cases = [{"N": N} for N in (2, 3, 4, 10, 37, 100, 1000, 100_000)]
    _run("check_oob_fraction", student_fn, cases, lambda N: oob_fraction_exact(N),
         "ensemble_ref.oob_fraction_exact", rtol=1e-8)


def check_prob_no_informative(student_fn: Callable[[int, int, int], float]) -> None:
    r"""Check ``student_fn(d, k, m)``: the probability that a random feature subset is blind.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(d, k, m) -> float``: the probability that ``m`` features
        drawn without replacement from ``d``, of which ``k`` are informative,
        contain no informative feature.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.random_subspace.prob_no_informative`,
    :math:`\binom{d-k}{m}/\binom{d}{m}` (equation ``eq-rf-blind``), including
    the edge cases ``k = 0`` (probability 1) and ``m > d - k`` (probability 0).
    """
    from ..math.random_subspace import prob_no_informative

    cases = [{"d": d, "k": k, "m": m} for d, k, m in
             [(10, 2, 3), (10, 0, 4), (10, 7, 4), (20, 5, 4), (100, 10, 10), (500, 5, 22),
              (5, 1, 1), (8, 3, 5), (8, 3, 6)]]
    _run("check_prob_no_informative", student_fn, cases,
         lambda d, k, m: prob_no_informative(d, k, m), "ensemble_ref.prob_no_informative")


def check_variance_of_average(student_fn: Callable[[float, float, int], float]) -> None:
    r"""Check ``student_fn(sigma2, rho, M)``: the variance of an average of correlated predictors.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(sigma2, rho, M) -> float``: the variance of the average of
        ``M`` predictors, each of variance ``sigma2``, with pairwise correlation
        ``rho``.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.bias_variance.variance_of_average`,
    :math:`\rho\sigma^2 + (1 - \rho)\sigma^2/M` (equation ``eq-var-average``),
    including ``M = 1``, ``rho = 0``, ``rho = 1`` and a negative correlation.
    """
    from ..math.bias_variance import variance_of_average

    cases = [{"sigma2": s2, "rho": rho, "M": M} for s2, rho, M in
             [(1.0, 0.0, 10), (1.0, 1.0, 10), (2.5, 0.3, 1), (2.5, 0.3, 7), (0.7, 0.05, 500),
              (4.0, -0.2, 5), (1.0, 0.5, 2)]]
    _run("check_variance_of_average", student_fn, cases,
         lambda sigma2, rho, M: variance_of_average(sigma2, rho, M),
         "ensemble_ref.variance_of_average")


def check_gini_impurity(student_fn: Callable[[np.ndarray], float]) -> None:
    r"""Check ``student_fn(counts)``: the Gini impurity of a node.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(counts) -> float`` for a 1-D array of the (possibly weighted)
        numbers of points of each class in the node.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.impurity.gini_impurity`,
    :math:`1 - \sum_k p_k^2` with :math:`p_k = c_k / \sum_j c_j` (equation
    ``eq-tree-gini``), for pure, balanced, multi-class and weighted nodes.
    """
    from ..math.impurity import gini_impurity

    cases = [{"counts": np.array(c, dtype=float)} for c in
             [[5, 5], [10, 0], [7], [3, 3, 3], [1, 2, 3, 4], [0.5, 1.5], [0, 4, 0, 12], [98, 2]]]
    _run("check_gini_impurity", student_fn, cases, lambda counts: gini_impurity(counts),
         "ensemble_ref.math.impurity.gini_impurity")


# --- voting --------------------------------------------------------------------------------


def check_condorcet(student_fn: Callable[[float, int], float]) -> None:
    r"""Check ``student_fn(p, T)``: the error of a majority of independent voters.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(p, T) -> float`` for an **odd** number of voters ``T``, each
        correct independently with probability ``p``: the probability that the
        majority vote is wrong (fewer than ``T/2`` voters correct).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.crowds.majority_error` (equation ``eq-condorcet-exact``),
    for voters better and worse than a coin and crowds of 1 to 101.
    """
    from ..math.crowds import majority_error

    cases = _grid(p=(0.55, 0.7, 0.9, 0.45), T=(1, 3, 5, 11, 101))
    _run("check_condorcet", student_fn, cases, lambda p, T: majority_error(p, T),
         "ensemble_ref.majority_error", rtol=1e-8, atol=1e-15)


# --- AdaBoost ------------------------------------------------------------------------------


def check_adaboost_alpha(student_fn: Callable[[float], float]) -> None:
    r"""Check ``student_fn(eps)``: AdaBoost's vote for a learner with weighted error ``eps``.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(eps) -> float`` for two classes and ``0 < eps < 1``.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.adaboost.adaboost_alpha` with ``n_classes=2``,
    :math:`\alpha = \tfrac12 \ln\frac{1 - \epsilon}{\epsilon}` (equation
    ``eq-adaboost-alpha``); the cases include ``eps = 1/2`` (vote 0) and
    ``eps > 1/2`` (negative vote).
    """
    from ..math.adaboost import adaboost_alpha

    cases = [{"eps": eps} for eps in (0.01, 0.1, 0.25, 0.4, 0.5, 0.6, 0.95)]
    _run("check_adaboost_alpha", student_fn, cases, lambda eps: adaboost_alpha(eps),
         "ensemble_ref.adaboost_alpha")


def _weight_update_cases() -> list[dict]:
    rng = np.random.default_rng(20260107)  # fixed cases, the same on every call
    cases = []
    for n, p_wrong, alpha in [(6, 0.3, None), (10, 0.2, None), (25, 0.45, None),
                              (8, 0.3, 0.7), (12, 0.6, -0.2)]:
        w = rng.random(n) + 0.05
        w /= w.sum()  # D_t: a distribution over the training points
        y = rng.choice(np.array([-1.0, 1.0]), size=n)
        wrong = rng.random(n) < p_wrong
        wrong[:2] = [True, False]  # at least one point right and one wrong
        h = np.where(wrong, -y, y)
        if alpha is None:  # the optimal vote for this round's weighted error
            eps = float(w[wrong].sum())
            alpha = 0.5 * np.log((1 - eps) / eps)
        cases.append({"w": w, "y": y, "h": h, "alpha": float(alpha)})
    return cases


def check_adaboost_weight_update(student_fn: Callable[..., np.ndarray]) -> None:
    r"""Check ``student_fn(w, y, h, alpha)``: one round of AdaBoost's reweighting.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(w, y, h, alpha) -> ndarray`` with ``w`` the current weights
        :math:`D_t` (positive, summing to 1), ``y`` the labels and ``h`` the
        weak learner's predictions (arrays of :math:`\pm 1`), and ``alpha`` the
        learner's vote. It returns the next weights
        :math:`D_{t+1}(i) = D_t(i)\, e^{-\alpha y_i h(x_i)} / Z_t`, normalised to sum to 1.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.adaboost.adaboost_weights`, the book's update
    (equations ``eq-adaboost-weights`` and ``eq-adaboost-z``), the function AdaBoost
    itself runs. The cases use the optimal vote and other votes, including a negative one.
    """
    from ..math.adaboost import adaboost_weights

    def reference(w, y, h, alpha):
        return adaboost_weights(w, y, h, alpha)[0]

    _run("check_adaboost_weight_update", student_fn, _weight_update_cases(), reference,
         "ensemble_ref.math.adaboost.adaboost_weights")


# --- losses --------------------------------------------------------------------------------


def _loss_cases(loss: str) -> list[dict]:
    F = np.array([-30.0, -4.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.5, 30.0])
    if loss in ("log_loss",):
        labels = np.array([0.0, 1.0])
    elif loss == "exponential":
        labels = np.array([-1.0, 1.0])
        F = F[np.abs(F) <= 8]  # e^{30} would dwarf every tolerance
    else:
        labels = np.array([-1.3, 0.0, 2.0])
    return [{"y": np.full(F.shape, label), "F": F.copy()} for label in labels]


def _check_loss_part(part: str, student_fn: Callable, loss: str) -> None:
    from ..math.losses import get_loss

    name = f"check_loss_{part}"
    choices = ("squared_error", "log_loss", "exponential")
    if loss not in choices:
        raise ValueError(f"loss must be one of {choices}, got {loss!r}.")
    reference = getattr(get_loss(loss), part)
    _run(name, student_fn, _loss_cases(loss), lambda y, F: reference(y, F),
         f"ensemble_ref.math.losses.{reference.__name__}", rtol=1e-7, atol=1e-12)


def check_loss_gradient(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                        loss: str = "log_loss") -> None:
    r"""Check ``student_fn(y, F)``: the gradient :math:`\partial L(y, F) / \partial F`.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(y, F) -> ndarray``, vectorised: one value per sample.
    loss : {"log_loss", "squared_error", "exponential"}, default="log_loss"
        The loss, with the conventions of :mod:`ensemble_ref.math.losses`: labels in
        {0, 1} and :math:`L = \log(1 + e^F) - yF` for the log loss; labels
        :math:`\pm 1` and :math:`L = e^{-yF}` for the exponential loss;
        :math:`L = \tfrac12 (y - F)^2` for the squared error.

    Notes
    -----
    Reference: the loss's ``gradient`` in :mod:`ensemble_ref.math.losses` (equation
    ``eq-xgb-taylor``), on raw scores from -30 to 30.
    """
    _check_loss_part("gradient", student_fn, loss)


def check_loss_hessian(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                       loss: str = "log_loss") -> None:
    r"""Check ``student_fn(y, F)``: the hessian :math:`\partial^2 L(y, F) / \partial F^2`.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(y, F) -> ndarray``, vectorised: one value per sample.
    loss : {"log_loss", "squared_error", "exponential"}, default="log_loss"
        As in :func:`check_loss_gradient`.

    Notes
    -----
    Reference: the loss's ``hessian`` in :mod:`ensemble_ref.math.losses`.
    """
    _check_loss_part("hessian", student_fn, loss)


# --- gradient boosting ---------------------------------------------------------------------


def check_newton_leaf_value(student_fn: Callable[[np.ndarray, np.ndarray], float]) -> None:
    r"""Check ``student_fn(residual, hessian)``: the Newton step of a gradient-boosting leaf.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(residual, hessian) -> float`` for the negative gradients
        :math:`r_i` and the second derivatives :math:`h_i > 0` of the leaf's samples.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.gradient_boosting.newton_leaf_value`,
    :math:`\sum_i r_i / \sum_i h_i` (equation ``eq-gb-leaf``), on log-loss leaves
    (:math:`r_i = y_i - p_i`, :math:`h_i = p_i(1 - p_i)`) and others.
    """
    from ..math.gradient_boosting import newton_leaf_value

    rng = np.random.default_rng(20260108)  # fixed cases, the same on every call
    cases = []
    for n in (1, 4, 9, 30):
        p = rng.uniform(0.05, 0.95, n)
        y = (rng.random(n) < 0.6).astype(float)
        cases.append({"residual": y - p, "hessian": p * (1 - p)})  # a log-loss leaf
    cases.append({"residual": np.array([0.5, -1.5, 2.0]), "hessian": np.array([1.0, 1.0, 1.0])})
    _run("check_newton_leaf_value", student_fn, cases,
         lambda residual, hessian: newton_leaf_value(residual, hessian),
         "ensemble_ref.math.gradient_boosting.newton_leaf_value")


def check_weighted_median(student_fn: Callable[[np.ndarray, np.ndarray], float]) -> None:
    r"""Check ``student_fn(values, weights)``: the lower weighted median.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(values, weights) -> float``: the smallest value whose
        cumulative weight, with the values sorted increasingly, reaches half of
        the total weight (it minimises :math:`\sum_i w_i |v_i - c|`; when the
        minimisers form an interval, it is the interval's left end, as in
        scikit-learn).

    Notes
    -----
    Reference: :func:`ensemble_ref.math.gradient_boosting.weighted_median` (the leaf
    value for the absolute error, equation ``eq-gb-leaf``), with unsorted values,
    repeated values, uniform and skewed weights, and an even number of equal
    weights (where the left end of the interval is required).
    """
    from ..math.gradient_boosting import weighted_median

    cases = [{"values": np.array(v, dtype=float), "weights": np.array(w, dtype=float)}
             for v, w in [([3, 1, 2], [1, 1, 1]), ([5, -1, 4, 2, 8], [1, 1, 1, 1, 1]),
                          ([1, 2, 3, 4], [1, 1, 1, 1]), ([1, 2, 3, 4], [1, 1, 1, 5]),
                          ([10, 0, 5], [0.2, 0.5, 0.3]), ([2, 2, 7, 1], [1, 3, 1, 1]),
                          ([-3.5, 0.25, 9.0, 4.0, 1.0, 6.5], [2, 1, 1, 3, 1, 1])]]
    _run("check_weighted_median", student_fn, cases,
         lambda values, weights: weighted_median(values, weights),
         "ensemble_ref.math.gradient_boosting.weighted_median")


# --- second-order boosting (XGBoost) -------------------------------------------------------


def check_leaf_weight(student_fn: Callable[[float, float, float], float]) -> None:
    r"""Check ``student_fn(G, H, lam)``: the optimal weight of a leaf.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(G, H, lam) -> float``: the weight minimising
        :math:`G w + \tfrac12 (H + \lambda) w^2`, for the sums ``G`` and ``H`` of
        the gradients and hessians in the leaf and the penalty ``lam``.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.leaf_weight`,
    :math:`w^* = -G/(H + \lambda)` (equation ``eq-xgb-leaf-weight``), including
    ``lam = 0`` and ``G = 0``.
    """
    from ..math.second_order import leaf_weight

    cases = [{"G": G, "H": H, "lam": lam} for G, H, lam in
             [(-3.0, 2.0, 1.0), (4.5, 10.0, 1.0), (0.0, 3.0, 1.0), (-12.0, 3.0, 0.0),
              (2.0, 0.25, 5.0), (-0.6, 0.09, 1.0), (150.0, 400.0, 10.0)]]
    _run("check_leaf_weight", student_fn, cases, lambda G, H, lam: leaf_weight(G, H, lam),
         "ensemble_ref.math.second_order.leaf_weight")


def check_split_gain(student_fn: Callable[..., float]) -> None:
    r"""Check ``student_fn(G_L, H_L, G_R, H_R, lam, gamma)``: the gain of a split.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(G_L, H_L, G_R, H_R, lam, gamma) -> float``: the decrease of
        the regularised objective when a leaf is split into a left part (gradient
        and hessian sums ``G_L``, ``H_L``) and a right part (``G_R``, ``H_R``),
        with penalties ``lam`` on the weights and ``gamma`` per leaf.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.split_gain`,
    :math:`\tfrac12\big[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} -
    \frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\big] - \gamma` (equation ``eq-xgb-gain``),
    including splits that do not pay for their ``gamma`` (negative gain).
    """
    from ..math.second_order import split_gain

    cases = [{"G_L": a, "H_L": b, "G_R": c, "H_R": d, "lam": lam, "gamma": gamma}
             for a, b, c, d, lam, gamma in
             [(-4.0, 3.0, 5.0, 4.0, 1.0, 0.0), (-4.0, 3.0, 5.0, 4.0, 1.0, 0.5),
              (2.0, 1.0, 2.0, 1.0, 1.0, 0.0), (-10.0, 5.0, 1.0, 2.0, 0.0, 0.1),
              (0.3, 0.2, -0.1, 0.5, 2.0, 1.0), (60.0, 30.0, -45.0, 25.0, 10.0, 3.0)]]
    _run("check_split_gain", student_fn, cases,
         lambda G_L, H_L, G_R, H_R, lam, gamma: split_gain(G_L, H_L, G_R, H_R, lam, gamma),
         "ensemble_ref.math.second_order.split_gain")
