"""Experimental per-pixel SILK kernels for the accuracy study (``benchmarks/detector_loo.py``).

Not part of the package: a serial numba kernel with the production model
(:func:`silkvision.detector.kernels.silk_frame`: the same score, hinge step, conservative cap,
``hold`` and eviction, built from the same inlined row helpers) plus two switchable ideas from the
sample-consensus detectors, so that each can be measured before anything is ported.

Pixel-level feedback (SuBSENSE, St-Charles et al. 2015; PBAS, Hofmann et al. 2012)
    A per-pixel "blinking" level v(x), SuBSENSE's: v <- v + v_inc where the raw decision flipped
    since the last learned frame (X_t XOR X_{t-1}), v <- v - v_dec otherwise, clipped to
    [0, v_max] (SuBSENSE: v_incr = 1, v_decr = 0.1). It drives the two per-pixel controls that
    SuBSENSE's R(x) and T(x) (and PBAS's R(x), T(x)) are, in SILK's terms:

    * tolerance: the pixel is foreground iff ``s < threshold / (1 + fb_thr v)`` (a wider
      tolerance where the decision keeps flipping, as R(x) grows with v);
    * learning speed: the conservative cap of a pixel scored foreground is lifted towards the full
      cap, ``cap_fg + (cap - cap_fg) min(1, fb_cap v)`` (as T(x) falls, i.e. the update
      probability 1/T rises, with v), so a flickering pixel learns the colours that flicker.

    The scores written out are ``s (1 + fb_thr v)``, so ``score < threshold`` is still the decision
    and ROC curves of the variants are comparable.

Neighbour diffusion (ViBe, Barnich and Van Droogenbroeck 2011, "spatial propagation")
    After the frame, a pixel scored background whose position/frame hash selects it (one pixel in
    ``diff_every``: ViBe's subsampling factor phi = 16) offers its colour to one of its 8
    neighbours (chosen by the same hash, never a global RNG, so runs are reproducible). The
    neighbour takes SILK's implicit step on that colour with its own model: coefficient
    ``clip(rho - f_n(x), 0, diff_kappa C (1 - tau))`` (f_n after this frame's decay), inserted
    if it beats the neighbour's smallest coefficient. A colour the neighbour already explains adds
    nothing; under jitter or sway a pixel thereby learns the colours next to it.

Texture term (LBSP, Bilodeau et al. 2013; St-Charles et al. 2015 for SuBSENSE)
    A 16-bit local binary similarity pattern of the luma channel (``feat[..., 0]``: Y of the
    default YCrCb feature) per pixel: bit p is set where the p-th sample of LBSP's sparse 5x5
    pattern differs from the centre by more than ``max(tex_rel I_c, TEX_ABS)`` (relative, so a
    uniformly darker patch, a shadow, keeps its pattern). Every support vector stores the pattern
    of the frame it was learned from, and the kernel becomes the product
    ``k = 2^(-nl |x - x_i|^2) 2^(-tex_w H(t, t_i))`` with H the Hamming distance: a colour that
    matches but whose texture does not scores lower (is more novel).

Shadow test with texture (Horprasert et al. 1999's brightness/chromaticity distortion, gated by
the texture as shadow tests are in practice)
    A raw foreground pixel is background if one established support vector (coefficient x scale
    >= ``SH_AMIN``) has a luma at most ``1 / sh_lo`` and at least ``1 / sh_hi`` times the pixel's
    (``sh_lo <= Y / Y_i <= sh_hi``: darker), a chroma (Cr, Cb) within ``sh_chroma`` 8-bit units,
    and a pattern within ``sh_ham`` bits of the pixel's (the same texture), the pixel's own pattern
    having at least ``sh_bits`` set bits (two flat patches, a dark car roof on asphalt, share the
    empty pattern: that is no evidence of a shadow). ``sh_learn = 0``
    changes the output only (the pixel learns from its own decision, written to ``shadow_out``);
    1 also learns from it.

With ``fb_thr = fb_cap = 0`` and ``diff_every = 0`` (and no texture or shadow) the scores, masks and state are those of the
production kernel bit for bit (checked by ``detector_loo.py --self-check``).
"""

from __future__ import annotations

import numba  # noqa: F401
import numpy as np
from numba import njit

from silkvision.detector.kernels import _load_features, _slot_exponents, _slot_sums_min, exp2_neg, fma32

