"""DUOL at its exact boundaries: the box of problem (1), a zero hinge loss, scores of exactly 0 (and
within MARGIN_TOL of it), equal conflicts, ``w_ab = -rho`` and the non-RBF kernels (``k(x, x) != 1``).

The small streams are worked out by hand with a linear kernel (weights and counts in the
docstrings) and checked against :func:`duol_reference` as well. Their ties and zero scores are exact
in floating point (small integers, halves and quarters), so neither side depends on the rounding of
a sum; the MARGIN_TOL cases put a score a known distance (1e-10, 2.5e-11) from 0. On integer data
with ties the learner and the reference can otherwise part ways (different summation orders), so
only streams checked to agree are compared with the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.duol import MARGIN_TOL, duol_reference, solve_box_qp
from silkvision.backends.mercer import make_kernel

LIN = dict(kernel="linear")
LINEAR = make_kernel("linear")


def h(g, d, ka, kb, w, la, lb):
    return g * la + d * lb - ka / 2 * g * g - kb / 2 * d * d - w * g * d


def _counts(clf):
    return [clf.n_updates_, clf.n_double_updates_, clf.n_strong_updates_]


def _check_reference(clf, X, y, variant):
    """Assert that the learner's weights and counts equal duol_reference's (linear kernel, the
    learner's C and rho) on the same stream; return the reference's scores f_{t-1}(x_t)."""
    counts = [0, 0, 0]
    f, S, g = duol_reference(X, y, LINEAR, C=clf.C, rho=clf.rho, variant=variant, counts=counts)
    np.testing.assert_allclose(clf.weights_, g[g != 0], rtol=1e-12)
    assert _counts(clf) == counts
    return f


# ----------------------------------------------------------------------------------------------
# solve_box_qp: the answer lies in the box
# ----------------------------------------------------------------------------------------------


def test_box_qp_interior_point_outside_the_box_is_not_returned():
    """ka = kb = 1, w = -0.1, la = 0.1, lb = 3, C = 1, hat_g_b = 0.5 (so d_b in [-0.5, 0.5]). The
    stationary point g = (0.1 + 0.3)/0.99 = 0.404 lies in [0, C] but d = (3 + 0.01)/0.99 = 3.04 does
    not: the optimum is on the edge d_b = 0.5, with g_a = la - w d_b = 0.1 + 0.05 = 0.15."""
    g, d = solve_box_qp(1.0, 1.0, -0.1, 0.1, 3.0, 1.0, 0.5)
    assert (g, d) == pytest.approx((0.15, 0.5))


def test_box_qp_is_feasible_and_optimal_for_any_signs(rng):
    """solve_box_qp promises the box optimum for any signs of w, la, lb (duol_rand's random partner
    may conflict or not, and its loss may be negative): the answer is always in the box and no grid
    point does better."""
    G = np.linspace(0, 1, 201)
    for _ in range(300):
        ka, kb = rng.uniform(0.2, 2.0, 2)
        w = rng.uniform(-1, 1) * np.sqrt(ka * kb)
        la, lb = rng.uniform(-1, 4, 2)
        C = rng.uniform(0.5, 6)
        gh = rng.uniform(0, C)
        g, d = solve_box_qp(ka, kb, w, la, lb, C, gh)
        assert 0 <= g <= C and -gh <= d <= C - gh
        gg, dd = np.meshgrid(G * C, -gh + G * C)
        assert h(g, d, ka, kb, w, la, lb) >= h(gg, dd, ka, kb, w, la, lb).max() - 1e-12


# ----------------------------------------------------------------------------------------------
# the learner's boundaries, by hand (linear kernel)
# ----------------------------------------------------------------------------------------------


def test_zero_loss_example_is_not_an_update():
    """x1 = (1, 0), +1: f = 0, loss 1, gamma_1 = 1. x2 = x1, +1 again: f = 1 exactly, loss
    max(0, 1 - 1) = 0. An update needs l_t > 0: x2 is neither an update nor a support vector (not
    even one of weight 0 in the internal arrays)."""
    X = np.array([[1.0, 0.0], [1.0, 0.0]])
    y = np.array([1.0, 1.0])
    clf = create("duol", **LIN)
    assert clf.progressive_predict(X, y).tolist() == [1, 1]
    assert clf.n_updates_ == 1 and clf.n_support_ == 1
    np.testing.assert_allclose(clf.weights_, [1.0])
    np.testing.assert_allclose(clf.scores_, [1.0])
    f = _check_reference(clf, X, y, "exact")
    np.testing.assert_array_equal(f, [0.0, 1.0])


def test_iter_steps_divide_by_the_kernel_diagonal():
    """duol_iter's coordinate steps are l / k, not l (invisible with RBF, where k(x, x) = 1).
    x1 = (1, 0), +1: gamma_1 = 1, f^1 = 1 (on the margin: an auxiliary candidate, l_b = 0).
    x2 = (-0.5, 1), +1: f = -0.5, l_a = 1.5, k_a = 1.25, w = -0.5, k_b = 1. New weight first:
    g_a = l_a / k_a = 1.2; then d_b = (l_b - w g_a) / k_b = 0.6: weights (1.6, 1.2)."""
    X = np.array([[1.0, 0.0], [-0.5, 1.0]])
    y = np.array([1.0, 1.0])
    clf = create("duol_iter", C=5.0, **LIN)
    clf.progressive_predict(X, y)
    np.testing.assert_allclose(clf.weights_, [1.6, 1.2])
    assert clf.n_double_updates_ == 1
    _check_reference(clf, X, y, "iter")


def test_iter_step_is_clipped_to_C_after_dividing():
    """As above with C = 1.3: g_a = min(C, 1.2) = 1.2 (l_a itself, 1.5, would be clipped to 1.3), and
    d_b = min(C - 1, 0.6) = 0.3: weights (1.3, 1.2)."""
    X = np.array([[1.0, 0.0], [-0.5, 1.0]])
    y = np.array([1.0, 1.0])
    clf = create("duol_iter", C=1.3, **LIN)
    clf.progressive_predict(X, y)
    np.testing.assert_allclose(clf.weights_, [1.3, 1.2])
    _check_reference(clf, X, y, "iter")


# A stream whose scores are all exactly 0 after three single updates (linear kernel, C = 5):
# x1 = (1, 0) +1 and x2 = (0, 1) +1 take gamma = 1 each (no misclassified support vector: f^i = 1);
# x3 = (1, 1) -1 has f = 2 and takes 1 too (duol_nips' single step is min(C, 1)). Now
# f(x) = x_0 + x_1 - (x_0 + x_1) = 0 everywhere: f^1 = f^2 = f^3 = 0 exactly. x4 = (1, 1) -1 has
# f = 0 (a mistake: sign(0) -> +1) and conflicts equally with x1 and x2 (w = -1), not with x3 (w = 2).
ZERO_X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
ZERO_Y = np.array([1.0, 1.0, -1.0, -1.0])


def _nips_on_zero_scores():
    clf = create("duol_nips", C=5.0, **LIN)
    assert clf.rho == 0.2
    assert clf.progressive_predict(ZERO_X, ZERO_Y).tolist() == [1, 1, 1, 1]
    return clf


def test_nips_support_vector_with_a_score_of_exactly_zero_is_misclassified():
    """duol_nips (rho = 0.2): a support vector with f^i = 0 counts as misclassified (NIPS Algorithm 1
    line 10, ``<= 0``), so x4 finds an auxiliary (w = -1 <= -rho) and makes the double update of lines
    20-21: gamma_4 = 1/(1 - 0.2) = 1.25, the auxiliary's weight 1 + 1.25 = 2.25 (with no auxiliary:
    a single step min(C, 1) and weights 1, 1, 1, 1)."""
    clf = _nips_on_zero_scores()
    assert clf.n_updates_ == 4 and clf.n_double_updates_ == 1
    np.testing.assert_allclose(sorted(clf.weights_), [1.0, 1.0, 1.25, 2.25])
    f = _check_reference(clf, ZERO_X, ZERO_Y, "nips")
    np.testing.assert_array_equal(f, [0.0, 0.0, 2.0, 0.0])


def test_nips_takes_the_first_of_equal_conflicts():
    """NIPS Algorithm 1 line 11 is a strict ``w_ab < w_min``: of x1 and x2 (both w = -1) the first,
    x1, is the auxiliary example (unlike the JMLR rule of duol and duol_appr, which keeps the last)."""
    clf = _nips_on_zero_scores()
    np.testing.assert_allclose(clf.weights_, [2.25, 1.0, 1.0, 1.25])  # not (1, 2.25, 1, 1.25)


def test_strong_update_count_includes_an_auxiliary_with_a_score_of_exactly_zero():
    """n_strong_updates_ counts M_d^s: w_ab <= -rho, y_b f(x_b) <= 0, i.e. l_b >= 1 (here exactly 1),
    and C >= hat_gamma_b + 1/(1-rho) (5 >= 1 + 1.25). The double update above is strong."""
    clf = _nips_on_zero_scores()
    assert _counts(clf) == [4, 1, 1]


def test_appr_orthogonal_auxiliary_triggers_a_double_update_at_rho_zero():
    """Algorithm 1 line 19 reads w_min <= -rho: with rho = 0 an orthogonal auxiliary example (w = 0)
    already triggers the double update. duol_appr, C = 5: x1 = (1, 0) +1 takes 1 (f^1 = 1);
    x2 = (1, 0) -1: f = 1, a mistake, no misclassified SV: l / k = 2, so f(x) = -x_0, f^1 = -1.
    x3 = (0, 2) -1: f = 0 (a mistake), x1 misclassified with w = -k(x1, x3) = 0 <= -0: Theorem 1's
    steps gamma_3 = 1, gamma_1 = 1 + 1 = 2 (a single step would give l / k = 1/4 and leave x1 at 1)."""
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    y = np.array([1.0, -1.0, -1.0])
    clf = create("duol_appr", C=5.0, rho=0.0, **LIN)
    clf.progressive_predict(X, y)
    np.testing.assert_allclose(clf.weights_, [2.0, 2.0, 1.0])
    # strong: w = 0 <= -rho, y_b f(x_b) = -1 <= 0 and C = 5 >= 1 + 1
    assert _counts(clf) == [3, 1, 1]
    _check_reference(clf, X, y, "appr")


def test_exact_orthogonal_example_is_a_trivial_double_update_at_rho_zero():
    """duol (rho = 0): x1 = (1, 0) +1 takes 1 (f^1 = 1, on the margin, eligible); x2 = (0, 2) -1 is
    orthogonal (w = 0 <= -0): a double update of Proposition 2's interior case with d_b = 0 and
    g_a = l / k = 1/4. The weights equal the single step's; the double update is counted."""
    X = np.array([[1.0, 0.0], [0.0, 2.0]])
    y = np.array([1.0, -1.0])
    clf = create("duol", C=5.0, rho=0.0, **LIN)
    clf.progressive_predict(X, y)
    np.testing.assert_allclose(clf.weights_, [1.0, 0.25])
    assert _counts(clf) == [2, 1, 0]  # not strong: y_b f(x_b) = 1 > 0
    _check_reference(clf, X, y, "exact")


