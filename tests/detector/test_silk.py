"""SilkSubtractor: the detector API contract, the SILK update rules, checkpoints, errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import silkvision as sv
from silkvision.config.schema import SCHEMA
from silkvision.detector.silk import SilkSubtractor


def _bg(h=12, w=16, colour=(40, 90, 200)):
    return np.full((h, w, 3), colour, np.uint8)


def _true_alphas(det):
    st = det.get_state()
    return st["alphas"] * st["scale"]


def test_defaults_follow_the_schema_and_factory():
    det = sv.create_subtractor("silk")
    assert isinstance(det, SilkSubtractor) and det.name == "silk" and det.has_scores
    p = det.get_params()
    for k, param in SCHEMA["detector"]["silk"].items():
        assert p[k] == param.default, k
    assert p["colour_space"] == SCHEMA["detector"]["colour_space"].default
    assert p["median"] == SCHEMA["detector"]["median"].default
    det = sv.create_subtractor("silk", tau=0.02, omega=7, median=0)
    assert (det.tau, det.omega, det.median) == (0.02, 7, 0)
    assert det.RESTART_PARAMS == {"omega", "colour_space"}


@pytest.mark.parametrize("name", ["silk", "norma"])
def test_parameter_attributes_are_set_params(name):
    """``det.tau = x`` used to be read back as x while the model kept the old value."""
    det, ref = sv.create_subtractor(name, median=0), sv.create_subtractor(name, median=0)
    key = "tau" if name == "silk" else "eta"
    det.apply(_bg())
    ref.apply(_bg())
    det.sigma = 9.0  # live change: the model is kept
    assert det.get_params()["sigma"] == 9.0 and det.frames_seen == 1
    setattr(det, key, 0.2)
    assert getattr(det, key) == det.get_params()[key] == 0.2
    ref.set_params(sigma=9.0, **{key: 0.2})
    for shift in (9, 0, 30):
        det.apply(_bg() + shift)
        ref.apply(_bg() + shift)
        assert np.array_equal(det.scores, ref.scores)  # the new values are the ones used
    assert not np.array_equal(det.scores, sv.create_subtractor(name, median=0).scores)
    with pytest.raises(ValueError, match=key):
        setattr(det, key, -1.0)
    assert getattr(det, key) == 0.2
    det.omega = 5  # a restart parameter resets the model
    assert det.omega == 5 and det.frames_seen == 0
    det.median = 3
    assert det.mask_filter.median == 3
    det.note = "mine"  # other attributes are plain attributes
    assert det.note == "mine" and "note" not in det.get_params()


def test_first_frame_is_all_novel_then_background_reaches_the_fixed_point():
    tau, omega = 0.05, 20
    det = SilkSubtractor(median=0, tau=tau, omega=omega, rho=1.0, C=0.4, conservative=False)
    m = det.apply(_bg())
    assert m.dtype == np.uint8 and m.shape == (12, 16) and np.all(m == 255)
    assert np.all(det.scores == 0)  # scored BEFORE the first update
    for _ in range(300):
        m = det.apply(_bg())
    # constant colour: the buffer holds the last omega coefficients alpha (1 - tau)^k, so
    # f = S alpha with S = sum_k<omega (1 - tau)^k, and alpha = rho - (1 - tau) f (eq. 16, unclipped)
    S = sum((1 - tau) ** k for k in range(omega))
    f_star = S / (1 + (1 - tau) * S)
    np.testing.assert_allclose(det.scores, f_star, rtol=2e-6)
    np.testing.assert_allclose(_true_alphas(det).max(axis=1), 1 / (1 + (1 - tau) * S), rtol=2e-5)
    assert np.all(m == 0)
    assert det.frames_seen == 301


def test_novel_object_is_foreground_and_first_coefficient_is_capped():
    det = SilkSubtractor(median=0, tau=0.1, C=0.4, conservative=False)
    det.apply(_bg())
    np.testing.assert_allclose(_true_alphas(det).max(axis=1), 0.9 * 0.4, rtol=1e-6)  # (1 - tau) C
    for _ in range(60):
        det.apply(_bg())
    f = _bg()
    f[3:7, 5:9] = (200, 20, 20)
    m = det.apply(f)
    assert np.all(m[3:7, 5:9] == 255) and m.sum() == 16 * 255
    assert np.all(det.scores[3:7, 5:9] < 1e-6) and np.all(det.scores[m == 0] > 0.9)


def test_soft_conservative_update_caps_foreground_coefficients():
    kw = dict(median=0, tau=0.1, C=0.4, kappa=0.25, warmup=5, colour_space="rgb")
    caps = {}
    for cons in (False, True):
        det = SilkSubtractor(conservative=cons, **kw)
        for _ in range(20):
            det.apply(_bg())
        f = _bg()
        f[0, 0] = (0, 0, 0)
        det.apply(f)
        st = det.get_state()
        # the slot holding the new (black) colour at pixel (0, 0)
        j = np.flatnonzero(np.all(st["colours"][0, :, :, 0] == 0, axis=1))
        assert j.size == 1
        caps[cons] = st["alphas"][0, j[0], 0] * st["scale"]
    np.testing.assert_allclose(caps[False], 0.9 * 0.4, rtol=1e-5)
    np.testing.assert_allclose(caps[True], 0.9 * 0.25 * 0.4, rtol=1e-5)


def test_hold_keeps_the_cap_for_frames_after_a_foreground_score():
    """A pixel scored foreground at t is still learned under the cap at t+1..t+hold, not later."""
    kw = dict(median=0, tau=0.1, C=0.4, kappa=0.25, warmup=5, colour_space="rgb", global_change=1.0)
    near = np.array([46, 90, 200], np.uint8)  # near _bg(): scored background, below rho

    def new_coefficient(hold, gap):
        det = SilkSubtractor(hold=hold, **kw)
        for _ in range(30):
            det.apply(_bg())
        f = _bg()
        f[0, 0] = (0, 0, 0)  # foreground at (0, 0)
        det.apply(f)
        for _ in range(gap - 1):
            det.apply(_bg())
        f = _bg()
        f[0, 0] = near
        det.apply(f)
        assert det.threshold <= det.scores[0, 0] < 1.0, det.scores[0, 0]
        st = det.get_state()
        j = np.flatnonzero(np.all(st["colours"][0, :, :, 0] == near, axis=1))
        assert j.size == 1
        return st["alphas"][0, j[0], 0] * st["scale"]

    capped = 0.9 * 0.25 * 0.4
    assert new_coefficient(hold=0, gap=1) > capped * 1.5  # hold 0: only the foreground frame
    np.testing.assert_allclose(new_coefficient(hold=2, gap=1), capped, rtol=1e-5)
    np.testing.assert_allclose(new_coefficient(hold=2, gap=2), capped, rtol=1e-5)
    assert new_coefficient(hold=2, gap=3) > capped * 1.5  # 3 frames later: free again


def test_conservative_cap_is_off_during_warmup():
    det = SilkSubtractor(median=0, tau=0.1, C=0.4, kappa=0.0, warmup=3, warmup_kappa=1.0, conservative=True)
    det.apply(_bg())  # frame 1: all foreground, but inside the warm-up
    assert np.all(_true_alphas(det).max(axis=1) > 0.3)


def test_warmup_kappa_caps_foreground_during_the_warmup_only():
    kw = dict(
        median=0, tau=0.1, C=0.4, kappa=0.0, warmup=2, warmup_kappa=0.5, conservative=True, global_change=1.0
    )
    det = SilkSubtractor(**kw)
    det.apply(_bg())  # frame 1: all foreground (empty model), inside the warm-up
    np.testing.assert_allclose(_true_alphas(det).max(axis=1), 0.9 * 0.5 * 0.4, rtol=1e-5)
    det.apply(_bg())  # frame 2: still foreground (score 0.18 < 0.45), still warm-up
    before = _true_alphas(det).copy()
    f = _bg()
    f[:] = (10, 250, 10)  # frame 3: a new colour after the warm-up: kappa = 0 caps it
    det.apply(f)
    np.testing.assert_allclose(_true_alphas(det), before * 0.9, rtol=1e-5)


def _switch_recovery(det, changed, n_before=300, limit=200):
    """Frames until the pixels in ``changed`` are background again after their colour switched."""
    for _ in range(n_before):
        det.apply(_bg())
    f = _bg()
    f[changed] = (200, 200, 60)
    for t in range(1, limit + 1):
        m = det.apply(f)
        if not m[changed].any():
            return t
    return None


def test_global_change_lifts_the_conservative_cap():
    kw = dict(median=0, tau=0.01, C=0.4, kappa=0.1, warmup=5, conservative=True, threshold=0.45, sigma=8.0)
    everything = np.ones((12, 16), bool)
    fast = _switch_recovery(SilkSubtractor(global_change=0.5, **kw), everything)
    slow = _switch_recovery(SilkSubtractor(global_change=1.0, **kw), everything)
    # a light switch: the switch frame itself is capped, then full steps of (1 - tau) C ~ 0.4 each
    # until the score passes the threshold 0.45: a handful of frames
    assert fast is not None and fast <= 5
    assert slow is not None and slow >= 20  # capped: slow (29 frames)
    one = np.zeros((12, 16), bool)
    one[5, 5] = True  # a local change keeps the cap
    local = _switch_recovery(SilkSubtractor(global_change=0.5, **kw), one)
    assert local is not None and local >= 20


def test_buffer_drops_the_lowest_coefficient():
    det = SilkSubtractor(median=0, omega=2, tau=0.5, C=1.0, rho=1.0, conservative=False)
    colours = [(10, 10, 10), (100, 100, 100), (200, 200, 200)]
    for c in colours:
        det.apply(_bg(2, 2, c))
    st = det.get_state()
    kept = sorted(int(v) for v in st["colours"][0, :, 0, 0])
    assert kept == [100, 200]  # alpha(10) = 0.125 < alpha(100) = 0.25 < alpha(200) = 0.5: 10 dropped


def test_learning_rate_zero_scores_without_learning():
    det = SilkSubtractor(median=0)
    for _ in range(5):
        det.apply(_bg())
    before = det.get_state()
    m = det.apply(_bg(colour=(0, 0, 0)), learningRate=0)
    assert np.all(m == 255) and det.frames_seen == 5
    after = det.get_state()
    for k in before:
        np.testing.assert_array_equal(before[k], after[k], err_msg=k)


def test_apply_equals_mask_from_scores_and_fgmask_is_used(sample_seq):
    files = sorted((sample_seq / "input").glob("*.jpg"))[:25]
    det = SilkSubtractor(median=3, warmup=5)
    out = np.zeros((240, 320), np.uint8)
    for f in files:
        res = det.apply(cv2.imread(str(f)), fgmask=out)
    assert res is out
    np.testing.assert_array_equal(out, det.mask_from_scores(det.scores))
    assert set(np.unique(out)) <= {0, 255}
    m2 = det.mask_from_scores(det.scores, threshold=0.0)
    assert not m2.any()  # no score is < 0
    lo, hi = det.score_range
    assert lo == 0.0 and det.scores.min() >= lo and det.scores.max() <= hi


def test_size_change_needs_reset():
    det = SilkSubtractor()
    det.apply(_bg(12, 16))
    with pytest.raises(ValueError, match="16x12.*20x10"):
        det.apply(_bg(10, 20))
    det.reset()
    assert det.frames_seen == 0 and det.scores is None
    assert det.apply(_bg(10, 20)).shape == (10, 20)


@pytest.mark.parametrize(
    "kw,name",
    [
        (dict(tau=0.0), "tau"),
        (dict(tau=1.0), "tau"),
        (dict(C=0), "C"),
        (dict(sigma=-1), "sigma"),
        (dict(omega=0), "omega"),
        (dict(omega=256), "omega"),
        (dict(omega=2.5), "omega"),
        (dict(kappa=1.5), "kappa"),
        (dict(warmup=-1), "warmup"),
        (dict(warmup_kappa=-0.1), "warmup_kappa"),
        (dict(warmup_kappa=1.5), "warmup_kappa"),
        (dict(hold=-1), "hold"),
        (dict(hold=101), "hold"),
        (dict(hold=1.5), "hold"),
        (dict(threshold=-0.1), "threshold"),
        (dict(colour_space="hsv"), "colour_space"),
        (dict(median=4), "median"),
        (dict(rho=0), "rho"),
        (dict(conservative="yes"), "conservative"),
        (dict(tau=float("nan")), "tau"),
        (dict(global_change=0.0), "global_change"),
        (dict(global_change=1.5), "global_change"),
    ],
)
def test_bad_parameters_name_the_parameter(kw, name):
    with pytest.raises(ValueError, match=name):
        SilkSubtractor(**kw)


def test_bad_frames_and_buffers():
    det = SilkSubtractor()
    with pytest.raises(ValueError, match="frame"):
        det.apply(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="frame"):
        det.apply(np.zeros((4, 4, 4), np.uint8))
    with pytest.raises(ValueError, match="fgmask"):
        det.apply(_bg(4, 4), fgmask=np.zeros((5, 4), np.uint8))
    with pytest.raises(ValueError, match="no frame"):
        SilkSubtractor().get_background_image()


def test_set_params_live_and_restart():
    det = SilkSubtractor(median=0)
    for _ in range(10):
        det.apply(_bg())
    state = det.get_state()
    det.set_params(
        threshold=0.5, tau=0.02, C=0.3, sigma=10.0, kappa=0.2, conservative=False, warmup=3, median=5, rho=1.5
    )
    assert det.frames_seen == 10 and det.threshold == 0.5 and det.median == 5
    np.testing.assert_array_equal(det.get_state()["alphas"], state["alphas"])
    det.threshold = 0.7
    assert det.get_params()["threshold"] == 0.7
    with pytest.raises(ValueError, match="bogus"):
        det.set_params(bogus=1)
    with pytest.raises(ValueError, match="tau"):
        det.set_params(tau=2.0, threshold=0.1)
    assert det.threshold == 0.7  # nothing changed on error
    det.set_params(omega=20)  # unchanged value: no reset
    assert det.frames_seen == 10
    det.set_params(omega=5)
    assert det.frames_seen == 0 and det.scores is None
    det.apply(_bg())
    det.set_params(colour_space="lab")
    assert det.frames_seen == 0


def _run(det, frames, start=0):
    scores, masks = [], []
    for f in frames[start:]:
        masks.append(det.apply(f).copy())
        scores.append(det.scores.copy())
    return scores, masks


@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(tau=0.6, omega=4, colour_space="ycrcb", hold=3),
        dict(texture_weight=0.0625, shadow=True),
    ],
)
def test_checkpoint_restore_is_bit_identical(sample_seq, kw):
    files = sorted((sample_seq / "input").glob("*.jpg"))[:50]
    frames = [cv2.imread(str(f))[100:180] for f in files]
    params = dict(warmup=10, **kw)
    ref = SilkSubtractor(**params)
    ref_scores, ref_masks = _run(ref, frames)
    det = SilkSubtractor(**params)
    _run(det, frames[:30])
    state = det.get_state()
    resumed = SilkSubtractor(**params)
    resumed.set_state(state)
    assert resumed.frames_seen == 30
    scores, masks = _run(resumed, frames, start=30)
    for a, b in zip(scores, ref_scores[30:]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(masks, ref_masks[30:]):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(resumed.get_background_image(), ref.get_background_image())


@pytest.mark.parametrize("name", ["silk", "norma"])
def test_a_checkpoint_is_a_copy_that_later_frames_do_not_change(name):
    """get_state promises copies; a state sharing the live arrays would change at the next apply."""
    det = sv.create_subtractor(name, median=0)
    for shift in (0, 5):
        det.apply(_bg() + shift)
    state = det.get_state()
    saved = {k: np.array(v, copy=True) for k, v in state.items() if isinstance(v, np.ndarray)}
    for shift in (40, 80):
        det.apply(_bg() + shift)
    for k, v in saved.items():
        np.testing.assert_array_equal(state[k], v, err_msg=k)
        for live in det.get_state().values():
            if isinstance(live, np.ndarray):
                assert not np.shares_memory(state[k], live), k


def test_set_state_rejects_mismatches():
    det = SilkSubtractor(omega=5)
    det.apply(_bg())
    st = det.get_state()
    with pytest.raises(ValueError, match="omega"):
        SilkSubtractor(omega=6).set_state(st)
    with pytest.raises(ValueError, match="colour_space"):
        SilkSubtractor(omega=5, colour_space="gray").set_state(st)
    bad = dict(st, alphas=st["alphas"][:, :, :-1])
    with pytest.raises(ValueError, match="alphas"):
        SilkSubtractor(omega=5).set_state(bad)
    with pytest.raises(ValueError, match="kind"):
        sv.create_subtractor("norma", omega=5).set_state(st)
    fresh = SilkSubtractor(omega=5)
    fresh.set_state(SilkSubtractor(omega=5).get_state())  # state before any frame
    assert fresh.frames_seen == 0


@pytest.mark.parametrize("cs,tol", [("rgb", 0), ("ycrcb", 3), ("lab", 3), ("gray", 0)])
def test_background_image_is_the_strongest_support_vector(cs, tol):
    # with the soft conservative update a passing object's coefficient, (1 - tau) kappa C = 0.0396,
    # stays below the steady background coefficient 1 / (1 + (1 - tau) S) = 0.0526
    det = SilkSubtractor(colour_space=cs, median=0, tau=0.01, C=0.4, kappa=0.1, warmup=5, conservative=True)
    colour = (30, 120, 210) if cs != "gray" else (90, 90, 90)
    for _ in range(300):
        det.apply(_bg(colour=colour))
    f = _bg(colour=colour)
    f[2, 2] = (250, 250, 0)
    det.apply(f)
    bg = det.get_background_image()
    assert bg.shape == (12, 16, 3) and bg.dtype == np.uint8
    assert np.abs(bg.astype(int) - np.array(colour)).max() <= tol
    # without it the novel colour gets the largest coefficient (the trap of plain SILK eviction)
    det.set_params(conservative=False)
    det.apply(f)
    assert tuple(det.get_background_image()[2, 2]) != tuple(bg[2, 2])


def test_grey_frames_match_colour_frames():
    grey = np.random.default_rng(1).integers(0, 256, (6, 9), dtype=np.uint8)
    a, b = SilkSubtractor(median=0), SilkSubtractor(median=0)
    for t in range(5):
        a.apply(grey)
        b.apply(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))
        np.testing.assert_array_equal(a.scores, b.scores)
    g = SilkSubtractor(colour_space="gray", median=0)
    g.apply(grey)
    assert g.get_state()["colours"].shape == (6, 20, 1, 9)
    # 1 byte colour + 4 byte alpha per slot; per pixel 1 byte "since", and for the width feedback a
    # float32 blinking level and the last raw and output masks (1 byte each)
    assert g.state_nbytes == 6 * 9 * (20 * 5 + 1 + 4 + 2)


@pytest.mark.parametrize("size", [0, 3, 5, 7, 15])
def test_binary_median_equals_opencv_median(rng, size):
    from silkvision.detector.postprocess import median_mask as binary_median

    for p in (0.1, 0.5, 0.9):
        m = np.where(rng.random((37, 53)) < p, 255, 0).astype(np.uint8)
        want = m if size == 0 else cv2.medianBlur(m, size)
        np.testing.assert_array_equal(binary_median(m, size), want)
        out = np.empty_like(m)
        assert binary_median(m, size, out=out) is out
        np.testing.assert_array_equal(out, want)


def _swaying_texture(n, seed=0):
    """A fine random texture shifted by up to 2 pixels every frame: each pixel sees many colours in
    turn, as under leaves in wind."""
    rng = np.random.default_rng(seed)
    tex = cv2.GaussianBlur(rng.integers(0, 256, (64, 96, 3)).astype(np.uint8), (0, 0), 1.5)
    tex = cv2.normalize(tex, None, 0, 255, cv2.NORM_MINMAX)
    return [np.roll(tex, tuple(s), axis=(0, 1)) for s in rng.integers(-2, 3, (n, 2))]


def test_width_feedback_absorbs_a_swaying_texture():
    frames = _swaying_texture(700)
    share = {}
    for gain in (0.2, 0.0):
        det = SilkSubtractor(width_gain=gain)
        fg = [np.count_nonzero(det.apply(f)) / f[..., 0].size for f in frames]
        share[gain] = np.mean(fg[-100:])
    assert share[0.2] < 0.01 < 0.05 < share[0.0]  # one width everywhere: never absorbed


def test_width_feedback_needs_the_mask_chain_and_learning():
    frames = _swaying_texture(60)
    det = SilkSubtractor(median=0, close=0, fill_holes=False)  # flicker cannot be told from objects
    for f in frames:
        det.apply(f)
    assert not det._extra["blink"].any()
    det = SilkSubtractor()
    for f in frames[:40]:
        det.apply(f)
    before = {k: det._extra[k].copy() for k in ("blink", "prev_raw", "prev_out")}
    assert before["blink"].any()
    det.apply(frames[40], learningRate=0)  # score only: the feedback state is not touched
    for k, v in before.items():
        np.testing.assert_array_equal(det._extra[k], v)
