"""Bad input to the detectors gives a one-line ValueError naming the parameter (never a segfault,
a numba TypingError, a raw cv2.error or silent NaN)."""

from __future__ import annotations

import math
import pickle

import cv2
import numpy as np
import pytest

import silkvision as sv
from silkvision.detector import postprocess
from silkvision.detector.mask_kernels import MedianClose5
from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.opencv import OpenCVSubtractor
from silkvision.detector.postprocess import MaskFilter
from silkvision.detector.silk import SIGMA_MIN, SilkSubtractor
from silkvision.errors import ConfigError
from silkvision.evaluation import RocAccumulator

from .alloc import peak_allocation

H, W = 24, 32


@pytest.fixture
def frame(rng):
    return rng.integers(0, 256, (H, W, 3), dtype=np.uint8)


def _readonly(a):
    a.setflags(write=False)
    return a


_BAD_OUTS = {
    "wrong shape": lambda: np.zeros((3, 3), np.uint8),
    "transposed": lambda: np.zeros((W, H), np.uint8),
    "float32": lambda: np.zeros((H, W), np.float32),
    "read-only": lambda: _readonly(np.zeros((H, W), np.uint8)),
    "strided, wrong dtype": lambda: np.zeros((H, 2 * W), np.uint16)[:, ::2],
    "strided, read-only": lambda: _readonly(np.zeros((H, 2 * W), np.uint8))[:, :W],
    "list": lambda: [[0] * W] * H,
}


# ---------------------------------------------------------------- 1. output buffers
@pytest.mark.parametrize("chain", [(5, 5, True), (5, 5, False), (3, 3, False), (7, 0, True), (0, 0, False)])
@pytest.mark.parametrize("bad", list(_BAD_OUTS))
def test_mask_filter_checks_out(chain, bad, rng):
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    with pytest.raises(ValueError, match="^out: expected a writeable uint8 array of shape"):
        MaskFilter(*chain)(raw, out=_BAD_OUTS[bad]())


def test_mask_filter_rejects_out_overlapping_raw_and_bad_raw(rng):
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    with pytest.raises(ValueError, match="^out: must not be"):
        MaskFilter(5, 5)(raw, out=raw)
    with pytest.raises(ValueError, match="^raw: expected an"):
        MaskFilter(5, 5)(raw.astype(np.float32))


@pytest.mark.parametrize("bad", list(_BAD_OUTS))
def test_fused_kernel_checks_out(bad, rng):
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    with pytest.raises(ValueError, match="^out: "):
        MedianClose5()(raw, _BAD_OUTS[bad]())


@pytest.mark.parametrize("algo", ["silk", "norma"])
@pytest.mark.parametrize("bad", list(_BAD_OUTS))
def test_mask_from_scores_checks_out(algo, bad, frame):
    det = sv.create_subtractor(algo)
    det.apply(frame)
    with pytest.raises(ValueError, match="^out: "):
        det.mask_from_scores(det.scores, out=_BAD_OUTS[bad]())


@pytest.mark.parametrize("algo", ["silk", "norma"])
def test_mask_from_scores_checks_scores_and_threshold(algo, frame):
    det = sv.create_subtractor(algo)
    det.apply(frame)
    for bad, match in (
        (det.scores.astype(object), "^scores: expected real numbers, got dtype object"),
        (det.scores.astype(str), "^scores: expected real numbers"),
        (det.scores.astype(complex), "^scores: expected real numbers, got dtype complex"),
    ):
        with pytest.raises(ValueError, match=match):
            det.mask_from_scores(bad)
    for thr, match in (("0.3", "^threshold: '0.3' is not a number"), (-1.0, "^threshold: -1.0 must be >= 0")):
        with pytest.raises(ValueError, match=match):
            det.mask_from_scores(det.scores, thr)
    with pytest.raises(ValueError, match="^sigma: '8' is not a number"):
        sv.detector.silk.SilkSubtractor(sigma="8") if algo == "silk" else NormaSubtractor(sigma="8")


