"""ILK and SILK binary classifiers: implicit online learning with kernels (Cheng, Vishwanathan,
Schuurmans, Wang & Caelli, NIPS 2006).

The implicit update (paper eq. 9, fixed step eta = 1, ``tau = lam / (1 + lam)``) multiplies every old
coefficient by ``(1 - tau)`` (eq. 11) and gives the new point ``x_t`` the coefficient ``alpha_t``
(eq. 12) that solves the update at ``f_{t+1}``. Writing ``f = f_t(x_t)`` and ``k = k(x_t, x_t)``:

* square loss ``(f(x) - y)^2 / 2`` (eq. 13 is its gradient ``(f(x) - y) k(x, .)``): the closed form that
  follows from eq. 13 with eqs. 9 and 12 (unnumbered in the paper)
  ``alpha_t = C (1 - tau) (y - (1 - tau) f) / (1 + C (1 - tau) k)``
* hinge loss ``(rho - y f(x))_+`` (eqs. 14-16): ``alpha_hat = y (rho - (1 - tau) y f) / k``, clipped so
  that ``y alpha_t`` lies in ``[0, (1 - tau) C]``
* logistic loss ``log(1 + exp(-y f(x)))``: ``alpha_t = y a`` where ``a`` solves
  ``a = (1 - tau) C / (1 + exp(y (1 - tau) f + a k))`` on ``[0, (1 - tau) C]``; the root is unique
  (the left side minus the right side is increasing) and found by safeguarded Newton/bisection.

ILK keeps every non-zero term (eq. 19). SILK (section 2.1) keeps a buffer of ``omega`` terms: when
the buffer overflows, the term with the smallest ``|alpha|`` (the new one included) is discarded. The
paper says "the point with the lowest coefficient value is discarded"; the binary coefficients are
signed (``y_t alpha_t >= 0`` for the hinge and logistic losses, either sign for the square loss), and
"lowest" taken literally would evict the most negative one, i.e. the strongest ``-1`` term, so
reading it as the smallest ``|alpha|`` is ours. For the novelty and per-pixel detectors
``alpha >= 0`` and the two readings coincide (the paper's rule).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from silkvision.backends._support import (
    BinaryKernelClassifier,
    check_budget,
    check_choice,
    check_positive,
    check_range,
    reference_decision,
    sv_append,
    sv_argmin_abs,
    sv_decision,
    sv_remove,
)
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register

__all__ = ["ILK", "SILK", "ilk_alpha", "logistic_root", "ilk_reference", "LOSSES"]

LOSSES = ("hinge", "square", "logistic")
HINGE, SQUARE, LOGISTIC = 0, 1, 2  # indices into LOSSES: the codes ilk_alpha takes


@njit(cache=True)
def logistic_root(m, k, B):
    """The root ``a`` in ``[0, B]`` of ``a - B / (1 + exp(m + a k)) = 0`` (``B >= 0``, ``k >= 0``).

    Newton's iteration inside a bisection bracket, to ~1e-15 relative. A Newton step is taken only
    while it stays inside the bracket and the bracket at least halved since the step before;
    otherwise the step bisects. (Without the second rule Newton could bounce from one end of the
    bracket to the other, each step inside it, and 200 steps ended far from the root.)
    """
    if B <= 0.0:
        return 0.0
    lo, hi = 0.0, B
    a = B / (1.0 + math.exp(min(m, 700.0)))  # exact when k = 0, a good start otherwise
    width = hi - lo
    for _ in range(200):
        z = min(m + a * k, 700.0)
        e = math.exp(z)
        s = 1.0 / (1.0 + e)
        g = a - B * s
        if g == 0.0:
            return a
        if g > 0.0:
            hi = a
        else:
            lo = a
        step = g / (1.0 + B * k * e * s * s)
        if abs(step) <= 1e-16 * a or hi - lo <= 4e-16 * hi:
            return a
        an = a - step
        if an <= lo or an >= hi or hi - lo > 0.5 * width:
            an = 0.5 * (lo + hi)
        width = hi - lo
        a = an
    return a


@njit(cache=True)
def ilk_alpha(loss, f, yt, kxx, C, tau, rho):
    """The new coefficient alpha_t of ILK/SILK for ``f = f_t(x_t)``: hinge eq. 16, square the closed form
    that follows from eq. 13 (unnumbered in the paper), logistic the root of its fixed-point equation;
    0 for an example with ``k(x, x) = 0`` (its term would be the zero function, yet take a SILK slot)."""
    om = 1.0 - tau
    if kxx <= 0.0:  # k(x, .) is then the zero function (Cauchy-Schwarz): nothing to store
        return 0.0
    if loss == HINGE:
        a = (rho - om * yt * f) / kxx  # = y alpha_hat
        if a <= 0.0:
            return 0.0
        if a > om * C:
            a = om * C
        return yt * a
    if loss == SQUARE:
        return C * om * (yt - om * f) / (1.0 + C * om * kxx)
    return yt * logistic_root(yt * om * f, kxx, om * C)


@njit(cache=True)
def _ilk_loop(X, y, SV, coef, stamp, n, t0, loss, C, tau, rho, omega, kind, sigma, degree, c0):
    m = X.shape[0]
    pred = np.empty(m)
    om = 1.0 - tau
    for i in range(m):
        x = X[i]
        f = sv_decision(SV, coef, n, x, kind, sigma, degree, c0)
        pred[i] = 1.0 if f >= 0.0 else -1.0
        kxx = kernel_eval(x, x, kind, sigma, degree, c0)
        a = ilk_alpha(loss, f, y[i], kxx, C, tau, rho)
        for j in range(n):  # eq. (11)
            coef[j] *= om
        if a != 0.0:
            SV, coef, stamp = sv_append(SV, coef, stamp, n, x, a, t0 + i)
            n += 1
            if omega > 0 and n > omega:  # SILK: drop the smallest |alpha|
                n = sv_remove(SV, coef, stamp, n, sv_argmin_abs(coef, n))
    return pred, SV, coef, stamp, n


@register("ilk", "ILK (Cheng et al. 2006): implicit kernel update, hinge/square/logistic loss, unbounded")
class ILK(BinaryKernelClassifier):
    """ILK binary classifier (no budget unless ``omega`` is set; then it is SILK).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    loss : {"hinge", "square", "logistic"}, default "hinge"
    C : float, default 1.0
        Loss weight (hinge: box constraint ``|alpha_t| <= (1 - tau) C``).
    tau : float in [0, 1), default 0.01
        Decay ``tau = eta lam / (1 + eta lam)``: old coefficients are multiplied by ``1 - tau`` per
        example. ``tau = 0`` with the hinge loss is PA-I (paper section 5).
    rho : float, default 1.0
        Margin of the hinge loss (the paper fixes rho = 1).
    omega : int or None, default None
        Buffer size (SILK).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        loss: str = "hinge",
        C: float = 1.0,
        tau: float = 0.01,
        rho: float = 1.0,
        omega: int | None = None,
    ):
        self.loss, self.C, self.tau, self.rho, self.omega = loss, C, tau, rho, omega
        self._loss = LOSSES.index(check_choice("loss", loss, LOSSES))
        self._C = check_positive("C", C)
        self._tau = check_range("tau", tau, 0.0, 1.0, hi_open=True)
        self._rho = check_positive("rho", rho, allow_zero=True)
        self._omega = check_budget("omega", omega)
        self._init_kernel(kernel, sigma, degree, coef)

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n = _ilk_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._loss,
            self._C,
            self._tau,
            self._rho,
            self._omega or 0,
            *self.kernel_.args,
        )
        return pred


