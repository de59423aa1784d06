"""Whole-frame numba kernels of the per-pixel SILK and truncated NORMA novelty detectors.

One call processes a whole frame: it scores every pixel with its detector's current function
(``scores``, computed BEFORE the update), writes the raw mask ``scores < threshold`` (0/255) and, when
learning, updates every pixel's detector. The plain NumPy references of every kernel are in
:mod:`silkvision.detector.reference`; ``tests/detector/test_reference_agreement.py`` checks that
both agree.

Why it is fast (each point measured with ``benchmarks/detector_speed.py``-style A/B runs)
-----------------------------------------------------------------------------------------
* **Row layout.** For H x W pixels, a budget of ``omega`` support vectors and C colour channels:
  ``colours`` (H, omega, C, W) uint8 and ``alphas`` (H, omega, W) float32. For a row ``y`` and a
  slot ``j`` the W pixels are contiguous, so the innermost loops run over the pixels of a row and
  LLVM vectorises them (8 pixels per AVX2 instruction), the argmin over slots included.
* **One global decay scale.** Every pixel decays by the same factor every frame (SILK eq. 11:
  alpha_i <- (1 - tau) alpha_i), so ``alphas`` holds the coefficients divided by a global scale
  ``g`` and the decay is ``g <- (1 - tau) g``, one scalar instead of rewriting 80 bytes per pixel
  per frame. A new coefficient is stored as ``alpha_t / g_new``. When ``g`` gets small the caller
  renormalises (:func:`renormalise`); entries whose true value fell below a floor are zeroed then,
  so no float32 ever becomes subnormal (slow on x86).
* **A vectorisable exp.** The Gaussian kernel is k = exp(-d2 / (2 sigma^2)) = 2^u with
  u = d2 * nl, nl = -log2(e) / (2 sigma^2), computed by :func:`exp2_neg`: u is clamped to
  :data:`U_MIN`, split as u = n + f (n = floor(u), f in [0, 1)), 2^f is a degree-4 polynomial and
  2^n is added to the float's exponent bits. Relative error < 1e-5 for u in [-72, 0] (measured
  3.3e-6 plus the rounding of u); for u < -72 the value is 2^-72 = 2.1e-22 (colours that far
  contribute nothing a threshold can see, and scores stay distinct from 0). numba's own ``exp``
  is a scalar library call (4x slower here).
* **Explicit fused multiply-adds** (:func:`fma32`, LLVM's ``llvm.fma.f32``): the polynomial, d2
  and the score accumulation. Explicit rather than ``fastmath`` so that *which* operations are
  fused is fixed, and the NumPy reference reproduces it with a correctly rounded FMA (+12% speed).
* **Short dependency chains.** The slot loop is split into two passes (d2 -> u, then exp and
  accumulation): one fused loop is latency-bound (+5% split).
* **The argmin rides along.** When learning, the second pass also keeps the running lowest
  coefficient and its slot (:func:`_slot_sums_min`), so each coefficient row is loaded once per
  frame instead of twice (written as ``min`` and a select of loaded values, LLVM vectorises it;
  about +5-9% per frame in lockstep A/B runs, on a machine whose A/A runs spread +-4%).
* **One de-interleaving pass** per row turns the (W, C) uint8 features into C float32 rows.
* **The row is a function of its own** (:func:`_silk_row`, inlined): the ``prange`` loop only hands
  it the row and the thread's id. Against the same body written inside the ``prange`` it ran
  1.08-1.12x as fast on one thread and 1.01-1.06x on two, bit-identical, and NORMA's 1.05-1.07x
  (``benchmarks/kernel_ab.py``, BENCHMARKS section 1). The
  ``*_serial`` twins (for forked processes, :mod:`silkvision.detector.numba_threads`) loop over
  the same row functions.
* **Branchy insertion with unsigned slot indices**: few pixels insert in a frame (with the default
  parameters, most get a new coefficient of 0: ``docs/benchmarks/speed.md`` section 3), so the
  branch costs less than unconditional (select) stores; unsigned indices avoid numba's
  negative-index wraparound code in that scalar loop (+13%).
* **No early exit.** Every slot is summed. Stopping a pixel once the rest cannot change its mask or
  its model would, with the default parameters, still read 62-94% of the slots for a vector of 8
  pixels (``benchmarks/early_exit_bound.py``), and a numba prototype of it was slower than this
  kernel (``docs/benchmarks/speed.md``). So ``scores`` are always the exact sums.

Texture term and shadow test (``tw > 0``, ``shadow``)
----------------------------------------------------
* :func:`lbsp_frame` writes each pixel's 16-bit LBSP pattern in a pass of its own. The luma and
  each pixel's threshold go to uint8 planes first, so that the 16 comparisons are integer ones;
  the inner pixels are indexed ``x + k`` with ``k >= 0`` (numba adds wraparound code to
  ``x - k``, which stops LLVM from vectorising). A first version with float comparisons and
  ``x - k`` indices took 5.8 ms a frame at 320x240, this one about 0.3 ms (1 thread).
* The texture factor is one more pass per slot, ``ubuf -= tw * popcount(t ^ t_j)`` with LLVM's
  ``ctpop`` (vectorised; a SWAR popcount in numba's integer types took 6x as long on its own).
* The shadow test is scalar, for raw foreground pixels only, before the row's update.
* With both, SILK runs at about half its colour-only frame rate at 320x240
  (``docs/benchmarks/speed.md``): the LBSP pass, 2 bytes more per slot read every frame, and the
  test.

All arithmetic is float32 without ``fastmath`` (no re-association), in a fixed order per pixel,
so the NumPy mirror that performs the same float32 operations (with a correctly rounded FMA)
reproduces the kernel's scores and state bit for bit.

Scratch memory: ``scr_f`` (T, 7, W) float32 and ``scr_i`` (T, W) uint32, T >= the number of numba
threads; each thread uses the slice of ``numba.get_thread_id()``, so nothing is allocated per frame.
"""

