"""Model averaging and conformal intervals (chapter Diversity, selection and uncertainty)."""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from ensemble_ref import BaggingRegressor, DecisionTreeRegressor, oob_mask
from ensemble_ref.math.uncertainty import (
    bma_weights,
    conformal_quantile,
    jackknife_plus_after_bootstrap,
    log_evidence_linear,
    split_conformal_interval,
)


def test_log_evidence_against_scipy():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), rng.normal(size=40)
    cov = 0.7 * np.eye(40) + 2.0 * X @ X.T
    expected = multivariate_normal(mean=np.zeros(40), cov=cov).logpdf(y)
    assert log_evidence_linear(X, y, 0.7, 2.0) == pytest.approx(expected, rel=1e-10)
    with pytest.raises(ValueError, match="noise_var"):
        log_evidence_linear(X, y, 0.0, 1.0)


def test_bma_weights_are_bayes_rule():
    e = np.array([-1000.0, -1001.0, -1003.0])
    w = bma_weights(e, prior=[0.2, 0.3, 0.5])
    unnorm = np.exp(e - e.max()) * [0.2, 0.3, 0.5]
    np.testing.assert_allclose(w, unnorm / unnorm.sum(), rtol=1e-12)
    np.testing.assert_allclose(bma_weights([0.0, 0.0]), [0.5, 0.5])


def test_conformal_quantile_rank():
    s = np.arange(1.0, 20.0)                         # n = 19, a = 0.1: rank ceil(0.9 * 20) = 18
    assert conformal_quantile(s, 0.1) == 18.0
    assert conformal_quantile(s, 0.02) == np.inf     # rank ceil(0.98 * 20) = 20 > 19
    assert conformal_quantile(np.arange(1.0, 10.0), 0.5) == 5.0   # ceil(0.5 * 10) = 5, exact
    with pytest.raises(ValueError, match="delta"):
        conformal_quantile(s, 1.0)


def test_split_conformal_coverage_is_exact_in_rank():
    rng = np.random.default_rng(1)
    hits = []
    for _ in range(4000):
        r = rng.normal(size=20)                       # calibration residuals of a zero predictor
        lo, hi = split_conformal_interval(np.zeros(19), r[:19], np.zeros(1), 0.2)
        hits.append(lo[0] <= r[19] <= hi[0])
    assert abs(np.mean(hits) - 16 / 20) < 4 * np.sqrt(0.16 / 4000)   # exactly 16/20 for n = 19


def test_jackknife_plus_after_bootstrap_by_hand():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(60, 2)), rng.normal(size=60)
    Xt = rng.normal(size=(7, 2))
    bag = BaggingRegressor(DecisionTreeRegressor(max_depth=3), n_estimators=30, oob_score=True,
                           random_state=0).fit(X, y)
    P = np.array([m.predict(X) for m in bag.estimators_])
    T = np.array([m.predict(Xt) for m in bag.estimators_])
    in_bag = ~np.array([oob_mask(idx, 60) for idx in bag.estimators_samples_])
    lo, hi = jackknife_plus_after_bootstrap(P, T, in_bag, y, 0.1)
    R = np.abs(y - bag.oob_prediction_)              # the bagging's own out-of-bag predictions
    for j in range(7):
        mu = np.array([T[~in_bag[:, i], j].mean() for i in range(60)])
        assert hi[j] == pytest.approx(np.sort(mu + R)[int(np.ceil(0.9 * 61)) - 1])
        assert lo[j] == pytest.approx(np.sort(mu - R)[int(np.floor(0.1 * 61)) - 1])
    with pytest.raises(ValueError, match="every member's sample"):
        jackknife_plus_after_bootstrap(P, T, np.ones_like(in_bag), y, 0.1)
    # delta < 1/(n + 1): the ranks ceil((1 - delta)(n + 1)) = n + 1 and floor(delta (n + 1)) = 0
    # fall outside 1..n, and the interval is the whole line
    lo, hi = jackknife_plus_after_bootstrap(P, T, in_bag, y, 0.01)
    assert np.all(lo == -np.inf) and np.all(hi == np.inf)