def test_appr_new_example_within_margin_tol_of_zero_is_misclassified():
    """duol_appr's Theorem 1 condition y_t f(x_t) <= 0 holds up to MARGIN_TOL. x1 = (1, 0) +1 takes 1;
    x2 = (1, 0) -1 takes l / k = 2 (x1 is on the margin, not misclassified), so f(x) = -x_0 and
    f^1 = -1. x3 = (1e-10, 1) -1: f = -1e-10, so y_3 f = +1e-10 <= MARGIN_TOL; x1 conflicts
    (w = -1e-10 <= -0): steps gamma_3 = 1, gamma_1 = 1 + 1 = 2 (a single step would give
    l / k ~ 1 and leave x1 at 1)."""
    X = np.array([[1.0, 0.0], [1.0, 0.0], [1e-10, 1.0]])
    y = np.array([1.0, -1.0, -1.0])
    clf = create("duol_appr", C=5.0, rho=0.0, **LIN)
    f = clf.progressive_predict(X, y)
    assert 0 < 1e-10 <= MARGIN_TOL
    np.testing.assert_allclose(clf.weights_, [2.0, 2.0, 1.0])
    assert clf.n_double_updates_ == 1
    _check_reference(clf, X, y, "appr")
    assert f.tolist() == [1, 1, -1]  # x3 is classified right, yet within the tolerance