from __future__ import annotations

import silkvision._numba_cache  # noqa: F401  (before any @njit(cache=True): the package's cache stamp)
import silkvision.detector.numba_threads  # noqa: F401  (before any parallel loop: OpenMP spin count)

import numba
import numpy as np
from llvmlite import ir as _llir
from numba import njit, prange
from numba.core import types as _nbt
from numba.extending import intrinsic, overload

__all__ = [
    "fma32",
    "exp2_neg",
    "exp2_neg_array",
    "fma32_array",
    "silk_frame",
    "norma_frame",
    "renormalise",
    "silk_frame_serial",
    "silk_feedback",
    "silk_feedback_serial",
    "lbsp_frame",
    "lbsp_frame_serial",
    "popcount16",
    "popcount16_array",
    "norma_frame_serial",
    "renormalise_serial",
    "U_MIN",
    "EXP2_COEFFS",
    "SCRATCH_ROWS",
    "kernel_log2_scale",
]

#: exp2_neg(u) = 2^max(u, U_MIN): kernel values below 2^-72 = 2.1e-22 are clamped to it.
U_MIN = np.float32(-72.0)
#: 2^f ~ 1 + c1 f + c2 f^2 + c3 f^3 + c4 f^4 on [0, 1) (iteratively reweighted least squares on
#: the relative error, rounded to float32; c0 = 1 so 2^0 = exp(0) = 1 exactly, i.e. k(x, x) = 1).
EXP2_COEFFS = (0.69304484, 0.24128021, 0.05224247, 0.01342669)
#: rows of float32 scratch per thread: 3 feature rows, acc, min alpha, u, per-pixel kernel scale
SCRATCH_ROWS = 7

_P1, _P2, _P3, _P4 = (np.float32(c) for c in EXP2_COEFFS)
_ONE = np.float32(1.0)
_ZERO = np.float32(0.0)
_INF = np.float32(np.inf)
_EXPBIT = np.int32(1 << 23)
_FG = np.uint8(255)
_BG = np.uint8(0)


def kernel_log2_scale(sigma: float) -> np.float32:
    """``nl = -log2(e) / (2 sigma^2)`` as float32: the Gaussian kernel is ``2 ** (d2 * nl)``.

    A width whose square overflows a double (sigma > ~1.3e154) gives ``-0.0``, so ``k = 1`` for
    every pair of colours, as for any very wide kernel (``float ** 2`` would raise OverflowError).
    """
    s = float(sigma)
    return np.float32(-np.log2(np.e) / (2.0 * (s * s)))


@intrinsic
def _fma32_llvm(typingctx, a, b, c):
    """``a * b + c`` with a single rounding (LLVM ``llvm.fma.f32``), float32 arguments."""
    sig = _nbt.float32(_nbt.float32, _nbt.float32, _nbt.float32)

    def codegen(context, builder, signature, args):
        f32 = _llir.FloatType()
        fn = builder.module.declare_intrinsic("llvm.fma", [f32], _llir.FunctionType(f32, [f32, f32, f32]))
        return builder.call(fn, args)

    return sig, codegen


def _fma32_python(a, b, c):
    """``a * b + c`` with a single rounding, in NumPy: what runs under ``NUMBA_DISABLE_JIT=1``, where
    an LLVM intrinsic cannot be called (the same value: both round correctly)."""
    from silkvision.detector.reference import fma32_reference

    return np.float32(fma32_reference(a, b, c))


#: ``a * b + c`` with a single rounding, float32 arguments (module notes)
fma32 = _fma32_python if numba.config.DISABLE_JIT else _fma32_llvm  # type: ignore[attr-defined]


@njit(inline="always", cache=True)
def exp2_neg(u):
    """2^u for float32 ``u <= 0`` (clamped to :data:`U_MIN`); vectorisable, see the module notes."""
    u = max(u, U_MIN)
    n = np.floor(u)
    f = u - n
    p = fma32(fma32(fma32(fma32(_P4, f, _P3), f, _P2), f, _P1), f, _ONE)
    b = np.float32(p).view(np.int32) + np.int32(n) * _EXPBIT
    return np.int32(b).view(np.float32)


