"""Ground truth: folders of masks paired with frames by frame number."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from silkvision.capture.checks import check_index
from silkvision.capture.images import list_images, number_images, read_image
from silkvision.errors import SourceError

__all__ = ["GroundTruth", "to_labels"]


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
            what = (
                "is a file, not a folder"
                if self.folder.is_file()
                else "is not a folder"
                if self.folder.exists()
                else "ground-truth folder not found"
            )
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

    def read(
        self, index: int, size: tuple[int, int] | None = None, resize: tuple[int, int] | None = None
    ) -> np.ndarray | None:
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
            raise SourceError(
                f"{path}: ground truth is {gt.shape[1]}x{gt.shape[0]} but the frames are "
                f"{size[0]}x{size[1]}; expected the frame size"
            )
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
