"""The numba kernels agree with their NumPy references (kernels.py vs reference.py).

Tolerance and why
-----------------
* Mirror references (same layout, same float32 operations in the same order, no fastmath on either
  side): scores, coefficients, colours, per-pixel extras and masks must be EQUAL. IEEE float32
  add/multiply/compare are exactly rounded, neither numba (no ``fastmath``: no re-association, no
  implicit FMA contraction) nor NumPy changes the order, and the fused multiply-adds the kernels
  make explicitly (``fma32``, one rounding) the reference reproduces with a correctly rounded FMA,
  so bit equality is the correct expectation; any difference is a bug (wrong index, bad vectorised
  argmin, race between threads).
* Textbook per-pixel models (float64, ``np.exp``, explicit decay of every coefficient): the fast
  path differs by the polynomial exp (relative error < 2.5e-5) and float32 rounding of the global
  decay scale, so scores agree to ``rtol = 1e-4`` (plus ``atol = 1e-6`` near zero).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.detector import kernels as K
from silkvision.detector import reference as R
from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.silk import SilkSubtractor


def _clip_frames(sample_seq, n=60):
    files = sorted((sample_seq / "input").glob("*.jpg"))[:n]
    return [cv2.imread(str(f)) for f in files]


def _random_frames(rng, n, h, w, ch=3):
    """Frames with structure: a few background colours + noise, and moving 'objects'."""
    base = rng.integers(0, 256, (h, w, ch)).astype(np.int16)
    frames = []
    for t in range(n):
        f = base + rng.normal(0, 6, base.shape).round().astype(np.int16)
        if t % 3 == 0:
            y, x = rng.integers(0, h - 4), rng.integers(0, w - 4)
            f[y : y + 4, x : x + 4] = rng.integers(0, 256, ch)
        frames.append(np.clip(f, 0, 255).astype(np.uint8).squeeze())
    return frames


def _run_against_mirror(det, frames, learn_pattern=lambda i: i % 7 != 3, state_every=1):
    """Run det.apply and the mirror reference side by side; compare everything every frame."""
    silk = det.name == "silk"
    ref = R.silk_frame_reference if silk else R.norma_frame_reference
    det.apply(frames[0])
    st = det.get_state()
    keys = ("colours", "alphas", "since", "blink", "prev_raw", "prev_out", "textures", "ptr", "rho")
    state = {k: st[k].copy() for k in keys if k in st}
    extra = [state[k] for k in ("since", "blink", "textures", "ptr", "rho") if k in state]
    H, W = frames[0].shape[:2]
    sc = np.zeros((H, W), np.float32)
    mk = np.zeros((H, W), np.uint8)
    shown = np.zeros((H, W), np.uint8)
    textured, shadow = det._textured() if silk else (False, False)
    shadowed = 0  # pixels the shadow test turned to background, over the run
    for i, f in enumerate(frames[1:]):
        learn = learn_pattern(i)
        args = det.kernel_args(learn)
        feat = det._conv(f)
        if silk:
            tex = R.lbsp_reference(feat) if textured or shadow else np.zeros((0, 0), np.uint16)
            ref(feat, state["colours"], state["alphas"], *extra, tex, *args, sc, mk, shown)
        else:
            ref(feat, state["colours"], state["alphas"], *extra, *args, sc, mk)
        out = shown if shadow else mk
        shadowed += int(np.count_nonzero(out != mk))
        if silk and learn and det.get_params()["width_gain"] > 0:
            fb = [state[k] for k in ("prev_raw", "prev_out", "blink")]
            R.silk_feedback_reference(mk, det.mask_filter(out), *fb, 1.0, 0.1, 10.0)
        scale_before = det._scale
        got = det.apply(f, learningRate=-1 if learn else 0)
        np.testing.assert_array_equal(det.scores, sc, err_msg=f"scores, frame {i + 1}")
        np.testing.assert_array_equal(det._raw, mk, err_msg=f"raw mask, frame {i + 1}")
        np.testing.assert_array_equal(got, det.mask_filter(out), err_msg=f"mask, frame {i + 1}")
        if textured or shadow:
            np.testing.assert_array_equal(det._tex, tex, err_msg=f"patterns, frame {i + 1}")
        if det._scale == 1.0 and learn:  # the detector renormalised after this frame
            R.renormalise_reference(
                state["alphas"], np.float32(_last_scale(det, scale_before)), np.float32(1e-8)
            )
        if i % state_every and i != len(frames) - 2:
            continue
        now = det._state_arrays()
        for k, v in state.items():
            np.testing.assert_array_equal(now[k], v, err_msg=f"{k}, frame {i + 1}")
    det.mirror_shadowed = shadowed
    return det


def _last_scale(det, scale_before):
    if det.name == "silk":
        return scale_before * (1.0 - det.get_params()["tau"])
    p = det.get_params()
    return scale_before * (1.0 - p["eta"] * p["lambda"])


def test_fma32_kernel_equals_correctly_rounded_reference(rng):
    a = (rng.standard_normal(200000) * 10.0 ** rng.integers(-8, 8, 200000)).astype(np.float32)
    b = (rng.standard_normal(200000) * 10.0 ** rng.integers(-8, 8, 200000)).astype(np.float32)
    c = (rng.standard_normal(200000) * 10.0 ** rng.integers(-8, 8, 200000)).astype(np.float32)
    # exact ties and cancellations that a float64 emulation gets wrong without the TwoSum fix
    a[:3] = np.float32(1 + 2**-12), np.float32(1.0), np.float32(3.0)
    b[:3] = np.float32(1 + 2**-12), np.float32(2**-25), np.float32(1 / 3)
    c[:3] = np.float32(2**-50), np.float32(1.0), np.float32(-1.0)
    out = np.empty_like(a)
    K.fma32_array(a, b, c, out)
    np.testing.assert_array_equal(out, R.fma32_reference(a, b, c))
    plain = (a.astype(np.float64) * b + c).astype(np.float32)
    assert np.mean(out != (a * b + c)) > 0.01 and np.mean(out != plain) < 1e-3  # fused, single rounding


def test_exp2_kernel_equals_reference_and_is_accurate():
    u = np.concatenate([np.linspace(-80, 0, 400001), [-1e30, -72.0, -1e-30, -0.0, 0.0]]).astype(np.float32)
    out = np.empty_like(u)
    K.exp2_neg_array(u, out)
    np.testing.assert_array_equal(out, R.exp2_neg_reference(u))
    inside = u >= K.U_MIN
    rel = out[inside].astype(np.float64) / np.exp2(u[inside].astype(np.float64)) - 1
    assert np.abs(rel).max() < 1e-5
    assert out[u == 0][0] == 1.0  # k(x, x) = 1 exactly
    assert np.all(out[~inside] == np.float32(2.0**-72))
    # the Gaussian kernel through it: d2 -> 2 ** (d2 nl)
    d2 = np.arange(0, 3 * 255**2 + 1, 7).astype(np.float32)
    nl = K.kernel_log2_scale(15.0)
    k = np.empty_like(d2)
    K.exp2_neg_array(d2 * nl, k)
    want = np.exp(-d2.astype(np.float64) / (2 * 15.0**2))
    big = want > 2.0**-72
    assert np.abs(k[big] / want[big] - 1).max() < 1e-5
    assert np.all(k[~big] == np.float32(2.0**-72))


@pytest.mark.parametrize(
    "params",
    [
        dict(),  # defaults
        dict(colour_space="gray", conservative=False, tau=0.05, C=1.0),
        dict(colour_space="ycrcb", omega=3, warmup=2, kappa=0.3, sigma=8.0),
        dict(colour_space="ycrcb", omega=5, warmup=3, kappa=0.2, hold=3),  # cap held after foreground
        dict(colour_space="ycrcb", omega=4, warmup=20, warmup_kappa=0.3, kappa=0.1),  # warm-up cap
        dict(tau=0.6, omega=4, warmup=0),  # renormalises every ~30 frames
        # a kernel width per pixel, from flicker that the median removes
        dict(median=3, width_gain=0.5, width_dead_zone=0.0, width_max=3.0),
        dict(median=5, colour_space="gray", width_gain=2.0, width_dead_zone=0.5, width_max=1.5),
        # the texture term and the shadow test, alone and together, with the width
        dict(texture_weight=0.25),
        dict(shadow=True, omega=6, warmup=3),
        dict(median=3, texture_weight=0.0625, shadow=True, width_gain=0.5, width_dead_zone=0.0),
        dict(colour_space="gray", texture_weight=1.0, shadow=True),
        dict(colour_space="lab", texture_weight=0.125, shadow=True, tau=0.6, omega=4, warmup=0),
    ],
)
def test_silk_kernel_matches_mirror_on_random_frames(rng, params):
    det = SilkSubtractor(**{"median": 0, **params})
    frames = _random_frames(rng, 70, 13, 37)
    if params.get("shadow"):  # darker copies of the background, with its texture, in every third frame
        frames = [(f * 0.7).astype(np.uint8) if i % 3 == 2 else f for i, f in enumerate(frames)]
    det = _run_against_mirror(det, frames)
    if params.get("width_gain"):
        assert det._extra["blink"].max() > params["width_dead_zone"]  # the widths did vary
    if params.get("shadow"):
        assert det._textured()[1] and det.mirror_shadowed > 0  # the test did hold somewhere


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (5, 4), (3, 5), (6, 7), (17, 40)])
def test_lbsp_kernel_equals_reference(rng, shape):
    """Every frame size, the clamped border (narrower than the 5x5 pattern) included, and the exact
    threshold (differences equal to ``max(0.3 c, 4)`` are not set)."""
    feat = rng.integers(0, 256, (*shape, 3)).astype(np.uint8)
    feat[..., 0] = np.where(rng.random(shape) < 0.3, 40, feat[..., 0])  # 0.3 * 40 = 12: on the edge
    feat.reshape(-1, 3)[::5, 0] = 52
    want = R.lbsp_reference(feat)
    for fn in (K.lbsp_frame, K.lbsp_frame_serial):
        got = np.zeros(shape, np.uint16)
        fn(feat, np.zeros((2, *shape), np.uint8), got)
        np.testing.assert_array_equal(got, want)
    v = rng.integers(0, 1 << 16, 1000).astype(np.uint16)
    np.testing.assert_array_equal(K.popcount16_array(v, np.empty_like(v)), R.popcount16_reference(v))
    assert R.popcount16_reference(np.array([0, 1, 0xFFFF, 0x8001], np.uint16)).tolist() == [0, 1, 16, 2]


def test_silk_width_feedback_matches_mirror(rng):
    """The blinking level: flips count only where the output was background in both frames."""
    H, W = 9, 23
    blink = (rng.random((H, W)) * 12).astype(np.float32).clip(0, 10)
    arrays = [rng.choice(np.array([0, 255], np.uint8), (H, W)) for _ in range(4)]
    got = [a.copy() for a in arrays[2:]] + [blink.copy()]
    want = [a.copy() for a in arrays[2:]] + [blink.copy()]
    K.silk_feedback(arrays[0], arrays[1], *got, np.float32(1.0), np.float32(0.1), np.float32(10.0))
    R.silk_feedback_reference(arrays[0], arrays[1], *want, 1.0, 0.1, 10.0)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    raw, out, prev_raw, prev_out = arrays
    flick = (raw != prev_raw) & (out == 0) & (prev_out == 0)
    assert flick.any() and (~flick).any()
    np.testing.assert_array_equal(got[2][flick], np.minimum(blink[flick] + np.float32(1), np.float32(10)))
    np.testing.assert_array_equal(got[2][~flick], np.maximum(blink[~flick] - np.float32(0.1), np.float32(0)))


def test_silk_renormalisation_is_exercised():
    det = SilkSubtractor(tau=0.6, omega=4)
    frames = [np.full((3, 5, 3), 100, np.uint8)] * 40
    seen_small = False
    for f in frames:
        det.apply(f)
        seen_small |= det._scale < 1e-6
    assert seen_small and det._scale >= 2.0**-40  # it shrank, and was renormalised


def test_renormalise_kernel_equals_reference_around_the_floor(rng):
    """Values below, exactly at and above floor/scale, zeros, and random ones: the floor zeroes
    exactly the products below it (a kernel without the floor, or with ``>``, fails)."""
    scale, floor = np.float32(2.0**-40 * 0.75), np.float32(1e-8)
    at = np.float32(floor / scale)
    while at * scale < floor:  # the smallest stored value kept by the floor
        at = np.nextafter(at, np.float32(np.inf))
    while np.nextafter(at, np.float32(0)) * scale >= floor:
        at = np.nextafter(at, np.float32(0))
    special = np.array(
        [
            0.0,
            at,
            np.nextafter(at, np.float32(0)),
            np.nextafter(at, np.float32(np.inf)),
            at * 0.5,
            at * 2,
            1.0,
            1e-30,
            3e30,
        ],
        np.float32,
    )
    assert at * scale >= floor and np.nextafter(at, np.float32(0)) * scale < floor
    for shape in [(3, 4, 9), (5, 2, 37)]:
        a = (rng.random(shape) * 4 * at).astype(np.float32)  # about a quarter below the floor
        a.reshape(-1)[: special.size] = special
        ref = a.copy()
        K.renormalise(a, scale, floor)
        R.renormalise_reference(ref, scale, floor)
        np.testing.assert_array_equal(a, ref)
        assert (a == 0).sum() > special.size and (a > 0).sum() > a.size // 2
        flat = a.reshape(-1)
        assert flat[0] == 0 and flat[1] == at * scale and flat[2] == 0 and flat[3] > 0


@pytest.mark.parametrize("params", [dict(), dict(colour_space="lab", omega=3, nu=0.2, eta=0.5, lam=0.9)])
def test_norma_kernel_matches_mirror_on_random_frames(rng, params):
    det = NormaSubtractor(median=0, **params)
    frames = _random_frames(rng, 70, 11, 29)
    _run_against_mirror(det, frames)


@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
@pytest.mark.slow
def test_kernels_match_mirror_on_sample_clip(sample_seq, cls):
    frames = [f[100:180] for f in _clip_frames(sample_seq, 60)]  # the lanes: 80 x 320 pixels
    kw = dict(warmup=10, hold=2) if cls is SilkSubtractor else {}
    _run_against_mirror(cls(median=0, **kw), frames, learn_pattern=lambda i: i != 30, state_every=15)


@pytest.mark.parametrize("tau, omega, n", [(0.05, 5, 60), (0.3, 20, 120)])
def test_silk_matches_textbook_per_pixel_model(sample_seq, tau, omega, n):
    """Global scale + fast exp + row layout == the paper's update written plainly (float64). With
    tau = 0.3 the global scale is renormalised (at frame 78) while the buffer holds coefficients
    near 1e-3, and the floor below which one is dropped then (ALPHA_FLOOR) must not change the
    scores."""
    frames = [f[100:106, 150:156] for f in _clip_frames(sample_seq, n)]  # a 6x6 patch with traffic
    p = dict(
        omega=omega,
        tau=tau,
        C=0.5,
        rho=1.0,
        sigma=12.0,
        threshold=0.4,
        conservative=True,
        kappa=0.2,
        warmup=8,
        warmup_kappa=0.6,
        hold=2,
    )
    # per-pixel maths only: one kernel width (the width feedback reads the mask chain's output)
    det = SilkSubtractor(median=0, global_change=1.0, width_gain=0.0, colour_space="rgb", **p)
    models = [[R.SilkPixelModel(**p) for _ in range(6)] for _ in range(6)]
    for t, f in enumerate(frames):
        learn = t != 20
        det.apply(f, learningRate=-1 if learn else 0)
        want = np.array([[models[y][x].step(f[y, x], learn) for x in range(6)] for y in range(6)])
        np.testing.assert_allclose(det.scores, want, rtol=1e-4, atol=1e-6, err_msg=f"frame {t}")


def test_norma_matches_textbook_per_pixel_model(sample_seq):
    frames = [f[100:106, 150:156] for f in _clip_frames(sample_seq, 60)]
    # eta and nu are binary fractions so that rho (a running sum of +-eta nu, eta (1 - nu)) is exact
    # in float32 and float64 alike: otherwise rho ~ 0 is 1.8e-7 on one side and -8e-17 on the other
    # and the comparison f < rho legitimately flips (seen with eta 0.2, nu 0.3)
    p = dict(omega=5, eta=0.25, lam=0.4, nu=0.25, sigma=12.0)
    det = NormaSubtractor(median=0, threshold=0.3, colour_space="rgb", **p)
    models = [[R.NormaPixelModel(**p) for _ in range(6)] for _ in range(6)]
    for t, f in enumerate(frames):
        det.apply(f)
        want = np.array([[models[y][x].step(f[y, x]) for x in range(6)] for y in range(6)])
        np.testing.assert_allclose(det.scores, want, rtol=1e-4, atol=1e-6, err_msg=f"frame {t}")
