"""Atomic file writes: write to a temporary file in the same folder, fsync, then ``os.replace``.

A reader (or a resumed export) therefore sees either the old file or the complete new one, never a
truncated file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["atomic_write_bytes", "atomic_write_text", "atomic_write_with"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()   # what open() would give a new file (mkstemp itself gives 0600)


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
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))
