"""A digest of the files of an image-folder source up to a frame, so that an unfinished export can
resume from its checkpoint when only later files changed (a bad frame removed or replaced): the
frames after the checkpoint are exported again anyway.

The digest covers the first file's first :data:`~silkvision.io.manifest.FINGERPRINT_BYTES` and the
name and size of every file up to the frame, as the source's fingerprint does for all of them.
"""

from __future__ import annotations

import hashlib

from silkvision.capture import Source
from silkvision.io.checkpoint import indices_through
from silkvision.io.manifest import FINGERPRINT_BYTES

__all__ = ["SourcePrefix", "prefix_digest"]


def _has_files(src: Source) -> bool:
    return callable(getattr(src, "path", None)) and getattr(src, "indices", None) is not None


class SourcePrefix:
    """The running digest of the files of ``src`` read so far (frame by frame, in order).

    ``digest`` is None for a source whose frames are not files of their own (a video, a camera),
    or once a file could not be read (the digest is then unknown).
    """

    def __init__(self, src: Source):
        self.src = src
        self._h = None
        if _has_files(src):
            self._h = hashlib.sha256()
            try:
                with open(src.path(src.first_index), "rb") as f:  # type: ignore[attr-defined]
                    self._h.update(f.read(FINGERPRINT_BYTES))
            except OSError:
                self._h = None

    def add(self, index: int) -> None:
        """Take frame ``index``, the next one of the source, into the digest."""
        if self._h is None:
            return
        try:
            path = self.src.path(index)  # type: ignore[attr-defined]
            line = f"{path.name}\0{path.stat().st_size}\n"
        except OSError:
            self._h = None
            return
        self._h.update(line.encode("utf-8", "surrogateescape"))

    @property
    def digest(self) -> str | None:
        return None if self._h is None else self._h.copy().hexdigest()


def prefix_digest(src: Source, last: int) -> str | None:
    """The :class:`SourcePrefix` digest of the files of ``src`` up to frame ``last``."""
    prefix = SourcePrefix(src)
    for i in indices_through(src, last):
        prefix.add(i)
    return prefix.digest
