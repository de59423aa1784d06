"""Live camera sources with a bounded wait: a stalled or unplugged camera raises, never hangs."""

from __future__ import annotations

import math
import threading

import cv2
import numpy as np

from silkvision.capture.opencv import open_capture
from silkvision.capture.source import Source
from silkvision.errors import SourceError

__all__ = ["CameraSource"]


class CameraSource(Source):
    """Frames of a camera (``cv2.VideoCapture(index)``), read by a background thread.

    The thread keeps only the newest frame, so a slow consumer always gets a live frame (frames it
    was too slow for are dropped and counted in :attr:`dropped`). Delivered frames are numbered
    1, 2, ... The camera is opened, and each frame awaited, for at most ``camera_timeout`` seconds;
    after that :class:`SourceError` is raised ("no frame within ... s").

    Parameters
    ----------
    index : int
        Camera index (0 = first camera).
    camera_timeout : float
        Seconds to wait for the camera to open and for each frame.
    resize, max_frames
        See :func:`silkvision.capture.open_source`.
    """

    kind = "camera"
    seekable = False

    def __init__(
        self, index: int, *, camera_timeout: float = 5.0, resize=None, max_frames=None, groundtruth=None
    ):
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError(f"index: {index!r} is not a camera index; expected an integer >= 0")
        if not (
            isinstance(camera_timeout, (int, float)) and camera_timeout > 0 and math.isfinite(camera_timeout)
        ):
            raise ValueError(f"camera_timeout: {camera_timeout!r} is not allowed; expected a number > 0")
        super().__init__(f"camera{index}", resize=resize, max_frames=max_frames, groundtruth=groundtruth)
        self.index = index
        self.camera_timeout = float(camera_timeout)
        self.dropped = 0
        self._cond = threading.Condition()
        self._latest: np.ndarray | None = None  # newest frame not yet delivered
        self._seq = 0  # frames read from the camera
        self._taken = 0  # sequence number of the last delivered frame
        self._delivered = 0
        self._opened: bool | None = None  # None: still opening; True/False once known
        self._error: str | None = None  # message once the camera failed
        self._stop = threading.Event()
        self._cap = None
        self._thread = threading.Thread(target=self._run, name=f"silkvision-camera{index}", daemon=True)
        self._thread.start()
        with self._cond:
            ready = self._cond.wait_for(lambda: self._opened is not None, timeout=self.camera_timeout)
        if not ready:
            self._stop.set()
            raise SourceError(
                f"camera {index}: did not open within {self.camera_timeout:g} s "
                f"(capture.camera_timeout); expected a connected camera"
            )
        if not self._opened:
            self._thread.join(timeout=1.0)
            raise SourceError(
                f"camera {index}: cannot be opened; expected a connected camera that "
                f"no other program is using"
            )

    @property
    def spec(self) -> str:
        return str(self.index)

    @property
    def frame_count(self) -> int | None:
        return None

    def _run(self) -> None:
        cap = None
        try:
            cap = open_capture(self.index)
            ok = bool(cap.isOpened())
            if ok:
                fps = cap.get(cv2.CAP_PROP_FPS)
                self.fps = float(fps) if fps and fps > 0 and math.isfinite(fps) else None
            with self._cond:
                self._opened = ok
                self._cond.notify_all()
            if not ok:
                return
            while not self._stop.is_set():
                ok, frame = cap.read()
                if self._stop.is_set():
                    break
                with self._cond:
                    if not ok or frame is None:
                        self._error = (
                            f"camera {self.index}: stopped delivering frames after "
                            f"{self._seq}; expected a connected camera"
                        )
                        self._cond.notify_all()
                        return
                    self._latest = frame
                    self._seq += 1
                    self._cond.notify_all()
        except Exception as e:  # noqa: BLE001 - reported to the consumer as one line
            with self._cond:
                if self._opened is None:
                    self._opened = False
                self._error = f"camera {self.index}: {type(e).__name__}: {e}".splitlines()[0]
                self._cond.notify_all()
        finally:
            if cap is not None:
                try:
                    cap.release()
                except Exception:  # noqa: BLE001
                    pass

    def _next(self):
        if self.max_frames is not None and self._delivered >= self.max_frames:
            raise StopIteration
        with self._cond:
            got = self._cond.wait_for(
                lambda: self._seq > self._taken or self._error is not None or self._stop.is_set(),
                timeout=self.camera_timeout,
            )
            if self._stop.is_set():
                raise StopIteration  # interrupted or closed: the stream ends here
            if not got:
                raise SourceError(
                    f"camera {self.index}: no frame within {self.camera_timeout:g} s "
                    f"(capture.camera_timeout); the camera stalled or was disconnected"
                )
            if self._seq == self._taken:
                raise SourceError(self._error)
            frame, self._latest = self._latest, None
            self.dropped += self._seq - self._taken - 1
            self._taken = self._seq
        self._delivered += 1
        return self._delivered, frame, f"camera {self.index} frame {self._delivered}"

    def interrupt(self) -> None:
        """Stop the reading thread and end a read waiting for a frame at once (any thread)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        """Stop the reading thread (it releases the camera after its current read)."""
        self.interrupt()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=min(1.0, self.camera_timeout))
        super().close()