@njit(cache=True)
def exp2_neg_array(u, out):
    """:func:`exp2_neg` of every element of the float32 array ``u`` into ``out`` (for tests)."""
    uf = u.ravel()
    of = out.ravel()
    for i in range(uf.size):
        of[i] = exp2_neg(uf[i])
    return out


@njit(cache=True)
def fma32_array(a, b, c, out):
    """:func:`fma32` element-wise on float32 arrays (for tests)."""
    af, bf, cf, of = a.ravel(), b.ravel(), c.ravel(), out.ravel()
    for i in range(af.size):
        of[i] = fma32(af[i], bf[i], cf[i])
    return out


def _nl_at(nl, x):
    """The kernel's exponent scale at pixel ``x`` of a row: ``nl`` itself (one width for every
    pixel) or ``nl[x]`` (a width per pixel). Resolved by type when numba compiles the caller, so
    both uses share one slot loop."""
    return nl[x] if np.ndim(nl) else nl


@overload(_nl_at, inline="always")
def _nl_at_typed(nl, x):
    if isinstance(nl, _nbt.Array):
        return lambda nl, x: nl[x]
    return lambda nl, x: nl


@njit(inline="always", cache=True)
def _load_features(feat, y, featf, C, W):
    # one pass over the interleaved row (LLVM vectorises the de-interleave), not one per channel
    frow = feat[y]
    f0 = featf[0]
    if C == 3:
        f1 = featf[1]
        f2 = featf[2]
        for x in range(W):
            f0[x] = np.float32(frow[x, 0])
            f1[x] = np.float32(frow[x, 1])
            f2[x] = np.float32(frow[x, 2])
    else:
        for x in range(W):
            f0[x] = np.float32(frow[x, 0])


@njit(inline="always", cache=True)
def _slot_exponents(colours, y, featf, ubuf, nl, C, W, j):
    """First pass over slot j of row y: ``ubuf = nl * |feat - colours[y, j]|^2`` per pixel (``nl``
    one float32, or a row of them: :func:`_nl_at`)."""
    f0 = featf[0]
    if C == 3:
        f1 = featf[1]
        f2 = featf[2]
        c0 = colours[y, j, 0]
        c1 = colours[y, j, 1]
        c2 = colours[y, j, 2]
        for x in range(W):
            t0 = f0[x] - np.float32(c0[x])
            t1 = f1[x] - np.float32(c1[x])
            t2 = f2[x] - np.float32(c2[x])
            d2 = fma32(t2, t2, fma32(t1, t1, t0 * t0))  # integers < 2^24: exact
            ubuf[x] = d2 * _nl_at(nl, x)
    else:
        c0 = colours[y, j, 0]
        for x in range(W):
            t0 = f0[x] - np.float32(c0[x])
            ubuf[x] = (t0 * t0) * _nl_at(nl, x)


@njit(inline="always", cache=True)
def _accumulate(alphas, y, ubuf, acc, W, j):
    """Second pass over slot j of row y: ``acc += alphas[y, j] * 2^ubuf``."""
    arow = alphas[y, j]
    for x in range(W):
        acc[x] = fma32(arow[x], exp2_neg(ubuf[x]), acc[x])


@njit(inline="always", cache=True)
def _accumulate_min(alphas, y, ubuf, acc, minv, mini, W, j):
    """:func:`_accumulate`, and the running lowest coefficient ``minv`` and its slot ``mini``
    (strictly lower only: the first slot wins ties) in the same pass (one load of the coefficients
    instead of two)."""
    arow = alphas[y, j]
    j32 = np.uint32(j)
    for x in range(W):
        a = arow[x]
        acc[x] = fma32(a, exp2_neg(ubuf[x]), acc[x])
        m = minv[x]
        i = mini[x]
        minv[x] = min(a, m)
        mini[x] = j32 if a < m else i


@njit(inline="always", cache=True)
def _slot_sums(colours, alphas, y, featf, ubuf, acc, nl, C, W, j):
    """acc += alphas[y, j] * k(colours[y, j], feat[y]) for the pixels of row y (two passes)."""
    _slot_exponents(colours, y, featf, ubuf, nl, C, W, j)
    _accumulate(alphas, y, ubuf, acc, W, j)


@njit(inline="always", cache=True)
def _slot_sums_min(colours, alphas, y, featf, ubuf, acc, minv, mini, nl, C, W, j):
    """:func:`_slot_sums` and the row's lowest coefficient (:func:`_accumulate_min`)."""
    _slot_exponents(colours, y, featf, ubuf, nl, C, W, j)
    _accumulate_min(alphas, y, ubuf, acc, minv, mini, W, j)


