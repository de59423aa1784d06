"""evaluate_sequence guards the other runner tests do not reach: ground truth that numbers no
frame of the sequence, a source that ends before the last evaluated frame, and a detector object
passed in that learned something before."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.capture.folder import FolderSource
from silkvision.errors import DataError
from silkvision.evaluation import evaluate_sequence
from silkvision.evaluation.runner import sequence_frames

from .conftest import FakeScored, H, W, make_sequence


def test_ground_truth_that_numbers_no_frame_is_a_clear_error(tmp_path):
    # only gt000500.png for a 10-frame sequence (no temporalROI.txt)
    seq = make_sequence(tmp_path, n=10, temporal=None, gt_frames=set())
    assert cv2.imwrite(str(seq / "groundtruth" / "gt000500.png"), np.zeros((H, W), np.uint8))
    with pytest.raises(DataError, match="no frame with ground truth to evaluate"):
        evaluate_sequence(seq, detectors={"fake": FakeScored()})
    with pytest.raises(DataError, match="no frame with ground truth to evaluate"):
        sequence_frames(seq)


def test_a_source_that_ends_before_the_last_evaluated_frame_is_refused(tiny_seq, monkeypatch):
    """A source whose frames run out early (a video whose header counts more frames than it
    decodes) is refused rather than scored with empty rows for the frames it never gave."""
    # temporalROI 10..25 of 30 frames; the frames stop after 20
    real = FolderSource._next

    def ends_after_20(self):
        index, frame, where = real(self)
        if index > 20:
            raise StopIteration
        return index, frame, where

    monkeypatch.setattr(FolderSource, "_next", ends_after_20)
    with pytest.raises(
        DataError, match="the sequence ended at frame 20 before evaluated frame 21; expected frames up to 25"
    ):
        evaluate_sequence(tiny_seq, detectors={"fake": FakeScored()})


def test_a_detector_passed_in_starts_from_an_empty_model_each_time(tiny_seq):
    """The CDnet protocol scores a detector that starts on the sequence's first frame: a detector
    object that learned a clip before is reset, so two runs with it give the same counts."""
    det = FakeScored()
    first = evaluate_sequence(tiny_seq, detectors={"fake": det}).algorithms["fake"]
    assert det.frames_seen == 30
    again = evaluate_sequence(tiny_seq, detectors={"fake": det}).algorithms["fake"]
    assert det.frames_seen == 30
    assert np.array_equal(again.frame_counts, first.frame_counts)
    assert again.counts == first.counts
