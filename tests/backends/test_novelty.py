"""SILK and NORMA novelty detectors on vectors: steps by hand, eviction, offset dynamics, reference."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.novelty import norma_novelty_reference, silk_novelty_reference

FAR = 100.0


def test_silk_steps_by_hand():
    det = create("silk_novelty", sigma=1.0, C=0.4, tau=0.01, rho=1.0, omega=20)
    assert det.score_one([0.0]) == 0.0
    det.learn_one([0.0])  # f = 0: alpha = min(rho, (1 - tau) C) = 0.396
    np.testing.assert_allclose(det.dual_coef_, [0.396])
    assert det.score_one([0.0]) == pytest.approx(0.396)
    det.learn_one([0.0])  # f = 0.396: alpha = min(1 - 0.99*0.396, 0.396) = 0.396
    np.testing.assert_allclose(det.dual_coef_, [0.396 * 0.99, 0.396])
    big = create("silk_novelty", C=10.0, tau=0.5)
    big.learn_one([0.0])  # alpha = rho = 1 (box (1 - tau) C = 5 not active)
    big.learn_one([0.0])  # f = 1: alpha = 1 - 0.5 * 1 = 0.5; old one halves
    np.testing.assert_allclose(big.dual_coef_, [0.5, 0.5])
    assert big.score_one([0.0]) == pytest.approx(1.0)


def test_silk_eviction_keeps_the_largest():
    det = create("silk_novelty", C=10.0, tau=0.1, omega=2)
    det.learn_one([0.0, 0.0])  # 1
    det.learn_one([FAR, 0.0])  # 0.9, 1
    det.learn_one([0.0, 0.0])  # f = 0.9 -> new 0.19; decayed 0.81, 0.9 -> drop the new one
    np.testing.assert_allclose(np.sort(det.dual_coef_), [0.81, 0.9])
    assert det.n_support_ == 2


def test_norma_offset_by_hand():
    det = create("norma_novelty", eta=0.1, lam=0.1, nu=0.5, omega=20, rho=0.0)
    det.learn_one([0.0])  # f = 0, not < rho = 0: rho += eta nu
    assert det.n_support_ == 0 and det.rho_ == pytest.approx(0.05)
    det.learn_one([0.0])  # f = 0 < 0.05: alpha = eta; rho -= eta (1 - nu)
    assert det.n_support_ == 1 and det.rho_ == pytest.approx(0.0)
    det.learn_one([0.0])  # f = 0.1 >= 0: decay 0.99, rho += 0.05
    np.testing.assert_allclose(det.dual_coef_, [0.099])
    assert det.rho_ == pytest.approx(0.05)


@pytest.mark.slow
def test_norma_flags_about_nu_of_a_stationary_stream():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(3000, 2))
    det = create("norma_novelty", eta=0.05, lam=0.5, nu=0.2, omega=None)
    s = det.progressive_score(X)
    # the offset moves until a fraction nu of the scores lies below it (checked on the second half)
    rho = norma_novelty_reference(X, eta=0.05, lam=0.5, nu=0.2, omega=None)[3]
    assert det.rho_ == pytest.approx(rho, rel=1e-9)
    below = 0
    det2 = create("norma_novelty", eta=0.05, lam=0.5, nu=0.2, omega=None)
    for x in X:
        below += det2.score_one(x) < det2.rho_
        det2.learn_one(x)
    assert abs(below / len(X) - 0.2) < 0.05
    assert np.all(np.isfinite(s))


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_silk_matches_reference(kernel):
    rng = np.random.default_rng(10)
    X = rng.normal(size=(150, 3))
    X[::7] += 4
    det = create("silk_novelty", kernel=kernel, sigma=1.1, C=1.5, tau=0.03, omega=15)
    s = det.progressive_score(X)
    rs, SV, a = silk_novelty_reference(X, C=1.5, tau=0.03, omega=15, kernel=kernel, sigma=1.1)
    order = np.argsort(det._store.stamp[: det.n_support_])
    np.testing.assert_allclose(s, rs, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(det.support_vectors_[order], SV)
    np.testing.assert_allclose(det.dual_coef_[order], a, rtol=1e-9)


@pytest.mark.parametrize("omega", [None, 10])
def test_norma_matches_reference(omega):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(150, 2))
    det = create("norma_novelty", eta=0.2, lam=0.3, nu=0.3, omega=omega, rho=0.1)
    s = det.progressive_score(X)
    rs, SV, a, rho = norma_novelty_reference(X, eta=0.2, lam=0.3, nu=0.3, omega=omega, rho=0.1)
    order = np.argsort(det._store.stamp[: det.n_support_])
    np.testing.assert_allclose(s, rs, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(det.support_vectors_[order], SV)
    np.testing.assert_allclose(det.dual_coef_[order], a, rtol=1e-9)
    assert det.rho_ == pytest.approx(rho)


def test_parameters():
    with pytest.raises(ValueError, match="nu"):
        create("norma_novelty", nu=1.5)
    with pytest.raises(ValueError, match="rho"):
        create("norma_novelty", rho=float("nan"))
    with pytest.raises(ValueError, match="omega"):
        create("silk_novelty", omega=None)


def test_same_maths_as_the_pixel_detector_models():
    """The vector detectors score a colour stream exactly like the per-pixel textbook models."""
    from silkvision.detector.reference import NormaPixelModel, SilkPixelModel

    rng = np.random.default_rng(13)
    X = np.clip(120 + 10 * rng.normal(size=(300, 3)), 0, 255)
    X[150:200] += 60  # a "foreground object" passes
    pix = SilkPixelModel(omega=20, tau=0.01, C=0.4, rho=1.0, sigma=15.0, threshold=0.36)
    det = create("silk_novelty", sigma=15.0, C=0.4, tau=0.01, rho=1.0, omega=20)
    np.testing.assert_allclose(det.progressive_score(X), [pix.step(x) for x in X], rtol=1e-9, atol=1e-12)
    pix = NormaPixelModel(omega=20, eta=0.1, lam=0.1, nu=0.5, sigma=15.0, rho0=1.0)
    det = create("norma_novelty", sigma=15.0, eta=0.1, lam=0.1, nu=0.5, omega=20, rho=1.0)
    np.testing.assert_allclose(det.progressive_score(X), [pix.step(x) for x in X], rtol=1e-9, atol=1e-12)
    assert det.rho_ == pytest.approx(pix.rho)