@pytest.mark.parametrize("algo", ["silk", "norma", "mog2", "knn"])
@pytest.mark.parametrize("bad", list(_BAD_OUTS))
def test_apply_checks_fgmask_before_learning(algo, bad, frame):
    det = sv.create_subtractor(algo)
    det.apply(frame)
    with pytest.raises(ValueError, match="^fgmask: expected a writeable uint8 array of shape"):
        det.apply(frame, fgmask=_BAD_OUTS[bad]())
    assert det.frames_seen == 1
    out = np.empty((H, W), np.uint8)
    assert det.apply(frame, fgmask=out) is out


# ---------------------------------------------------------------- 3. KNN background before a frame
@pytest.mark.parametrize("algo", ["mog2", "knn"])
def test_background_image_before_any_frame_and_after_reset(algo, frame):
    det = sv.create_subtractor(algo)
    with pytest.raises(ValueError, match="no frame seen yet"):
        det.getBackgroundImage()
    det.apply(frame)
    assert det.getBackgroundImage().shape == (H, W, 3)
    det.reset()
    with pytest.raises(ValueError, match="no frame seen yet"):
        det.get_background_image()


@pytest.mark.parametrize("colour_space", ["ycrcb", "lab", "rgb", "gray"])
@pytest.mark.parametrize("algo", ["silk", "norma"])
def test_background_is_black_where_nothing_was_learned(algo, colour_space, frame):
    det = sv.create_subtractor(algo, colour_space=colour_space)
    det.apply(frame, learningRate=0)  # scored, not learned: every slot is empty
    assert not det.get_background_image().any()  # YCrCb/Lab (0, 0, 0) used to come out green/orange
    det.apply(frame)
    assert det.get_background_image().any()


# ---------------------------------------------------------------- 4. channels of OpenCV frames
@pytest.mark.parametrize("algo", ["mog2", "knn"])
def test_opencv_grey_frame_is_expanded_like_silk(algo, rng):
    grey = [rng.integers(100, 110, (H, W), dtype=np.uint8) for _ in range(12)]
    grey[-1][5:15, 5:15] = 250
    as_colour = sv.create_subtractor(algo)
    mixed = sv.create_subtractor(algo)
    for i, g in enumerate(grey):
        want = as_colour.apply(cv2.cvtColor(g, cv2.COLOR_GRAY2BGR))
        # colour frames first, then grey ones (HxW and HxWx1): the model must not restart
        f = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR) if i < 6 else (g if i % 2 else g[:, :, None])
        got = mixed.apply(f)
        np.testing.assert_array_equal(got, want)
    assert 0 < want.mean() < 255


@pytest.mark.parametrize("algo", ["mog2", "knn", "silk"])
@pytest.mark.parametrize("shape", [(H, W, 2), (H, W, 4), (0, W, 3), (H, 0), (H, W, 0)])
def test_bad_frame_shapes_are_value_errors(algo, shape):
    with pytest.raises(ValueError, match="^frame: "):
        sv.create_subtractor(algo).apply(np.zeros(shape, np.uint8))


# ---------------------------------------------------------------- 5 and 8. learningRate
@pytest.mark.parametrize("algo", ["silk", "norma", "mog2", "knn"])
@pytest.mark.parametrize("lr", [float("nan"), None, "x", "0.5", [0.5]])
def test_bad_learning_rate(algo, lr, frame):
    det = sv.create_subtractor(algo)
    det.apply(frame)
    with pytest.raises(ValueError, match="^learningRate: "):
        det.apply(frame, learningRate=lr)
    assert det.frames_seen == 1


@pytest.mark.parametrize("algo", ["mog2", "knn"])
@pytest.mark.parametrize("lr", [0, 0.5, np.float32(0.1), 1, -1])
def test_good_learning_rates_still_work(algo, lr, frame):
    det = sv.create_subtractor(algo)
    assert det.apply(frame, learningRate=lr).shape == (H, W)


# ---------------------------------------------------------------- 5. OpenCV parameters
@pytest.mark.parametrize(
    "algo,params,key",
    [
        ("mog2", {"history": -5}, "history"),
        ("mog2", {"var_threshold": float("nan")}, "var_threshold"),
        ("mog2", {"history": "x"}, "history"),
        ("mog2", {"detect_shadows": 1}, "detect_shadows"),
        ("knn", {"dist2_threshold": -1.0}, "dist2_threshold"),
        ("knn", {"history": 0}, "history"),
        ("mog2", {"dist2_threshold": 400.0}, "dist2_threshold"),
        ("knn", {"foo": 1}, "foo"),
    ],
)
def test_opencv_set_params_validates_atomically(algo, params, key, frame):
    det = sv.create_subtractor(algo, median=3)
    det.apply(frame)
    before = det.get_params()
    with pytest.raises(ValueError, match=key):
        det.set_params(median=0, **params)
    assert det.get_params() == before and det.frames_seen == 1
    det.reset()
    det.apply(frame)
    with pytest.raises(ValueError, match=key):
        OpenCVSubtractor(algo, **params)


