"""Self-checks of the boosting chapters: AdaBoost, losses, gradient and second-order boosting
(see :mod:`ensembles_verified.selfcheck`)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .engine import _run, _seed

__all__ = ["check_adaboost_alpha", "check_adaboost_weight_update", "check_loss_gradient",
           "check_loss_hessian", "check_newton_leaf_value", "check_weighted_median",
           "check_leaf_weight", "check_split_gain"]


# --- AdaBoost ------------------------------------------------------------------------------


def check_adaboost_alpha(student_fn: Callable[[float], float], random_state: Any = None) -> None:
    r"""Check ``student_fn(eps)``: AdaBoost's vote for a learner with weighted error ``eps``.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(eps) -> float`` for two classes and ``0 < eps < 1``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.adaboost.adaboost_alpha` with ``n_classes=2``,
    :math:`\alpha = \tfrac12 \ln\frac{1 - \epsilon}{\epsilon}` (equation
    ``eq-adaboost-alpha``); the cases include ``eps = 1/2`` (vote 0) and
    ``eps > 1/2`` (negative vote).
    """
    from ensemble_ref import adaboost_alpha

    rng, repeat = _seed(random_state)
    values = [0.01, 0.25, 0.5, 0.6, 0.95] + [float(e) for e in rng.uniform(0.01, 0.99, 6)]
    _run("check_adaboost_alpha", student_fn, [{"eps": eps} for eps in values],
         lambda eps: adaboost_alpha(eps), "ensemble_ref.adaboost_alpha",
         formula="eq-adaboost-alpha, (1/2) ln((1 - eps) / eps)",
         mistakes=[("a vote twice too large (a constant factor missing)",
                    lambda eps: np.log((1 - eps) / eps)),
                   ("the ratio of error to accuracy inverted",
                    lambda eps: 0.5 * np.log(eps / (1 - eps)))],
         repeat=repeat)


def _weight_update_cases(rng: np.random.Generator) -> list[dict]:
    cases = []
    specs = [(6, 0.3, None), (12, 0.6, -0.2)]
    specs += [(int(rng.integers(3, 30)), float(rng.uniform(0.1, 0.5)),
               None if rng.random() < 0.6 else float(rng.normal())) for _ in range(6)]
    for n, p_wrong, alpha in specs:
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


def _reweight(w, y, h, alpha):
    w = w * np.exp(-alpha * y * h)
    return w / w.sum()


def check_adaboost_weight_update(student_fn: Callable[..., np.ndarray], random_state: Any = None
                                 ) -> None:
    r"""Check ``student_fn(w, y, h, alpha)``: one round of AdaBoost's reweighting.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(w, y, h, alpha) -> ndarray`` with ``w`` the current weights
        :math:`D_t` (positive, summing to 1), ``y`` the labels and ``h`` the
        weak learner's predictions (arrays of :math:`\pm 1`), and ``alpha`` the
        learner's vote. It returns the next weights
        :math:`D_{t+1}(i) = D_t(i)\, e^{-\alpha y_i h(x_i)} / Z_t`, normalised to sum to 1.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.adaboost.adaboost_weights`, the book's update
    (equations ``eq-adaboost-weights`` and ``eq-adaboost-z``), the function AdaBoost
    itself runs. The cases use the optimal vote and other votes, including a negative one.
    """
    from ensemble_ref import adaboost_weights

    def reference(w, y, h, alpha):
        return adaboost_weights(w, y, h, alpha)[0]

    rng, repeat = _seed(random_state)
    _run("check_adaboost_weight_update", student_fn, _weight_update_cases(rng), reference,
         "ensemble_ref.math.adaboost.adaboost_weights",
         formula="eq-adaboost-weights, D_t(i) exp(-alpha y_i h(x_i)) / Z_t (eq-adaboost-z)",
         mistakes=[("the update without dividing by Z_t",
                    lambda w, y, h, alpha: w * np.exp(-alpha * y * h)),
                   ("the sign of the exponent flipped: the right points gain weight",
                    lambda w, y, h, alpha: _reweight(w, y, h, -alpha)),
                   ("a vote twice too large in the exponent",
                    lambda w, y, h, alpha: _reweight(w, y, h, 2 * alpha))],
         repeat=repeat)


# --- losses --------------------------------------------------------------------------------


def _loss_cases(loss: str, rng: np.random.Generator) -> list[dict]:
    F = np.array([-30.0, -4.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.5, 30.0])
    if loss in ("log_loss",):
        labels = np.array([0.0, 1.0])
    elif loss == "exponential":
        labels = np.array([-1.0, 1.0])
        F = F[np.abs(F) <= 8]  # e^{30} would dwarf every tolerance
    else:
        labels = np.array([-1.3, 0.0, 2.0])
    cases = [{"y": np.full(F.shape, label), "F": F.copy()} for label in labels]
    for _ in range(4):  # random labels and raw scores
        n = int(rng.integers(1, 12))
        y = rng.choice(labels, size=n) if loss != "squared_error" else rng.normal(size=n)
        cases.append({"y": y.astype(float), "F": rng.normal(scale=3.0, size=n)})
    return cases


_LOSS_FORMULAS = {
    ("log_loss", "gradient"): "eq-loss-logistic: dL/dF = sigmoid(F) - y for L = log(1 + e^F) - yF",
    ("log_loss", "hessian"): "eq-loss-logistic: d2L/dF2 = sigmoid(F) (1 - sigmoid(F))",
    ("squared_error", "gradient"): "eq-loss-squared: dL/dF = F - y for L = (y - F)^2 / 2",
    ("squared_error", "hessian"): "eq-loss-squared: d2L/dF2 = 1",
    ("exponential", "gradient"): "the exponential loss: dL/dF = -y e^{-yF}",
    ("exponential", "hessian"): "the exponential loss: d2L/dF2 = e^{-yF} (y^2 = 1)",
}


def _sigmoid(F):
    return 0.5 * (1 + np.tanh(0.5 * F))


def _check_loss_part(part: str, student_fn: Callable, loss: str, random_state: Any) -> None:
    from ensemble_ref import get_loss

    name = f"check_loss_{part}"
    choices = ("squared_error", "log_loss", "exponential")
    if loss not in choices:
        raise ValueError(f"loss must be one of {choices}, got {loss!r}.")
    reference = getattr(get_loss(loss), part)
    mistakes = []
    if part == "gradient":
        mistakes.append(("the negative gradient (the pseudo-residual)",
                         lambda y, F: -reference(y, F)))
        if loss == "log_loss":
            mistakes.append(("sigmoid(F), without the label", lambda y, F: _sigmoid(F)))
    elif loss == "log_loss":
        mistakes += [("1, the squared error's hessian", lambda y, F: np.ones_like(F)),
                     ("a hessian that depends on the label",
                      lambda y, F: _sigmoid(F) * (1 - y))]
    rng, repeat = _seed(random_state)
    _run(name, student_fn, _loss_cases(loss, rng), lambda y, F: reference(y, F),
         f"ensemble_ref.math.losses.{reference.__name__}", formula=_LOSS_FORMULAS[loss, part],
         rtol=1e-7, atol=1e-12, mistakes=mistakes, repeat=repeat)


def check_loss_gradient(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                        loss: str = "log_loss", random_state: Any = None) -> None:
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
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: the loss's ``gradient`` in :mod:`ensemble_ref.math.losses` (equation
    ``eq-xgb-taylor``), on raw scores from -30 to 30.
    """
    _check_loss_part("gradient", student_fn, loss, random_state)


def check_loss_hessian(student_fn: Callable[[np.ndarray, np.ndarray], np.ndarray],
                       loss: str = "log_loss", random_state: Any = None) -> None:
    r"""Check ``student_fn(y, F)``: the hessian :math:`\partial^2 L(y, F) / \partial F^2`.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(y, F) -> ndarray``, vectorised: one value per sample.
    loss : {"log_loss", "squared_error", "exponential"}, default="log_loss"
        As in :func:`check_loss_gradient`.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: the loss's ``hessian`` in :mod:`ensemble_ref.math.losses`.
    """
    _check_loss_part("hessian", student_fn, loss, random_state)


# --- gradient boosting ---------------------------------------------------------------------


def check_newton_leaf_value(student_fn: Callable[[np.ndarray, np.ndarray], float],
                            random_state: Any = None) -> None:
    r"""Check ``student_fn(residual, hessian)``: the Newton step of a gradient-boosting leaf.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(residual, hessian) -> float`` for the negative gradients
        :math:`r_i` and the second derivatives :math:`h_i > 0` of the leaf's samples.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.gradient_boosting.newton_leaf_value`,
    :math:`\sum_i r_i / \sum_i h_i` (equation ``eq-gb-leaf``), on log-loss leaves
    (:math:`r_i = y_i - p_i`, :math:`h_i = p_i(1 - p_i)`) and others.
    """
    from ensemble_ref import newton_leaf_value

    rng, repeat = _seed(random_state)
    cases = []
    for n in (1, 4, 9, 30) + tuple(int(k) for k in rng.integers(2, 40, 4)):
        p = rng.uniform(0.05, 0.95, n)
        y = (rng.random(n) < 0.6).astype(float)
        cases.append({"residual": y - p, "hessian": p * (1 - p)})  # a log-loss leaf
    cases.append({"residual": np.array([0.5, -1.5, 2.0]), "hessian": np.array([1.0, 1.0, 1.0])})
    _run("check_newton_leaf_value", student_fn, cases,
         lambda residual, hessian: newton_leaf_value(residual, hessian),
         "ensemble_ref.math.gradient_boosting.newton_leaf_value",
         formula="eq-gb-leaf (Newton step), sum_i r_i / sum_i h_i",
         mistakes=[("the mean residual, the first-order (gradient) leaf",
                    lambda residual, hessian: residual.mean()),
                   ("the mean of the per-sample steps r_i / h_i",
                    lambda residual, hessian: np.mean(residual / hessian)),
                   ("the sign flipped (the gradient in the place of the residual)",
                    lambda residual, hessian: -residual.sum() / hessian.sum())],
         repeat=repeat)


def _upper_median(values, weights):
    order = np.argsort(values, kind="stable")
    cdf = np.cumsum(weights[order])
    return float(values[order][np.argmax(cdf > cdf[-1] / 2)])


def check_weighted_median(student_fn: Callable[[np.ndarray, np.ndarray], float],
                          random_state: Any = None) -> None:
    r"""Check ``student_fn(values, weights)``: the lower weighted median.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(values, weights) -> float``: the smallest value whose
        cumulative weight, with the values sorted increasingly, reaches half of
        the total weight (it minimises :math:`\sum_i w_i |v_i - c|`; when the
        minimisers form an interval, it is the interval's left end, as in
        scikit-learn).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.gradient_boosting.weighted_median` (the leaf
    value for the absolute error, equation ``eq-gb-leaf``), with unsorted values,
    repeated values, uniform and skewed weights, and an even number of equal
    weights (where the left end of the interval is required).
    """
    from ensemble_ref import weighted_median

    rng, repeat = _seed(random_state)
    pairs = [([3, 1, 2], [1, 1, 1]), ([1, 2, 3, 4], [1, 1, 1, 1]), ([1, 2, 3, 4], [1, 1, 1, 5]),
             ([10, 0, 5], [0.2, 0.5, 0.3]), ([2, 2, 7, 1], [1, 3, 1, 1])]
    for _ in range(8):
        n = int(rng.integers(1, 15))
        pairs.append((list(np.round(rng.normal(size=n), 2)), list(rng.integers(1, 5, n))))
    cases = [{"values": np.array(v, dtype=float), "weights": np.array(w, dtype=float)}
             for v, w in pairs]
    _run("check_weighted_median", student_fn, cases,
         lambda values, weights: weighted_median(values, weights),
         "ensemble_ref.math.gradient_boosting.weighted_median",
         formula="eq-gb-leaf (absolute error): the smallest v whose cumulative weight reaches "
                 "half the total",
         mistakes=[("the unweighted median", lambda values, weights: float(np.median(values))),
                   ("the weighted mean", lambda values, weights: float(np.average(values,
                                                                                  weights=weights))),
                   ("the right end of the interval of minimisers (cumulative weight > half)",
                    _upper_median)],
         repeat=repeat)


# --- second-order boosting (XGBoost) -------------------------------------------------------


def check_leaf_weight(student_fn: Callable[[float, float, float], float],
                      random_state: Any = None) -> None:
    r"""Check ``student_fn(G, H, lam)``: the optimal weight of a leaf.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(G, H, lam) -> float``: the weight minimising
        :math:`G w + \tfrac12 (H + \lambda) w^2`, for the sums ``G`` and ``H`` of
        the gradients and hessians in the leaf and the penalty ``lam``.
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.leaf_weight`,
    :math:`w^* = -G/(H + \lambda)` (equation ``eq-xgb-leaf-weight``), including
    ``lam = 0`` and ``G = 0``.
    """
    from ensemble_ref import leaf_weight

    rng, repeat = _seed(random_state)
    triples = [(-3.0, 2.0, 1.0), (0.0, 3.0, 1.0), (-12.0, 3.0, 0.0), (2.0, 0.25, 5.0)]
    triples += [(float(rng.normal(scale=10)), float(rng.uniform(0.1, 50)), float(rng.uniform(0, 5)))
                for _ in range(8)]
    cases = [{"G": G, "H": H, "lam": lam} for G, H, lam in triples]
    _run("check_leaf_weight", student_fn, cases, lambda G, H, lam: leaf_weight(G, H, lam),
         "ensemble_ref.math.second_order.leaf_weight",
         formula="eq-xgb-leaf-weight, w* = -G / (H + lambda)",
         mistakes=[("the weight without the penalty lambda", lambda G, H, lam: -G / H),
                   ("the weight with its sign flipped", lambda G, H, lam: G / (H + lam))],
         repeat=repeat)


def check_split_gain(student_fn: Callable[..., float], random_state: Any = None) -> None:
    r"""Check ``student_fn(G_L, H_L, G_R, H_R, lam, tau)``: the gain of a split.

    Parameters
    ----------
    student_fn : callable
        ``student_fn(G_L, H_L, G_R, H_R, lam, tau) -> float``: the decrease of
        the regularised objective when a leaf is split into a left part (gradient
        and hessian sums ``G_L``, ``H_L``) and a right part (``G_R``, ``H_R``),
        with penalties ``lam`` on the weights and ``tau`` per leaf (the book's
        :math:`\lambda` and :math:`\tau`; xgboost's ``gamma`` is :math:`2\tau`).
    random_state : None, int or numpy.random.Generator
        Seed of the random cases.

    Notes
    -----
    Reference: :func:`ensemble_ref.math.second_order.split_gain`,
    :math:`\tfrac12\big[\frac{G_L^2}{H_L+\lambda} + \frac{G_R^2}{H_R+\lambda} -
    \frac{(G_L+G_R)^2}{H_L+H_R+\lambda}\big] - \tau` (equation ``eq-xgb-gain``),
    including splits that do not pay for their ``tau`` (negative gain).
    """
    from ensemble_ref import split_gain

    def bracket(G_L, H_L, G_R, H_R, lam):
        return 0.5 * (G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam)
                      - (G_L + G_R) ** 2 / (H_L + H_R + lam))

    rng, repeat = _seed(random_state)
    rows = [(-4.0, 3.0, 5.0, 4.0, 1.0, 0.0), (-4.0, 3.0, 5.0, 4.0, 1.0, 0.5),
            (2.0, 1.0, 2.0, 1.0, 1.0, 0.0), (-10.0, 5.0, 1.0, 2.0, 0.0, 0.1)]
    rows += [(float(rng.normal(scale=5)), float(rng.uniform(0.1, 20)), float(rng.normal(scale=5)),
              float(rng.uniform(0.1, 20)), float(rng.uniform(0, 3)), float(rng.uniform(0, 2)))
             for _ in range(8)]
    cases = [{"G_L": a, "H_L": b, "G_R": c, "H_R": d, "lam": lam, "tau": tau}
             for a, b, c, d, lam, tau in rows]
    _run("check_split_gain", student_fn, cases,
         lambda G_L, H_L, G_R, H_R, lam, tau: split_gain(G_L, H_L, G_R, H_R, lam, tau),
         "ensemble_ref.math.second_order.split_gain",
         formula="eq-xgb-gain, (1/2)[G_L^2/(H_L + lam) + G_R^2/(H_R + lam) - "
                 "(G_L + G_R)^2/(H_L + H_R + lam)] - tau",
         mistakes=[("the bracket without the factor 1/2",
                    lambda G_L, H_L, G_R, H_R, lam, tau: 2 * bracket(G_L, H_L, G_R, H_R, lam)
                    - tau),
                   ("the gain without tau",
                    lambda G_L, H_L, G_R, H_R, lam, tau: bracket(G_L, H_L, G_R, H_R, lam)),
                   ("the gain without lambda",
                    lambda G_L, H_L, G_R, H_R, lam, tau: bracket(G_L, H_L, G_R, H_R, 0.0)
                    - tau)],
         repeat=repeat)
