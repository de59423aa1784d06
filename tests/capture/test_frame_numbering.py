"""Frame numbers of image folders and ground-truth folders: taken from the file names, never
silently renumbered when only some names carry a number or two carry the same one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.capture import GroundTruth, open_source
from silkvision.capture.opencv import quiet_opencv
from silkvision.errors import SourceError


def _images(folder, names):
    folder.mkdir(parents=True, exist_ok=True)
    for k, name in enumerate(names):
        assert cv2.imwrite(str(folder / name), np.full((6, 8, 3), 10 * k, np.uint8))
    return folder


def _message(err) -> str:
    msg = str(err.value)
    assert "\n" not in msg
    return msg


def test_a_stray_unnumbered_image_is_named_instead_of_renumbering_every_frame(tmp_path):
    folder = _images(tmp_path / "mix", ["in000001.png", "in000002.png", "in000005.png", "extra.png"])
    with pytest.raises(SourceError) as e:
        open_source(folder)
    msg = _message(e)
    assert msg.startswith(
        f"{folder / 'extra.png'}: has no frame number at the end of its name, while 3 "
        f"other images of the image folder {folder} have one (e.g. in000001.png)"
    )
    assert "expected every image numbered (in000123.jpg) or none" in msg


def test_a_stray_numbered_image_among_unnumbered_ones_is_named(tmp_path):
    folder = _images(tmp_path / "words", ["a.png", "b.png", "c.png", "shot7.png"])
    with pytest.raises(SourceError) as e:
        open_source(folder)
    assert _message(e).startswith(
        f"{folder / 'shot7.png'}: ends in a frame number, while 3 other images "
        f"of the image folder {folder} have none (e.g. a.png)"
    )


def test_two_images_with_the_same_number_are_both_named(tmp_path):
    folder = _images(tmp_path / "dup", ["in000001.jpg", "in000001.png", "in000005.jpg"])
    with pytest.raises(SourceError) as e:
        open_source(folder)
    msg = _message(e)
    assert "frame number 1 is also that of" in msg and "in000001.jpg" in msg and "in000001.png" in msg
    assert "expected one image per frame number" in msg


def test_cdnet_input_folder_with_a_stray_image_is_refused(tmp_path):
    seq = tmp_path / "seq"
    _images(seq / "input", ["in000001.png", "in000002.png", "zzz.png"])
    with pytest.raises(SourceError, match=r"input/zzz\.png: has no frame number"):
        open_source(seq)


def test_unnumbered_folders_keep_sequential_numbers_and_numbered_ones_their_numbers(tmp_path):
    plain = _images(tmp_path / "plain", ["b.png", "a.png", "c.png"])
    with open_source(plain) as src:
        assert src.indices == [1, 2, 3] and src.path(1).name == "a.png"
    numbered = _images(tmp_path / "numbered", ["in000003.png", "in000010.png", "in000007.png"])
    with open_source(numbered) as src:
        assert src.indices == [3, 7, 10]


def test_ground_truth_folder_with_a_stray_image_is_refused(tmp_path):
    gt = _images(tmp_path / "gt", ["gt000001.png", "gt000002.png", "copy.png"])
    (gt / "notes.txt").write_text("skipped: not an image")
    with pytest.raises(SourceError) as e:
        GroundTruth(gt)
    assert _message(e).startswith(
        f"{gt / 'copy.png'}: has no frame number at the end of its name, while 2 "
        f"other images of the ground-truth folder {gt} have one"
    )


def test_quiet_opencv_holds_back_warnings_and_restores_the_level():
    log = cv2.utils.logging
    old = log.getLogLevel()
    try:
        log.setLogLevel(log.LOG_LEVEL_INFO)
        with quiet_opencv():
            assert log.getLogLevel() == log.LOG_LEVEL_ERROR
        assert log.getLogLevel() == log.LOG_LEVEL_INFO
        log.setLogLevel(log.LOG_LEVEL_SILENT)  # a quieter level is kept
        with quiet_opencv():
            assert log.getLogLevel() == log.LOG_LEVEL_SILENT
    finally:
        log.setLogLevel(old)


def test_overlapping_quiet_blocks_restore_the_level_of_before_the_first():
    """Blocks of two threads that overlap without nesting (A enters, B enters, A leaves, B leaves)
    left the process at ERROR, hiding every later OpenCV warning; interleaved here on one thread."""
    log = cv2.utils.logging
    old = log.getLogLevel()
    try:
        log.setLogLevel(log.LOG_LEVEL_INFO)
        a, b = quiet_opencv(), quiet_opencv(silent=True)
        a.__enter__()
        b.__enter__()
        assert log.getLogLevel() == log.LOG_LEVEL_SILENT
        a.__exit__(None, None, None)
        assert log.getLogLevel() == log.LOG_LEVEL_SILENT  # b still runs
        b.__exit__(None, None, None)
        assert log.getLogLevel() == log.LOG_LEVEL_INFO
    finally:
        log.setLogLevel(old)


@pytest.mark.parametrize(
    "names",
    [
        [f"cam_12-{m:02d}-00.jpg" for m in range(6)],  # time stamps: every name ends in 00
        [f"frame{k:04d}_cam1.jpg" for k in range(1, 6)],  # a constant camera id at the end
        [f"{k:06d}_10.png" for k in range(5)],  # KITTI-style
    ],
)
def test_a_shared_trailing_number_is_no_frame_number(tmp_path, names):
    folder = _images(tmp_path / "f", names)
    with open_source(folder) as src:
        assert src.indices == list(range(1, len(names) + 1))
        assert [src.path(i).name for i in src.indices] == sorted(names)
