"""Plain NumPy reference implementations of the detector kernels (:mod:`silkvision.detector.kernels`).

Two levels, both used by ``tests/detector/test_reference_agreement.py``:

* **Mirrors** (:func:`fma32_reference`, :func:`exp2_neg_reference`, :func:`silk_frame_reference`,
  :func:`norma_frame_reference`, :func:`renormalise_reference`): the same state layout and the same
  float32 operations in the same order as the numba kernels, written with whole-array NumPy
  operations (a loop over the omega slots only). They check the compiled kernels (indexing,
  vectorised argmin, insertion, per-thread scratch) bit for bit: neither side re-associates, and
  the kernel's explicit FMAs are reproduced by a correctly rounded NumPy FMA.
* **Textbook detectors** (:class:`SilkPixelModel`, :class:`NormaPixelModel`): one pixel, the maths
  written the way the papers state it -- float64, ``np.exp``, true coefficients decayed explicitly
  every step, a Python list as the support-vector buffer. They check the *algorithm* of the fast
  path: the global decay scale with renormalisation and the polynomial exp change scores only at
  the 1e-5 relative level (the fast exp's error bound is 1e-5).
"""

from __future__ import annotations

import numpy as np

from silkvision.detector import kernels as _k
from silkvision.detector.kernels import EXP2_COEFFS, U_MIN

__all__ = [
    "fma32_reference",
    "exp2_neg_reference",
    "silk_frame_reference",
    "silk_feedback_reference",
    "lbsp_reference",
    "popcount16_reference",
    "width_scale_reference",
    "norma_frame_reference",
    "renormalise_reference",
    "SilkPixelModel",
    "NormaPixelModel",
    "median_mask_reference",
    "close_mask_reference",
    "fill_holes_reference",
]

_F = np.float32


def fma32_reference(a, b, c) -> np.ndarray:
    """Correctly rounded float32 ``a * b + c`` (what ``llvm.fma.f32`` / FMA3 computes), in NumPy.

    The product of two float32 is exact in float64; the float64 sum ``s`` is made exact with the
    TwoSum error term ``e`` (``a b + c = s + e``); rounding ``s`` to float32 is then correct unless
    ``s`` lies exactly half-way between two float32 (double rounding), where ``e`` decides.
    """
    a64 = np.asarray(a, np.float32).astype(np.float64)
    b64 = np.asarray(b, np.float32).astype(np.float64)
    c64 = np.asarray(c, np.float32).astype(np.float64)
    p = a64 * b64
    s = p + c64
    bb = s - p
    e = (p - (s - bb)) + (c64 - bb)
    r = s.astype(np.float32)
    r64 = r.astype(np.float64)
    up = np.nextafter(r, _F(np.inf))
    dn = np.nextafter(r, _F(-np.inf))
    r = np.where((s == (r64 + up.astype(np.float64)) * 0.5) & (e > 0), up, r)
    r = np.where((s == (r64 + dn.astype(np.float64)) * 0.5) & (e < 0), dn, r)
    return r.astype(np.float32, copy=False)


def exp2_neg_reference(u: np.ndarray) -> np.ndarray:
    """NumPy version of :func:`silkvision.detector.kernels.exp2_neg` (float32 in and out)."""
    u = np.maximum(np.asarray(u, np.float32), U_MIN)
    n = np.floor(u)
    f = u - n
    c1, c2, c3, c4 = (_F(c) for c in EXP2_COEFFS)
    p = fma32_reference(
        fma32_reference(fma32_reference(fma32_reference(c4, f, c3), f, c2), f, c1), f, _F(1.0)
    )
    bits = p.view(np.int32) + n.astype(np.int32) * np.int32(1 << 23)
    return bits.view(np.float32)


_POPCOUNT16: list = []  # the set bits of every uint16, made on first use


def popcount16_reference(v) -> np.ndarray:
    """Set bits of every element of a uint16 array (a table lookup)."""
    if not _POPCOUNT16:
        _POPCOUNT16.append(np.array([bin(i).count("1") for i in range(1 << 16)], np.uint16))
    return _POPCOUNT16[0][np.asarray(v, np.uint16)]


def lbsp_reference(feat) -> np.ndarray:
    """NumPy version of :func:`silkvision.detector.kernels.lbsp_frame`, from its definition: bit p
    where ``|I_p - I_c| > max(LBSP_REL I_c, LBSP_ABS)`` in float32, with the frame's border
    repeated; (H, W) uint16."""
    g = feat[..., 0].astype(np.float32)
    H, W = g.shape
    pad = np.pad(g, 2, mode="edge")
    t = np.maximum(_k.LBSP_REL * g, _k.LBSP_ABS)
    out = np.zeros((H, W), np.uint16)
    for p in range(16):
        dy, dx = int(_k._LBSP_DY[p]), int(_k._LBSP_DX[p])
        nb = pad[2 + dy : 2 + dy + H, 2 + dx : 2 + dx + W]
        out |= (np.abs(nb - g) > t).astype(np.uint16) << np.uint16(p)
    return out


