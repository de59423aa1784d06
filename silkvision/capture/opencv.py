"""OpenCV's quirks, in one place: its console log, FFmpeg's log level, and file names its Python
binding cannot take.

:func:`open_capture` opens a ``cv2.VideoCapture`` without OpenCV's or FFmpeg's own log lines, and
:func:`quiet_opencv` holds those lines back around any other OpenCV call, so that a problem is
reported once, by us, as a one-line :class:`silkvision.errors.SourceError`.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

import cv2

__all__ = ["open_capture", "quiet_opencv", "utf8_path", "opencv_alias", "DecoderErrors", "STDERR_LOCK"]

# OpenCV reads FFmpeg's log level from OPENCV_FFMPEG_LOGLEVEL once per process, when it first
# uses FFmpeg (the first cv2.VideoCapture or cv2.VideoWriter with the FFmpeg back end), not at
# each open. Setting it here, when silkvision.capture is imported, makes it apply also when a
# VideoWriter (export --video, user code) opens before the first capture. A value the user set is
# kept (e.g. to debug a codec).
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET


def open_capture(spec, *api) -> cv2.VideoCapture:
    """``cv2.VideoCapture(spec, *api)`` without OpenCV's or FFmpeg's own log lines on the console.

    A camera that cannot be opened, or a corrupt video file, is then reported once, by us, as a
    one-line :class:`SourceError`, and a damaged frame does not print FFmpeg's decoder messages.

    OpenCV's own messages are held back while the capture opens. FFmpeg's are silenced through
    ``OPENCV_FFMPEG_LOGLEVEL``, which :mod:`silkvision.capture` sets to quiet (``-8``) when it is
    imported, unless the user set it (then the user's level applies). OpenCV reads that variable
    only once, when the process first uses FFmpeg: FFmpeg's messages are therefore silenced
    whenever ``silkvision.capture`` was imported (``silkvision.export`` imports it; opening any
    silkvision source does) before the first ``cv2.VideoCapture`` or ``cv2.VideoWriter`` of the
    process. When OpenCV used FFmpeg earlier, FFmpeg keeps the level it got then, and its error
    messages (e.g. about a damaged frame) are printed.
    """
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # (in case it was removed since import)
    if isinstance(spec, str) and not utf8_path(spec):
        with opencv_alias(spec) as alias, quiet_opencv():
            return cv2.VideoCapture(alias, *api)  # FFmpeg holds the file open: the alias may go
    with quiet_opencv():
        return cv2.VideoCapture(spec, *api)


def utf8_path(path) -> bool:
    """Whether OpenCV's Python binding can take ``str(path)``: a file name holding bytes that are
    not UTF-8 (Python keeps them as surrogate escapes) crashes it (SIGSEGV)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@contextmanager
def opencv_alias(path):
    """A UTF-8 name for ``path`` that OpenCV can take: a symbolic link to it (which need not exist
    yet: a file created through the link is created at ``path``) in a temporary folder, removed
    when the block ends. The link keeps the file's extension, by which FFmpeg chooses a container
    to write."""
    import shutil
    import tempfile

    tmp = tempfile.mkdtemp(prefix="silkvision-")
    try:
        suffix = Path(path).suffix if utf8_path(Path(path).suffix) else ""
        link = os.path.join(tmp, "file" + suffix)
        os.symlink(os.path.abspath(path), link)
        yield link
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_quiet_lock = threading.Lock()
_quiet_blocks: list[int] = []  # the levels asked for by the quiet_opencv blocks running now
_quiet_saved = 0  # the level before the first of them


def _renew_lock_after_fork() -> None:
    """In a forked child: a lock that another thread of the parent held stays held for ever there,
    so the quieting gets a new one (its blocks ran in threads the child does not have: the level
    of before them is restored)."""
    global _quiet_lock
    _quiet_lock = threading.Lock()
    if _quiet_blocks:
        _quiet_blocks.clear()
        log = getattr(getattr(cv2, "utils", None), "logging", None)
        if log is not None:
            log.setLogLevel(_quiet_saved)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_lock_after_fork)


@contextmanager
def quiet_opencv(silent: bool = False):
    """Hold back OpenCV's own log lines below ERROR (its ``[ WARN:0@1.048] ...`` lines), or with
    ``silent`` all of them, while the ``with`` block runs, then restore the level it had.

    A corrupt PNG or a camera that does not open is then reported once, by us, as a one-line
    :class:`SourceError`, without OpenCV's warning before it. A quieter level already set (e.g.
    ``OPENCV_LOG_LEVEL=SILENT``) is kept. The level is global to the process, so blocks that
    overlap (in several threads) share it: the first one saves the level, the last one restores
    it. Without ``cv2.utils.logging`` (old OpenCV builds) this does nothing.
    """
    global _quiet_saved
    log = getattr(getattr(cv2, "utils", None), "logging", None)
    if log is None:
        yield
        return
    wanted = log.LOG_LEVEL_SILENT if silent else log.LOG_LEVEL_ERROR
    with _quiet_lock:
        if not _quiet_blocks:
            _quiet_saved = log.getLogLevel()
        _quiet_blocks.append(wanted)
        log.setLogLevel(min(_quiet_saved, *_quiet_blocks))
    try:
        yield
    finally:
        with _quiet_lock:
            _quiet_blocks.remove(wanted)
            log.setLogLevel(min(_quiet_saved, *_quiet_blocks) if _quiet_blocks else _quiet_saved)


