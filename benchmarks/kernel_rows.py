"""One kernel row f(x) = sum_j c_j k(X_j, x): row-major dense loop vs the feature-major path.

The backends' dense loop (:func:`silkvision.backends._support.sv_decision`) reduces over the d
features of one support vector at a time and calls ``exp`` once per support vector; the
feature-major path (:mod:`silkvision.backends.sparse`) runs a few long loops over the support
vectors. This times both on random data (RBF kernel, sigma = 8) for several d, densities and
support-vector counts, one thread, and prints microseconds per row and the ratio.

Usage::

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/kernel_rows.py
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from silkvision.backends._support import sv_decision
from silkvision.backends.sparse import cols_decision, cols_from_rows, nonzeros, sqn_of


@numba.njit(cache=True)
def _dense(SV, coef, n, Xq):
    s = 0.0
    for i in range(Xq.shape[0]):
        s += sv_decision(SV, coef, n, Xq[i], 0, 8.0, 2, 1.0)
    return s


@numba.njit(cache=True)
def _columns(XT, sqn, coef, n, Xq, idx, val, work, SV):
    s = 0.0
    for i in range(Xq.shape[0]):
        nnz = nonzeros(Xq[i], idx, val)
        s += cols_decision(XT, sqn, coef, n, idx, val, nnz, sqn_of(val, nnz), 0, 8.0, 2, 1.0, work, SV, Xq[i])
    return s


def _time(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    print("| d | density | support vectors | dense loop (us/row) | feature-major (us/row) | ratio |")
    print("|---|---|---|---|---|---|")
    for d in (8, 24, 60, 180):
        for density in (1.0, 0.5, 0.25):
            for n in (100, 1400):
                m = n + a.queries
                X = rng.normal(0, 3, (m, d)) * (rng.random((m, d)) < density)
                SV, Xq, coef = X[:n].copy(), X[n:], rng.normal(size=n)
                XT, sqn = cols_from_rows(SV, n, n)
                idx, val, work = np.empty(d, np.int64), np.empty(d), np.empty(n)
                t_dense = _time(lambda: _dense(SV, coef, n, Xq), a.repeats) / a.queries * 1e6
                t_cols = (
                    _time(lambda: _columns(XT, sqn, coef, n, Xq, idx, val, work, SV), a.repeats)
                    / a.queries
                    * 1e6
                )
                print(
                    f"| {d} | {density:.2f} | {n} | {t_dense:.1f} | {t_cols:.1f} | {t_dense / t_cols:.2f} |"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
