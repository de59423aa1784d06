"""Novelty detectors on vectors: SILK (Cheng et al., NIPS 2006) and NORMA (Kivinen, Smola & Williamson,
IEEE TSP 2004, section III-C; cited by title, section and formula: the paper is not among the project's stored papers, so no equation numbers are given here), the same maths as
the per-pixel video detectors without their one video-only refinement that changes learning, the
soft conservative update of :mod:`silkvision.detector.silk` (with its warm-up, hold and
global-change parts): a detector created with ``conservative=False`` scores like these.

``score_one(x)`` is ``f(x) = sum_j alpha_j k(x_j, x)``; lower means more novel. Each learning step
scores ``x_t`` first and then updates.

**SILK** (novelty hinge loss ``(rho - f(x))_+``, the one-class analogue of eqs. 14-16)::

    f = f_t(x_t)
    alpha_i <- (1 - tau) alpha_i                                     (eq. 11)
    alpha_t  = clip((rho - (1 - tau) f) / k(x_t, x_t), 0, (1 - tau) C)
    buffer of omega terms; on overflow drop the smallest |alpha| (the new term included)

(``k(x, x) = 1`` for the RBF kernel, which gives the pixel detector's
``clip(rho - (1 - tau) f, 0, (1 - tau) C)``.)

**NORMA** (loss ``(rho - f(x))_+ - nu rho``, stochastic gradient with step ``eta``)::

    sigma_t = 1 if f_t(x_t) < rho_t else 0
    alpha_i <- (1 - eta lam) alpha_i;   alpha_t = eta sigma_t
    rho_{t+1} = rho_t - eta (sigma_t - nu)          (gradient step on the offset)
    truncation: keep the omega most recent terms

so that in the long run a fraction ``nu`` of the points falls below the offset. The offset starts at
``rho`` (1 by default, as the pixel detector) and is available as ``rho_``.

These learners compute in float64; the pixel detectors keep their state (coefficients, NORMA's
offset) in float32 and evaluate the kernel with an exp2 polynomial (relative error < 1e-5). On the
same colours the scores agree to about 1e-5 (an independent check on 44 pixels of the sample over
400 frames: at most 8.2e-6 for SILK, 4.0e-6 for NORMA), but a trajectory can split
where a decision is an exact tie: NORMA's offset may come back to exactly 0 here and to ~1e-8 in
float32, so that a colour with f(x) ~ 1e-22 is learned by one and not by the other.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import (
    NoveltyKernelDetector,
    as_number,
    check_budget,
    check_positive,
    check_range,
    reference_decision,
    sv_append,
    sv_argmin_abs,
    sv_decision,
    sv_remove,
)
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.norma import sv_argmin_stamp
from silkvision.backends.registry import register

__all__ = ["SILKNovelty", "NORMANovelty", "silk_novelty_reference", "norma_novelty_reference"]


@njit(cache=True)
def _silk_novelty_loop(X, SV, coef, stamp, n, t0, C, tau, rho, omega, kind, sigma, degree, c0):
    m = X.shape[0]
    out = np.empty(m)
    om = 1.0 - tau
    cap = om * C
    for i in range(m):
        x = X[i]
        f = sv_decision(SV, coef, n, x, kind, sigma, degree, c0)
        out[i] = f
        kxx = kernel_eval(x, x, kind, sigma, degree, c0)
        a = 0.0
        if kxx > 0.0:
            a = (rho - om * f) / kxx
            if a > cap:
                a = cap
        for j in range(n):
            coef[j] *= om
        if a > 0.0:
            SV, coef, stamp = sv_append(SV, coef, stamp, n, x, a, t0 + i)
            n += 1
            if n > omega:
                n = sv_remove(SV, coef, stamp, n, sv_argmin_abs(coef, n))
    return out, SV, coef, stamp, n


@njit(cache=True)
def _norma_novelty_loop(X, SV, coef, stamp, n, t0, state, eta, lam, nu, omega, kind, sigma, degree, c0):
    m = X.shape[0]
    out = np.empty(m)
    decay = 1.0 - eta * lam
    rho = state[0]
    for i in range(m):
        x = X[i]
        f = sv_decision(SV, coef, n, x, kind, sigma, degree, c0)
        out[i] = f
        for j in range(n):
            coef[j] *= decay
        if f < rho:
            if kind == 0 or kernel_eval(x, x, kind, sigma, degree, c0) > 0.0:  # k(x, .) = 0: nothing to store
                SV, coef, stamp = sv_append(SV, coef, stamp, n, x, eta, t0 + i)
                n += 1
                if omega > 0 and n > omega:
                    n = sv_remove(SV, coef, stamp, n, sv_argmin_stamp(stamp, n))
            rho -= eta * (1.0 - nu)
        else:
            rho += eta * nu
    state[0] = rho
    return out, SV, coef, stamp, n


@register(
    "silk_novelty",
    "SILK novelty detector on vectors (Cheng et al. 2006): implicit hinge update, omega buffer",
)
class SILKNovelty(NoveltyKernelDetector):
    """SILK novelty detector.

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    C : float, default 0.4
        Box constraint ``alpha_t <= (1 - tau) C`` (the pixel detector's default).
    tau : float in [0, 1), default 0.01
        Decay of old coefficients per example.
    rho : float, default 1.0
        Margin of the novelty hinge loss.
    omega : int, default 20
        Buffer size.

    Examples
    --------
    >>> import numpy as np
    >>> from silkvision.backends import create
    >>> det = create("silk_novelty", sigma=0.5)
    >>> _ = det.progressive_score(np.zeros((50, 2)))
    >>> det.score_one([0.0, 0.0]) > det.score_one([3.0, 3.0])
    True
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        C: float = 0.4,
        tau: float = 0.01,
        rho: float = 1.0,
        omega: int = 20,
    ):
        self.C, self.tau, self.rho, self.omega = C, tau, rho, omega
        self._C = check_positive("C", C)
        self._tau = check_range("tau", tau, 0.0, 1.0, hi_open=True)
        self._rho = check_positive("rho", rho)
        self._omega = check_budget("omega", omega, allow_none=False)
        self._init_kernel(kernel, sigma, degree, coef)

    def _run(self, X, st):
        out, st.X, st.coef, st.stamp, st.n = _silk_novelty_loop(
            X,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._C,
            self._tau,
            self._rho,
            self._omega,
            *self.kernel_.args,
        )
        return out


