"""Unit tests for ensemble_ref.datasets."""

import numpy as np
import pytest

from ensemble_ref import (
    CIRCLE_RADIUS2,
    make_circle_classification,
    make_sine_regression,
    sample_sine_inputs,
    sine_function,
)


def test_sine_function_values():
    X = np.array([[0.0], [0.25], [0.5], [1.0]])
    assert np.allclose(sine_function(X), [0.0, 1.5, 1.0, 2.0], atol=1e-12)
    with pytest.raises(ValueError, match="one feature"):
        sine_function(np.zeros((3, 2)))


def test_sine_regression_noise_has_the_stated_variance():
    X, y = make_sine_regression(20_000, noise=0.5, random_state=0)
    assert X.shape == (20_000, 1) and y.shape == (20_000,)
    assert X.min() >= 0 and X.max() <= 1
    r = y - sine_function(X)
    # mean 0 (s.e. 0.0035) and variance 0.25 (s.e. 0.0025)
    assert abs(r.mean()) < 0.015 and abs(r.var() - 0.25) < 0.01


def test_sine_regression_is_seeded_and_noise_free_when_asked():
    a = make_sine_regression(30, random_state=5)
    b = make_sine_regression(30, random_state=np.random.default_rng(5))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    X, y = make_sine_regression(30, noise=0.0, random_state=1)
    assert np.array_equal(y, sine_function(X))
    assert sample_sine_inputs(4, 2).shape == (4, 1)


def test_circle_classes_are_balanced_and_bayes_error_is_the_flip_rate():
    n = 40_000
    X, y = make_circle_classification(n, n_noise_features=3, label_noise=0.1, random_state=0)
    assert X.shape == (n, 5) and set(np.unique(y)) == {0, 1}
    assert abs(y.mean() - 0.5) < 4 * 0.5 / np.sqrt(n)
    clean = (X[:, 0] ** 2 + X[:, 1] ** 2 > CIRCLE_RADIUS2).astype(int)
    flip_rate = np.mean(clean != y)
    assert abs(flip_rate - 0.1) < 4 * np.sqrt(0.09 / n)
    # The noise features are unrelated to the class.
    for j in range(2, 5):
        assert abs(X[y == 1, j].mean() - X[y == 0, j].mean()) < 0.05


def test_circle_without_noise_is_separable():
    X, y = make_circle_classification(500, random_state=3)
    assert np.array_equal(y, (X[:, 0] ** 2 + X[:, 1] ** 2 > CIRCLE_RADIUS2).astype(int))


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_samples=0), "n_samples"), (dict(n_noise_features=-1), "n_noise_features"),
    (dict(label_noise=0.5), "label_noise"), (dict(label_noise=-0.1), "label_noise"),
])
def test_circle_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_circle_classification(**kwargs)


def test_sine_rejects_negative_noise():
    with pytest.raises(ValueError, match="noise"):
        make_sine_regression(10, noise=-1.0, random_state=0)