@intrinsic
def _popcount16_llvm(typingctx, v):
    """Set bits of a uint16 (LLVM ``llvm.ctpop.i16``: vectorised, 16 lanes per AVX2 op)."""
    sig = _nbt.uint16(_nbt.uint16)

    def codegen(context, builder, signature, args):
        i16 = _llir.IntType(16)
        fn = builder.module.declare_intrinsic("llvm.ctpop", [i16], _llir.FunctionType(i16, [i16]))
        return builder.call(fn, args)

    return sig, codegen


def _popcount16_python(v):
    """Set bits of a uint16, in Python (under ``NUMBA_DISABLE_JIT=1``)."""
    return np.uint16(bin(int(v) & 0xFFFF).count("1"))


#: number of set bits of a uint16 (the Hamming distance of two LBSP patterns is ``popcount16(a ^ b)``)
popcount16 = _popcount16_python if numba.config.DISABLE_JIT else _popcount16_llvm  # type: ignore[attr-defined]


@njit(cache=True)
def popcount16_array(v, out):
    """:func:`popcount16` of every element of the uint16 array ``v`` into ``out`` (for tests)."""
    vf = v.ravel()
    of = out.ravel()
    for i in range(vf.size):
        of[i] = popcount16(vf[i])
    return out


@njit(inline="always", cache=True)
def _texture_exponents(textures, tex, y, ubuf, tw, W, j):
    """The texture factor of slot j: ``ubuf -= tw * H(t, t_j)``, H the Hamming distance of the
    pixel's LBSP pattern and the slot's, so ``k = 2^(d2 nl) 2^(-tw H)``."""
    trow = textures[y, j]
    crow = tex[y]
    for x in range(W):
        ubuf[x] = ubuf[x] - tw * np.float32(popcount16(np.uint16(trow[x] ^ crow[x])))


@njit(inline="always", cache=True)
def _slot_sums_tex(colours, alphas, textures, tex, y, featf, ubuf, acc, nl, tw, C, W, j):
    """:func:`_slot_sums` with the texture factor (:func:`_texture_exponents`)."""
    _slot_exponents(colours, y, featf, ubuf, nl, C, W, j)
    _texture_exponents(textures, tex, y, ubuf, tw, W, j)
    _accumulate(alphas, y, ubuf, acc, W, j)


@njit(inline="always", cache=True)
def _slot_sums_min_tex(colours, alphas, textures, tex, y, featf, ubuf, acc, minv, mini, nl, tw, C, W, j):
    """:func:`_slot_sums_min` with the texture factor (:func:`_texture_exponents`)."""
    _slot_exponents(colours, y, featf, ubuf, nl, C, W, j)
    _texture_exponents(textures, tex, y, ubuf, tw, W, j)
    _accumulate_min(alphas, y, ubuf, acc, minv, mini, W, j)


@njit(inline="always", cache=True)
def _width_row(brow, nl, wgain, wmax, wzero, nlrow, W):
    """Per-pixel kernel scale of a row: ``nl / w^2`` with ``w = min(1 + wgain max(v - wzero, 0),
    wmax)`` from the blinking level ``v`` (``w = 1``, i.e. ``nl`` itself, where ``v <= wzero``)."""
    for x in range(W):
        d = max(brow[x] - wzero, _ZERO)
        w = min(_ONE + wgain * d, wmax)
        nlrow[x] = nl / (w * w)


@njit(inline="always", cache=True)
def _scores_and_mask(acc, scale, threshold, srow, mrow, W):
    """Row scores ``g * sum`` and the raw mask ``score < threshold`` (0/255)."""
    for x in range(W):
        s = acc[x] * scale
        srow[x] = s
        mrow[x] = _FG if s < threshold else _BG


#: LBSP (Bilodeau et al. 2013): sample p of the pattern differs from the centre I_c when
#: ``|I_p - I_c| > max(LBSP_REL I_c, LBSP_ABS)`` (relative: a uniformly darker patch, a shadow,
#: keeps its pattern; the floor keeps flat, noisy asphalt at a stable pattern)
LBSP_REL = np.float32(0.3)
LBSP_ABS = np.float32(4.0)
# LBSP's 16 samples in the 5x5 neighbourhood (dy, dx): the 3x3 ring, the 5x5 corners and edge middles
_LBSP_DY = np.array([-1, -1, -1, 0, 1, 1, 1, 0, -2, -2, -2, 0, 2, 2, 2, 0], np.int64)
_LBSP_DX = np.array([-1, 0, 1, 1, 1, 0, -1, -1, -2, 0, 2, 2, 2, 0, -2, -2], np.int64)
#: the shadow test: luma ratio to an established slot, largest chroma distance^2, most differing
#: pattern bits, fewest set bits of the pixel's own pattern, smallest scaled coefficient
SHADOW_LO, SHADOW_HI = np.float32(0.5), np.float32(0.95)
SHADOW_CHROMA2 = np.float32(100.0)
SHADOW_HAM = np.uint16(1)
SHADOW_BITS = np.uint16(3)
SHADOW_AMIN = np.float32(0.05)