AV_LOG_ERROR = 16  # FFmpeg's level of its concealment messages ("error y=3 x=1", "bad vlc")

# "[mjpeg @ 0x55d1c0a8b2c0] error y=3 x=1": the codec's name is kept, the address dropped
_PREFIX = re.compile(r"^\[([^\]@]+?)(?: @ 0x[0-9a-fA-F]+)?\]\s*")
#: held while fd 2 points at a decoder-message file: whoever writes to stderr meanwhile (the
#: export's progress bar and notes) takes it first, so no line is taken for a frame's message
STDERR_LOCK = threading.Lock()
_avutil_lib: ctypes.CDLL | None = None
_avutil_looked = False  # whether /proc/self/maps was searched already
_default_callback: ctypes.c_void_p | None = None  # FFmpeg's av_log_default_callback


def _avutil() -> ctypes.CDLL | None:
    """FFmpeg's libavutil as OpenCV loaded it (found in ``/proc/self/maps``, so the library the
    ``cv2`` module uses, whatever its file name); None where it cannot be found (not Linux, or
    OpenCV without FFmpeg)."""
    global _avutil_lib, _avutil_looked, _default_callback
    if not _avutil_looked:
        _avutil_looked = True
        try:
            with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
                paths = [line.split()[-1] for line in f if "libavutil" in line]
            lib = ctypes.CDLL(paths[0]) if paths else None
            if lib is not None:
                lib.av_log_get_level.restype = ctypes.c_int
                lib.av_log_set_level.argtypes = [ctypes.c_int]
                lib.av_log_set_callback.argtypes = [ctypes.c_void_p]
                _default_callback = ctypes.cast(lib.av_log_default_callback, ctypes.c_void_p)
                _avutil_lib = lib
        except (OSError, AttributeError):  # no /proc, or a library without these functions
            pass
    return _avutil_lib


def decoder_message(text: bytes) -> str | None:
    """The first line of FFmpeg's messages ``text``, as ``"mjpeg: error y=3 x=1"`` (None when
    there is none)."""
    for line in text.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line:
            m = _PREFIX.match(line)
            return f"{m.group(1).strip()}: {line[m.end() :]}" if m else line
    return None


class DecoderErrors:
    """FFmpeg's error messages written while a ``with`` block runs (one ``cap.read()``): the block
    sends stderr (fd 2) to an unlinked temporary file, kept for the next blocks, and lets FFmpeg
    log at ERROR, then restores both; :attr:`message` is then the first line written, or None.

    OpenCV installs its own log callback, which prints to stdout through a buffered ``printf``,
    when it first uses FFmpeg with ``OPENCV_FFMPEG_LOGLEVEL`` set (as :mod:`silkvision.capture`
    sets it); the block sets FFmpeg's default one, which writes each message to stderr at once, and
    leaves it (it has no way to get OpenCV's back): messages a user asked for with
    ``OPENCV_FFMPEG_LOGLEVEL`` then appear on stderr instead of stdout.

    FFmpeg conceals a damaged frame (the read succeeds) and says so only in these messages. Both fd 2
    and FFmpeg's log level are global to the process: blocks run one at a time (a lock), and what
    another thread writes to stderr meanwhile is taken as the frame's message. Where FFmpeg's
    library cannot be found (:func:`_avutil`) the block changes nothing and :attr:`message` stays
    None.
    """

    def __init__(self):
        self.message: str | None = None
        self._file = None
        self._saved_fd = -1
        self._level = 0
        self._lib = None

    def __enter__(self):
        self.message = None
        STDERR_LOCK.acquire()
        try:
            self._lib = _avutil()
            if self._lib is None:
                return self
            if self._file is None:
                self._file = tempfile.TemporaryFile()
            sys.stderr.flush()  # Python's own pending text is not the decoder's
            self._saved_fd = os.dup(2)
            os.dup2(self._file.fileno(), 2)
            self._lib.av_log_set_callback(_default_callback)
            self._level = self._lib.av_log_get_level()
            self._lib.av_log_set_level(max(self._level, AV_LOG_ERROR))
        except BaseException:
            self._restore()
            STDERR_LOCK.release()
            raise
        return self

    def __exit__(self, *exc):
        try:
            if self._lib is not None:
                self._lib.av_log_set_level(self._level)
            self._restore()
            if self._file is not None:
                fd = self._file.fileno()
                size = os.lseek(fd, 0, os.SEEK_END)
                if size:
                    os.lseek(fd, 0, os.SEEK_SET)
                    self.message = decoder_message(os.read(fd, min(size, 4096)))
                    os.ftruncate(fd, 0)
                    os.lseek(fd, 0, os.SEEK_SET)
        finally:
            STDERR_LOCK.release()
        return False

    def _restore(self) -> None:
        if self._saved_fd >= 0:
            os.dup2(self._saved_fd, 2)
            os.close(self._saved_fd)
            self._saved_fd = -1

    def close(self) -> None:
        """Remove the temporary file."""
        if self._file is not None:
            self._file.close()
            self._file = None
