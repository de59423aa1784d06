"""Mask post-processing shared by every detector."""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["median_mask"]


def median_mask(mask: np.ndarray, size: int, out: np.ndarray | None = None) -> np.ndarray:
    """Median filter of a 0/255 uint8 mask with a ``size`` x ``size`` window (0 or 1 = no filter).

    Parameters
    ----------
    mask : ndarray
        HxW uint8 mask.
    size : int
        0 (off) or an odd window size >= 3.
    out : ndarray, optional
        Preallocated HxW uint8 output (may not be ``mask`` itself).

    Returns
    -------
    ndarray
        The filtered mask (``out`` if given).
    """
    if size in (0, 1):
        if out is None:
            return mask.copy()
        np.copyto(out, mask)
        return out
    if size < 3 or size % 2 == 0:
        raise ValueError(f"median: {size!r} must be 0 or an odd integer >= 3")
    if out is None:
        return cv2.medianBlur(mask, size)
    return cv2.medianBlur(mask, size, dst=out)
