r"""Per-pixel SILK novelty detection for background subtraction (Cheng et al., NIPS 2006, Sec. 2, 4).

Every pixel owns a budgeted SILK novelty detector on its colour feature x (8-bit, see
:mod:`silkvision.detector.colour`). The detectors are updated with the frame, all at once, by a numba
kernel (:func:`silkvision.detector.kernels.silk_frame`).

Novelty detection with the implicit update
------------------------------------------
Novelty detection sees one class only (every observation is "normal", y_t = +1), so the hinge loss
(14) becomes L(x_t, f) = (rho - f(x_t))_+ with margin rho > 0, and f(x) = sum_i alpha_i k(x_i, x)
with the Gaussian kernel k(x, x') = exp(-||x - x'||^2 / (2 sigma^2)), so k(x, x) = 1.

* With G(f) = ||f||^2 / 2, step size eta_t = 1 and tau = lambda / (1 + lambda), the implicit update
  (9) reads f_{t+1} = (1 - tau) f_t - (1 - tau) C dL(x_t, f_{t+1}).
* Writing f_{t+1} in the form (10) gives, as in (11) and (12), that every old coefficient decays,
  ``alpha_i <- (1 - tau) alpha_i``, and the new one is ``alpha_t = -(1 - tau) C beta_t`` where
  beta_t k(x_t, .) is a subgradient of L at f_{t+1}. By (15) with y_t = 1, beta_t = 0 if
  f_{t+1}(x_t) > rho, beta_t in [-1, 0] at the hinge and beta_t = -1 below it, so
  alpha_t in [0, (1 - tau) C].
* The coefficient that puts x_t exactly on the margin, rho - f_{t+1}(x_t) = 0 with
  f_{t+1}(x_t) = (1 - tau) f_t(x_t) + alpha_t k(x_t, x_t), is the y_t = 1 case of the
  unclipped step before (16):  alpha_hat = (rho - (1 - tau) f_t(x_t)) / k(x_t, x_t)
  = rho - (1 - tau) f_t(x_t). Combining both requirements as in (16):

      alpha_t = clip(rho - (1 - tau) f_t(x_t), 0, (1 - tau) C).

  A pixel whose colour is already well explained (f_t(x_t) >= rho / (1 - tau)) adds nothing; a
  novel colour (f_t(x_t) ~ 0) gets the largest coefficient, (1 - tau) C. Unrolled, this is the
  exponentially decaying expansion (19).
* SILK buffer (Sec. 2.1): at most omega support vectors per pixel; (x_t, alpha_t) is inserted and,
  when the buffer overflows, the one with the LOWEST coefficient is discarded. Here: the new pair
  replaces the lowest slot iff alpha_t is larger than its coefficient (empty slots have alpha 0).

Score and mask: the score of a pixel is s = f_t(x_t), computed BEFORE the update (kept in
:attr:`SilkSubtractor.scores`); the pixel is foreground iff s < threshold, then a ``median`` x
``median`` median filter, a ``close`` x ``close`` closing and hole filling (``fill_holes``) are
applied to the mask (:class:`~silkvision.detector.postprocess.MaskFilter`).

Refinements (switchable; see ``docs/BENCHMARKS.md`` section 2 for their measured effect)
---------------------------------------------------------------------------------------
* **Soft conservative update** (``conservative``, ``kappa``, ``warmup``, ``warmup_kappa``): under
  the hinge loss a novel colour -- a passing car -- gets the largest coefficient, and "drop the
  lowest" then evicts background colours. For pixels scored foreground (s < threshold) the new coefficient is capped
  at (1 - tau) kappa C instead of (1 - tau) C; a background pixel is still learned normally, and a
  foreground object that stays (parked car) is absorbed slowly. During the first ``warmup``
  learned frames the cap is milder, (1 - tau) warmup_kappa C (``warmup_kappa``; 1 = no cap), so
  that the background is learned first even where the first frames are busy or the light changes;
  a milder cap rather than none keeps the cars that pass during the warm-up from filling the
  buffer with full-size coefficients. The cap is off for one frame after a
  *global* change (``global_change``: more than that fraction of the previous frame was foreground,
  e.g. a light switch), so that a change of the whole scene is absorbed within a few frames while
  a local object is absorbed slowly. (A hard conservative update,
  kappa = 0, never absorbs such objects.)
* **Hold** (``hold``): the cap also applies for ``hold`` learned frames after a pixel was last scored
  foreground. Inside a passing car some pixels score just above the threshold (the car's colour is
  close to colours learned earlier); without the hold they are learned at the full cap, and in busy
  lanes car colours then fill the buffer. A pixel that was foreground in the frame before is
  probably still covered by the object.
* **Mask post-processing**: median filter (``median``: 0 or an odd size), closing (``close``) and
  hole filling (``fill_holes``); they change the returned mask only, never what is learned.
* **Colour space** of the feature (``colour_space``: rgb, ycrcb, lab, gray).

Implementation notes
--------------------
State: support-vector colours (H, omega, C, W) uint8 and coefficients (H, omega, W) float32 stored
divided by one global scale g (all pixels decay by the same factor every frame, so the decay is
``g <- (1 - tau) g``; renormalised when g < 2**-40), plus a uint8 count of the frames since the
pixel was last foreground (``hold``), i.e. 4 omega + C omega + 1 bytes per pixel (141 B for
omega = 20, RGB). All buffers are allocated at the first frame (or after
:meth:`~SilkSubtractor.reset` / :meth:`~SilkSubtractor.set_state`); ``apply`` allocates nothing but
its returned mask (pass ``fgmask`` to avoid that too) and, with ``fill_holes``, the small list of
contours OpenCV returns to the hole filling.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba.np.ufunc import parallel as _nb_parallel

from silkvision.config.schema import MAX_COEF, MAX_THRESHOLD, MIN_COEF, SCHEMA, SIGMA_MIN as _SIGMA_MIN
from silkvision.detector import kernels as _k
from silkvision.detector.base import BackgroundSubtractor, check_learning_rate
from silkvision.detector.colour import (FeatureConverter, channels, check_colour_space, check_frame,
                                        features_to_bgr)
from silkvision.detector.memory import check_fits
from silkvision.detector.numba_threads import run_kernel
from silkvision.detector.postprocess import MaskFilter, check_mask_out

__all__ = ["SilkSubtractor", "KernelPixelSubtractor"]

_F = np.float32
#: the global decay scale is renormalised to 1 once it falls below this
RENORM_BELOW = 2.0 ** -40
#: at renormalisation, true coefficients below this are set to 0 (no subnormal float32 ever)
ALPHA_FLOOR = 1e-8
#: smallest kernel width ``sigma`` accepted. The kernel's float32 scale
#: ``nl = -log2(e) / (2 sigma^2)`` overflows to -inf (and every score becomes NaN) for
#: ``sigma < sqrt(log2(e) / (2 * 3.4e38)) = 4.6e-20``; 1e-6 keeps a wide margin. Nothing is lost:
#: colours differ by at least 1, and for ``sigma <= 0.1`` every kernel value of two different colours
#: is already the clamp 2^-72 (:data:`~silkvision.detector.kernels.U_MIN`), so all such widths give
#: the same detector. Defined in the config schema, which checks ``detector.*.sigma`` with it.
SIGMA_MIN = _SIGMA_MIN


def _default(section: str, key: str):
    return SCHEMA["detector"][section][key].default


def _scratch_threads() -> int:
    """Rows of per-thread scratch the kernels need: ``numba.get_thread_id()`` is below the number of
    threads numba launched (``NUMBA_NUM_THREADS`` of this process; ``numba.set_num_threads`` can only
    lower the number in use)."""
    return max(numba.config.NUMBA_NUM_THREADS, getattr(_nb_parallel, "NUM_THREADS", 1), 1)


def _check_number(name, value, lo=None, hi=None, lo_open=False, hi_open=False) -> float:
    if isinstance(value, (str, bytes)):   # float("0.3") would take it; learningRate refuses it too
        raise ValueError(f"{name}: {value!r} is not a number")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: {value!r} is not a number") from None
    if isinstance(value, bool) or not math.isfinite(v):
        raise ValueError(f"{name}: {value!r} must be a finite number")
    if lo is not None and (v <= lo if lo_open else v < lo):
        raise ValueError(f"{name}: {value!r} must be {'>' if lo_open else '>='} {lo}")
    if hi is not None and (v >= hi if hi_open else v > hi):
        raise ValueError(f"{name}: {value!r} must be {'<' if hi_open else '<='} {hi}")
    return v


def _check_sigma(value) -> float:
    """The kernel width: a finite number >= :data:`SIGMA_MIN`."""
    v = _check_number("sigma", value, 0, lo_open=True)
    if v < SIGMA_MIN:
        raise ValueError(f"sigma: {value!r} must be >= {SIGMA_MIN} (smaller widths overflow the "
                         f"kernel's float32 scale)")
    return v


def _state_number(state: dict, key: str, lo: float, hi: float, integer: bool = False):
    """Scalar ``state[key]`` of a checkpoint: a finite real number (an integer if ``integer``) in
    [lo, hi]; ``ValueError`` naming the key otherwise."""
    value = state[key]
    a = np.asarray(value)
    v = float(a) if a.ndim == 0 and a.dtype.kind in "iuf" else math.nan
    if not (math.isfinite(v) and lo <= v <= hi) or (integer and v != int(v)):
        shown = repr(a.item() if a.ndim == 0 else value)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        kind = "an integer" if integer else "a number"
        where = f">= {lo:g}" if hi == math.inf else f"in [{lo:g}, {hi:g}]"
        raise ValueError(f"state: {key!r} must be {kind} {where}, got {shown}")
    return int(a) if integer else v


def _check_int(name, value, lo, hi=None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: {value!r} must be an integer")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name}: {value!r} must be an integer in {lo}..{hi if hi is not None else 'inf'}")
    return int(value)


class KernelPixelSubtractor(BackgroundSubtractor):
    """Shared machinery of the per-pixel kernel detectors (SILK, truncated NORMA).

    Subclasses define ``name``, ``_PARAM_NAMES``, ``_check(params)``, ``_score_bound()``,
    ``_extra_state_shapes(H, W)`` and ``_run(feat, learn)``.

    A detector object is not thread-safe: :meth:`apply` and :meth:`mask_from_scores` write into the
    object's own buffers (model, scores, raw masks, scratch), so call them from one thread at a
    time (one detector per thread for parallel work; a pickled copy is independent).
    """

    has_scores = True
    RESTART_PARAMS = frozenset({"omega", "colour_space"})
    _PARAM_NAMES: tuple = ()

    def __init__(self, **params: Any):
        self._p: dict = {}
        self._thr_raw = None   # mask_from_scores's raw-mask buffer
        self._set(params, initial=True)
        self.reset()

    # ------------------------------------------------------------------ parameters
    def _set(self, params: dict, initial: bool = False) -> bool:
        unknown = set(params) - set(self._PARAM_NAMES)
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter {sorted(unknown)[0]!r}; allowed: "
                             + ", ".join(self._PARAM_NAMES))
        merged = {**self._p, **params}
        merged["colour_space"] = check_colour_space(merged["colour_space"])
        post = MaskFilter(merged["median"], merged["close"], merged["fill_holes"])   # checks all three
        merged["median"], merged["close"], merged["fill_holes"] = post.median, post.close, post.fill_holes
        merged["omega"] = _check_int("omega", merged["omega"], 1, 255)
        merged = self._check(merged)
        restart = not initial and any(merged[k] != self._p[k] for k in self.RESTART_PARAMS)
        self._p = merged
        self._post = post
        return restart

    def _check(self, p: dict) -> dict:  # pragma: no cover - overridden
        return p

    def get_params(self) -> dict:
        """Current parameters, by their config keys (NORMA's ``lam`` is ``lambda``)."""
        return dict(self._p)

    def set_params(self, **params: Any) -> None:
        """Change parameters live; a change of a :attr:`RESTART_PARAMS` key resets the model.

        Raises ``ValueError`` naming the parameter for unknown keys or bad values (nothing is
        changed then).
        """
        if self._set(params):
            self.reset()
        else:
            self._bound = max(self._bound, self._score_bound())

    def _attribute_params(self) -> tuple:
        # det.tau, det.omega ... read and write as attributes (base class); NORMA's lam too
        return self._PARAM_NAMES if self.__dict__.get("_p") else ()

    def _attribute_value(self, name: str):
        return self._p[name]      # by _PARAM_NAMES

    @property
    def threshold(self) -> float:  # type: ignore[override]
        return self._p["threshold"]

    @threshold.setter
    def threshold(self, value: float) -> None:
        self.set_params(threshold=value)

    @property
    def mask_filter(self) -> MaskFilter:
        """The post-processing applied to the raw mask (median, closing, hole filling)."""
        return self._post

    @property
    def frames_seen(self) -> int:
        """Number of frames learned from since the last reset (``learningRate=0`` frames excluded)."""
        return self._frames

    @property
    def score_range(self) -> tuple[float, float]:
        """``(0, bound)``: every score lies in it (bound = omega x the largest ``C`` used since the
        last reset; a coefficient is at most ``(1 - tau) C``)."""
        return (0.0, float(self._bound))

    @property
    def scores(self) -> np.ndarray | None:
        """HxW float32 scores f_t(x_t) of the last frame, computed before the update (an internal
        buffer overwritten by the next :meth:`apply`; ``None`` before the first frame and after
        :meth:`reset` or :meth:`set_state`)."""
        return self._scores if self._frames_scored else None

    @property
    def state_nbytes(self) -> int:
        """Bytes of the model state (support vectors, coefficients and per-pixel extras)."""
        if self._shape is None:
            return 0
        return sum(a.nbytes for a in self._state_arrays().values())

    # ------------------------------------------------------------------ life cycle
    def reset(self) -> None:
        """Forget everything learned; the next frame may have another size."""
        self._shape = None
        self._frames = 0
        self._frames_scored = 0
        self._fg_fraction = 0.0   # foreground fraction of the last learned frame's raw mask
        self._fg_pending = False  # True: _fg_fraction is not yet counted from _raw (see _fg_now)
        self._scale = 1.0
        self._bound = self._score_bound()
        self._colours = self._alphas = self._scores = self._raw = None
        self._scr_f = self._scr_i = None
        self._conv = None
        self._extra: dict = {}

    def nbytes_for(self, H: int, W: int) -> int:
        """Bytes of the arrays this detector allocates at the first HxW frame: the state
        (:attr:`state_nbytes`), the scores, the raw mask and the kernels' per-thread scratch (not the
        colour conversion's and post-processing's buffers, about 9 bytes per pixel more: BENCHMARKS §9)."""
        om, C = self._p["omega"], channels(self._p["colour_space"])
        extras = sum(int(np.prod(shape)) * np.dtype(dtype).itemsize
                     for shape, dtype, _ in self._extra_state_shapes(H, W).values())
        scratch = _scratch_threads() * W * (4 * _k.SCRATCH_ROWS + 4)
        return H * W * (om * C + 4 * om + 4 + 1) + extras + scratch

    def check_memory(self, H: int, W: int) -> None:
        """``MemoryError`` (one line) when the arrays of an HxW frame do not fit in the memory
        available, counting those this detector holds now as freed (:meth:`reset` frees them).
        ``np.zeros`` would "succeed" anyway (Linux overcommits), and the process would then grow
        until it is killed (:mod:`silkvision.detector.memory`)."""
        held = self.nbytes_for(*self._shape) if self._shape is not None else 0
        check_fits(self.nbytes_for(H, W) - held, f"the {self.name} state of a {W}x{H} frame")

    def _allocate(self, H: int, W: int) -> None:
        om, C = self._p["omega"], channels(self._p["colour_space"])
        self._shape = (H, W)
        self._conv = FeatureConverter(self._p["colour_space"], H, W)
        self._colours = np.zeros((H, om, C, W), np.uint8)
        self._alphas = np.zeros((H, om, W), np.float32)
        self._scores = np.zeros((H, W), np.float32)
        self._raw = np.zeros((H, W), np.uint8)
        self._allocate_scratch()
        self._extra = {k: np.full(shape, fill, dtype) for k, (shape, dtype, fill)
                       in self._extra_state_shapes(H, W).items()}

    def _allocate_scratch(self) -> None:
        """Per-thread scratch of the kernels, one slice per numba thread of THIS process (the kernels
        index it by ``numba.get_thread_id()`` without bounds checks)."""
        T, W = _scratch_threads(), self._shape[1]
        self._scr_f = np.zeros((T, _k.SCRATCH_ROWS, W), np.float32)
        self._scr_i = np.zeros((T, W), np.uint32)

    def __getstate__(self) -> dict:
        # the scratch is sized for this process's numba threads: never pickle it (a process with
        # more threads would write past it), make it again on unpickling
        state = self.__dict__.copy()
        state["_scr_f"] = state["_scr_i"] = None
        state["_thr_raw"] = None   # mask_from_scores's work buffer: nothing worth pickling
        return state

    def __setstate__(self, state: dict) -> None:
        state = {"_fg_pending": False, "_thr_raw": None, **state}   # pickles of older versions
        self.__dict__.update(state)
        if self._shape is not None:
            self._allocate_scratch()

    def _extra_state_shapes(self, H, W) -> dict:
        return {}

    # ------------------------------------------------------------------ detection
    def apply(self, frame: np.ndarray, learningRate: float = -1,
              fgmask: np.ndarray | None = None) -> np.ndarray:
        """Score ``frame``, learn from it (unless ``learningRate == 0``) and return the mask.

        Parameters
        ----------
        frame : ndarray
            HxWx3 BGR uint8 (or HxW grey). Its size must not change until :meth:`reset`.
        learningRate : float
            0: score only (no update, :attr:`frames_seen` unchanged); any other number (default
            -1): learn with the configured parameters. NaN, None and strings raise ``ValueError``.
        fgmask : ndarray, optional
            Writeable HxW uint8 output buffer (``ValueError`` naming ``fgmask`` otherwise; checked
            before anything is learned). Any layout: a non-C-contiguous one (``canvas[:, :W]``, a
            Fortran-order array) receives a copy of the mask.

        Returns
        -------
        ndarray
            HxW uint8 mask (255 = foreground), equal to ``mask_from_scores(self.scores)``.
        """
        frame = check_frame(frame)
        H, W = frame.shape[:2]
        lr = check_learning_rate(learningRate)
        if fgmask is not None:
            check_mask_out(fgmask, (H, W), "fgmask")
        if self._shape is None:
            self.check_memory(H, W)
            self._allocate(H, W)
        elif (H, W) != self._shape:
            raise ValueError(f"frame: size changed from {self._shape[1]}x{self._shape[0]} to "
                             f"{W}x{H}; call reset() first")
        if self._scr_i is None or self._scr_i.shape[0] < _scratch_threads():
            self._allocate_scratch()
        feat = self._conv(frame)
        learn = lr != 0.0
        if not learn and self._fg_pending:
            self._fg_now()   # this frame overwrites the last learned frame's raw mask
        self._run(feat, learn)
        self._frames_scored += 1
        if learn:
            self._fg_pending = True   # counted when (if ever) needed: see _fg_now
            self._frames += 1
            if self._scale < RENORM_BELOW:
                run_kernel(_k.renormalise, _k.renormalise_serial, self._alphas, _F(self._scale),
                           _F(ALPHA_FLOOR))
                self._scale = 1.0
        return self._post(self._raw, out=fgmask)

    def _fg_now(self) -> float:
        """Foreground fraction of the last learned frame's raw mask, counted on first use (NORMA and
        SILK without the global-change rule never need it per frame)."""
        if self._fg_pending:
            self._fg_fraction = np.count_nonzero(self._raw) / self._raw.size
            self._fg_pending = False
        return self._fg_fraction

    def mask_from_scores(self, scores: np.ndarray, threshold: float | None = None,
                         out: np.ndarray | None = None) -> np.ndarray:
        """``(scores < threshold)`` as 0/255 uint8, then this detector's post-processing
        (:attr:`mask_filter`).

        The raw mask goes through a work buffer of the detector (kept between calls, dropped when
        pickled), so, like :meth:`apply`, this is for one thread at a time.

        Parameters
        ----------
        scores : ndarray
            2-D scores of any size (usually this detector's (H, W) :attr:`scores`, or those of a
            saved frame); ``ValueError`` naming ``scores`` for another number of dimensions.
        threshold : float, optional
            A number in [0, :data:`~silkvision.config.schema.MAX_THRESHOLD`], as :attr:`threshold`;
            None uses :attr:`threshold`.
        out : ndarray, optional
            Writeable uint8 output of the scores' shape, any layout (``ValueError`` naming ``out``
            otherwise).

        Returns
        -------
        ndarray
            The mask (``out`` if given). ``apply`` returns exactly ``mask_from_scores(self.scores)``.
        """
        thr = (self._p["threshold"] if threshold is None
               else _check_number("threshold", threshold, 0, MAX_THRESHOLD))
        scores = np.asarray(scores)
        if scores.ndim != 2:
            raise ValueError(f"scores: expected an (H, W) array, got shape {scores.shape}")
        if scores.dtype.kind not in "fiu":
            raise ValueError(f"scores: expected real numbers, got dtype {scores.dtype}")
        raw = self._thr_raw   # (a wrong ``out`` is refused by the mask chain, checked_mask_pair)
        if raw is None or raw.shape != scores.shape:
            raw = self._thr_raw = np.empty(scores.shape, np.uint8)
        np.less(scores, _F(thr), out=raw.view(np.bool_))
        np.multiply(raw, np.uint8(255), out=raw)
        return self._post(raw, out=out)

    def get_background_image(self) -> np.ndarray:
        """HxWx3 BGR uint8: per pixel, the colour of the support vector with the largest
        coefficient (black where nothing was learned)."""
        if self._shape is None:
            raise ValueError("no frame seen yet: call apply() first")
        H, W = self._shape
        C = self._colours.shape[2]
        idx = np.argmax(self._alphas, axis=1)                          # (H, W)
        idx4 = np.broadcast_to(idx[:, None, None, :], (H, 1, C, W))
        best = np.take_along_axis(self._colours, idx4, axis=1)[:, 0]   # (H, C, W)
        img = features_to_bgr(np.ascontiguousarray(best.transpose(0, 2, 1)), self._p["colour_space"])
        # an empty slot's features (0, 0, 0) are not black in YCrCb or Lab
        img[~(self._alphas.max(axis=1) > 0)] = 0
        return img

    # ------------------------------------------------------------------ checkpoint
    def _state_arrays(self) -> dict:
        return {"colours": self._colours, "alphas": self._alphas, **self._extra}

    def get_state(self) -> dict[str, np.ndarray]:
        """Exact checkpoint of the model (copies): restoring it with :meth:`set_state` on a detector
        with the same parameters and continuing gives bit-identical scores and masks."""
        om, C = self._p["omega"], channels(self._p["colour_space"])
        state = {
            "kind": np.array(self.name),
            "omega": np.array(om, np.int64),
            "colour_space": np.array(self._p["colour_space"]),
            "scale": np.array(self._scale, np.float64),
            "frames_seen": np.array(self._frames, np.int64),
            "score_bound": np.array(self._bound, np.float64),
            "fg_fraction": np.array(self._fg_now(), np.float64),
        }
        if self._shape is None:
            state["colours"] = np.zeros((0, om, C, 0), np.uint8)
            return state
        for k, v in self._state_arrays().items():
            state[k] = v.copy()
        return state

    def set_state(self, state: dict) -> None:
        """Restore a checkpoint made by :meth:`get_state`.

        Raises ``ValueError`` naming the bad key when the checkpoint does not fit this detector's
        algorithm, omega or colour space, or holds values no run can produce (``scale`` outside
        (0, 1], a negative ``frames_seen``, a NaN or negative coefficient ...). Everything is checked
        before anything changes: on an error the detector keeps its model. A checkpoint holds the
        model, not the last frame's scores: :attr:`scores` is ``None`` until the next :meth:`apply`.
        """
        for key in ("kind", "omega", "colour_space", "scale", "frames_seen", "score_bound", "colours"):
            if key not in state:
                raise ValueError(f"state: missing key {key!r}")
        if str(state["kind"]) != self.name:
            raise ValueError(f"state: kind {str(state['kind'])!r} does not match detector {self.name!r}")
        omega = _state_number(state, "omega", 1, 255, integer=True)
        if omega != self._p["omega"]:
            raise ValueError(f"state: omega {omega} does not match this detector's "
                             f"omega {self._p['omega']}")
        if str(state["colour_space"]) != self._p["colour_space"]:
            raise ValueError(f"state: colour_space {str(state['colour_space'])!r} does not match this "
                             f"detector's {self._p['colour_space']!r}")
        # the global decay scale starts at 1 and only decays, and apply renormalises it to 1 once it
        # is below RENORM_BELOW: [RENORM_BELOW, 1] (a smaller one overflows 1 / scale in float32)
        scale = _state_number(state, "scale", RENORM_BELOW, 1.0)
        frames = _state_number(state, "frames_seen", 0, math.inf, integer=True)
        bound = _state_number(state, "score_bound", 0, math.inf)
        fg = _state_number(state, "fg_fraction", 0, 1) if "fg_fraction" in state else 0.0
        col = np.asarray(state["colours"])
        if col.size == 0:
            self.reset()
            self._bound = max(bound, self._bound)
            return
        if col.ndim != 4:
            raise ValueError(f"state: colours must be 4-D (H, omega, C, W), got shape {col.shape}")
        H, W = col.shape[0], col.shape[3]
        om, C = self._p["omega"], channels(self._p["colour_space"])
        expected = {"colours": ((H, om, C, W), np.uint8), "alphas": ((H, om, W), np.float32),
                    **{k: (shape, dtype) for k, (shape, dtype, _) in self._extra_state_shapes(H, W).items()}}
        arrays = {}
        for key, (shape, dtype) in expected.items():
            src = np.asarray(state[key]) if key in state else None
            if src is None or src.shape != shape or src.dtype != dtype:
                got = "missing" if src is None else f"{src.dtype} {src.shape}"
                raise ValueError(f"state: {key!r} must be {np.dtype(dtype)} {shape}, got {got}")
            if src.dtype == np.float32 and not (math.isfinite(src.min()) and math.isfinite(src.max())):
                raise ValueError(f"state: {key!r} holds NaN or infinite values")
            arrays[key] = src
        if arrays["alphas"].min() < 0:
            raise ValueError("state: 'alphas' holds negative coefficients")
        self._check_state_arrays(arrays)
        self.check_memory(H, W)   # before reset(): on a MemoryError the detector keeps its model
        self.reset()
        self._allocate(H, W)
        for key, dst in self._state_arrays().items():
            np.copyto(dst, arrays[key])
        self._scale = scale
        self._frames = frames
        self._bound = bound
        self._fg_fraction = fg

    def _check_state_arrays(self, arrays: dict) -> None:
        """Subclass hook: ``ValueError`` naming the key for values of the checkpoint's per-pixel
        arrays (right shape and dtype, finite) that the kernel cannot take."""

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._p.items())
        return f"{type(self).__name__}({args})"


