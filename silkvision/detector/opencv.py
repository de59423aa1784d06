"""OpenCV baselines (MOG2, KNN; GSOC and CNT when opencv-contrib is installed) behind the
:class:`~silkvision.detector.base.BackgroundSubtractor` interface.

They have no per-pixel scores, so evaluation shows them as a single operating point. Shadows (127 in
OpenCV's masks when ``detect_shadows`` is on) are reported as background, as CDnet counts hard
shadows (label 50) as background.

Frames are checked as SILK/NORMA check them (:func:`~silkvision.detector.colour.check_frame`: HxWx3
BGR or HxW / HxWx1 grey uint8, not empty), and grey frames are expanded to BGR
(``COLOR_GRAY2BGR``) as the SILK/NORMA colour spaces do, so OpenCV's model always sees three
channels: a grey video gives the same masks as the same video stored in colour, and a grey frame
after colour ones does not silently re-initialise OpenCV's model.

KNN (and GSOC) draw random numbers from OpenCV's per-thread generator ``cv::theRNG()``, so their
masks would depend on whatever else draws from it in the same thread: another KNN applied between
their frames (two KNN variants in one evaluation), an earlier sequence, ``cv2.randu``. Each of
these subtractors therefore runs OpenCV's ``apply`` on a worker thread of its own (one per
subtractor, whose generator nothing else uses) and seeds that thread's generator with
:data:`RNG_SEED` on its first frame after construction or :meth:`~OpenCVSubtractor.reset`: a
detector gives the same masks for the same frames wherever it runs and whatever runs beside it,
the same as in a fresh process. The caller's own generator is left alone.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

from silkvision.config import SCHEMA, validate
from silkvision.detector.base import BackgroundSubtractor, check_learning_rate
from silkvision.detector.colour import check_frame
from silkvision.detector.postprocess import MaskFilter, check_mask_out

__all__ = ["OpenCVSubtractor", "opencv_available"]

#: ``cv2.setRNGSeed`` value at the first frame: 0 is the state a fresh OpenCV thread starts from
RNG_SEED = 0
_CONTRIB = {"gsoc": "createBackgroundSubtractorGSOC", "cnt": "createBackgroundSubtractorCNT"}
#: the baselines that draw from ``cv::theRNG()``; they apply on a thread of their own
_USES_RNG = ("knn", "gsoc")
#: the algorithm keys each baseline takes: its config schema section (the contrib ones have none)
_KEYS = {n: tuple(SCHEMA["detector"].get(n, ())) for n in ("mog2", "knn", *_CONTRIB)}


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
        Median filter size applied to the mask: 0 (off) or an odd integer 3..15.
    close : int
        Size of the elliptic closing of the mask after the median: 0 (off) or an odd integer 3..15.
        Both sizes follow the config schema's rule, checked by
        :func:`~silkvision.detector.postprocess.check_filter_size` as for SILK/NORMA.
    fill_holes : bool
        Fill enclosed background holes of the mask after the closing.
    **params
        The algorithm's keys from the config (``history``, ``var_threshold`` / ``dist2_threshold``,
        ``detect_shadows``), checked with the config schema's rules (``ValueError`` naming the key).
    """

    has_scores = False
    RESTART_PARAMS = frozenset(k for keys in _KEYS.values() for k in keys)

    POST_PARAMS = ("median", "close", "fill_holes", "filter_width")

    def __init__(
        self,
        name: str = "mog2",
        median: int = 0,
        close: int = 0,
        fill_holes: bool = False,
        filter_width: int = 0,
        **params,
    ):
        if name not in ("mog2", "knn", *_CONTRIB):
            raise ValueError(f"name: {name!r} is not an OpenCV baseline; expected mog2, knn, gsoc or cnt")
        if not opencv_available(name):
            from silkvision.errors import ConfigError

            raise ConfigError(f"algorithm {name!r} needs opencv-contrib (cv2.bgsegm), which is not installed")
        self.name = name
        self._post = MaskFilter(median, close, fill_holes, filter_width)
        # every algorithm key, the schema's default where not given (get_params shows them all)
        self._params = {k: SCHEMA["detector"][name][k].default for k in _KEYS[name]}
        self._params.update(self._check_params(params))
        self.score_range = None
        self._raw: np.ndarray | None = None
        self._bgr: np.ndarray | None = None  # grey -> BGR staging buffer
        # the thread whose cv::theRNG() only this subtractor uses (module docstring), made at the
        # first frame of each process: a forked child inherits no running thread (see _worker)
        self._rng_thread: ThreadPoolExecutor | None = None
        self._rng_pid: int | None = None
        self.reset()

    def _check_params(self, params: dict) -> dict:
        """``params`` checked with the config schema's rules for this algorithm (the same as
        :func:`~silkvision.detector.factory.create_subtractor`); ``ValueError`` naming the key."""
        unknown = set(params) - set(_KEYS[self.name])
        if unknown:
            raise ValueError(
                f"{self.name}: unknown parameter {sorted(unknown)[0]!r}; allowed: "
                + (", ".join(_KEYS[self.name] + self.POST_PARAMS))
            )
        if not params:
            return {}
        checked = validate({"detector": {self.name: dict(params)}})["detector"][self.name]
        return {k: checked[k] for k in params}

    def _create(self) -> cv2.BackgroundSubtractor:
        p = self._params
        if self.name == "mog2":
            return cv2.createBackgroundSubtractorMOG2(
                history=p["history"], varThreshold=p["var_threshold"], detectShadows=p["detect_shadows"]
            )
        if self.name == "knn":
            return cv2.createBackgroundSubtractorKNN(
                history=p["history"], dist2Threshold=p["dist2_threshold"], detectShadows=p["detect_shadows"]
            )
        # cv2.bgsegm comes with opencv-contrib, which the stubs of opencv-python-headless lack
        return getattr(cv2.bgsegm, _CONTRIB[self.name])()  # type: ignore[attr-defined]

    def reset(self) -> None:
        """Forget everything learned; the next frame may have another size."""
        self._model: cv2.BackgroundSubtractor = self._create()
        self._raw = None
        self._shape: tuple[int, int] | None = None
        self.frames_seen = 0

    def apply(
        self, frame: np.ndarray, learningRate: float = -1, fgmask: np.ndarray | None = None
    ) -> np.ndarray:
        """Run OpenCV's ``apply`` on ``frame`` and return the post-processed mask.

        Parameters
        ----------
        frame : ndarray
            HxWx3 BGR uint8, or HxW / HxWx1 grey (expanded to BGR). Its size must not change until
            :meth:`reset`.
        learningRate : float
            OpenCV's learning rate, which OpenCV documents as a value in [0, 1]: negative (default
            -1) an automatic rate, 0 no update of the model, 1 the model re-initialised from this
            frame, values in between how fast it learns. Values above 1 (which OpenCV's update
            formulas do not expect), NaN, bools and non-numbers raise ``ValueError`` naming
            ``learningRate``, before anything is learned.
        fgmask : ndarray, optional
            Writeable HxW uint8 output buffer (``ValueError`` naming ``fgmask`` otherwise). Any
            layout: a non-C-contiguous one (``canvas[:, :W]``, a Fortran-order array) receives a
            copy of the mask.

        Returns
        -------
        ndarray
            HxW uint8 mask, 0 background / 255 foreground.
        """
        frame = check_frame(frame)
        lr = check_learning_rate(learningRate)
        if lr > 1.0:
            raise ValueError(
                f"learningRate: {learningRate!r} must be at most 1 for OpenCV's "
                f"{self.name} (negative = automatic, 0 = no update, 1 = re-initialise)"
            )
        H, W = frame.shape[:2]
        if fgmask is not None:
            check_mask_out(fgmask, (H, W), "fgmask")
        if self._shape is not None and (H, W) != self._shape:
            raise ValueError(
                f"frame: size changed from {self._shape[1]}x{self._shape[0]} to {W}x{H}; call reset() first"
            )
        if frame.ndim == 2:
            if self._bgr is None or self._bgr.shape[:2] != (H, W):
                self._bgr = np.empty((H, W, 3), np.uint8)
            cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR, dst=self._bgr)
            frame = self._bgr
        self._shape = (H, W)
        if self.name not in _USES_RNG:
            self._raw = self._model.apply(frame, self._raw, lr)
        else:
            self._raw = self._worker().submit(self._apply_seeded, frame, lr).result()
        if self._params.get("detect_shadows", False) or self.name in _CONTRIB:
            # shadows (127) and any intermediate value count as background
            cv2.threshold(self._raw, 254, 255, cv2.THRESH_BINARY, dst=self._raw)
        self.frames_seen += 1
        return self._post(self._raw, out=fgmask)

    def _worker(self) -> ThreadPoolExecutor:
        """This subtractor's worker thread, made anew in a process that did not make it.

        After ``fork`` the child's copy of the executor believes its thread is alive and idle, so
        it would queue work that nothing ever runs. The new thread's generator starts from
        OpenCV's fresh-thread state, which :data:`RNG_SEED` is.
        """
        pid = os.getpid()
        if self._rng_pid != pid:
            self._rng_thread = ThreadPoolExecutor(1, thread_name_prefix=f"silkvision-{self.name}")
            self._rng_pid = pid
        assert self._rng_thread is not None  # made above for this process
        return self._rng_thread

    def _apply_seeded(self, frame: np.ndarray, lr: float) -> np.ndarray:
        """OpenCV's apply on this subtractor's own thread, its generator seeded at the first frame."""
        if self.frames_seen == 0:
            cv2.setRNGSeed(RNG_SEED)
        return self._model.apply(frame, self._raw, lr)

    def get_background_image(self) -> np.ndarray:
        """HxWx3 BGR uint8 background image of OpenCV's model (``ValueError`` before the first frame)."""
        if self._shape is None:  # OpenCV's KNN crashes on an empty model
            raise ValueError("no frame seen yet: call apply() first")
        img = self._model.getBackgroundImage()
        if img is None:
            return np.zeros((*self._shape, 3), np.uint8)
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        return img

    @property
    def mask_filter(self) -> MaskFilter:
        """The post-processing applied to OpenCV's mask (median, closing, hole filling)."""
        return self._post

    def _attribute_params(self) -> tuple:
        # m.history, m.median ... read and write as attributes (base class)
        return (*_KEYS[self.name], *self.POST_PARAMS) if "_params" in self.__dict__ else ()

    def __getstate__(self):
        # pickle, copy.copy and copy.deepcopy: OpenCV's model objects cannot be pickled (a raw
        # "cannot pickle 'cv2.BackgroundSubtractorMOG2' object" otherwise)
        raise TypeError(
            f"a {self.name.upper()} detector cannot be pickled or copied (OpenCV's model objects "
            f"refuse it); make another with create_subtractor({self.name!r}) and feed it the "
            f"same frames"
        )

    def get_params(self) -> dict:
        """Every parameter: the algorithm's keys and the post-processing's."""
        p = self._post
        return {
            **self._params,
            "median": p.median,
            "close": p.close,
            "fill_holes": p.fill_holes,
            "filter_width": p.filter_width,
        }

    def set_params(self, **params) -> None:
        """Change parameters; a change of an algorithm key (:attr:`RESTART_PARAMS`) resets the model.

        Raises ``ValueError`` naming the parameter for unknown keys or bad values (checked with the
        same rules as at construction); nothing is changed then.
        """
        algo = {k: v for k, v in params.items() if k not in self.POST_PARAMS}
        # validate everything before anything changes
        checked = self._check_params(algo)
        post = MaskFilter(**{k: params.get(k, getattr(self._post, k)) for k in self.POST_PARAMS})
        restart = any(self._params.get(k) != v for k, v in checked.items())
        self._post = post
        self._params.update(checked)
        if restart:
            self.reset()

    def get_state(self):
        raise NotImplementedError(f"{self.name}: OpenCV models cannot be checkpointed")

    def set_state(self, state) -> None:
        raise NotImplementedError(f"{self.name}: OpenCV models cannot be checkpointed")

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"OpenCVSubtractor({self.name!r}, {args})"
