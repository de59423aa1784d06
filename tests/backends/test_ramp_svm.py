"""OnlineSVM^R / OnlineASVM^R (Wang & Vucetic, ICDM 2009): eqs. 13-15 by hand, stopping criteria,
CCCP active set, removal step (Alg. 2), active learning (Alg. 3), numba vs reference, generators."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import _ramp_kernels as K
from silkvision.backends import create
from silkvision.backends import synthetic as syn
from silkvision.backends.mercer import kernel_matrix_reference, make_kernel
from silkvision.backends.ramp_svm import OnlineASVMR, OnlineSVMR, OnlineSVMRRemoval, RampSVMReference


def _std(X):
    return (X - X.mean(0)) / X.std(0)


def _ncheck(n, seed=1):
    X, y = syn.noisy_checkerboard(n, seed=seed)
    return _std(X), y


# ------------------------------------------------------------------ eqs. (13)-(15) worked by hand
def test_hand_worked_linear_1d_stream():
    """Linear kernel, 1-D, C=10. Every number below was worked out by hand from eqs. (13)-(15)."""
    est = OnlineSVMR(C=10, kernel="linear")
    # x1 = 1, y = +1: f = 0, g = 1 in [0, 2] -> alpha1 = clip(0 + 1/1) = 1, g1 = 1 - 1 = 0
    est.learn_one([1.0], 1)
    st = est.state()
    np.testing.assert_allclose(st["alpha"], [1.0])
    np.testing.assert_allclose(st["g"], [0.0], atol=1e-15)
    assert est.decision_function_one([2.0]) == pytest.approx(2.0)  # f(x) = x
    # x2 = -2, y = +1: f = -2, g = 3 > 2: ramp's flat part, kept in I but not in V, no update
    est.learn_one([-2.0], 1)
    st = est.state()
    np.testing.assert_allclose(st["alpha"], [1.0, 0.0])
    np.testing.assert_allclose(st["g"], [0.0, 3.0])
    assert list(st["in_V"]) == [True, False]
    # x3 = 0.5, y = -1: f = 0.5, g = 1.5; Q33 = 0.25 -> alpha3 = 6 (eq. 14); eq. 15 gives g = (3, -3, 0)
    # SMO: only x1 violates (alpha 1, g 3): alpha1 -> 4, g = (0, 3, 1.5)
    #      only x3 violates (alpha 6, g 1.5): 6 + 1.5/0.25 = 12 -> clipped to C = 10, g = (2, -1, 0.5)
    #      only x1 violates: alpha1 -> 6, g = (0, 3, 1.5); x3 at C with g > 0 satisfies eq. (3): stop
    # CCCP: g2 = 3 > 2 keeps x2 out of V; V unchanged -> done. f(x) = 6x - 10 * 0.5 x = x
    est.learn_one([0.5], -1)
    st = est.state()
    np.testing.assert_allclose(st["alpha"], [6.0, 0.0, 10.0], atol=1e-12)
    np.testing.assert_allclose(st["g"], [0.0, 3.0, 1.5], atol=1e-12)
    assert list(st["in_V"]) == [True, False, True]
    assert est.n_smo_steps_ == 3
    assert est.n_support_ == 2
    assert est.decision_function_one([3.0]) == pytest.approx(3.0)


def test_new_example_outside_ramp_changes_nothing():
    """Alg. 1 step 4: g < 0 (already right) and g > 2 (noise) leave the solution unchanged."""
    est = OnlineSVMR(C=1, kernel="linear")
    est.learn_one([1.0], 1)  # alpha = 1, f(x) = x
    f_before = est.decision_function_one([0.3])
    est.learn_one([5.0], 1)  # g = 1 - 5 = -4 < 0
    est.learn_one([3.0], -1)  # g = 1 + 3 = 4 > 2
    assert est.decision_function_one([0.3]) == f_before
    st = est.state()
    np.testing.assert_allclose(st["g"], [0.0, -4.0, 4.0])
    assert est.n_support_ == 1 and est.n_stored_ == 3
    assert est.n_smo_steps_ == 0


def test_working_set_choice_eq13():
    """Eq. (13): among the KKT violators of V, the one whose step (14) increases the dual most."""
    C = 1.0
    A = np.array([0.0, 0.5, C, 0.0, 0.2])
    G = np.array([0.5, -0.2, 0.3, 5.0, 0.9])
    QD = np.ones(5)
    ACT = np.ones(5, np.int8)
    INV = np.array([1, 1, 1, 0, 1], np.int8)  # slot 3 is the biggest violator but not in V
    # gains by hand: j0: a'=0.5 -> 0.125; j1: a'=0.3 -> 0.02; j2 at C with g > 0: no violation;
    # j4: a' = min(1.1, 1) = 1 -> 0.5*(0.04-1) + (0.9+0.2)*0.8 = 0.4
    best, gain, an = K._select(A, G, QD, ACT, INV, C, 1e-3, 5)
    assert best == 4 and an == pytest.approx(1.0) and gain == pytest.approx(0.4)
    INV[4] = 0
    best, gain, an = K._select(A, G, QD, ACT, INV, C, 1e-3, 5)
    assert best == 0 and an == pytest.approx(0.5) and gain == pytest.approx(0.125)
    INV[:] = 0
    assert K._select(A, G, QD, ACT, INV, C, 1e-3, 5)[0] == -1


def test_eq13_gain_is_the_exact_dual_increase_and_eq14_the_best_step():
    rng = np.random.default_rng(0)
    Xs = rng.normal(size=(6, 3))
    ys = rng.choice([-1.0, 1.0], 6)
    k = make_kernel("rbf", sigma=1.3)
    Q = np.outer(ys, ys) * kernel_matrix_reference(Xs, Xs, k)
    C = 2.0
    a = rng.uniform(0, C, 6)

    def dual(a):  # eq. (11)
        return a.sum() - 0.5 * a @ Q @ a

    g = 1.0 - Q @ a  # eq. (3): g = 1 - y f
    for i in range(6):
        an, gain = K.smo_step(a[i], g[i], Q[i, i], C)
        b = a.copy()
        b[i] = an
        assert gain == pytest.approx(dual(b) - dual(a), abs=1e-12)
        for trial in np.linspace(0, C, 41):  # eq. (14) maximises (12) on [0, C]
            b[i] = trial
            assert dual(b) <= dual(a) + gain + 1e-12


# -------------------------------------------------------------------------- invariants, stopping
def _check_state(est, s=-1.0):
    st = est.state()
    f = est.decision_function(st["X"])
    np.testing.assert_allclose(st["g"], 1.0 - st["y"] * f, atol=1e-9)  # eq. (15) keeps g = 1 - y f
    a, g, V = st["alpha"], st["g"], st["in_V"]
    assert np.all((a >= 0) & (a <= est.C))
    assert np.all(V[a > 0]), "a support vector outside V"
    assert np.all(g[V] <= 1 - s + 1e-12), "V holds an example on the ramp's flat part (eq. 10)"
    return st


def test_kkt_criterion_alone_gives_kkt_on_V():
    X, y = _ncheck(250)
    est = OnlineSVMR(C=10, sigma=0.4, eps=0.0, tol=1e-3)
    for i in range(250):
        est.learn_one(X[i], y[i])
        if i % 50 == 49:
            st = _check_state(est)
    a, g, V = st["alpha"], st["g"], st["in_V"]
    viol = np.array([K._violates(ai, gi, est.C, est.tol) for ai, gi in zip(a, g)])
    assert not np.any(viol & V)
    yf = 1 - g[a > 0]
    assert np.all(yf >= -1 - 1e-9) and np.all(yf <= 1 + 1e-3)  # all SVs inside the ramp region
    assert np.sum(g > 2) > 0  # some noisy examples were excluded


def test_progress_criterion_stops_early():
    X, y = _ncheck(250)
    loose = OnlineSVMR(C=10, sigma=0.4, eps=1e-2)
    tight = OnlineSVMR(C=10, sigma=0.4, eps=0.0)
    loose.partial_fit(X, y)
    tight.partial_fit(X, y)
    assert loose.n_smo_steps_ < tight.n_smo_steps_
    st = _check_state(loose)
    # KKT violators are left, but no step on them would gain eps = 1e-2 or more (eq. 13)
    left = [
        K.smo_step(a, g, 1.0, loose.C)[1]
        for a, g, v in zip(st["alpha"], st["g"], st["in_V"])
        if v and K._violates(a, g, loose.C, loose.tol)
    ]
    assert len(left) > 0 and max(left) < 1e-2


def test_limits_are_counted():
    X, y = _ncheck(120)
    est = OnlineSVMR(C=10, sigma=0.4, max_smo=1)
    est.partial_fit(X, y)
    assert est.n_limit_hits_ > 0
    assert OnlineSVMR(C=10, sigma=0.4).partial_fit(X, y).n_limit_hits_ == 0


@pytest.mark.slow
def test_literal_reassignment_cycles_the_dead_band_converges():
    """Narrow kernel, small C, overlapping classes: with the literal test of eq. (10) examples whose g
    sits within the SMO's accuracy of 1 - s = 2 leave and re-join V round after round until max_cccp
    stops it; the default dead band (the stopping criteria's accuracy) ends every CCCP loop."""
    X, y = syn.gauss(1200, seed=0)
    X = _std(X)
    lit = OnlineSVMR(C=0.1, sigma=0.177, cccp_tol=0.0, max_cccp=30).partial_fit(X, y)
    band = OnlineSVMR(C=0.1, sigma=0.177, max_cccp=30).partial_fit(X, y)
    assert lit.n_limit_hits_ > 10
    assert band.n_limit_hits_ == 0
    assert band.n_smo_steps_ * 5 < lit.n_smo_steps_
    # at exit every example of V is inside the ramp region up to the band (0.0045 here); outside V
    # are those beyond it, and the correctly classified arrivals (g < 0) that no CCCP loop has
    # re-assigned since (step 4 adds only g in [0, 2] to V)
    b = K._smo_accuracy(1.0, band.tol, band.eps)
    assert b == pytest.approx(np.sqrt(2e-5))
    st = band.state()
    assert np.all(st["g"][st["in_V"]] <= 2.0 + b)
    out = st["g"][~st["in_V"]]
    assert np.all((out > 2.0 - b) | (out < 0.0))
    # and the models agree on what they predict, up to the few examples near the boundary
    assert np.mean(lit.predict(X) == band.predict(X)) > 0.97


# ---------------------------------------------------------------------------------- numba vs ref
CONFIGS = [
    dict(),
    dict(kernel="linear", C=0.5),
    dict(kernel="poly", degree=2, coef=1.0, C=1.0, sigma=1.0),
    dict(s=-0.5),
    dict(m=4),
    dict(m=0),
    dict(active=True),
    dict(active=True, m=3, s=-2.0),
    dict(cache_mb=0.0),
    dict(cache_mb=0.01),  # a few rows only: LRU eviction and shrinking cache on growth
    dict(cccp_tol=0.0),  # the literal eq. (10) test of steps 16-22
    dict(cccp_tol=0.05),
]


@pytest.mark.parametrize("shrinking", [False, True])
@pytest.mark.parametrize(
    "cfg", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "default"
)
@pytest.mark.slow
def test_numba_matches_reference(cfg, shrinking):
    """shrinking=False is the literal Algorithm 1: bit-for-bit the reference. With shrinking the same
    steps are taken; only the rounding of the deferred gradient updates differs."""
    cfg = dict(cfg)
    active = cfg.pop("active", False)
    cache = cfg.pop("cache_mb", 128.0)
    cfg.setdefault("C", 10.0)
    cfg.setdefault("sigma", 0.5)
    X, y = _ncheck(120, seed=3)
    est = (OnlineASVMR if active else OnlineSVMR)(cache_mb=cache, shrinking=shrinking, **cfg)
    pred = np.concatenate([est.progressive_predict(X[:70], y[:70]), est.progressive_predict(X[70:], y[70:])])
    ref = RampSVMReference(active=active, **cfg)
    f_ref = np.array([ref.learn(X[i], y[i]) for i in range(len(X))])
    np.testing.assert_array_equal(pred, np.where(f_ref >= 0, 1.0, -1.0))
    st = est.state()
    np.testing.assert_array_equal(st["slots"], np.flatnonzero(ref.act))
    tol = 1e-9 if shrinking else 0.0
    np.testing.assert_allclose(st["alpha"], np.array(ref.a)[st["slots"]], rtol=0, atol=tol)
    np.testing.assert_allclose(st["g"], np.array(ref.g)[st["slots"]], rtol=0, atol=tol)
    np.testing.assert_array_equal(st["in_V"], np.array(ref.inV)[st["slots"]])
    if active:
        assert est.n_queried_ == ref.n_queried
    x = np.array([0.1, -0.2])
    assert est.decision_function_one(x) == pytest.approx(ref.decision(x), abs=tol + 1e-12)


def test_shrinking_bound_by_hand_with_kernel_norms_other_than_one():
    """The Cauchy-Schwarz safety bound of the shrinking SMO, worked by hand on two orthogonal linear
    examples with ``||x|| != 1`` (for the RBF kernel kappa = 1 hides a missing kappa): theta =
    (tol - g_1) / kappa_1 = 1.5 for x_1 = (0, 2), and one step alpha_0 = 0 -> 4 on x_0 = (0.5, 0)
    moves B = |D_0| kappa_0 = 2 >= theta, which must trigger one refresh."""
    est = OnlineSVMR(kernel="linear")
    est._alloc(2, cap=4)
    st = est._st
    tol, margin, C = 1e-3, 1.0, 10.0
    st["SX"][:2] = [[0.5, 0.0], [0.0, 2.0]]
    st["SY"][:2] = 1.0
    st["QD"][:2] = [0.25, 4.0]
    st["G"][:2] = [1.0, tol - 3.0]  # x_0 violates eq. (3); x_1 is far: g_1 <= tol - margin
    st["ACT"][:2] = st["INV"][:2] = 1
    st["META"][K._HW] = 2
    n_w, theta = K._build_w(
        st["A"], st["G"], st["QD"], st["ACT"], st["INV"], 2, tol, margin, st["WIDX"], st["TRK"]
    )
    assert n_w == 1 and st["WIDX"][0] == 0 and list(st["TRK"][:2]) == [1, 0]
    assert theta == pytest.approx(1.5, rel=1e-12)
    K._optimize(
        st["SX"],
        st["SY"],
        st["A"],
        st["G"],
        st["QD"],
        st["ACT"],
        st["INV"],
        st["CROW"],
        st["C_OF"],
        st["S_OF"],
        st["LRU"],
        st["SCRATCH"],
        st["REMOVED"],
        st["META"],
        st["WIDX"],
        st["TRK"],
        st["D"],
        st["CHG"],
        st["CHGF"],
        *est._kernel.args,
        C,
        -1.0,
        tol,
        1e-6,
        100,
        1,
        margin,
        -1.0,
    )
    assert st["A"][:2].tolist() == [4.0, 0.0] and st["G"][0] == 0.0  # alpha_0 = g / q = 1 / 0.25
    assert st["META"][K._NSMO] == 1 and st["META"][K._NREFRESH] == 1


def test_shrinking_takes_the_same_steps_at_large_C():
    """Shrinking skips far examples only while a bound proves they cannot violate eq. (3): same
    number of SMO steps and the same model (up to rounding) as the literal algorithm."""
    X, y = _ncheck(250, seed=6)
    a = OnlineSVMR(C=500, sigma=0.5, shrinking=False).partial_fit(X, y)
    b = OnlineSVMR(C=500, sigma=0.5).partial_fit(X, y)
    assert b.shrinking and b._meta(K._NREFRESH) > 0
    assert a.n_smo_steps_ == b.n_smo_steps_
    np.testing.assert_allclose(a.state()["alpha"], b.state()["alpha"], atol=1e-8)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-8)