def test_opencv_set_params_good_values_restart(frame):
    det = sv.create_subtractor("mog2")
    det.apply(frame)
    det.set_params(history=np.int64(50), var_threshold=20)
    assert det.get_params()["history"] == 50 and det.frames_seen == 0
    det.set_params(median=0)
    assert det.median == 0


# ---------------------------------------------------------------- 6. sigma's lower bound
@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
def test_sigma_lower_bound(cls, frame):
    with pytest.raises(ValueError, match=r"^sigma: 1e-30 must be >= 1e-06"):
        cls(sigma=1e-30)
    with pytest.raises(ValueError, match=r"^sigma: "):
        cls(sigma=4e-20)
    det = cls(sigma=SIGMA_MIN)  # the smallest accepted width gives finite scores
    for _ in range(3):
        det.apply(frame)
    assert np.isfinite(det.scores).all()
    assert cls(sigma=0.05).apply(frame).shape == (H, W)


@pytest.mark.parametrize(
    "cls,key", [(SilkSubtractor, "C"), (SilkSubtractor, "rho"), (NormaSubtractor, "eta")]
)
def test_coefficient_scales_are_bounded(cls, key):
    """Above ~3e26 the float32 coefficients (kept over a decay scale down to 2**-40) overflow;
    below ~1e-26 they underflow to 0, and the live ROC's bins over (0, omega x C] overflow their
    float32 scale below ~1e-34."""
    with pytest.raises(ValueError, match=f"^{key}: 1e\\+30 must be <= 1000000"):
        cls(**{key: 1e30}, **({"lam": 1e-9} if key == "eta" else {}))
    with pytest.raises(ConfigError, match=f"{key}: 1e\\+30 .*out of range"):
        sv.create_subtractor("silk" if cls is SilkSubtractor else "norma", **{key: 1e30})
    with pytest.raises(ValueError, match=f"^{key}: 1e-40 must be >= 1e-06"):
        cls(**{key: 1e-40})
    with pytest.raises(ConfigError, match=f"{key}: 1e-40 .*out of range"):
        sv.create_subtractor("silk" if cls is SilkSubtractor else "norma", **{key: 1e-40})
    det = cls(**{key: 1e-6})  # the smallest accepted scale gives a ROC range the bins can cover
    lo, hi = det.score_range
    RocAccumulator(lo, hi, bins=4096)


@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
def test_a_huge_sigma_is_a_flat_kernel_not_a_crash(cls, frame):
    """sigma^2 overflows a double above ~1.3e154 (it was an OverflowError in every apply): such a
    width is k = 1 everywhere, the same detector as any other width that wide."""
    a, b = cls(sigma=1e200), cls(sigma=1e160)
    for _ in range(3):
        np.testing.assert_array_equal(a.apply(frame), b.apply(frame))
    np.testing.assert_array_equal(a.scores, b.scores)
    assert np.isfinite(a.scores).all()


# ---------------------------------------------------------------- 7. set_state
def _state(algo, frame, n=3):
    det = sv.create_subtractor(algo)
    for _ in range(n):
        det.apply(frame)
    return det, det.get_state()


@pytest.mark.parametrize(
    "algo,key,value",
    [
        ("silk", "scale", np.nan),
        ("silk", "scale", 0.0),
        ("silk", "scale", -1.0),
        ("silk", "scale", 2.0),
        ("silk", "scale", np.inf),
        ("silk", "scale", "abc"),
        ("silk", "score_bound", np.nan),
        ("silk", "score_bound", -1.0),
        ("silk", "frames_seen", -5),
        ("silk", "frames_seen", 2.5),
        ("silk", "fg_fraction", 1.5),
        ("silk", "omega", "x"),
        ("norma", "scale", 0.0),
        ("norma", "frames_seen", -1),
        ("silk", "scale", 2.0**-41),
        ("norma", "scale", 1e-30),
    ],
)
def test_set_state_rejects_bad_scalars(algo, key, value, frame):
    det, st = _state(algo, frame)
    st[key] = np.array(value)
    target = sv.create_subtractor(algo)
    target.apply(frame)
    want = target.get_state()
    with pytest.raises(ValueError, match=f"^state: '?{key}'? "):
        target.set_state(st)
    # nothing changed
    got = target.get_state()
    assert all(np.array_equal(got[k], want[k]) for k in want)


