"""Mask post-processing shared by every detector: median filter, closing, hole filling.

The three steps run in this order on the raw 0/255 mask (:class:`MaskFilter`); each can be switched
off. Closing and hole filling are the usual CDnet post-processing (SuBSENSE and PAWCS close and fill
their masks): they recover the inside of an object whose colour the pixel model already explains
(a grey car on a grey road). ``docs/BENCHMARKS.md`` section 2 has how they were chosen.
Plain NumPy references of the median, closing and hole filling are in
:mod:`silkvision.detector.reference`. The default pair (5x5 median, then 5x5 closing) runs as one
numba kernel, :mod:`silkvision.detector.mask_kernels`, which gives the same masks as the OpenCV
calls below, in about half the time behind the SILK kernel; other sizes use OpenCV.
"""

from __future__ import annotations

import cv2
import numpy as np

from silkvision.config.schema import FILTER_SIZES
from silkvision.detector.mask_kernels import MedianClose5, check_mask_out, checked_mask_pair, run_into

__all__ = [
    "median_mask",
    "close_mask",
    "fill_holes",
    "MaskFilter",
    "NO_POSTPROCESSING",
    "check_mask_out",
    "check_filter_size",
    "scaled_filter_size",
    "MAX_FILTER_SIZE",
]

#: detector keys that switch the whole chain off: the returned mask is the raw ``score < threshold``
NO_POSTPROCESSING = {"median": 0, "close": 0, "fill_holes": False}


#: largest median / closing size (the config schema's ``detector.median`` / ``detector.close`` rule)
MAX_FILTER_SIZE = max(FILTER_SIZES)


def check_filter_size(name: str, size) -> int:
    """A median or closing size as an int: 0 (off) or an odd integer 3..15, the rule of the config
    schema (``detector.median``, ``detector.close``). Python and NumPy integers are accepted; bools,
    floats (even ``5.0``), 1 and everything else raise ``ValueError`` naming ``name``.

    The one check of every entry point: :class:`MaskFilter` (so the OpenCV baselines too), the
    SILK/NORMA parameters, :func:`median_mask` and :func:`close_mask`.
    """
    if (
        isinstance(size, (bool, np.bool_))
        or not isinstance(size, (int, np.integer))
        or int(size) not in FILTER_SIZES
    ):
        raise ValueError(f"{name}: {size!r} must be 0 (off) or an odd integer 3..{MAX_FILTER_SIZE}")
    return int(size)


def scaled_filter_size(size: int, width: int, filter_width: int) -> int:
    """The window for a frame ``width`` pixels wide of a median or closing of ``size`` chosen for
    frames ``filter_width`` wide: ``size width / filter_width`` rounded to the nearest odd integer,
    never smaller than ``size`` and at most :data:`MAX_FILTER_SIZE`. ``size`` itself when it is 0
    (off), when ``filter_width`` is 0 or when the frame is not wider.

    A window covers the same share of the scene at every frame size: flicker and noise that a 5x5
    median removes at 320x240 are 11 pixels across at 720x540.
    """
    if size == 0 or filter_width <= 0 or width <= filter_width:
        return size
    odd = 2 * int(np.floor((size * width / filter_width - 1) / 2 + 0.5)) + 1
    return min(max(odd, size), MAX_FILTER_SIZE)


def _is_off(name: str, size) -> bool:
    """True for size 0 (step off); ``ValueError`` naming ``name`` unless :func:`check_filter_size`
    accepts ``size``."""
    return check_filter_size(name, size) == 0


