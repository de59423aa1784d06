"""Whole-frame numba kernels of the per-pixel SILK and truncated NORMA novelty detectors.

One call processes a whole frame: it scores every pixel with its detector's current function
(``scores``, computed BEFORE the update), writes the raw mask ``scores < threshold`` (0/255) and, when
learning, updates every pixel's detector. The plain NumPy references of every kernel are in
:mod:`silkvision.detector.reference`; the tests check that both agree.

Row layout (why it is fast)
---------------------------
The state of a frame of H x W pixels with a budget of ``omega`` support vectors and C colour
channels is stored row-major *across pixels*:

* ``colours``: (H, omega, C, W) uint8 -- the support vectors' colours. For a row ``y`` and a slot
  ``j`` the W pixels of the row are contiguous, so the innermost loop runs over the pixels of a row
  and LLVM vectorises it (AVX2/AVX-512: 8-16 pixels per instruction, argmin included);
* ``alphas``: (H, omega, W) float32 -- the coefficients, stored *divided by one global scale*
  ``g``: the true coefficient is ``g * alphas``. Every pixel decays by the same factor every frame
  (SILK eq. 11: alpha_i <- (1 - tau) alpha_i), so the decay is ``g <- (1 - tau) g`` -- one scalar
  instead of rewriting 80 bytes per pixel per frame. A new coefficient is stored as
  ``alpha_t / g_new``. When ``g`` becomes small the caller renormalises (:func:`renormalise`:
  ``alphas *= g``, ``g = 1``); entries whose true value fell below a floor are zeroed there, so no
  float32 value ever becomes subnormal (which is slow on x86).
* the Gaussian kernel uses :func:`fast_exp`, a polynomial exp that vectorises (numba's ``exp`` is a
  scalar library call).

Arithmetic is plain IEEE float32 without ``fastmath`` (no re-association, no FMA contraction), in
a fixed order per pixel, so the NumPy reference, which performs the same float32 operations in the
same order, reproduces the kernel's scores and state (see ``tests/detector/test_reference_agreement.py``
for the tolerance used and why).

Scratch memory: ``scr_f`` (T, 5, W) float32 and ``scr_i`` (T, W) int32 with T >= the number of
numba threads; each thread uses its own ``numba.get_thread_id()`` slice, so nothing is allocated
per frame.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

__all__ = ["fast_exp", "fast_exp_array", "silk_frame", "norma_frame", "renormalise",
           "EXP_MIN", "EXP_COEFFS", "EXP_SQUARINGS", "SCRATCH_ROWS"]

#: fast_exp(y) = exp(max(y, EXP_MIN)): below EXP_MIN the kernel value is exp(EXP_MIN) ~ 2e-22.
EXP_MIN = np.float32(-50.0)
#: exp(y) = exp(y / 2**m) ** (2**m); the inner exp is a degree-5 polynomial on [-50/64, 0].
EXP_SQUARINGS = 6
#: Coefficients c1..c5 of 1 + c1 z + ... + c5 z^5 ~ exp(z), z in [-0.78125, 0] (least-squares fit
#: of the relative error on Chebyshev nodes, then rounded to float32; c0 = 1 so exp(0) = 1 exactly).
#: Measured max relative error of fast_exp on [-50, 0]: 2.3e-5.
EXP_COEFFS = (0.99999064, 0.49984303, 0.16578376, 0.03943098, 0.00563961)

_E1, _E2, _E3, _E4, _E5 = (np.float32(c) for c in EXP_COEFFS)
_EXP_SCALE = np.float32(1.0 / 2 ** EXP_SQUARINGS)
_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)
_INF = np.float32(np.inf)
_FG = np.uint8(255)
_BG = np.uint8(0)
#: rows of float32 scratch per thread used by the kernels (3 colour rows, acc, min alpha)
SCRATCH_ROWS = 5


@njit(inline="always")
def fast_exp(y):
    """exp(y) for float32 ``y <= 0`` with relative error < 2.5e-5 on [-50, 0] (vectorisable).

    ``y`` is clamped to :data:`EXP_MIN`; then exp(y) = p(y / 64) ** 64 with a degree-5 polynomial p
    evaluated by Horner's rule and six squarings (all float32 multiplies and adds).
    """
    y = max(y, EXP_MIN)
    z = y * _EXP_SCALE
    p = ((((_E5 * z + _E4) * z + _E3) * z + _E2) * z + _E1) * z + _ONE
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    p = p * p
    return p


@njit(cache=True)
def fast_exp_array(y, out):
    """:func:`fast_exp` of every element of the float32 array ``y`` into ``out`` (for tests)."""
    yf = y.ravel()
    of = out.ravel()
    for i in range(yf.size):
        of[i] = fast_exp(yf[i])
    return out


@njit(inline="always")
def _load_features(feat, y, featf, C, W):
    for c in range(C):
        fr = featf[c]
        for x in range(W):
            fr[x] = np.float32(feat[y, x, c])


@njit(parallel=True, cache=True)
def silk_frame(feat, colours, alphas, scale, inv_scale_new, decay, rho, cap, cap_fg, threshold,
               inv2s2, learn, scores, mask, scr_f, scr_i):
    """One frame of per-pixel SILK novelty detection (see :mod:`silkvision.detector.silk`).

    Parameters
    ----------
    feat : (H, W, C) uint8
        Pixel features (colour-space converted frame), C in {1, 3}.
    colours : (H, omega, C, W) uint8
        Support-vector colours (updated in place when learning).
    alphas : (H, omega, W) float32
        Coefficients divided by the global scale (updated in place when learning).
    scale, inv_scale_new : float32
        ``g`` before this frame (scores are ``g * sum``) and ``1 / g_new`` with
        ``g_new = (1 - tau) g`` (the scale new coefficients are stored in).
    decay : float32
        ``1 - tau``.
    rho : float32
        Margin of the novelty hinge loss.
    cap, cap_fg : float32
        Box of the new coefficient, ``(1 - tau) C``, and the (smaller) cap used for pixels scored
        foreground (soft conservative update; equal to ``cap`` when off or during warm-up).
    threshold : float32
        Foreground iff ``score < threshold``.
    inv2s2 : float32
        ``1 / (2 sigma^2)`` of the Gaussian kernel.
    learn : bool
        False: score only.
    scores : (H, W) float32, mask : (H, W) uint8
        Outputs.
    scr_f : (T, 5, W) float32, scr_i : (T, W) int32
        Per-thread scratch.
    """
    H, W, C = feat.shape
    omega = alphas.shape[1]
    for y in prange(H):
        tid = numba.get_thread_id()
        featf = scr_f[tid]
        acc = featf[3]
        minv = featf[4]
        mini = scr_i[tid]
        _load_features(feat, y, featf, C, W)
        for x in range(W):
            acc[x] = _ZERO
            minv[x] = _INF
            mini[x] = 0
        f0 = featf[0]
        f1 = featf[1]
        f2 = featf[2]
        for j in range(omega):
            arow = alphas[y, j]
            if C == 3:
                c0 = colours[y, j, 0]
                c1 = colours[y, j, 1]
                c2 = colours[y, j, 2]
                for x in range(W):
                    t0 = f0[x] - np.float32(c0[x])
                    t1 = f1[x] - np.float32(c1[x])
                    t2 = f2[x] - np.float32(c2[x])
                    d2 = t0 * t0 + t1 * t1 + t2 * t2
                    k = fast_exp(-d2 * inv2s2)
                    acc[x] = acc[x] + arow[x] * k
            else:
                c0 = colours[y, j, 0]
                for x in range(W):
                    t0 = f0[x] - np.float32(c0[x])
                    d2 = t0 * t0
                    k = fast_exp(-d2 * inv2s2)
                    acc[x] = acc[x] + arow[x] * k
            # lowest coefficient of the row's pixels (first index on ties); a separate loop because
            # LLVM does not vectorise the fused one (measured 7x slower)
            j32 = np.int32(j)
            for x in range(W):
                a = arow[x]
                m = minv[x]
                lt = a < m
                minv[x] = a if lt else m
                mini[x] = j32 if lt else mini[x]
        srow = scores[y]
        mrow = mask[y]
        for x in range(W):
            s = acc[x] * scale
            srow[x] = s
            mrow[x] = _FG if s < threshold else _BG
        if learn:
            for x in range(W):
                s = srow[x]
                cp = cap_fg if s < threshold else cap
                a = rho - decay * s
                a = min(max(a, _ZERO), cp)
                a = a * inv_scale_new
                # replace the lowest slot iff the new coefficient is larger; written without a
                # branch (unconditional stores of either the new or the old values), because
                # whether a pixel inserts is data dependent and mispredicts often
                ins = a > minv[x]
                j = mini[x]
                alphas[y, j, x] = a if ins else alphas[y, j, x]
                for c in range(C):
                    colours[y, j, c, x] = feat[y, x, c] if ins else colours[y, j, c, x]


@njit(parallel=True, cache=True)
def norma_frame(feat, colours, alphas, ptr, rho, scale, inv_scale_new, alpha_new, rho_down, rho_up,
                threshold, inv2s2, learn, scores, mask, scr_f):
    """One frame of per-pixel truncated NORMA novelty detection (see :mod:`silkvision.detector.norma`).

    Parameters
    ----------
    feat, colours, alphas, scale, inv_scale_new, threshold, inv2s2, learn, scores, mask, scr_f
        As in :func:`silk_frame` (``g_new = (1 - eta lambda) g``).
    ptr : (H, W) uint8
        Per-pixel ring-buffer position: the slot the next support vector overwrites (the oldest).
    rho : (H, W) float32
        Per-pixel offset rho of NORMA's novelty detection (updated in place).
    alpha_new : float32
        Stored value of a new coefficient, ``eta / g_new``.
    rho_down, rho_up : float32
        ``eta (1 - nu)`` (rho falls when ``f < rho``) and ``eta nu`` (rho rises otherwise).
    """
    H, W, C = feat.shape
    omega = alphas.shape[1]
    for y in prange(H):
        tid = numba.get_thread_id()
        featf = scr_f[tid]
        acc = featf[3]
        _load_features(feat, y, featf, C, W)
        for x in range(W):
            acc[x] = _ZERO
        f0 = featf[0]
        f1 = featf[1]
        f2 = featf[2]
        for j in range(omega):
            arow = alphas[y, j]
            if C == 3:
                c0 = colours[y, j, 0]
                c1 = colours[y, j, 1]
                c2 = colours[y, j, 2]
                for x in range(W):
                    t0 = f0[x] - np.float32(c0[x])
                    t1 = f1[x] - np.float32(c1[x])
                    t2 = f2[x] - np.float32(c2[x])
                    d2 = t0 * t0 + t1 * t1 + t2 * t2
                    k = fast_exp(-d2 * inv2s2)
                    acc[x] = acc[x] + arow[x] * k
            else:
                c0 = colours[y, j, 0]
                for x in range(W):
                    t0 = f0[x] - np.float32(c0[x])
                    d2 = t0 * t0
                    k = fast_exp(-d2 * inv2s2)
                    acc[x] = acc[x] + arow[x] * k
        srow = scores[y]
        mrow = mask[y]
        for x in range(W):
            s = acc[x] * scale
            srow[x] = s
            mrow[x] = _FG if s < threshold else _BG
        if learn:
            rrow = rho[y]
            prow = ptr[y]
            for x in range(W):
                r = rrow[x]
                if srow[x] < r:
                    j = np.int64(prow[x])
                    alphas[y, j, x] = alpha_new
                    for c in range(C):
                        colours[y, j, c, x] = feat[y, x, c]
                    j += 1
                    prow[x] = np.uint8(0 if j >= omega else j)
                    rrow[x] = r - rho_down
                else:
                    rrow[x] = r + rho_up


@njit(parallel=True, cache=True)
def renormalise(alphas, scale, floor):
    """``alphas *= scale`` in place, zeroing results below ``floor`` (the caller then sets g = 1)."""
    H, K, W = alphas.shape
    for y in prange(H):
        for j in range(K):
            row = alphas[y, j]
            for x in range(W):
                v = row[x] * scale
                row[x] = v if v >= floor else _ZERO