@register("silk", "SILK (Cheng et al. 2006): ILK with a buffer of omega terms, smallest |alpha| evicted")
class SILK(ILK):
    """SILK binary classifier: :class:`ILK` with a buffer of ``omega`` terms.

    Parameters
    ----------
    kernel, sigma, degree, coef, loss, C, tau, rho : as :class:`ILK`.
    omega : int, default 100
        Buffer size: the term with the smallest ``|alpha|`` is dropped when it is full.
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        loss: str = "hinge",
        C: float = 1.0,
        tau: float = 0.01,
        rho: float = 1.0,
        omega: int = 100,
    ):
        check_budget("omega", omega, allow_none=False)
        super().__init__(kernel, sigma, degree, coef, loss, C, tau, rho, omega)


def ilk_reference(
    X, y, loss="hinge", C=1.0, tau=0.01, rho=1.0, omega=None, kernel="rbf", sigma=1.0, degree=2, coef=1.0
):
    """Plain NumPy/SciPy ILK/SILK (logistic root by :func:`scipy.optimize.brentq`).

    Returns ``(predictions, support vectors, coefficients)`` with the vectors in insertion order
    (``(0, d)`` and ``(0,)`` arrays when nothing is stored). An example with ``k(x, x) = 0`` gets no
    term, as in :func:`ilk_alpha`.
    """
    from scipy.optimize import brentq

    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, pred = [], [], []
    om = 1 - tau
    for x, yt in zip(X, np.asarray(y, float)):
        f = reference_decision(SV, a, x, k)
        pred.append(1.0 if f >= 0 else -1.0)
        kxx = k(x, x)
        if kxx <= 0:
            at = 0.0
        elif loss == "square":
            at = C * om * (yt - om * f) / (1 + C * om * kxx)
        elif loss == "hinge":
            ahat = yt * (rho - om * yt * f) / kxx
            at = float(np.clip(yt * ahat, 0, om * C)) * yt
        else:
            B = om * C
            g = lambda u: u - B / (1 + np.exp(yt * om * f + u * kxx))  # noqa: E731
            at = yt * brentq(g, 0.0, B, xtol=1e-15, rtol=1e-15)
        a = [om * v for v in a]
        if at != 0:
            SV.append(x)
            a.append(at)
            if omega is not None and len(SV) > omega:
                j = int(np.argmin(np.abs(a)))
                del SV[j], a[j]
    return np.array(pred), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)