_ZERO = np.float32(0.0)
_ONE = np.float32(1.0)
_INF = np.float32(np.inf)


@njit(inline="always", cache=True)
def pixel_hash(x, y, t):
    """A 32-bit mix of position and frame index (murmur3's finaliser): deterministic randomness."""
    h = (
        (np.uint32(x) * np.uint32(0x9E3779B1))
        ^ (np.uint32(y) * np.uint32(0x85EBCA77))
        ^ (np.uint32(t) * np.uint32(0xC2B2AE3D))
    )
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


#: absolute floor of the LBSP threshold (8-bit luma units): flat, noisy regions keep stable patterns
TEX_ABS = np.float32(4.0)
#: smallest scaled coefficient of a support vector the shadow test compares with
SH_AMIN = np.float32(0.05)
# LBSP's 16 samples in the 5x5 neighbourhood (dy, dx): the 3x3 ring, the 5x5 corners and edge middles
_LBSP_DY = np.array([-1, -1, -1, 0, 1, 1, 1, 0, -2, -2, -2, 0, 2, 2, 2, 0], np.int64)
_LBSP_DX = np.array([-1, 0, 1, 1, 1, 0, -1, -1, -2, 0, 2, 2, 2, 0, -2, -2], np.int64)


@njit(cache=True)
def lbsp(feat, rel, out):
    """16-bit LBSP of ``feat[..., 0]`` into ``out`` (HxW uint16); samples outside the frame are
    clamped to the border."""
    H, W = feat.shape[0], feat.shape[1]
    for y in range(H):
        for x in range(W):
            c = np.float32(feat[y, x, 0])
            t = max(rel * c, TEX_ABS)
            code = np.uint32(0)
            for p in range(16):
                yy = min(max(y + _LBSP_DY[p], 0), H - 1)
                xx = min(max(x + _LBSP_DX[p], 0), W - 1)
                if abs(np.float32(feat[yy, xx, 0]) - c) > t:
                    code |= np.uint32(1) << np.uint32(p)
            out[y, x] = np.uint16(code)


def lbsp_reference(grey, rel):
    """Plain NumPy :func:`lbsp` of an HxW grey image (for the test that they agree)."""
    g = grey.astype(np.float32)
    H, W = g.shape
    pad = np.pad(g, 2, mode="edge")
    t = np.maximum(np.float32(rel) * g, TEX_ABS)
    out = np.zeros((H, W), np.uint16)
    for p in range(16):
        dy, dx = int(_LBSP_DY[p]), int(_LBSP_DX[p])
        nb = pad[2 + dy : 2 + dy + H, 2 + dx : 2 + dx + W]
        out |= ((np.abs(nb - g) > t).astype(np.uint16) << np.uint16(p)).astype(np.uint16)
    return out


@njit(inline="always", cache=True)
def popcount16(v):
    """Number of set bits of a 16-bit value (SWAR)."""
    v = np.uint32(v)
    v = v - ((v >> np.uint32(1)) & np.uint32(0x5555))
    v = (v & np.uint32(0x3333)) + ((v >> np.uint32(2)) & np.uint32(0x3333))
    v = (v + (v >> np.uint32(4))) & np.uint32(0x0F0F)
    return np.int32((v + (v >> np.uint32(8))) & np.uint32(0x1F))


@njit(inline="always", cache=True)
def _slot_sums_min_tex(colours, alphas, svtex, tex, y, featf, ubuf, acc, minv, mini, nl, tex_w, C, W, j):
    """``_slot_sums_min`` with the product kernel: the exponent gains ``tex_w`` per differing bit."""
    _slot_exponents(colours, y, featf, ubuf, nl, C, W, j)
    arow = alphas[y, j]
    trow = svtex[y, j]
    crow = tex[y]
    j32 = np.uint32(j)
    for x in range(W):
        a = arow[x]
        u = ubuf[x] - tex_w * np.float32(popcount16(trow[x] ^ crow[x]))
        acc[x] = fma32(a, exp2_neg(u), acc[x])
        m = minv[x]
        i = mini[x]
        minv[x] = min(a, m)
        mini[x] = j32 if a < m else i


