"""Frame numbering, frame and mask conversion, and the ROI check at open: cases the other capture
tests do not reach (16-bit frames given directly, colour masks with two equal channels, a mostly
unnumbered folder whose numbered names share one number, a CDnet ROI.bmp of the wrong size)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.capture import GroundTruth, open_source
from silkvision.capture.images import to_bgr
from silkvision.errors import SourceError


def _images(folder, names, h=6, w=8):
    folder.mkdir(parents=True, exist_ok=True)
    for k, name in enumerate(names):
        assert cv2.imwrite(str(folder / name), np.full((h, w, 3), 10 * k, np.uint8))
    return folder


def test_unnumbered_names_with_two_sharing_a_number_are_refused_not_renumbered(tmp_path):
    """Two stray numbered names among unnumbered ones (d1, e1) are not "a shared camera id": the
    folder mixes numbered and unnumbered names, which would renumber frames silently."""
    # C07
    folder = _images(tmp_path / "mix", ["a.png", "b.png", "c.png", "d1.png", "e1.png"])
    with pytest.raises(SourceError) as e:
        open_source(folder)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(
        f"{folder / 'd1.png'}: ends in a frame number, while 3 other images of the "
        f"image folder {folder} have none (e.g. a.png)"
    )


def test_a_colour_mask_with_blue_equal_to_red_is_converted_to_grey(tmp_path):
    """Only a mask whose three channels are equal is read as one of them; magenta (255, 0, 255)
    has blue == red but not green, so it is converted to grey (105) like any colour mask."""
    # C11
    gt = tmp_path / "gt"
    gt.mkdir()
    img = np.zeros((6, 8, 3), np.uint8)
    img[..., 0] = img[..., 2] = 255
    img[0, 0] = (170, 170, 170)
    assert cv2.imwrite(str(gt / "gt000001.png"), img)
    labels = GroundTruth(gt).read(1)
    assert labels.shape == (6, 8) and labels.dtype == np.uint8
    assert labels[0, 0] == 170 and (labels.ravel()[1:] == 105).all()
    assert np.array_equal(labels, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))


def test_a_16_bit_frame_keeps_its_high_byte():
    # C15: 40000 = 156 * 256 + 64 -> 156 (no wrap-around)
    frame = np.array([[0, 255, 256], [40000, 65535, 32768]], np.uint16)
    got = to_bgr(frame)
    assert got.shape == (2, 3, 3) and got.dtype == np.uint8
    assert np.array_equal(got[..., 0], [[0, 0, 1], [156, 255, 128]])
    assert np.array_equal(got[..., 0], got[..., 2])


def test_check_groundtruth_refuses_a_cdnet_roi_of_the_wrong_size_when_the_source_opens(tmp_path):
    # C14: ROI.bmp is read with the first mask, not only at the first frame that uses it
    seq = tmp_path / "seq"
    _images(seq / "input", [f"in{i:06d}.png" for i in (1, 2, 3)])
    (seq / "groundtruth").mkdir()
    for i in (1, 2, 3):
        assert cv2.imwrite(str(seq / "groundtruth" / f"gt{i:06d}.png"), np.zeros((6, 8), np.uint8))
    assert cv2.imwrite(str(seq / "ROI.bmp"), np.full((10, 10), 255, np.uint8))
    with open_source(seq) as src:
        with pytest.raises(SourceError) as e:
            src.check_groundtruth()
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{seq / 'ROI.bmp'}: ROI is 10x10 but the frames are 8x6")
    assert cv2.imwrite(str(seq / "ROI.bmp"), np.full((6, 8), 255, np.uint8))
    with open_source(seq) as src:
        first, labels = src.check_groundtruth()
    assert first == 1 and labels.shape == (6, 8)