@pytest.mark.parametrize(
    "algo,key,fill,msg",
    [
        ("silk", "alphas", np.nan, "NaN"),
        ("silk", "alphas", np.inf, "NaN or infinite"),
        ("silk", "alphas", -0.5, "negative"),
        ("norma", "alphas", np.nan, "NaN"),
        ("norma", "rho", np.nan, "NaN"),
        ("norma", "ptr", 20, "must be < omega"),
    ],
)
def test_set_state_rejects_bad_arrays(algo, key, fill, msg, frame):
    det, st = _state(algo, frame)
    st[key] = st[key].copy()
    st[key].flat[7] = fill
    target = sv.create_subtractor(algo)
    with pytest.raises(ValueError, match=f"^state: '{key}' .*{msg}"):
        target.set_state(st)
    assert target.frames_seen == 0 and target.scores is None


def test_set_state_good_checkpoint_still_restores(frame):
    det, st = _state("silk", frame)
    other = sv.create_subtractor("silk")
    other.set_state(st)
    np.testing.assert_array_equal(other.apply(frame), det.apply(frame))
    np.testing.assert_array_equal(other.scores, det.scores)


# ---------------------------------------------------------------- 8. mask_from_scores
@pytest.mark.parametrize("shape", [(H * W,), (H, W, 2), (), (1, H, W)])
def test_mask_from_scores_needs_2d_scores(shape, frame):
    det = sv.create_subtractor("silk")
    det.apply(frame)
    with pytest.raises(ValueError, match=r"^scores: expected an \(H, W\) array"):
        det.mask_from_scores(np.zeros(shape, np.float32))


@pytest.mark.parametrize("thr", [float("nan"), "a", float("inf")])
def test_mask_from_scores_threshold(thr, frame):
    det = sv.create_subtractor("silk")
    det.apply(frame)
    with pytest.raises(ValueError, match="^threshold: "):
        det.mask_from_scores(det.scores, thr)
    assert not det.mask_from_scores(det.scores, 0).any()


# ---------------------------------------------------------------- 9. factory names, median rule
@pytest.mark.parametrize("name", ["", 0, False, ["silk"], "SILK"])
def test_factory_only_none_means_default(name):
    with pytest.raises(ConfigError, match="is unknown; expected one of silk, norma"):
        sv.create_subtractor(name)
    assert sv.create_subtractor(None).name == "silk"


@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
@pytest.mark.parametrize(
    "key,value",
    [
        ("median", 1),
        ("median", 5.0),
        ("median", True),
        ("median", 17),
        ("close", 1),
        ("close", 3.0),
        ("median", 4),
    ],
)
def test_constructor_median_rule_matches_the_factory(cls, key, value):
    with pytest.raises(ValueError, match=f"^{key}: .* must be 0 \\(off\\) or an odd integer 3..15"):
        cls(**{key: value})
    with pytest.raises(ValueError, match=key):
        sv.create_subtractor(cls.name, **{key: value})
    assert cls(**{key: np.int32(3)}).get_params()[key] == 3


# ---------------------------------------------------------------- 12. no per-frame allocations
def test_mask_filter_makes_the_closing_footprint_once(monkeypatch, rng):
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    mf = MaskFilter(3, 7, False)
    want = mf(raw)
    calls = []
    real = cv2.getStructuringElement
    monkeypatch.setattr(cv2, "getStructuringElement", lambda *a: calls.append(a) or real(*a))
    for _ in range(3):
        np.testing.assert_array_equal(mf(raw), want)
    assert calls == []
    np.testing.assert_array_equal(want, postprocess.close_mask(postprocess.median_mask(raw, 3), 7))


