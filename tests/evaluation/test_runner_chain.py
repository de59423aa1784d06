"""What ``evaluate`` reports of a detector's mask chain."""

from __future__ import annotations

import silkvision as sv
from silkvision.evaluation.runner import _postprocessing_of


def test_the_report_gives_the_windows_used_at_the_frame_width():
    det = sv.create_subtractor("silk")
    assert _postprocessing_of(det) == {"median": 5, "close": 5, "fill_holes": True}
    assert _postprocessing_of(det, 320) == {"median": 5, "close": 5, "fill_holes": True}
    assert _postprocessing_of(det, 720) == {"median": 11, "close": 11, "fill_holes": True}
    fixed = sv.create_subtractor("mog2", filter_width=0)
    assert _postprocessing_of(fixed, 720)["median"] == 5