@njit(inline="always", cache=True)
def _lbsp_luma_row(feat, y, lum):
    """Row ``y`` of the luma plane ``lum[0]`` and of each pixel's LBSP threshold ``lum[1]``:
    ``floor(max(LBSP_REL c, LBSP_ABS))``, which an integer difference exceeds iff it exceeds the
    real threshold."""
    frow = feat[y]
    lrow = lum[0, y]
    trow = lum[1, y]
    for x in range(feat.shape[1]):
        c = frow[x, 0]
        lrow[x] = c
        trow[x] = np.uint8(np.floor(max(LBSP_REL * np.float32(c), LBSP_ABS)))


@njit(inline="always", cache=True)
def _lbsp_bit(row, x, c, t, p):
    return np.int32(abs(np.int32(row[x]) - c) > t) << np.int32(p)


@njit(inline="always", cache=True)
def _lbsp_row(lum, y, out):
    """Row ``y`` of :func:`lbsp_frame` from the planes of :func:`_lbsp_luma_row` (samples outside
    the frame are clamped to its border)."""
    H, W = lum.shape[1], lum.shape[2]
    luma = lum[0]
    r0 = luma[y]
    a1 = luma[max(y - 1, 0)]
    b1 = luma[min(y + 1, H - 1)]
    a2 = luma[max(y - 2, 0)]
    b2 = luma[min(y + 2, H - 1)]
    n = W - 4
    if n > 0:
        # the inner pixels, x = 2..W-3: every sample inside the row, every index x + k with k >= 0
        # (numba adds wraparound code to x - k, which stops LLVM from vectorising)
        c0 = r0[2:]
        t0 = lum[1, y][2:]
        orow = out[y][2:]
        for x in range(n):
            c = np.int32(c0[x])
            t = np.int32(t0[x])
            code = (
                _lbsp_bit(a1, x + 1, c, t, 0)
                | _lbsp_bit(a1, x + 2, c, t, 1)
                | _lbsp_bit(a1, x + 3, c, t, 2)
                | _lbsp_bit(r0, x + 3, c, t, 3)
                | _lbsp_bit(b1, x + 3, c, t, 4)
                | _lbsp_bit(b1, x + 2, c, t, 5)
                | _lbsp_bit(b1, x + 1, c, t, 6)
                | _lbsp_bit(r0, x + 1, c, t, 7)
                | _lbsp_bit(a2, x, c, t, 8)
                | _lbsp_bit(a2, x + 2, c, t, 9)
                | _lbsp_bit(a2, x + 4, c, t, 10)
                | _lbsp_bit(r0, x + 4, c, t, 11)
                | _lbsp_bit(b2, x + 4, c, t, 12)
                | _lbsp_bit(b2, x + 2, c, t, 13)
                | _lbsp_bit(b2, x, c, t, 14)
                | _lbsp_bit(r0, x, c, t, 15)
            )
            orow[x] = np.uint16(code)
    for x in range(W):  # the two pixels at each end (all of a row narrower than 5), clamped
        if n > 0 and 2 <= x < W - 2:
            continue
        c = np.int32(r0[x])
        t = np.int32(lum[1, y, x])
        code = np.int32(0)
        for p in range(16):
            row = luma[min(max(y + _LBSP_DY[p], 0), H - 1)]
            code |= _lbsp_bit(row, min(max(x + _LBSP_DX[p], 0), W - 1), c, t, p)
        out[y, x] = np.uint16(code)


@njit(parallel=True, cache=True)
def lbsp_frame(feat, lum, out):
    """16-bit LBSP pattern of the first feature channel (the luma of YCrCb, Lab or grey) of every
    pixel into ``out`` (H, W) uint16: bit p set where LBSP's p-th sample differs from the centre by
    more than ``max(LBSP_REL c, LBSP_ABS)``. ``lum`` (2, H, W) uint8 is a work buffer."""
    for y in prange(feat.shape[0]):
        _lbsp_luma_row(feat, y, lum)
    for y in prange(feat.shape[0]):
        _lbsp_row(lum, y, out)


@njit(cache=True)
def lbsp_frame_serial(feat, lum, out):
    """:func:`lbsp_frame` on the calling thread alone (see :func:`silk_frame_serial`)."""
    for y in range(feat.shape[0]):
        _lbsp_luma_row(feat, y, lum)
    for y in range(feat.shape[0]):
        _lbsp_row(lum, y, out)