def _copy(mask: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    if out is None:
        return mask.copy()
    if out is not mask:
        np.copyto(out, mask)
    return out


def median_mask(
    mask: np.ndarray, size: int, out: np.ndarray | None = None, work: np.ndarray | None = None
) -> np.ndarray:
    """Median filter of a 0/255 uint8 mask with a ``size`` x ``size`` window (0 = no filter).

    Equal to ``cv2.medianBlur``. For sizes >= 5 it counts the foreground pixels of every window with
    a box filter instead (the median of a binary window is 255 iff more than half of it is 255; both
    use replicated borders): 43 us instead of 200 us for 5x5 at 320x240 here.

    Parameters
    ----------
    mask : ndarray
        HxW uint8 mask.
    size : int
        0 (off) or an odd window size 3..15 (:func:`check_filter_size`; ``ValueError`` naming
        ``median`` otherwise).
    out : ndarray, optional
        Preallocated HxW uint8 output (may not be ``mask`` itself).
    work : ndarray, optional
        Preallocated HxW uint16 buffer for the window counts (sizes >= 5).

    Returns
    -------
    ndarray
        The filtered mask (``out`` if given).
    """
    if _is_off("median", size):
        return _copy(mask, out)
    if size >= 5:
        box = cv2.boxFilter(
            mask, cv2.CV_16U, (size, size), dst=work, normalize=False, borderType=cv2.BORDER_REPLICATE
        )
        thr = (size * size // 2 + 1) * 255 - 1
        if box.size < 4:  # cv2.compare takes a 1x1..1x3 array for a scalar
            res = np.where(box > thr, 255, 0).astype(np.uint8)
            return res if out is None else _copy(res, out)
        # cv2 takes a scalar for src2; its stubs accept only arrays
        return cv2.compare(box, thr, cv2.CMP_GT, dst=out)  # type: ignore[call-overload]
    if out is None:
        return cv2.medianBlur(mask, size)
    return cv2.medianBlur(mask, size, dst=out)


def closing_footprint(size: int) -> np.ndarray:
    """The ``size`` x ``size`` elliptic structuring element of :func:`close_mask` (uint8 0/1)."""
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))


def close_mask(
    mask: np.ndarray, size: int, out: np.ndarray | None = None, footprint: np.ndarray | None = None
) -> np.ndarray:
    """Morphological closing (dilation, then erosion) of a 0/255 mask with a ``size`` x ``size``
    ellipse (0 = off). Pixels outside the image neither dilate nor erode (OpenCV's default border).

    Parameters
    ----------
    mask : ndarray
        HxW uint8 0/255 mask.
    size : int
        0 (off) or an odd size 3..15 (:func:`check_filter_size`; ``ValueError`` naming ``close``
        otherwise).
    out : ndarray, optional
        Preallocated HxW uint8 output (may be ``mask`` itself).
    footprint : ndarray, optional
        ``closing_footprint(size)``, made once by the caller (default: made here).
    """
    if _is_off("close", size):
        return _copy(mask, out)
    if footprint is None:
        footprint = closing_footprint(size)
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, footprint, dst=out)


