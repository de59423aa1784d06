"""Pixel features for the SILK/NORMA detectors: colour-space conversion into preallocated buffers.

Every feature is 8-bit (uint8), so the detectors store support-vector colours as bytes and the
Gaussian kernel width ``sigma`` is in 8-bit units of the chosen space:

========  ========  ==========================================================================
name      channels  feature
========  ========  ==========================================================================
rgb       3         the frame's B, G, R bytes as they are (the order does not matter to a
                    Gaussian kernel)
ycrcb     3         OpenCV ``COLOR_BGR2YCrCb`` (Y, Cr, Cb; 8-bit)
lab       3         OpenCV ``COLOR_BGR2Lab`` 8-bit (L * 255 / 100, a + 128, b + 128)
gray      1         OpenCV ``COLOR_BGR2GRAY``
========  ========  ==========================================================================

Grey input frames (HxW) are first expanded to BGR (``COLOR_GRAY2BGR``) for the three-channel
spaces, so a grey video gives the same features as the same video stored in colour.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = [
    "COLOUR_SPACES",
    "channels",
    "check_colour_space",
    "check_frame",
    "FeatureConverter",
    "features_to_bgr",
]

COLOUR_SPACES = ("rgb", "ycrcb", "lab", "gray")
_CHANNELS = {"rgb": 3, "ycrcb": 3, "lab": 3, "gray": 1}
_TO = {"ycrcb": cv2.COLOR_BGR2YCrCb, "lab": cv2.COLOR_BGR2Lab, "gray": cv2.COLOR_BGR2GRAY}
_FROM = {"ycrcb": cv2.COLOR_YCrCb2BGR, "lab": cv2.COLOR_Lab2BGR, "gray": cv2.COLOR_GRAY2BGR}


def check_colour_space(name: str) -> str:
    """Return ``name`` if it is a known colour space, else raise ``ValueError`` naming it."""
    if name not in _CHANNELS:
        raise ValueError(
            f"colour_space: {name!r} is unknown; expected one of " + ", ".join(repr(c) for c in COLOUR_SPACES)
        )
    return name


def channels(name: str) -> int:
    """Number of feature channels of colour space ``name`` (3, or 1 for ``"gray"``)."""
    return _CHANNELS[check_colour_space(name)]


def check_frame(frame) -> np.ndarray:
    """Validate a frame (HxWx3 BGR uint8, HxW or HxWx1 grey uint8) and return it as an array."""
    frame = np.asarray(frame)
    if frame.dtype != np.uint8 or not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] in (1, 3))):
        raise ValueError(
            f"frame: expected an HxWx3 (BGR) or HxW (grey) uint8 image, "
            f"got dtype {frame.dtype} and shape {frame.shape}"
        )
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"frame: empty image of shape {frame.shape}")
    if frame.ndim == 3 and frame.shape[2] == 1:
        frame = frame[:, :, 0]
    return frame


class FeatureConverter:
    """Convert frames of one size to (H, W, C) uint8 C-contiguous features without allocating.

    Parameters
    ----------
    colour_space : {"rgb", "ycrcb", "lab", "gray"}
    height, width : int
        Frame size; buffers are allocated here, once.

    Examples
    --------
    >>> conv = FeatureConverter("ycrcb", 240, 320)
    >>> feat = conv(frame)        # doctest: +SKIP
    >>> # feat: (H, W, 3) uint8, a view of the converter's own buffer
    """

    def __init__(self, colour_space: str, height: int, width: int):
        self.colour_space = check_colour_space(colour_space)
        self.channels = _CHANNELS[colour_space]
        self.shape = (int(height), int(width))
        self._out = np.empty((height, width, self.channels), np.uint8)
        self._bgr: np.ndarray | None = None  # grey -> BGR staging buffer, made on the first grey frame

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """Features of ``frame`` (validated by :func:`check_frame`, size must match).

        Returns the frame itself when no conversion is needed (``rgb`` of a C-contiguous BGR frame,
        ``gray`` of a C-contiguous grey frame), otherwise this converter's buffer; either way the
        caller must not keep it past the next call.
        """
        frame = check_frame(frame)
        cs = self.colour_space
        if frame.ndim == 2:
            if cs == "gray":
                if frame.flags.c_contiguous:
                    return frame[:, :, None]
                np.copyto(self._out[:, :, 0], frame)
                return self._out
            if self._bgr is None:
                self._bgr = np.empty((*self.shape, 3), np.uint8)
            cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR, dst=self._bgr)
            frame = self._bgr
        if cs == "rgb":
            if frame.flags.c_contiguous:
                return frame
            np.copyto(self._out, frame)
            return self._out
        dst = self._out[:, :, 0] if self.channels == 1 else self._out
        # OpenCV reads a view with contiguous pixels and any row stride (an ROI crop such as
        # frame[:, :320]) in place; only other layouts are copied first
        src = frame if frame.strides[1:] == (3, 1) and frame.strides[0] > 0 else np.ascontiguousarray(frame)
        cv2.cvtColor(src, _TO[cs], dst=dst)
        return self._out


def features_to_bgr(features: np.ndarray, colour_space: str) -> np.ndarray:
    """Convert (H, W, C) uint8 features of ``colour_space`` back to an HxWx3 BGR uint8 image."""
    check_colour_space(colour_space)
    f = np.ascontiguousarray(features)
    if colour_space == "rgb":
        return f.copy() if f is features else f
    if colour_space == "gray":
        return cv2.cvtColor(f.reshape(f.shape[0], f.shape[1]), cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(f, _FROM[colour_space])