@njit(inline="always", cache=True)
def _is_shadow(feat, colours, alphas, textures, tex, y, x, scale):
    """The pixel is a darker copy of an established slot (Horprasert et al. 1999's brightness and
    chromaticity distortion) with the same texture; a pattern with fewer than
    :data:`SHADOW_BITS` set bits (a flat patch, e.g. a dark car roof on asphalt) is no evidence."""
    t = tex[y, x]
    if popcount16(t) < SHADOW_BITS:
        return False
    C = feat.shape[2]
    fy = np.float32(feat[y, x, 0])
    found = False
    for j in range(alphas.shape[1]):  # branch-free: the tests' outcomes are unpredictable
        cy = np.float32(colours[y, j, 0, x])
        d2 = _ZERO
        for ch in range(1, C):
            d = np.float32(feat[y, x, ch]) - np.float32(colours[y, j, ch, x])
            d2 += d * d
        ok = (
            (alphas[y, j, x] * scale >= SHADOW_AMIN)
            & (fy >= SHADOW_LO * cy)
            & (fy <= SHADOW_HI * cy)
            & (d2 <= SHADOW_CHROMA2)
            & (popcount16(np.uint16(t ^ textures[y, j, x])) <= SHADOW_HAM)
        )
        found |= ok
    return found


@njit(inline="always", cache=True)
def _silk_row(
    y,
    tid,
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
    scr_f,
    scr_i,
):
    """Row ``y`` of :func:`silk_frame`, with the scratch of thread ``tid``."""
    H, W, C = feat.shape
    omega = alphas.shape[1]
    featf = scr_f[tid]
    acc = featf[3]
    minv = featf[4]
    ubuf = featf[5]
    mini = scr_i[tid]
    _load_features(feat, y, featf, C, W)
    for x in range(W):
        acc[x] = _ZERO
        minv[x] = _INF
        mini[x] = np.uint32(0)
    wide = 0
    if wgain > _ZERO:  # a kernel width per pixel where some pixel of the row blinks past the dead zone
        brow = blink[y]
        for x in range(W):
            wide += 1 if brow[x] > wzero else 0
    nlrow = featf[6]
    if wide > 0:  # (w = 1 everywhere else: nl itself, so the plain path gives the same sums)
        _width_row(blink[y], nl, wgain, wmax, wzero, nlrow, W)
    # one loop per call shape: one generic loop with the choices inside it ran the default about
    # 10 % slower (detector_speed.py, the two kernels in turn)
    if tw > _ZERO:
        if wide > 0 and learn:
            for j in range(omega):
                _slot_sums_min_tex(
                    colours, alphas, textures, tex, y, featf, ubuf, acc, minv, mini, nlrow, tw, C, W, j
                )
        elif wide > 0:
            for j in range(omega):
                _slot_sums_tex(colours, alphas, textures, tex, y, featf, ubuf, acc, nlrow, tw, C, W, j)
        elif learn:
            for j in range(omega):
                _slot_sums_min_tex(
                    colours, alphas, textures, tex, y, featf, ubuf, acc, minv, mini, nl, tw, C, W, j
                )
        else:
            for j in range(omega):
                _slot_sums_tex(colours, alphas, textures, tex, y, featf, ubuf, acc, nl, tw, C, W, j)
    elif wide > 0 and learn:  # (learning: also the lowest coefficient and its slot, first on ties)
        for j in range(omega):
            _slot_sums_min(colours, alphas, y, featf, ubuf, acc, minv, mini, nlrow, C, W, j)
    elif wide > 0:
        for j in range(omega):
            _slot_sums(colours, alphas, y, featf, ubuf, acc, nlrow, C, W, j)
    elif learn:
        for j in range(omega):
            _slot_sums_min(colours, alphas, y, featf, ubuf, acc, minv, mini, nl, C, W, j)
    else:
        for j in range(omega):
            _slot_sums(colours, alphas, y, featf, ubuf, acc, nl, C, W, j)
    srow = scores[y]
    mrow = mask[y]
    _scores_and_mask(acc, scale, threshold, srow, mrow, W)
    if shadow:  # on the model before this frame's update; the raw mask keeps the pixel's decision
        orow = shown[y]
        for x in range(W):
            orow[x] = mrow[x]
        for x in range(W):
            if mrow[x] != _BG and _is_shadow(feat, colours, alphas, textures, tex, y, x, scale):
                orow[x] = _BG
    if learn:
        # new coefficients, vectorised (into acc, no longer needed): eq. 16, novelty form
        sincerow = since[y]
        for x in range(W):
            s = srow[x]
            c = np.int32(sincerow[x])
            c = 0 if s < threshold else min(c + 1, 255)
            sincerow[x] = np.uint8(c)
            cp = cap_fg if c <= hold else cap
            a = rho - decay * s
            a = min(max(a, _ZERO), cp)
            acc[x] = a * inv_scale_new
        # the new pair replaces the lowest slot iff its coefficient is larger
        arows = alphas[y]
        crows = colours[y]
        frow = feat[y]
        store_tex = tw > _ZERO or shadow
        if C == 3:
            for x in range(W):
                a = acc[x]
                if a > minv[x]:
                    j = mini[x]
                    arows[j, x] = a
                    crows[j, 0, x] = frow[x, 0]
                    crows[j, 1, x] = frow[x, 1]
                    crows[j, 2, x] = frow[x, 2]
                    if store_tex:
                        textures[y, j, x] = tex[y, x]
        else:
            for x in range(W):
                a = acc[x]
                if a > minv[x]:
                    j = mini[x]
                    arows[j, x] = a
                    crows[j, 0, x] = frow[x, 0]
                    if store_tex:
                        textures[y, j, x] = tex[y, x]
    if shadow:  # a pixel the shadow test explains scores the threshold: background in every mask
        orow = shown[y]
        for x in range(W):
            if orow[x] != mrow[x]:
                srow[x] = max(srow[x], threshold)