class SilkSubtractor(KernelPixelSubtractor):
    """Per-pixel SILK novelty detector (see the module docstring for the maths).

    Parameters
    ----------
    omega : int
        Support-vector buffer size per pixel (paper: 20).
    tau : float
        Decay in (0, 1): old coefficients are multiplied by (1 - tau) every frame.
    C : float
        Box constraint: a new coefficient is at most (1 - tau) C.
    rho : float
        Margin of the novelty hinge loss.
    sigma : float
        Gaussian kernel width, in 8-bit units of the colour space; at least :data:`SIGMA_MIN`
        (1e-6: much smaller widths overflow the kernel's float32 scale).
    threshold : float
        Foreground iff score < threshold; in [0, :data:`~silkvision.config.schema.MAX_THRESHOLD`].
    conservative : bool
        Soft conservative update: cap the new coefficient of pixels scored foreground at
        (1 - tau) kappa C.
    kappa : float
        Cap factor in [0, 1] of the conservative update.
    warmup : int
        Number of learned frames with the milder warm-up cap (``warmup_kappa``) before the
        conservative cap ``kappa`` starts.
    warmup_kappa : float
        Cap factor in [0, 1] for pixels scored foreground during the warm-up (1 = no cap).
    hold : int
        The cap also applies for this many learned frames after a pixel was last scored
        foreground (0..100).
    global_change : float
        In (0, 1]: when more than this fraction of the previous learned frame's pixels were
        foreground (raw mask), the frame is learned without the conservative cap (1 = never).
    colour_space : {"rgb", "ycrcb", "lab", "gray"}
        Pixel feature.
    median : int
        Median filter size of the mask (0 = off).
    close : int
        Size of the elliptic closing of the mask after the median (0 = off).
    fill_holes : bool
        Fill enclosed background holes of the mask after the closing.

    Examples
    --------
    >>> import numpy as np
    >>> det = SilkSubtractor()
    >>> mask = det.apply(np.zeros((4, 6, 3), np.uint8))
    >>> mask.shape, det.scores.dtype
    ((4, 6), dtype('float32'))
    """

    name = "silk"
    _PARAM_NAMES = ("omega", "tau", "C", "rho", "sigma", "threshold", "conservative", "kappa",
                    "warmup", "warmup_kappa", "hold", "global_change", "colour_space", "median",
                    "close", "fill_holes")

    def __init__(self, omega: int = _default("silk", "omega"), tau: float = _default("silk", "tau"),
                 C: float = _default("silk", "C"), rho: float = _default("silk", "rho"),
                 sigma: float = _default("silk", "sigma"),
                 threshold: float = _default("silk", "threshold"),
                 conservative: bool = _default("silk", "conservative"),
                 kappa: float = _default("silk", "kappa"), warmup: int = _default("silk", "warmup"),
                 warmup_kappa: float = _default("silk", "warmup_kappa"),
                 hold: int = _default("silk", "hold"),
                 global_change: float = _default("silk", "global_change"),
                 colour_space: str = SCHEMA["detector"]["colour_space"].default,
                 median: int = SCHEMA["detector"]["median"].default,
                 close: int = SCHEMA["detector"]["close"].default,
                 fill_holes: bool = SCHEMA["detector"]["fill_holes"].default):
        super().__init__(omega=omega, tau=tau, C=C, rho=rho, sigma=sigma, threshold=threshold,
                         conservative=conservative, kappa=kappa, warmup=warmup,
                         warmup_kappa=warmup_kappa, hold=hold,
                         global_change=global_change,
                         colour_space=colour_space, median=median, close=close,
                         fill_holes=fill_holes)

    def _check(self, p: dict) -> dict:
        p["tau"] = _check_number("tau", p["tau"], 0, 1, lo_open=True, hi_open=True)
        p["C"] = _check_number("C", p["C"], MIN_COEF, MAX_COEF)
        p["rho"] = _check_number("rho", p["rho"], MIN_COEF, MAX_COEF)
        p["sigma"] = _check_sigma(p["sigma"])
        p["threshold"] = _check_number("threshold", p["threshold"], 0, MAX_THRESHOLD)
        p["kappa"] = _check_number("kappa", p["kappa"], 0, 1)
        p["warmup"] = _check_int("warmup", p["warmup"], 0)
        p["warmup_kappa"] = _check_number("warmup_kappa", p["warmup_kappa"], 0, 1)
        p["hold"] = _check_int("hold", p["hold"], 0, 100)
        p["global_change"] = _check_number("global_change", p["global_change"], 0, 1, lo_open=True)
        if not isinstance(p["conservative"], (bool, np.bool_)):
            raise ValueError(f"conservative: {p['conservative']!r} must be true or false")
        p["conservative"] = bool(p["conservative"])
        return p

    def _score_bound(self) -> float:
        return self._p["omega"] * self._p["C"]

    def _extra_state_shapes(self, H, W) -> dict:
        return {"since": ((H, W), np.uint8, 255)}

    def _decay(self) -> float:
        """Factor of the old coefficients in the next learned frame: ``1 - tau``."""
        return 1.0 - self._p["tau"]

    def kernel_args(self, learn: bool) -> tuple:
        """The scalar arguments of :func:`~silkvision.detector.kernels.silk_frame` for the next
        frame: ``(scale, inv_scale_new, decay, rho, cap, cap_fg, threshold, hold, nl, learn)``."""
        p = self._p
        decay = self._decay()
        g_new = self._scale * decay if learn else self._scale
        cap = decay * p["C"]
        # (the fraction is at most 1: global_change = 1 never needs it counted)
        capped = p["conservative"] and (p["global_change"] >= 1.0 or self._fg_now() <= p["global_change"])
        kappa = p["kappa"] if self._frames >= p["warmup"] else p["warmup_kappa"]
        cap_fg = decay * kappa * p["C"] if capped else cap
        return (_F(self._scale), _F(1.0 / g_new), _F(decay), _F(p["rho"]), _F(cap), _F(cap_fg),
                _F(p["threshold"]), np.int32(p["hold"]), _k.kernel_log2_scale(p["sigma"]),
                bool(learn))

    def _run(self, feat: np.ndarray, learn: bool) -> None:
        args = self.kernel_args(learn)
        run_kernel(_k.silk_frame, _k.silk_frame_serial, feat, self._colours, self._alphas,
                   self._extra["since"], *args, self._scores, self._raw, self._scr_f, self._scr_i)
        if learn:
            self._scale *= self._decay()
