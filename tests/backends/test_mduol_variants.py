"""The three M-DUOL learners (``mduol``, ``mduol_appr``, ``mduol_iter``) against the plain NumPy
reference :func:`silkvision.backends.mduol.mduol_reference` (which recomputes every score from
scratch instead of tracking them): same predictions, same support vectors, pairs and weights, same
class scores."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.mduol import mduol_reference
from silkvision.backends.mercer import kernel_matrix_reference, make_kernel

VARIANTS = {"mduol": "exact", "mduol_appr": "appr", "mduol_iter": "iter"}
SIGMA = 1.5


def _stream(n=120, K=4, seed=1):
    """Overlapping blobs of ``K`` classes, labels renumbered in order of arrival (0 first, ...), so
    that the learner's class codes and the reference's label indices agree."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(K, 3)) * 1.5
    y = rng.integers(0, K, n)
    X = centres[y] + rng.normal(size=(n, 3))
    y = np.array([list(dict.fromkeys(y.tolist())).index(v) for v in y])
    return X, y


def _ref_scores(X, S, g, pairs, K, Q, kernel):
    """f_c(q) = sum_i g_i (e_{r_i} - e_{s_i}) k(x_{S_i}, q), from the reference's output."""
    A = np.zeros((len(S), K))
    A[np.arange(len(S)), pairs[:, 0]] += g
    A[np.arange(len(S)), pairs[:, 1]] -= g
    return kernel_matrix_reference(Q, X[S], kernel) @ A


