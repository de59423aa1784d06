"""Readings of DUOL that were tried against JMLR 2011 Table 2/4 and NOT shipped (plain NumPy).

``exact-ties`` (german, the 20 stored orderings)
    Algorithm 1 with the auxiliary-example test ``f^i <= 1`` (line 10) decided as exact arithmetic
    would decide it, instead of with :data:`silkvision.backends.duol.MARGIN_TOL`: the tracked
    scores are kept in double-double (TwoSum), and a support vector that the closed form puts ON the
    margin (a single step below C, case 4 of Proposition 2 for both, case 2 for the auxiliary, case 3
    for the new one) gets ``f^i = 1`` exactly, so a later push of 1e-30 decides its side. Equal
    ``w_ab`` (common on german's integer features) go to the last (Algorithm 1's ``<=``) or the first
    (MATLAB's ``min``) support vector.
``exact-test-sums`` (german, the 20 stored orderings)
    The plain reading of Algorithm 1 with the exact test ``f^i <= 1``, MATLAB's ``min`` (first of
    equal ``w_ab``), a precomputed Gram matrix and tracked scores, with the prediction
    ``f = sum_i gamma_i y_i k(x_i, x_t)`` summed three ways: ``np.dot`` (BLAS), left to right, and
    NumPy's pairwise ``np.sum``. Every step is the same algorithm; only the rounding of one sum
    differs, and it moves the mistake rate across the paper's standard deviation.
``mduol-appr-step`` (dna, the 20 stored orderings)
    M-DUOL_appr with other fixed steps ``v`` (ours: ``v = 1/(2(1 - rho)) = 0.5``, Theorem 5), and with
    the fixed step also used for single updates.

The paper's values are printed beside. Usage::

    .venv/bin/python benchmarks/duol_variants.py          # 11-15 s on 2 cores
"""

from __future__ import annotations

import sys
import time

import numpy as np

from silkvision.backends.datasets import load
from silkvision.backends.duol import MARGIN_TOL, solve_prop2
from silkvision.backends.kernels import kernel_matrix_reference, make_kernel

PAPER = {"german": (31.810, 1.090, 656.3), "dna-appr": (14.105, 0.611, 1281.8)}


def _gram(X):
    """Gram matrix of the JMLR setting, Gaussian kernel with sigma = 8."""
    return kernel_matrix_reference(X, X, make_kernel("rbf", 8.0))


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _trial(K, S, gam, ys, n, y, t, fsum):
    """Kernel row, prediction ``f`` summed by ``fsum`` ("dot", "seq" or "pairwise"), label, hinge
    loss and mistake (``sign(0) = +1``) of trial ``t``."""
    k = K[S[:n], t]
    if fsum == "dot":
        f = float(np.dot(gam[:n] * ys[:n], k))
    elif fsum == "seq":
        f = float(np.cumsum(gam[:n] * ys[:n] * k)[-1]) if n else 0.0
    else:
        f = float(np.sum(gam[:n] * ys[:n] * k))
    yt = y[t]
    return k, f, yt, 1.0 - yt * f, int((1.0 if f >= 0 else -1.0) != yt)


def duol_exact_ties(K, y, order, last_tie, C=5.0):
    """Mistakes and #SV of one run of Algorithm 1 (rho = 0) with exact-arithmetic margin ties."""
    n, N = 0, len(order)
    S, gam, ys = np.zeros(N, int), np.zeros(N), np.zeros(N)
    fh, fl = np.zeros(N), np.zeros(N)          # tracked scores, double-double
    mistakes = 0
    for t in order:
        k, f, yt, lt, wrong = _trial(K, S, gam, ys, n, y, t, "dot")
        mistakes += wrong
        if lt <= 0:
            continue
        w = ys[:n] * yt * k
        elig = np.flatnonzero((fh[:n] < 1) | ((fh[:n] == 1) & (fl[:n] <= 0)))
        b = -1
        if elig.size:
            ties = elig[w[elig] == w[elig].min()]
            b = ties[-1] if last_tie else ties[0]
        S[n], ys[n], fh[n], fl[n] = t, yt, yt * f, 0.0
        krow = np.append(k, 1.0)
        on = []
        if b >= 0 and w[b] <= 0:
            ga, d, case = solve_prop2(1.0, 1.0, w[b], lt, 1.0 - (fh[b] + fl[b]), C, gam[b])
            gam[n], gam[b] = ga, gam[b] + d
            inc = ys[:n + 1] * (ga * yt * krow + d * ys[b] * K[S[:n + 1], S[b]])
            on = {4: [n, b], 2: [b], 3: [n]}.get(case, [])
        else:
            ga = min(C, lt)
            gam[n] = ga
            inc = ys[:n + 1] * ga * yt * krow
            on = [n] if ga < C else []
        s, e = _two_sum(fh[:n + 1], inc)
        fh[:n + 1], fl[:n + 1] = _two_sum(s, fl[:n + 1] + e)
        for i in on:
            fh[i], fl[i] = 1.0, 0.0
        n += 1
    return 100.0 * mistakes / N, int(np.count_nonzero(gam[:n]))


