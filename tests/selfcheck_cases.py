"""Right and wrong solutions for each self-check of the exercises (used by the self-check
tests and by the variants' tests)."""

from __future__ import annotations

from math import comb

import numpy as np

from ensemble_ref import majority_error, oob_fraction_exact, prob_no_informative, variance_of_average


def _sigmoid(F):
    return 1.0 / (1.0 + np.exp(-F))


def _update(w, y, h, alpha):  # D_t(i) exp(-alpha y_i h_i) / Z_t
    w = w * np.exp(-alpha * y * h)
    return w / w.sum()


def _gain(G_L, H_L, G_R, H_R, lam, tau):
    return 0.5 * (G_L**2 / (H_L + lam) + G_R**2 / (H_R + lam)
                  - (G_L + G_R) ** 2 / (H_L + H_R + lam)) - tau


def _lower_weighted_median(v, w):
    order = np.argsort(v)
    cdf = np.cumsum(w[order])
    return float(v[order][np.argmax(cdf >= cdf[-1] / 2)])


def _upper_weighted_median(v, w):
    order = np.argsort(v)
    cdf = np.cumsum(w[order])
    return float(v[order][np.argmax(cdf > cdf[-1] / 2)])


def _exact_interval(k, n, level):
    from scipy.stats import beta
    a = (1 - level) / 2
    return (beta.ppf(a, k, n - k + 1) if k else 0.0, beta.ppf(1 - a, k + 1, n - k) if k < n else 1.0)


def _exact_interval_scipy(k, n, level):
    from scipy.stats import binomtest
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return ci.low, ci.high


def _wald_interval(k, n, level):
    from scipy.stats import norm
    z, p = norm.ppf(1 - (1 - level) / 2), k / n
    return p - z * np.sqrt(p * (1 - p) / n), p + z * np.sqrt(p * (1 - p) / n)


def _majority_error(p, T):
    return sum(comb(T, t) * p**t * (1 - p) ** (T - t) for t in range(T + 1) if 2 * t < T)


def _tree_shapley(tree, x, weight=None, use_cover=True):
    """Shapley values of one point for one tree, by enumerating the subsets (eq-shapley-value)."""
    from itertools import combinations
    from math import factorial

    weight = weight or (lambda s, d: factorial(s) * factorial(d - s - 1) / factorial(d))

    def f(S, j=0):
        if tree.children_left[j] < 0:
            return tree.value[j]
        l, r = tree.children_left[j], tree.children_right[j]
        if tree.feature[j] in S:
            return f(S, l if tree.goes_left(j, x) else r)
        wl, wr = (tree.cover[l], tree.cover[r]) if use_cover else (1.0, 1.0)
        return (wl * f(S, l) + wr * f(S, r)) / (wl + wr)

    d = len(x)
    return np.array([sum(weight(k, d) * (f({*S, i}) - f(set(S))) for k in range(d)
                         for S in combinations([m for m in range(d) if m != i], k)) for i in range(d)])


def _saabas_path(tree, x):
    def mean(j):
        if tree.children_left[j] < 0:
            return tree.value[j]
        l, r = tree.children_left[j], tree.children_right[j]
        return (tree.cover[l] * mean(l) + tree.cover[r] * mean(r)) / tree.cover[j]

    phi, j = np.zeros(len(x)), 0
    while tree.children_left[j] >= 0:
        child = tree.children_left[j] if tree.goes_left(j, x) else tree.children_right[j]
        phi[tree.feature[j]] += mean(child) - mean(j)
        j = child
    return phi


def _lazy(module, name):
    """The reference function ``ensemble_ref.<module>.<name>``, imported when called."""
    def call(*args):
        import importlib

        return getattr(importlib.import_module(f"ensemble_ref.{module}"), name)(*args)
    return call


def _oob_mean(in_bag, outputs):
    out = np.full(outputs.shape[1], np.nan)
    for i in range(outputs.shape[1]):
        members = in_bag[:, i] == 0
        if members.any():
            out[i] = outputs[members, i].mean()
    return out