@pytest.mark.slow
def test_cache_does_not_change_results_but_saves_kernel_evaluations():
    X, y = _ncheck(300, seed=5)
    a = OnlineSVMR(C=10, sigma=0.5).partial_fit(X, y)
    b = OnlineSVMR(C=10, sigma=0.5, cache_mb=0).partial_fit(X, y)
    np.testing.assert_array_equal(a.state()["alpha"], b.state()["alpha"])
    assert a.n_kernel_evals_ < b.n_kernel_evals_ / 2


# ---------------------------------------------------------------------------- removal (Alg. 2)
@pytest.mark.parametrize("m", [0, 3, 20])
def test_removal_bounds_stored_examples(m):
    X, y = _ncheck(300, seed=2)
    est = OnlineSVMR(C=10, sigma=0.5, m=m)
    for i in range(300):
        est.learn_one(X[i], y[i])
        assert est.n_stored_ <= est.n_support_ + m
    st = _check_state(est)
    assert np.sum(st["alpha"] == 0) <= m
    assert est.n_stored_ < 300 and est.n_support_ > 0


def test_removal_drops_the_non_svs_farthest_from_the_boundary():
    X, y = _ncheck(200, seed=4)
    full = OnlineSVMR(C=10, sigma=0.5, m=10**6)  # the step never triggers: same as m=None
    full.partial_fit(X, y)
    st = full.state()
    nonsv = st["alpha"] == 0
    d = np.abs(1 - st["g"][nonsv])
    # one removal step with m = 5 on a copy of this state removes the others, largest |1 - g| first
    est = OnlineSVMR(C=10, sigma=0.5, m=5)
    est._st = {k: v.copy() for k, v in full._st.items()}
    est.n_features_ = 2
    K._removal(
        5,
        est._st["A"],
        est._st["G"],
        est._st["ACT"],
        est._st["INV"],
        est._st["C_OF"],
        est._st["S_OF"],
        est._st["LRU"],
        est._st["FREE"],
        est._st["META"],
    )
    kept = est.state()
    kept_d = np.sort(np.abs(1 - kept["g"][kept["alpha"] == 0]))
    np.testing.assert_allclose(kept_d, np.sort(d)[:5])
    assert est.n_support_ == full.n_support_
    np.testing.assert_allclose(est.decision_function(X[:20]), full.decision_function(X[:20]))


