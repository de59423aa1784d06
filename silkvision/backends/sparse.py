"""Kernel rows from support vectors stored feature-major (fast on sparse and dense inputs).

A row-major support-vector array ``X`` (``(capacity, d)``) makes every kernel row ``k(X_j, x)``,
j < n, a loop over the support vectors with a short reduction over the d features inside, and one
scalar ``exp`` per support vector. Stored feature-major (``XT``, ``(d, capacity)``) with the squared
norms ``sqn[j] = |X_j|^2``, the row is a few long loops over the support vectors, which LLVM
vectorises, and it needs only the ``nnz(x)`` feature rows of ``XT``::

    acc[j] = sum_{i : x_i != 0} x_i XT[i, j]            (= X_j . x, contiguous in j: SIMD)
    rbf:    k_j = exp(-(sqn[j] + |x|^2 - 2 acc[j]) / (2 sigma^2))
    poly:   k_j = (acc[j] + coef)^degree
    linear: k_j = acc[j]

For the RBF kernel ``|X_j - x|^2`` is formed from norms and a dot product instead of a sum of squared
differences. That subtraction cancels when the norms are large next to the distance (features with a
large common offset: at an offset of 1e7 with sigma = 1 a kernel value was 3 % off). Its rounding
error is at most about ``(d + 4) eps (|X_j|^2 + |x|^2)``, so wherever that bound could move the kernel
value by more than :data:`KERNEL_ABS_TOL` the pair is recomputed as the sum of squared differences
(over the row-major copy of the support vectors that the learners keep as well: the formula of
:func:`~silkvision.backends.mercer.kernel_eval`). Every RBF
value from this path is therefore within about 1e-10 of the direct sum, whatever the offset (tested);
on integer data (w7a, german, ...) every term is an exact integer and the two agree bit for bit
(tested). The kernel loop only counts the stored norms large enough for the bound to matter; the
check itself (:func:`_fix_cancelled`) runs only when there are some. So data at the scale of sigma
pays nothing (PA-I, DUOL and the Perceptron on spambase and w7a: ratios 0.99-1.02), and data with
norms far above sigma (a raw year among standardised features, sigma = 8) pays about what the
row-major path costs, 1.6-2.3x the unchecked row (BENCHMARKS section 5). Of the paper's data sets
only spambase, with word counts up to |x|^2 = 2.5e8, can run it: 852 of its 21 million pairs of
distinct rows qualify, 110 of them duplicate rows.

On w7a (the JMLR DUOL paper's speed benchmark: d = 300 binary features, ~12 non-zeros per example,
~2,500 support vectors) this is what makes DUOL 18x faster than the paper's MATLAB. It is faster on
dense inputs too: 1.07-2.1x per kernel row at density 1 (d = 8 to 180, 100 to 1,400 support
vectors), 3.8x per run for PA-I on spambase (d = 57, 23 % non-zeros: 0.416 -> 0.110 s). So the
learners that support it (Perceptron, ROMMA, agg-ROMMA, ALMA, PA, PA-I, PA-II, the DUOL family,
and the multiclass Perceptrons, PA-I/II and SILK through :func:`decision_any_multi`) keep
``XT``/``sqn`` beside their row-major array (``SupportStore.enable_columns``, or their own arrays
for DUOL) for every input with at least :data:`COLUMNS_MIN_FEATURES` features (:func:`use_columns`,
decided on the first batch a model learns). On the JMLR tables the results are the same to every digit, except on real-valued
features: on spambase a few of 92,020 predictions of DUOL, DUOL_iter and DUOL_rand change (and one
agg-ROMMA support vector over 20 runs), on segment and letter one row each (BENCHMARKS section 5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import grow_vec, sv_decision, sv_decision_multi

__all__ = [
    "COLUMNS_MIN_FEATURES",
    "KERNEL_ABS_TOL",
    "use_columns",
    "nonzeros",
    "sqn_of",
    "cols_from_rows",
    "cols_append",
    "cols_remove",
    "cols_kernel_row",
    "cols_decision",
    "decision_any",
    "decision_any_multi",
    "row_buffers",
]

#: inputs with at least this many features use the feature-major path (the smallest d measured)
COLUMNS_MIN_FEATURES = 8

#: an RBF kernel value whose norm-expansion rounding bound exceeds this is recomputed directly
KERNEL_ABS_TOL = 1e-10

_EPS = float(np.finfo(np.float64).eps)


def use_columns(X: np.ndarray) -> bool:
    """Whether a model whose first batch is ``X`` (``(m, d)``) keeps its support vectors feature-major."""
    X = np.asarray(X)
    return X.ndim == 2 and X.size > 0 and X.shape[1] >= COLUMNS_MIN_FEATURES


@njit(cache=True)
def nonzeros(x, idx, val):
    """Indices and values of the non-zero entries of ``x`` into ``idx``/``val``; returns their number."""
    k = 0
    for i in range(x.shape[0]):
        if x[i] != 0.0:
            idx[k] = i
            val[k] = x[i]
            k += 1
    return k


@njit(cache=True)
def sqn_of(val, nnz):
    """``|x|^2`` from the non-zero values ``val[:nnz]``."""
    s = 0.0
    for k in range(nnz):
        s += val[k] * val[k]
    return s


@njit(cache=True)
def cols_from_rows(X, n, capacity):
    """Feature-major copy ``(d, capacity)`` of the first ``n`` rows of ``X`` and their squared norms."""
    d = X.shape[1]
    XT = np.zeros((d, capacity))
    sqn = np.zeros(capacity)
    for j in range(n):
        s = 0.0
        for i in range(d):
            v = X[j, i]
            XT[i, j] = v
            s += v * v
        sqn[j] = s
    return XT, sqn


@njit(cache=True)
def cols_append(XT, sqn, n, x):
    """Store ``x`` as column ``n`` (doubling the capacity when full); returns ``(XT, sqn)``."""
    if n + 1 > XT.shape[1]:
        cap = max(2 * XT.shape[1], n + 1, 16)
        XT2 = np.zeros((XT.shape[0], cap))
        for i in range(XT.shape[0]):
            for j in range(n):
                XT2[i, j] = XT[i, j]
        XT = XT2
        sqn = grow_vec(sqn, n, cap)
    s = 0.0
    for i in range(x.shape[0]):
        XT[i, n] = x[i]
        s += x[i] * x[i]
    sqn[n] = s
    return XT, sqn


@njit(cache=True)
def cols_remove(XT, sqn, n, i):
    """Remove column ``i`` of ``n`` (the last column moves into its place), as ``sv_remove`` does."""
    last = n - 1
    if i != last:
        for r in range(XT.shape[0]):
            XT[r, i] = XT[r, last]
        sqn[i] = sqn[last]


@njit(cache=True)
def _fix_cancelled(SV, x, sqn, n, xx, den, c, out):
    """Recompute, as sums of squared differences over the row-major copy ``SV`` (contiguous, the
    formula of :func:`~silkvision.backends.mercer.kernel_eval`), the RBF values
    ``out[j] = exp(-d2 / den)`` whose ``d2 = |X_j|^2 + |x|^2 - 2 X_j.x`` may have lost enough to
    cancellation to move them by more than :data:`KERNEL_ABS_TOL`. The rounding error of d2 is at
    most ``err = c (|X_j|^2 + |x|^2)`` with ``c = (d + 4) eps``; :func:`cols_kernel_row` calls this
    only when a stored norm is large enough for that to matter."""
    tol = KERNEL_ABS_TOL * den
    for j in range(n):
        err = c * (sqn[j] + xx)
        if err > tol:
            e = err / den  # the largest value that d2 - err allows is at most out[j] exp(e)
            if e >= 1e-3 or out[j] * (1.0 + 2.0 * e) * err > tol:
                out[j] = _rbf_direct(SV[j], x, den)


@njit(cache=True, fastmath={"reassoc", "contract"})
def _rbf_direct(a, b, den):
    """exp(-|a - b|^2 / den), summed feature by feature (vectorised)."""
    s = 0.0
    for i in range(a.shape[0]):
        t = a[i] - b[i]
        s += t * t
    return np.exp(-s / den)


@njit(cache=True, fastmath={"reassoc", "contract"})
def cols_kernel_row(XT, sqn, n, idx, val, nnz, xx, kind, sigma, degree, coef0, out, SV, x):
    """``out[j] = k(X_j, x)`` for j < n, from the non-zeros ``(idx, val)[:nnz]`` of x and ``xx = |x|^2``;
    ``SV`` (the row-major copy of the support vectors) and the dense ``x`` serve the RBF kernel's
    cancellation check only."""
    for j in range(n):
        out[j] = 0.0
    for k in range(nnz):
        row = XT[idx[k]]
        v = val[k]
        for j in range(n):
            out[j] += v * row[j]
    if kind == 0:
        den = 2.0 * sigma * sigma
        # a stored norm above big lets the rounding of d2 move a kernel value by more than
        # KERNEL_ABS_TOL: those values are then checked and, if need be, summed directly
        c = (XT.shape[0] + 4) * _EPS
        big = KERNEL_ABS_TOL * den / c - xx
        n_big = 0
        for j in range(n):
            d2 = sqn[j] + xx - 2.0 * out[j]
            if d2 < 0.0:
                d2 = 0.0
            out[j] = np.exp(-d2 / den)
            n_big += sqn[j] > big
        if n_big:
            _fix_cancelled(SV, x, sqn, n, xx, den, c, out)
    elif kind == 1:
        for j in range(n):
            out[j] = (out[j] + coef0) ** degree
    return out


@njit(cache=True)
def cols_decision(XT, sqn, coef, n, idx, val, nnz, xx, kind, sigma, degree, coef0, work, SV, x):
    """``sum_{j<n} coef[j] k(X_j, x)`` through :func:`cols_kernel_row` (``work``: length >= n)."""
    cols_kernel_row(XT, sqn, n, idx, val, nnz, xx, kind, sigma, degree, coef0, work, SV, x)
    f = 0.0
    for j in range(n):
        f += coef[j] * work[j]
    return f


@njit(cache=True)
def row_buffers(d, n):
    """``(idx, val, work)`` for :func:`decision_any`: length-d non-zero buffers and a kernel-row buffer."""
    return np.empty(d, np.int64), np.empty(d), np.empty(max(n, 16))


@njit(cache=True)
def decision_any(SV, coef, n, x, kind, sigma, degree, coef0, cols, XT, sqn, idx, val, work):
    """f(x) through the feature-major path when ``cols`` is set, else the dense loop.

    Returns ``(f, work)`` (``work`` may have been grown); ``idx``/``val`` are length-d buffers.
    """
    if cols:
        nnz = nonzeros(x, idx, val)
        work = grow_vec(work, 0, n)
        return cols_decision(
            XT, sqn, coef, n, idx, val, nnz, sqn_of(val, nnz), kind, sigma, degree, coef0, work, SV, x
        ), work
    return sv_decision(SV, coef, n, x, kind, sigma, degree, coef0), work


@njit(cache=True)
def decision_any_multi(SV, A, n, x, kind, sigma, degree, coef0, cols, XT, sqn, idx, val, work, out):
    """Multiclass :func:`decision_any`: ``out[k] = sum_{j<n} A[j, k] k(X_j, x)`` (the terms added in
    the order of :func:`~silkvision.backends._support.sv_decision_multi`). Returns ``work``."""
    if not cols:
        sv_decision_multi(SV, A, n, x, kind, sigma, degree, coef0, out)
        return work
    nnz = nonzeros(x, idx, val)
    work = grow_vec(work, 0, n)
    cols_kernel_row(XT, sqn, n, idx, val, nnz, sqn_of(val, nnz), kind, sigma, degree, coef0, work, SV, x)
    out[:] = 0.0
    K = out.shape[0]
    for j in range(n):
        kv = work[j]
        for k in range(K):
            out[k] += A[j, k] * kv
    return work
