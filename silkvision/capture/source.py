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
import threading
import weakref
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture.checks import check_index, check_max_frames, check_resize
from silkvision.capture.groundtruth import GroundTruth
from silkvision.capture.images import to_bgr
from silkvision.errors import BadFrame, SourceError

__all__ = ["Source"]

_open_sources: weakref.WeakSet[Source] = weakref.WeakSet()  # for _renew_locks_after_fork


def _renew_locks_after_fork() -> None:
    """In a forked child: a lock that another thread of the parent held stays held for ever there,
    so every source gets a new one."""
    for src in list(_open_sources):
        src._io = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_renew_locks_after_fork)


class Source:
    """Base class of all capture sources (see :func:`silkvision.capture.open_source`).

    Attributes
    ----------
    kind : str
        ``"camera"``, ``"stream"``, ``"video"``, ``"folder"`` or ``"cdnet"``.
    name : str
        Short name (folder or file stem, ``"camera0"``).
    fps : float or None
        Frame rate when known.
    first_index : int
        Number of the first frame.
    seekable : bool
        Whether :meth:`seek` and :meth:`read` work.
    on_status : callable or None
        Set by the caller to receive one-line notes about the source's state while it is read (a
        stream that dropped and came back); only a stream sends any.
    """

    kind = ""
    seekable = False
    on_status: Callable[[str], None] | None = None

    def __init__(self, name: str, *, resize=None, max_frames=None, groundtruth=None):
        self.name = name
        self.resize = check_resize(resize)
        self.max_frames = check_max_frames(max_frames)
        self.fps: float | None = None
        self.first_index = 1
        self._native: tuple[int, int] | None = None  # (w, h) of the frames as stored
        self._native_from = ""  # which frame set _native (for messages)
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
        return self._gt.read(index, self.native_size, self.resize)  # a video's: header size first

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
        assert labels is not None  # the first frame with a mask file
        self.roi  # a CDnet ROI.bmp of the wrong size is refused now too
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
            try:
                return index, self._prepare(frame, where)
            except SourceError as e:  # another size than the frames before: this frame only
                raise BadFrame(str(e), index) from None

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
                raise SourceError(
                    f"{self.spec}: there is no frame {index}; expected a frame number in "
                    f"{self.first_index}..{last if last is not None else '?'}"
                ) from None
            return frame

    def _prepare(self, frame: np.ndarray, where: str) -> np.ndarray:
        frame = to_bgr(frame)
        size = (frame.shape[1], frame.shape[0])
        if self._native is None:
            self._native, self._native_from = size, where
        elif size != self._native:
            raise SourceError(
                f"{where}: frame size {size[0]}x{size[1]} differs from "
                f"{self._native[0]}x{self._native[1]} of {self._native_from}; expected "
                f"all frames to have the same size"
            )
        if self.resize is not None and size != self.resize:
            frame = cv2.resize(frame, self.resize, interpolation=cv2.INTER_AREA)
        return frame

    def _check_roi_size(self, mask: np.ndarray, path: Path) -> np.ndarray:
        if self._native is not None and (mask.shape[1], mask.shape[0]) != self._native:
            raise SourceError(
                f"{path}: ROI is {mask.shape[1]}x{mask.shape[0]} but the frames are "
                f"{self._native[0]}x{self._native[1]}; expected the frame size"
            )
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
        return f"<{type(self).__name__} {self.spec!r} {size} frames={self.frame_count} fps={self.fps}>"
