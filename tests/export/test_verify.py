"""The checks of files a resume keeps, alone."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.export.verify import mask_problem, scores_problem
from silkvision.io.writers import write_mask_png, write_scores_npz


@pytest.fixture
def mask(tmp_path):
    path = tmp_path / "bin000001.png"
    m = np.zeros((12, 16), np.uint8)
    m[3:7, 2:9] = 255
    write_mask_png(path, m)
    return path


@pytest.fixture
def scores(tmp_path):
    path = tmp_path / "scores000001.npz"
    write_scores_npz(path, np.linspace(-1, 1, 12 * 16, dtype=np.float32).reshape(12, 16))
    return path


def test_an_intact_mask_and_scores_file_are_kept(mask, scores):
    assert mask_problem(mask, (16, 12)) is None and mask_problem(mask) is None
    assert scores_problem(scores, (16, 12)) is None and scores_problem(scores) is None


def test_damaged_masks_are_named(mask, tmp_path):
    assert mask_problem(mask, (12, 16)) == "is 16x12, not 12x16"
    assert mask_problem(tmp_path / "absent.png") == "is missing"
    link = tmp_path / "bin000002.png"
    link.symlink_to(mask)
    assert mask_problem(link, (16, 12)) == "is a symbolic link"
    data = mask.read_bytes()
    mask.write_bytes(data[:-1])
    assert mask_problem(mask) == "is truncated (no PNG end chunk)"
    mask.write_bytes(data[:8] + b"\0" * (len(data) - 20) + data[-12:])
    assert mask_problem(mask) == "cannot decode (corrupt file or not an image)"
    mask.write_bytes(b"")
    assert mask_problem(mask) == "is truncated (no PNG end chunk)"


def test_a_colour_image_is_not_a_mask(tmp_path):
    import cv2

    path = tmp_path / "bin000001.png"
    cv2.imwrite(str(path), np.zeros((12, 16, 3), np.uint8))
    assert mask_problem(path, (16, 12)) == "is not a grey 8-bit image (uint8 12x16x3)"


def test_damaged_scores_are_named(scores, tmp_path):
    assert scores_problem(scores, (8, 8)) == "is 16x12, not 8x8"
    data = scores.read_bytes()
    scores.write_bytes(data[: len(data) // 2])
    assert scores_problem(scores).startswith("cannot be read back (")
    link = tmp_path / "scores000002.npz"
    link.symlink_to(scores)
    assert scores_problem(link) == "is a symbolic link"