def test_removal_registered_variant():
    est = create("online_svm_r_removal")
    assert isinstance(est, OnlineSVMRRemoval) and est.m == 100
    assert create("online_svm_r").m is None
    assert est.clone(m=7).m == 7


# --------------------------------------------------------------------------- active (Alg. 3)
def test_asvm_queries_only_inside_the_ramp_region_and_reports_it():
    X, y = syn.gauss(600, seed=3)
    est = OnlineASVMR(C=5, sigma=1.0)
    queried = []
    for i in range(600):
        f = est.decision_function_one(X[i])
        q0 = est.n_queried_
        est.learn_one(X[i], y[i])
        queried.append(est.n_queried_ - q0)
        assert queried[-1] == (abs(f) <= 1.0)
    assert est.n_queried_ == sum(queried) < 600
    assert est.n_seen_ == 600 and est.n_stored_ == est.n_queried_
    # labels that were not queried are never looked at: flip them, the model is the same
    y2 = y.copy()
    mask = np.array(queried) == 0
    y2[mask] = -y2[mask]
    other = OnlineASVMR(C=5, sigma=1.0).partial_fit(X, y2)
    np.testing.assert_array_equal(other.state()["alpha"], est.state()["alpha"])
    assert other.n_queried_ == est.n_queried_


