"""Mask post-processing shared by every detector."""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["median_mask"]


def median_mask(mask: np.ndarray, size: int, out: np.ndarray | None = None,
                work: np.ndarray | None = None) -> np.ndarray:
    """Median filter of a 0/255 uint8 mask with a ``size`` x ``size`` window (0 or 1 = no filter).

    Equal to ``cv2.medianBlur``. For sizes >= 5 it counts the foreground pixels of every window with
    a box filter instead (the median of a binary window is 255 iff more than half of it is 255; both
    use replicated borders): 43 us instead of 200 us for 5x5 at 320x240 here.

    Parameters
    ----------
    mask : ndarray
        HxW uint8 mask.
    size : int
        0 (off) or an odd window size >= 3.
    out : ndarray, optional
        Preallocated HxW uint8 output (may not be ``mask`` itself).
    work : ndarray, optional
        Preallocated HxW uint16 buffer for the window counts (sizes >= 5).

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
    if size >= 5:
        box = cv2.boxFilter(mask, cv2.CV_16U, (size, size), dst=work, normalize=False,
                            borderType=cv2.BORDER_REPLICATE)
        return cv2.compare(box, (size * size // 2 + 1) * 255 - 1, cv2.CMP_GT, dst=out)
    if out is None:
        return cv2.medianBlur(mask, size)
    return cv2.medianBlur(mask, size, dst=out)
