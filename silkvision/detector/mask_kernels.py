"""Numba kernel of the default mask chain's first two steps: 5x5 median filter, then 5x5 closing.

:func:`median5_close5` gives exactly what :func:`~silkvision.detector.postprocess.median_mask`
followed by :func:`~silkvision.detector.postprocess.close_mask` give with size 5 (OpenCV's
``boxFilter`` + ``compare`` and ``morphologyEx``), on 0/255 masks; ``tests/detector/test_mask_kernels.py``
checks it against both those and the NumPy references. It exists for speed: behind the SILK kernel,
whose state streams through the caches every frame, OpenCV's calls took about 95 us per 320x240
frame, this one about 47 us (BENCHMARKS section 1). Other sizes use OpenCV.

How
---
Three passes over the rows, each writing rows that the next pass reads around:

1. **Median** (replicated border): per row, the number of foreground pixels in each column of the
   5 rows around it (rows clamped), then the sum of 5 such counts along the row (ends replicated);
   foreground iff at least 13 of the 25 are (the median of a 0/255 window is 255 iff more than half
   of it is). Into ``med``, whose 2-pixel border is 0.
2. **Dilation** by the 5x5 ellipse of ``cv2.MORPH_ELLIPSE`` (rows y-1..y+1 over 5 columns, rows
   y-2 and y+2 the centre column only). Pixels outside the image never dilate: ``med``'s 0 border.
   Into ``dil``, whose 2-pixel border is 255.
3. **Erosion** by the same footprint; pixels outside the image never erode: ``dil``'s 255 border.
   Into ``out``.

Every inner loop runs over the pixels of a row with non-negative offsets (the borders), in a small
function of 1-D rows, so LLVM vectorises it over uint8 lanes (in a one-off test, the same code
written as one function with three loops over the rows was not vectorised and ran 12x slower). Nothing is allocated per call:
:class:`MedianClose5` owns the bordered buffers and the scratch row.

Why serial: the kernel takes about 40 us per 320x240 frame on one core. With the three passes as
``prange`` loops it took 29 us on two idle cores, but each ``prange`` is a fork and a join of the
numba threads, and when other processes keep the cores busy, a join waits for a thread the OS has
not scheduled: 23.5 ms per call against 58 us serially, with two CPU-bound processes on this
2-core machine (one-off measurement; BENCHMARKS section 1 has the setting's effect on the whole
``apply``, with its command).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import silkvision._numba_cache  # noqa: F401  (before any @njit(cache=True): the package's cache stamp)

__all__ = ["median5_close5", "MedianClose5", "check_mask_out"]

_U0 = np.uint8(0)
_U7 = np.uint8(7)
_U13 = np.uint8(13)
_U255 = np.uint8(255)


@njit(inline="always", cache=True)
def _max5(a, x):
    return max(max(max(a[x], a[x + 1]), max(a[x + 2], a[x + 3])), a[x + 4])


@njit(inline="always", cache=True)
def _min5(a, x):
    return min(min(min(a[x], a[x + 1]), min(a[x + 2], a[x + 3])), a[x + 4])


@njit(cache=True)
def _median_row(r0, r1, r2, r3, r4, v, mr, W):
    """Step 1 for one row: ``r0..r4`` are the raw rows y-2..y+2 (clamped), ``v`` a (W + 4) scratch
    row, ``mr`` the bordered output row of ``med``."""
    vc = v[2 : W + 2]
    for x in range(W):
        vc[x] = (
            np.uint8(r0[x] >> _U7)
            + np.uint8(r1[x] >> _U7)
            + np.uint8(r2[x] >> _U7)
            + np.uint8(r3[x] >> _U7)
            + np.uint8(r4[x] >> _U7)
        )
    v[0] = v[1] = v[2]
    v[W + 2] = v[W + 3] = v[W + 1]
    mr[0] = mr[1] = mr[W + 2] = mr[W + 3] = _U0
    mc = mr[2 : W + 2]
    for x in range(W):
        s = np.uint8(np.uint8(np.uint8(v[x] + v[x + 1]) + np.uint8(v[x + 2] + v[x + 3])) + v[x + 4])
        mc[x] = _U255 if s >= _U13 else _U0


@njit(cache=True)
def _dilate_row(a, b, c, d, e, dr, W):
    """Step 2 for one row: ``a..e`` are the bordered ``med`` rows y-2..y+2, ``dr`` the row of ``dil``."""
    dr[0] = dr[1] = dr[W + 2] = dr[W + 3] = _U255
    dc = dr[2 : W + 2]
    for x in range(W):
        dc[x] = max(max(max(_max5(b, x), _max5(c, x)), max(_max5(d, x), a[x + 2])), e[x + 2])


@njit(cache=True)
def _erode_row(a, b, c, d, e, o, W):
    """Step 3 for one row: ``a..e`` are the bordered ``dil`` rows y-2..y+2, ``o`` the output row."""
    for x in range(W):
        o[x] = min(min(min(_min5(b, x), _min5(c, x)), min(_min5(d, x), a[x + 2])), e[x + 2])


@njit(cache=True)
def median5_close5(raw, out, med, dil, scratch):
    """5x5 median filter of the 0/255 mask ``raw``, then closing by the 5x5 ellipse, into ``out``.

    Parameters
    ----------
    raw : (H, W) uint8
        0/255 mask.
    out : (H, W) uint8
        Result (must not be ``raw``).
    med, dil : (H + 4, W + 4) uint8
        Work buffers, the image in ``[2:H + 2, 2:W + 2]``; their borders are written here.
    scratch : (W + 4,) uint8
        One scratch row.
    """
    H, W = raw.shape
    # borders: rows/columns outside the image never dilate (0 in med) and never erode (255 in dil)
    for y in range(2):
        for x in range(W + 4):
            med[y, x] = _U0
            med[H + 2 + y, x] = _U0
            dil[y, x] = _U255
            dil[H + 2 + y, x] = _U255
    # 1. median, replicated border: 255 iff at least 13 of the 25 pixels are
    for y in range(H):
        _median_row(
            raw[max(y - 2, 0)],
            raw[max(y - 1, 0)],
            raw[y],
            raw[min(y + 1, H - 1)],
            raw[min(y + 2, H - 1)],
            scratch,
            med[y + 2],
            W,
        )
    # 2. dilation: rows y-1..y+1 over 5 columns, rows y-2 and y+2 the centre column only
    for y in range(H):
        _dilate_row(med[y], med[y + 1], med[y + 2], med[y + 3], med[y + 4], dil[y + 2], W)
    # 3. erosion, the same footprint
    for y in range(H):
        _erode_row(dil[y], dil[y + 1], dil[y + 2], dil[y + 3], dil[y + 4], out[y], W)
    return out


def check_mask_out(out, shape: tuple, name: str = "out") -> None:
    """Check that ``out`` can receive a mask of ``shape``: a writeable uint8 ndarray of exactly that
    shape. Raises ``ValueError`` naming ``name`` otherwise.

    Any memory layout is accepted (a view such as ``canvas[:, :W]``, a Fortran-order array): the
    writers compute into a C-contiguous buffer of their own and copy it into a non-C-contiguous
    ``out`` (``out.flags.c_contiguous`` false), so the usual C-contiguous ``out`` costs nothing
    extra. The numba kernel writes without bounds checks and OpenCV gives raw ``cv2.error`` (or
    silently writes elsewhere) on a buffer of the wrong shape or type, so every entry point that
    takes an output mask checks it.
    """
    shape = tuple(shape)
    if isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == shape and out.flags.writeable:
        return
    if not isinstance(out, np.ndarray):
        got = type(out).__name__
    else:
        got = f"{out.dtype} {out.shape}"
        if out.dtype == np.uint8 and out.shape == shape:
            got += ", read-only"
    raise ValueError(f"{name}: expected a writeable uint8 array of shape {shape}, got {got}")


def checked_mask_pair(raw, out, overlap: str = "out: must not overlap the input mask"):
    """The checks of a mask filter's input and output: ``raw`` an (H, W) uint8 array, ``out`` None
    (a new array is returned) or a writeable (H, W) uint8 array of any layout that does not overlap
    ``raw``. ``ValueError`` naming ``raw``/``out`` otherwise."""
    if not isinstance(raw, np.ndarray) or raw.ndim != 2 or raw.dtype != np.uint8:
        got = f"{raw.dtype} {raw.shape}" if isinstance(raw, np.ndarray) else type(raw).__name__
        raise ValueError(f"raw: expected an (H, W) uint8 mask, got {got}")
    if out is None:
        return np.empty(raw.shape, np.uint8)
    check_mask_out(out, raw.shape)
    if np.may_share_memory(out, raw):
        raise ValueError(overlap)
    return out


def run_into(run, raw: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``run(raw, out)`` for a filter that writes C-contiguous arrays only (the numba kernel,
    OpenCV): a non-C-contiguous ``out`` (``canvas[:, :W]``, Fortran order) gets a copy of the
    result computed in a temporary buffer."""
    if not out.flags.c_contiguous:
        np.copyto(out, run(raw, np.empty(raw.shape, np.uint8)))
        return out
    return run(raw, out)


