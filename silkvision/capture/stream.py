"""Network streams (``rtsp://``, ``http://``, ``https://``) that reconnect after a drop.

OpenCV's FFmpeg back end reads the stream; a background thread keeps only the newest frame, as for
a camera. When the stream drops (the connection closes, or no frame comes within
``capture.camera_timeout``), the thread reconnects with a doubling wait (:data:`BACKOFF_FIRST_S` up
to :data:`BACKOFF_MAX_S`) for at most ``capture.reconnect_timeout`` seconds. The consumer waits
meanwhile and then goes on with the same detector; the frames the gap lost are left out of the
frame numbering (:attr:`StreamSource.gaps` says where), so masks keep their place in time.
"""

from __future__ import annotations

import math
import re
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import cv2

from silkvision.capture.opencv import open_capture
from silkvision.capture.source import Source
from silkvision.errors import SourceError

__all__ = ["StreamSource", "is_stream_url", "redact_url", "BACKOFF_FIRST_S", "BACKOFF_MAX_S"]

#: First wait before a reconnection attempt; each failed attempt doubles it up to BACKOFF_MAX_S.
BACKOFF_FIRST_S = 0.25
#: Longest wait between two reconnection attempts.
BACKOFF_MAX_S = 2.0
#: Frame rate taken for a stream that neither reports one nor delivered two frames before a gap.
_FALLBACK_FPS = 25.0
_SCHEMES = re.compile(r"^(rtsps?|https?)://", re.IGNORECASE)


def is_stream_url(spec) -> bool:
    """Whether ``spec`` is a network stream URL (``rtsp``, ``rtsps``, ``http`` or ``https``)."""
    return isinstance(spec, str) and bool(_SCHEMES.match(spec.strip()))


def redact_url(url: str) -> str:
    """``url`` without a password (``rtsp://user:***@host/path``), for messages and manifests."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _stream_name(url: str) -> str:
    """Short name: the stem of the URL's last path segment, else its host (``"video"``)."""
    parts = urlsplit(url)
    last = parts.path.rstrip("/").rsplit("/", 1)[-1]
    stem = last.rsplit(".", 1)[0] if "." in last else last
    return stem or parts.hostname or "stream"