def duol_exact_test(K, y, order, fsum, C=5.0):
    """Mistakes and #SV of one run of Algorithm 1 (rho = 0) with the exact test ``f^i <= 1``,
    first of equal ``w_ab``, and the prediction summed by ``fsum`` ("dot", "seq" or "pairwise")."""
    n, N = 0, len(order)
    S, gam, ys, fs = np.zeros(N, int), np.zeros(N), np.zeros(N), np.zeros(N)
    mistakes = 0
    for t in order:
        k, f, yt, lt, wrong = _trial(K, S, gam, ys, n, y, t, fsum)
        mistakes += wrong
        if lt <= 0:
            continue
        w = ys[:n] * yt * k
        elig = np.flatnonzero(fs[:n] <= 1.0)
        b = elig[np.argmin(w[elig])] if elig.size else -1
        S[n], ys[n], fs[n] = t, yt, yt * f
        if b >= 0 and w[b] <= 0:
            ga, d, _ = solve_prop2(1.0, 1.0, w[b], lt, 1.0 - fs[b], C, gam[b])
            gam[n], gam[b] = ga, gam[b] + d
            fs[:n + 1] += ys[:n + 1] * (ga * yt * K[S[:n + 1], t] + d * ys[b] * K[S[:n + 1], S[b]])
        else:
            ga = min(C, lt)
            gam[n] = ga
            fs[:n + 1] += ys[:n + 1] * ga * yt * K[S[:n + 1], t]
        n += 1
    return 100.0 * mistakes / N, int(np.count_nonzero(gam[:n]))


def mduol_appr(K, y, order, n_classes, v, single_fixed, C=10.0):
    """Mistakes and #SV of one run of M-DUOL_appr (rho = 0) with the fixed double step ``v``."""
    n, N = 0, len(order)
    S, gam, R, Q, f = (np.zeros(N, int), np.zeros(N), np.zeros(N, int), np.zeros(N, int), np.zeros(N))
    mistakes = 0

    def hh(r, s, idx):
        return (r == R[idx]).astype(float) - (r == Q[idx]) - (s == R[idx]) + (s == Q[idx])

    for t in order:
        k = K[S[:n], t]
        sc = np.zeros(n_classes)
        np.add.at(sc, R[:n], gam[:n] * k)
        np.add.at(sc, Q[:n], -gam[:n] * k)
        r = int(y[t])
        mistakes += int(np.argmax(sc)) != r
        other = sc.copy()
        other[r] = -np.inf
        s = int(np.argmax(other))
        lt = 1.0 - (sc[r] - sc[s])
        if lt <= 0:
            continue
        w = hh(r, s, np.arange(n)) * k
        elig = np.flatnonzero(f[:n] <= 1.0 + MARGIN_TOL)
        b = elig[np.argmin(w[elig])] if elig.size else -1
        S[n], R[n], Q[n], f[n] = t, r, s, sc[r] - sc[s]
        idx = np.arange(n + 1)
        inc_t = hh(r, s, idx) * np.append(k, 1.0)
        if b >= 0 and w[b] <= 0:
            ga, d = min(C, v), min(C, gam[b] + v) - gam[b]
            gam[n], gam[b] = ga, gam[b] + d
            f[:n + 1] += ga * inc_t + d * hh(R[b], Q[b], idx) * K[S[:n + 1], S[b]]
        else:
            ga = min(C, v) if single_fixed else min(C, lt / 2.0)
            gam[n] = ga
            f[:n + 1] += ga * inc_t
        n += 1
    return 100.0 * mistakes / N, int(np.count_nonzero(gam[:n]))


def _row(label, runs, paper):
    a = np.array(runs, float)
    m, sd = a[:, 0].mean(), a[:, 0].std(ddof=1)
    within = abs(m - paper[0]) <= paper[1]
    print(f"| {label} | {m:.3f} ± {sd:.3f} | {a[:, 1].mean():.2f} | {paper[0]:.3f} ± {paper[1]:.3f} | "
          f"{paper[2]} | {'yes' if within else 'no'} |", flush=True)


def main() -> int:
    t0 = time.time()
    print("| data set / reading | ours: mistakes % | ours: #SV | paper: mistakes % | paper: #SV | within 1 sd |")
    print("|---|---|---|---|---|---|")
    g = load("german")
    K = _gram(g.X)
    for last in (True, False):
        _row(f"german DUOL, exact-arithmetic margin ties, {'last' if last else 'first'} of equal w_ab",
             [duol_exact_ties(K, g.y, o, last) for o in g.orderings], PAPER["german"])
    for fsum, label in (("dot", "np.dot"), ("seq", "left to right"), ("pairwise", "pairwise np.sum")):
        _row(f"german DUOL, exact test f^i <= 1, first of equal w_ab, prediction summed by {label}",
             [duol_exact_test(K, g.y, o, fsum) for o in g.orderings], PAPER["german"])
    d = load("dna")
    K = _gram(d.X)
    for v, single in ((0.5, False), (0.25, False), (1.0, False), (2.0, False), (0.5, True), (1.0, True)):
        _row(f"dna M-DUOL_appr, v = {v}{', fixed single step too' if single else ''}",
             [mduol_appr(K, d.y, o, d.n_classes, v, single) for o in d.orderings], PAPER["dna-appr"])
    print(f"({time.time() - t0:.0f} s wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
