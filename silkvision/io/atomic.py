"""Atomic file writes: write to a temporary file in the same folder, fsync, then ``os.replace``.

A reader (or a resumed export) therefore sees either the old file or the complete new one, never a
truncated file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from silkvision.errors import SilkvisionError

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "atomic_write_with",
    "reported_write_errors",
    "output_path",
    "make_output_folder",
    "check_writable_folder",
]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()  # what open() would give a new file (mkstemp itself gives 0600)


def atomic_write_with(path: Path, writer: Callable[[str], None], suffix: str = "") -> Path:
    """Call ``writer(tmp_path)`` to produce the file, then move it into place atomically.

    The file gets the usual permissions of a new file (0666 less the umask).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=suffix + ".tmp", dir=path.parent)
    os.close(fd)
    try:
        writer(tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, _MODE)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""

    def _w(tmp):
        with open(tmp, "wb") as f:
            f.write(data)

    return atomic_write_with(Path(path), _w)


def atomic_write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically. Surrogate escapes (bytes of a file name that
    are not UTF-8, as Python decodes them) are written back as those bytes."""
    return atomic_write_bytes(path, text.encode("utf-8", errors="surrogateescape"))


def _reason(err: OSError) -> str:
    return err.strerror or str(err) or type(err).__name__


@contextmanager
def reported_write_errors(path, error: type[SilkvisionError] | None = None) -> Iterator[None]:
    """Turn an ``OSError`` raised inside the block (disk full, read-only file system, ...) into the
    one-line user error ``PATH: cannot write (REASON)``.

    ``error`` is the :class:`~silkvision.errors.SilkvisionError` subclass to raise (default:
    :class:`~silkvision.errors.ExportError`). The atomic writers above leave no temporary file behind.
    """
    if error is None:
        from silkvision.errors import ExportError

        error = ExportError
    try:
        yield
    except OSError as e:
        raise error(f"{path}: cannot write ({_reason(e)})") from None


def output_path(folder, error: type[SilkvisionError] | None = None) -> Path:
    """``folder`` as an output folder path (``~`` expanded), checked before anything is opened:
    ``error`` (default :class:`~silkvision.errors.ExportError`) naming it when it is empty (it would
    mean the current folder) or a link that leads nowhere or to itself."""
    if error is None:
        from silkvision.errors import ExportError

        error = ExportError
    if str(folder) == "":
        raise error("'': empty output folder name; expected a folder path")
    from silkvision.io.paths import expand_user, link_problem

    folder = expand_user(folder, error)
    problem = link_problem(folder)
    if problem:
        raise error(f"{folder}: {problem}; expected an output folder")
    return folder


def make_output_folder(folder, error: type[SilkvisionError] | None = None) -> Path:
    """Create the output ``folder`` (with its parents) if needed; raise ``error`` (a one-line
    :class:`~silkvision.errors.SilkvisionError`, default :class:`~silkvision.errors.ExportError`)
    naming it when it is a file or cannot be created. An empty path is refused (it would mean the
    current folder)."""
    if error is None:
        from silkvision.errors import ExportError

        error = ExportError
    folder = output_path(folder, error)
    if folder.exists() and not folder.is_dir():
        raise error(f"{folder}: exists and is not a folder; expected an output folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise error(f"{folder}: cannot create the output folder ({_reason(e)})") from None
    return folder


def check_writable_folder(folder, error: type[SilkvisionError] | None = None) -> Path:
    """Create ``folder`` (with its parents) if needed and check that a file can be written in it,
    by creating and removing a temporary file; raise ``error`` (a one-line
    :class:`~silkvision.errors.SilkvisionError`, default :class:`~silkvision.errors.ExportError`)
    naming the folder otherwise. An empty path is refused (it would mean the current folder)."""
    if error is None:
        from silkvision.errors import ExportError

        error = ExportError
    folder = make_output_folder(folder, error)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".silkvision-write-check.", suffix=".tmp", dir=folder)
        try:
            os.write(fd, b"x")
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(tmp)
    except OSError as e:
        raise error(f"{folder}: cannot write in the output folder ({_reason(e)})") from None
    return folder