def test_appr_auxiliary_within_margin_tol_of_zero_is_misclassified():
    """duol_appr's auxiliary condition f^i <= 0 holds up to MARGIN_TOL. 1-D, C = 4 - 1e-10:
    x1 = 1 +1 takes 1 (f(x) = x); x2 = 0.25 -1: f = 0.25, l = 1.25, l / k = 20, clipped to C, so
    f(x) = x (1 - C/4) = 2.5e-11 x: f^1 = +2.5e-11 (within the tolerance), f^2 = -6.25e-12.
    x3 = 1 -1: f = 2.5e-11, a mistake; x1 conflicts (w = -1), x2 does not (w = +0.25): steps
    gamma_3 = 1, gamma_1 = 1 + 1 = 2 (without x1, no auxiliary: a single step ~ 1, x1 keeps 1)."""
    C = 4.0 - 1e-10
    X = np.array([[1.0], [0.25], [1.0]])
    y = np.array([1.0, -1.0, -1.0])
    clf = create("duol_appr", C=C, rho=0.0, **LIN)
    clf.progressive_predict(X, y)
    np.testing.assert_allclose(clf.weights_, [2.0, C, 1.0], rtol=1e-12)
    assert clf.n_double_updates_ == 1
    _check_reference(clf, X, y, "appr")


