"""NORMA and truncated NORMA: hand-worked steps, LRU truncation, agreement with the reference."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.norma import norma_reference


def test_steps_by_hand():
    clf = create("norma", kernel="linear", eta=0.5, lam=0.2, rho=1.0)
    clf.learn_one([1.0, 0.0], 1)  # f = 0 < 1: alpha_1 = eta y = 0.5
    clf.learn_one([1.0, 0.0], 1)  # f = 0.5 < 1: alpha_1 *= 0.9, alpha_2 = 0.5
    np.testing.assert_allclose(clf.dual_coef_, [0.45, 0.5])
    assert clf.decision_function_one([1.0, 0.0]) == pytest.approx(0.95)
    clf.learn_one([3.0, 0.0], 1)  # f = 2.85 >= 1: only the decay
    np.testing.assert_allclose(clf.dual_coef_, [0.405, 0.45])


def test_truncation_drops_the_oldest_term():
    clf = create("tnorma", kernel="linear", eta=0.5, lam=0.2, omega=2)
    for x in ([1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]):
        clf.learn_one(x, 1)
    order = np.argsort(clf._store.stamp[: clf.n_support_])
    np.testing.assert_allclose(clf.support_vectors_[order], [[0.0, 1.0], [-1.0, 0.0]])
    np.testing.assert_allclose(clf.dual_coef_[order], [0.45, 0.5])


@pytest.mark.parametrize("omega", [None, 15])
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_matches_reference(omega, kernel):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 2))
    y = np.where(X[:, 0] > 0.2 * X[:, 1], 1.0, -1.0)
    clf = create("norma", kernel=kernel, eta=0.3, lam=0.1, rho=0.5, omega=omega)
    pred = clf.progressive_predict(X, y)
    rp, SV, a = norma_reference(X, y, eta=0.3, lam=0.1, rho=0.5, omega=omega, kernel=kernel)
    order = np.argsort(clf._store.stamp[: clf.n_support_])
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_[order], SV)
    np.testing.assert_allclose(clf.dual_coef_[order], a, rtol=1e-10)


def test_parameters():
    with pytest.raises(ValueError, match="eta\\*lam"):
        create("norma", eta=2.0, lam=0.5)
    with pytest.raises(ValueError, match="omega"):
        create("tnorma", omega=None)
    with pytest.raises(ValueError, match="rho"):
        create("norma", rho=-1)


@pytest.mark.parametrize("name", ["norma", "tnorma"])
def test_rho_zero_is_refused_since_it_never_learns(name):
    """The model starts at f = 0 and steps only when ``y f < rho``: with ``rho = 0`` it would stay
    empty forever (it took 0 support vectors from any stream), so the margin must be > 0."""
    for rho in (0, 0.0, -0.0):
        with pytest.raises(ValueError, match=r"rho: .*0 never updates: .*y f < rho; expected rho > 0"):
            create(name, rho=rho)
    with pytest.raises(ValueError, match=r"rho: -0\.5 must be a finite number > 0"):
        create(name, rho=-0.5)
    assert create(name, rho=1e-12).rho == 1e-12


def test_a_tie_y_f_equal_to_rho_is_no_step():
    """The step condition is the paper's strict ``y f < rho``: at ``y f == rho`` only the decay
    applies (all numbers here are exact in binary)."""
    clf = create("norma", kernel="linear", eta=0.5, lam=0.5, rho=0.5)
    clf.learn_one([1.0, 0.0], 1)  # f = 0 < 0.5: alpha_1 = eta y = 0.5
    assert clf.decision_function_one([1.0, 0.0]) == 0.5
    clf.learn_one([1.0, 0.0], 1)  # y f = 0.5 = rho: no new term, alpha_1 *= 1 - eta lam
    np.testing.assert_array_equal(clf.dual_coef_, [0.375])
    clf.learn_one([-1.0, 0.0], -1)  # y f = 0.375 < 0.5: a step again
    np.testing.assert_array_equal(clf.dual_coef_, [0.28125, -0.5])
    _, SV, a = norma_reference(
        [[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0]], [1, 1, -1], eta=0.5, lam=0.5, rho=0.5, kernel="linear"
    )
    np.testing.assert_array_equal(SV, [[1.0, 0.0], [-1.0, 0.0]])
    np.testing.assert_array_equal(a, [0.28125, -0.5])


@pytest.mark.parametrize("name", ["norma", "tnorma", "norma_novelty"])
def test_zero_vector_is_not_stored_and_never_evicts_a_real_term(name):
    """k(x, .) = 0 for x = 0 under the linear kernel: the term is the zero function. It must not
    be stored, least of all in place of a real term of a truncated buffer (omega = 3)."""
    kw = {"omega": 3} if name != "norma" else {}
    est = create(name, kernel="linear", **kw)
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5]])
    if name == "norma_novelty":
        est.partial_fit(X)
        before = est.support_vectors_.copy()
        est.learn_one([0.0, 0.0])
    else:
        est.partial_fit(X, [1, -1, 1])
        before = est.support_vectors_.copy()
        est.learn_one([0.0, 0.0], -1)
    assert len(before) > 0
    np.testing.assert_array_equal(est.support_vectors_, before)
