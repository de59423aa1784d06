"""Output-file writers of an export: mask PNGs, scores ``.npz`` files and the mask video.

Every file is written atomically (see :mod:`silkvision.io.atomic`); a write error (disk full, ...)
is a one-line :class:`~silkvision.errors.ExportError`.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture.opencv import open_capture, opencv_alias, utf8_path
from silkvision.errors import ExportError
from silkvision.io.atomic import atomic_write_bytes, reported_write_errors
from silkvision.io.npz import save_npz

__all__ = [
    "mask_name",
    "scores_name",
    "write_mask_png",
    "write_scores_npz",
    "MaskVideoWriter",
    "VIDEO_CODECS",
]

#: (fourcc, extension) of lossless grey video codecs, in order of preference.
VIDEO_CODECS = (("FFV1", ".mkv"), ("png ", ".avi"), ("HFYU", ".avi"))


def mask_name(index: int) -> str:
    """``bin%06d.png``: CDnet's result naming."""
    return f"bin{int(index):06d}.png"


def scores_name(index: int) -> str:
    return f"scores{int(index):06d}.npz"


def write_mask_png(path, mask: np.ndarray) -> Path:
    """Write a mask as a grey 0/255 PNG, atomically.

    Parameters
    ----------
    path : path-like
        The file to write; its name must end in ``.png``.
    mask : ndarray
        Non-empty HxW mask: ``uint8`` with only the values 0 and 255, or ``bool`` (written as
        0/255).

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        ``path`` does not end in ``.png``, or ``mask`` is not a mask as above (named in the message).
    ExportError
        The file cannot be written (disk full, ...).
    """
    if Path(path).suffix.lower() != ".png":
        raise ValueError(f"path: {str(path)!r} does not end in .png; expected a .png file name")
    mask = np.asarray(mask)
    what = f"mask for {path}"
    if mask.ndim != 2 or mask.size == 0:
        raise ValueError(f"{what}: shape {mask.shape}; expected a non-empty HxW array")
    if mask.dtype == bool:
        mask = np.where(mask, np.uint8(255), np.uint8(0))
    elif mask.dtype != np.uint8:
        raise ValueError(f"{what}: dtype {mask.dtype}; expected uint8 with values 0/255, or bool")
    elif not np.all((mask == 0) | (mask == 255)):
        bad = np.unique(mask[(mask != 0) & (mask != 255)])
        shown = ", ".join(str(int(v)) for v in bad[:6]) + (", ..." if bad.size > 6 else "")
        raise ValueError(
            f"{what}: values {shown}; expected a uint8 mask with only 0 and 255 (or a bool mask)"
        )
    ok, buf = cv2.imencode(".png", mask)
    if not ok:  # pragma: no cover - cv2 always encodes uint8 PNG
        raise ExportError(f"{path}: PNG encoding failed")
    with reported_write_errors(path):
        return atomic_write_bytes(Path(path), buf.tobytes())


def write_scores_npz(path, scores: np.ndarray) -> Path:
    """Write the scores of one frame as ``.npz`` (member ``scores``, float16, compressed),
    atomically; a write error (disk full, ...) is a one-line :class:`ExportError`."""
    with reported_write_errors(path):
        return save_npz(Path(path), {"scores": np.asarray(scores).astype(np.float16)})


def _count_frames(path: Path) -> int:
    """Frames that OpenCV can read back from the video ``path`` (0 if it cannot be opened)."""
    cap = open_capture(str(path), cv2.CAP_FFMPEG)
    try:
        n = 0
        while cap.isOpened() and cap.grab():
            n += 1
        return n
    finally:
        cap.release()


class MaskVideoWriter:
    """Lossless grey mask video, written to a hidden partial file and renamed when finished.

    Uses the first codec of :data:`VIDEO_CODECS` this OpenCV build can write (FFV1 in Matroska
    with opencv-python-headless). OpenCV's FFmpeg writer drops the last column or row of an odd
    width or height, so such masks are padded with background (0) to even ``video_size``
    (``padded`` is then True); the video's top-left ``size`` is the masks.
    """

    def __init__(self, out_dir: Path, size: tuple[int, int], fps: float):
        self.size = tuple(size)
        w, h = self.size
        self.video_size = (w + w % 2, h + h % 2)
        self.padded = self.video_size != self.size
        self._pad = np.zeros(self.video_size[::-1], np.uint8) if self.padded else None
        self.frames = 0
        # a folder name OpenCV cannot take (not UTF-8) is reached through a link, kept while writing
        self._links = contextlib.ExitStack()
        folder = str(out_dir) if utf8_path(out_dir) else self._links.enter_context(opencv_alias(out_dir))
        writer: cv2.VideoWriter | None = None
        for fourcc, ext in VIDEO_CODECS:
            partial = Path(out_dir) / f".masks.partial{ext}"
            vw = cv2.VideoWriter(
                os.path.join(folder, partial.name),
                cv2.CAP_FFMPEG,
                cv2.VideoWriter.fourcc(*fourcc),
                float(fps),
                self.video_size,
                False,
            )
            if vw.isOpened():
                writer, self.partial, self.fourcc = vw, partial, fourcc.strip()
                self.path = Path(out_dir) / f"masks{ext}"
                break
            vw.release()
            partial.unlink(missing_ok=True)
        if writer is None:
            self._links.close()
            raise ExportError(
                f"{out_dir}: this OpenCV build cannot write a lossless video "
                f"(tried FFV1, PNG and HuffYUV); drop --video"
            )
        self._writer: cv2.VideoWriter = writer

    def write(self, mask: np.ndarray) -> None:
        if self._pad is not None:
            h, w = mask.shape
            self._pad[:h, :w] = mask
            mask = self._pad
        self._writer.write(mask)
        self.frames += 1

    def finish(self) -> Path:
        """Close the video, check that every frame written reads back, and move it into place.

        OpenCV's writer does not report failed writes (a full disk), so the check is what tells a
        truncated video from a complete one.

        Raises
        ------
        ExportError
            Fewer frames read back than were written; the partial file is removed, so that no
            truncated ``masks.mkv`` is published (a re-run rebuilds it from the masks on disk).
        """
        self._writer.release()
        self._links.close()
        readable = _count_frames(self.partial)
        if readable != self.frames:
            self.partial.unlink(missing_ok=True)
            raise ExportError(
                f"{self.path}: only {readable} of the {self.frames} frames written "
                f"read back (disk full?); the video was not kept: free space and run "
                f"the same command again to rebuild it from the masks"
            )
        with reported_write_errors(self.path):
            os.replace(self.partial, self.path)
        return self.path

    def abandon(self) -> None:
        """Close without publishing and remove the partial file (an interrupted export rebuilds
        the video from the masks on disk when it resumes)."""
        self._writer.release()
        self._links.close()
        try:
            self.partial.unlink(missing_ok=True)
        except OSError:  # pragma: no cover - best effort; a re-run removes it too
            pass
