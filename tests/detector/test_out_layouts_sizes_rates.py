"""Output buffers of any layout, the one mask-filter size rule, learningRate's bounds, and what a
pickled detector carries."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import silkvision as sv
from silkvision.config import validate
from silkvision.detector import postprocess
from silkvision.detector.base import check_learning_rate
from silkvision.detector.mask_kernels import MedianClose5
from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.opencv import OpenCVSubtractor
from silkvision.detector.postprocess import MaskFilter, check_filter_size
from silkvision.detector.silk import SilkSubtractor

from .alloc import peak_allocation

H, W = 24, 32


def _frames(rng, n=12):
    """A still background with a bright square that moves in: foreground in the later frames."""
    bg = rng.integers(90, 110, (H, W, 3), dtype=np.uint8)
    out = []
    for i in range(n):
        f = bg.copy()
        if i >= n - 4:
            f[4 + i % 3 : 14 + i % 3, 6:18] = 250
        out.append(f)
    return out


def _canvas_view():
    """A writeable, non-C-contiguous (H, W) uint8 view, with a sentinel around it."""
    canvas = np.full((H, 2 * W + 3), 7, np.uint8)
    return canvas, canvas[:, :W]


_MAKERS = {
    "silk default": lambda: SilkSubtractor(),
    "silk 3/3": lambda: SilkSubtractor(median=3, close=3, fill_holes=False),
    "silk 3/3 fill": lambda: SilkSubtractor(median=3, close=3, fill_holes=True),
    "silk off": lambda: SilkSubtractor(median=0, close=0, fill_holes=False),
    "norma default": lambda: NormaSubtractor(),
    "mog2 plain": lambda: OpenCVSubtractor("mog2"),
    "mog2 5/5 fill": lambda: OpenCVSubtractor("mog2", median=5, close=5, fill_holes=True),
    "knn 3/0": lambda: OpenCVSubtractor("knn", median=3),
}


# ---------------------------------------------------------------- 1. non-contiguous out / fgmask
@pytest.mark.parametrize("layout", ["canvas view", "fortran"])
@pytest.mark.parametrize("maker", list(_MAKERS))
def test_apply_writes_into_non_contiguous_fgmask(maker, layout, rng):
    frames = _frames(rng)
    fresh, into = _MAKERS[maker](), _MAKERS[maker]()
    seen_fg = False
    for f in frames:
        want = fresh.apply(f)
        if layout == "fortran":
            canvas, out = None, np.asfortranarray(np.full((H, W), 7, np.uint8))
            assert not out.flags.c_contiguous
        else:
            canvas, out = _canvas_view()
        got = into.apply(f, fgmask=out)
        assert got is out
        np.testing.assert_array_equal(out, want)
        if canvas is not None:
            assert (canvas[:, W:] == 7).all()  # nothing written beside the view
        seen_fg |= bool(want.any())
    assert seen_fg


@pytest.mark.parametrize("maker", ["silk default", "silk 3/3", "silk off", "norma default"])
def test_mask_from_scores_writes_into_non_contiguous_out(maker, rng):
    det = _MAKERS[maker]()
    for f in _frames(rng):
        want = det.apply(f)
    canvas, view = _canvas_view()
    assert det.mask_from_scores(det.scores, out=view) is view
    np.testing.assert_array_equal(view, want)
    assert (canvas[:, W:] == 7).all()
    fort = np.asfortranarray(np.zeros((H, W), np.uint8))
    np.testing.assert_array_equal(det.mask_from_scores(det.scores, out=fort), want)


@pytest.mark.parametrize("chain", [(5, 5, True), (5, 5, False), (3, 3, False), (7, 0, True), (0, 0, False)])
def test_mask_filter_and_fused_kernel_write_into_non_contiguous_out(chain, rng):
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    want = MaskFilter(*chain)(raw)
    canvas, view = _canvas_view()
    assert MaskFilter(*chain)(raw, out=view) is view
    np.testing.assert_array_equal(view, want)
    assert (canvas[:, W:] == 7).all()
    fused_want = MedianClose5()(raw, np.empty((H, W), np.uint8))
    fort = np.asfortranarray(np.zeros((H, W), np.uint8))
    assert MedianClose5()(raw, fort) is fort
    np.testing.assert_array_equal(fort, fused_want)


def test_contiguous_out_still_allocates_nothing(rng):
    raw = (rng.random((240, 320)) > 0.6).astype(np.uint8) * 255
    mf = MaskFilter(5, 5, False)
    out = np.empty((240, 320), np.uint8)
    mf(raw, out=out)  # buffers made once
    assert peak_allocation(lambda: mf(raw, out=out)) < 240 * 320 // 4


@pytest.mark.parametrize(
    "bad,msg",
    [
        (lambda: np.zeros((H, 2 * W), np.uint16)[:, ::2], "uint16"),
        (lambda: np.zeros((W, H), np.uint8, order="F"), r"\(32, 24\)"),
        (lambda: np.zeros((H, 2 * W), np.uint8)[:, ::2].copy()[:, : W // 2], r"\(24, 16\)"),
    ],
)
def test_strided_outs_of_the_wrong_type_or_shape_are_still_refused(bad, msg, rng):
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    with pytest.raises(ValueError, match=f"^out: expected a writeable uint8 array of shape .*{msg}"):
        MaskFilter(5, 5, True)(raw, out=bad())
    ro = np.zeros((H, 2 * W), np.uint8)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        MaskFilter(3, 0)(raw, out=ro[:, :W])


# ---------------------------------------------------------------- 2. one size rule everywhere
_BAD_SIZES = [1, -1, 2, 4, 17, 5.0, 3.0, True, np.bool_(False), "5", None, np.float64(5)]
_GOOD_SIZES = [0, 3, 5, 15, np.int32(3), np.int64(7), np.uint8(9)]


@pytest.mark.parametrize("size", _BAD_SIZES)
def test_check_filter_size_refuses(size):
    with pytest.raises(ValueError, match=r"^median: .* must be 0 \(off\) or an odd integer 3..15$"):
        check_filter_size("median", size)


@pytest.mark.parametrize("size", _GOOD_SIZES)
def test_check_filter_size_accepts(size):
    got = check_filter_size("close", size)
    assert got == int(size) and type(got) is int


@pytest.mark.parametrize("key", ["median", "close"])
@pytest.mark.parametrize("size", _BAD_SIZES)
def test_every_entry_point_refuses_the_same_sizes(key, size):
    msg = rf"^{key}: .* must be 0 \(off\) or an odd integer 3..15$"
    with pytest.raises(ValueError, match=msg):
        MaskFilter(**{key: size})
    with pytest.raises(ValueError, match=msg):
        SilkSubtractor(**{key: size})
    with pytest.raises(ValueError, match=msg):
        NormaSubtractor(**{key: size})
    for algo in ("mog2", "knn"):
        with pytest.raises(ValueError, match=msg):
            OpenCVSubtractor(algo, **{key: size})
        det = OpenCVSubtractor(algo)
        with pytest.raises(ValueError, match=msg):
            det.set_params(**{key: size})
        assert det.get_params()[key] == 0
    det = SilkSubtractor()
    with pytest.raises(ValueError, match=msg):
        det.set_params(**{key: size})
    fn = postprocess.median_mask if key == "median" else postprocess.close_mask
    with pytest.raises(ValueError, match=msg):
        fn(np.zeros((4, 4), np.uint8), size)


@pytest.mark.parametrize("key", ["median", "close"])
@pytest.mark.parametrize("size", _GOOD_SIZES)
def test_every_entry_point_accepts_the_same_sizes(key, size):
    assert getattr(MaskFilter(**{key: size}), key) == size
    assert SilkSubtractor(**{key: size}).get_params()[key] == size
    assert NormaSubtractor(**{key: size}).get_params()[key] == size
    assert OpenCVSubtractor("mog2", **{key: size}).get_params()[key] == size
    assert validate({"detector": {key: int(size)}})["detector"][key] == size  # the schema agrees


def test_size_1_is_refused_by_the_low_level_helpers_too():
    m = np.zeros((4, 4), np.uint8)
    with pytest.raises(ValueError, match="median: 1"):
        postprocess.median_mask(m, 1)
    with pytest.raises(ValueError, match="close: 1"):
        postprocess.close_mask(m, 1)
    assert MaskFilter(0, 0).identity and not MaskFilter(3, 0).identity


# ---------------------------------------------------------------- 4. the threshold buffer
@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
def test_pickle_does_not_carry_the_threshold_buffer(cls, rng):
    det = cls()
    for f in _frames(rng, 3):
        det.apply(f)
    want = det.mask_from_scores(det.scores, 0.3)
    assert det._thr_raw is not None
    assert det.__getstate__()["_thr_raw"] is None
    blob = pickle.dumps(det)
    kept = det._thr_raw
    det._thr_raw = None
    assert len(blob) == len(pickle.dumps(det))  # the buffer's bytes are not in the pickle
    det._thr_raw = kept
    back = pickle.loads(blob)
    assert back._thr_raw is None
    np.testing.assert_array_equal(back.mask_from_scores(back.scores, 0.3), want)
    assert det._thr_raw is not None  # pickling leaves the original alone


# ---------------------------------------------------------------- 5. learningRate
@pytest.mark.parametrize("lr", [True, False, np.bool_(True), np.bool_(False)])
def test_check_learning_rate_refuses_bools(lr):
    with pytest.raises(ValueError, match="^learningRate: "):
        check_learning_rate(lr)


@pytest.mark.parametrize("lr", [0, -1, 0.5, np.float32(0.25), np.int64(2), 7.5])
def test_check_learning_rate_accepts_numbers(lr):
    assert check_learning_rate(lr) == float(lr)


@pytest.mark.parametrize("algo", ["mog2", "knn"])
@pytest.mark.parametrize("lr", [1.0000001, 2, float("inf"), np.float32(1.5), True])
def test_opencv_refuses_learning_rates_above_1(algo, lr, rng):
    det = OpenCVSubtractor(algo)
    f = _frames(rng, 1)[0]
    det.apply(f)
    with pytest.raises(ValueError, match="^learningRate: "):
        det.apply(f, learningRate=lr)
    assert det.frames_seen == 1
    assert det.apply(f, learningRate=1).shape == (H, W)


@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
def test_silk_still_takes_any_real_learning_rate_but_not_bools(cls, rng):
    det = cls()
    f = _frames(rng, 1)[0]
    det.apply(f, learningRate=5.0)
    assert det.frames_seen == 1
    with pytest.raises(ValueError, match="^learningRate: "):
        det.apply(f, learningRate=True)
    assert det.frames_seen == 1


def test_mask_filter_checks_once_per_frame(monkeypatch, rng):
    """The default chain (fused kernel) validates raw/out in MaskFilter only, not again inside."""
    import silkvision.detector.mask_kernels as mk
    import silkvision.detector.postprocess as pp

    calls = []
    real = mk.check_mask_out
    spy = lambda *a, **k: calls.append(a[2] if len(a) > 2 else k.get("name", "out")) or real(*a, **k)
    monkeypatch.setattr(mk, "check_mask_out", spy)
    monkeypatch.setattr(pp, "check_mask_out", spy)
    raw = (rng.random((H, W)) > 0.6).astype(np.uint8) * 255
    mf = MaskFilter(5, 5, True)
    out = np.empty((H, W), np.uint8)
    mf(raw, out=out)
    assert calls == ["out"]
    np.testing.assert_array_equal(out, MaskFilter(5, 5, True)(raw))
    # the public kernel call still checks
    calls.clear()
    with pytest.raises(ValueError, match="^out: "):
        MedianClose5()(raw, np.zeros((3, 3), np.uint8))
    assert calls == ["out"]


@pytest.mark.parametrize("colour_space", ["ycrcb", "lab", "gray", "rgb"])
def test_a_cropped_frame_is_not_copied(colour_space, rng):
    """An ROI crop (contiguous pixels, longer rows) is read in place: apply with ``fgmask``
    allocates nothing frame-sized (ycrcb/lab/gray copied the whole frame on every call)."""
    big = rng.integers(0, 256, (240, 640, 3), dtype=np.uint8)
    crop = big[:, :320]
    det = sv.create_subtractor("silk", colour_space=colour_space)
    twin = sv.create_subtractor("silk", colour_space=colour_space)
    out = np.empty((240, 320), np.uint8)
    det.apply(crop, fgmask=out)
    for _ in range(3):  # as many frames as det learns: one, then the three peak_allocation tries
        twin.apply(np.ascontiguousarray(crop))
    assert peak_allocation(lambda: det.apply(crop, fgmask=out), tries=3) < 240 * 320 // 4
    np.testing.assert_array_equal(out, twin.apply(np.ascontiguousarray(crop)))