def _shadow_reference(feat, colours, alphas, textures, tex, scale, raw) -> np.ndarray:
    """Where the kernels' shadow test (``kernels._is_shadow``) holds for a raw foreground pixel."""
    fy = feat[..., 0].astype(np.float32)
    found = np.zeros(raw.shape, bool)
    for j in range(alphas.shape[1]):
        cy = colours[:, j, 0].astype(np.float32)
        ok = alphas[:, j] * _F(scale) >= _k.SHADOW_AMIN
        ok &= (fy >= _k.SHADOW_LO * cy) & (fy <= _k.SHADOW_HI * cy)
        d2 = np.zeros(raw.shape, np.float32)
        for ch in range(1, feat.shape[2]):
            d = feat[..., ch].astype(np.float32) - colours[:, j, ch].astype(np.float32)
            d2 = d2 + d * d
        ok &= d2 <= _k.SHADOW_CHROMA2
        ok &= popcount16_reference(tex ^ textures[:, j]) <= _k.SHADOW_HAM
        found |= ok
    return (raw != 0) & (popcount16_reference(tex) >= _k.SHADOW_BITS) & found


def _kernel_sums(feat, colours, alphas, nl, textures=None, tex=None, tw=0.0):
    """sum_j alphas[:, j] * k(colours[:, j], feat) in the kernel's order; (H, W) float32. ``nl`` is
    one float32 or an (H, W) float32 array (a kernel width per pixel); with ``tw > 0`` the kernel
    has the texture factor ``2^(-tw H)`` of the patterns ``tex`` and ``textures``."""
    H, W, C = feat.shape
    f = feat.astype(np.float32).transpose(2, 0, 1)  # (C, H, W)
    acc = np.zeros((H, W), np.float32)
    nl = np.asarray(nl, np.float32) if np.ndim(nl) else _F(nl)
    for j in range(alphas.shape[1]):
        cj = colours[:, j].astype(np.float32)  # (H, C, W)
        t = f[0] - cj[:, 0]
        d2 = t * t
        for c in range(1, C):  # integer values < 2^24: exact, so
            t = f[c] - cj[:, c]  # fused or not gives the same d2
            d2 = d2 + t * t
        u = d2 * nl
        if tw > 0:
            u = u - _F(tw) * popcount16_reference(tex ^ textures[:, j]).astype(np.float32)
        k = exp2_neg_reference(u)
        acc = fma32_reference(alphas[:, j], k, acc)
    return acc


def width_scale_reference(blink, nl, wgain, wmax, wzero) -> np.ndarray:
    """NumPy mirror of the kernels' per-pixel scale ``nl / w^2``, ``w = min(1 + wgain max(v - wzero,
    0), wmax)`` (``kernels._width_row``); (H, W) float32."""
    d = np.maximum(blink - _F(wzero), _F(0.0))
    w = np.minimum(_F(1.0) + _F(wgain) * d, _F(wmax))
    return (_F(nl) / (w * w)).astype(np.float32, copy=False)


def silk_feedback_reference(raw, out, prev_raw, prev_out, blink, v_inc, v_dec, v_max) -> None:
    """NumPy mirror of :func:`silkvision.detector.kernels.silk_feedback` (in place)."""
    flick = (raw != prev_raw) & (out == 0) & (prev_out == 0)
    blink[...] = np.where(
        flick, np.minimum(blink + _F(v_inc), _F(v_max)), np.maximum(blink - _F(v_dec), _F(0.0))
    )
    prev_raw[...] = raw
    prev_out[...] = out


def silk_frame_reference(
    feat,
    colours,
    alphas,
    since,
    blink,
    textures,
    tex,
    scale,
    inv_scale_new,
    decay,
    rho,
    cap,
    cap_fg,
    threshold,
    hold,
    nl,
    learn,
    wgain,
    wmax,
    wzero,
    tw,
    shadow,
    scores,
    mask,
    shown,
) -> None:
    """NumPy mirror of :func:`silkvision.detector.kernels.silk_frame` (same arguments, no scratch).

    Updates ``colours``, ``alphas``, ``since``, ``textures`` (when ``learn``), ``scores``, ``mask``
    and ``shown`` (with ``shadow``) in place.
    """
    H, W, C = feat.shape
    if wgain > 0:
        nl = width_scale_reference(blink, nl, wgain, wmax, wzero)
    acc = _kernel_sums(feat, colours, alphas, nl, textures, tex, tw)
    s = acc * _F(scale)
    fg = s < _F(threshold)
    mask[...] = np.where(fg, 255, 0).astype(np.uint8)
    scores[...] = s
    if shadow:
        sh = _shadow_reference(feat, colours, alphas, textures, tex, scale, mask)
        shown[...] = np.where(sh, 0, mask)
        scores[sh] = np.maximum(s[sh], _F(threshold))
    if not learn:
        return
    c = np.minimum(since.astype(np.int32) + 1, 255)
    c[fg] = 0
    since[...] = c.astype(np.uint8)
    cp = np.where(c <= int(hold), _F(cap_fg), _F(cap)).astype(np.float32)
    a = _F(rho) - _F(decay) * s
    a = np.minimum(np.maximum(a, _F(0.0)), cp)
    a = a * _F(inv_scale_new)
    jmin = np.argmin(alphas, axis=1)  # (H, W): first index of the minimum
    yy, xx = np.mgrid[0:H, 0:W]
    amin = alphas[yy, jmin, xx]
    ins = a > amin
    yi, xi, ji = yy[ins], xx[ins], jmin[ins]
    alphas[yi, ji, xi] = a[ins]
    for c in range(C):
        colours[yi, ji, c, xi] = feat[yi, xi, c]
    if tw > 0 or shadow:
        textures[yi, ji, xi] = tex[yi, xi]


