"""``evaluate VIDEO --groundtruth DIR`` reads ``temporalROI.txt`` and ``ROI.bmp`` from DIR's parent
(the CDnet layout with a video in place of ``input/``): a note says so, and an error about either
names the file it came from."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from silkvision.cli.main import main

N = 12


@pytest.fixture
def video_case(tmp_path, sample_seq) -> Path:
    """``clip.avi`` (the sample's first N frames), ``gt/`` beside it; nothing else yet."""
    frames = sorted((Path(sample_seq) / "input").glob("*.jpg"))[:N]
    w = cv2.VideoWriter(str(tmp_path / "clip.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 25, (320, 240))
    for f in frames:
        w.write(cv2.imread(str(f)))
    w.release()
    (tmp_path / "gt").mkdir()
    for i in range(1, N + 1):
        shutil.copy(Path(sample_seq) / "groundtruth" / f"gt{i:06d}.png", tmp_path / "gt" / f"gt{i:06d}.png")
    return tmp_path


def _evaluate(case: Path) -> list[str]:
    return [
        "evaluate",
        str(case / "clip.avi"),
        "--groundtruth",
        str(case / "gt"),
        "-a",
        "mog2",
        "--no-figures",
        "--out",
        str(case / "eval"),
    ]


def test_a_temporal_roi_beside_the_groundtruth_is_named_in_the_error(video_case, capsys):
    (video_case / "temporalROI.txt").write_text("100 400\n")
    assert main(_evaluate(video_case)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert (
        f"temporalROI 100 400 (read from {video_case / 'temporalROI.txt'}) is outside the frames 1..12" in err
    )


def test_a_roi_beside_the_groundtruth_is_named_in_the_error(video_case, capsys):
    cv2.imwrite(str(video_case / "ROI.bmp"), np.full((100, 100), 255, np.uint8))
    assert main(_evaluate(video_case)) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"silkvision: error: {video_case / 'ROI.bmp'}: ROI is 100x100 but the frames "
        f"are 320x240; expected the same size"
    )


def test_files_read_beside_the_groundtruth_get_a_note(video_case, capsys):
    (video_case / "temporalROI.txt").write_text("3 12\n")
    cv2.imwrite(str(video_case / "ROI.bmp"), np.full((240, 320), 255, np.uint8))
    assert main(_evaluate(video_case)) == 0
    notes = [ln for ln in capsys.readouterr().err.splitlines() if "folder holding the ground truth" in ln]
    assert notes == [
        f"silkvision: note: {video_case / 'clip.avi'}: the evaluated frames from "
        f"{video_case / 'temporalROI.txt'} and the evaluated pixels from "
        f"{video_case / 'ROI.bmp'} (the folder holding the ground truth)"
    ]


def test_a_cdnet_folder_s_own_files_get_no_note(sample_seq):
    from silkvision.cli.evaluate import _files_read_note
    from silkvision.evaluation.runner import sequence_frames

    sf = sequence_frames(sample_seq)
    assert sf.files == {
        "temporalROI.txt": Path(sample_seq) / "temporalROI.txt",
        "ROI.bmp": Path(sample_seq) / "ROI.bmp",
    }
    assert _files_read_note(sample_seq, sf) == []
