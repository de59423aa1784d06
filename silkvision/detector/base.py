"""The background-subtractor interface shared by SILK, NORMA and the OpenCV baselines.

Shaped like OpenCV's ``cv2.BackgroundSubtractor`` so users feel at home::

    mask = det.apply(frame)              # HxW uint8, 0 background / 255 foreground
    det.scores                           # HxW float32 scores of the last frame (lower = more novel)
    det.get_background_image()           # HxWx3 uint8
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import numpy as np

from silkvision.errors import parameter_typo

__all__ = ["BackgroundSubtractor", "check_learning_rate"]


def check_learning_rate(value) -> float:
    """``learningRate`` of :meth:`BackgroundSubtractor.apply` as a float.

    Any real number is allowed (0 = score only, negative = the configured learning; the OpenCV
    baselines also refuse values above 1); ``None``, bools, strings, other objects and NaN raise
    ``ValueError`` naming ``learningRate``.
    """
    lr = math.nan
    if value is not None and not isinstance(value, (str, bytes, bool, np.bool_)):
        try:
            lr = float(value)
        except (TypeError, ValueError):
            pass
    if math.isnan(lr):
        raise ValueError(f"learningRate: {value!r} must be a number (0 = do not learn, -1 = default)")
    return lr


class BackgroundSubtractor(ABC):
    """Base class of every detector.

    Attributes
    ----------
    name : str
        Registry name (``"silk"``, ``"norma"``, ``"mog2"``...).
    has_scores : bool
        True when :attr:`scores` holds real per-pixel scores (an ROC can be built from them).
    threshold : float
        Foreground if ``score < threshold`` (detectors with scores only).
    """

    name: str = ""
    has_scores: bool = False
    threshold: float = float("nan")

    @abstractmethod
    def apply(self, frame: np.ndarray, learningRate: float = -1) -> np.ndarray:
        """Score ``frame`` (HxWx3 BGR uint8 or HxW grey), learn from it, and return the mask.

        Parameters
        ----------
        frame : ndarray
            The new frame. Its size must not change between calls (call :meth:`reset` first).
        learningRate : float
            ``-1`` (default): the configured learning; ``0``: score only, do not learn.
            Other values are passed to the OpenCV baselines (which refuse values above 1, outside
            OpenCV's documented range); SILK/NORMA learn with the configured parameters for any
            value other than 0.

        Returns
        -------
        ndarray
            HxW uint8 mask, 0 (background) or 255 (foreground).
        """

    @property
    def scores(self) -> np.ndarray | None:
        """HxW float32 scores f(x) of the last frame, computed before the update; ``None`` if the
        detector has no scores (MOG2, KNN)."""
        return None

    @abstractmethod
    def get_background_image(self) -> np.ndarray:
        """HxWx3 uint8 image of the current background model."""

    @abstractmethod
    def reset(self) -> None:
        """Forget everything learned; the next frame may have another size."""

    def mask_from_scores(
        self, scores: np.ndarray, threshold: float | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Mask (0/255 uint8) of ``scores < threshold`` with this detector's post-processing.

        Used by the GUI's threshold slider and by the evaluation to re-threshold without
        re-running the detector.
        """
        raise NotImplementedError(f"{self.name} has no scores to threshold")

    # ------------------------------------------------------------------ parameters as attributes
    def _attribute_params(self) -> tuple:
        """Parameter names that read and write as attributes (none before the parameters exist)."""
        return ()

    def _attribute_value(self, name: str):
        return self.get_params()[name]

    def __getattr__(self, name):
        # only called when normal lookup fails: parameters read as attributes (det.tau, det.history)
        if not name.startswith("_") and name in self._attribute_params():
            return self._attribute_value(name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    def __setattr__(self, name, value):
        # det.tau = 0.02 is det.set_params(tau=0.02): validated, and it takes effect (a plain
        # attribute would be read back but never used by the model)
        if not name.startswith("_") and name in self._attribute_params():
            self.set_params(**{name: value})
            return
        meant = parameter_typo(self, name, self._attribute_params())
        if meant is not None:
            raise AttributeError(
                f"{type(self).__name__} has no parameter {name!r}; did you mean "
                f"{meant!r}? (a new attribute would change nothing)"
            )
        super().__setattr__(name, value)

    def __copy__(self):
        """``copy.copy`` is ``copy.deepcopy``: a shallow copy would share the model's arrays, so
        applying frames to one would change the other (OpenCV's MOG2/KNN refuse both, as pickling)."""
        import copy

        return copy.deepcopy(self)

    # OpenCV-style aliases
    def getBackgroundImage(self) -> np.ndarray:  # noqa: N802 (OpenCV name)
        return self.get_background_image()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