def _corrected(predictions, f_test):
    R = predictions.shape[0]
    s2 = predictions.var(axis=0, ddof=1)
    return np.mean((predictions.mean(axis=0) - f_test) ** 2 - s2 / R), np.mean(s2)


def _hypergeometric(d, k, m):
    return np.array([comb(k, j) * comb(d - k, m - j) / comb(d, m) for j in range(min(k, m) + 1)])


def _top_k(gate, k, largest=True, renormalise=True):
    chosen = np.argsort(-gate if largest else gate, axis=1, kind="stable")[:, :k]
    values = np.take_along_axis(gate, chosen, axis=1)
    out = np.zeros_like(gate)
    np.put_along_axis(out, chosen, values / values.sum(axis=1, keepdims=True) if renormalise else values,
                      axis=1)
    return out


def _balance(gate, assignment):
    n, E = gate.shape
    return E * float(np.bincount(assignment, minlength=E) / n @ gate.mean(axis=0))


def _goss(g, a, b, rng, factor=None, key=np.abs):
    n = len(g)
    top_k, other_k = max(1, int(np.floor(n * a + 1e-9))), int(np.floor(n * b + 1e-9))
    order = np.argsort(-key(g), kind="stable")
    w = np.zeros(n)
    w[order[:top_k]] = 1.0
    w[rng.choice(order[top_k:], size=other_k, replace=False)] = (n - top_k) / other_k if factor is None \
        else factor
    return w


def _ordered_ts(categories, y, permutation, prior, prior_weight, own=False):
    sums, counts, out = {}, {}, np.empty(len(y))
    for i in permutation:
        c = categories[i]
        if own:
            sums[c], counts[c] = sums.get(c, 0.0) + y[i], counts.get(c, 0) + 1
        out[i] = (sums.get(c, 0.0) + prior_weight * prior) / (counts.get(c, 0) + prior_weight)
        if not own:
            sums[c], counts[c] = sums.get(c, 0.0) + y[i], counts.get(c, 0) + 1
    return out


def _gini(c):
    return 1 - np.sum((c / c.sum()) ** 2)


def _gini_decrease(cl, cr, weighted=True):
    W_L, W_R = cl.sum(), cr.sum()
    if not weighted:
        return _gini(cl + cr) - (_gini(cl) + _gini(cr)) / 2
    return _gini(cl + cr) - W_L / (W_L + W_R) * _gini(cl) - W_R / (W_L + W_R) * _gini(cr)


def _best_threshold(x, y, weighted=True):
    xs, ys = x[np.argsort(x)], y[np.argsort(x)]
    best, s_best = np.inf, None
    for i in range(1, len(x)):
        if xs[i] > xs[i - 1]:
            score = i * ys[:i].var() + (len(x) - i) * ys[i:].var() if weighted else \
                ys[:i].var() + ys[i:].var()
            if s_best is None or score < best - 1e-12 * abs(best):
                best, s_best = score, (xs[i - 1] + xs[i]) / 2
    return s_best