def fill_holes(mask: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Fill the holes of a 0/255 mask: background regions (4-connected) that do not touch the image
    border become foreground. Equal to :func:`scipy.ndimage.binary_fill_holes` (tested against the
    NumPy reference :func:`silkvision.detector.reference.fill_holes_reference`).

    The boundaries of the holes are the inner contours of a two-level contour search
    (``cv2.RETR_CCOMP``, foreground 8-connected); each is drawn filled. This costs about a sixth of a
    flood fill of the background from the border on highway's masks (26 vs 157 us at 320x240).

    Parameters
    ----------
    mask : ndarray
        HxW uint8 0/255 mask.
    out : ndarray, optional
        Preallocated HxW uint8 output (may be ``mask`` itself).
    """
    out = _copy(mask, out)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    if hierarchy is not None:
        for c, h in zip(contours, hierarchy[0]):
            if h[3] >= 0:  # a child: a hole's boundary. One at a time: contours drawn in one call
                # are filled together by parity, so the hole of an island inside a hole cancelled out
                cv2.drawContours(out, [c], -1, 255, cv2.FILLED)
    return out


class MaskFilter:
    """The post-processing chain of a detector: ``median`` -> ``close`` -> ``fill_holes``.

    Buffers are allocated for the first mask and kept while the size stays the same, so calling the
    filter on every frame allocates nothing but its result (pass ``out`` to avoid that too).

    Parameters
    ----------
    median : int
        0 (off) or an odd median window size 3..15.
    close : int
        0 (off) or an odd size 3..15 of the elliptic closing element.
    fill_holes : bool
        Fill enclosed background regions.
    filter_width : int
        ``median`` and ``close`` are sizes for frames this wide; a wider frame gets windows grown
        in proportion (:func:`scaled_filter_size`). 0 (the default here; the detectors' default is
        the config schema's, 320): the sizes as given at every frame size.

    Both sizes are checked with :func:`check_filter_size` (the config schema's rule; 1, bools and
    floats raise ``ValueError`` naming the parameter).
    """

    def __init__(self, median: int = 0, close: int = 0, fill_holes: bool = False, filter_width: int = 0):
        median, close = check_filter_size("median", median), check_filter_size("close", close)
        if not isinstance(fill_holes, (bool, np.bool_)):
            raise ValueError(f"fill_holes: {fill_holes!r} must be true or false")
        if (
            isinstance(filter_width, (bool, np.bool_))
            or not isinstance(filter_width, (int, np.integer))
            or filter_width < 0
        ):
            raise ValueError(f"filter_width: {filter_width!r} must be an integer >= 0")
        self.median, self.close, self.fill_holes = median, close, bool(fill_holes)
        self.filter_width = int(filter_width)
        self._shape = None
        self._sized_for = None  # the frame width the windows below were sized for
        self._set_sizes(self.median, self.close)

    def _set_sizes(self, median: int, close: int) -> None:
        self._median_now, self._close_now = median, close
        # a 5x5 median + 5x5 closing: one numba kernel, the same result, faster
        self._fused = MedianClose5() if (median, close) == (5, 5) else None
        self._footprint = closing_footprint(close) if close else None

    def sizes_for(self, width: int) -> tuple[int, int]:
        """The median and closing windows used on frames ``width`` pixels wide."""
        return (
            scaled_filter_size(self.median, width, self.filter_width),
            scaled_filter_size(self.close, width, self.filter_width),
        )

    @property
    def identity(self) -> bool:
        """True when the chain leaves every mask as it is."""
        return self.median == 0 and self.close == 0 and not self.fill_holes

    def _buffers(self, shape) -> None:
        if self._shape != shape:
            H, W = shape
            self._box = np.zeros((H, W), np.uint16)
            self._shape = shape

    def __call__(self, raw: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The post-processed copy of the 0/255 mask ``raw`` (``out`` if given; ``raw`` is not changed).

        Parameters
        ----------
        raw : ndarray
            (H, W) uint8 0/255 mask.
        out : ndarray, optional
            Writeable (H, W) uint8 output that does not overlap ``raw`` (``ValueError`` naming
            ``out`` otherwise). Any layout: a non-C-contiguous ``out`` (``canvas[:, :W]``, a
            Fortran-order array) receives a copy of the mask computed in a temporary buffer.
        """
        out = checked_mask_pair(raw, out, "out: must not be (or overlap) the input mask itself")
        return run_into(self._run, raw, out)  # OpenCV and the kernel write C-contiguous arrays

    def _run(self, raw: np.ndarray, out: np.ndarray) -> np.ndarray:
        """The chain without the checks of :meth:`__call__`: ``out`` C-contiguous, not ``raw``."""
        width = raw.shape[1]
        if width != self._sized_for:
            self._sized_for = width
            sizes = self.sizes_for(width)
            if sizes != (self._median_now, self._close_now):
                self._set_sizes(*sizes)
        if self._fused is not None:
            self._fused.run(raw, out)  # MedianClose5's own checks were made above
        else:
            self._buffers(raw.shape)
            median_mask(raw, self._median_now, out=out, work=self._box)
            if self._close_now:
                close_mask(out, self._close_now, out=out, footprint=self._footprint)
        if self.fill_holes:
            fill_holes(out, out=out)
        return out

    def __repr__(self) -> str:
        return (
            f"MaskFilter(median={self.median}, close={self.close}, fill_holes={self.fill_holes}, "
            f"filter_width={self.filter_width})"
        )
