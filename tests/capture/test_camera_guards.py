"""CameraSource guards (fake cv2.VideoCapture): an infinite timeout, a camera that opens after the
timeout, nonsense FPS, a read that succeeds without a frame and a constructor that raises all end in
the documented error or value, never in a stray traceback or a thread that keeps the camera."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

import silkvision.capture.camera as camera_mod
from silkvision.capture import CameraSource
from silkvision.errors import SourceError
from tests.capture.test_camera import FakeCapture, fake  # noqa: F401 - `fake` is the fixture


def _camera_threads(index):
    return {t for t in threading.enumerate() if t.name == f"silkvision-camera{index}"}


def test_an_infinite_camera_timeout_is_refused(fake):
    """``camera_timeout`` must be finite: inf would reach ``Condition.wait_for`` (OverflowError)."""
    with pytest.raises(ValueError, match=r"camera_timeout: inf is not allowed; expected a number > 0"):
        CameraSource(0, camera_timeout=float("inf"))


def test_a_camera_that_opens_after_the_timeout_is_released_and_never_read(fake, monkeypatch):
    """After "did not open within" the reading thread must not go on: once the late camera opens,
    it is released without a read and the thread ends."""
    reads = []
    go = threading.Event()

    class Late(fake):
        def __init__(self, index, *a):
            go.wait(10)  # opens only after the timeout was reported
            super().__init__(index, *a)

        def read(self):
            reads.append(1)
            return super().read()

    monkeypatch.setattr(camera_mod.cv2, "VideoCapture", Late)
    before = _camera_threads(7)
    with pytest.raises(SourceError, match=r"^camera 7: did not open within 0.2 s"):
        CameraSource(7, camera_timeout=0.2)
    started = _camera_threads(7) - before
    assert len(started) == 1
    thread = started.pop()
    go.set()
    thread.join(10.0)
    assert not thread.is_alive()
    assert FakeCapture.released.is_set() and reads == []


@pytest.mark.parametrize("fps", [-1.0, 0.0, math.nan, math.inf])
def test_a_nonsense_camera_fps_is_unknown(fake, fps):
    """OpenCV reports -1 or 0 (or worse) for a camera without a frame rate: ``fps`` is then None."""
    fake.get = lambda self, prop: fps
    fake.frames = 1000
    with CameraSource(0, camera_timeout=2.0, max_frames=1) as src:
        assert src.fps is None
        assert len(list(src)) == 1


def test_a_read_that_succeeds_without_a_frame_ends_the_stream_with_source_error(fake, monkeypatch):
    """``read()`` returning ``(True, None)`` means the camera is gone, like ``(False, None)``."""

    class NoFrame(fake):
        def read(self):
            if self.n >= 1:
                return True, None
            return super().read()

    monkeypatch.setattr(camera_mod.cv2, "VideoCapture", NoFrame)
    src = CameraSource(0, camera_timeout=2.0)
    got = []
    with pytest.raises(SourceError) as e:
        for i, f in src:
            got.append(f)
    assert len(got) == 1 and isinstance(got[0], np.ndarray)
    assert str(e.value) == "camera 0: stopped delivering frames after 1; expected a connected camera"
    src.close()


def test_a_capture_constructor_that_raises_means_the_camera_cannot_be_opened(fake, monkeypatch):
    """An exception from ``cv2.VideoCapture(index)`` is "cannot be opened" from the constructor,
    not a source that fails at its first read."""

    class Busy(fake):
        def __init__(self, index, *a):
            raise RuntimeError("device busy")

    monkeypatch.setattr(camera_mod.cv2, "VideoCapture", Busy)
    with pytest.raises(SourceError, match=r"^camera 0: cannot be opened"):
        CameraSource(0, camera_timeout=2.0)