def norma_frame_reference(
    feat, colours, alphas, ptr, rho, scale, alpha_new, rho_down, rho_up, threshold, nl, learn, scores, mask
) -> None:
    """NumPy mirror of :func:`silkvision.detector.kernels.norma_frame` (same arguments, no scratch)."""
    H, W, C = feat.shape
    omega = alphas.shape[1]
    acc = _kernel_sums(feat, colours, alphas, nl)
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
    (1 - tau) C, or, when ``conservative``, for a pixel scored foreground in this frame or in one of
    the ``hold`` frames before, (1 - tau) warmup_kappa C during the first ``warmup`` frames and
    (1 - tau) kappa C after them), and keeps the omega
    largest coefficients (the new one replaces the lowest iff it is larger; ties: the first slot).
    """

    def __init__(
        self,
        omega,
        tau,
        C,
        rho,
        sigma,
        threshold,
        conservative=False,
        kappa=1.0,
        warmup=0,
        hold=0,
        warmup_kappa=1.0,
    ):
        self.omega, self.tau, self.C, self.rho, self.sigma = omega, tau, C, rho, sigma
        self.threshold, self.conservative, self.kappa, self.warmup = threshold, conservative, kappa, warmup
        self.hold, self.warmup_kappa = hold, warmup_kappa
        self.sv: list = [None] * omega
        self.alpha = [0.0] * omega
        self.t = 0
        self.since = 255  # learned frames since the last foreground score (saturating)

    def score(self, x) -> float:
        return sum(a * _gauss(x, s, self.sigma) for a, s in zip(self.alpha, self.sv) if a > 0)

    def step(self, x, learn=True) -> float:
        f = self.score(x)
        if not learn:
            return f
        d = 1.0 - self.tau
        self.alpha = [a * d for a in self.alpha]
        cap = d * self.C
        self.since = 0 if f < self.threshold else min(self.since + 1, 255)
        if self.conservative and self.since <= self.hold:
            cap = d * (self.kappa if self.t >= self.warmup else self.warmup_kappa) * self.C
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


# -- mask post-processing (silkvision.detector.postprocess) ---------------------------------------


def median_mask_reference(mask: np.ndarray, size: int) -> np.ndarray:
    """Median of every ``size`` x ``size`` window of a 0/255 mask, the border replicated (as
    ``cv2.medianBlur``): ``np.median`` over the window's shifted copies."""
    r = size // 2
    H, W = mask.shape
    pad = np.pad(mask, r, mode="edge")
    shifted = [pad[dy : dy + H, dx : dx + W] for dy in range(size) for dx in range(size)]
    return np.median(np.stack(shifted), axis=0).astype(np.uint8)


def close_mask_reference(mask: np.ndarray, footprint: np.ndarray) -> np.ndarray:
    """Closing of a 0/255 mask by a 0/1 ``footprint`` (odd square): the maximum over the footprint's
    shifted copies (pixels outside the image count as background), then the minimum (pixels outside
    count as foreground)."""
    k = footprint.shape[0]
    r = k // 2
    H, W = mask.shape

    def sweep(img, fill, reduce):
        pad = np.full((H + 2 * r, W + 2 * r), fill, np.uint8)
        pad[r : r + H, r : r + W] = img
        shifted = [pad[dy : dy + H, dx : dx + W] for dy in range(k) for dx in range(k) if footprint[dy, dx]]
        return reduce(np.stack(shifted), axis=0)

    return sweep(sweep(mask, 0, np.max), 255, np.min)


def fill_holes_reference(mask: np.ndarray) -> np.ndarray:
    """Hole filling of a 0/255 mask: the background reachable from the border through 4-neighbours
    is grown step by step until it stops; everything else becomes foreground."""
    bg = mask == 0
    reach = np.zeros_like(bg)
    reach[0, :], reach[-1, :], reach[:, 0], reach[:, -1] = bg[0, :], bg[-1, :], bg[:, 0], bg[:, -1]
    while True:
        grown = reach.copy()
        grown[1:, :] |= reach[:-1, :]
        grown[:-1, :] |= reach[1:, :]
        grown[:, 1:] |= reach[:, :-1]
        grown[:, :-1] |= reach[:, 1:]
        grown &= bg
        if (grown == reach).all():
            return np.where(reach, 0, 255).astype(np.uint8)
        reach = grown