@njit(parallel=True, cache=True)
def silk_frame(
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
    scr_f,
    scr_i,
):
    """One frame of per-pixel SILK novelty detection (see :mod:`silkvision.detector.silk`).

    Parameters
    ----------
    feat : (H, W, C) uint8
        Pixel features (colour-space converted frame), C in {1, 3}.
    colours : (H, omega, C, W) uint8
        Support-vector colours (updated in place when learning).
    alphas : (H, omega, W) float32
        Coefficients divided by the global scale (updated in place when learning).
    since : (H, W) uint8
        Per pixel, learned frames since it was last scored foreground (0: this frame; saturates at
        255; updated in place when learning).
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
    hold : int
        ``cap_fg`` applies to pixels scored foreground in this frame or in one of the ``hold``
        frames before (``since <= hold`` after this frame's update).
    nl : float32
        ``-log2(e) / (2 sigma^2)`` (:func:`kernel_log2_scale`).
    learn : bool
        False: score only.
    blink : (H, W) float32
        Per-pixel blinking level v (read only here; :func:`silk_feedback` updates it).
    textures : (H, omega, W) uint16
        LBSP pattern of every support vector (stored with it when ``tw > 0`` or ``shadow``).
    tex : (H, W) uint16
        This frame's LBSP patterns (:func:`lbsp_frame`; read when ``tw > 0`` or ``shadow``).
    wgain, wmax, wzero : float32
        Kernel width per pixel: ``sigma w`` with ``w = min(1 + wgain max(v - wzero, 0), wmax)``;
        ``wgain = 0``: the same width ``nl`` everywhere (``blink`` is not read).
    tw : float32
        Texture weight: the kernel is ``2^(d2 nl) 2^(-tw H)`` with H the Hamming distance of the
        patterns; 0: colour only.
    shadow : bool
        The shadow test (:func:`_is_shadow`) on every raw foreground pixel: where it holds,
        ``shown`` is background and the score is raised to ``threshold``; ``mask`` (the decision
        the pixel learns from) is unchanged.
    scores : (H, W) float32, mask : (H, W) uint8, shown : (H, W) uint8
        Outputs (``shown``, the mask after the shadow test, only with ``shadow``).
    scr_f : (T, 7, W) float32, scr_i : (T, W) uint32
        Per-thread scratch.
    """
    H = feat.shape[0]
    for y in prange(H):
        _silk_row(
            y,
            numba.get_thread_id(),
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
            scr_f,
            scr_i,
        )


@njit(cache=True)
def silk_frame_serial(
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
    scr_f,
    scr_i,
):
    """:func:`silk_frame` on the calling thread alone (the same results): what a process forked
    after numba's OpenMP threads started must use
    (:func:`~silkvision.detector.numba_threads.parallel_allowed`)."""
    for y in range(feat.shape[0]):
        _silk_row(
            y,
            0,
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
            scr_f,
            scr_i,
        )


@njit(inline="always", cache=True)
def _feedback_row(y, raw, out, prev_raw, prev_out, blink, v_inc, v_dec, v_max):
    """Row ``y`` of :func:`silk_feedback` (masks are 0/255)."""
    rrow = raw[y]
    orow = out[y]
    prrow = prev_raw[y]
    porow = prev_out[y]
    brow = blink[y]
    for x in range(raw.shape[1]):
        r = rrow[x]
        o = orow[x]
        # branch-free (vectorised): nonzero iff the raw decision changed and both outputs are 0
        flick = (r ^ prrow[x]) & ~(o | porow[x])
        v = brow[x]
        up = min(v + v_inc, v_max)
        down = max(v - v_dec, _ZERO)
        brow[x] = up if flick != 0 else down
        prrow[x] = r
        porow[x] = o


@njit(parallel=True, cache=True)
def silk_feedback(raw, out, prev_raw, prev_out, blink, v_inc, v_dec, v_max):
    """Blinking level of every pixel after a learned frame (SuBSENSE's v(x), gated).

    ``v <- min(v + v_inc, v_max)`` where the raw decision flipped since the last learned frame
    while the post-processed mask ``out`` was background in both frames (flicker that the mask
    chain removes, not an object entering or leaving the pixel); ``v <- max(v - v_dec, 0)``
    elsewhere. ``prev_raw`` and ``prev_out`` (uint8, HxW) then take this frame's masks; ``blink``
    is float32 HxW. All updated in place.
    """
    for y in prange(raw.shape[0]):
        _feedback_row(y, raw, out, prev_raw, prev_out, blink, v_inc, v_dec, v_max)