def test_asvm_close_to_svm_on_gauss():
    X, y = syn.gauss(1500, seed=1)
    Xt, yt = syn.gauss(2000, seed=2)
    a = OnlineSVMR(C=1, sigma=1.0).partial_fit(X, y)
    b = OnlineASVMR(C=1, sigma=1.0).partial_fit(X, y)
    bayes = np.mean(syn.gauss_bayes_predict(Xt) == yt)
    acc_a = np.mean(a.predict(Xt) == yt)
    acc_b = np.mean(b.predict(Xt) == yt)
    assert acc_a > bayes - 0.03 and acc_b > bayes - 0.03
    assert b.n_queried_ < 0.6 * 1500


# ---------------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "bad",
    [
        dict(s=1.0),
        dict(s=float("nan")),
        dict(m=-1),
        dict(m=2.5),
        dict(tol=0),
        dict(eps=-1),
        dict(cache_mb=-1),
        dict(max_smo=0),
        dict(C=0),
        dict(shrinking="yes"),
        dict(cccp_tol=-0.1),
        dict(cccp_tol=float("inf")),
    ],
)
def test_bad_parameters(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        OnlineSVMR(**bad)


def test_max_cccp_must_be_at_least_one():
    """``max_cccp = 0`` would never run a CCCP round (``_optimize`` would only count a limit hit): it
    is refused like ``max_smo = 0``, and the lower bound 1 itself is accepted."""
    with pytest.raises(ValueError, match=r"max_cccp: 0 must be an integer >= 1"):
        OnlineSVMR(max_cccp=0)
    assert OnlineSVMR(max_cccp=1).max_cccp == 1


# ---------------------------------------------------------------------------- generators
def test_generators_deterministic_given_seed():
    for gen in (syn.checkerboard, syn.noisy_checkerboard, syn.gauss):
        X1, y1 = gen(500, seed=11)
        X2, y2 = gen(500, seed=11)
        X3, _ = gen(500, seed=12)
        np.testing.assert_array_equal(X1, X2)
        np.testing.assert_array_equal(y1, y2)
        assert not np.array_equal(X1, X3)
        assert X1.shape == (500, 2) and set(np.unique(y1)) == {-1.0, 1.0}


def test_checkerboard_labels_and_noise():
    X, y = syn.checkerboard(2000, seed=0)
    assert X.min() >= 0 and X.max() < 4
    cell = np.floor(X[:, 0]) + np.floor(X[:, 1])
    np.testing.assert_array_equal(y, np.where(cell % 2 == 0, 1.0, -1.0))
    Xn, yn = syn.noisy_checkerboard(2000, seed=0)
    np.testing.assert_array_equal(Xn, X)  # same points, 15 % of the classes switched
    assert np.sum(yn != y) == 300


def test_gauss_matches_haykin():
    X, y = syn.gauss(40000, seed=0)
    pos, neg = X[y > 0], X[y < 0]
    np.testing.assert_allclose(pos.mean(0), [0, 0], atol=0.03)
    np.testing.assert_allclose(neg.mean(0), [2, 0], atol=0.05)
    np.testing.assert_allclose(pos.var(0), [1, 1], rtol=0.05)
    np.testing.assert_allclose(neg.var(0), [4, 4], rtol=0.05)
    assert np.mean(syn.gauss_bayes_predict(X) == y) == pytest.approx(0.8151, abs=0.01)  # Haykin's 81.51 %
    with pytest.raises(ValueError, match="noise"):
        syn.checkerboard(10, noise=1.5)
    with pytest.raises(ValueError, match="n"):
        syn.gauss(-3)
