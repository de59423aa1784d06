"""Network streams: an MJPEG stream served from the loopback address by the test itself, stopped
and started again to check that the source reconnects, keeps its numbering and records the gap."""

import socket
import threading
import time

import numpy as np
import pytest

from silkvision.capture import StreamSource, is_stream_url, open_source, source_kind
from silkvision.capture.stream import redact_url
from silkvision.errors import SourceError
from tests.capture.mjpeg_server import MjpegServer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_stream_urls_are_recognised_and_passwords_kept_out_of_messages():
    assert is_stream_url("rtsp://cam/live") and is_stream_url("HTTPS://x/y.mjpg")
    assert not is_stream_url("video.mp4") and not is_stream_url("ftp://x/y") and not is_stream_url(0)
    assert source_kind("http://127.0.0.1:8080/video.mjpg") == "stream"
    assert redact_url("rtsp://admin:secret@10.0.0.2:554/live") == "rtsp://admin:***@10.0.0.2:554/live"
    assert redact_url("http://host/video.mjpg") == "http://host/video.mjpg"


def test_a_stream_is_read_and_numbered_from_one():
    with MjpegServer() as server, open_source(server.url, max_frames=5) as src:
        assert isinstance(src, StreamSource) and src.kind == "stream" and not src.seekable
        got = list(src)
    assert [i for i, _ in got] == [1, 2, 3, 4, 5]
    assert got[0][1].shape == (48, 64, 3) and got[0][1].dtype == np.uint8
    assert src.gaps == [] and src.name == "video"


def test_an_unreachable_stream_is_a_one_line_error():
    url = f"http://user:pw@127.0.0.1:{_free_port()}/video.mjpg"
    t0 = time.monotonic()
    with pytest.raises(SourceError) as e:
        open_source(url, camera_timeout=2.0)
    msg = str(e.value)
    assert msg.startswith("http://user:***@127.0.0.1:") and "cannot be opened" in msg
    assert "\n" not in msg and "pw" not in msg and time.monotonic() - t0 < 5


def test_a_dropped_stream_reconnects_and_marks_the_gap():
    notes = []
    with MjpegServer(fps=50) as server:
        src = open_source(server.url, reconnect_timeout=10.0)
        src.on_status = notes.append
        try:
            first = [next(src)[0] for _ in range(5)]
            server.stop()
            restart = threading.Timer(1.0, server.start)
            restart.start()
            after = []
            for index, frame in src:  # the frames buffered before the cut come first
                after.append(index)
                if src.gaps:
                    break
            more = [next(src)[0] for _ in range(3)]
        finally:
            src.close()
            restart.join()
    assert first == [1, 2, 3, 4, 5]
    gap = src.gaps[0]
    assert len(src.gaps) == 1 and gap["seconds"] >= 1.0 and gap["attempts"] >= 1
    assert after[-1] == gap["next"] and gap["next"] > gap["after"] + 1  # a hole in the numbering
    assert after[:-1] == list(range(6, gap["after"] + 1))
    assert more == [gap["next"] + 1, gap["next"] + 2, gap["next"] + 3]
    assert len(notes) == 2 and "stream lost after frame" in notes[0] and "reconnecting" in notes[0]
    assert notes[1].startswith(f"{server.url}: stream back after ")


def test_a_stream_that_stays_away_ends_with_a_one_line_error():
    with MjpegServer() as server:
        src = open_source(server.url, reconnect_timeout=1.0)
        next(src)
        server.stop()
        t0 = time.monotonic()
        with pytest.raises(
            SourceError,
            match=r"stream lost after frame \d+ and not back within 1 s "
            r"\(capture.reconnect_timeout; \d+ attempts\)",
        ):
            for _ in src:
                pass
        src.close()
    assert time.monotonic() - t0 < 6


def test_without_reconnect_timeout_a_drop_ends_the_stream():
    with MjpegServer() as server:
        src = open_source(server.url, reconnect_timeout=0)
        next(src)
        server.stop()
        with pytest.raises(SourceError, match="not back within 0 s"):
            for _ in src:
                pass
        src.close()


def test_interrupt_ends_a_wait_for_reconnection_at_once():
    with MjpegServer() as server:
        src = open_source(server.url, reconnect_timeout=30.0)
        next(src)
        server.stop()
        threading.Timer(0.5, src.interrupt).start()
        t0 = time.monotonic()
        rest = list(src)  # frames read before the cut, then the end
        assert time.monotonic() - t0 < 3 and len(rest) < 50
        src.close()


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"camera_timeout": 0}, "camera_timeout: 0"),
        ({"reconnect_timeout": -1}, "reconnect_timeout: -1"),
        ({"reconnect_timeout": float("inf")}, "reconnect_timeout: inf"),
    ],
)
def test_bad_timeouts_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        StreamSource("http://127.0.0.1:1/x", **kw)


def test_the_gui_pipeline_opens_a_stream_with_the_configured_reconnect_timeout():
    from silkvision.gui.pipeline import Pipeline

    with MjpegServer() as server:
        pipe = Pipeline({"capture": {"reconnect_timeout": 7.5}}, second="mog2")
        try:
            info = pipe.open(server.url)
            assert info.kind == "stream" and not info.seekable
            assert pipe.src.reconnect_timeout == 7.5
            assert pipe.step().index == 1 and pipe.step().index == 2
        finally:
            pipe.close()


def test_the_gui_worker_shows_a_drop_and_the_return_as_they_happen(request):
    pytest.importorskip("PyQt5")
    pytest.importorskip("pytestqt")
    request.getfixturevalue("qapp")  # the session's QApplication, as the GUI tests use
    from silkvision.gui.pipeline import Pipeline
    from silkvision.gui.worker import Worker

    notes = []
    with MjpegServer(fps=50) as server:
        worker = Worker(Pipeline({"capture": {"reconnect_timeout": 10.0}}, second="mog2"))
        worker.message.connect(notes.append)
        worker._do_open((server.url, None))
        try:
            worker._process_one()
            server.stop()
            restart = threading.Timer(1.0, server.start)
            restart.start()
            while not worker.pipeline.src.gaps:
                worker._process_one()
        finally:
            worker.pipeline.close()
            restart.join()
    assert any("stream lost after frame" in n for n in notes)
    assert any("stream back after" in n for n in notes)


def test_a_stalled_stream_counts_as_a_drop_after_camera_timeout():
    """The connection stays open but sends nothing: after ``camera_timeout`` the read gives up and
    the source reconnects once frames flow again."""
    with MjpegServer(fps=50) as server:
        src = open_source(server.url, camera_timeout=1.0, reconnect_timeout=10.0)
        try:
            next(src)
            server.paused.set()
            threading.Timer(2.5, server.paused.clear).start()
            t0 = time.monotonic()
            while not src.gaps:
                next(src)
            assert time.monotonic() - t0 >= 2.0
        finally:
            src.close()
    assert src.gaps[0]["seconds"] >= 2.0
