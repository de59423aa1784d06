"""Camera sources with a fake cv2.VideoCapture: open failure, stalls and lost cameras never hang."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import silkvision.capture.camera as camera_mod
from silkvision.capture import CameraSource, open_source
from silkvision.errors import SourceError


class FakeCapture:
    """Stand-in for cv2.VideoCapture(index)."""

    opened = True
    frames = 3  # frames delivered before `after` happens
    after = "fail"  # "fail": read() returns False; "block": read() blocks forever
    released = None

    def __init__(self, index, *a):
        self.index = index
        self.n = 0
        self.unblock = threading.Event()
        FakeCapture.released = threading.Event()

    def isOpened(self):  # noqa: N802 - OpenCV name
        return self.opened

    def get(self, prop):
        return 30.0

    def read(self):
        if self.n < self.frames:
            self.n += 1
            time.sleep(0.005)
            return True, np.full((6, 8, 3), self.n, np.uint8)
        if self.after == "block":
            self.unblock.wait(30)
        return False, None

    def release(self):
        FakeCapture.released.set()


@pytest.fixture
def fake(monkeypatch):
    class Cap(FakeCapture):
        pass

    monkeypatch.setattr(camera_mod.cv2, "VideoCapture", Cap)
    return Cap


def test_camera_delivers_frames_then_reports_it_stopped(fake):
    src = open_source("0", camera_timeout=2.0)
    assert isinstance(src, CameraSource) and src.kind == "camera" and src.name == "camera0"
    assert not src.seekable and src.frame_count is None and src.fps == 30.0
    got = []
    with pytest.raises(SourceError) as e:
        for i, f in src:
            got.append((i, f))
    assert got and got[0][0] == 1 and got[0][1].shape == (6, 8, 3)
    assert [i for i, _ in got] == list(range(1, len(got) + 1))
    assert len(got) + src.dropped == 3
    assert str(e.value) == "camera 0: stopped delivering frames after 3; expected a connected camera"
    src.close()
    assert fake.released.wait(2)


def test_camera_that_cannot_open(fake):
    fake.opened = False
    with pytest.raises(SourceError) as e:
        open_source(3, camera_timeout=1.0)
    assert str(e.value).startswith("camera 3: cannot be opened")


def test_stalled_camera_raises_after_the_timeout(fake):
    fake.after = "block"
    src = open_source(0, camera_timeout=0.3)
    t0 = time.perf_counter()
    with pytest.raises(SourceError) as e:
        for _ in src:
            pass
    elapsed = time.perf_counter() - t0
    assert "no frame within 0.3 s" in str(e.value) and "\n" not in str(e.value)
    assert elapsed < 2.0
    src.close()


def test_camera_max_frames_and_resize(fake):
    fake.frames = 1000
    with open_source(0, camera_timeout=2.0, max_frames=4, resize=(4, 3)) as src:
        got = list(src)
    assert len(got) == 4 and all(f.shape == (3, 4, 3) for _, f in got)
    assert src.frame_size == (4, 3) and src.native_size == (8, 6)
    with pytest.raises(SourceError, match="cannot seek"):
        src.seek(1)


def test_camera_parameter_checks(fake):
    with pytest.raises(ValueError, match="camera_timeout"):
        CameraSource(0, camera_timeout=0)
    with pytest.raises(ValueError, match="index"):
        CameraSource(-1)


@pytest.mark.parametrize("make, what", [("folder", "folder"), ("file", "file")])
def test_camera_error_hints_at_a_path_with_the_same_name(fake, tmp_path, monkeypatch, make, what):
    """A digit string is a camera index; when that camera cannot be opened and a folder or file of
    that name is in the working directory, the error says how to read it instead."""
    monkeypatch.chdir(tmp_path)
    if make == "folder":
        (tmp_path / "0").mkdir()
    else:
        (tmp_path / "0").write_bytes(b"x")
    fake.opened = False
    with pytest.raises(SourceError) as e:
        open_source("0", camera_timeout=1.0)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith("camera 0: cannot be opened")
    assert msg.endswith(f"(to read the {what} 0, write ./0)")


def test_camera_error_has_no_hint_without_such_a_path(fake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "1").mkdir()  # another number: no hint for camera 0
    fake.opened = False
    with pytest.raises(SourceError) as e:
        open_source("0", camera_timeout=1.0)
    assert "write ./" not in str(e.value)
    with pytest.raises(SourceError) as e:  # an int from the API was never meant as a path
        open_source(1, camera_timeout=1.0)
    assert "write ./" not in str(e.value)


def test_camera_open_timeout_also_hints_at_the_path(fake, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "2").mkdir()

    class Slow(fake):
        def isOpened(self):  # noqa: N802 - OpenCV name
            time.sleep(1.0)
            return False

    monkeypatch.setattr(camera_mod.cv2, "VideoCapture", Slow)
    with pytest.raises(SourceError) as e:
        open_source("2", camera_timeout=0.2)
    msg = str(e.value)
    assert msg.startswith("camera 2: did not open within 0.2 s")
    assert msg.endswith("(to read the folder 2, write ./2)")


def test_interrupt_ends_a_read_waiting_for_a_stalled_camera_at_once(fake):
    """The GUI closes without waiting for camera_timeout: interrupt() from another thread ends the
    blocked read with the end of the stream."""
    fake.after = "block"
    src = open_source("0", camera_timeout=20.0)
    frames = [next(src) for _ in range(3)]
    assert len(frames) == 3
    got = {}

    def read():
        t0 = time.perf_counter()
        try:
            next(src)
            got["what"] = "frame"
        except StopIteration:
            got["what"] = "end"
        except SourceError as e:
            got["what"] = str(e)
        got["s"] = time.perf_counter() - t0

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.3)
    assert reader.is_alive()  # waiting for the 4th frame
    src.interrupt()
    reader.join(5.0)
    assert got["what"] == "end" and got["s"] < 2.0
    src.close()
