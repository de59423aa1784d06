"""Kernel Passive-Aggressive classifiers PA, PA-I and PA-II (Crammer, Dekel, Keshet, Shalev-Shwartz
& Singer, JMLR 7, 2006, section 3 / Figure 1). Cited by title, section and formula: the paper is not among the project's stored papers, so no equation numbers are given here.

With ``f(x) = sum_j alpha_j k(x_j, x)`` and the hinge loss ``l_t = max(0, 1 - y_t f(x_t))``, a new
support vector ``x_t`` gets ``alpha_t = y_t tau_t`` whenever ``l_t > 0``, where

* PA:    ``tau_t = l_t / k(x_t, x_t)``
* PA-I:  ``tau_t = min(C, l_t / k(x_t, x_t))``
* PA-II: ``tau_t = l_t / (k(x_t, x_t) + 1 / (2 C))``

These are the peers "PA-I"/"PA-II" of the JMLR DUOL paper (Table 2, C = 5). Examples with
``k(x_t, x_t) = 0`` (possible only with a non-RBF kernel and ``x_t = 0``) are skipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import BinaryKernelClassifier, check_positive, reference_decision, sv_append
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register
from silkvision.backends.sparse import cols_append, decision_any, row_buffers

__all__ = ["PA", "PA1", "PA2", "pa_step_size", "pa_reference"]


@njit(cache=True)
def pa_step_size(loss, kxx, variant, C):
    """tau_t of PA (variant 0), PA-I (1) or PA-II (2) for hinge loss ``loss`` and ``kxx = k(x, x)``."""
    if loss <= 0.0 or kxx <= 0.0:
        return 0.0
    if variant == 0:
        return loss / kxx
    if variant == 1:
        return min(C, loss / kxx)
    return loss / (kxx + 1.0 / (2.0 * C))


@njit(cache=True)
def _pa_loop(X, y, SV, coef, stamp, n, t0, variant, C, kind, sigma, degree, c0, cols, XT, sqn):
    m = X.shape[0]
    pred = np.empty(m)
    idx, val, work = row_buffers(X.shape[1], n)
    for i in range(m):
        x = X[i]
        f, work = decision_any(SV, coef, n, x, kind, sigma, degree, c0, cols, XT, sqn, idx, val, work)
        pred[i] = 1.0 if f >= 0.0 else -1.0
        loss = 1.0 - y[i] * f
        if loss > 0.0:
            kxx = kernel_eval(x, x, kind, sigma, degree, c0)
            tau = pa_step_size(loss, kxx, variant, C)
            if tau > 0.0:
                SV, coef, stamp = sv_append(SV, coef, stamp, n, x, y[i] * tau, t0 + i)
                if cols:
                    XT, sqn = cols_append(XT, sqn, n, x)
                n += 1
    return pred, SV, coef, stamp, n, XT, sqn


class _PABase(BinaryKernelClassifier):
    _variant = 0

    def __init__(
        self, kernel: str = "rbf", sigma: float = 1.0, degree: int = 2, coef: float = 1.0, C: float = 1.0
    ):
        self.C = C
        self._C = check_positive("C", C)
        self._init_kernel(kernel, sigma, degree, coef)

    _columns_path = True

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _pa_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._variant,
            self._C,
            *self.kernel_.args,
            st.columns,
            *st.cols_args(),
        )
        st.keep_cols(XT, sqn)
        return pred


@register("pa", "kernel Passive-Aggressive (Crammer et al. 2006), hard step tau = loss / k(x, x)")
class PA(_PABase):
    """Kernel PA (no aggressiveness cap).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    C : float, default 1.0
        Accepted for a uniform signature, checked to be a finite number > 0 like PA-I's, and unused.
    """

    _variant = 0


@register("pa1", "kernel PA-I (Crammer et al. 2006): tau = min(C, loss / k(x, x)); DUOL paper peer")
class PA1(_PABase):
    """Kernel PA-I.

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    C : float, default 1.0
        Aggressiveness cap (the DUOL paper uses C = 5).
    """

    _variant = 1


@register("pa2", "kernel PA-II (Crammer et al. 2006): tau = loss / (k(x, x) + 1/(2C)); DUOL paper peer")
class PA2(_PABase):
    """Kernel PA-II.

    Parameters
    ----------
    kernel, sigma, degree, coef, C : as :class:`PA1` (``C`` weighs the squared slack here).
    """

    _variant = 2


def pa_reference(X, y, variant=1, C=1.0, kernel="rbf", sigma=1.0, degree=2, coef=1.0):
    """Plain NumPy PA / PA-I / PA-II; returns ``(predictions, support vectors, coefficients)``
    (``(0, d)`` and ``(0,)`` arrays when nothing is stored)."""
    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, pred = [], [], []
    for x, yt in zip(X, np.asarray(y, float)):
        f = reference_decision(SV, a, x, k)
        pred.append(1.0 if f >= 0 else -1.0)
        loss = max(0.0, 1.0 - yt * f)
        kxx = k(x, x)
        if loss > 0 and kxx > 0:
            tau = [loss / kxx, min(C, loss / kxx), loss / (kxx + 1 / (2 * C))][variant]
            SV.append(x)
            a.append(yt * tau)
    return np.array(pred), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)