class MedianClose5:
    """:func:`median5_close5` with its buffers, for masks of one size (reallocated when it changes)."""

    def __init__(self):
        self._shape = None

    def __call__(self, raw: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Filter the (H, W) uint8 0/255 mask ``raw`` into ``out`` (a writeable (H, W) uint8 array
        that does not overlap ``raw``; ``ValueError`` otherwise). A non-C-contiguous ``out`` is
        filled through a temporary buffer."""
        if out is None:
            raise ValueError("out: expected a writeable (H, W) uint8 array, got None")
        return run_into(self.run, raw, checked_mask_pair(raw, out))

    def run(self, raw: np.ndarray, out: np.ndarray) -> np.ndarray:
        """:meth:`__call__` without its checks, for callers that made them already
        (:class:`~silkvision.detector.postprocess.MaskFilter`): ``raw`` an (H, W) uint8 array,
        ``out`` a writeable C-contiguous (H, W) uint8 array that does not overlap it."""
        H, W = raw.shape
        if self._shape != (H, W):
            self._med = np.empty((H + 4, W + 4), np.uint8)
            self._dil = np.empty((H + 4, W + 4), np.uint8)
            self._scratch = np.empty(W + 4, np.uint8)
            self._shape = (H, W)
        return median5_close5(raw, out, self._med, self._dil, self._scratch)
