"""The threads of a pipelined export (``export.pipeline: true``): a reader that decodes frames
ahead of the detector and a writer that writes the files of the frames behind it, each behind a
bounded queue. The detector stays on the calling thread; decoding and PNG encoding release the
GIL, so the three overlap."""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable

from silkvision.errors import BadFrame

__all__ = ["DEPTH", "FrameReader", "FileWriter", "LockedStream"]

#: Frames decoded ahead, and frames waiting to be written: a few frames, enough to even out.
DEPTH = 4

_END = object()


class FrameReader:
    """Reads ``(index, frame)`` from ``src`` on its own thread, a few frames ahead.

    What the source raises is passed on in its place, in order: iterating the reader raises it
    where iterating the source would have. A :class:`BadFrame` is passed on and reading goes on
    after ``on_bad(error)`` (a seek past it) when ``skip``; any other exception ends the reading.

    Attributes
    ----------
    decoder_message : str or None
        The source's ``decoder_message`` of the frame last returned.
    """

    def __init__(self, src, *, skip: bool, on_bad: Callable[[BadFrame], None], depth: int = DEPTH):
        self.src, self.skip, self.on_bad = src, skip, on_bad
        self.decoder_message: str | None = None
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._halt = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, name="silkvision-reader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        src = self.src
        while not self._halt.is_set():
            try:
                item = next(src)
            except StopIteration:
                self._put(_END)
                return
            except BadFrame as e:
                self._put(e)
                if not self.skip:
                    return
                try:
                    self.on_bad(e)
                except BaseException as err:  # noqa: BLE001 - passed on to the main thread
                    self._put(err)
                    return
                continue
            except BaseException as e:  # noqa: BLE001 - passed on to the main thread
                self._put(e)
                return
            self._put((item, getattr(src, "decoder_message", None)))

    def _put(self, item) -> None:
        while not self._halt.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def __iter__(self):
        return self

    def __next__(self):
        if self._done:
            raise StopIteration
        item = self._queue.get()
        if item is _END:
            self._done = True
            raise StopIteration
        if isinstance(item, BaseException):
            if not isinstance(item, BadFrame) or not self.skip:
                self._done = True
            raise item
        frame, self.decoder_message = item
        return frame

    def close(self) -> None:
        """Stop reading and wait for the thread (the source is then free to use or close)."""
        self._halt.set()
        while self._thread.is_alive():
            try:  # a put waiting for room sees the halt within its timeout
                self._queue.get(timeout=0.05)
            except queue.Empty:
                pass
        self._done = True


class FileWriter:
    """Runs ``write(*job)`` for each job put, in order, on its own thread.

    A failed write stops the writing: the jobs after it are dropped, and :meth:`put`,
    :meth:`drain` and :meth:`close` raise its error on the calling thread. ``done(job)`` runs after
    every job, written or not (it hands the job's buffers back).
    """

    def __init__(self, write: Callable, done: Callable, depth: int = DEPTH):
        self._write, self._done = write, done
        self.error: BaseException | None = None
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._thread = threading.Thread(target=self._run, name="silkvision-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is _END:
                    return
                if self.error is None:
                    self._write(*job)
            except BaseException as e:  # noqa: BLE001 - raised again on the main thread
                self.error = e
            finally:
                if job is not _END:
                    self._done(job)
                self._queue.task_done()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def put(self, *job) -> None:
        self._raise()
        self._queue.put(job)

    def drain(self) -> None:
        """Wait until every job put so far is written (or dropped after an error)."""
        self._queue.join()
        self._raise()

    def close(self, *, check: bool = True) -> None:
        """Write what is queued and end the thread; raise the writer's error when ``check``."""
        if self._thread.is_alive():
            self._queue.put(_END)
            self._thread.join()
        if check:
            self._raise()


class LockedStream:
    """A text stream whose writes hold ``lock``: stderr, while a reader thread may have sent fd 2
    to a file to collect FFmpeg's messages of one frame, must not write into that file."""

    def __init__(self, lock, stream=None):
        self._lock, self._stream = lock, stream

    @property
    def stream(self):
        return self._stream if self._stream is not None else sys.stderr

    def write(self, text: str) -> int:
        with self._lock:
            n = self.stream.write(text)
            self.stream.flush()
            return n

    def flush(self) -> None:
        with self._lock:
            self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()