@njit(inline="always", cache=True)
def _is_shadow(feat, colours, alphas, svtex, tex, y, x, scale, sh_lo, sh_hi, sh_chroma2, sh_ham, sh_bits):
    """The pixel's colour is a darker copy, same chroma and texture, of an established support
    vector; a pattern with fewer than ``sh_bits`` set bits (a flat patch) is no evidence."""
    omega = alphas.shape[1]
    C = feat.shape[2]
    fy = np.float32(feat[y, x, 0])
    t = tex[y, x]
    if popcount16(t) < sh_bits:
        return False
    for j in range(omega):
        if alphas[y, j, x] * scale < SH_AMIN:
            continue
        cy = np.float32(colours[y, j, 0, x])
        if fy < sh_lo * cy or fy > sh_hi * cy:
            continue
        d2 = _ZERO
        for ch in range(1, C):
            d = np.float32(feat[y, x, ch]) - np.float32(colours[y, j, ch, x])
            d2 += d * d
        if d2 > sh_chroma2:
            continue
        if popcount16(t ^ svtex[y, j, x]) <= sh_ham:
            return True
    return False


_DY = np.array([-1, -1, -1, 0, 0, 1, 1, 1], np.int64)
_DX = np.array([-1, 0, 1, -1, 1, -1, 0, 1], np.int64)


@njit(inline="always", cache=True)
def _score_row(
    y,
    feat,
    colours,
    alphas,
    blink,
    scale,
    threshold,
    nl,
    fb_thr,
    scores,
    mask,
    featf,
    mini,
    write,
    svtex,
    tex,
    tex_w,
    shadow,
    sh_lo,
    sh_hi,
    sh_chroma2,
    sh_ham,
    sh_bits,
    shadow_out,
    nlmap,
):
    """Scores and raw decisions of row y (written out if ``write``); leaves the unwidened scores
    (``featf[0]``) and the row's lowest coefficients (``featf[4]``, ``mini``) in scratch."""
    W, C = feat.shape[1], feat.shape[2]
    omega = alphas.shape[1]
    acc = featf[3]
    minv = featf[4]
    ubuf = featf[5]
    _load_features(feat, y, featf, C, W)
    for x in range(W):
        acc[x] = _ZERO
        minv[x] = _INF
        mini[x] = np.uint32(0)
    # (the product's slot helpers take one width ``nl`` or a row of them, ``nlmap[y]``)
    if tex_w > _ZERO and nlmap.shape[0] == feat.shape[0]:
        for j in range(omega):
            _slot_sums_min_tex(
                colours, alphas, svtex, tex, y, featf, ubuf, acc, minv, mini, nlmap[y], tex_w, C, W, j
            )
    elif tex_w > _ZERO:
        for j in range(omega):
            _slot_sums_min_tex(
                colours, alphas, svtex, tex, y, featf, ubuf, acc, minv, mini, nl, tex_w, C, W, j
            )
    elif nlmap.shape[0] == feat.shape[0]:
        for j in range(omega):
            _slot_sums_min(colours, alphas, y, featf, ubuf, acc, minv, mini, nlmap[y], C, W, j)
    else:
        for j in range(omega):
            _slot_sums_min(colours, alphas, y, featf, ubuf, acc, minv, mini, nl, C, W, j)
    srow = scores[y]
    mrow = mask[y]
    brow = blink[y]
    sraw = featf[0]
    for x in range(W):
        s = acc[x] * scale
        sraw[x] = s
        if write:
            widen = _ONE + fb_thr * brow[x]
            fg = s < threshold / widen if fb_thr > _ZERO else s < threshold
            srow[x] = s * widen if fb_thr > _ZERO else s
            mrow[x] = np.uint8(255) if fg else np.uint8(0)
    if write and shadow > 0:
        # shadow == 1: the output only (``shadow_out``); 2: the learned decisions too
        orow = mrow if shadow == 2 else shadow_out[y]
        for x in range(W):
            if shadow == 1:
                orow[x] = mrow[x]
            if mrow[x] != 0 and _is_shadow(
                feat, colours, alphas, svtex, tex, y, x, scale, sh_lo, sh_hi, sh_chroma2, sh_ham, sh_bits
            ):
                orow[x] = np.uint8(0)


