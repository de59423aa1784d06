"""Numba core of OnlineSVM^R / OnlineASVM^R (Wang & Vucetic, ICDM 2009, Algorithms 1-3).

The per-example loop :func:`_process` (SMO steps of eqs. 13-15, CCCP re-assignment with its dead
band, removal step of Algorithm 2, active queries of Algorithm 3), the LRU row cache and the batch
decision function. The estimators and the plain NumPy reference that the tests check these
kernels against are in :mod:`silkvision.backends.ramp_svm`, whose module docstring describes the
algorithm.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from silkvision.backends.mercer import kernel_eval

# META slots (int64 counters shared with the numba code)
_HW, _NACT, _NFREE, _CLOCK, _NSEEN, _NQUERY, _NEVAL, _NSMO, _NCCCP, _NLIMIT, _NREMOVED, _NREFRESH = range(12)
_NMETA = 12


# --------------------------------------------------------------------------------------- numba core
@njit(cache=True)
def smo_step(a, g, q, C):
    """Eq. (14) and its gain, eq. (13), for one example: returns ``(a_new, gain)``.

    ``a`` = alpha_i, ``g`` = g_i, ``q`` = Q_ii = k(x_i, x_i). A degenerate ``q <= 0`` (``Phi(x_i) = 0``)
    makes the sub-problem (12) linear: the optimum is at a bound.
    """
    if q > 1e-300:
        an = a + g / q
        if an < 0.0:
            an = 0.0
        elif an > C:
            an = C
        gain = 0.5 * q * (a * a - an * an) + (g + q * a) * (an - a)
    else:
        if g > 0.0:
            an = C
        elif g < 0.0:
            an = 0.0
        else:
            an = a
        gain = g * (an - a)
    return an, gain


@njit(cache=True)
def _smo_accuracy(q, tol, eps):
    """The largest violation of eq. (3) at an example with ``Q_ii = q`` that the stopping criteria
    let through: ``tol`` (first criterion) or, for an unclipped step, the ``|g|`` whose gain (13)
    ``g^2 / (2 q)`` is just below ``eps`` (second criterion)."""
    return max(tol, math.sqrt(2.0 * eps * q))


@njit(cache=True)
def _violates(a, g, C, tol):
    """True when (alpha, g) breaks the KKT conditions (3) by more than ``tol``."""
    if a <= 0.0:
        return g > tol
    if a >= C:
        return g < -tol
    return abs(g) > tol


@njit(cache=True)
def _claim_row(j, CROW, C_OF, S_OF, LRU, SCRATCH, META):
    """The cache row that slot ``j``'s kernel row is to be written into: the least recently used
    row, taken from its old owner; ``SCRATCH`` (not cached) when the cache has no rows."""
    nrows = CROW.shape[0]
    if nrows == 0:
        return SCRATCH
    v = 0
    best = LRU[0]
    for r in range(1, nrows):
        if LRU[r] < best:
            best = LRU[r]
            v = r
    old = S_OF[v]
    if old >= 0:
        C_OF[old] = -1
    S_OF[v] = j
    C_OF[j] = v
    LRU[v] = META[_CLOCK]
    return CROW[v]


@njit(cache=True)
def _get_row(j, SX, ACT, QD, CROW, C_OF, S_OF, LRU, SCRATCH, META, kind, sigma, degree, coef):
    """The kernel row ``k(x_j, x_k)`` for every slot ``k`` (valid where ``ACT[k]``); cached, LRU."""
    META[_CLOCK] += 1
    c = C_OF[j]
    if c >= 0:
        LRU[c] = META[_CLOCK]
        return CROW[c]
    hw = META[_HW]
    row = _claim_row(j, CROW, C_OF, S_OF, LRU, SCRATCH, META)
    xj = SX[j]
    for k in range(hw):
        if ACT[k] == 0:
            continue
        if k == j:
            row[k] = QD[j]
        else:
            row[k] = kernel_eval(xj, SX[k], kind, sigma, degree, coef)
            META[_NEVAL] += 1
    return row


@njit(cache=True)
def _update_g(j, delta, row, SY, G, ACT, hw):
    """Eq. (15) for every example of I after alpha_j changed by ``delta``."""
    yd = SY[j] * delta
    for k in range(hw):
        if ACT[k] != 0:
            G[k] -= SY[k] * yd * row[k]


# _select, _update_select and their W versions below write the candidate test (violates KKT, step
# gain, keep the best) out in full on purpose: moving it into one njit helper, even with
# inline="always", made OnlineSVM^R measurably slower on the checkerboard task, with identical
# results.
@njit(cache=True)
def _select(A, G, QD, ACT, INV, C, tol, hw):
    """Working set by eq. (13): the KKT violator of V whose step (14) gains most; (-1, -inf, 0) if none."""
    best = -1
    bgain = -np.inf
    bnew = 0.0
    for j in range(hw):
        if ACT[j] == 0 or INV[j] == 0:
            continue
        a = A[j]
        g = G[j]
        if not _violates(a, g, C, tol):
            continue
        an, gain = smo_step(a, g, QD[j], C)
        if gain > bgain:
            bgain = gain
            best = j
            bnew = an
    return best, bgain, bnew


@njit(cache=True)
def _update_select(j, delta, row, SY, A, G, QD, ACT, INV, C, tol, hw):
    """Eq. (15) for all of I after alpha_j moved by ``delta``, fused with :func:`_select` (same result)."""
    yd = SY[j] * delta
    best = -1
    bgain = -np.inf
    bnew = 0.0
    for k in range(hw):
        if ACT[k] == 0:
            continue
        g = G[k] - SY[k] * yd * row[k]
        G[k] = g
        if INV[k] == 0:
            continue
        a = A[k]
        if not _violates(a, g, C, tol):
            continue
        an, gain = smo_step(a, g, QD[k], C)
        if gain > bgain:
            bgain = gain
            best = k
            bnew = an
    return best, bgain, bnew


@njit(cache=True)
def _build_w(A, G, QD, ACT, INV, hw, tol, margin, WIDX, TRK):
    """Shrinking: the tracked set W (ascending slots) and the safety radius theta.

    W = the examples of V with alpha > 0 or g > tol - margin. Every other example of V has alpha = 0
    and g <= tol - margin; it cannot become a KKT violator while the tracked steps move its g by less
    than tol - g. With |k(x_j, x_k)| <= kappa_j kappa_k (kappa = sqrt(k(x, x)), Cauchy-Schwarz), that
    holds while B = sum_j |D_j| kappa_j < theta = min_k (tol - g_k) / kappa_k, where D_j is the net
    change of alpha_j since W was built.
    """
    n_w = 0
    theta = np.inf
    for k in range(hw):
        TRK[k] = 0
        if ACT[k] == 0 or INV[k] == 0:
            continue
        if A[k] > 0.0 or G[k] > tol - margin:
            WIDX[n_w] = k
            n_w += 1
            TRK[k] = 1
        else:
            kap = math.sqrt(QD[k])
            if kap > 0.0:
                t = (tol - G[k]) / kap
                if t < theta:
                    theta = t
    return n_w, theta


@njit(cache=True)
def _select_w(A, G, QD, WIDX, n_w, C, tol):
    """:func:`_select` restricted to W."""
    best = -1
    bgain = -np.inf
    bnew = 0.0
    for r in range(n_w):
        j = WIDX[r]
        a = A[j]
        g = G[j]
        if not _violates(a, g, C, tol):
            continue
        an, gain = smo_step(a, g, QD[j], C)
        if gain > bgain:
            bgain = gain
            best = j
            bnew = an
    return best, bgain, bnew


@njit(cache=True)
def _update_select_w(j, delta, row, SY, A, G, QD, WIDX, n_w, C, tol):
    """:func:`_update_select` restricted to W (the other examples are brought up to date later)."""
    yd = SY[j] * delta
    best = -1
    bgain = -np.inf
    bnew = 0.0
    for r in range(n_w):
        k = WIDX[r]
        g = G[k] - SY[k] * yd * row[k]
        G[k] = g
        a = A[k]
        if not _violates(a, g, C, tol):
            continue
        an, gain = smo_step(a, g, QD[k], C)
        if gain > bgain:
            bgain = gain
            best = k
            bnew = an
    return best, bgain, bnew


@njit(cache=True)
def _refresh(
    CHG,
    n_chg,
    D,
    CHGF,
    TRK,
    SX,
    SY,
    G,
    QD,
    ACT,
    CROW,
    C_OF,
    S_OF,
    LRU,
    SCRATCH,
    META,
    kind,
    sigma,
    degree,
    coef,
):
    """Eq. (15) for the untracked examples, one pass per changed alpha_j (net change D_j)."""
    hw = META[_HW]
    for r in range(n_chg):
        j = CHG[r]
        d = D[j]
        D[j] = 0.0
        CHGF[j] = 0
        if d == 0.0:
            continue
        row = _get_row(j, SX, ACT, QD, CROW, C_OF, S_OF, LRU, SCRATCH, META, kind, sigma, degree, coef)
        yd = SY[j] * d
        for k in range(hw):
            if ACT[k] != 0 and TRK[k] == 0:
                G[k] -= SY[k] * yd * row[k]


@njit(cache=True)
def _optimize(
    SX,
    SY,
    A,
    G,
    QD,
    ACT,
    INV,
    CROW,
    C_OF,
    S_OF,
    LRU,
    SCRATCH,
    REMOVED,
    META,
    WIDX,
    TRK,
    D,
    CHG,
    CHGF,
    kind,
    sigma,
    degree,
    coef,
    C,
    s,
    tol,
    eps,
    max_smo,
    max_cccp,
    margin,
    band,
):
    """Steps 9-27 of Algorithm 1: SMO on V (eqs. 13-15, two stopping criteria) + CCCP re-assignment."""
    upper = 1.0 - s
    for _ in range(max_cccp):
        META[_NCCCP] += 1
        hw = META[_HW]
        if margin < 0.0:
            # steps 10-15 exactly as written: every SMO step updates g for all of I (the gradient
            # update of one step and the working-set choice of the next one share one pass over I)
            best, bgain, bnew = _select(A, G, QD, ACT, INV, C, tol, hw)
            done = False
            for _it in range(max_smo + 1):
                if best < 0 or bgain < eps:
                    done = True
                    break
                if _it == max_smo:
                    break
                delta = bnew - A[best]
                A[best] = bnew
                row = _get_row(
                    best, SX, ACT, QD, CROW, C_OF, S_OF, LRU, SCRATCH, META, kind, sigma, degree, coef
                )
                best, bgain, bnew = _update_select(best, delta, row, SY, A, G, QD, ACT, INV, C, tol, hw)
                META[_NSMO] += 1
        else:
            # the same steps with shrinking (see _build_w): identical choices of eq. (13), g of the
            # far examples brought up to date in one pass per changed alpha before step 16
            n_w, theta = _build_w(A, G, QD, ACT, INV, hw, tol, margin, WIDX, TRK)
            best, bgain, bnew = _select_w(A, G, QD, WIDX, n_w, C, tol)
            done = False
            n_chg = 0
            B = 0.0
            for _it in range(max_smo + 1):
                if best < 0 or bgain < eps:
                    done = True
                    break
                if _it == max_smo:
                    break
                delta = bnew - A[best]
                A[best] = bnew
                row = _get_row(
                    best, SX, ACT, QD, CROW, C_OF, S_OF, LRU, SCRATCH, META, kind, sigma, degree, coef
                )
                if CHGF[best] == 0:
                    CHGF[best] = 1
                    CHG[n_chg] = best
                    n_chg += 1
                d_old = D[best]
                D[best] = d_old + delta
                B += (abs(d_old + delta) - abs(d_old)) * math.sqrt(QD[best])
                best, bgain, bnew = _update_select_w(best, delta, row, SY, A, G, QD, WIDX, n_w, C, tol)
                META[_NSMO] += 1
                if B >= theta:
                    # an untracked example might violate now: bring every g up to date, rebuild W
                    _refresh(
                        CHG,
                        n_chg,
                        D,
                        CHGF,
                        TRK,
                        SX,
                        SY,
                        G,
                        QD,
                        ACT,
                        CROW,
                        C_OF,
                        S_OF,
                        LRU,
                        SCRATCH,
                        META,
                        kind,
                        sigma,
                        degree,
                        coef,
                    )
                    n_chg = 0
                    B = 0.0
                    META[_NREFRESH] += 1
                    n_w, theta = _build_w(A, G, QD, ACT, INV, hw, tol, margin, WIDX, TRK)
                    best, bgain, bnew = _select_w(A, G, QD, WIDX, n_w, C, tol)
            _refresh(
                CHG,
                n_chg,
                D,
                CHGF,
                TRK,
                SX,
                SY,
                G,
                QD,
                ACT,
                CROW,
                C_OF,
                S_OF,
                LRU,
                SCRATCH,
                META,
                kind,
                sigma,
                degree,
                coef,
            )
        if not done:
            META[_NLIMIT] += 1
        # steps 16-22: re-assign V by eq. (10), with a dead band of half-width bj around 1 - s
        changed = False
        nrem = 0
        for j in range(hw):
            if ACT[j] == 0:
                continue
            bj = band if band >= 0.0 else _smo_accuracy(QD[j], tol, eps)
            if INV[j] == 0:
                if G[j] <= upper - bj:
                    INV[j] = 1
                    changed = True
            elif G[j] > upper + bj:
                INV[j] = 0
                changed = True
                REMOVED[nrem] = j
                nrem += 1
        # steps 23-26: decremental unlearning of the examples that left V
        for r in range(nrem):
            j = REMOVED[r]
            if A[j] != 0.0:
                delta = -A[j]
                A[j] = 0.0
                row = _get_row(
                    j, SX, ACT, QD, CROW, C_OF, S_OF, LRU, SCRATCH, META, kind, sigma, degree, coef
                )
                _update_g(j, delta, row, SY, G, ACT, hw)
        if not changed:
            return
    META[_NLIMIT] += 1


@njit(cache=True)
def _free_slot(j, ACT, INV, A, C_OF, S_OF, LRU, FREE, META):
    ACT[j] = 0
    INV[j] = 0
    A[j] = 0.0
    c = C_OF[j]
    if c >= 0:
        S_OF[c] = -1
        LRU[c] = 0
        C_OF[j] = -1
    FREE[META[_NFREE]] = j
    META[_NFREE] += 1
    META[_NACT] -= 1
    META[_NREMOVED] += 1


@njit(cache=True)
def _removal(m, A, G, ACT, INV, C_OF, S_OF, LRU, FREE, META):
    """Algorithm 2: keep at most ``m`` non-SVs in I, dropping those with the largest |1 - g|."""
    hw = META[_HW]
    nx = 0
    for j in range(hw):
        if ACT[j] != 0 and A[j] == 0.0:
            nx += 1
    while nx > m:
        best = -1
        bd = -1.0
        for j in range(hw):
            if ACT[j] != 0 and A[j] == 0.0:
                d = abs(1.0 - G[j])
                if d > bd:
                    bd = d
                    best = j
        _free_slot(best, ACT, INV, A, C_OF, S_OF, LRU, FREE, META)
        nx -= 1


@njit(cache=True)
def _process(
    X,
    Y,
    start,
    out_f,
    SX,
    SY,
    A,
    G,
    QD,
    ACT,
    INV,
    MARK,
    FREE,
    CROW,
    C_OF,
    S_OF,
    LRU,
    NEWROW,
    SCRATCH,
    REMOVED,
    META,
    WIDX,
    TRK,
    D,
    CHG,
    CHGF,
    kind,
    sigma,
    degree,
    coef,
    C,
    s,
    tol,
    eps,
    m,
    active,
    max_smo,
    max_cccp,
    margin,
    band,
):
    """Online loop over ``X[start:]``: ``out_f[i]`` = f(x_i) before learning it, then learn it.

    Returns the index of the first example not processed: ``len(X)`` when done, smaller when the
    slot arrays are full (the caller doubles them and calls again).
    """
    cap = SX.shape[0]
    n = X.shape[0]
    upper = 1.0 - s
    qregion = max(1.0, -s)
    for i in range(start, n):
        if META[_NFREE] == 0 and META[_HW] >= cap:
            return i
        x = X[i]
        yi = Y[i]
        if META[_NFREE] > 0:
            slot = FREE[META[_NFREE] - 1]
        else:
            slot = META[_HW]
        hw = META[_HW]
        stamp = META[_NSEEN] + 1
        # f(x) (eq. 4) over the SVs; the kernel values also fill the new column of every cached row
        f = 0.0
        for j in range(hw):
            if ACT[j] == 0:
                continue
            a = A[j]
            c = C_OF[j]
            if a > 0.0 or c >= 0:
                kv = kernel_eval(SX[j], x, kind, sigma, degree, coef)
                META[_NEVAL] += 1
                NEWROW[j] = kv
                MARK[j] = stamp
                if c >= 0:
                    CROW[c, slot] = kv
                if a > 0.0:
                    f += SY[j] * a * kv
        out_f[i] = f
        META[_NSEEN] = stamp
        qx = kernel_eval(x, x, kind, sigma, degree, coef)
        if qx <= 0.0:
            # k(x, x) = 0 (x = 0 with the linear kernel, or poly with coef = 0): k(x, .) = 0, nothing
            # to learn; predicted but not put in I (no label used), as DUOL and PA skip it
            continue
        if active:
            # Algorithm 3, step 3: query the label only inside the ramp region
            if abs(f) > qregion:
                continue
            META[_NQUERY] += 1
        # Algorithm 1, step 3 (Algorithm 3, steps 5-6): I = I + {t+1}, alpha = 0, g = 1 - y f
        if META[_NFREE] > 0:
            META[_NFREE] -= 1
        else:
            META[_HW] += 1
            hw += 1
        SX[slot, :] = x
        SY[slot] = yi
        A[slot] = 0.0
        g0 = 1.0 - yi * f
        G[slot] = g0
        QD[slot] = qx
        ACT[slot] = 1
        INV[slot] = 0
        C_OF[slot] = -1
        META[_NACT] += 1
        if 0.0 <= g0 <= upper:
            # steps 4-8: V = V + {t+1}; alpha_{t+1} by eq. (14); g by eq. (15)
            INV[slot] = 1
            META[_CLOCK] += 1
            row = _claim_row(slot, CROW, C_OF, S_OF, LRU, SCRATCH, META)
            for k in range(hw):
                if ACT[k] == 0:
                    continue
                if k == slot:
                    row[k] = QD[slot]
                elif MARK[k] == stamp:
                    row[k] = NEWROW[k]
                else:
                    row[k] = kernel_eval(SX[k], x, kind, sigma, degree, coef)
                    META[_NEVAL] += 1
            an, _gain = smo_step(0.0, g0, QD[slot], C)
            if an != 0.0:
                A[slot] = an
                _update_g(slot, an, row, SY, G, ACT, hw)
            # steps 9-27
            _optimize(
                SX,
                SY,
                A,
                G,
                QD,
                ACT,
                INV,
                CROW,
                C_OF,
                S_OF,
                LRU,
                SCRATCH,
                REMOVED,
                META,
                WIDX,
                TRK,
                D,
                CHG,
                CHGF,
                kind,
                sigma,
                degree,
                coef,
                C,
                s,
                tol,
                eps,
                max_smo,
                max_cccp,
                margin,
                band,
            )
        if m >= 0:
            _removal(m, A, G, ACT, INV, C_OF, S_OF, LRU, FREE, META)
    return n


@njit(cache=True)
def _fill_cache(CROW, S_OF, SX, QD, ACT, hw, kind, sigma, degree, coef):
    """Recompute every cached row ``r`` (owner slot ``j = S_OF[r] >= 0``): ``k(x_j, x_k)`` for each
    stored ``k``, ``Q_jj`` on the diagonal, the values the learning loop wrote (the kernel is
    symmetric bit for bit). Used after unpickling, which leaves ``CROW`` out; the kernel evaluations
    are not counted in ``n_kernel_evals_``, so a restored model's counters match the original's."""
    for r in range(CROW.shape[0]):
        j = S_OF[r]
        if j < 0:
            continue
        xj = SX[j]
        for k in range(hw):
            if ACT[k] == 0:
                continue
            CROW[r, k] = QD[j] if k == j else kernel_eval(xj, SX[k], kind, sigma, degree, coef)
    return CROW


@njit(cache=True)
def _decision_batch(Xq, SX, SY, A, ACT, hw, kind, sigma, degree, coef, out):
    """out[i] = f(Xq[i]) = sum_j y_j alpha_j k(x_j, Xq[i]) (eq. 4), same summation order as learning."""
    for i in range(Xq.shape[0]):
        x = Xq[i]
        f = 0.0
        for j in range(hw):
            if ACT[j] == 0:
                continue
            a = A[j]
            if a > 0.0:
                kv = kernel_eval(SX[j], x, kind, sigma, degree, coef)
                f += SY[j] * a * kv
        out[i] = f
    return out