@pytest.mark.parametrize("n_classes", [None, 4])
@pytest.mark.parametrize("C, rho", [(10.0, 0.0), (0.6, 0.1)])
@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.slow
def test_mduol_variant_matches_reference(name, C, rho, n_classes):
    X, y = _stream()
    kernel = make_kernel("rbf", SIGMA)
    clf = create(name, sigma=SIGMA, C=C, rho=rho, n_classes=n_classes)
    pred = clf.progressive_predict(X, y)
    p_ref, S, g, pairs = mduol_reference(
        X, y, kernel, C=C, rho=rho, n_classes=n_classes, variant=VARIANTS[name]
    )
    if n_classes is None:  # no class to predict before the first label arrives
        assert pred[0] is None
        pred, p_ref = pred[1:].astype(np.int64), p_ref[1:]
    np.testing.assert_array_equal(pred, p_ref)
    assert clf.n_double_updates_ > 5  # the variant's own double update is exercised
    nz = g != 0  # the learner's attributes leave out zero weights
    np.testing.assert_allclose(clf.weights_, g[nz], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(clf.pairs_, pairs[nz])
    np.testing.assert_allclose(clf.support_vectors_, X[S[nz]])
    Q = np.vstack([X[:10] + 0.3, X[-5:]])
    f_ref = _ref_scores(X, S, g, pairs, 4, Q, kernel)
    f = np.array([clf.decision_function_one(q) for q in Q])
    np.testing.assert_allclose(f, f_ref, rtol=0, atol=1e-9)


@pytest.mark.slow
def test_the_three_variants_differ_on_the_stream():
    """The stream separates the variants (else the agreement above would not tell them apart)."""
    X, y = _stream()
    w = {}
    for name, v in VARIANTS.items():
        _, S, g, _ = mduol_reference(X, y, make_kernel("rbf", SIGMA), C=10.0, variant=v)
        w[name] = (tuple(S), g)
    for a in VARIANTS:
        for b in VARIANTS:
            if a < b:
                assert w[a][0] != w[b][0] or not np.allclose(w[a][1], w[b][1])


# x1 = (1, 0), class 0: single step l/(2 k) = 1/2 with s = 1. x2 = (0.5, 1), class 1:
# f(x2) = (0.25, -0.25, 0), r = 1, s = 0, l_t = 1.5, k_t = 1.25; auxiliary x1 (margin exactly 1):
# H(1,0) . H(0,1) = -2, w = -2 k(x1, x2) = -1, l_b = 0, k_b = 1, hat_gamma_b = 1/2. Then
#   exact (Prop. 5 interior): det = 4 k_t k_b - w^2 = 4, gamma_t = (2 k_b l_t - w l_b)/det = 0.75,
#         d_b = (2 k_t l_b - w l_t)/det = 0.375                      -> weights (0.875, 0.75)
#   iter: gamma_t = l_t/(2 k_t) = 0.6, d_b = (l_b - w gamma_t)/(2 k_b) = 0.3 -> weights (0.8, 0.6)
# (appr needs a misclassified auxiliary, margin <= 0: see the tests below)
HAND = {"mduol": [0.875, 0.75], "mduol_iter": [0.8, 0.6]}


@pytest.mark.parametrize("name", sorted(HAND))
def test_double_step_by_hand(name):
    X = np.array([[1.0, 0.0], [0.5, 1.0]])
    y = np.array([0, 1])
    clf = create(name, kernel="linear", n_classes=3)
    assert clf.progressive_predict(X, y).tolist() == [0, 0]
    assert clf.n_double_updates_ == 1
    np.testing.assert_allclose(clf.weights_, HAND[name], rtol=1e-12)
    np.testing.assert_array_equal(clf.pairs_, [[0, 1], [1, 0]])
    _, S, g, pairs = mduol_reference(X, y, make_kernel("linear"), n_classes=3, variant=VARIANTS[name])
    np.testing.assert_allclose(g, HAND[name], rtol=1e-12)
    np.testing.assert_array_equal(pairs, [[0, 1], [1, 0]])


def _appr_and_reference(X, y, rho):
    clf = create("mduol_appr", kernel="linear", n_classes=3, rho=rho)
    clf.progressive_predict(X, y)
    _, _, g, pairs = mduol_reference(X, y, make_kernel("linear"), rho=rho, n_classes=3, variant="appr")
    return clf, g, pairs


def test_appr_double_update_with_theorem_5_steps_by_hand():
    """Linear kernel, 3 classes, rho = 0.1, C = 10. x1 = (1, 0), class 0: single step 1/2, pair (0, 1).
    x2 = (1, 1), class 1: f(x2) = (0.5, -0.5, 0), a mistake (margin -1, l = 2, k = 2), but x1's margin
    is 1 (not misclassified): single step l/(2k) = 1/2, pair (1, 0). Now f(x) = 0.5 (e0 - e1)(-x[1]),
    so x1's margin is 0: misclassified. x3 = (1, 0), class 1: f(x3) = 0, margin 0 (s = 0, the lowest
    of the tied wrong classes): misclassified; x1 conflicts, w = H(1,0).H(0,1) k = -2 <= -2 rho: the
    double update of Theorem 5 with v = 1/(2(1 - rho)) = 1/1.8: gamma_3 = v, gamma_1 = 1/2 + v."""
    X = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    y = np.array([0, 1, 1])
    clf, g, pairs = _appr_and_reference(X, y, rho=0.1)
    v = 1 / 1.8
    assert clf.n_double_updates_ == 1
    for weights in (clf.weights_, g):
        np.testing.assert_allclose(weights, [0.5 + v, 0.5, v], rtol=1e-12)
    np.testing.assert_array_equal(pairs, [[0, 1], [1, 0], [1, 0]])


def test_appr_double_updates_only_a_misclassified_example():
    """x1 = (1, 0) class 0 (step 1/2), x2 = (1, 0) class 1 (a mistake, margin -1: step 2/2 = 1): now
    f = -0.5 (e0 - e1) x[0], x1's margin is -1. x3 = (1, 0), class 1: f(x3) = (-0.5, 0.5, 0), margin
    0.5 over class 2: a margin error (l = 0.5) but not a mistake, and x1 conflicts (w = H(1,2).H(0,1)
    = -1). mduol_appr keeps Theorem 5's condition and takes the single step l/(2k) = 1/4; the exact
    M-DUOL, whose auxiliary needs only a margin error, double-updates at x2 and at x3."""
    X = np.array([[1.0, 0.0]] * 3)
    y = np.array([0, 1, 1])
    clf, g, pairs = _appr_and_reference(X, y, rho=0.0)
    assert clf.n_double_updates_ == 0
    for weights in (clf.weights_, g):
        np.testing.assert_allclose(weights, [0.5, 1.0, 0.25], rtol=1e-12)
    np.testing.assert_array_equal(pairs, [[0, 1], [1, 0], [1, 2]])
    exact = create("mduol", kernel="linear", n_classes=3)
    exact.progressive_predict(X, y)
    assert exact.n_double_updates_ == 2


def test_reference_rejects_unknown_variant():
    with pytest.raises(ValueError, match="variant"):
        mduol_reference(np.zeros((1, 2)), [0], make_kernel("linear"), variant="rand")