@register(
    "norma_novelty", "NORMA novelty detector on vectors (Kivinen et al. 2004): nu-offset, truncated to omega"
)
class NORMANovelty(NoveltyKernelDetector):
    """NORMA novelty detector.

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    eta : float, default 0.1
        Learning rate (coefficient of a new term, and step of the offset).
    lam : float, default 0.1
        Regulariser: old terms decay by ``1 - eta lam`` (``eta lam < 1``).
    nu : float in [0, 1], default 0.5
        Target fraction of points below the offset.
    omega : int or None, default 20
        Truncation to the ``omega`` most recent terms (``None``: unbounded).
    rho : float, default 1.0
        Initial offset (the pixel detector's ``RHO0``).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        eta: float = 0.1,
        lam: float = 0.1,
        nu: float = 0.5,
        omega: int | None = 20,
        rho: float = 1.0,
    ):
        self.eta, self.lam, self.nu, self.omega, self.rho = eta, lam, nu, omega, rho
        self._eta = check_positive("eta", eta)
        self._lam = check_positive("lam", lam, allow_zero=True)
        check_range("eta*lam", self._eta * self._lam, 0.0, 1.0, hi_open=True)
        self._nu = check_range("nu", nu, 0.0, 1.0)
        self._omega = check_budget("omega", omega)
        rho = as_number("rho", rho)
        if not np.isfinite(rho):
            raise ValueError(f"rho: {self.rho!r} must be finite")
        self._init_kernel(kernel, sigma, degree, coef)

    def _reset(self):
        super()._reset()
        self._state[0] = float(self.rho)

    @property
    def rho_(self) -> float:
        """Current offset: x is flagged novel when f(x) < rho_."""
        return float(self._state[0])

    def _run(self, X, st):
        out, st.X, st.coef, st.stamp, st.n = _norma_novelty_loop(
            X,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._state,
            self._eta,
            self._lam,
            self._nu,
            self._omega or 0,
            *self.kernel_.args,
        )
        return out


def silk_novelty_reference(
    X, C=0.4, tau=0.01, rho=1.0, omega=20, kernel="rbf", sigma=1.0, degree=2, coef=1.0
):
    """Plain NumPy SILK novelty detector; returns ``(scores, support vectors, coefficients)`` (``(0, d)``
    and ``(0,)`` arrays when nothing is stored; an example with ``k(x, x) = 0`` gets no term)."""
    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, out = [], [], []
    for x in X:
        f = reference_decision(SV, a, x, k)
        out.append(f)
        kxx = k(x, x)
        at = float(np.clip((rho - (1 - tau) * f) / kxx, 0, (1 - tau) * C)) if kxx > 0 else 0.0
        a = [(1 - tau) * v for v in a]
        if at > 0:
            SV.append(x)
            a.append(at)
            if len(SV) > omega:
                j = int(np.argmin(np.abs(a)))
                del SV[j], a[j]
    return np.array(out), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)


def norma_novelty_reference(
    X, eta=0.1, lam=0.1, nu=0.5, omega=20, rho=1.0, kernel="rbf", sigma=1.0, degree=2, coef=1.0
):
    """Plain NumPy NORMA novelty detector; returns ``(scores, support vectors, coefficients, final rho)``
    (``(0, d)`` and ``(0,)`` arrays when nothing is stored)."""
    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, out = [], [], []
    for x in X:
        f = reference_decision(SV, a, x, k)
        out.append(f)
        a = [(1 - eta * lam) * v for v in a]
        sig = 1.0 if f < rho else 0.0
        if sig and k(x, x) > 0:
            SV.append(x)
            a.append(eta)
            if omega is not None and len(SV) > omega:
                SV, a = SV[1:], a[1:]
        rho -= eta * (sig - nu)
    return np.array(out), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float), rho
