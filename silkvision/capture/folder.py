"""Image-folder sources: a folder of frames, and a CDnet sequence folder (``input/in%06d.jpg``)."""

from __future__ import annotations

import bisect
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture.checks import check_index
from silkvision.capture.images import list_images, number_images, read_image
from silkvision.capture.source import Source
from silkvision.errors import BadFrame, SourceError

__all__ = ["FolderSource"]


class FolderSource(Source):
    """Frames read from the image files of a folder, in natural name order.

    Frame numbers are the trailing numbers of the file names (``in000123.jpg`` -> 123,
    ``frame_7.png`` -> 7); when no name ends in a number, the 1-based position in natural name
    order. A folder where only some names end in a number, or where two names end in the same
    number, is an error naming the odd file (see :func:`~silkvision.capture.images.number_images`):
    frames are never silently renumbered. Hidden files, sub-folders, ``Thumbs.db`` and
    ``desktop.ini`` are skipped; any other non-image file is an error (named). The first image is
    read when the source opens, so its size is known at once.

    Parameters
    ----------
    folder : path
        The image folder.
    resize, max_frames, groundtruth
        See :func:`silkvision.capture.open_source`.
    """

    kind = "folder"
    seekable = True

    def __init__(self, folder, *, resize=None, max_frames=None, groundtruth=None, name=None):
        self.folder = Path(folder)
        images = list_images(self.folder)
        pairs = sorted(zip(number_images(images), images))
        super().__init__(
            name or self.folder.resolve().name, resize=resize, max_frames=max_frames, groundtruth=groundtruth
        )
        if self.max_frames is not None:
            pairs = pairs[: self.max_frames]
        self._indices = [i for i, _ in pairs]
        self._paths = [p for _, p in pairs]
        self.first_index = self._indices[0]
        self._pos = 0  # position in _indices of the next frame
        first = read_image(self._paths[0], cv2.IMREAD_COLOR, "an image")
        self._prepare(first, str(self._paths[0]))

    @property
    def spec(self) -> str:
        return str(self.folder)

    @property
    def frame_count(self) -> int:
        return len(self._indices)

    @property
    def indices(self) -> list[int]:
        """Frame numbers of all frames, in order."""
        return list(self._indices)

    def path(self, index: int) -> Path:
        """The file holding frame ``index``."""
        return self._paths[self._position(index)]

    def _position(self, index: int) -> int:
        index = check_index(index)
        k = bisect.bisect_left(self._indices, index)
        if k == len(self._indices) or self._indices[k] != index:
            raise SourceError(
                f"{self.spec}: there is no frame {index}; expected a frame number in "
                f"{self._indices[0]}..{self._indices[-1]}"
            )
        return k

    def seek(self, index: int) -> None:
        with self._io:
            if self._closed:
                raise SourceError(f"{self.spec}: source is closed")
            if check_index(index) == self._indices[-1] + 1:  # just past the end: iteration stops
                self._pos = len(self._indices)
                return
            self._pos = self._position(index)

    def read(self, index: int) -> np.ndarray:
        with self._io:
            if self._closed:
                raise SourceError(f"{self.spec}: source is closed")
            self._pos = self._position(index)
            return next(self)[1]

    def _next(self):
        if self._pos >= len(self._paths):
            raise StopIteration
        path = self._paths[self._pos]
        index = self._indices[self._pos]
        try:
            frame = read_image(path, cv2.IMREAD_COLOR, "an image")
        except SourceError as e:
            raise BadFrame(str(e), index) from None
        self._pos += 1
        return index, frame, str(path)