# check name -> (correct solutions, wrong solutions); the check's own arguments after the function
CASES = {
    "check_majority_vote": (
        [lambda votes: np.sign(votes.sum(axis=0)),
         lambda votes: np.where((votes > 0).sum(axis=0) > votes.shape[0] / 2, 1, -1)],
        [lambda votes: votes[0],                     # one member
         lambda votes: votes.mean(axis=0)],          # the mean, not its sign
    ),
    "check_ambiguity": (
        [lambda h: h.var(axis=0), lambda h: ((h - h.mean(axis=0)) ** 2).mean(axis=0)],
        [lambda h: h.var(axis=0, ddof=1),            # divisor M - 1
         lambda h: (h ** 2).mean(axis=0)],           # around zero
    ),
    "check_bias_variance": (
        [_corrected],
        [lambda P, f: (np.mean((P.mean(axis=0) - f) ** 2), np.mean(P.var(axis=0, ddof=1))),
         lambda P, f: (_corrected(P, f)[0], np.mean(P.var(axis=0)))],
    ),
    "check_oob_prediction": (
        [_oob_mean],
        [lambda in_bag, outputs: outputs.mean(axis=0),
         lambda in_bag, outputs: np.nan_to_num(_oob_mean(in_bag, outputs))],
    ),
    "check_informative_count_pmf": (
        [_hypergeometric],
        [lambda d, k, m: np.array([comb(m, j) * (k / d) ** j * (1 - k / d) ** (m - j)
                                   for j in range(min(k, m) + 1)])],
    ),
    "check_condorcet_bound": (
        [lambda p, T: 0.5 * (1 - 4 * (p - 0.5) ** 2) ** (T / 2)],
        [lambda p, T: np.exp(-2 * T * (p - 0.5) ** 2),  # Hoeffding's weaker bound
         lambda p, T: (1 - 4 * (p - 0.5) ** 2) ** (T / 2)],
    ),
    "check_soft_vote": (
        [lambda P, w: np.einsum("m,mnk->nk", w, P) / w.sum()],
        [lambda P, w: np.einsum("m,mnk->nk", w, P), lambda P, w: P.mean(axis=0)],
    ),
    "check_gradient_histogram": (
        [lambda codes, g, h, B: np.stack([
            np.stack([np.bincount(codes[:, j], weights=g, minlength=B),
                      np.bincount(codes[:, j], weights=h, minlength=B)], axis=-1)
            for j in range(codes.shape[1])])],
        [lambda codes, g, h, B: np.stack([
            np.stack([np.bincount(codes[:, j], weights=g, minlength=B),
                      np.bincount(codes[:, j], minlength=B).astype(float)], axis=-1)
            for j in range(codes.shape[1])])],
    ),
    "check_histogram_gains": (
        [lambda hist, lam, tau: np.array([
            _gain(hist[:b + 1, 0].sum(), hist[:b + 1, 1].sum(), hist[b + 1:, 0].sum(),
                  hist[b + 1:, 1].sum(), lam, tau) for b in range(len(hist) - 1)])],
        [lambda hist, lam, tau: np.array([
            _gain(hist[b, 0], hist[b, 1], hist[:, 0].sum() - hist[b, 0],
                  hist[:, 1].sum() - hist[b, 1], lam, tau) for b in range(len(hist) - 1)])],
    ),
    "check_log_odds_weights": (
        [lambda p: np.log(p) - np.log1p(-p)],
        [lambda p: p, lambda p: p / (1 - p)],
    ),
    "check_oob_fraction": (
        [oob_fraction_exact, lambda N: (1 - 1 / N) ** N],
        [lambda N: np.exp(-1.0),                      # the limit, not the finite-N value
         lambda N: (1 - 1 / N) ** (N - 1),            # off by one draw
         lambda N: 1 - (1 - 1 / N) ** N],             # the in-bag probability
    ),
    "check_prob_no_informative": (
        [prob_no_informative, lambda d, k, m: comb(d - k, m) / comb(d, m)],
        [lambda d, k, m: (1 - k / d) ** m,            # drawing with replacement
         lambda d, k, m: comb(d - k, m) / comb(d, k)],  # wrong denominator
    ),
    "check_variance_of_average": (
        [variance_of_average, lambda s2, rho, M: rho * s2 + (1 - rho) * s2 / M],
        [lambda s2, rho, M: s2 / M,                   # ignores the correlation
         lambda s2, rho, M: rho * s2 + s2 / M],       # forgets the (1 - rho)
    ),
    "check_condorcet": (
        [majority_error, _majority_error],
        [lambda p, T: 1 - _majority_error(p, T),      # the accuracy, not the error
         lambda p, T: sum(comb(T, t) * p**t * (1 - p) ** (T - t)
                          for t in range(T + 1) if 2 * t <= T + 1)],  # counts a bare majority as wrong
    ),
    "check_adaboost_alpha": (
        [_lazy("math.adaboost", "adaboost_alpha"), lambda eps: 0.5 * np.log((1 - eps) / eps)],
        [lambda eps: np.log((1 - eps) / eps),         # without the 1/2
         lambda eps: 0.5 * np.log(eps / (1 - eps))],  # inverted ratio
    ),
    "check_adaboost_weight_update": (
        [_update, lambda w, y, h, alpha: _lazy("math.boosting_theory", "reweight_misclassified")(
            w, h != y, 2 * alpha)],
        [lambda w, y, h, alpha: w * np.exp(-alpha * y * h),  # not normalised
         lambda w, y, h, alpha: _update(w, y, h, -alpha),   # sign error: the right points gain
         lambda w, y, h, alpha: _update(w, y, h, 2 * alpha)],  # beta where alpha belongs
    ),
    "check_loss_gradient": (
        [_lazy("math.losses", "log_loss_gradient"), lambda y, F: _sigmoid(F) - y],
        [lambda y, F: y - _sigmoid(F),                # the negative gradient (the residual)
         lambda y, F: _sigmoid(F)],                   # forgets the label
    ),
    "check_loss_hessian": (
        [_lazy("math.losses", "log_loss_hessian"), lambda y, F: _sigmoid(F) * (1 - _sigmoid(F))],
        [lambda y, F: np.ones_like(F),                # the squared error's hessian
         lambda y, F: _sigmoid(F) * (1 - y)],         # mixes in the label
    ),
    "check_gini_impurity": (
        [_lazy("math.impurity", "gini_impurity"), lambda c: 1 - np.sum((c / c.sum()) ** 2)],
        [lambda c: 1 - np.sum(c / c.sum()),           # forgets the square
         lambda c: -np.sum((p := c[c > 0] / c.sum()) * np.log2(p)),  # the entropy
         lambda c: 1 - np.sum(c**2) / c.size**2],     # divides by the number of classes
    ),
    "check_newton_leaf_value": (
        [_lazy("math.gradient_boosting", "newton_leaf_value"), lambda r, h: r.sum() / h.sum()],
        [lambda r, h: r.mean(),                       # the first-order (gradient) leaf
         lambda r, h: np.mean(r / h),                 # the mean of per-sample Newton steps
         lambda r, h: -r.sum() / h.sum()],            # the gradient's sign
    ),
    "check_weighted_median": (
        [_lazy("math.gradient_boosting", "weighted_median"), _lower_weighted_median],
        [lambda v, w: float(np.median(v)),            # ignores the weights
         lambda v, w: float(np.average(v, weights=w)),  # the weighted mean
         _upper_weighted_median],                      # the right end of the interval
    ),
    "check_leaf_weight": (
        [_lazy("math.second_order", "leaf_weight"), lambda G, H, lam: -G / (H + lam)],
        [lambda G, H, lam: -G / H if H else 0.0,      # forgets lambda
         lambda G, H, lam: G / (H + lam)],            # sign error
    ),
    "check_split_gain": (
        [_lazy("math.second_order", "split_gain"), _gain],
        [lambda *a: 2 * _gain(*a) + a[-1],            # without the 1/2
         lambda G_L, H_L, G_R, H_R, lam, tau: _gain(G_L, H_L, G_R, H_R, lam, 0.0),  # no tau
         lambda G_L, H_L, G_R, H_R, lam, tau: _gain(G_L, H_L, G_R, H_R, 0.0, tau)],  # no lambda
    ),
    "check_responsibilities": (
        [_lazy("math.mixture", "responsibilities"),
         lambda gate, log_density: (j := gate * np.exp(log_density)) / j.sum(axis=1, keepdims=True)],
        [lambda gate, log_density: gate * np.exp(log_density),  # not normalised
         lambda gate, log_density: gate],                        # the likelihood left out
    ),
    "check_top_k_gate": (
        [_lazy("math.mixture", "top_k_gate"), _top_k],
        [lambda gate, k: _top_k(gate, k, renormalise=False),     # not renormalised
         lambda gate, k: _top_k(gate, k, largest=False)],        # the k smallest
    ),
    "check_load_balancing_loss": (
        [_lazy("math.mixture", "load_balancing_loss"), _balance],
        [lambda gate, assignment: _balance(gate, assignment) / gate.shape[1],  # without the factor E
         lambda gate, assignment: _balance(gate, assignment) * gate.shape[0]],  # counts, not fractions
    ),
    "check_q_statistic": (
        [lambda a, b: _lazy("math.diversity", "q_statistic")(np.vstack([a, b]))[0, 1],
         lambda a, b: ((a @ b) * ((1 - a) @ (1 - b)) - ((1 - a) @ b) * (a @ (1 - b)))
         / ((a @ b) * ((1 - a) @ (1 - b)) + ((1 - a) @ b) * (a @ (1 - b)))],
        [lambda a, b: (np.sum(a == b) - np.sum(a != b)) / len(a),       # sums, not products
         lambda a, b: 0.0],                                               # a constant
    ),
    "check_conformal_quantile": (
        [_lazy("math.uncertainty", "conformal_quantile"),
         lambda s, a: float(np.inf if (k := int(np.ceil((1 - a) * (len(s) + 1)))) > len(s)
                            else np.sort(s)[k - 1])],
        [lambda s, a: float(np.quantile(s, 1 - a)),                       # numpy's quantile
         lambda s, a: float(np.sort(s)[int(np.ceil((1 - a) * len(s))) - 1])],   # rank ceil((1-a) n)
    ),
    "check_goss_weights": (
        [_lazy("math.sampling", "goss_weights"), _goss],
        [lambda g, a, b, rng: _goss(g, a, b, rng, factor=1.0),   # no reweighting
         lambda g, a, b, rng: _goss(g, a, b, rng, key=lambda v: v),  # the largest g, not |g|
         lambda g, a, b, rng: _goss(g, a, b, np.random.default_rng(0))],  # rng not used
    ),
    "check_ordered_target_statistic": (
        [_lazy("math.target_statistics", "ordered_target_statistic"), _ordered_ts],
        [lambda categories, y, permutation, prior, prior_weight:  # the row's own target included
         _ordered_ts(categories, y, permutation, prior, prior_weight, own=True),
         lambda categories, y, permutation, prior, prior_weight:  # the prior left out
         _ordered_ts(categories, y, permutation, 0.0, prior_weight)],
    ),
    "check_impurity_decrease": (
        [_gini_decrease],
        [lambda cl, cr: _gini_decrease(cl, cr, weighted=False),  # the children not weighted
         lambda cl, cr: _gini_decrease(cl, cr) - _gini(cl + cr)],   # without the parent's impurity
    ),
    "check_best_threshold": (
        [_best_threshold],
        [lambda x, y: x[x <= _best_threshold(x, y)].max(),       # a data value, not the midpoint
         lambda x, y: _best_threshold(x, y, weighted=False),     # var(L) + var(R) unweighted
         lambda x, y: float(np.max(x))],                         # an empty child
    ),
    "check_undo_weight": (
        [lambda p_w, w: p_w / (p_w + w * (1 - p_w)),
         lambda p_w, w: 1 / (1 + (1 - p_w) / p_w * w)],                 # from the odds
        [lambda p_w, w: p_w / w,                                         # the probability divided by w
         lambda p_w, w: w * p_w / (w * p_w + 1 - p_w)],                  # the weight applied again
    ),
    "check_exact_interval": (
        [_exact_interval, _exact_interval_scipy],
        [_wald_interval,                                                   # the normal approximation
         lambda k, n, level: _exact_interval(k, n, 2 * level - 1)],        # 1 - level in each tail
    ),
    "check_tree_shapley": (
        [_tree_shapley],
        [_saabas_path,                                                     # Saabas's attribution
         lambda tree, x: _tree_shapley(tree, x, weight=lambda s, d: 2.0 ** (1 - d)),   # uniform weights
         lambda tree, x: _tree_shapley(tree, x, use_cover=False)],      # branches averaged equally
    ),
}
