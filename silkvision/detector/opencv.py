"""OpenCV baselines (MOG2, KNN; GSOC and CNT when opencv-contrib is installed) behind the
:class:`~silkvision.detector.base.BackgroundSubtractor` interface.

They have no per-pixel scores, so evaluation shows them as a single operating point. Shadows (127 in
OpenCV's masks when ``detect_shadows`` is on) are reported as background, as CDnet counts hard
shadows (label 50) as background.
"""

from __future__ import annotations

import cv2
import numpy as np

from silkvision.detector.base import BackgroundSubtractor
from silkvision.detector.postprocess import MaskFilter

__all__ = ["OpenCVSubtractor", "opencv_available"]

_CONTRIB = {"gsoc": "createBackgroundSubtractorGSOC", "cnt": "createBackgroundSubtractorCNT"}


def opencv_available(name: str) -> bool:
    """Whether this OpenCV build provides the baseline ``name``."""
    if name in ("mog2", "knn"):
        return True
    bgsegm = getattr(cv2, "bgsegm", None)
    return bgsegm is not None and hasattr(bgsegm, _CONTRIB.get(name, "-"))


class OpenCVSubtractor(BackgroundSubtractor):
    """An OpenCV background subtractor with silkvision's interface.

    Parameters
    ----------
    name : {"mog2", "knn", "gsoc", "cnt"}
        Which OpenCV algorithm.
    median : int
        Median filter size applied to the mask (0 = off).
    close : int
        Size of the elliptic closing of the mask after the median (0 = off).
    fill_holes : bool
        Fill enclosed background holes of the mask after the closing.
    **params
        The algorithm's keys from the config (``history``, ``var_threshold`` / ``dist2_threshold``,
        ``detect_shadows``).
    """

    has_scores = False
    RESTART_PARAMS = frozenset({"history", "var_threshold", "dist2_threshold", "detect_shadows"})

    POST_PARAMS = ("median", "close", "fill_holes")

    def __init__(self, name: str = "mog2", median: int = 0, close: int = 0, fill_holes: bool = False,
                 **params):
        if name not in ("mog2", "knn", *_CONTRIB):
            raise ValueError(f"name: {name!r} is not an OpenCV baseline; expected mog2, knn, gsoc or cnt")
        if not opencv_available(name):
            from silkvision.errors import ConfigError
            raise ConfigError(f"algorithm {name!r} needs opencv-contrib (cv2.bgsegm), which is not installed")
        self.name = name
        self._post = MaskFilter(median, close, fill_holes)
        self._params = dict(params)
        self.score_range = None
        self._raw = None
        self._model = None
        self.reset()

    def _create(self):
        p = self._params
        if self.name == "mog2":
            return cv2.createBackgroundSubtractorMOG2(
                history=p.get("history", 500), varThreshold=p.get("var_threshold", 16.0),
                detectShadows=p.get("detect_shadows", False))
        if self.name == "knn":
            return cv2.createBackgroundSubtractorKNN(
                history=p.get("history", 500), dist2Threshold=p.get("dist2_threshold", 400.0),
                detectShadows=p.get("detect_shadows", False))
        return getattr(cv2.bgsegm, _CONTRIB[self.name])()

    def reset(self) -> None:
        self._model = self._create()
        self._raw = None
        self._shape = None
        self.frames_seen = 0

    def apply(self, frame: np.ndarray, learningRate: float = -1, fgmask: np.ndarray | None = None) -> np.ndarray:
        frame = np.asarray(frame)
        if frame.dtype != np.uint8 or frame.ndim not in (2, 3):
            raise ValueError(f"frame: expected an HxWx3 or HxW uint8 image, got {frame.dtype} {frame.shape}")
        if self._shape is not None and frame.shape[:2] != self._shape:
            raise ValueError(f"frame: size changed from {self._shape[1]}x{self._shape[0]} to "
                             f"{frame.shape[1]}x{frame.shape[0]}; call reset() first")
        self._shape = frame.shape[:2]
        self._raw = self._model.apply(frame, self._raw, learningRate)
        if self._params.get("detect_shadows", False) or self.name in _CONTRIB:
            # shadows (127) and any intermediate value count as background
            cv2.threshold(self._raw, 254, 255, cv2.THRESH_BINARY, dst=self._raw)
        self.frames_seen += 1
        return self._post(self._raw, out=fgmask)

    def get_background_image(self) -> np.ndarray:
        img = self._model.getBackgroundImage()
        if img is None:
            if self._shape is None:
                raise ValueError("no frame seen yet: call apply() first")
            return np.zeros((*self._shape, 3), np.uint8)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        return img

    @property
    def median(self) -> int:
        return self._post.median

    @property
    def mask_filter(self) -> MaskFilter:
        """The post-processing applied to OpenCV's mask (median, closing, hole filling)."""
        return self._post

    def get_params(self) -> dict:
        p = self._post
        return {**self._params, "median": p.median, "close": p.close, "fill_holes": p.fill_holes}

    def set_params(self, **params) -> None:
        unknown = set(params) - set(self.POST_PARAMS) - self.RESTART_PARAMS
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter {sorted(unknown)[0]!r}")
        # validate the chain before anything changes
        self._post = MaskFilter(**{k: params.get(k, getattr(self._post, k)) for k in self.POST_PARAMS})
        restart = False
        for k in self.RESTART_PARAMS & set(params):
            restart = restart or self._params.get(k) != params[k]
            self._params[k] = params[k]
        if restart:
            self.reset()

    def get_state(self):
        raise NotImplementedError(f"{self.name}: OpenCV models cannot be checkpointed")

    def set_state(self, state) -> None:
        raise NotImplementedError(f"{self.name}: OpenCV models cannot be checkpointed")

    def __repr__(self) -> str:
        p = self._post
        return (f"OpenCVSubtractor({self.name!r}, median={p.median}, close={p.close}, "
                f"fill_holes={p.fill_holes}, {self._params})")
