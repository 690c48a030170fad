"""Tests of make_redundant_classification and its Bayes error (chapter Random forests)."""

import numpy as np
import pytest

from ensemble_ref import make_redundant_classification, redundant_bayes_error


def test_shapes_columns_and_labels():
    X, y = make_redundant_classification(300, n_latent=3, n_copies=4, noise=0.5, random_state=0)
    assert X.shape == (300, 12) and y.shape == (300,)
    assert set(np.unique(y)) <= {0, 1}
    # copies of the same signal are strongly correlated, copies of different signals are not
    C = np.corrcoef(X, rowvar=False)
    assert C[0, 1] > 0.6 and abs(C[0, 4]) < 0.2


def test_reproducible():
    a = make_redundant_classification(50, random_state=3)
    b = make_redundant_classification(50, random_state=np.random.default_rng(3))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("k,c,sigma", [(2, 10, 0.7), (1, 1, 1.0), (3, 5, 2.0)])
def test_bayes_error_by_monte_carlo(k, c, sigma):
    n = 200000
    X, y = make_redundant_classification(n, n_latent=k, n_copies=c, noise=sigma, random_state=1)
    bayes = (X.sum(axis=1) > 0).astype(int)  # the Bayes classifier
    err = np.mean(bayes != y)
    p = redundant_bayes_error(c, sigma)
    assert abs(err - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_bad_arguments():
    with pytest.raises(ValueError, match="noise"):
        make_redundant_classification(10, noise=0.0)
    with pytest.raises(ValueError, match="n_copies"):
        redundant_bayes_error(0, 1.0)
    with pytest.raises(TypeError, match="n_latent"):
        make_redundant_classification(10, n_latent=2.5)
