"""``write_mask_png``: only 0/255 masks reach the disk, and only as ``.png``."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.io.writers import write_mask_png


def _read(path):
    return cv2.imread(str(path), cv2.IMREAD_UNCHANGED)


def test_uint8_0_255_mask_is_written_as_is(tmp_path):
    m = np.zeros((4, 6), np.uint8)
    m[1:3, 2:5] = 255
    out = write_mask_png(tmp_path / "m.png", m)
    assert out == tmp_path / "m.png"
    got = _read(out)
    assert got.dtype == np.uint8 and np.array_equal(got, m)


def test_bool_mask_is_written_as_0_255(tmp_path):
    m = np.zeros((4, 6), bool)
    m[0, ::2] = True
    got = _read(write_mask_png(tmp_path / "b.png", m[:, ::-1]))  # (non-contiguous too)
    assert np.array_equal(got, np.where(m[:, ::-1], 255, 0).astype(np.uint8))


@pytest.mark.parametrize(
    "mask, fragment",
    [
        (np.ones((4, 4), np.uint8), "values 1; expected a uint8 mask with only 0 and 255"),
        (np.full((4, 4), 127, np.uint8), "values 127"),
        (np.ones((4, 4), np.float64), "dtype float64; expected uint8 with values 0/255, or bool"),
        (np.full((4, 4), 255, np.int64), "dtype int64"),
        (np.zeros((0, 0), np.uint8), "shape (0, 0); expected a non-empty HxW array"),
        (np.zeros((4, 4, 3), np.uint8), "shape (4, 4, 3)"),
        (np.zeros(4, np.uint8), "shape (4,)"),
    ],
)
def test_other_arrays_are_refused_naming_the_file(tmp_path, mask, fragment):
    path = tmp_path / "x.png"
    with pytest.raises(ValueError) as e:
        write_mask_png(path, mask)
    msg = str(e.value)
    assert f"mask for {path}" in msg and fragment in msg and "\n" not in msg
    assert not path.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["m.jpg", "m.PNG.bmp", "m"])
def test_a_path_that_is_not_png_is_refused(tmp_path, name):
    with pytest.raises(ValueError, match=r"does not end in \.png; expected a \.png file name"):
        write_mask_png(tmp_path / name, np.zeros((4, 4), np.uint8))
    assert list(tmp_path.iterdir()) == []


def test_upper_case_png_suffix_is_a_png(tmp_path):
    assert _read(write_mask_png(tmp_path / "M.PNG", np.zeros((2, 2), np.uint8))).shape == (2, 2)
