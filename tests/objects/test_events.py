"""The incremental event tracker."""

from __future__ import annotations

import pytest

from silkvision.objects import EventTracker, Region


def _r(area):
    return Region(area, 0, 0, 1, 1, 0.0, 0.0)


def _run(tracker, frames):
    events = [e for i, regions in frames if (e := tracker.update(i, regions)) is not None]
    last = tracker.finish()
    return events + ([last] if last is not None else [])


def test_runs_of_active_frames_become_events():
    # frames 1-3 active, 4 quiet, 5 active (a flicker), 6 quiet, 7-10 active to the end
    activity = {
        1: [_r(5)],
        2: [_r(9), _r(3)],
        3: [_r(9)],
        4: [],
        5: [_r(50)],
        6: [],
        7: [_r(4)],
        8: [_r(6)],
        9: [_r(2)],
        10: [_r(6)],
    }
    events = _run(EventTracker(min_frames=2, fps=10.0), sorted(activity.items()))
    assert [(e.start_frame, e.end_frame, e.frames) for e in events] == [(1, 3, 3), (7, 10, 4)]
    first, second = events
    assert first.largest_frame == 2 and first.largest.area == 9  # the first of a tie
    assert second.largest_frame == 8 and second.largest.area == 6
    assert (first.start_time, first.end_time) == (0.0, pytest.approx(0.2))
    assert second.end_time == pytest.approx(0.9)
    # with min_frames 1 the flicker counts
    events = _run(EventTracker(min_frames=1), sorted(activity.items()))
    assert [(e.start_frame, e.end_frame) for e in events] == [(1, 3), (5, 5), (7, 10)]
    assert events[0].start_time is None  # no frame rate: no times


def test_frames_without_a_mask_neither_extend_nor_end_an_event():
    events = _run(
        EventTracker(min_frames=3, first_index=0, fps=2.0), [(0, [_r(1)]), (1, [_r(1)]), (5, [_r(1)])]
    )
    assert [(e.start_frame, e.end_frame, e.frames, e.end_time) for e in events] == [(0, 5, 3, 2.5)]


def test_min_frames_must_be_positive():
    with pytest.raises(ValueError, match="min_frames"):
        EventTracker(min_frames=0)