def test_mask_from_scores_allocates_no_frame_sized_temporaries(rng):
    det = SilkSubtractor(median=0, close=0, fill_holes=False)
    frame = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    det.apply(frame)
    out = np.empty((240, 320), np.uint8)
    scores = det.scores.copy()
    det.mask_from_scores(scores, out=out)  # the first call makes its buffer
    assert peak_allocation(lambda: det.mask_from_scores(scores, out=out)) < 240 * 320 // 4
    np.testing.assert_array_equal(out, np.where(scores < np.float32(det.threshold), 255, 0))


@pytest.mark.parametrize("algo", ["silk", "norma"])
def test_fg_fraction_is_the_last_learned_frame_and_counted_only_when_needed(algo, monkeypatch, rng):
    frames = [rng.integers(0, 256, (H, W, 3), dtype=np.uint8) for _ in range(4)]
    det = sv.create_subtractor(algo)
    calls = []
    real = np.count_nonzero
    monkeypatch.setattr(np, "count_nonzero", lambda *a, **k: calls.append(1) or real(*a, **k))
    det.apply(frames[0])
    det.apply(frames[1])
    if algo == "norma":
        assert calls == []  # NORMA never needs it per frame
    raw = det.scores < np.float32(det.threshold)
    det.apply(frames[2], learningRate=0)  # score only: must not replace the learned frame's fraction
    assert det.get_state()["fg_fraction"] == np.count_nonzero(raw) / raw.size


@pytest.mark.parametrize("busy", [False, True])
def test_silk_global_change_switched_on_live_uses_the_last_learned_frame(busy, rng):
    # global_change = 1 never needs the fraction; switched on later, the cap must still see the
    # fraction of the last LEARNED frame (not of a score-only frame after it)
    det = SilkSubtractor(global_change=1.0, warmup=0)
    bg = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    for _ in range(30):
        det.apply(bg)
    det.apply(255 - bg if busy else bg)  # learned: all foreground, or none
    fraction = float(np.mean(det.scores < np.float32(det.threshold)))
    assert fraction == (1.0 if busy else 0.0)
    det.apply(bg if busy else 255 - bg, learningRate=0)
    det.set_params(global_change=0.5)
    cap, cap_fg = det.kernel_args(True)[4:6]
    assert (cap_fg == cap) == busy  # busy last learned frame: no conservative cap
    assert det.get_state()["fg_fraction"] == fraction


# ---------------------------------------------------------------- 2. scratch after unpickling
def test_scratch_is_reallocated_when_the_thread_count_grows(monkeypatch, rng):
    import numba

    det = sv.create_subtractor("silk")
    f = rng.integers(0, 256, (H, W, 3), dtype=np.uint8)
    det.apply(f)
    det._scr_f = det._scr_f[:1].copy()  # as made in a 1-thread process
    det._scr_i = det._scr_i[:1].copy()
    back = pickle.loads(pickle.dumps(det))
    assert back._scr_f.shape[0] >= numba.config.NUMBA_NUM_THREADS
    det.apply(f)
    assert det._scr_f.shape[0] >= numba.config.NUMBA_NUM_THREADS
    assert math.isfinite(float(det.scores.sum()))


def _pixel_keys():
    from silkvision.config.schema import SCHEMA

    return [
        (section, key)
        for section in ("silk", "norma")
        for key, p in SCHEMA["detector"][section].items()
        if p.type in (int, float) and key != "sigma"
    ]


@pytest.mark.parametrize("section,key", _pixel_keys())
def test_detector_bounds_are_the_config_schema_bounds(section, key, monkeypatch):
    """A bound is written once, in the config schema: narrowing it there narrows the detector's
    check (with the usual one-line message naming the key)."""
    from silkvision.config import schema

    cls = SilkSubtractor if section == "silk" else NormaSubtractor
    param = schema.SCHEMA["detector"][section][key]
    default = param.default
    narrowed = schema.ranged(default, param.type, default, default)  # only the default is allowed
    monkeypatch.setitem(schema.SCHEMA["detector"][section], key, narrowed)
    arg = "lam" if key == "lambda" else key
    bigger = default + 1 if param.type is int else (default * 1.5 or 1.0)
    with pytest.raises(ValueError, match=f"^{key}: {bigger!r} must be"):
        cls(**{arg: bigger})
    cls(**{arg: default})
