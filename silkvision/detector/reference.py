"""Plain NumPy reference implementations of the detector kernels (:mod:`silkvision.detector.kernels`).

Two levels, both used by ``tests/detector/test_reference_agreement.py``:

* **Mirrors** (:func:`fast_exp_reference`, :func:`silk_frame_reference`,
  :func:`norma_frame_reference`, :func:`renormalise_reference`): the same state layout and the same
  float32 operations in the same order as the numba kernels, written with whole-array NumPy
  operations (a loop over the omega slots only). They check the compiled kernels (indexing,
  vectorised argmin, branch-free insertion, per-thread scratch) and agree with them to float32
  rounding -- in practice bit for bit, because neither side re-associates or contracts to FMA.
* **Textbook detectors** (:class:`SilkPixelModel`, :class:`NormaPixelModel`): one pixel, the maths
  written the way the papers state it -- float64, ``np.exp``, true coefficients decayed explicitly
  every step, a Python list as the support-vector buffer. They check the *algorithm* of the fast
  path: the global decay scale with renormalisation and the polynomial exp change scores only at
  the 1e-5 relative level (the fast exp's error bound is 2.5e-5).
"""

from __future__ import annotations

import numpy as np

from silkvision.detector.kernels import EXP_COEFFS, EXP_MIN, EXP_SQUARINGS

__all__ = ["fast_exp_reference", "silk_frame_reference", "norma_frame_reference",
           "renormalise_reference", "SilkPixelModel", "NormaPixelModel"]

_F = np.float32


def fast_exp_reference(y: np.ndarray) -> np.ndarray:
    """NumPy version of :func:`silkvision.detector.kernels.fast_exp` (float32 in, float32 out)."""
    y = np.maximum(np.asarray(y, np.float32), EXP_MIN)
    z = y * _F(1.0 / 2 ** EXP_SQUARINGS)
    c1, c2, c3, c4, c5 = (_F(c) for c in EXP_COEFFS)
    p = ((((c5 * z + c4) * z + c3) * z + c2) * z + c1) * z + _F(1.0)
    for _ in range(EXP_SQUARINGS):
        p = p * p
    return p.astype(np.float32, copy=False)


def _kernel_sums(feat, colours, alphas, inv2s2):
    """sum_j alphas[:, j] * k(colours[:, j], feat) in the kernel's order; (H, W) float32."""
    H, W, C = feat.shape
    f = feat.astype(np.float32).transpose(2, 0, 1)          # (C, H, W)
    acc = np.zeros((H, W), np.float32)
    for j in range(alphas.shape[1]):
        cj = colours[:, j].astype(np.float32)               # (H, C, W)
        t = f[0] - cj[:, 0]
        d2 = t * t
        for c in range(1, C):
            t = f[c] - cj[:, c]
            d2 = d2 + t * t
        k = fast_exp_reference(-d2 * _F(inv2s2))
        acc = acc + alphas[:, j] * k
    return acc


def silk_frame_reference(feat, colours, alphas, scale, inv_scale_new, decay, rho, cap, cap_fg,
                         threshold, inv2s2, learn, scores, mask) -> None:
    """NumPy mirror of :func:`silkvision.detector.kernels.silk_frame` (same arguments, no scratch).

    Updates ``colours``, ``alphas`` (when ``learn``), ``scores`` and ``mask`` in place.
    """
    H, W, C = feat.shape
    acc = _kernel_sums(feat, colours, alphas, inv2s2)
    s = acc * _F(scale)
    scores[...] = s
    fg = s < _F(threshold)
    mask[...] = np.where(fg, 255, 0).astype(np.uint8)
    if not learn:
        return
    cp = np.where(fg, _F(cap_fg), _F(cap)).astype(np.float32)
    a = _F(rho) - _F(decay) * s
    a = np.minimum(np.maximum(a, _F(0.0)), cp)
    a = a * _F(inv_scale_new)
    jmin = np.argmin(alphas, axis=1)                         # (H, W): first index of the minimum
    yy, xx = np.mgrid[0:H, 0:W]
    amin = alphas[yy, jmin, xx]
    ins = a > amin
    yi, xi, ji = yy[ins], xx[ins], jmin[ins]
    alphas[yi, ji, xi] = a[ins]
    for c in range(C):
        colours[yi, ji, c, xi] = feat[yi, xi, c]


