"""Regions of one mask, checked against OpenCV's connected components (an independent count)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.objects import Region, find_regions


def _opencv(mask, min_area, connectivity):
    n, _, stats, centroids = cv2.connectedComponentsWithStats(
        (mask > 0).astype(np.uint8), connectivity=8 if connectivity == 2 else 4
    )
    out = []
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area >= min_area:
            out.append((area, x, y, w, h, *centroids[k]))
    return sorted(out)


@pytest.mark.parametrize("connectivity", [1, 2])
@pytest.mark.parametrize("min_area", [1, 5, 40])
def test_regions_agree_with_opencv(rng, connectivity, min_area):
    # seeds grown into blobs of many sizes, some touching
    mask = np.where(rng.random((60, 80)) < 0.02, 255, 0).astype(np.uint8)
    mask = cv2.dilate(mask, np.ones((5, 5), np.uint8)) | np.where(rng.random((60, 80)) < 0.05, 255, 0).astype(
        np.uint8
    )
    ours = find_regions(mask, min_area, connectivity)
    got = sorted((r.area, r.x, r.y, r.width, r.height, r.cx, r.cy) for r in ours)
    ref = _opencv(mask, min_area, connectivity)
    assert len(got) == len(ref) > 1
    for a, b in zip(got, ref):
        assert a[:5] == b[:5]
        assert a[5:] == pytest.approx(b[5:])


def test_one_region_in_detail():
    mask = np.zeros((10, 12), np.uint8)
    mask[2:5, 3:9] = 255  # 3 rows x 6 columns
    mask[7, 0] = 255  # a speckle
    assert find_regions(mask, min_area=2) == [Region(18, 3, 2, 6, 3, 5.5, 3.0)]
    assert len(find_regions(mask)) == 2
    # corner contact joins two squares with 8-neighbours, not with 4
    diag = np.zeros((4, 4), np.uint8)
    diag[:2, :2] = diag[2:, 2:] = 1
    assert len(find_regions(diag, connectivity=2)) == 1
    assert len(find_regions(diag, connectivity=1)) == 2


def test_empty_mask_and_bad_shape():
    assert find_regions(np.zeros((5, 5), np.uint8)) == []
    with pytest.raises(ValueError, match=r"expected an HxW array"):
        find_regions(np.zeros((5, 5, 3), np.uint8))
