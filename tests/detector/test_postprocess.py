"""Mask post-processing (closing, hole filling, the MaskFilter chain) against the NumPy references."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.detector import reference as R
from silkvision.detector.postprocess import MaskFilter, close_mask, closing_footprint, fill_holes, median_mask


def _random_mask(rng, h, w, p):
    return np.where(rng.random((h, w)) < p, 255, 0).astype(np.uint8)


@pytest.mark.parametrize("size", [3, 5, 7])
def test_close_matches_reference(rng, size):
    for _ in range(20):
        m = _random_mask(rng, int(rng.integers(1, 40)), int(rng.integers(1, 40)), rng.random())
        want = R.close_mask_reference(m, closing_footprint(size))
        assert np.array_equal(close_mask(m, size), want)
        out = m.copy()
        assert close_mask(out, size, out=out) is out and np.array_equal(out, want)


def test_fill_holes_matches_reference(rng):
    for _ in range(300):
        m = _random_mask(rng, int(rng.integers(1, 40)), int(rng.integers(1, 40)), rng.random())
        want = R.fill_holes_reference(m)
        assert np.array_equal(fill_holes(m), want)
        out = m.copy()
        assert fill_holes(out, out=out) is out and np.array_equal(out, want)


def test_fill_holes_on_real_masks(sample_seq):
    """Real masks (SILK on the shipped clip, median and closing as shipped) against the reference."""
    import cv2

    from silkvision.detector.silk import SilkSubtractor

    det = SilkSubtractor(fill_holes=False)
    for f in sorted((sample_seq / "input").glob("*.jpg"))[:60]:
        m = det.apply(cv2.imread(str(f)))
    assert np.count_nonzero(R.fill_holes_reference(m)) > np.count_nonzero(m)  # it has holes
    assert np.array_equal(fill_holes(m), R.fill_holes_reference(m))


def test_fill_holes_by_hand():
    m = np.zeros((9, 9), np.uint8)
    m[1:6, 1:6] = 255
    m[3, 3] = 0  # enclosed: filled
    m[6:9, 6:9] = 255
    m[8, 7] = 0  # on the border: stays background
    m[2, 7] = 255  # a lone foreground pixel: untouched
    got = fill_holes(m)
    assert got[3, 3] == 255 and got[8, 7] == 0 and got[2, 7] == 255
    assert np.count_nonzero(got) == np.count_nonzero(m) + 1


def test_fill_holes_fills_the_hole_of_an_island_inside_a_hole():
    """All hole contours were drawn in one call, which fills by parity: the hole of an island that
    sits inside another hole is inside two hole contours, and stayed background."""
    m = np.zeros((11, 11), np.uint8)
    m[1, 1:10] = m[9, 1:10] = m[1:10, 1] = m[1:10, 9] = 255  # a ring: all inside it is a hole
    m[4, 5] = m[6, 5] = m[5, 4] = m[5, 6] = 255  # an island in it, with its own hole at (5, 5)
    want = R.fill_holes_reference(m)
    assert want[5, 5] == 255 and np.count_nonzero(want) == 81
    assert np.array_equal(fill_holes(m), want)


def test_reference_fill_agrees_with_scipy(rng):
    ndi = pytest.importorskip("scipy.ndimage")
    for _ in range(20):
        m = _random_mask(rng, 25, 31, rng.random())
        assert np.array_equal(R.fill_holes_reference(m) > 0, ndi.binary_fill_holes(m > 0))


def test_mask_filter_chain_and_buffers(rng):
    m = _random_mask(rng, 48, 64, 0.4)
    f = MaskFilter(median=5, close=5, fill_holes=True)
    want = R.fill_holes_reference(R.close_mask_reference(median_mask(m, 5), closing_footprint(5)))
    out = np.empty_like(m)
    assert f(m, out=out) is out and np.array_equal(out, want)
    before = m.copy()
    assert np.array_equal(f(m), want) and np.array_equal(m, before)  # input untouched
    assert MaskFilter().identity and not f.identity
    assert np.array_equal(MaskFilter()(m), m)
    with pytest.raises(ValueError, match="out"):
        f(m, out=m)


def test_bad_sizes_name_the_parameter():
    m = np.zeros((4, 4), np.uint8)
    with pytest.raises(ValueError, match="close"):
        close_mask(m, 4)


@pytest.mark.parametrize("algo", ["silk", "norma", "mog2"])
def test_detectors_return_the_post_processed_raw_mask(algo, sample_seq):
    """Every detector's mask is its raw mask through the configured chain; the keys are shared."""
    import cv2

    import silkvision as sv

    det = sv.create_subtractor(algo, median=3, close=5, fill_holes=True)
    post = det.mask_filter
    assert (post.median, post.close, post.fill_holes) == (3, 5, True)
    assert {"median": 3, "close": 5, "fill_holes": True}.items() <= det.get_params().items()
    frames = [cv2.imread(str(f)) for f in sorted((sample_seq / "input").glob("*.jpg"))[:30]]
    for frame in frames:
        mask = det.apply(frame)
    want = R.fill_holes_reference(R.close_mask_reference(median_mask(det._raw, 3), closing_footprint(5)))
    assert np.array_equal(mask, want) and np.count_nonzero(mask) >= np.count_nonzero(median_mask(det._raw, 3))
    det.set_params(close=0, fill_holes=False)
    assert det.mask_filter.identity is False and det.mask_filter.close == 0


@pytest.mark.parametrize("key, value", [("close", 4), ("close", -1), ("fill_holes", "yes"), ("median", 2)])
def test_bad_post_processing_values_name_the_key(key, value):
    from silkvision.detector.norma import NormaSubtractor
    from silkvision.detector.opencv import OpenCVSubtractor
    from silkvision.detector.silk import SilkSubtractor

    for make in (SilkSubtractor, NormaSubtractor, lambda **kw: OpenCVSubtractor("mog2", **kw)):
        with pytest.raises(ValueError, match=key):
            make(**{key: value})


def test_filter_windows_grow_with_the_frame_width():
    from silkvision.detector.postprocess import scaled_filter_size as sized

    assert [sized(5, w, 320) for w in (160, 320, 360, 400, 480, 720, 1280, 1920)] == [
        5,
        5,
        5,
        7,
        7,
        11,
        15,
        15,
    ]
    assert sized(0, 1920, 320) == 0 and sized(5, 1920, 0) == 5 and sized(3, 720, 320) == 7


def test_mask_filter_with_filter_width_uses_the_scaled_windows(rng):
    for W, sizes in ((320, (5, 5)), (360, (5, 5)), (720, (11, 11))):
        raw = np.where(rng.random((90, W)) < 0.3, 255, 0).astype(np.uint8)
        scaled = MaskFilter(5, 5, True, filter_width=320)
        assert scaled.sizes_for(W) == sizes
        np.testing.assert_array_equal(scaled(raw), MaskFilter(*sizes, True)(raw))
        assert scaled.median == 5 and scaled.close == 5  # the configured sizes are kept


def test_detectors_scale_their_chain_by_default():
    import silkvision as sv

    for name in ("silk", "mog2"):
        det = sv.create_subtractor(name)
        assert det.get_params()["filter_width"] == 320 and det.mask_filter.sizes_for(720) == (11, 11)
        assert sv.create_subtractor(name, filter_width=0).mask_filter.sizes_for(720) == (5, 5)
    with pytest.raises(ValueError, match="filter_width"):
        MaskFilter(5, 5, False, filter_width=-1)
