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

``readings`` (sonar and german, the 20 stored orderings, with ``--readings``)
    Other readings of DUOL_iter ("first the new weight, then the auxiliary weight") and DUOL_appr
    (``g_t = 1/(1-rho)``, ``g_b = hat g_b + 1/(1-rho)``). The first row of each reproduces the
    shipped learner (``duol_iter``; ``duol_appr``, the reading with Theorem 1's conditions), the
    others are the readings BENCHMARKS 5 lists.

The paper's values are printed beside. Usage::

    .venv/bin/python benchmarks/duol_variants.py              # 11-15 s on 2 cores
    .venv/bin/python benchmarks/duol_variants.py --readings   # the DUOL_iter/appr readings, ~10 s
    .venv/bin/python benchmarks/duol_variants.py --mduol-steps    # M-DUOL_appr steps 1/6, 1/(2k) elsewhere
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import glob
import os
import sys
import time

import numpy as np

from silkvision.backends import datasets
from silkvision.backends.duol import MARGIN_TOL, solve_prop2
from silkvision.backends.mercer import kernel_matrix_reference, make_kernel
from silkvision.errors import SilkvisionError

PAPER = {
    "german": (31.810, 1.090, 656.3),
    "dna-appr": (14.105, 0.611, 1281.8),
    "sonar-iter": (39.495, 3.299, 149.85),
    "german-iter": (35.985, 1.077, 714.35),
    "sonar-appr": (41.010, 2.335, 162.25),
    "german-appr": (30.275, 0.937, 716.1),
    "vehicle-appr": (69.634, 1.463, 828.05),
    "segment-appr": (39.314, 0.791, 1923.6),
    "satimage-appr": (26.222, 0.464, 3052.5),
}

#: reading -> (family, description); the first of each family is the shipped learner
READINGS = {
    "iter": (
        "iter",
        "shipped duol_iter: auxiliary chosen first, then g_a = min(C, l_a), d_b = clip(l_b - w g_a)",
    ),
    "iter-after": ("iter", "PA-I step first, auxiliary chosen among SVs in the margin after it"),
    "iter-rev": ("iter", "auxiliary step first (d_b = clip(l_b)), then g_a = clip(l_a - w d_b)"),
    "iter-fixed": ("iter", "fixed first step g_a = min(C, 1/(1-rho)), then the coordinate step"),
    "iter-first": ("iter", "shipped, but the first of equal w_ab"),
    "iter-strict": ("iter", "shipped, but a double update only if w_ab < 0"),
    "iter-exact": ("iter", "shipped, but the exact margin test f^i <= 1 (no MARGIN_TOL)"),
    "appr-thm1": (
        "appr",
        "shipped duol_appr: Theorem 1's conditions, a misclassified example "
        "and auxiliary (f^i <= 0); g_a = min(C, 1), g_b = min(C, hat g_b + 1); "
        "else single step min(C, l_t)",
    ),
    "appr": ("appr", "an earlier duol_appr: margin-error auxiliary (f^i <= 1), the same steps"),
    "appr-one": ("appr", "the first duol_appr: single step min(C, 1) (NIPS 2009 Algorithm 1)"),
    "appr-strong": (
        "appr",
        "fixed steps only for strong double updates (y_b f(x_b) <= 0), else exact; single step min(C, 1)",
    ),
    "appr-pa1": ("appr", "g_a = min(C, l_a), g_b = min(C, hat g_b + 1), PA-I single step"),
    "appr-loss": ("appr", "g_a = min(C, l_a), g_b = min(C, hat g_b + l_b), PA-I single step"),
}


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


def _auxiliary(elig, w, last):
    """Algorithm 1 lines 9-13: among the eligible support vectors ``elig``, the one with the
    smallest ``w_ab``; of equal ones the last (the paper's ``<=``) or the first (MATLAB's ``min``).
    -1 when none is eligible."""
    if not elig.size:
        return -1
    ties = elig[w[elig] == w[elig].min()]
    return ties[-1] if last else ties[0]


def duol_exact_ties(K, y, order, last_tie, C=5.0):
    """Mistakes and #SV of one run of Algorithm 1 (rho = 0) with exact-arithmetic margin ties."""
    n, N = 0, len(order)
    S, gam, ys = np.zeros(N, int), np.zeros(N), np.zeros(N)
    fh, fl = np.zeros(N), np.zeros(N)  # tracked scores, double-double
    mistakes = 0
    for t in order:
        k, f, yt, lt, wrong = _trial(K, S, gam, ys, n, y, t, "dot")
        mistakes += wrong
        if lt <= 0:
            continue
        w = ys[:n] * yt * k
        elig = np.flatnonzero((fh[:n] < 1) | ((fh[:n] == 1) & (fl[:n] <= 0)))
        b = _auxiliary(elig, w, last_tie)
        S[n], ys[n], fh[n], fl[n] = t, yt, yt * f, 0.0
        krow = np.append(k, 1.0)
        on = []
        if b >= 0 and w[b] <= 0:
            ga, d, case = solve_prop2(1.0, 1.0, w[b], lt, 1.0 - (fh[b] + fl[b]), C, gam[b])
            gam[n], gam[b] = ga, gam[b] + d
            inc = ys[: n + 1] * (ga * yt * krow + d * ys[b] * K[S[: n + 1], S[b]])
            on = {4: [n, b], 2: [b], 3: [n]}.get(case, [])
        else:
            ga = min(C, lt)
            gam[n] = ga
            inc = ys[: n + 1] * ga * yt * krow
            on = [n] if ga < C else []
        s, e = _two_sum(fh[: n + 1], inc)
        fh[: n + 1], fl[: n + 1] = _two_sum(s, fl[: n + 1] + e)
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
        b = _auxiliary(elig, w, last=False)
        S[n], ys[n], fs[n] = t, yt, yt * f
        if b >= 0 and w[b] <= 0:
            ga, d, _ = solve_prop2(1.0, 1.0, w[b], lt, 1.0 - fs[b], C, gam[b])
            gam[n], gam[b] = ga, gam[b] + d
            fs[: n + 1] += ys[: n + 1] * (ga * yt * K[S[: n + 1], t] + d * ys[b] * K[S[: n + 1], S[b]])
        else:
            ga = min(C, lt)
            gam[n] = ga
            fs[: n + 1] += ys[: n + 1] * ga * yt * K[S[: n + 1], t]
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
        b = _auxiliary(elig, w, last=False)
        S[n], R[n], Q[n], f[n] = t, r, s, sc[r] - sc[s]
        idx = np.arange(n + 1)
        inc_t = hh(r, s, idx) * np.append(k, 1.0)
        if b >= 0 and w[b] <= 0:
            ga, d = min(C, v), min(C, gam[b] + v) - gam[b]
            gam[n], gam[b] = ga, gam[b] + d
            f[: n + 1] += ga * inc_t + d * hh(R[b], Q[b], idx) * K[S[: n + 1], S[b]]
        else:
            ga = min(C, v) if single_fixed else min(C, lt / 2.0)
            gam[n] = ga
            f[: n + 1] += ga * inc_t
        n += 1
    return 100.0 * mistakes / N, int(np.count_nonzero(gam[:n]))


def duol_reading(K, y, order, reading, C=5.0):
    """Mistakes and #SV of one run (rho = 0, Gaussian kernel: ``k(x, x) = 1``) of a ``READINGS``
    entry. Tracked scores, last of equal ``w_ab`` and ``MARGIN_TOL`` as in :mod:`duol` unless the
    reading says otherwise."""
    n, N = 0, len(order)
    S, gam, ys, fs = np.zeros(N, int), np.zeros(N), np.zeros(N), np.zeros(N)
    mistakes = 0
    tol = 0.0 if reading == "iter-exact" else MARGIN_TOL
    for t in order:
        k, f, yt, lt, wrong = _trial(K, S, gam, ys, n, y, t, "dot")
        mistakes += wrong
        if lt <= 0:
            continue
        w = ys[:n] * yt * k
        S[n], ys[n], fs[n] = t, yt, yt * f
        krow = np.append(k, 1.0)
        if reading == "iter-after":
            gam[n] = min(C, lt)
            fs[: n + 1] += ys[: n + 1] * gam[n] * yt * krow
        if reading == "appr-thm1":
            elig = np.flatnonzero(fs[:n] <= MARGIN_TOL) if yt * f <= MARGIN_TOL else np.empty(0, int)
        else:
            elig = np.flatnonzero(fs[:n] <= 1.0 + tol)
        b = _auxiliary(elig, w, last=reading != "iter-first")
        if reading == "iter-after":
            if b >= 0 and w[b] <= 0:
                d = np.clip(1.0 - fs[b], -gam[b], C - gam[b])
                gam[b] += d
                fs[: n + 1] += ys[: n + 1] * d * ys[b] * K[S[: n + 1], S[b]]
            n += 1
            continue
        if b >= 0 and (w[b] < 0 if reading == "iter-strict" else w[b] <= 0):
            lb, gb, wb = 1.0 - fs[b], gam[b], w[b]
            if reading.startswith("iter") and reading not in ("iter-rev", "iter-fixed"):
                g = min(C, lt)
                d = np.clip(lb - wb * g, -gb, C - gb)
            elif reading == "iter-rev":
                d = np.clip(lb, -gb, C - gb)
                g = np.clip(lt - wb * d, 0.0, C)
            elif reading == "iter-fixed":
                g = min(C, 1.0)
                d = np.clip(lb - wb * g, -gb, C - gb)
            elif reading in ("appr-thm1", "appr", "appr-one") or (reading == "appr-strong" and lb >= 1.0):
                g, d = min(C, 1.0), min(C, gb + 1.0) - gb
            elif reading == "appr-strong":
                g, d, _ = solve_prop2(1.0, 1.0, wb, lt, lb, C, gb)
            else:
                g = min(C, lt)
                d = min(C, gb + (1.0 if reading == "appr-pa1" else lb)) - gb
            gam[n], gam[b] = g, gb + d
            fs[: n + 1] += ys[: n + 1] * (g * yt * krow + d * ys[b] * K[S[: n + 1], S[b]])
        else:
            gam[n] = min(C, 1.0) if reading in ("appr-one", "appr-strong") else min(C, lt)
            fs[: n + 1] += ys[: n + 1] * gam[n] * yt * krow
        n += 1
    return 100.0 * mistakes / N, int(np.count_nonzero(gam[:n]))


def _row(label, runs, paper):
    a = np.array(runs, float)
    m, sd = a[:, 0].mean(), a[:, 0].std(ddof=1)
    within = abs(m - paper[0]) <= paper[1]
    print(
        f"| {label} | {m:.3f} ± {sd:.3f} | {a[:, 1].mean():.2f} | {paper[0]:.3f} ± {paper[1]:.3f} | "
        f"{paper[2]} | {'yes' if within else 'no'} |",
        flush=True,
    )


def openblas_core() -> str:
    """The CPU kernel NumPy's bundled OpenBLAS chose at run time (it decides the np.dot row's
    summation order); "unknown" when it cannot be asked."""
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*"))
    for path in libs:
        lib = ctypes.CDLL(path)
        for name in (
            "scipy_openblas_get_corename64_",
            "scipy_openblas_get_corename",
            "openblas_get_corename",
        ):
            f = getattr(lib, name, None)
            if f is not None:
                f.restype = ctypes.c_char_p
                return f().decode()
    return "unknown"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Readings of the DUOL variants that the JMLR paper leaves "
        "open, on german, sonar, dna, vehicle, segment and satimage "
        "(docs/BENCHMARKS.md section 5)."
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--readings", action="store_true", help="other DUOL_iter/appr readings (6 s)")
    mode.add_argument(
        "--mduol-steps", action="store_true", help="M-DUOL_appr steps on vehicle, segment and satimage (31 s)"
    )
    p.add_argument(
        "--data-root",
        metavar="DIR",
        default=None,
        help="online data root (default: $SILKVISION_ONLINE_DATA, else ../shared/data/online "
        "next to the checkout)",
    )
    args = p.parse_args(argv)
    try:
        return _run(args)
    except SilkvisionError as e:
        print(f"duol_variants.py: error: {e}", file=sys.stderr)
        return 2


def _run(args) -> int:
    load = functools.partial(datasets.load, root=args.data_root)
    t0 = time.time()
    print(f"(numpy {np.__version__}; OpenBLAS core {openblas_core()}, which sets np.dot's summation order)")
    print(
        "| data set / reading | ours: mistakes % | ours: #SV | paper: mistakes % | paper: #SV | within 1 sd |"
    )
    print("|---|---|---|---|---|---|")
    if args.readings:
        for name in ("sonar", "german"):
            ds = load(name)
            K = _gram(ds.X)
            for reading, (family, text) in READINGS.items():
                _row(
                    f"{name} DUOL_{family}: {text}",
                    [duol_reading(K, ds.y, o, reading) for o in ds.orderings],
                    PAPER[f"{name}-{family}"],
                )
        print(f"({time.time() - t0:.0f} s wall)")
        return 0
    if args.mduol_steps:
        from silkvision.backends.bench import make_orderings

        for name in ("vehicle", "segment", "satimage"):
            ds = load(name)
            K = _gram(ds.X)
            orders, _ = make_orderings(ds, 20)  # stored (satimage) or seeded (seed 0), as online-bench
            for v in (1 / 6, 1 / (2 * ds.n_classes)):
                _row(
                    f"{name} M-DUOL_appr, v = {v:.4g}",
                    [mduol_appr(K, ds.y, o, ds.n_classes, v, False) for o in orders],
                    PAPER[f"{name}-appr"],
                )
        print(f"({time.time() - t0:.0f} s wall)")
        return 0
    g = load("german")
    K = _gram(g.X)
    for last in (True, False):
        _row(
            f"german DUOL, exact-arithmetic margin ties, {'last' if last else 'first'} of equal w_ab",
            [duol_exact_ties(K, g.y, o, last) for o in g.orderings],
            PAPER["german"],
        )
    for fsum, label in (("dot", "np.dot"), ("seq", "left to right"), ("pairwise", "pairwise np.sum")):
        _row(
            f"german DUOL, exact test f^i <= 1, first of equal w_ab, prediction summed by {label}",
            [duol_exact_test(K, g.y, o, fsum) for o in g.orderings],
            PAPER["german"],
        )
    d = load("dna")
    K = _gram(d.X)
    for v, single in (
        (0.5, False),
        (0.25, False),
        (1 / 6, False),
        (1.0, False),
        (2.0, False),
        (0.5, True),
        (1.0, True),
    ):
        _row(
            f"dna M-DUOL_appr, v = {v:.4g}{', fixed single step too' if single else ''}",
            [mduol_appr(K, d.y, o, d.n_classes, v, single) for o in d.orderings],
            PAPER["dna-appr"],
        )
    print(f"({time.time() - t0:.0f} s wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
