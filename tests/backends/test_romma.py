"""ROMMA / agg-ROMMA: hand-worked updates, invariants, agreement with the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.romma import romma_reference


def test_aggressive_steps_by_hand():
    clf = create("aggromma", kernel="linear")
    clf.learn_one([2.0, 0.0], 1)            # w = y x / ||x||^2 = (0.5, 0): coefficient 1/4 on x
    np.testing.assert_allclose(clf.dual_coef_, [0.25])
    assert clf.w_norm2_ == pytest.approx(0.25)
    clf.learn_one([0.0, 1.0], 1)            # f = 0 < 1: D = 0.25, c = 1, d = 1 -> w = (0.5, 1)
    np.testing.assert_allclose(clf.dual_coef_, [0.25, 1.0])
    assert clf.w_norm2_ == pytest.approx(1.25)
    # ROMMA proper makes no update on the second (correctly classified) example
    plain = create("romma", kernel="linear")
    plain.learn_one([2.0, 0.0], -1)         # mistake (f = 0 predicts +1): w = (-0.5, 0)
    plain.learn_one([0.0, 1.0], 1)
    np.testing.assert_allclose(plain.dual_coef_, [-0.25])


def test_update_satisfies_both_constraints():
    """After an update y_t w.x_t = 1 and w.w_old = ||w_old||^2 (Li & Long's two constraints)."""
    rng = np.random.default_rng(2)
    clf = create("aggromma", kernel="rbf", sigma=1.5)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    clf.progressive_predict(X[:39], y[:39])
    n0, W0 = clf.n_support_, clf.w_norm2_
    x, yt = X[39], y[39]
    f0 = clf.decision_function_one(x)
    clf.learn_one(x, yt)
    if clf.n_support_ == n0:
        pytest.skip("no update on this example")
    assert yt * clf.decision_function_one(x) == pytest.approx(1.0, rel=1e-9)
    from silkvision.backends.kernels import kernel_matrix_reference
    K = kernel_matrix_reference(clf.support_vectors_, clf.support_vectors_, clf.kernel_)
    a = clf.dual_coef_
    assert a @ K @ a == pytest.approx(clf.w_norm2_, rel=1e-9)
    assert f0 * yt < 1 and W0 > 0


@pytest.mark.parametrize("aggressive,name", [(False, "romma"), (True, "aggromma")])
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_matches_reference(aggressive, name, kernel):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = np.where(np.sin(2 * X[:, 0]) + X[:, 1] > 0, 1.0, -1.0)
    clf = create(name, kernel=kernel, sigma=0.9)
    pred = clf.progressive_predict(X, y)
    rp, SV, a = romma_reference(X, y, aggressive, kernel=kernel, sigma=0.9)
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_, SV)
    np.testing.assert_allclose(clf.dual_coef_, a, rtol=1e-7, atol=1e-10)
