"""Background subtraction: per-pixel SILK and truncated NORMA novelty detectors (numba kernels with
NumPy references) and OpenCV baselines, all behind :class:`BackgroundSubtractor`."""

from silkvision.detector.base import BackgroundSubtractor
from silkvision.detector.factory import available_subtractors, create_subtractor

__all__ = ["BackgroundSubtractor", "create_subtractor", "available_subtractors"]
