"""The capture-source interface shared by cameras, video files, image folders and CDnet sequences.

Every source yields ``(index, frame)`` pairs: ``index`` is the 1-based frame number (for CDnet the
number in the file name, ``in000123.jpg`` -> 123) and ``frame`` an HxWx3 BGR uint8 C-contiguous
array. Iteration is file-like: it continues from the current position, and :meth:`Source.seek`
moves that position (seekable sources only).

Every problem a user can cause (missing path, corrupt file, frame size change, lost camera) raises
:class:`silkvision.errors.SourceError` with a one-line message naming the file/frame/camera and what
was expected.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import weakref
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from silkvision.config.schema import MAX_FRAME_SIDE
from silkvision.errors import SourceError, plain

__all__ = ["Source", "GroundTruth", "IMAGE_EXTENSIONS", "read_image", "list_images", "number_images",
           "check_resize", "check_max_frames", "open_capture", "quiet_opencv", "MAX_FRAME_SIDE"]

#: File extensions read as images (what OpenCV's imread decodes).
IMAGE_EXTENSIONS = frozenset({
    ".jpg", ".jpeg", ".jpe", ".png", ".bmp", ".dib", ".tif", ".tiff", ".webp", ".jp2", ".pbm",
    ".pgm", ".ppm", ".pnm", ".pxm", ".sr", ".ras", ".exr", ".hdr", ".pic", ".avif",
})
_JPEG = frozenset({".jpg", ".jpeg", ".jpe"})
#: Operating-system clutter that may sit in an image folder and is ignored (besides hidden files).
IGNORED_FILES = frozenset({"thumbs.db", "desktop.ini"})
_TRAILING_NUMBER = re.compile(r"(\d+)$")


def check_resize(resize) -> tuple[int, int] | None:
    """Validate ``resize`` (None or ``(width, height)``, integers in 1..:data:`MAX_FRAME_SIDE`, the
    bound of the ``capture.resize`` config key) and return it as a tuple of ints."""
    if resize is None:
        return None
    try:
        w, h = resize
        ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                 and 0 < v <= MAX_FRAME_SIDE for v in (w, h))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"resize: {resize!r} is not allowed; expected None or (width, height) "
                         f"with integers in 1..{MAX_FRAME_SIDE}")
    return int(w), int(h)


def check_max_frames(max_frames) -> int | None:
    """Validate ``max_frames`` (None or an int >= 1)."""
    if max_frames is None:
        return None
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) or max_frames < 1:
        raise ValueError(f"max_frames: {max_frames!r} is not allowed; expected None or an integer >= 1")
    return int(max_frames)


def check_index(index) -> int:
    """A frame number as an ``int``: ``ValueError`` naming ``index`` for anything that is not an
    integer (``100.9`` used to read frame 100, ``True`` frame 1)."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"index: {plain(index)!r} is not a frame number; expected an integer")
    return int(index)


def _jpeg_truncated(data: bytes) -> bool:
    """True when the last start-of-scan marker (FFDA) has no end-of-image marker (FFD9) after it.

    Entropy-coded data cannot contain FFD9 (0xFF bytes are stuffed), so a complete JPEG always ends
    its last scan with FFD9; libjpeg silently pads a truncated file with grey instead of failing.
    """
    sos = data.rfind(b"\xff\xda")
    return sos < 0 or data.find(b"\xff\xd9", sos + 2) < 0