class StreamSource(Source):
    """Frames of a network stream, read by a background thread that reconnects after a drop.

    Delivered frames are numbered 1, 2, ... (frames the consumer was too slow for are dropped and
    counted in :attr:`dropped`, as for a camera). After a reconnection the numbering skips the
    frames the gap lost -- its length times the stream's frame rate, at least one -- so that the gap
    shows in the numbering; :attr:`gaps` lists each one.

    Parameters
    ----------
    url : str
        ``rtsp://``, ``rtsps://``, ``http://`` or ``https://`` URL that OpenCV's FFmpeg back end
        reads (e.g. an MJPEG camera's ``http://host/video.mjpg``). A password in it is left out of
        messages and of :attr:`spec_redacted`.
    camera_timeout : float
        Seconds to wait for the stream to open and for each frame (config
        ``capture.camera_timeout``); a frame later than that counts as a drop.
    reconnect_timeout : float
        Seconds to keep reconnecting after a drop (config ``capture.reconnect_timeout``); 0: a drop
        ends the stream with :class:`SourceError`.
    resize, max_frames
        See :func:`silkvision.capture.open_source`.

    Attributes
    ----------
    delivered : int
        Frames delivered so far (``max_frames`` counts these, not frame numbers).
    gaps : list of dict
        One per reconnection: ``after`` (last frame number before the gap), ``next`` (first one
        after it), ``seconds`` (from the last frame before to the first frame after) and
        ``attempts`` (connections tried).
    on_status : callable or None
        Receives a one-line note when the stream drops and when it is back (called in the thread
        that iterates the source, e.g. the export loop or the GUI's worker, not the reading one).
    """

    kind = "stream"
    seekable = False

    def __init__(
        self,
        url: str,
        *,
        camera_timeout: float = 5.0,
        reconnect_timeout: float = 30.0,
        resize=None,
        max_frames=None,
        groundtruth=None,
    ):
        if not is_stream_url(url):
            raise ValueError(f"url: {url!r} is not a stream URL; expected rtsp://, http:// or https://")
        for name, value, lo_open in (
            ("camera_timeout", camera_timeout, True),
            ("reconnect_timeout", reconnect_timeout, False),
        ):
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
                or (lo_open and value == 0)
            ):
                raise ValueError(
                    f"{name}: {value!r} is not allowed; expected a number {'>' if lo_open else '>='} 0"
                )
        super().__init__(_stream_name(url), resize=resize, max_frames=max_frames, groundtruth=groundtruth)
        self.url = url.strip()
        self.camera_timeout = float(camera_timeout)
        self.reconnect_timeout = float(reconnect_timeout)
        self.dropped = 0
        self.delivered = 0
        self.gaps: list[dict] = []
        self._cond = threading.Condition()
        self._latest: tuple | None = None  # (frame, connection number, arrival time) not yet delivered
        self._seq = 0  # frames read from the stream
        self._taken = 0  # sequence number of the last delivered frame
        self._delivered = 0  # number of the last delivered frame (gaps included)
        self._conn = 0  # connection number (1 = the first)
        self._conn_delivered = 0  # connection of the last delivered frame
        self._last_time: float | None = None  # arrival time of the last delivered frame
        self._rate: dict[int, float] = {}  # measured frame rate of each connection
        self._event = time.monotonic()  # last frame read or connection made by the thread
        self._lost_at: float | None = None  # monotonic time of the drop while reconnecting, else None
        self._attempts = 0  # connections tried since the drop
        self._told_lost = False
        self._opened: bool | None = None  # None: still opening; True/False once known
        self._error: str | None = None  # message once the stream failed for good
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"silkvision-stream-{self.name}", daemon=True)
        self._thread.start()
        with self._cond:
            ready = self._cond.wait_for(lambda: self._opened is not None, timeout=self.camera_timeout + 1.0)
        if not ready or not self._opened:
            self._stop.set()
            why = (
                f"did not open within {self.camera_timeout:g} s (capture.camera_timeout)"
                if not ready
                else "cannot be opened"
            )
            raise SourceError(
                f"{self.spec_redacted}: {why}; expected a reachable rtsp/http(s) stream "
                f"that OpenCV's FFmpeg back end can read"
            )

    # -- description ------------------------------------------------------------------------------
    @property
    def spec(self) -> str:
        return self.url

    @property
    def spec_redacted(self) -> str:
        """The URL without its password (for messages and the export manifest)."""
        return redact_url(self.url)

    @property
    def frame_count(self) -> int | None:
        return None

    # -- the reading thread -------------------------------------------------------------------------
    def _open(self):
        ms = int(self.camera_timeout * 1000)
        cap = open_capture(
            self.url, cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
        )
        if cap.isOpened():
            return cap
        cap.release()
        return None

    def _run(self) -> None:
        try:
            cap = self._open()
            if cap is not None:
                fps = cap.get(cv2.CAP_PROP_FPS)
                self.fps = float(fps) if fps and 0 < fps <= 1000 and math.isfinite(fps) else None
            with self._cond:
                self._opened = cap is not None
                self._conn = 1
                self._cond.notify_all()
            while cap is not None:
                self._read_all(cap)
                cap.release()
                cap = None if self._stop.is_set() else self._reconnect()
        except Exception as e:  # noqa: BLE001 - reported to the consumer as one line
            with self._cond:
                if self._opened is None:
                    self._opened = False
                self._error = f"{self.spec_redacted}: {type(e).__name__}: {e}".splitlines()[0]
                self._cond.notify_all()

    def _read_all(self, cap) -> None:
        """Read frames until the connection drops (or the source is stopped)."""
        start, count = time.monotonic(), 0
        while not self._stop.is_set():
            ok, frame = cap.read()
            if self._stop.is_set() or not ok or frame is None:
                break
            now = time.monotonic()
            count += 1
            with self._cond:
                self._latest = (frame, self._conn, now)
                self._seq += 1
                self._event = now
                if count >= 2:
                    self._rate[self._conn] = (count - 1) / max(now - start, 1e-6)
                else:
                    start = now
                self._cond.notify_all()

    def _reconnect(self):
        """Open the stream again with a doubling wait; None when the time is up or on stop."""
        lost = time.monotonic()
        with self._cond:
            self._lost_at, self._attempts = lost, 0
            self._cond.notify_all()
        wait = BACKOFF_FIRST_S
        while not self._stop.is_set():
            left = lost + self.reconnect_timeout - time.monotonic()
            if left <= 0 or self._stop.wait(min(wait, left)):
                break
            wait = min(2 * wait, BACKOFF_MAX_S)
            with self._cond:
                self._attempts += 1
            cap = self._open()
            if cap is not None:
                with self._cond:
                    self._conn += 1
                    self._lost_at = None
                    self._event = time.monotonic()
                    self._cond.notify_all()
                return cap
        with self._cond:
            if not self._stop.is_set():
                self._error = (
                    f"{self.spec_redacted}: stream lost after frame {self._delivered} and not "
                    f"back within {self.reconnect_timeout:g} s (capture.reconnect_timeout; "
                    f"{self._attempts} attempts); expected a reachable stream"
                )
            self._lost_at = None
            self._cond.notify_all()
        return None

    # -- the consumer -----------------------------------------------------------------------------
    def _deadline(self, since: float) -> float:
        """Monotonic time by which the thread must have delivered a frame or given up (it gives up
        by itself: this only guards against an FFmpeg call that ignores its timeout). ``since``:
        when the consumer began to wait."""
        grace = self.camera_timeout + 2.0
        if self._lost_at is not None:
            return self._lost_at + self.reconnect_timeout + grace
        return max(since, self._event) + grace

    def _next(self):
        if self.max_frames is not None and self.delivered >= self.max_frames:
            raise StopIteration
        since = time.monotonic()
        while True:
            note = None
            with self._cond:
                if self._stop.is_set():
                    raise StopIteration  # interrupted or closed: the stream ends here
                if self._seq > self._taken:
                    frame, conn, arrived = self._latest
                    self._latest = None
                    self.dropped += self._seq - self._taken - 1
                    self._taken = self._seq
                    break
                if self._error is not None:
                    raise SourceError(self._error)
                if self._lost_at is not None and not self._told_lost:
                    self._told_lost = True
                    note = (
                        f"{self.spec_redacted}: stream lost after frame {self._delivered}; "
                        f"reconnecting for up to {self.reconnect_timeout:g} s "
                        f"(capture.reconnect_timeout)"
                    )
                else:
                    deadline = self._deadline(since)
                    now = time.monotonic()
                    if now >= deadline:
                        raise SourceError(
                            f"{self.spec_redacted}: no frame and no reconnection for "
                            f"{now - max(since, self._event):.0f} s; the stream stalled"
                        )
                    self._cond.wait(timeout=min(deadline - now, 1.0))
            if note is not None:
                self._tell(note)
        index = self._delivered + 1
        if self._conn_delivered and conn != self._conn_delivered:
            index = self._gap(index, conn, arrived)
        self._delivered, self._conn_delivered, self._last_time = index, conn, arrived
        self.delivered += 1
        return index, frame, f"{self.spec_redacted} frame {index}"

    def _gap(self, index: int, conn: int, arrived: float) -> int:
        """Record the gap before the first frame of connection ``conn``; its frame number."""
        seconds = arrived - (self._last_time or arrived)
        rate = self._rate.get(self._conn_delivered) or self.fps or _FALLBACK_FPS
        missed = max(1, round(seconds * rate))
        self.gaps.append(
            {
                "after": index - 1,
                "next": index + missed,
                "seconds": round(seconds, 3),
                "attempts": self._attempts,
            }
        )
        self._told_lost = False
        self._tell(
            f"{self.spec_redacted}: stream back after {seconds:.1f} s; frames {index}.."
            f"{index + missed - 1} were lost (a gap in the numbering)"
        )
        return index + missed

    def _tell(self, note: str) -> None:
        if self.on_status is not None:
            self.on_status(note)

    # -- life cycle -------------------------------------------------------------------------------
    def interrupt(self) -> None:
        """Stop the reading thread and end a read waiting for a frame at once (any thread)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        """Stop the reading thread (it releases the stream after its current read)."""
        self.interrupt()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        super().close()
