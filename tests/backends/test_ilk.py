"""ILK / SILK binary: closed-form updates by hand, the logistic root, SILK eviction, reference."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from silkvision.backends import create
from silkvision.backends.ilk import ilk_alpha, ilk_reference, logistic_root

FAR = 100.0  # RBF points this far apart do not interact (k ~ 0)


def test_square_loss_step_by_hand():
    clf = create("ilk", kernel="linear", loss="square", C=1.0, tau=0.5)
    clf.learn_one([1.0, 0.0], 1)  # alpha = C(1-tau)(y - 0)/(1 + C(1-tau)k) = 0.5/1.5
    np.testing.assert_allclose(clf.dual_coef_, [1 / 3])
    # second step: f = 1/3; alpha = 0.5 (1 - 0.5/3) / 1.5; old coefficient halves
    clf.learn_one([1.0, 0.0], 1)
    np.testing.assert_allclose(clf.dual_coef_, [1 / 6, 0.5 * (1 - 0.5 / 3) / 1.5])


def test_hinge_loss_clipping_by_hand():
    # alpha_hat = y (rho - (1-tau) y f) / k; clipped to y alpha in [0, (1-tau) C]
    assert ilk_alpha(0, 0.0, 1.0, 1.0, 10.0, 0.2, 1.0) == pytest.approx(1.0)  # inside the box
    assert ilk_alpha(0, 0.0, -1.0, 1.0, 0.5, 0.2, 1.0) == pytest.approx(-0.4)  # capped at (1-tau)C
    assert ilk_alpha(0, 2.0, 1.0, 1.0, 10.0, 0.2, 1.0) == 0.0  # margin met
    assert ilk_alpha(0, 0.5, 1.0, 2.0, 10.0, 0.0, 1.0) == pytest.approx(0.25)  # (1 - 0.5) / 2
    # tau = 0 hinge ILK is PA-I (paper section 5)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    a = create("ilk", tau=0.0, C=0.7).progressive_predict(X, y)
    b = create("pa1", C=0.7).progressive_predict(X, y)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("tau,rho", [(0.01, 0.995), (0.3, 0.9)])
@pytest.mark.parametrize("yt", [1.0, -1.0])
def test_hinge_step_is_clipped_to_the_decayed_box_not_to_c(tau, rho, yt):
    """The hinge step lands in the band ``((1 - tau) C, C]`` and must be clipped to ``(1 - tau) C``,
    the box the docstring promises, not to ``C`` (the clipping test above never lands in that band)."""
    box = (1 - tau) * 1.0
    assert abs(ilk_alpha(0, 0.0, yt, 1.0, 1.0, tau, rho)) == pytest.approx(box)
    clf = create("ilk", C=1.0, tau=tau, rho=rho).partial_fit([[0.0, 0.0]], [yt])  # f = 0, k = 1
    np.testing.assert_allclose(clf.dual_coef_, [yt * box], rtol=1e-15)
    _, _, a = ilk_reference([[0.0, 0.0]], [yt], C=1.0, tau=tau, rho=rho)
    np.testing.assert_allclose(a, [yt * box], rtol=1e-15)


@pytest.mark.parametrize(
    "m,k,B",
    [
        (0.3, 1.0, 5.0),
        (-4.0, 1.0, 100.0),
        (6.0, 2.0, 0.5),
        (0.0, 0.0, 1.0),
        (-30.0, 0.01, 1e4),
        (50.0, 1.0, 3.0),
    ],
)
def test_logistic_root_matches_brentq(m, k, B):
    a = logistic_root(m, k, B)
    ref = brentq(lambda u: u - B / (1 + np.exp(m + u * k)), 0.0, B, xtol=1e-14, rtol=1e-14)
    assert a == pytest.approx(ref, rel=1e-10, abs=1e-14)
    assert 0.0 <= a <= B


def test_logistic_root_is_accurate_for_small_roots_next_to_a_large_bound():
    """Roots far below ``B`` (m > 0; about 1e-4 with B near 40 for the first point): only there does
    a stopping rule looser than ``|g| <= 1e-15 (1 + B)`` show (the points above have large roots)."""

    def ref(m, k, B):
        return brentq(
            lambda u: u - B / (1 + np.exp(m + u * k)), 0.0, B, xtol=1e-300, rtol=4 * np.finfo(float).eps
        )

    m, k, B = 12.692696540602171, 2.8569922239916123, 36.585206104733572
    assert logistic_root(m, k, B) == pytest.approx(ref(m, k, B), rel=1e-12, abs=0.0)
    rng = np.random.default_rng(2)
    for m, k, B in zip(rng.uniform(0.0, 15.0, 300), rng.uniform(0.0, 3.0, 300), rng.uniform(0.0, 50.0, 300)):
        assert abs(logistic_root(m, k, B) - ref(m, k, B)) <= 1e-14 * (1.0 + B), (m, k, B)


def test_logistic_root_converges_where_newton_bounces_across_the_bracket():
    """Newton from a = B / (1 + e^m) jumped to near 0 and back, each step inside the bracket, so the
    safeguard never bisected: the root is 2.1356, the function returned 0.0412 (14 of 20,000 random
    points were off; the ILK learner met it at C = 30-100). Also every root to ~1e-15 relative."""

    def ref(m, k, B):
        return brentq(
            lambda u: u - B / (1 + np.exp(m + u * k)), 0.0, B, xtol=1e-300, rtol=4 * np.finfo(float).eps
        )

    m, k, B = -2.6603266388930544, 2.5211833222913427, 34.68294633326455
    assert logistic_root(m, k, B) == pytest.approx(ref(m, k, B), rel=1e-12)
    rng = np.random.default_rng(5)
    for m, k, B in zip(rng.normal(0.0, 5.0, 3000), rng.uniform(0.0, 3.0, 3000), rng.uniform(0.0, 50.0, 3000)):
        assert logistic_root(m, k, B) == pytest.approx(ref(m, k, B), rel=1e-13), (m, k, B)


@pytest.mark.parametrize("loss", ["hinge", "square", "logistic"])
def test_an_example_with_zero_kernel_norm_takes_no_silk_slot(loss):
    """Square and logistic steps on a zero vector (linear kernel) were stored: a term that is the
    zero function, which in a SILK buffer evicted a real one."""
    clf = create("silk", kernel="linear", loss=loss, omega=2, C=1.0)
    clf.partial_fit([[1.0, 0.0], [0.0, 1.0]], [1, -1])
    clf.learn_one([0.0, 0.0], 1)
    np.testing.assert_array_equal(clf.support_vectors_, [[1.0, 0.0], [0.0, 1.0]])
    _, SV, _ = ilk_reference(
        [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [1, -1, 1], loss=loss, omega=2, kernel="linear"
    )
    np.testing.assert_array_equal(SV, [[1.0, 0.0], [0.0, 1.0]])


def test_silk_evicts_the_smallest_coefficient_not_the_oldest():
    clf = create("silk", sigma=1.0, C=10.0, tau=0.1, omega=2)
    x1, x2 = [0.0, 0.0], [FAR, 0.0]
    clf.learn_one(x1, 1)  # alpha_1 = 1
    clf.learn_one(x2, 1)  # alpha_1 -> 0.9, alpha_2 = 1
    # x1 again: f = 0.9, alpha_3 = 1 - 0.9 * 0.9 = 0.19 -> smallest after the decay (0.81, 0.9, 0.19)
    clf.learn_one(x1, 1)
    assert clf.n_support_ == 2
    order = np.argsort(clf._store.stamp[:2])
    np.testing.assert_allclose(clf.support_vectors_[order], [x1, x2])
    np.testing.assert_allclose(clf.dual_coef_[order], [0.81, 0.9])
    # a point of another class far away gets |alpha| = 1: now the oldest-but-largest survives
    clf.learn_one([-FAR, 0.0], -1)  # decayed: 0.729 (x1), 0.81 (x2), new -1 -> evict x1
    np.testing.assert_allclose(np.sort(np.abs(clf.dual_coef_)), [0.81, 1.0])


@pytest.mark.parametrize("loss", ["hinge", "square", "logistic"])
@pytest.mark.parametrize("omega", [None, 12])
def test_matches_reference(loss, omega):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    clf = create("ilk", loss=loss, C=3.0, tau=0.05, omega=omega, sigma=0.8)
    pred = clf.progressive_predict(X, y)
    rp, SV, a = ilk_reference(X, y, loss=loss, C=3.0, tau=0.05, omega=omega, sigma=0.8)
    order = np.argsort(clf._store.stamp[: clf.n_support_])
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_[order], SV)
    np.testing.assert_allclose(clf.dual_coef_[order], a, rtol=1e-9, atol=1e-13)


def test_parameters():
    with pytest.raises(ValueError, match="loss"):
        create("ilk", loss="huber")
    with pytest.raises(ValueError, match="tau"):
        create("silk", tau=1.0)
    with pytest.raises(ValueError, match="omega"):
        create("silk", omega=0)
    assert create("silk").omega == 100 and create("ilk").omega is None