def not_a_file(path: Path) -> str:
    """Why ``path`` (for which ``is_file()`` is False) cannot be read as a file: "file not found",
    "is a broken symbolic link", "is a folder, not a file", "is a named pipe (FIFO), not a regular
    file", ..."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "is a broken symbolic link" if path.is_symlink() else "file not found"
    except OSError as e:
        return f"cannot access ({e.strerror})"
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISFIFO(mode):
        kind = "a named pipe (FIFO)"
    elif stat.S_ISSOCK(mode):
        kind = "a socket"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        kind = "a device"
    else:
        kind = "a special file"
    return f"is {kind}, not a regular file"


def read_image(path: Path, flags: int = cv2.IMREAD_COLOR, what: str = "image") -> np.ndarray:
    """Read one image file with OpenCV, raising :class:`SourceError` for missing, empty, truncated
    (JPEG without end marker) or undecodable files."""
    path = Path(path)
    try:
        # non-blocking: opening a FIFO named like an image must not wait for a writer for ever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise SourceError(f"{path}: {not_a_file(path)}; expected {what}") from None
    except OSError as e:
        raise SourceError(f"{path}: cannot read ({e.strerror}); expected {what}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder opens too, as does a FIFO (non-blocking)
        os.close(fd)
        raise SourceError(f"{path}: {not_a_file(path)}; expected {what}")
    with open(fd, "rb") as f:
        try:
            data = f.read()
        except OSError as e:
            raise SourceError(f"{path}: cannot read ({e.strerror}); expected {what}") from None
    if not data:
        raise SourceError(f"{path}: empty file; expected {what}")
    if path.suffix.lower() in _JPEG and data[:2] == b"\xff\xd8" and _jpeg_truncated(data):
        raise SourceError(f"{path}: truncated JPEG (no end-of-image marker); expected a complete JPEG file")
    # a decoder that fails is reported below, in one line: not also by OpenCV's [ERROR] lines
    # (the BMP reader prints them), unless the user asked for OpenCV's log (OPENCV_LOG_LEVEL)
    with quiet_opencv(silent="OPENCV_LOG_LEVEL" not in os.environ):
        img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if img is None:
        raise SourceError(f"{path}: cannot decode (corrupt file or not an image); expected {what}")
    return img


# OpenCV reads FFmpeg's log level from OPENCV_FFMPEG_LOGLEVEL once per process, when it first
# uses FFmpeg (the first cv2.VideoCapture or cv2.VideoWriter with the FFmpeg back end), not at
# each open. Setting it here, when silkvision.capture is imported, makes it apply also when a
# VideoWriter (export --video, user code) opens before the first capture. A value the user set is
# kept (e.g. to debug a codec).
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")   # AV_LOG_QUIET


def open_capture(spec, *api) -> cv2.VideoCapture:
    """``cv2.VideoCapture(spec, *api)`` without OpenCV's or FFmpeg's own log lines on the console.

    A camera that cannot be opened, or a corrupt video file, is then reported once, by us, as a
    one-line :class:`SourceError`, and a damaged frame does not print FFmpeg's decoder messages.

    OpenCV's own messages are held back while the capture opens. FFmpeg's are silenced through
    ``OPENCV_FFMPEG_LOGLEVEL``, which :mod:`silkvision.capture` sets to quiet (``-8``) when it is
    imported, unless the user set it (then the user's level applies). OpenCV reads that variable
    only once, when the process first uses FFmpeg: FFmpeg's messages are therefore silenced
    whenever ``silkvision.capture`` was imported (``silkvision.io.export`` imports it; opening any
    silkvision source does) before the first ``cv2.VideoCapture`` or ``cv2.VideoWriter`` of the
    process. When OpenCV used FFmpeg earlier, FFmpeg keeps the level it got then, and its error
    messages (e.g. about a damaged frame) are printed.
    """
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")   # (in case it was removed since import)
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
_quiet_blocks: list[int] = []    # the levels asked for by the quiet_opencv blocks running now
_quiet_saved = 0                 # the level before the first of them
_open_sources: "weakref.WeakSet[Source]" = weakref.WeakSet()   # for _renew_locks_after_fork


def _renew_locks_after_fork() -> None:
    """In a forked child: locks that another thread of the parent held stay held for ever there,
    so every source and the OpenCV quieting get new ones (the quieting's blocks ran in threads the
    child does not have: its level is restored)."""
    global _quiet_lock
    _quiet_lock = threading.Lock()
    if _quiet_blocks:
        _quiet_blocks.clear()
        log = getattr(getattr(cv2, "utils", None), "logging", None)
        if log is not None:
            log.setLogLevel(_quiet_saved)
    for src in list(_open_sources):
        src._io = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_locks_after_fork)


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


def _natural_key(name: str):
    return [int(t) if t.isdecimal() else t.lower() for t in re.split(r"(\d+)", name)]


def list_images(folder: Path, strict: bool = True, what: str = "image folder") -> list[Path]:
    """Image files of ``folder`` in natural order (``f2`` before ``f10``).

    Hidden files, sub-folders and OS clutter (``Thumbs.db``, ``desktop.ini``) are skipped. With
    ``strict``, any other non-image file raises :class:`SourceError` naming it; an empty result
    always does.
    """
    folder = Path(folder)
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        raise SourceError(f"{folder}: folder not found; expected {what}") from None
    except NotADirectoryError:
        raise SourceError(f"{folder}: is not a folder; expected {what}") from None
    except OSError as e:
        raise SourceError(f"{folder}: cannot list folder ({e.strerror})") from None
    images = []
    for e in entries:
        if e.name.startswith(".") or e.name.lower() in IGNORED_FILES or e.is_dir():
            continue
        if Path(e.name).suffix.lower() in IMAGE_EXTENSIONS:
            images.append(Path(e.path))
        elif strict:
            raise SourceError(f"{e.path}: not an image file in the {what} {folder}; expected only "
                              f"images (.jpg, .png, .bmp, .tif, ...); move it elsewhere")
    if not images:
        raise SourceError(f"{folder}: no images in the {what}; expected .jpg, .png, .bmp, .tif, ... files")
    images.sort(key=lambda p: _natural_key(p.name))
    return images


def _trailing_number(path: Path) -> int | None:
    """The number at the end of a file's stem (``in000123.jpg`` -> 123), None without one."""
    m = _TRAILING_NUMBER.search(path.stem)
    return None if m is None else int(m.group(1))


def number_images(images: list[Path], what: str = "image folder") -> list[int]:
    """Frame numbers of ``images``: the trailing number of each file stem (``in000123.jpg`` -> 123).

    When no file name ends in a number, or every name does but the numbers are mostly shared (fewer
    than half as many different numbers as files: a camera id or the seconds of a time stamp, not
    a frame number), the images are numbered by their 1-based position (in the order given:
    :func:`list_images` sorts them naturally). Otherwise some names without a number, or two files
    with the same number (``in000001.jpg`` and ``in000001.png``), would silently renumber every
    frame (and pair frames with the wrong ground truth), so they are an error.

    Parameters
    ----------
    images : list of Path
        The image files of one folder.
    what : str
        What the folder is, for messages (``"image folder"``, ``"ground-truth folder"``).

    Raises
    ------
    SourceError
        Some names end in a number and some do not (the message names a file of the smaller group),
        or two names end in the same number (both named).
    """
    numbers = [_trailing_number(p) for p in images]
    missing = numbers.count(None)
    # no numbers, or most names share theirs: not a frame number but a camera id or the end of a
    # time stamp (frame0001_cam1.jpg, 12-00-00.jpg), so the sorted order numbers them
    if missing == len(images) or (not missing and len(set(numbers)) * 2 < len(images)):
        return list(range(1, len(images) + 1))
    if missing:
        raise SourceError(_mixed_numbering(images, numbers, what))
    seen: dict = {}
    for p, n in zip(images, numbers):
        if n in seen:
            raise SourceError(f"{p}: frame number {n} is also that of {seen[n].name} in the {what} "
                              f"{p.parent}; expected one image per frame number (move one elsewhere)")
        seen[n] = p
    return numbers


def _mixed_numbering(images: list[Path], numbers: list, what: str) -> str:
    """The one-line message for a folder where only some names end in a frame number: it names the
    first file of the smaller group (the unnumbered one on a tie) and an example of the other."""
    plain = [p for p, n in zip(images, numbers) if n is None]
    numbered = [p for p, n in zip(images, numbers) if n is not None]
    odd, others = (plain, numbered) if len(plain) <= len(numbered) else (numbered, plain)
    has = "has no frame number at the end of its name" if odd is plain else "ends in a frame number"
    many = len(others) != 1
    have = ("have" if many else "has") + (" one" if odd is plain else " none")
    return (f"{odd[0]}: {has}, while {len(others)} other image{'s' if many else ''} of the {what} "
            f"{odd[0].parent} {have} (e.g. {others[0].name}); expected every image numbered "
            f"(in000123.jpg) or none, so that frames are not renumbered; move it elsewhere")


class GroundTruth:
    """Ground-truth masks in a folder, paired with frames by frame number.

    Files are numbered as in :func:`number_images` (``gt000123.png`` -> frame 123, or by sorted
    position when no name carries a number; some names with a number and some without, or one
    number twice, is an error). Labels are returned as stored (CDnet: 0 static, 50 hard
    shadow, 85 outside ROI, 170 unknown, 255 moving).
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            what = ("is a file, not a folder" if self.folder.is_file() else "is not a folder"
                    if self.folder.exists() else "ground-truth folder not found")
            raise SourceError(f"{self.folder}: {what}; expected a folder of gt%06d.png masks")
        images = list_images(self.folder, strict=False, what="ground-truth folder")
        self._paths = dict(zip(number_images(images, "ground-truth folder"), images))

    def __contains__(self, index: int) -> bool:
        return index in self._paths

    def path(self, index: int) -> Path | None:
        return self._paths.get(check_index(index))

    @property
    def first(self) -> int:
        """The lowest frame number with a mask."""
        return min(self._paths)

    def read(self, index: int, size: tuple[int, int] | None = None,
             resize: tuple[int, int] | None = None) -> np.ndarray | None:
        """HxW uint8 labels of frame ``index`` (None when there is no file for it).

        ``size`` is the (width, height) the file must have (the source's native frame size);
        ``resize`` rescales it with nearest-neighbour interpolation so labels stay labels.
        """
        path = self.path(index)
        if path is None:
            return None
        gt = read_image(path, cv2.IMREAD_UNCHANGED, "a ground-truth mask")
        gt = to_labels(gt, path)
        if size is not None and (gt.shape[1], gt.shape[0]) != tuple(size):
            raise SourceError(f"{path}: ground truth is {gt.shape[1]}x{gt.shape[0]} but the frames are "
                              f"{size[0]}x{size[1]}; expected the frame size")
        if resize is not None and (gt.shape[1], gt.shape[0]) != tuple(resize):
            gt = cv2.resize(gt, resize, interpolation=cv2.INTER_NEAREST)
        return gt


def to_labels(img: np.ndarray, path: Path) -> np.ndarray:
    """A single-channel uint8 image from a mask file (grey, or colour with equal channels)."""
    if img.dtype != np.uint8:
        raise SourceError(f"{path}: {img.dtype} mask; expected an 8-bit image")
    if img.ndim == 3:
        if img.shape[2] == 4:
            img = img[..., :3]
        first = img[..., 0]
        if not (np.array_equal(first, img[..., 1]) and np.array_equal(first, img[..., 2])):
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        else:
            img = first
    return np.ascontiguousarray(img)


def to_bgr(frame: np.ndarray) -> np.ndarray:
    """HxWx3 uint8 BGR from grey, BGRA or 16-bit frames."""
    if frame.dtype != np.uint8:
        if frame.dtype == np.uint16:
            frame = (frame >> 8).astype(np.uint8)
        else:
            frame = cv2.normalize(frame, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U)
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    elif frame.shape[2] == 1:
        frame = cv2.cvtColor(frame[..., 0], cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(frame)


class Source:
    """Base class of all capture sources (see :func:`silkvision.capture.open_source`).

    Attributes
    ----------
    kind : str
        ``"camera"``, ``"video"``, ``"folder"`` or ``"cdnet"``.
    name : str
        Short name (folder or file stem, ``"camera0"``).
    fps : float or None
        Frame rate when known.
    first_index : int
        Number of the first frame.
    seekable : bool
        Whether :meth:`seek` and :meth:`read` work.
    """

    kind = ""
    seekable = False

    def __init__(self, name: str, *, resize=None, max_frames=None, groundtruth=None):
        self.name = name
        self.resize = check_resize(resize)
        self.max_frames = check_max_frames(max_frames)
        self.fps: float | None = None
        self.first_index = 1
        self._native: tuple[int, int] | None = None  # (w, h) of the frames as stored
        self._native_from = ""                        # which frame set _native (for messages)
        self._gt = GroundTruth(groundtruth) if groundtruth is not None else None
        self._closed = False
        # one read, seek or close at a time: a video closed from another thread during a read made
        # OpenCV abort, and two threads sharing a source must get each frame once
        self._io = threading.RLock()
        _open_sources.add(self)

    # -- description -------------------------------------------------------------------------
    @property
    def frame_size(self) -> tuple[int, int] | None:
        """(width, height) of the frames this source yields (after ``resize``); None while unknown."""
        return self.resize if self.resize is not None else self._native

    @property
    def native_size(self) -> tuple[int, int] | None:
        """(width, height) of the frames as stored, before ``resize``."""
        return self._native

    @property
    def frame_count(self) -> int | None:
        """Number of frames (after ``max_frames``), None when unknown (camera, some videos)."""
        return None

    @property
    def spec(self) -> str:
        """The string that re-opens this source (path or camera index)."""
        return self.name

    @property
    def has_groundtruth(self) -> bool:
        return self._gt is not None

    def groundtruth_path(self, index: int) -> Path | None:
        """The ground-truth file of frame ``index`` (None when the frame has none), for messages and
        to know whether a frame has ground truth without decoding it."""
        index = check_index(index)
        return None if self._gt is None else self._gt.path(index)

    def groundtruth(self, index: int) -> np.ndarray | None:
        """HxW uint8 ground-truth labels of frame ``index`` as stored (resized with nearest
        neighbour when ``resize`` is set), or None when the frame has no ground truth."""
        index = check_index(index)
        if self._gt is None:
            return None
        return self._gt.read(index, self.native_size, self.resize)   # a video's: header size first

    def check_groundtruth(self) -> tuple[int, np.ndarray] | None:
        """Read the first ground-truth mask (and a CDnet ``ROI.bmp``) now, so that a ground-truth
        folder or ROI of the wrong size (or an unreadable first mask) is refused when the source
        opens rather than at the first frame with ground truth. Does nothing without ground truth
        or while the frame size is unknown (a camera before its first frame).

        Returns
        -------
        (index, labels) or None
            The first mask and its frame number, for the caller to check its labels
            (:func:`silkvision.evaluation.label_classes`); None when nothing was read.

        Raises
        ------
        SourceError
            The mask's size is not the frames' size, or the mask cannot be read (one line naming
            the file).
        """
        if self._gt is None or self.native_size is None:
            return None
        first = self._gt.first
        labels = self.groundtruth(first)
        self.roi   # a CDnet ROI.bmp of the wrong size is refused now too
        return first, labels

    @property
    def roi(self) -> np.ndarray | None:
        """HxW bool region of interest (True = evaluated), None when the source has none."""
        return None

    @property
    def temporal_roi(self) -> tuple[int, int] | None:
        """(first, last) evaluated frame numbers, None when the source has none."""
        return None

    # -- reading -----------------------------------------------------------------------------
    def __iter__(self):
        return self

    def __next__(self) -> tuple[int, np.ndarray]:
        with self._io:
            if self._closed:
                raise SourceError(f"{self.spec}: source is closed")
            index, frame, where = self._next()
            return index, self._prepare(frame, where)

    def _next(self) -> tuple[int, np.ndarray, str]:  # pragma: no cover - abstract
        """Return ``(index, raw frame, label for messages)`` or raise StopIteration."""
        raise NotImplementedError

    def seek(self, index: int) -> None:
        """Make the next iteration yield frame ``index`` (seekable sources)."""
        raise SourceError(f"{self.spec}: a {self.kind} cannot seek; only files and folders can")

    def read(self, index: int) -> np.ndarray:
        """Frame ``index`` (random access, seekable sources); the source is left positioned after it."""
        with self._io:
            self.seek(index)
            try:
                got, frame = next(self)
            except StopIteration:
                last = self.frame_count
                raise SourceError(f"{self.spec}: there is no frame {index}; expected a frame number in "
                                  f"{self.first_index}..{last if last is not None else '?'}") from None
            return frame

    def _prepare(self, frame: np.ndarray, where: str) -> np.ndarray:
        frame = to_bgr(frame)
        size = (frame.shape[1], frame.shape[0])
        if self._native is None:
            self._native, self._native_from = size, where
        elif size != self._native:
            raise SourceError(f"{where}: frame size {size[0]}x{size[1]} differs from "
                              f"{self._native[0]}x{self._native[1]} of {self._native_from}; expected "
                              f"all frames to have the same size")
        if self.resize is not None and size != self.resize:
            frame = cv2.resize(frame, self.resize, interpolation=cv2.INTER_AREA)
        return frame

    def _check_roi_size(self, mask: np.ndarray, path: Path) -> np.ndarray:
        if self._native is not None and (mask.shape[1], mask.shape[0]) != self._native:
            raise SourceError(f"{path}: ROI is {mask.shape[1]}x{mask.shape[0]} but the frames are "
                              f"{self._native[0]}x{self._native[1]}; expected the frame size")
        if self.resize is not None and (mask.shape[1], mask.shape[0]) != self.resize:
            mask = cv2.resize(mask.astype(np.uint8), self.resize, interpolation=cv2.INTER_NEAREST) > 0
        return mask

    # -- pickling: the lock is the process's own -----------------------------------------------
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_io"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._io = threading.RLock()
        _open_sources.add(self)

    # -- life cycle --------------------------------------------------------------------------
    def close(self) -> None:
        """Release the file/camera; further reads raise :class:`SourceError`."""
        self._closed = True

    def interrupt(self) -> None:
        """Make a read that is waiting for a frame end at once (the stream then ends), from any
        thread. Only a camera waits (up to ``camera_timeout``); for the other sources this does
        nothing. Used to close the GUI without waiting for a stalled camera."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        size = "x".join(map(str, self.frame_size)) if self.frame_size else "?"
        return (f"<{type(self).__name__} {self.spec!r} {size} frames={self.frame_count} "
                f"fps={self.fps}>")
