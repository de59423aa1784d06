"""Image files: which files of a folder are images, their frame numbers, and reading one.

Every problem (missing, empty, truncated or undecodable file, a folder with stray files or mixed
numbering) raises :class:`silkvision.errors.SourceError` with a one-line message naming the file
and what was expected.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture.opencv import quiet_opencv
from silkvision.errors import SourceError

__all__ = [
    "IMAGE_EXTENSIONS",
    "IGNORED_FILES",
    "read_image",
    "list_images",
    "number_images",
    "not_a_file",
    "to_bgr",
]

#: File extensions read as images (what OpenCV's imread decodes).
IMAGE_EXTENSIONS = frozenset(
    {
        ".jpg",
        ".jpeg",
        ".jpe",
        ".png",
        ".bmp",
        ".dib",
        ".tif",
        ".tiff",
        ".webp",
        ".jp2",
        ".pbm",
        ".pgm",
        ".ppm",
        ".pnm",
        ".pxm",
        ".sr",
        ".ras",
        ".exr",
        ".hdr",
        ".pic",
        ".avif",
    }
)
_JPEG = frozenset({".jpg", ".jpeg", ".jpe"})
#: Operating-system clutter that may sit in an image folder and is ignored (besides hidden files).
IGNORED_FILES = frozenset({"thumbs.db", "desktop.ini"})
_TRAILING_NUMBER = re.compile(r"(\d+)$")


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
    for entry in entries:
        if entry.name.startswith(".") or entry.name.lower() in IGNORED_FILES or entry.is_dir():
            continue
        if Path(entry.name).suffix.lower() in IMAGE_EXTENSIONS:
            images.append(Path(entry.path))
        elif strict:
            raise SourceError(
                f"{entry.path}: not an image file in the {what} {folder}; expected only "
                f"images (.jpg, .png, .bmp, .tif, ...); move it elsewhere"
            )
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
            raise SourceError(
                f"{p}: frame number {n} is also that of {seen[n].name} in the {what} "
                f"{p.parent}; expected one image per frame number (move one elsewhere)"
            )
        seen[n] = p
    return [n for n in numbers if n is not None]  # all of them: none is missing here


def _mixed_numbering(images: list[Path], numbers: list, what: str) -> str:
    """The one-line message for a folder where only some names end in a frame number: it names the
    first file of the smaller group (the unnumbered one on a tie) and an example of the other."""
    plain = [p for p, n in zip(images, numbers) if n is None]
    numbered = [p for p, n in zip(images, numbers) if n is not None]
    odd, others = (plain, numbered) if len(plain) <= len(numbered) else (numbered, plain)
    has = "has no frame number at the end of its name" if odd is plain else "ends in a frame number"
    many = len(others) != 1
    have = ("have" if many else "has") + (" one" if odd is plain else " none")
    return (
        f"{odd[0]}: {has}, while {len(others)} other image{'s' if many else ''} of the {what} "
        f"{odd[0].parent} {have} (e.g. {others[0].name}); expected every image numbered "
        f"(in000123.jpg) or none, so that frames are not renumbered; move it elsewhere"
    )


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