def norma_frame_reference(feat, colours, alphas, ptr, rho, scale, inv_scale_new, alpha_new,
                          rho_down, rho_up, threshold, inv2s2, learn, scores, mask) -> None:
    """NumPy mirror of :func:`silkvision.detector.kernels.norma_frame` (same arguments, no scratch)."""
    H, W, C = feat.shape
    omega = alphas.shape[1]
    acc = _kernel_sums(feat, colours, alphas, inv2s2)
    s = acc * _F(scale)
    scores[...] = s
    mask[...] = np.where(s < _F(threshold), 255, 0).astype(np.uint8)
    if not learn:
        return
    ins = s < rho
    yy, xx = np.mgrid[0:H, 0:W]
    yi, xi = yy[ins], xx[ins]
    ji = ptr[ins].astype(np.int64)
    alphas[yi, ji, xi] = _F(alpha_new)
    for c in range(C):
        colours[yi, ji, c, xi] = feat[yi, xi, c]
    nxt = ji + 1
    ptr[ins] = np.where(nxt >= omega, 0, nxt).astype(np.uint8)
    rho[...] = np.where(ins, rho - _F(rho_down), rho + _F(rho_up)).astype(np.float32)


def renormalise_reference(alphas, scale, floor) -> None:
    """NumPy mirror of :func:`silkvision.detector.kernels.renormalise` (in place)."""
    v = alphas * _F(scale)
    alphas[...] = np.where(v >= _F(floor), v, _F(0.0))


def _gauss(x, sv, sigma):
    d = np.asarray(x, np.float64) - np.asarray(sv, np.float64)
    return float(np.exp(-np.dot(d, d) / (2.0 * sigma * sigma)))


class SilkPixelModel:
    """Textbook SILK novelty detector of ONE pixel (Cheng et al. 2006, eqs. 11, 16 and the SILK buffer).

    ``step(x)`` returns f_t(x_t) = sum_i alpha_i k(x_i, x_t) computed before the update, then
    decays every alpha by (1 - tau) (eq. 11), computes the new coefficient by the implicit hinge
    step clip(rho - (1 - tau) f_t(x_t), 0, cap) with k(x, x) = 1 (eq. 16, novelty form; cap =
    (1 - tau) C, or (1 - tau) kappa C for a pixel scored foreground after ``warmup`` frames when
    ``conservative``), and keeps the omega largest coefficients (the new one replaces the
    lowest iff it is larger; ties: the first slot).
    """

    def __init__(self, omega, tau, C, rho, sigma, threshold, conservative=False, kappa=1.0,
                 warmup=0):
        self.omega, self.tau, self.C, self.rho, self.sigma = omega, tau, C, rho, sigma
        self.threshold, self.conservative, self.kappa, self.warmup = threshold, conservative, kappa, warmup
        self.sv: list = [None] * omega
        self.alpha = [0.0] * omega
        self.t = 0

    def score(self, x) -> float:
        return sum(a * _gauss(x, s, self.sigma) for a, s in zip(self.alpha, self.sv) if a > 0)

    def step(self, x, learn=True) -> float:
        f = self.score(x)
        if not learn:
            return f
        d = 1.0 - self.tau
        self.alpha = [a * d for a in self.alpha]
        cap = d * self.C
        if self.conservative and self.t >= self.warmup and f < self.threshold:
            cap = d * self.kappa * self.C
        a_new = min(max(self.rho - d * f, 0.0), cap)
        j = int(np.argmin(self.alpha))
        if a_new > self.alpha[j]:
            self.alpha[j] = a_new
            self.sv[j] = np.array(x, np.float64)
        self.t += 1
        return f


class NormaPixelModel:
    """Textbook truncated NORMA novelty detector of ONE pixel (Kivinen, Smola, Williamson 2004).

    Loss (rho - f(x))_+ - nu rho; stochastic gradient step with learning rate eta and regulariser
    lambda: every coefficient decays by (1 - eta lambda); if f_t(x_t) < rho the new term
    eta k(x_t, .) is added and rho falls by eta (1 - nu), otherwise rho rises by eta nu. Truncation:
    only the last omega terms are kept (a ring buffer). ``step`` returns the bare f_t(x_t).
    """

    def __init__(self, omega, eta, lam, nu, sigma, rho0=1.0):
        self.omega, self.eta, self.lam, self.nu, self.sigma = omega, eta, lam, nu, sigma
        self.sv: list = [None] * omega
        self.alpha = [0.0] * omega
        self.ptr = 0
        self.rho = rho0

    def step(self, x, learn=True) -> float:
        f = sum(a * _gauss(x, s, self.sigma) for a, s in zip(self.alpha, self.sv) if a > 0)
        if not learn:
            return f
        d = 1.0 - self.eta * self.lam
        self.alpha = [a * d for a in self.alpha]
        if f < self.rho:
            self.alpha[self.ptr] = self.eta
            self.sv[self.ptr] = np.array(x, np.float64)
            self.ptr = (self.ptr + 1) % self.omega
            self.rho -= self.eta * (1.0 - self.nu)
        else:
            self.rho += self.eta * self.nu
        return f
