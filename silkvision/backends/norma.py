"""NORMA classifiers (Kivinen, Smola & Williamson, "Online learning with kernels", IEEE TSP 52(8),
2004, section III-B, soft-margin hinge loss with fixed margin rho). Cited by title, section and
formula: the paper is not among the project's stored papers, so no equation numbers are given here.

Stochastic gradient descent on ``lam/2 ||f||^2 + max(0, rho - y f(x))`` with learning rate ``eta``::

    sigma_t = 1 if y_t f_t(x_t) < rho else 0
    alpha_i <- (1 - eta lam) alpha_i            (i < t)
    alpha_t  = eta sigma_t y_t

The margin must be positive: the model starts at ``f = 0`` and takes a step only when ``y f < rho``
(strictly, as in the paper; a tie ``y f = rho`` is no step), so ``rho = 0`` would never learn anything
and is refused.

Truncated NORMA keeps only the ``omega`` most recent terms (the least-recently-added term is
dropped, the "LRU" truncation the SILK paper compares against, section 2.1). A term whose
``k(x_t, x_t)`` is 0 (a zero vector under the linear kernel) is the zero function and is not stored;
the decay still applies.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import (
    BinaryKernelClassifier,
    as_number,
    check_budget,
    check_positive,
    check_range,
    reference_decision,
    sv_append,
    sv_decision,
    sv_remove,
)
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register

__all__ = ["NORMA", "TruncatedNORMA", "norma_reference", "sv_argmin_stamp"]


@njit(cache=True)
def sv_argmin_stamp(stamp, n):
    """Index of the oldest support vector (smallest stamp) among the first ``n``."""
    best = 0
    for j in range(1, n):
        if stamp[j] < stamp[best]:
            best = j
    return best


@njit(cache=True)
def _norma_loop(X, y, SV, coef, stamp, n, t0, eta, lam, rho, omega, kind, sigma, degree, c0):
    m = X.shape[0]
    pred = np.empty(m)
    decay = 1.0 - eta * lam
    for i in range(m):
        x = X[i]
        f = sv_decision(SV, coef, n, x, kind, sigma, degree, c0)
        pred[i] = 1.0 if f >= 0.0 else -1.0
        for j in range(n):
            coef[j] *= decay
        # a term with k(x, .) = 0 (zero vector, linear kernel) is the zero function: not stored, so it
        # never takes a truncated buffer's place (the Gaussian kernel has k(x, x) = 1)
        if y[i] * f < rho and (kind == 0 or kernel_eval(x, x, kind, sigma, degree, c0) > 0.0):
            SV, coef, stamp = sv_append(SV, coef, stamp, n, x, eta * y[i], t0 + i)
            n += 1
            if omega > 0 and n > omega:
                n = sv_remove(SV, coef, stamp, n, sv_argmin_stamp(stamp, n))
    return pred, SV, coef, stamp, n


@register("norma", "NORMA (Kivinen, Smola & Williamson 2004): kernel SGD on the regularised hinge loss")
class NORMA(BinaryKernelClassifier):
    """NORMA classifier (unbounded expansion unless ``omega`` is set).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    eta : float, default 0.1
        Learning rate; a new term gets coefficient ``eta y_t``.
    lam : float, default 0.01
        Regulariser lambda; old terms decay by ``1 - eta lam`` per example (``eta lam < 1``).
    rho : float, default 1.0
        Margin of the hinge loss, > 0: a step is taken only when ``y f < rho`` and the model starts at
        ``f = 0``, so ``rho = 0`` would never learn (ValueError).
    omega : int or None, default None
        Truncation: keep only the ``omega`` most recent terms.
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        eta: float = 0.1,
        lam: float = 0.01,
        rho: float = 1.0,
        omega: int | None = None,
    ):
        self.eta, self.lam, self.rho, self.omega = eta, lam, rho, omega
        self._eta = check_positive("eta", eta)
        self._lam = check_positive("lam", lam, allow_zero=True)
        check_range("eta*lam", self._eta * self._lam, 0.0, 1.0, hi_open=True)
        if as_number("rho", rho) == 0.0:
            raise ValueError(
                f"rho: {rho!r} never updates: the model starts at f = 0 and learns only when "
                f"y f < rho; expected rho > 0"
            )
        self._rho = check_positive("rho", rho)
        self._omega = check_budget("omega", omega)
        self._init_kernel(kernel, sigma, degree, coef)

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n = _norma_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._eta,
            self._lam,
            self._rho,
            self._omega or 0,
            *self.kernel_.args,
        )
        return pred


@register("tnorma", "truncated NORMA (Kivinen et al. 2004): NORMA keeping the omega most recent terms")
class TruncatedNORMA(NORMA):
    """NORMA truncated to the ``omega`` most recent terms.

    Parameters
    ----------
    kernel, sigma, degree, coef, eta, lam, rho : as :class:`NORMA`.
    omega : int, default 100
        Number of most recent terms kept.
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        eta: float = 0.1,
        lam: float = 0.01,
        rho: float = 1.0,
        omega: int = 100,
    ):
        check_budget("omega", omega, allow_none=False)
        super().__init__(kernel, sigma, degree, coef, eta, lam, rho, omega)


def norma_reference(
    X, y, eta=0.1, lam=0.01, rho=1.0, omega=None, kernel="rbf", sigma=1.0, degree=2, coef=1.0
):
    """Plain NumPy (truncated) NORMA; returns ``(predictions, support vectors in insertion order,
    coefficients)``; ``(0, d)`` and ``(0,)`` arrays when nothing is stored."""
    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, pred = [], [], []
    for x, yt in zip(X, np.asarray(y, float)):
        f = reference_decision(SV, a, x, k)
        pred.append(1.0 if f >= 0 else -1.0)
        a = [(1 - eta * lam) * v for v in a]
        if yt * f < rho and k(x, x) > 0:
            SV.append(x)
            a.append(eta * yt)
            if omega is not None and len(SV) > omega:
                SV, a = SV[1:], a[1:]
    return np.array(pred), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)
