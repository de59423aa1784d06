"""The numba kernel of the default 5x5 median + 5x5 closing against OpenCV and the NumPy references."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.detector import reference as R
from silkvision.detector.mask_kernels import MedianClose5, median5_close5
from silkvision.detector.postprocess import MaskFilter, close_mask, closing_footprint, median_mask


def _opencv(m):
    return close_mask(median_mask(m, 5), 5)


def _blobs(rng, h, w):
    """Blocky masks (objects with holes and gaps), like real ones, beside salt-and-pepper ones."""
    small = np.where(rng.random((max(h // 4, 1), max(w // 4, 1))) < rng.random(), 255, 0).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)


@pytest.mark.parametrize(
    "shape", [(1, 1), (1, 9), (9, 1), (2, 2), (3, 4), (5, 5), (6, 7), (17, 30), (48, 64)]
)
def test_small_and_odd_shapes_match_opencv_and_reference(rng, shape):
    for i in range(40):
        m = (
            _blobs(rng, *shape)
            if i % 2
            else np.where(rng.random(shape) < rng.random(), 255, 0).astype(np.uint8)
        )
        want = _opencv(m)
        assert np.array_equal(
            want, R.close_mask_reference(R.median_mask_reference(m, 5), closing_footprint(5))
        )
        assert np.array_equal(MedianClose5()(m, np.empty_like(m)), want)


def test_median_reference_matches_opencv(rng):
    for size in (3, 5, 7):
        m = np.where(rng.random((23, 31)) < 0.5, 255, 0).astype(np.uint8)
        assert np.array_equal(R.median_mask_reference(m, size), cv2.medianBlur(m, size))


def test_real_masks_and_reused_buffers(sample_seq):
    """SILK's raw masks on the shipped clip, one MedianClose5 reused frame after frame."""
    from silkvision.detector.silk import SilkSubtractor

    det = SilkSubtractor(median=0, close=0, fill_holes=False)
    fused = MedianClose5()
    out = np.empty((240, 320), np.uint8)
    changed = 0
    for f in sorted((sample_seq / "input").glob("*.jpg"))[:80]:
        raw = det.apply(cv2.imread(str(f)))
        want = _opencv(raw)
        assert np.array_equal(fused(raw, out), want)
        changed += not np.array_equal(want, raw)
    assert changed > 10  # the chain did something on these frames
    small = np.zeros((10, 12), np.uint8)
    small[3:7, 4:9] = 255
    assert np.array_equal(fused(small, np.empty_like(small)), _opencv(small))  # new size: new buffers


def test_mask_filter_uses_it_only_for_5_and_5(rng):
    assert MaskFilter(median=5, close=5)._fused is not None
    assert MaskFilter(median=5, close=3)._fused is None and MaskFilter(median=3, close=5)._fused is None
    m = _blobs(rng, 40, 50)
    assert np.array_equal(
        MaskFilter(median=5, close=5, fill_holes=True)(m), R.fill_holes_reference(_opencv(m))
    )


def test_kernel_writes_its_borders(rng):
    """Garbage in the work buffers' borders must not leak into the result."""
    m = _blobs(rng, 20, 24)
    med = np.full((24, 28), 123, np.uint8)
    dil = np.full((24, 28), 7, np.uint8)
    out = np.empty_like(m)
    median5_close5(m, out, med, dil, np.full(28, 99, np.uint8))
    assert np.array_equal(out, _opencv(m))
