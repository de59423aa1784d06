"""Kernel ALMA_2(alpha), the Approximate Large Margin Algorithm (C. Gentile, "A new approximate maximal
margin classification algorithm", JMLR 2:213-242, 2001), with p = 2. Cited by title and formula: the
paper is not among the project's stored papers, so no equation numbers are given here.

Only p = 2 can be kernelised (the p-norm link function of ALMA_p is the identity only for p = 2);
this is the "ALMA_2(0.9)" peer of the JMLR DUOL paper (section 5.1: p = 2, alpha = 0.9). Inputs are
normalised in feature space, ``x_hat = x / sqrt(k(x, x))`` (a no-op for the RBF kernel). With the
update counter ``k`` (starting at 1), ``B = 1 / alpha`` and ``C = sqrt(2)`` (Gentile's defaults):

    gamma_k = B / sqrt(k),  eta_k = C / sqrt(k)     (Gentile's B sqrt(p-1)/sqrt(k), C/(sqrt(p-1) sqrt(k)))
    if y_t w . x_hat_t <= (1 - alpha) gamma_k:
        w' = w + eta_k y_t x_hat_t;  w = w' / max(1, ||w'||);  k = k + 1

In the kernel expansion ``w = sum_j alpha_j k(x_j, .)`` an update appends ``alpha_t = eta_k y_t /
sqrt(k(x_t, x_t))`` and, when ``||w'|| > 1``, scales every ``alpha_j`` by ``1 / ||w'||``.

``||w||^2`` is carried along (``||w'||^2 = ||w||^2 + 2 eta y f + eta^2``). Mistakes are counted with
the sign of ``f = w . x_hat`` (``+1`` for ``f >= 0``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from silkvision.backends._support import (
    BinaryKernelClassifier,
    check_positive,
    check_range,
    reference_decision,
    sv_append,
)
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register
from silkvision.backends.sparse import cols_append, decision_any, row_buffers

__all__ = ["ALMA", "alma_reference", "C_MAX"]

#: Largest accepted learning-rate scale ``C`` (see :class:`ALMA`).
C_MAX = 1e100


@njit(cache=True)
def _alma_loop(X, y, SV, coef, stamp, n, t0, state, alpha, B, C, kind, sigma, degree, c0, cols, XT, sqn):
    m = X.shape[0]
    pred = np.empty(m)
    idx, val, work = row_buffers(X.shape[1], n)
    W = state[0]  # ||w||^2
    k = state[1]  # update counter (starts at 1)
    for i in range(m):
        x = X[i]
        yt = y[i]
        kxx = kernel_eval(x, x, kind, sigma, degree, c0)
        nx = math.sqrt(kxx) if kxx > 0.0 else 0.0
        f, work = decision_any(SV, coef, n, x, kind, sigma, degree, c0, cols, XT, sqn, idx, val, work)
        if nx > 0.0:
            f /= nx
        else:
            f = 0.0
        pred[i] = 1.0 if f >= 0.0 else -1.0
        if nx <= 0.0:
            continue
        sk = math.sqrt(k)
        if yt * f <= (1.0 - alpha) * B / sk:
            eta = C / sk
            W2 = W + 2.0 * eta * yt * f + eta * eta
            SV, coef, stamp = sv_append(SV, coef, stamp, n, x, eta * yt / nx, t0 + i)
            if cols:
                XT, sqn = cols_append(XT, sqn, n, x)
            n += 1
            if W2 > 1.0:
                s = 1.0 / math.sqrt(W2)
                for j in range(n):
                    coef[j] *= s
                W = 1.0
            else:
                W = W2
            k += 1.0
    state[0] = W
    state[1] = k
    return pred, SV, coef, stamp, n, XT, sqn


@register(
    "alma", "kernel ALMA_2(alpha) (Gentile 2001), p = 2, normalised inputs; DUOL paper peer (alpha = 0.9)"
)
class ALMA(BinaryKernelClassifier):
    """Kernel ALMA_p(alpha) with p = 2.

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    alpha : float in (0, 1], default 0.9
        Margin approximation factor (the DUOL paper's 0.9).
    B : float or None, default None
        Margin scale; ``None`` means Gentile's ``1 / alpha``.
    C : float in (0, 1e100], default sqrt(2)
        Learning-rate scale (Gentile's ``sqrt(2)``; not the DUOL paper's C = 5, which is a box
        constraint of the other algorithms). Bounded by :data:`C_MAX` so that an update's step
        ``eta^2 <= C^2`` and coefficient ``eta / sqrt(k(x, x)) <= C / sqrt(5e-324)`` stay finite (a
        larger C gave inf/NaN decisions with the linear and polynomial kernels).
    """

    _n_state = 2

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        alpha: float = 0.9,
        B: float | None = None,
        C: float = math.sqrt(2.0),
    ):
        self.alpha, self.B, self.C = alpha, B, C
        self._alpha = check_range("alpha", alpha, 0.0, 1.0, lo_open=True)
        self._B = 1.0 / self._alpha if B is None else check_positive("B", B)
        self._C = check_range("C", C, 0.0, C_MAX, lo_open=True)
        self._init_kernel(kernel, sigma, degree, coef)

    def _reset(self):
        super()._reset()
        self._state[1] = 1.0

    def decision_function_one(self, x) -> float:
        """f(x) = w . x_hat (the margin of the normalised input)."""
        x = self._check_one(x)
        kxx = self.kernel_(x, x)
        return float(self._raw_decision(x)) / math.sqrt(kxx) if kxx > 0 else 0.0

    _columns_path = True

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _alma_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._state,
            self._alpha,
            self._B,
            self._C,
            *self.kernel_.args,
            st.columns,
            *st.cols_args(),
        )
        st.keep_cols(XT, sqn)
        return pred


def alma_reference(X, y, alpha=0.9, B=None, C=math.sqrt(2.0), kernel="rbf", sigma=1.0, degree=2, coef=1.0):
    """Plain NumPy kernel ALMA_2 that renormalises with the Gram matrix; returns ``(pred, SV, coef)``
    (``(0, d)`` and ``(0,)`` arrays when nothing is stored). An example with ``k(x, x) = 0`` scores 0
    and is skipped, as by :class:`ALMA`."""
    from silkvision.backends.mercer import kernel_matrix_reference

    k = make_kernel(kernel, sigma, degree, coef)
    B = 1.0 / alpha if B is None else B
    X = np.asarray(X, float)
    SV, a, pred = [], [], []
    upd = 1
    for x, yt in zip(X, np.asarray(y, float)):
        nx = math.sqrt(k(x, x))
        f = reference_decision(SV, a, x, k) / nx if nx > 0 else 0.0
        pred.append(1.0 if f >= 0 else -1.0)
        if nx > 0 and yt * f <= (1 - alpha) * B / math.sqrt(upd):
            SV.append(x)
            a.append(C / math.sqrt(upd) * yt / nx)
            A = np.array(a)
            norm = math.sqrt(A @ kernel_matrix_reference(np.array(SV), np.array(SV), k) @ A)
            a = [v / max(1.0, norm) for v in a]
            upd += 1
    return np.array(pred), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)
