"""Kernel ROMMA and aggressive ROMMA (Y. Li & P. M. Long, "The relaxed online maximum margin
algorithm", Machine Learning 46:361-387, 2002; first in NIPS 12, 1999). Cited by title and formula:
the paper is not among the project's stored papers, so no equation numbers are given here.

The weight vector ``w = sum_j alpha_j k(x_j, .)`` is replaced, on an update, by the smallest-norm
vector that satisfies both the old half-space ``w . w_old >= ||w_old||^2`` and the new constraint
``y_t w . x_t >= 1``::

    D   = k(x_t, x_t) ||w||^2 - f(x_t)^2                (f(x_t) = w . x_t)
    c_t = (k(x_t, x_t) ||w||^2 - y_t f(x_t)) / D
    d_t = ||w||^2 (y_t - f(x_t)) / D
    w  <- c_t w + d_t k(x_t, .)    i.e.  alpha_j <- c_t alpha_j (j < t),  alpha_t = d_t

(Li & Long's ``c_t``, ``d_t`` with ``||x_t||^2`` and ``w_t . x_t`` read in feature space.)

These are the optimum when both constraints are active. The first update, from ``w = 0``, is
``w = y_t k(x_t, .) / k(x_t, x_t)``, and so is every update with ``y_t f(x_t) >= k(x_t, x_t) ||w||^2``:
the new constraint alone then keeps the old half-space (``c_t`` would be negative), and the
expansion restarts from ``x_t``. ROMMA updates on mistakes only (``y_t f <= 0 < k ||w||^2``, so this
never happens); agg-ROMMA whenever ``y_t f(x_t) < 1``, where it can happen under the linear and
polynomial kernels (not under the Gaussian kernel: ``k = 1`` and ``||w||^2 >= 1`` after the first
update). ``||w||^2`` is carried along: ``||w_new||^2 = c^2 ||w||^2 + 2 c d f + d^2 k(x_t, x_t)``. An
update with ``D ~ 0`` that is left (``x_t`` anti-parallel to ``w``: no vector meets both constraints)
is skipped. Peers "ROMMA" and "agg-ROMMA" of the JMLR DUOL paper (Table 2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import BinaryKernelClassifier, reference_decision, sv_append
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register
from silkvision.backends.sparse import cols_append, decision_any, row_buffers

__all__ = ["ROMMA", "AggressiveROMMA", "romma_reference"]

_EPS = 1e-12


@njit(cache=True)
def _romma_loop(X, y, SV, coef, stamp, n, t0, state, aggressive, kind, sigma, degree, c0, cols, XT, sqn):
    m = X.shape[0]
    pred = np.empty(m)
    idx, val, work = row_buffers(X.shape[1], n)
    W = state[0]  # ||w||^2
    for i in range(m):
        x = X[i]
        yt = y[i]
        f, work = decision_any(SV, coef, n, x, kind, sigma, degree, c0, cols, XT, sqn, idx, val, work)
        p = 1.0 if f >= 0.0 else -1.0
        pred[i] = p
        if aggressive:
            upd = yt * f < 1.0
        else:
            upd = p != yt
        if not upd:
            continue
        kxx = kernel_eval(x, x, kind, sigma, degree, c0)
        if kxx <= 0.0:
            continue
        # from w = 0, and (agg-ROMMA only) when the new constraint alone already keeps the old
        # half-space (y f >= k W: the old constraint's multiplier would be negative), the optimum
        # is w = y k(x, .) / k(x, x): the expansion restarts from x
        if n == 0 or W <= 0.0 or yt * f >= kxx * W:
            n = 0
            SV, coef, stamp = sv_append(SV, coef, stamp, n, x, yt / kxx, t0 + i)
            if cols:
                XT, sqn = cols_append(XT, sqn, n, x)
            n = 1
            W = 1.0 / kxx
            continue
        D = kxx * W - f * f
        if D <= _EPS * kxx * W:
            continue
        c = (kxx * W - yt * f) / D
        d = W * (yt - f) / D
        for j in range(n):
            coef[j] *= c
        SV, coef, stamp = sv_append(SV, coef, stamp, n, x, d, t0 + i)
        if cols:
            XT, sqn = cols_append(XT, sqn, n, x)
        n += 1
        W = c * c * W + 2.0 * c * d * f + d * d * kxx
    state[0] = W
    return pred, SV, coef, stamp, n, XT, sqn


class _ROMMABase(BinaryKernelClassifier):
    _aggressive = False

    def __init__(self, kernel: str = "rbf", sigma: float = 1.0, degree: int = 2, coef: float = 1.0):
        self._init_kernel(kernel, sigma, degree, coef)

    @property
    def w_norm2_(self) -> float:
        """||w||^2 of the current hypothesis."""
        return float(self._state[0])

    _columns_path = True

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _romma_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._state,
            self._aggressive,
            *self.kernel_.args,
            st.columns,
            *st.cols_args(),
        )
        st.keep_cols(XT, sqn)
        return pred


@register("romma", "kernel ROMMA (Li & Long 2002): relaxed max-margin update on mistakes; DUOL paper peer")
class ROMMA(_ROMMABase):
    """Kernel ROMMA (updates on mistakes).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    """

    _aggressive = False


@register("aggromma", "kernel agg-ROMMA (Li & Long 2002): ROMMA update whenever y f(x) < 1; DUOL paper peer")
class AggressiveROMMA(_ROMMABase):
    """Kernel aggressive ROMMA (updates whenever the margin is below 1).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    """

    _aggressive = True


def romma_reference(X, y, aggressive=False, kernel="rbf", sigma=1.0, degree=2, coef=1.0):
    """Plain NumPy (agg-)ROMMA that recomputes ``||w||^2 = a^T K a`` from the Gram matrix each step.

    Returns ``(predictions, support vectors, coefficients)`` (``(0, d)`` and ``(0,)`` arrays when
    nothing is stored). An example with ``k(x, x) = 0`` is skipped, as by the learners.
    """
    from silkvision.backends.mercer import kernel_matrix_reference

    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, pred = [], [], []
    for x, yt in zip(X, np.asarray(y, float)):
        f = reference_decision(SV, a, x, k)
        p = 1.0 if f >= 0 else -1.0
        pred.append(p)
        if not ((yt * f < 1) if aggressive else (p != yt)):
            continue
        kxx = k(x, x)
        if kxx <= 0:
            continue
        A = np.array(a)
        W = A @ kernel_matrix_reference(np.array(SV), np.array(SV), k) @ A if SV else 0.0
        if not SV or W <= 0 or yt * f >= kxx * W:  # the new constraint alone (see the module notes)
            SV, a = [x], [yt / kxx]
            continue
        D = kxx * W - f * f
        if D <= _EPS * kxx * W:
            continue
        c = (kxx * W - yt * f) / D
        d = W * (yt - f) / D
        a = [c * v for v in a] + [d]
        SV.append(x)
    return np.array(pred), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)
