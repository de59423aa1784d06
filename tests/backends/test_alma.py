"""Kernel ALMA_2(alpha): hand-worked steps and agreement with the NumPy reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.alma import C_MAX, alma_reference


@pytest.mark.slow
def test_first_steps_by_hand():
    clf = create("alma", kernel="linear", alpha=0.9)
    # k = 1: gamma = B = 1/0.9; f = 0 <= 0.1 gamma -> w' = sqrt(2) x_hat, ||w'|| = sqrt(2) > 1 -> w = x_hat
    clf.learn_one([3.0, 4.0], 1)
    np.testing.assert_allclose(clf.dual_coef_, [1 / 5])  # x_hat = x / 5
    assert clf.decision_function_one([3.0, 4.0]) == pytest.approx(1.0)
    assert clf._state[1] == 2  # update counter
    # margin 1 > (1 - 0.9) gamma_2 = 0.1 / (0.9 sqrt 2): no update
    clf.learn_one([6.0, 8.0], 1)
    assert clf.n_support_ == 1
    # opposite label: f = -0.6, eta_2 = sqrt(2)/sqrt(2) = 1: ||w'||^2 = 1 + 2(-1)(1)(0.8)... see below
    x = np.array([0.0, 1.0])
    f = clf.decision_function_one(x)  # = 4/5
    clf.learn_one(x, -1)
    W2 = 1.0 + 2 * 1.0 * (-1) * f + 1.0
    s = max(1.0, math.sqrt(W2))
    np.testing.assert_allclose(clf.dual_coef_, np.array([1 / 5, -1.0]) / s)


def test_alpha_one_learns_on_a_zero_margin():
    """With alpha = 1 the margin threshold (1 - alpha) B / sqrt(k) is 0: the update test is
    ``y f <= 0`` (the module docstring's update test), so the first example (f = 0) is learned; with ``<`` the
    learner never learned anything."""
    clf = create("alma", kernel="rbf", sigma=1.0, alpha=1.0)
    clf.learn_one([1.0, 2.0], 1)
    assert clf.n_support_ == 1 and clf.decision_function_one([1.0, 2.0]) > 0


@pytest.mark.parametrize("alpha", [0.7, 1.0])
@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_matches_reference(kernel, alpha):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 3)) + 0.5
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 1.2, 1.0, -1.0)
    clf = create("alma", kernel=kernel, sigma=1.2, alpha=alpha)
    pred = clf.progressive_predict(X, y)
    rp, SV, a = alma_reference(X, y, alpha=alpha, kernel=kernel, sigma=1.2)
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_, SV)
    np.testing.assert_allclose(clf.dual_coef_, a, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_c_is_bounded_so_that_decisions_stay_finite(kernel):
    """C = 1.7e308 gave inf/NaN decisions (eta^2 and eta / sqrt(k(x, x)) overflowed); C is now at
    most C_MAX, with which even examples of tiny norm (k(x, x) ~ 1e-320) keep every value finite."""
    with pytest.raises(ValueError, match=r"^C: 1\.7e\+308 must lie in \(0(\.0)?, 1e\+100\]"):
        create("alma", kernel=kernel, C=1.7e308)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    if kernel == "linear":
        X = np.vstack([X, np.full((2, 5), 1e-161), np.full((2, 5), 1e150)])
        y = np.r_[y, 1.0, -1.0, -1.0, 1.0]
    clf = create("alma", kernel=kernel, C=C_MAX)
    clf.partial_fit(X, y)
    assert np.all(np.isfinite(clf.dual_coef_))
    assert np.all(np.isfinite([clf.decision_function_one(x) for x in X]))


def test_parameters():
    with pytest.raises(ValueError, match="alpha"):
        create("alma", alpha=0)
    with pytest.raises(ValueError, match="B"):
        create("alma", B=-1)
    assert create("alma", alpha=0.5)._B == 2.0
