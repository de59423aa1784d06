"""Kernel Perceptron: hand-worked steps and agreement with the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.perceptron import perceptron_reference


def test_hand_worked_linear():
    clf = create("perceptron", kernel="linear")
    # f = 0 -> predicts +1; y = +1: no mistake, no support vector
    assert clf.predict_one([1.0, 0.0]) == 1
    clf.learn_one([1.0, 0.0], 1)
    assert clf.n_support_ == 0
    # y = -1 on a mistake: add x with coefficient -1
    clf.learn_one([1.0, 1.0], -1)
    assert clf.n_support_ == 1 and clf.dual_coef_.tolist() == [-1.0]
    assert clf.decision_function_one([2.0, 1.0]) == pytest.approx(-3.0)
    clf.learn_one([0.0, -1.0], 1)  # f = 1 -> correct, nothing happens
    assert clf.n_support_ == 1


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_matches_reference(kernel):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=150) > 0, 1.0, -1.0)
    clf = create("perceptron", kernel=kernel, sigma=0.8, degree=2)
    pred = clf.progressive_predict(X, y)
    rp, SV, a = perceptron_reference(X, y, kernel=kernel, sigma=0.8, degree=2)
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_, SV)
    np.testing.assert_allclose(clf.dual_coef_, a)
    assert clf.n_support_ == int(np.sum(pred != y))  # one support vector per mistake
