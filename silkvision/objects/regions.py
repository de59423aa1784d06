"""The connected foreground regions of one mask (:func:`skimage.measure.label` and
:func:`skimage.measure.regionprops`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from skimage.measure import label, regionprops

__all__ = ["Region", "find_regions"]


@dataclass(frozen=True)
class Region:
    """One connected foreground region, in pixels of the mask.

    Attributes
    ----------
    area : int
        Foreground pixels in the region.
    x, y, width, height : int
        Bounding box: left column, top row, and its size (OpenCV's ``(x, y, w, h)``).
    cx, cy : float
        Centroid (column, row).
    """

    area: int
    x: int
    y: int
    width: int
    height: int
    cx: float
    cy: float


def find_regions(mask: np.ndarray, min_area: int = 1, connectivity: int = 2) -> list[Region]:
    """The connected foreground regions of ``mask`` with at least ``min_area`` pixels.

    Parameters
    ----------
    mask : ndarray
        HxW mask; foreground where it is non-zero (the 0/255 masks silkvision writes).
    min_area : int
        Smallest region kept, in pixels (speckle below it is left out).
    connectivity : int
        1: regions connect through edges (4-neighbours); 2: also through corners (8-neighbours).

    Returns
    -------
    list of Region
        In the order of their first pixel in a row-by-row scan (deterministic).
    """
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise ValueError(f"mask: expected an HxW array, got shape {mask.shape}")
    labels = label(mask > 0, connectivity=connectivity)
    out = []
    for p in regionprops(labels):
        if p.area < min_area:
            continue
        r0, c0, r1, c1 = p.bbox  # max row/column exclusive
        cy, cx = p.centroid
        out.append(Region(int(p.area), int(c0), int(r0), int(c1 - c0), int(r1 - r0), float(cx), float(cy)))
    return out