@pytest.mark.parametrize("seed", [4, 31])
def test_appr_matches_reference_on_one_decimal_features(seed):
    """Features with one decimal: scores that are 0 in exact arithmetic round to about +-1e-17, on
    either side of 0. With MARGIN_TOL the learner and duol_reference (different summation orders)
    take the same decisions: same predictions, weights and counts on these two streams."""
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(40, 3)) / 10.0
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    clf = create("duol_appr", C=5.0, rho=0.0, **LIN)
    pred = clf.progressive_predict(X, y)
    f = _check_reference(clf, X, y, "appr")
    np.testing.assert_array_equal(pred, np.where(f >= 0, 1, -1))


# ----------------------------------------------------------------------------------------------
# non-RBF kernels: every variant against the reference
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["exact", "appr", "iter", "rand", "nips"])
@pytest.mark.parametrize("kernel, kw", [("linear", {}), ("poly", dict(degree=2, coef=1.0))])
def test_variants_match_reference_with_non_rbf_kernels(variant, kernel, kw):
    """With a linear or polynomial kernel k(x, x) != 1, so every step that divides by it is seen
    (test_duol.py checks the RBF kernel only). Gaussian data: no exact ties."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1.0, -1.0)
    name = "duol" if variant == "exact" else f"duol_{variant}"
    clf = create(name, kernel=kernel, C=2.0, rho=0.1, **kw)
    clf._ensure_state(3)
    f = clf._run(X, y)
    counts = [0, 0, 0]
    f_ref, S, g = duol_reference(
        X,
        y,
        make_kernel(kernel, 1.0, kw.get("degree", 2), kw.get("coef", 1.0)),
        C=2.0,
        rho=0.1,
        variant=variant,
        counts=counts,
    )
    np.testing.assert_allclose(f, f_ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(clf._gam[: clf._n], g, rtol=1e-9, atol=1e-12)
    assert _counts(clf) == counts and counts[1] > 0
