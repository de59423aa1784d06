"""The output folder of an export: which files are ours, preparing it for a run, and its lock."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from silkvision.errors import ExportError
from silkvision.io.manifest import MANIFEST, read_manifest

__all__ = ["LOCK", "is_export_output", "prepare_folder", "FolderLock"]

LOCK = ".export.lock"
_OURS = re.compile(
    r"^(bin\d+\.png|scores\d+\.npz|config\.yaml|export\.json|checkpoint\.npz|"
    r"masks\.(mkv|avi)|\.masks\.partial\.(mkv|avi)|\.export\.lock|\..+\.tmp)$"
)


def is_export_output(name: str) -> bool:
    """Whether a file name is one that an export writes (or leaves behind when killed)."""
    return bool(_OURS.match(name))


class FolderLock:
    """An exclusive ``flock`` on ``DIR/.export.lock`` so two exports cannot write one folder (the
    kernel drops it when the process dies, even by SIGKILL). No-op where fcntl is missing.

    A symbolic link at that path is refused, not followed: following it would create (or lock)
    whatever file it names.

    The file is removed when the lock is released. An export that opened it just before that
    removal could then lock the removed file while a third one locks a new one; so a lock only
    counts when the file locked is still the one at ``DIR/.export.lock``, else it is taken again.
    """

    def __init__(self, out: Path):
        self.path = out / LOCK
        self._f = None

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return
        while True:
            try:
                f = _open_lock(self.path)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.EMLINK) and self.path.is_symlink():
                    raise ExportError(
                        f"{self.path}: is a symbolic link, not the lock file of an "
                        f"export; remove it and run again"
                    ) from None
                raise ExportError(f"{self.path.parent}: cannot create the lock file ({e.strerror})") from None
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                raise ExportError(
                    f"{self.path.parent}: another silkvision export is writing to this "
                    f"folder; wait for it or choose another --out"
                ) from None
            if self._still_there(f):
                self._f = f
                return
            f.close()  # locked a file its holder removed on release: take the lock of the new one

    def _still_there(self, f) -> bool:
        try:
            return os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
        except OSError:
            return False

    def release(self) -> None:
        if self._f is not None:
            self.path.unlink(missing_ok=True)
            self._f.close()
            self._f = None

    def __enter__(self) -> FolderLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _open_lock(path: Path):
    """Open (create) the lock file without following a symbolic link (OSError ELOOP then; EMLINK
    on some BSDs)."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o666)
    try:
        return os.fdopen(fd, "a+")
    except BaseException:
        os.close(fd)
        raise


def prepare_folder(out: Path, overwrite: bool) -> dict | None:
    """Check the output folder (we hold its lock) and clear what a run must not find there.

    Temporary files of a killed run (and links at their names) are removed; with ``overwrite``, so
    are all files an export writes (others are left alone).

    Returns
    -------
    dict or None
        The manifest of the export found there (to resume or to find complete), else None.

    Raises
    ------
    ExportError
        The folder cannot be listed, holds files an export did not write and no manifest, or
        files of ours without a manifest.
    """
    try:
        names = sorted(os.listdir(out))
    except OSError as e:
        raise ExportError(f"{out}: cannot create or list the output folder ({e.strerror})") from None
    ours = [n for n in names if is_export_output(n) and (out / n).is_file()]
    foreign = [n for n in names if n not in ours and not n.startswith(".")]
    for n in names:  # temporary files of a killed run (we hold the folder's lock), or links planted
        p = out / n  # at their names, which the video writer would follow
        if n.startswith(".") and n != LOCK and is_export_output(n) and (p.is_symlink() or p.is_file()):
            p.unlink(missing_ok=True)
    ours = [n for n in ours if not n.startswith(".")]
    if overwrite:
        for n in ours:
            (out / n).unlink(missing_ok=True)
        return None
    if foreign and MANIFEST not in ours:  # beside an export of ours, its manifest decides
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        raise ExportError(
            f"{out}: output folder holds {foreign[0]!r}{more}, which an export did not "
            f"write; choose an empty folder or add --overwrite"
        )
    if MANIFEST in ours:
        return read_manifest(out)
    if ours:
        raise ExportError(
            f"{out}: holds {ours[0]!r} but no {MANIFEST}, so it is not a resumable "
            f"export; choose an empty folder or add --overwrite"
        )
    return None


def count_outputs(out: Path, prefix: str = "bin", ext: str = ".png") -> int:
    """Number of ``PREFIX<digits>EXT`` files in ``out`` (masks by default, or scores files)."""
    return sum(
        1 for p in out.glob(f"{prefix}[0-9]*{ext}") if p.stem[len(prefix) :].isdecimal() and p.is_file()
    )