@njit(inline="always", cache=True)
def _learn_row(
    y,
    feat,
    colours,
    alphas,
    since,
    blink,
    inv_scale_new,
    decay,
    rho,
    cap,
    cap_fg,
    hold,
    fb_thr,
    fb_cap,
    v_inc,
    v_dec,
    v_max,
    scores,
    mask,
    featf,
    mini,
    svtex,
    tex,
    store_tex,
):
    """SILK's update of row y from its decisions (``mask``) and scores (scratch from _score_row)."""
    W, C = feat.shape[1], feat.shape[2]
    acc = featf[3]
    minv = featf[4]
    sraw = featf[0]
    mrow = mask[y]
    brow = blink[y]
    sincerow = since[y]
    for x in range(W):
        s = sraw[x]
        fg = mrow[x] != 0
        v = brow[x]
        c = np.int32(sincerow[x])
        was_fg = c == 0
        if fg != was_fg:
            v = min(v + v_inc, v_max)
        else:
            v = max(v - v_dec, _ZERO)
        brow[x] = v
        c = 0 if fg else min(c + 1, 255)
        sincerow[x] = np.uint8(c)
        cp = cap_fg if c <= hold else cap
        if fb_cap > _ZERO and cp < cap:
            cp = cp + (cap - cp) * min(_ONE, fb_cap * v)
        a = rho - decay * s
        a = min(max(a, _ZERO), cp)
        acc[x] = a * inv_scale_new
    arows = alphas[y]
    crows = colours[y]
    frow = feat[y]
    for x in range(W):
        a = acc[x]
        if a > minv[x]:
            j = mini[x]
            arows[j, x] = a
            for ch in range(C):
                crows[j, ch, x] = frow[x, ch]
            if store_tex:
                svtex[y, j, x] = tex[y, x]


@njit(inline="always", cache=True)
def _consult(feat, colours, alphas, scale, threshold, nl, mask, consult_n, frame_index, scores, consult_lo):
    """A raw foreground pixel whose colour a neighbour's model explains (score >= threshold) is
    background (ViBe's and PBAS's neighbourhood, used at decision time); all 8 neighbours, or one
    chosen by the position/frame hash. Pixels whose own score is below ``consult_lo`` (their own
    model is sure the colour is new) are not consulted."""
    H, W, C = feat.shape
    omega = alphas.shape[1]
    for y in range(H):
        for x in range(W):
            if mask[y, x] == 0 or scores[y, x] < consult_lo:
                continue
            k0 = 0
            nk = 8
            if consult_n < 8:
                k0 = np.int64((pixel_hash(x, y, frame_index) >> np.uint32(24)) & np.uint32(7))
                nk = consult_n
            for kk in range(nk):
                k = (k0 + kk) & 7
                ny = y + _DY[k]
                nx = x + _DX[k]
                if ny < 0 or ny >= H or nx < 0 or nx >= W:
                    continue
                acc = _ZERO
                for j in range(omega):
                    d2 = _ZERO
                    for ch in range(C):
                        t = np.float32(feat[y, x, ch]) - np.float32(colours[ny, j, ch, nx])
                        d2 = fma32(t, t, d2)
                    acc = fma32(alphas[ny, j, nx], exp2_neg(d2 * nl), acc)
                if acc * scale >= threshold:
                    mask[y, x] = np.uint8(0)
                    break


