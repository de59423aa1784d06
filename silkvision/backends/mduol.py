"""M-DUOL: multiclass Double Updating Online Learning (Zhao, Hoi & Jin, JMLR 2011, section 4).

Multi-prototype classifier ``f_c(x) = sum_i gamma_i sigma(c, i) k(x_i, x)`` for classes ``c = 0..K-1``,
where each support vector ``i`` carries the pair ``(r_i, s_i)`` fixed when it was added: ``r_i`` its
true class and ``s_i`` the highest-scoring wrong class at that time (equation (2)), i.e.
``H(Y_i) = e_{r_i} - e_{s_i}``. On every margin error ``l_t = [1 - (f_{r_t}(x_t) - f_{s_t}(x_t))]_+ > 0``
(Algorithm 2 line 6) the example becomes a support vector; an *auxiliary example* ``b`` is sought
among the support vectors with margin error ``f^i = H(Y_i) . f(x_i) <= 1`` (line 10), minimising
``w_tb = (H(Y_t) . H(Y_b)) k(x_t, x_b)`` (lines 11-13). If ``w_min <= -2 rho`` (line 19) both weights
solve problem (5) (Proposition 5), otherwise ``gamma_t = min(C, l_t / (2 k(x_t, x_t)))`` (line 28).

Problem (5) is problem (1) of the binary case with ``k_a, k_b`` replaced by ``2 k_a, 2 k_b``
(Proposition 5 vs. Proposition 2), so :func:`silkvision.backends.duol.solve_prop2` is reused.
``H(Y_a) . H(Y_b) = [r_a=r_b] - [r_a=s_b] - [s_a=r_b] + [s_a=s_b]`` (Appendix B).

Variants. JMLR section 5.5 names three solvers of problem (5), "M-DUOL_appr", "M-DUOL" and
"M-DUOL_iter", only as "similar to the experiments of binary classification" (the DUOL_appr / DUOL /
DUOL_iter of section 5.1), without their multiclass steps; Table 4 only reports their results. Ours
(all three also in :func:`mduol_reference`, selected by ``variant``):

``mduol``
    the exact solution of (5), Proposition 5;
``mduol_appr``
    ``gamma_t = min(C, v)``, ``gamma_b = min(C, hat_gamma_b + v)`` with ``v = 1/(2(1-rho))``. The paper
    gives no step for M-DUOL_appr; ``v`` is our derivation from Theorem 5 (the multiclass analogue of
    DUOL_appr's ``1/(1-rho)``, the point of Theorem 1): with ``k <= 1``, ``w_ab <= -2 rho`` and
    ``l_t, l_b >= 1``, the objective of (5) at ``(v, v)`` is at least ``2v - 2(1-rho)v^2``, whose
    maximiser ``v = 1/(2(1-rho))`` gives Theorem 5's ``Delta >= 1/(2(1-rho))`` and needs its condition
    ``C >= hat_gamma_b + 1/(2(1-rho))``. As for ``duol_appr`` (see :mod:`silkvision.backends.duol`),
    the step is taken only where that bound holds: a misclassified new example (margin
    ``f_r - f_s <= 0``, i.e. ``l_t >= 1``) and a misclassified auxiliary (``f^i <= 0``, the first of
    equal ``w``, as line 11), both tests up to :data:`~silkvision.backends.duol.MARGIN_TOL`; every
    other margin error takes the single step of line 28. On dna this
    is within one sd of Table 4's row on mistakes and SVs; on vehicle, segment and satimage (more
    than 3 classes) the SV counts are close but we make fewer mistakes than the paper;
``mduol_iter``
    one pass of coordinate ascent on (5), new weight first (as DUOL_iter):
    ``gamma_t = clip(l_t / (2 k_t), 0, C)``, then ``d_b = clip((l_b - w_ab gamma_t) / (2 k_b),
    -hat_gamma_b, C - hat_gamma_b)``.

Classes ``c = 0..K-1`` are the class indices when ``n_classes`` is given (labels ``0..n_classes-1``),
else the user's labels in the order they first arrive (:class:`~silkvision.backends.base.MultiClassifier`).
The prediction is ``argmax_c f_c(x)`` (lowest index on ties). An example with ``k(x, x) = 0`` (a zero
vector under the linear kernel) is predicted but not learned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import check_n_classes, grow_rows, grow_vec
from silkvision.backends.base import MultiClassifier
from silkvision.backends.duol import (
    APPR,
    EXACT,
    ITER,
    MARGIN_TOL,
    GramCacheMixin,
    SupportMixin,
    _aux_row,
    _check_common,
    _clip,
    _gram_add,
    kval,
    solve_prop2,
)
from silkvision.backends.mercer import make_kernel
from silkvision.backends.registry import register

__all__ = ["MDUOL", "MDUOLAppr", "MDUOLIter", "mduol_reference"]


@njit(cache=True)
def _hh(ra, sa, rb, sb):
    """H(Y_a) . H(Y_b) for single-label examples (Appendix B)."""
    v = 0
    if ra == rb:
        v += 1
    if ra == sb:
        v -= 1
    if sa == rb:
        v -= 1
    if sa == sb:
        v += 1
    return v


@njit(cache=True)
def _scores(SV, gam, rsv, ssv, n, x, kind, sigma, degree, coef0, krow, sc):
    """sc[c] = f_c(x); fills krow[i] = k(x_i, x)."""
    sc[:] = 0.0
    for i in range(n):
        k = kval(SV[i], x, kind, sigma, degree, coef0)
        krow[i] = k
        g = gam[i] * k
        sc[rsv[i]] += g
        sc[ssv[i]] -= g
    return sc


@njit(cache=True)
def _mduol_run(
    X,
    Y,
    K,
    SV,
    gam,
    rsv,
    ssv,
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
    out,
    counts,
):
    """Algorithm 2 over the rows of ``X``: ``out[t]`` = predicted class, then learn ``(x_t, Y[t])``."""
    sc = np.zeros(max(K, 1))
    for t in range(X.shape[0]):
        x = X[t]
        yt = Y[t]
        if krow.shape[0] < n + 1:
            krow = grow_vec(krow, 0, n + 1)
            brow = grow_vec(brow, 0, n + 1)
        _scores(SV, gam, rsv, ssv, n, x, kind, sigma, degree, coef0, krow, sc)
        best = 0
        for c in range(1, K):
            if sc[c] > sc[best]:
                best = c
        out[t] = best
        if yt + 1 > K:  # a new class: its score is 0 for every x
            K = yt + 1
            sc2 = np.zeros(K)
            sc2[: sc.shape[0]] = sc
            sc = sc2
        if K < 2:
            continue
        r = yt
        s = -1
        for c in range(K):
            if c != r and (s < 0 or sc[c] > sc[s]):
                s = c
        lt = 1.0 - (sc[r] - sc[s])
        if lt <= 0.0:
            continue
        b = -1
        wmin = np.inf
        if variant != APPR or sc[r] - sc[s] <= MARGIN_TOL:
            # a margin error f^i <= 1 (line 10); APPR: Theorem 5's conditions, a misclassified new
            # example and auxiliary (module notes), margins <= 0 up to MARGIN_TOL
            limit = MARGIN_TOL if variant == APPR else 1.0 + MARGIN_TOL
            for i in range(n):
                if fsv[i] <= limit:
                    wi = _hh(r, s, rsv[i], ssv[i]) * krow[i]
                    if wi < wmin:
                        wmin = wi
                        b = i
        ka = kval(x, x, kind, sigma, degree, coef0)
        if ka <= 0.0:  # k(x, x) = 0 (a zero vector, linear kernel): nothing can be learned from x
            continue
        if n + 1 > SV.shape[0]:
            SV = grow_rows(SV, n, n + 1)
            gam = grow_vec(gam, n, n + 1)
            rsv = grow_vec(rsv, n, n + 1)
            ssv = grow_vec(ssv, n, n + 1)
            fsv = grow_vec(fsv, n, n + 1)
        SV[n, :] = x
        gam[n] = 0.0
        rsv[n] = r
        ssv[n] = s
        fsv[n] = sc[r] - sc[s]
        krow[n] = ka
        G, gram_on = _gram_add(G, gram_on, gram_limit, krow, n, ka)
        counts[0] += 1
        if b >= 0 and wmin <= -2.0 * rho:
            _aux_row(brow, G, gram_on, SV, b, n, krow, kind, sigma, degree, coef0)
            kb = brow[b]
            gb_hat = gam[b]
            lb = 1.0 - fsv[b]
            if variant == EXACT:
                ga, d, case = solve_prop2(2.0 * ka, 2.0 * kb, wmin, lt, lb, C, gb_hat)
                if case == 0:
                    counts[3] += 1
            elif variant == APPR:
                v = 1.0 / (2.0 * (1.0 - rho))
                ga = min(C, v)
                d = min(C, gb_hat + v) - gb_hat
            else:
                ga = _clip(lt / (2.0 * ka), 0.0, C)
                d = _clip((lb - wmin * ga) / (2.0 * kb), -gb_hat, C - gb_hat)
            gam[n] = ga
            gam[b] = gb_hat + d
            rb = rsv[b]
            sb = ssv[b]
            for i in range(n + 1):
                fsv[i] += ga * _hh(r, s, rsv[i], ssv[i]) * krow[i] + d * _hh(rb, sb, rsv[i], ssv[i]) * brow[i]
            counts[1] += 1
            if lb >= 1.0 and C >= gb_hat + 1.0 / (2.0 * (1.0 - rho)):  # strong (Theorem 5)
                counts[2] += 1
        else:
            ga = min(C, lt / (2.0 * ka))
            gam[n] = ga
            for i in range(n + 1):
                fsv[i] += ga * _hh(r, s, rsv[i], ssv[i]) * krow[i]
        n += 1
    return SV, gam, rsv, ssv, fsv, krow, brow, G, n, gram_on, K


class _MDUOLBase(GramCacheMixin, SupportMixin, MultiClassifier):
    _variant = EXACT

    def __init__(
        self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=10.0, rho=0.0, n_classes=None, cache_mb=256.0
    ):
        self._kernel = make_kernel(kernel, sigma, degree, coef)
        _check_common(C, rho, cache_mb)
        n_classes = check_n_classes(n_classes)
        self.kernel, self.sigma, self.degree, self.coef = kernel, sigma, degree, coef
        self.C, self.rho, self.cache_mb = float(C), float(rho), float(cache_mb)
        self.n_classes = n_classes
        self._K = 0 if n_classes is None else int(n_classes)
        self._n = 0
        self._SV = None
        self._counts = np.zeros(4, dtype=np.int64)

    def _ensure_state(self, d):
        if self._SV is None:
            cap = 16
            self._SV = np.zeros((cap, d))
            self._gam = np.zeros(cap)
            self._rsv = np.zeros(cap, dtype=np.int64)
            self._ssv = np.zeros(cap, dtype=np.int64)
            self._fsv = np.zeros(cap)
            self._krow = np.zeros(cap)
            self._brow = np.zeros(cap)
            self._gram_limit = int(min(np.sqrt(self.cache_mb * 1e6 / 8.0), 2.0**62))  # int64 for numba
            self._gram_on = self._gram_limit >= 1
            self._G = np.zeros((min(cap, max(self._gram_limit, 1)),) * 2)

    def _run(self, X, Y):
        self._ensure_state(X.shape[1])
        out = np.empty(X.shape[0], dtype=np.int64)
        (
            self._SV,
            self._gam,
            self._rsv,
            self._ssv,
            self._fsv,
            self._krow,
            self._brow,
            self._G,
            self._n,
            self._gram_on,
            self._K,
        ) = _mduol_run(
            X,
            Y,
            self._K,
            self._SV,
            self._gam,
            self._rsv,
            self._ssv,
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
            out,
            self._counts,
        )
        return out

    def decision_function_one(self, x) -> np.ndarray:
        """The class scores ``f_c(x)``, in the order of ``classes_`` (empty before any label)."""
        x = self._check_one(x)
        sc = np.zeros(self._K)
        if self._SV is None or self._n == 0:
            return sc
        return _scores(
            self._SV, self._gam, self._rsv, self._ssv, self._n, x, *self._kernel.args, self._krow, sc
        )

    def _progressive(self, X, y):
        if len(X) == 0:
            return np.empty(0, dtype=np.int64)
        return self._run(X, y)

    # -- model inspection (see SupportMixin: only the support vectors with a non-zero weight) ----
    @property
    def n_classes_(self) -> int:
        """Number of classes the scores cover: ``n_classes`` if given, else the number of labels seen."""
        return int(self._K)

    @property
    def dual_coef_(self) -> np.ndarray:
        """Per-class coefficients ``gamma_i (e_{r_i} - e_{s_i})``, shape ``(n_support_, n_classes_)``,
        columns in the order of ``classes_``: ``f_c(x) = sum_i dual_coef_[i, c] k(support_vectors_[i], x)``."""
        K = int(self._K)
        if self._SV is None:
            return np.zeros((0, K))
        nz = self._nz()
        A = np.zeros((len(nz), K))
        rows = np.arange(len(nz))
        A[rows, self._rsv[nz]] += self._gam[nz]
        A[rows, self._ssv[nz]] -= self._gam[nz]
        return A

    @property
    def pairs_(self) -> np.ndarray:
        """``(r_i, s_i)`` (class codes, indices into ``classes_``) of each support vector, shape (n, 2)."""
        if self._SV is None:
            return np.empty((0, 2), dtype=np.int64)
        nz = self._nz()
        return np.column_stack([self._rsv[nz], self._ssv[nz]])

    @property
    def scores_(self) -> np.ndarray:
        """Tracked margins ``f^i = f_{r_i}(x_i) - f_{s_i}(x_i)`` of the support vectors (same order)."""
        return np.empty(0) if self._SV is None else self._fsv[self._nz()]

    @property
    def n_double_updates_(self) -> int:
        return int(self._counts[1])


@register("mduol", "M-DUOL, multiclass double updating online learning, exact (JMLR 2011 Prop. 5)")
class MDUOL(_MDUOLBase):
    """Multiclass DUOL with the exact double update (Proposition 5, Algorithm 2).

    Parameters
    ----------
    kernel, sigma, degree, coef : kernel (default Gaussian, sigma = 8 as in the paper).
    C : float, default 10.0
        Upper bound of every weight (the paper's multiclass setting).
    rho : float in [0, 1), default 0.0
        An auxiliary example needs ``(H(Y_t) . H(Y_b)) k(x_t, x_b) <= -2 rho``.
    n_classes : int, optional
        Number of classes if known in advance (else it grows with the labels seen).
    cache_mb : float, default 256
        Memory for the cached Gram matrix of the support vectors (speed only).
    """

    _variant = EXACT

    def __init__(
        self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=10.0, rho=0.0, n_classes=None, cache_mb=256.0
    ):
        super().__init__(kernel, sigma, degree, coef, C, rho, n_classes, cache_mb)


@register(
    "mduol_appr",
    "M-DUOL with the approximate double update 1/(2(1-rho)) (JMLR 2011 sec. 5.5; step from Thm 5)",
)
class MDUOLAppr(_MDUOLBase):
    """M-DUOL_appr (JMLR section 5.5): ``gamma_t = min(C, 1/(2(1-rho)))``,
    ``gamma_b = min(C, hat_gamma_b + 1/(2(1-rho)))`` for a misclassified new example with a
    misclassified auxiliary (Theorem 5's conditions), else the single step of line 28. The paper
    states no step for this variant; the value is derived from Theorem 5 (see the module notes).

    Parameters
    ----------
    kernel, sigma, degree, coef, C, rho, n_classes, cache_mb : as :class:`MDUOL`.
    """

    _variant = APPR

    def __init__(
        self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=10.0, rho=0.0, n_classes=None, cache_mb=256.0
    ):
        super().__init__(kernel, sigma, degree, coef, C, rho, n_classes, cache_mb)


@register("mduol_iter", "M-DUOL with the iterative (coordinate-ascent) double update (JMLR 2011 sec. 5.5)")
class MDUOLIter(_MDUOLBase):
    """M-DUOL_iter (JMLR section 5.5): one pass of coordinate ascent on problem (5), first
    ``gamma_t = clip(l_t / (2 k_t), 0, C)``, then ``d_b = clip((l_b - w_ab gamma_t) / (2 k_b), -hat_gamma_b,
    C - hat_gamma_b)``.

    Parameters
    ----------
    kernel, sigma, degree, coef, C, rho, n_classes, cache_mb : as :class:`MDUOL`.
    """

    _variant = ITER

    def __init__(
        self, kernel="rbf", sigma=8.0, degree=2, coef=1.0, C=10.0, rho=0.0, n_classes=None, cache_mb=256.0
    ):
        super().__init__(kernel, sigma, degree, coef, C, rho, n_classes, cache_mb)


def mduol_reference(X, y, kernel, C=10.0, rho=0.0, n_classes=None, variant="exact"):
    """Algorithm 2 in plain Python, recomputing every score from scratch (for the tests).

    ``variant`` selects the double update as the registered learners do: ``"exact"`` (Proposition 5,
    as :class:`MDUOL`), ``"appr"`` (``gamma_t = min(C, v)``, ``gamma_b = min(C, hat_gamma_b + v)`` with
    ``v = 1/(2(1-rho))``, only for a misclassified example and auxiliary, as :class:`MDUOLAppr`) or ``"iter"`` (``gamma_t = clip(l_t / (2 k_t), 0, C)``,
    then ``d_b = clip((l_b - w_min gamma_t) / (2 k_b), -hat_gamma_b, C - hat_gamma_b)``, as
    :class:`MDUOLIter`). The single update is ``min(C, l_t / (2 k(x_t, x_t)))`` for every variant.

    Returns ``(predictions, support_indices, weights, pairs)``: every example that was added as a
    support vector, in order, including those whose weight a later double update set to 0 (the
    learners' ``weights_`` / ``pairs_`` leave those out).
    """
    if variant not in ("exact", "appr", "iter"):
        raise ValueError(f"variant must be 'exact', 'appr' or 'iter', not {variant!r}")
    X = np.asarray(X, np.float64)
    y = np.asarray(y, np.int64)
    K = 0 if n_classes is None else int(n_classes)
    S: list[int] = []
    gam: list[float] = []
    pairs: list[tuple[int, int]] = []
    preds = np.empty(len(X), dtype=np.int64)

    def scores(z):
        sc = np.zeros(max(K, 1))
        for j, g, (r, s) in zip(S, gam, pairs):
            k = kernel(X[j], z)
            sc[r] += g * k
            sc[s] -= g * k
        return sc

    def hh(a, b):
        return (a[0] == b[0]) - (a[0] == b[1]) - (a[1] == b[0]) + (a[1] == b[1])

    for t in range(len(X)):
        sc = scores(X[t])
        preds[t] = int(np.argmax(sc[: max(K, 1)]))
        K = max(K, int(y[t]) + 1)
        sc = np.concatenate([sc, np.zeros(max(0, K - len(sc)))])[:K]
        if K < 2:
            continue
        r = int(y[t])
        s = max((c for c in range(K) if c != r), key=lambda c: (sc[c], -c))
        lt = 1.0 - (sc[r] - sc[s])
        if lt <= 0:
            continue
        b, wmin = -1, np.inf
        # the auxiliary: a margin error (line 10); appr: Theorem 5's misclassified new example and
        # auxiliary
        limit = MARGIN_TOL if variant == "appr" else 1.0 + MARGIN_TOL
        searched = S if variant != "appr" or sc[r] - sc[s] <= MARGIN_TOL else []
        for i, j in enumerate(searched):
            sj = scores(X[j])
            sj = np.concatenate([sj, np.zeros(max(0, K - len(sj)))])
            if sj[pairs[i][0]] - sj[pairs[i][1]] <= limit:
                w = hh((r, s), pairs[i]) * kernel(X[t], X[j])
                if w < wmin:
                    wmin, b = w, i
        ka = kernel(X[t], X[t])
        if ka <= 0:  # k(x_t, .) = 0: nothing to learn (as the learners)
            continue
        if b >= 0 and wmin <= -2 * rho:
            jb = S[b]
            sb = scores(X[jb])
            sb = np.concatenate([sb, np.zeros(max(0, K - len(sb)))])
            lb = 1.0 - (sb[pairs[b][0]] - sb[pairs[b][1]])
            kb = kernel(X[jb], X[jb])
            if variant == "exact":
                ga, d, _ = solve_prop2(2 * ka, 2 * kb, wmin, lt, lb, C, gam[b])
            elif variant == "appr":
                v = 1.0 / (2.0 * (1.0 - rho))
                ga = min(C, v)
                d = min(C, gam[b] + v) - gam[b]
            else:  # coordinate ascent on (5): the new weight with d_b = 0, then d_b given it
                ga = min(max(lt / (2 * ka), 0.0), C)
                d = min(max((lb - wmin * ga) / (2 * kb), -gam[b]), C - gam[b])
            gam[b] += d
        else:
            ga = min(C, lt / (2 * ka))
        S.append(t)
        gam.append(ga)
        pairs.append((r, s))
    return preds, np.array(S, dtype=np.int64), np.array(gam), np.array(pairs, dtype=np.int64).reshape(-1, 2)
