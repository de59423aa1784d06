"""CDnet sequence folders: ``input/in%06d.jpg``, ``groundtruth/gt%06d.png``, ``ROI.bmp`` and
``temporalROI.txt`` (the layout of changedetection.net and of ``silkvision.samples.highway()``)."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture.folder import FolderSource
from silkvision.capture.images import not_a_file, read_image
from silkvision.errors import SourceError

__all__ = ["CdnetSource", "read_temporal_roi", "read_roi"]


def read_temporal_roi(path: Path) -> tuple[int, int]:
    """``(first, last)`` from a CDnet ``temporalROI.txt`` (two integers)."""
    path = Path(path)
    if not path.is_file():  # a FIFO would block, a folder or a broken link would read as absent
        raise SourceError(f"{path}: {not_a_file(path)}; expected a text file 'first last'")
    try:
        parts = path.read_text(encoding="utf-8-sig", errors="replace").split()  # -sig: Notepad's BOM
    except OSError as e:
        raise SourceError(f"{path}: cannot read ({e.strerror})") from None
    try:
        first, last = (int(p) for p in parts)
    except ValueError:
        raise SourceError(
            f"{path}: {' '.join(parts)[:40]!r} is not valid; expected two integers 'first last'"
        ) from None
    if not 1 <= first <= last:
        raise SourceError(f"{path}: range {first} {last} is not valid; expected 1 <= first <= last")
    return first, last


def read_roi(path: Path) -> np.ndarray:
    """HxW bool mask from a CDnet ``ROI.bmp``: non-black pixels are inside."""
    img = read_image(Path(path), cv2.IMREAD_GRAYSCALE, "an ROI mask image")
    return img > 0


class CdnetSource(FolderSource):
    """A CDnet sequence folder.

    Frames come from ``input/`` (numbered by file name, ``in000123.jpg`` -> 123), ground truth from
    ``groundtruth/`` (or the ``groundtruth`` argument), ``roi`` from ``ROI.bmp`` and
    ``temporal_roi`` from ``temporalROI.txt``; each of these is optional. ``roi`` and
    ``temporal_roi`` are read on first use.
    """

    kind = "cdnet"

    def __init__(self, folder, *, resize=None, max_frames=None, groundtruth=None):
        self.root = Path(folder)
        if groundtruth is None and (self.root / "groundtruth").is_dir():
            groundtruth = self.root / "groundtruth"
        super().__init__(
            self.root / "input",
            resize=resize,
            max_frames=max_frames,
            groundtruth=groundtruth,
            name=self.root.resolve().name,
        )
        self._roi = self._troi = None
        self._roi_read = self._troi_read = False

    @property
    def spec(self) -> str:
        return str(self.root)

    @property
    def roi(self) -> np.ndarray | None:
        if not self._roi_read:
            path = self.root / "ROI.bmp"
            # present (even as a broken link, a folder or a FIFO) means meant to count: read_roi
            # refuses what it cannot read rather than the whole frame being scored
            self._roi = self._check_roi_size(read_roi(path), path) if os.path.lexists(path) else None
            self._roi_read = self._native is not None  # its size is checked once frames have one
        return self._roi

    @property
    def temporal_roi(self) -> tuple[int, int] | None:
        if not self._troi_read:
            path = self.root / "temporalROI.txt"
            self._troi = read_temporal_roi(path) if os.path.lexists(path) else None
            self._troi_read = True
        return self._troi
