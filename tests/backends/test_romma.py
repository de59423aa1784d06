"""ROMMA / agg-ROMMA: hand-worked updates, invariants, agreement with the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.romma import romma_reference


def test_aggressive_steps_by_hand():
    clf = create("aggromma", kernel="linear")
    clf.learn_one([2.0, 0.0], 1)  # w = y x / ||x||^2 = (0.5, 0): coefficient 1/4 on x
    np.testing.assert_allclose(clf.dual_coef_, [0.25])
    assert clf.w_norm2_ == pytest.approx(0.25)
    clf.learn_one([0.0, 1.0], 1)  # f = 0 < 1: D = 0.25, c = 1, d = 1 -> w = (0.5, 1)
    np.testing.assert_allclose(clf.dual_coef_, [0.25, 1.0])
    assert clf.w_norm2_ == pytest.approx(1.25)
    # ROMMA proper makes no update on the second (correctly classified) example
    plain = create("romma", kernel="linear")
    plain.learn_one([2.0, 0.0], -1)  # mistake (f = 0 predicts +1): w = (-0.5, 0)
    plain.learn_one([0.0, 1.0], 1)
    np.testing.assert_allclose(plain.dual_coef_, [-0.25])


def test_aggressive_boundaries_store_no_zero_coefficient():
    """y f = 1 exactly is no margin error (no update); y f = k(x, x) ||w||^2 exactly is a restart
    from x. Either way the model keeps one support vector, not a second one with coefficient 0."""
    clf = create("aggromma", kernel="linear")
    clf.partial_fit(np.array([[1.0, 0.0], [1.0, 5.0]]), np.array([1, 1]))  # f(x2) = 1
    assert clf.n_support_ == 1
    np.testing.assert_array_equal(clf.dual_coef_, [1.0])
    clf = create("aggromma", kernel="linear")
    clf.partial_fit(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([1, 1]))  # f = 0.5 = k W
    assert clf.n_support_ == 1
    np.testing.assert_array_equal(clf.dual_coef_, [0.5])
    assert clf.w_norm2_ == pytest.approx(0.5)


@pytest.mark.parametrize("name, label", [("romma", -1), ("aggromma", 1)])
def test_nearly_opposite_example_is_skipped_only_below_the_relative_cutoff(name, label):
    """x_2 = (-1, e) against w = y (1, 0): D = k W - f^2 = e^2. At e = 1e-7 (D = 1e-14 k W, under the
    1e-12 cut-off) the update, whose coefficients would be 2e14, is skipped; at e = 1e-4 (D = 1e-8 k W)
    it is the exact optimum, with coefficients 2e8, and meets both of Li & Long's constraints. (ROMMA
    updates on mistakes only: with label -1 both examples are mistakes, f = 0 predicting +1.)"""
    y = np.array([label, label])
    clf = create(name, kernel="linear")
    clf.partial_fit(np.array([[1.0, 0.0], [-1.0, 1e-7]]), y)
    assert clf.n_support_ == 1
    np.testing.assert_array_equal(clf.dual_coef_, [label])
    clf = create(name, kernel="linear")
    X = np.array([[1.0, 0.0], [-1.0, 1e-4]])
    clf.partial_fit(X, y)
    assert clf.n_support_ == 2
    np.testing.assert_allclose(clf.dual_coef_, label * np.array([2.00000002e8, 2.00000001e8]), rtol=1e-6)
    w = clf.dual_coef_ @ X
    assert label * w @ X[1] == pytest.approx(1.0, rel=1e-6) and label * w @ X[0] == pytest.approx(
        1.0, rel=1e-6
    )


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
    from silkvision.backends.mercer import kernel_matrix_reference

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


def test_aggressive_restarts_when_the_new_constraint_alone_suffices():
    """y f >= k(x, x) ||w||^2 (possible under the linear kernel): the optimum is y x / ||x||^2, not the
    both-constraints formula (|w|^2 was 81 instead of 0.99 here; an independent QP check found it)."""
    clf = create("aggromma", kernel="linear")
    clf.learn_one([10.0, 0.0], 1)  # w = (0.1, 0), ||w||^2 = 0.01
    clf.learn_one([1.0, 0.1], 1)  # y f = 0.1 >= k W = 1.01 * 0.01
    np.testing.assert_allclose(clf.dual_coef_ @ clf.support_vectors_, np.array([1.0, 0.1]) / 1.01)
    assert clf.n_support_ == 1 and clf.w_norm2_ == pytest.approx(1 / 1.01)
    par = create("aggromma", kernel="linear")  # x parallel to w with margin 0.5: used to be skipped
    par.learn_one([2.0, 0.0], 1)
    par.learn_one([1.0, 0.0], 1)
    assert par.decision_function_one([1.0, 0.0]) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["romma", "aggromma"])
def test_every_update_is_the_qp_optimum_under_the_linear_kernel(name):
    """min ||w||^2 s.t. w.w_old >= ||w_old||^2 and y w.x >= 1, solved by enumerating its active sets."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(80, 3)) * rng.uniform(0.1, 10.0, size=(80, 1))  # varied norms
    y = np.where(X[:, 0] + 0.5 * X[:, 2] > 0, 1.0, -1.0)
    clf = create(name, kernel="linear")
    checked = 0
    for x, yt in zip(X, y):
        w_old = clf.dual_coef_ @ clf.support_vectors_ if clf.n_support_ else np.zeros(3)
        clf.learn_one(x, yt)
        w = clf.dual_coef_ @ clf.support_vectors_
        if np.allclose(w, w_old):
            continue
        W = w_old @ w_old
        cands = [yt * x / (x @ x)]  # the new constraint alone
        if W > 0:  # both active: w = a w_old + b x
            A = np.array([[W, w_old @ x], [yt * (w_old @ x), yt * (x @ x)]])
            a, b = np.linalg.solve(A, [W, 1.0])
            cands.append(a * w_old + b * x)
        feas = [c for c in cands if c @ w_old >= W * (1 - 1e-9) and yt * (c @ x) >= 1 - 1e-9]
        best = min(feas, key=lambda c: c @ c)
        np.testing.assert_allclose(w, best, rtol=1e-7, atol=1e-10)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("cols", [3, 10])  # row-major and feature-major paths
def test_restarts_match_the_reference(cols):
    """Under the linear kernel with varied norms agg-ROMMA restarts (y f >= k ||w||^2); the numba
    loop and romma_reference must both do so."""
    rng = np.random.default_rng(3)  # a stream with a restart on both paths
    X = rng.normal(size=(150, cols)) * rng.uniform(0.05, 20.0, size=(150, 1))
    y = np.where(X[:, 0] - 0.3 * X[:, 1] > 0, 1.0, -1.0)
    clf = create("aggromma", kernel="linear")
    pred = clf.progressive_predict(X, y)
    rp, SV, a = romma_reference(X, y, True, kernel="linear")
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_, SV)
    np.testing.assert_allclose(clf.dual_coef_, a, rtol=1e-7, atol=1e-10)
    step, sizes = create("aggromma", kernel="linear"), []
    for x, t in zip(X, y):
        step.learn_one(x, t)
        sizes.append(step.n_support_)
    assert any(b < a for a, b in zip(sizes, sizes[1:]))  # the expansion did restart
