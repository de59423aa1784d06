"""DUOL: Double Updating Online Learning (Zhao, Hoi & Jin, JMLR 12:1587-1615, 2011; NIPS 2009).

A kernel classifier ``f(x) = sum_i gamma_i y_i k(x_i, x)`` learned online. On every margin error
(``l_t = max(0, 1 - y_t f(x_t)) > 0``, Algorithm 1 line 6) the example becomes a support vector; in
addition DUOL looks for an *auxiliary example* ``(x_b, y_b)`` among the existing support vectors:
one with margin error ``y_b f(x_b) <= 1`` (line 10) that conflicts most with the new one, i.e. with
the smallest ``w_ab = y_a y_b k(x_a, x_b)`` (lines 11-13). When ``w_ab <= -rho`` (line 19) both
weights are updated at once by maximising the dual increase, problem (1) of Lemma 1::

    max  h(g_a, d_b) = g_a l_a + d_b l_b - k_a/2 g_a^2 - k_b/2 d_b^2 - w_ab g_a d_b
    s.t. 0 <= g_a <= C,   -hat_g_b <= d_b <= C - hat_g_b

(``d_b`` = change of the auxiliary weight ``hat_g_b``), else a single PA-I step
``g_a = min(C, l_t / k(x_t, x_t))`` (line 28). The scores ``f^i = y_i f(x_i)`` of all support vectors
are tracked (lines 21-23, 29-31) so that the auxiliary search is O(n) with no kernel evaluation
beyond the row ``k(x_i, x_t)`` already computed for the prediction.

Variants (JMLR section 5.1 and 5.3), selected by the registered name:

``duol``
    the exact solution of problem (1), Proposition 2 (its four cases, tried in the paper's order);
``duol_appr``
    the approximate solution ``g_a = 1/(1-rho)``, ``g_b = hat_g_b + 1/(1-rho)`` (the strong-update
    optimum of Theorem 1), clipped to the box ``[0, C]`` as in the NIPS 2009 Algorithm 1
    (``g_t = min(C, 1/(1-rho))``, ``g_b = min(C, hat_g_b + 1/(1-rho))``), under the conditions that
    Theorem 1 is proved for (section 3.3): a double update only when the new example is misclassified,
    ``y_t f(x_t) <= 0``, with an auxiliary example that is misclassified too, ``f^i <= 0`` (both up
    to :data:`MARGIN_TOL`, so that the rounding of a score of 0 does not decide; the JMLR
    paper relaxes these to margin errors "in order to make more double updates", after Proposition 5,
    but the approximate step is the optimum only under Theorem 1's conditions). Every other margin
    error takes the single step ``min(C, l_t / k(x_t, x_t))`` (line 28). This reading reproduces JMLR
    Table 2's DUOL_appr row on sonar to every digit (41.010 +- 2.335 %, 162.25 SVs), and german and
    spambase within one sd (docs/BENCHMARKS.md, section 5); the other readings we tried did not;
``duol_iter``
    one pass of coordinate ascent on (1): first the new weight (``d_b = 0``), then the auxiliary
    weight given it (Shalev-Shwartz & Singer 2007);
``duol_rand``
    the auxiliary example drawn uniformly at random among the existing support vectors (seeded),
    weights from the exact optimum of (1) (which then need not satisfy Proposition 2's assumptions,
    so the general two-variable box solver is used); every update with a support vector to draw is
    a double update, so ``rho`` does not change what it learns (section 5.3 has no threshold);
``duol_nips``
    the algorithm as first published (NIPS 2009 Algorithm 1, section 4.1's rho = 0.2): a
    misclassified auxiliary example (``f^i <= 0``, strict ``<`` from ``w_min = 0``), the fixed steps
    of ``duol_appr`` and a single step ``min(C, 1)``.

Line numbers below are those of the JMLR paper's Algorithm 1 (its Figure 1) unless NIPS 2009 is
named.

Implementation: the support vectors, weights, labels and tracked scores live in preallocated arrays
that double when full; the Gram matrix of the support vectors is cached (for the auxiliary
example's kernel row) while it fits in ``cache_mb`` megabytes, else that row is recomputed; a pickle
leaves the cache out, and it is recomputed, bit for bit, when the restored model next learns. The whole
online loop (:meth:`progressive_predict`) is one numba function. When the first batch has enough
features (:func:`silkvision.backends.sparse.use_columns`: d >= 8, e.g. w7a, german, spambase), the
kernel row ``k(x_i, x_t)`` comes from a feature-major copy of the support vectors
(:mod:`silkvision.backends.sparse`; identical results on integer data, last-bit differences on
real-valued data). :func:`duol_reference` is a plain
Python version (recomputing every score from scratch) used by the tests.

Conventions (checked against the Hoi group's published MATLAB template for kernel online learners,
e.g. ``PA1_K_M.m`` / ``perceptron.m``, from which the DUOL code derives; the DUOL source itself is
not public): the prediction is ``sign(f)`` with ``sign(0) -> +1`` (``f >= 0`` predicts +1, also for
the empty first model), a mistake is a wrong prediction, an update happens when the hinge loss is
``> 0``, and the single step is ``min(C, l_t / k(x_t, x_t))``. An example with ``k(x_t, x_t) <= 0``
(``x_t = 0`` with a linear kernel, or a polynomial one with ``coef = 0``; then ``k(x_t, .) = 0``)
cannot be learned: it is predicted but skipped (no update, no support vector, no random draw), as in
PA; so every support vector has ``k(x_b, x_b) > 0``. Where the paper's Algorithm 1 is explicit we follow it: the
auxiliary example is searched over ``S_{t-1}`` with ``f^i <= 1`` (line 10, up to :data:`MARGIN_TOL`;
``duol_appr`` and ``duol_nips``: ``f^i <= 0``),
``w_min`` starts at infinity and ``<=`` keeps the *last* of equal ``w_ab`` (line 11; ties are common
on integer data such as german, where many squared distances are equal), and ``w_min <= -rho``
triggers the double update (line 19).

Reproducing JMLR Table 2 to the last digit is not possible without the authors' arithmetic: the
margin test ``f^i <= 1`` is met with equality by every support vector that a case-2/3/4 double update
or a sub-C single update has just put on the margin, so a run with the exact test depends on the
last bit of every summation. On german (stored orderings) 236 summation/update orders with the
exact test give 31.585 .. 32.180 %; the few that give 31.810 % (e.g. a naive NumPy loop with
``argmin`` and ``np.dot``, which gives 31.600 % when that one sum runs left to right instead:
``benchmarks/duol_variants.py``) miss the paper's standard deviation (1.090) and support-vector
count (656.3), i.e. they hit the mean by chance. With :data:`MARGIN_TOL` the result does not
depend on the summation order: german 31.755 ± 1.166 %, 658.0 SVs (paper 31.810 ± 1.090, 656.3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import check_positive, check_range, check_seed, grow_rows, grow_vec
from silkvision.backends.base import BinaryClassifier, check_binary_y
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register
from silkvision.backends.sparse import cols_append, cols_kernel_row, nonzeros, sqn_of, use_columns

__all__ = [
    "DUOL",
    "DUOLAppr",
    "DUOLIter",
    "DUOLNips",
    "DUOLRand",
    "solve_prop2",
    "solve_box_qp",
    "duol_reference",
]

EXACT, APPR, ITER, RAND, NIPS = 0, 1, 2, 3, 4

#: Tolerance of the auxiliary-example condition ``y_b f(x_b) <= 1`` (Algorithm 1 line 10). After a
#: double update of cases 2-4 of Proposition 2, or a single update below C, the updated support
#: vectors sit *exactly* on the margin ``y_i f(x_i) = 1`` in exact arithmetic; with rounding their
#: tracked score lands on either side of 1, which makes the run depend on the last bit of every
#: addition. Accepting ``f^i <= 1 + MARGIN_TOL`` keeps them eligible, as the exact algorithm does
#: (german's 20 stored runs then give 31.755 % under every summation order we tried; see the module notes).
MARGIN_TOL = 1e-9
_VARIANT_NAMES = {"exact": EXACT, "appr": APPR, "iter": ITER, "rand": RAND, "nips": NIPS}


# ----------------------------------------------------------------------------------------------
# the two-variable problem (1)
# ----------------------------------------------------------------------------------------------


@njit(cache=True)
def _h(ga, d, ka, kb, w, la, lb):
    return ga * la + d * lb - 0.5 * ka * ga * ga - 0.5 * kb * d * d - w * ga * d


@njit(cache=True)
def _clip(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@njit(cache=True)
def solve_box_qp(ka, kb, w, la, lb, C, gb_hat):
    """Exact maximiser of ``h`` (problem (1)) over the box, for any signs of ``w``, ``la``, ``lb``.

    ``h`` is concave (``ka kb >= w^2`` for a kernel), so the maximum is the interior stationary
    point when it lies in the box, else on an edge, where the 1-D optimum is the clipped one. All
    candidates are evaluated and the best is returned as ``(g_a, d_b)``.
    """
    lo = -gb_hat
    hi = C - gb_hat
    best_g = 0.0
    best_d = 0.0
    best = -np.inf
    det = ka * kb - w * w
    if det > 1e-12 * ka * kb:
        g = (kb * la - w * lb) / det
        d = (ka * lb - w * la) / det
        if 0.0 <= g <= C and lo <= d <= hi:
            return g, d
    for e in range(4):
        if e < 2:
            g = 0.0 if e == 0 else C
            d = _clip((lb - w * g) / kb, lo, hi)
        else:
            d = lo if e == 2 else hi
            g = _clip((la - w * d) / ka, 0.0, C)
        v = _h(g, d, ka, kb, w, la, lb)
        if v > best:
            best = v
            best_g = g
            best_d = d
    return best_g, best_d


@njit(cache=True)
def solve_prop2(ka, kb, w, la, lb, C, gb_hat):
    """Closed-form solution of problem (1), Proposition 2 (JMLR 2011), cases in the paper's order.

    Assumes ``la, lb >= 0``, ``ka, kb > 0`` and ``w <= 0``. Returns ``(g_a, d_b, case)`` with
    ``case`` in 1..4, or 0 when no case's conditions hold exactly (boundaries, ``ka kb = w^2``), in
    which case :func:`solve_box_qp` gives the optimum.
    """
    hi = C - gb_hat
    lo = -gb_hat
    # case 1: both weights at their upper bound
    if ka * C + w * hi - la < 0.0 and kb * hi + w * C - lb < 0.0:
        return C, hi, 1
    # case 2: g_a = C, d_b interior
    lam1 = (w * w * C - w * lb - ka * kb * C + kb * la) / kb
    d = (lb - w * C) / kb
    if lam1 > 0.0 and lo <= d <= hi:
        return C, d, 2
    # case 3: d_b at its upper bound, g_a interior
    g = (la - w * hi) / ka
    if 0.0 <= g <= C and lb - kb * hi - w * g > 0.0:
        return g, hi, 3
    # case 4: interior
    det = ka * kb - w * w
    if det != 0.0:
        g = (kb * la - w * lb) / det
        d = (ka * lb - w * la) / det
        if 0.0 <= g <= C and lo <= d <= hi:
            return g, d, 4
    g, d = solve_box_qp(ka, kb, w, la, lb, C, gb_hat)
    return g, d, 0


@njit(cache=True)
def _double_weights(variant, ka, kb, w, la, lb, C, gb_hat, rho):
    """(g_a, d_b) of a double update for the variants other than EXACT (which calls
    :func:`solve_prop2` itself, to count its fallback solves)."""
    if variant == APPR or variant == NIPS:
        s = 1.0 / (1.0 - rho)
        return min(C, s), min(C, gb_hat + s) - gb_hat
    if variant == ITER:
        g = _clip(la / ka, 0.0, C)
        d = _clip((lb - w * g) / kb, -gb_hat, C - gb_hat)
        return g, d
    return solve_box_qp(ka, kb, w, la, lb, C, gb_hat)


# ----------------------------------------------------------------------------------------------
# random numbers for duol_rand (splitmix64; the state is a uint64[1] owned by the estimator)
# ----------------------------------------------------------------------------------------------


@njit(cache=True)
def _rand_below(state, n):
    z = state[0] + np.uint64(0x9E3779B97F4A7C15)
    state[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(n))


def _seed_state(seed) -> np.ndarray:
    """Generator state for ``seed`` (an int >= 0; None: fresh entropy from the OS)."""
    s = np.random.SeedSequence(check_seed(seed, allow_none=True)).generate_state(1, dtype=np.uint64)
    return np.array(s, dtype=np.uint64)


# ----------------------------------------------------------------------------------------------
# numba core
# ----------------------------------------------------------------------------------------------

kval = kernel_eval  # the shared kernel (reassociable feature sum, SIMD)


@njit(cache=True)
def _gram_add(G, gram_on, gram_limit, krow, n, ka):
    """Append support vector ``n`` (kernel row ``krow[:n]``, ``k(x_n, x_n) = ka``) to the Gram
    cache ``G``, doubling its capacity; past ``gram_limit`` rows the cache is dropped for good.
    Returns ``(G, gram_on)``."""
    if not gram_on:
        return G, gram_on
    if n + 1 > G.shape[0]:
        if n + 1 > gram_limit:
            return np.zeros((1, 1)), False
        cap = min(max(2 * G.shape[0], n + 1, 8), gram_limit)
        G2 = np.zeros((cap, cap))
        for i in range(n):
            for j in range(n):
                G2[i, j] = G[i, j]
        G = G2
    for i in range(n):
        G[n, i] = krow[i]
        G[i, n] = krow[i]
    G[n, n] = ka
    return G, gram_on


@njit(cache=True)
def _aux_row(brow, G, gram_on, SV, b, n, krow, kind, sigma, degree, coef0):
    """``brow[i] = k(x_i, x_b)`` for the support vectors ``i <= n`` (``n``: the one just added,
    whose value is ``krow[b]``), from the Gram cache when it is on."""
    if gram_on:
        for i in range(n + 1):
            brow[i] = G[b, i]
    else:
        for i in range(n):
            brow[i] = kval(SV[i], SV[b], kind, sigma, degree, coef0)
        brow[n] = krow[b]


@njit(cache=True)
def _decision(SV, gam, ysv, n, x, kind, sigma, degree, coef0, krow):
    """f(x) = sum_i gam_i y_i k(x_i, x); fills ``krow[i] = k(x_i, x)``."""
    f = 0.0
    for i in range(n):
        k = kval(SV[i], x, kind, sigma, degree, coef0)
        krow[i] = k
        f += gam[i] * ysv[i] * k
    return f


@njit(cache=True)
def _duol_run(
    X,
    Y,
    SV,
    gam,
    ysv,
    fsv,
    krow,
    brow,
    G,
    n,
    gram_on,
    gram_limit,
    kind,
    sigma,
    degree,
    coef0,
    C,
    rho,
    variant,
    rng,
    out,
    counts,
    cols,
    XT,
    sqn,
):
    """Algorithm 1 over the rows of ``X``: ``out[t] = f_{t-1}(x_t)``, then learn ``(x_t, Y[t])``.

    Returns the (possibly re-allocated) state arrays, the new count ``n`` and the cache flag.
    ``counts`` accumulates [updates, double updates, strong double updates, fallback solves].
    With ``cols`` the kernel row comes from the feature-major copy ``XT``/``sqn`` of the support
    vectors (:mod:`silkvision.backends.sparse`, for sparse inputs), which is kept up to date.
    """
    idx = np.empty(X.shape[1], np.int64)
    val = np.empty(X.shape[1])
    for t in range(X.shape[0]):
        x = X[t]
        if krow.shape[0] < n + 1:
            krow = grow_vec(krow, 0, n + 1)
            brow = grow_vec(brow, 0, n + 1)
        if cols:
            nnz = nonzeros(x, idx, val)
            cols_kernel_row(
                XT, sqn, n, idx, val, nnz, sqn_of(val, nnz), kind, sigma, degree, coef0, krow, SV, x
            )
            f = 0.0
            for i in range(n):
                f += gam[i] * ysv[i] * krow[i]
        else:
            f = _decision(SV, gam, ysv, n, x, kind, sigma, degree, coef0, krow)
        out[t] = f
        yt = Y[t]
        lt = 1.0 - yt * f
        if lt <= 0.0:
            continue
        ka = kval(x, x, kind, sigma, degree, coef0)
        if ka <= 0.0:
            continue  # k(x, x) = 0 (x = 0, linear kernel): no step l_t / k(x, x); skipped as in PA
        # auxiliary example (lines 8-16)
        b = -1
        wmin = np.inf
        if variant == RAND:
            if n > 0:
                b = _rand_below(rng, n)
                wmin = ysv[b] * yt * krow[b]
        elif variant == NIPS:
            wmin = 0.0  # NIPS 2009 Algorithm 1 lines 8-11: a misclassified SV, strict <, w_min = 0
            for i in range(n):
                if fsv[i] <= 0.0:
                    wi = ysv[i] * yt * krow[i]
                    if wi < wmin:
                        wmin = wi
                        b = i
        elif variant != APPR or yt * f <= MARGIN_TOL:
            # a margin error f^i <= 1 (line 10); APPR: Theorem 1's conditions, a misclassified new
            # example and auxiliary (module notes), both up to MARGIN_TOL so that the rounding of a
            # score of exactly 0 does not decide
            limit = MARGIN_TOL if variant == APPR else 1.0 + MARGIN_TOL
            for i in range(n):
                if fsv[i] <= limit:
                    wi = ysv[i] * yt * krow[i]
                    if wi <= wmin:
                        wmin = wi
                        b = i
        # new support vector t (lines 17-18)
        if n + 1 > SV.shape[0]:
            SV = grow_rows(SV, n, n + 1)
            gam = grow_vec(gam, n, n + 1)
            ysv = grow_vec(ysv, n, n + 1)
            fsv = grow_vec(fsv, n, n + 1)
        SV[n, :] = x
        if cols:
            XT, sqn = cols_append(XT, sqn, n, x)
        gam[n] = 0.0
        ysv[n] = yt
        fsv[n] = yt * f
        krow[n] = ka
        G, gram_on = _gram_add(G, gram_on, gram_limit, krow, n, ka)
        counts[0] += 1
        if b >= 0 and (variant == RAND or wmin <= -rho):
            # double update (lines 19-26)
            _aux_row(brow, G, gram_on, SV, b, n, krow, kind, sigma, degree, coef0)
            kb = brow[b]  # k(x_b, x_b) > 0: examples with k(x, x) <= 0 never become support vectors
            gb_hat = gam[b]
            la = lt
            lb = 1.0 - fsv[b]
            if variant == EXACT:
                ga, d, case = solve_prop2(ka, kb, wmin, la, lb, C, gb_hat)
                if case == 0:
                    counts[3] += 1
            else:
                ga, d = _double_weights(variant, ka, kb, wmin, la, lb, C, gb_hat, rho)
            gam[n] = ga
            gam[b] = gb_hat + d
            yb = ysv[b]
            for i in range(n + 1):
                fsv[i] += ysv[i] * (ga * yt * krow[i] + d * yb * brow[i])
            counts[1] += 1
            # strong (the set M_d^s before Theorem 4): an auxiliary example proper, i.e. w_ab <= -rho
            # (not guaranteed for duol_rand) and y_b f(x_b) <= 0, with C >= hat_gamma_b + 1/(1-rho)
            if wmin <= -rho and lb >= 1.0 and C >= gb_hat + 1.0 / (1.0 - rho):
                counts[2] += 1
        else:
            # single update (lines 27-32; NIPS 2009 Algorithm 1: min(C, 1))
            if variant == NIPS:
                ga = min(C, 1.0)
            else:
                ga = min(C, lt / ka)
            gam[n] = ga
            for i in range(n + 1):
                fsv[i] += ysv[i] * ga * yt * krow[i]
        n += 1
    return SV, gam, ysv, fsv, krow, brow, G, n, gram_on, XT, sqn


@njit(cache=True)
def _gram_rebuild(SV, n, cap, cols, XT, sqn, kind, sigma, degree, coef0):
    """The ``(cap, cap)`` Gram cache of the first ``n`` support vectors, bit for bit as
    :func:`_duol_run` (and :func:`~silkvision.backends.mduol._mduol_run`, ``cols=False``) filled it:
    row ``m`` from the same kernel-row computation made when ``SV[m]`` was learned (the
    feature-major path over the first ``m`` columns of ``XT`` if ``cols``), the diagonal from
    ``k(x, x)``. Used to restore the cache after unpickling (:class:`GramCacheMixin`)."""
    G = np.zeros((cap, cap))
    idx = np.empty(SV.shape[1], np.int64)
    val = np.empty(SV.shape[1])
    krow = np.empty(max(n, 1))
    for m in range(n):
        x = SV[m]
        if cols:
            nnz = nonzeros(x, idx, val)
            cols_kernel_row(
                XT, sqn, m, idx, val, nnz, sqn_of(val, nnz), kind, sigma, degree, coef0, krow, SV, x
            )
        else:
            for i in range(m):
                krow[i] = kval(SV[i], x, kind, sigma, degree, coef0)
        for i in range(m):
            G[m, i] = krow[i]
            G[i, m] = krow[i]
        G[m, m] = kval(x, x, kind, sigma, degree, coef0)
    return G


# ----------------------------------------------------------------------------------------------
# estimators
# ----------------------------------------------------------------------------------------------


class GramCacheMixin:
    """Pickling without the Gram cache of the DUOL learners (binary and multiclass).

    The cache ``_G`` (up to ``cache_mb`` megabytes: 8 MB for 1000 support vectors) holds only kernel
    values of the stored support vectors, so :meth:`__getstate__` leaves it out and :meth:`_gram`
    recomputes it, with the same arithmetic, the first time a restored model learns again: a
    restored model continues exactly as the original would.
    """

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if state.get("_G") is not None and state.get("_gram_on"):
            state["_gram_cap"] = state["_G"].shape[0]
            state["_G"] = None
        return state

    def _gram(self) -> np.ndarray:
        """The Gram cache, rebuilt first if it was dropped by pickling."""
        if self._G is None:
            cols = bool(getattr(self, "_cols", False))
            XT, sqn = (self._XT, self._sqn) if cols else (np.zeros((1, 1)), np.zeros(1))
            self._G = _gram_rebuild(
                self._SV, self._n, self.__dict__.pop("_gram_cap"), cols, XT, sqn, *self._kernel.args
            )
        return self._G


class SupportMixin:
    """Model inspection shared by the DUOL learners (binary and multiclass).

    An update can leave a weight at exactly 0 (mostly ``duol_rand``: its auxiliary example's weight
    may drop to the lower bound), and such an example stays in the internal arrays (the
    tracked scores and the Gram cache are indexed by it). The attributes show only the support
    vectors with a non-zero weight, in the order they were added, so their lengths equal
    ``n_support_``.
    """

    @property
    def kernel_(self):
        """The validated :class:`~silkvision.backends.mercer.Kernel`."""
        return self._kernel

    def _nz(self) -> np.ndarray:
        """Internal indices of the support vectors with a non-zero weight."""
        return np.flatnonzero(self._gam[: self._n])

    @property
    def n_support_(self) -> int:
        """Number of support vectors (examples with a non-zero weight)."""
        return 0 if self._SV is None else int(np.count_nonzero(self._gam[: self._n]))

    @property
    def support_vectors_(self) -> np.ndarray:
        """The support vectors, shape ``(n_support_, d)``, in the order they were added."""
        return np.empty((0, self.n_features_ or 0)) if self._SV is None else self._SV[self._nz()]

    @property
    def weights_(self) -> np.ndarray:
        """The weights ``gamma_i`` in ``(0, C]`` of the support vectors (same order)."""
        return np.empty(0) if self._SV is None else self._gam[self._nz()]


def _check_common(C, rho, cache_mb):
    """``(C, rho, cache_mb)`` as floats: C > 0, rho in [0, 1), cache_mb >= 0 (all finite).

    Raises
    ------
    ValueError
        Naming the first bad parameter (also for values that are not numbers).
    """
    return (
        check_positive("C", C),
        check_range("rho", rho, 0, 1, hi_open=True),
        check_positive("cache_mb", cache_mb, allow_zero=True),
    )


class _DUOLBase(GramCacheMixin, SupportMixin, BinaryClassifier):
    _variant = EXACT

    def _init_common(self, kernel, sigma, degree, coef, C, rho, cache_mb):
        self._kernel = make_kernel(kernel, sigma, degree, coef)
        self.C, self.rho, self.cache_mb = _check_common(C, rho, cache_mb)
        self.kernel, self.sigma, self.degree, self.coef = kernel, sigma, degree, coef
        self._n = 0
        self._SV = None
        self._rng = _seed_state(getattr(self, "seed", 0))
        self._counts = np.zeros(4, dtype=np.int64)

    def _ensure_state(self, d, X=None):
        if self._SV is None:
            cap = 16
            self._SV = np.zeros((cap, d))
            self._gam = np.zeros(cap)
            self._ysv = np.zeros(cap)
            self._fsv = np.zeros(cap)
            self._krow = np.zeros(cap)
            self._brow = np.zeros(cap)
            self._gram_limit = int(min(np.sqrt(self.cache_mb * 1e6 / 8.0), 2.0**62))  # int64 for numba
            self._gram_on = self._gram_limit >= 1
            self._G = np.zeros((min(cap, max(self._gram_limit, 1)),) * 2)
            # feature-major copy of the support vectors when the first batch is sparse
            self._cols = X is not None and bool(use_columns(X))
            self._XT, self._sqn = (
                (np.zeros((d, cap)), np.zeros(cap)) if self._cols else (np.zeros((d, 1)), np.zeros(1))
            )

    def _run(self, X, Y):
        self._ensure_state(X.shape[1], X)
        out = np.empty(X.shape[0])
        (
            self._SV,
            self._gam,
            self._ysv,
            self._fsv,
            self._krow,
            self._brow,
            self._G,
            self._n,
            self._gram_on,
            self._XT,
            self._sqn,
        ) = _duol_run(
            X,
            Y,
            self._SV,
            self._gam,
            self._ysv,
            self._fsv,
            self._krow,
            self._brow,
            self._gram(),
            self._n,
            self._gram_on,
            self._gram_limit,
            *self._kernel.args,
            self.C,
            self.rho,
            self._variant,
            self._rng,
            out,
            self._counts,
            self._cols,
            self._XT,
            self._sqn,
        )
        return out

    # -- river-style API --------------------------------------------------------------------------
    def learn_one(self, x, y):
        """Predict-then-learn one example (Algorithm 1, one trial); ``y`` is -1 or +1."""
        x = self._check_one(x)
        yv = check_binary_y(y)
        if yv.shape != (1,):
            raise ValueError(f"y: expected one label, got shape {yv.shape}")
        self._check_kernel(x[None, :], "x")
        self._learned_features(x.shape[0])
        self._run(x[None, :], yv)
        return self

    def decision_function_one(self, x) -> float:
        """f(x) = sum_i gamma_i y_i k(x_i, x)."""
        x = self._check_one(x)
        if self._SV is None or self._n == 0:
            return 0.0
        return float(_decision(self._SV, self._gam, self._ysv, self._n, x, *self._kernel.args, self._krow))

    def _progressive(self, X, y):
        if len(X) == 0:
            return np.empty(0, dtype=np.int64)
        f = self._run(X, y)
        return np.where(f >= 0, 1, -1).astype(np.int64)

    # -- model inspection (see SupportMixin: only the support vectors with a non-zero weight) ----
    @property
    def dual_coef_(self) -> np.ndarray:
        """``gamma_i y_i`` of each support vector (same order as :attr:`support_vectors_`), so that
        ``f(x) = sum_i dual_coef_[i] k(support_vectors_[i], x)``."""
        if self._SV is None:
            return np.empty(0)
        nz = self._nz()
        return self._gam[nz] * self._ysv[nz]

    @property
    def scores_(self) -> np.ndarray:
        """Tracked ``f^i = y_i f(x_i)`` of the support vectors (same order)."""
        return np.empty(0) if self._SV is None else self._fsv[self._nz()]

    @property
    def n_updates_(self) -> int:
        return int(self._counts[0])

    @property
    def n_double_updates_(self) -> int:
        return int(self._counts[1])

    @property
    def n_strong_updates_(self) -> int:
        """Double updates with an auxiliary example proper (``w_ab <= -rho``, which ``duol_rand``'s
        random partner need not meet), ``y_b f(x_b) <= 0`` and ``C >= hat_gamma_b + 1/(1-rho)``: the
        set M_d^s defined before Theorem 4."""
        return int(self._counts[2])


@register("duol", "DUOL, double updating online learning, exact solution (JMLR 2011 Prop. 2)")
class DUOL(_DUOLBase):
    """Double Updating Online Learning with the exact double update (Proposition 2).

    Parameters
    ----------
    kernel : {"rbf", "poly", "linear"}, default "rbf"
    sigma : float, default 8.0
        Gaussian width: k(x, y) = exp(-||x - y||^2 / (2 sigma^2)) (the paper's setting).
    degree, coef : polynomial kernel parameters.
    C : float, default 5.0
        Upper bound of every weight (the paper's binary setting).
    rho : float in [0, 1), default 0.0
        Double-update threshold: an auxiliary example needs ``y_a y_b k(x_a, x_b) <= -rho``.
    cache_mb : float, default 256
        Memory allowed for the Gram matrix of the support vectors (0 disables the cache; results
        are identical either way, only the speed changes). Any finite number >= 0; a value larger
        than the memory the Gram matrix needs puts no limit on it.

    Examples
    --------
    >>> import numpy as np
    >>> from silkvision.backends import create
    >>> clf = create("duol", sigma=1.0)
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.1, 0.0], [0.9, 1.0]])
    >>> clf.progressive_predict(X, [-1, 1, -1, 1]).tolist()
    [1, -1, -1, 1]
    """

    _variant = EXACT

    def __init__(self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=5.0, rho=0.0, cache_mb=256.0):
        self._init_common(kernel, sigma, degree, coef, C, rho, cache_mb)


@register("duol_appr", "DUOL with the approximate double update 1/(1-rho) (JMLR 2011 sec. 5.1)")
class DUOLAppr(_DUOLBase):
    """DUOL_appr: the approximate solution of problem (1), weights ``min(C, 1/(1-rho))`` and
    ``min(C, hat_gamma_b + 1/(1-rho))`` (Theorem 1's optimum), used where Theorem 1 holds: the new
    example misclassified (``y_t f(x_t) <= 0``) and the auxiliary example a misclassified support
    vector (``f^i <= 0``, section 3.3's condition (I)) with ``w_ab <= -rho``, the smallest ``w_ab``
    (last of equal, as Algorithm 1 line 11). Every other margin error takes Algorithm 1's single
    step ``min(C, l_t / k(x_t, x_t))`` (line 28). See the module notes for why this reading.

    Parameters
    ----------
    kernel, sigma, degree, coef, C, rho, cache_mb : as :class:`DUOL`.
    """

    _variant = APPR

    def __init__(self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=5.0, rho=0.0, cache_mb=256.0):
        self._init_common(kernel, sigma, degree, coef, C, rho, cache_mb)


@register("duol_nips", "DUOL as first published: fixed steps, misclassified auxiliary, rho = 0.2 (NIPS 2009)")
class DUOLNips(_DUOLBase):
    """DUOL exactly as the NIPS 2009 paper's Algorithm 1 (Figure 1) and experiments (section 4.1).

    Differences from :class:`DUOL` (JMLR 2011 Algorithm 1):

    - the auxiliary example must be *misclassified*, ``f^i <= 0`` (line 10), with ``w_min`` starting
      at 0 and a strict ``<`` (lines 8, 11): the first of equal ``w_ab``, and only ``w_ab < 0``;
    - a double update (``w_min <= -rho``, line 19) sets ``gamma_t = min(C, 1/(1-rho))`` and
      ``gamma_b = min(C, hat_gamma_b + 1/(1-rho))`` (lines 20-21, Theorem 1's optimum);
    - a single update sets ``gamma_t = min(C, 1)`` (the branch "no auxiliary example found", after
      the double update's lines 20-21);
    - the default ``rho`` is the paper's 0.2 (section 4.1: "we fix rho to be 0.2 for all cases").

    It reproduces the NIPS paper's Table 3 on spambase (docs/BENCHMARKS.md, section 5).

    Parameters
    ----------
    kernel, sigma, degree, coef, C, rho, cache_mb : as :class:`DUOL` (``rho`` defaults to 0.2).
    """

    _variant = NIPS

    def __init__(self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=5.0, rho=0.2, cache_mb=256.0):
        self._init_common(kernel, sigma, degree, coef, C, rho, cache_mb)


@register("duol_iter", "DUOL with the iterative (coordinate-ascent) double update (JMLR 2011 sec. 5.1)")
class DUOLIter(_DUOLBase):
    """DUOL_iter: one pass of coordinate ascent on problem (1), new weight first.

    Parameters
    ----------
    kernel, sigma, degree, coef, C, rho, cache_mb : as :class:`DUOL`.
    """

    _variant = ITER

    def __init__(self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=5.0, rho=0.0, cache_mb=256.0):
        self._init_common(kernel, sigma, degree, coef, C, rho, cache_mb)


@register("duol_rand", "DUOL with a random auxiliary example, exact weights (JMLR 2011 sec. 5.3)")
class DUOLRand(_DUOLBase):
    """DUOL_rand: the auxiliary example is a uniformly random existing support vector; the weights
    solve problem (1) exactly.

    Parameters
    ----------
    seed : int >= 0 or None, default 0
        Seed of the generator that draws the auxiliary example: runs with the same integer seed are
        identical. None draws fresh entropy from the operating system
        (:class:`numpy.random.SeedSequence`), so every model created with ``seed=None`` (also by
        :meth:`clone`) makes different draws.
    rho : float in [0, 1), default 0.0
        Does not change what is learned: the random auxiliary example is always used (JMLR
        section 5.3 sets no threshold). It only enters the test of ``n_strong_updates_``
        (``y_a y_b k(x_a, x_b) <= -rho``, among others).
    kernel, sigma, degree, coef, C, cache_mb
        As :class:`DUOL`.
    """

    _variant = RAND

    def __init__(self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=5.0, rho=0.0, cache_mb=256.0, seed=0):
        check_seed(seed, allow_none=True)
        self.seed = seed
        self._init_common(kernel, sigma, degree, coef, C, rho, cache_mb)


# ----------------------------------------------------------------------------------------------
# plain Python reference (recomputes every score; for the tests)
# ----------------------------------------------------------------------------------------------


def duol_reference(X, y, kernel, C=5.0, rho=0.0, variant="exact", seed=0, counts=None):
    """Algorithm 1 in plain Python/NumPy, recomputing ``y_i f(x_i)`` from scratch at every trial.

    Returns ``(f_values, support_indices, weights)``: the scores ``f_{t-1}(x_t)``, the index in
    ``X`` of each support vector and its weight. ``variant`` is "exact", "appr", "iter", "rand" or
    "nips"; "rand" draws from the same generator as :class:`DUOLRand` (same seed, same stream).
    ``counts``, a list of three zeros if given, receives the numbers of updates, double updates and
    strong double updates (as ``n_updates_``, ``n_double_updates_``, ``n_strong_updates_``).
    """
    v = _VARIANT_NAMES[variant]
    X = np.asarray(X, np.float64)
    y = np.asarray(y, np.float64)
    k = kernel
    S: list[int] = []
    gam: list[float] = []
    rng = _seed_state(seed)
    fvals = np.empty(len(X))

    def f_of(z):
        return sum(g * y[j] * k(X[j], z) for j, g in zip(S, gam))

    for t in range(len(X)):
        f = f_of(X[t])
        fvals[t] = f
        lt = max(0.0, 1.0 - y[t] * f)
        ka = k(X[t], X[t])
        if lt <= 0 or ka <= 0:
            continue
        b, wmin = -1, np.inf
        if v == RAND:
            if S:
                b = int(_rand_below(rng, len(S)))
                wmin = y[S[b]] * y[t] * k(X[S[b]], X[t])
        elif v == NIPS:
            wmin = 0.0
            for i, j in enumerate(S):
                if y[j] * f_of(X[j]) <= 0.0:
                    w = y[j] * y[t] * k(X[j], X[t])
                    if w < wmin:
                        wmin, b = w, i
        elif v == APPR:
            if y[t] * f <= MARGIN_TOL:  # Theorem 1: a misclassified new example ...
                for i, j in enumerate(S):
                    if y[j] * f_of(X[j]) <= MARGIN_TOL:  # ... and auxiliary
                        w = y[j] * y[t] * k(X[j], X[t])
                        if w <= wmin:
                            wmin, b = w, i
        else:
            for i, j in enumerate(S):
                if y[j] * f_of(X[j]) <= 1.0 + MARGIN_TOL:
                    w = y[j] * y[t] * k(X[j], X[t])
                    if w <= wmin:
                        wmin, b = w, i
        if b >= 0 and (v == RAND or wmin <= -rho):
            jb = S[b]
            kb = k(X[jb], X[jb])
            lb = 1.0 - y[jb] * f_of(X[jb])
            if counts is not None:
                counts[1] += 1
                counts[2] += int(wmin <= -rho and lb >= 1.0 and C >= gam[b] + 1.0 / (1.0 - rho))
            # the variants' weights written out again here, not shared with the learner (only
            # Proposition 2 and RAND's box QP are, and tests check those two against brute force)
            if v == EXACT:
                ga, d, _ = solve_prop2(ka, kb, wmin, lt, lb, C, gam[b])
            elif v in (APPR, NIPS):  # JMLR sec. 5.1: steps 1 / (1 - rho)
                ga = min(C, 1.0 / (1.0 - rho))
                d = min(C, gam[b] + 1.0 / (1.0 - rho)) - gam[b]
            elif v == ITER:  # one coordinate step each, in the box
                ga = min(max(lt / ka, 0.0), C)
                d = min(max((lb - wmin * ga) / kb, -gam[b]), C - gam[b])
            else:
                ga, d = solve_box_qp(ka, kb, wmin, lt, lb, C, gam[b])
            gam[b] += d
        else:
            ga = min(C, 1.0) if v == NIPS else min(C, lt / ka)
        if counts is not None:
            counts[0] += 1
        S.append(t)
        gam.append(ga)
    return fvals, np.array(S, dtype=np.int64), np.array(gam)