@njit(cache=True)
def silk_feedback_serial(raw, out, prev_raw, prev_out, blink, v_inc, v_dec, v_max):
    """:func:`silk_feedback` on the calling thread alone (see :func:`silk_frame_serial`)."""
    for y in range(raw.shape[0]):
        _feedback_row(y, raw, out, prev_raw, prev_out, blink, v_inc, v_dec, v_max)


@njit(inline="always", cache=True)
def _norma_row(
    y,
    tid,
    feat,
    colours,
    alphas,
    ptr,
    rho,
    scale,
    alpha_new,
    rho_down,
    rho_up,
    threshold,
    nl,
    learn,
    scores,
    mask,
    scr_f,
):
    """Row ``y`` of :func:`norma_frame`, with the scratch of thread ``tid``."""
    H, W, C = feat.shape
    omega = alphas.shape[1]
    featf = scr_f[tid]
    acc = featf[3]
    ubuf = featf[5]
    _load_features(feat, y, featf, C, W)
    for x in range(W):
        acc[x] = _ZERO
    for j in range(omega):
        _slot_sums(colours, alphas, y, featf, ubuf, acc, nl, C, W, j)
    srow = scores[y]
    _scores_and_mask(acc, scale, threshold, srow, mask[y], W)
    if learn:
        rrow = rho[y]
        prow = ptr[y]
        arows = alphas[y]
        crows = colours[y]
        frow = feat[y]
        for x in range(W):
            r = rrow[x]
            if srow[x] < r:
                j = np.intp(prow[x])  # intp throughout: a uint32 + int compare went through float64
                arows[j, x] = alpha_new
                for c in range(C):
                    crows[j, c, x] = frow[x, c]
                j += 1
                prow[x] = np.uint8(0 if j >= omega else j)
                rrow[x] = r - rho_down
            else:
                rrow[x] = r + rho_up


@njit(parallel=True, cache=True)
def norma_frame(
    feat,
    colours,
    alphas,
    ptr,
    rho,
    scale,
    alpha_new,
    rho_down,
    rho_up,
    threshold,
    nl,
    learn,
    scores,
    mask,
    scr_f,
):
    """One frame of per-pixel truncated NORMA novelty detection (see :mod:`silkvision.detector.norma`).

    Parameters
    ----------
    feat, colours, alphas, scale, threshold, nl, learn, scores, mask, scr_f
        As in :func:`silk_frame` (the scale decays by ``1 - eta lambda``).
    ptr : (H, W) uint8
        Per-pixel ring-buffer position: the slot the next support vector overwrites (the oldest).
    rho : (H, W) float32
        Per-pixel offset rho of NORMA's novelty detection (updated in place).
    alpha_new : float32
        Stored value of a new coefficient, ``eta / g_new``.
    rho_down, rho_up : float32
        ``eta (1 - nu)`` (rho falls when ``f < rho``) and ``eta nu`` (rho rises otherwise).
    """
    for y in prange(feat.shape[0]):
        _norma_row(
            y,
            numba.get_thread_id(),
            feat,
            colours,
            alphas,
            ptr,
            rho,
            scale,
            alpha_new,
            rho_down,
            rho_up,
            threshold,
            nl,
            learn,
            scores,
            mask,
            scr_f,
        )


@njit(cache=True)
def norma_frame_serial(
    feat,
    colours,
    alphas,
    ptr,
    rho,
    scale,
    alpha_new,
    rho_down,
    rho_up,
    threshold,
    nl,
    learn,
    scores,
    mask,
    scr_f,
):
    """:func:`norma_frame` on the calling thread alone (see :func:`silk_frame_serial`)."""
    for y in range(feat.shape[0]):
        _norma_row(
            y,
            0,
            feat,
            colours,
            alphas,
            ptr,
            rho,
            scale,
            alpha_new,
            rho_down,
            rho_up,
            threshold,
            nl,
            learn,
            scores,
            mask,
            scr_f,
        )


@njit(inline="always", cache=True)
def _renormalise_row(alphas, y, scale, floor):
    for j in range(alphas.shape[1]):
        row = alphas[y, j]
        for x in range(alphas.shape[2]):
            v = row[x] * scale
            row[x] = v if v >= floor else _ZERO


@njit(parallel=True, cache=True)
def renormalise(alphas, scale, floor):
    """``alphas *= scale`` in place, zeroing results below ``floor`` (the caller then sets g = 1)."""
    for y in prange(alphas.shape[0]):
        _renormalise_row(alphas, y, scale, floor)


@njit(cache=True)
def renormalise_serial(alphas, scale, floor):
    """:func:`renormalise` on the calling thread alone (see :func:`silk_frame_serial`)."""
    for y in range(alphas.shape[0]):
        _renormalise_row(alphas, y, scale, floor)