@njit(cache=True)
def variant_frame(
    feat,
    colours,
    alphas,
    since,
    blink,
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
    scores,
    mask,
    scr_f,
    scr_i,
    fb_thr,
    fb_cap,
    v_inc,
    v_dec,
    v_max,
    diff_every,
    diff_cap,
    frame_index,
    consult_n,
    consulted,
    consult_lo,
    svtex,
    tex,
    tex_w,
    shadow,
    sh_lo,
    sh_hi,
    sh_chroma2,
    sh_ham,
    sh_bits,
    shadow_out,
    nlmap,
):
    """One frame of SILK with the optional feedback, neighbour consultation and diffusion, texture
    term and shadow test (module notes); serial. ``tex`` holds this frame's LBSP when the texture
    or the shadow test is on."""
    H = feat.shape[0]
    store_tex = tex_w > _ZERO or shadow > 0
    featf = scr_f[0]
    mini = scr_i[0]
    if consult_n == 0:
        for y in range(H):
            _score_row(
                y,
                feat,
                colours,
                alphas,
                blink,
                scale,
                threshold,
                nl,
                fb_thr,
                scores,
                mask,
                featf,
                mini,
                True,
                svtex,
                tex,
                tex_w,
                shadow,
                sh_lo,
                sh_hi,
                sh_chroma2,
                sh_ham,
                sh_bits,
                shadow_out,
                nlmap,
            )
            if learn:
                _learn_row(
                    y,
                    feat,
                    colours,
                    alphas,
                    since,
                    blink,
                    inv_scale_new,
                    decay,
                    rho,
                    cap,
                    cap_fg,
                    hold,
                    fb_thr,
                    fb_cap,
                    v_inc,
                    v_dec,
                    v_max,
                    scores,
                    mask,
                    featf,
                    mini,
                    svtex,
                    tex,
                    store_tex,
                )
    else:
        # every decision before any update (the neighbours' models are this frame's, unchanged)
        for y in range(H):
            _score_row(
                y,
                feat,
                colours,
                alphas,
                blink,
                scale,
                threshold,
                nl,
                fb_thr,
                scores,
                mask,
                featf,
                mini,
                True,
                svtex,
                tex,
                tex_w,
                shadow,
                sh_lo,
                sh_hi,
                sh_chroma2,
                sh_ham,
                sh_bits,
                shadow_out,
                nlmap,
            )
        if consulted.shape[0] == H:
            # output only: ``mask`` keeps the pixel's own decisions (learning, the global-change
            # rule), ``consulted`` receives the consulted ones
            consulted[...] = mask
            _consult(
                feat,
                colours,
                alphas,
                scale,
                threshold,
                nl,
                consulted,
                consult_n,
                frame_index,
                scores,
                consult_lo,
            )
        else:
            _consult(
                feat, colours, alphas, scale, threshold, nl, mask, consult_n, frame_index, scores, consult_lo
            )
        if learn:
            for y in range(H):
                # the same sums again for the row's scratch (scores, lowest coefficients); the
                # decisions are the consulted ones already in ``mask``
                _score_row(
                    y,
                    feat,
                    colours,
                    alphas,
                    blink,
                    scale,
                    threshold,
                    nl,
                    fb_thr,
                    scores,
                    mask,
                    featf,
                    mini,
                    False,
                    svtex,
                    tex,
                    tex_w,
                    shadow,
                    sh_lo,
                    sh_hi,
                    sh_chroma2,
                    sh_ham,
                    sh_bits,
                    shadow_out,
                    nlmap,
                )
                _learn_row(
                    y,
                    feat,
                    colours,
                    alphas,
                    since,
                    blink,
                    inv_scale_new,
                    decay,
                    rho,
                    cap,
                    cap_fg,
                    hold,
                    fb_thr,
                    fb_cap,
                    v_inc,
                    v_dec,
                    v_max,
                    scores,
                    mask,
                    featf,
                    mini,
                    svtex,
                    tex,
                    store_tex,
                )
    if learn and diff_every > 0:
        _diffuse(feat, colours, alphas, mask, inv_scale_new, rho, nl, diff_every, diff_cap, frame_index)


@njit(inline="always", cache=True)
def _diffuse(feat, colours, alphas, mask, inv_scale_new, rho, nl, diff_every, diff_cap, frame_index):
    H, W, C = feat.shape
    omega = alphas.shape[1]
    g_new = _ONE / inv_scale_new
    every = np.uint32(diff_every)
    for y in range(H):
        for x in range(W):
            if mask[y, x] != 0:
                continue
            h = pixel_hash(x, y, frame_index)
            if h % every != np.uint32(0):
                continue
            k = (h >> np.uint32(24)) & np.uint32(7)
            ny = y + _DY[k]
            nx = x + _DX[k]
            if ny < 0 or ny >= H or nx < 0 or nx >= W:
                continue
            acc = _ZERO
            lo = _INF
            lj = 0
            for j in range(omega):
                d2 = _ZERO
                for ch in range(C):
                    t = np.float32(feat[y, x, ch]) - np.float32(colours[ny, j, ch, nx])
                    d2 = fma32(t, t, d2)
                al = alphas[ny, j, nx]
                acc = fma32(al, exp2_neg(d2 * nl), acc)
                if al < lo:
                    lo = al
                    lj = j
            a = min(max(rho - acc * g_new, _ZERO), diff_cap) * inv_scale_new
            if a > lo:
                alphas[ny, lj, nx] = a
                for ch in range(C):
                    colours[ny, lj, ch, nx] = feat[y, x, ch]
