"""The machinery that the per-pixel kernel detectors (SILK, truncated NORMA) share.

:class:`KernelPixelSubtractor` holds the parameters, the state arrays (support-vector colours and
coefficients in the kernels' row layout, plus per-detector extras), the life cycle (allocation,
memory check, reset, pickling), ``apply`` with the global decay scale's renormalisation,
``mask_from_scores`` and the checkpoint (``get_state`` / ``set_state``). A subclass supplies the
maths: its parameter checks, score bound, extra per-pixel arrays and the kernel call.

Parameter checks come from the config schema (:func:`check_param`): a bound is written once, in
:data:`silkvision.config.schema.SCHEMA`, and the detectors and the config loader both use it.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba.np.ufunc import parallel as _nb_parallel

from silkvision.config.schema import SCHEMA
from silkvision.config.schema import SIGMA_MIN as _SIGMA_MIN
from silkvision.detector import kernels as _k
from silkvision.detector.base import BackgroundSubtractor, check_learning_rate
from silkvision.detector.colour import (
    FeatureConverter,
    channels,
    check_colour_space,
    check_frame,
    features_to_bgr,
)
from silkvision.detector.memory import check_fits
from silkvision.detector.numba_threads import run_kernel
from silkvision.detector.postprocess import MaskFilter, check_mask_out

__all__ = [
    "KernelPixelSubtractor",
    "check_number",
    "check_int",
    "check_sigma",
    "check_param",
    "state_number",
    "schema_default",
    "scratch_threads",
    "RENORM_BELOW",
    "ALPHA_FLOOR",
    "SIGMA_MIN",
]

_F = np.float32
#: the global decay scale is renormalised to 1 once it falls below this
RENORM_BELOW = 2.0**-40
#: at renormalisation, true coefficients below this are set to 0 (no subnormal float32 ever)
ALPHA_FLOOR = 1e-8
#: smallest kernel width ``sigma`` accepted. The kernel's float32 scale
#: ``nl = -log2(e) / (2 sigma^2)`` overflows to -inf (and every score becomes NaN) for
#: ``sigma < sqrt(log2(e) / (2 * 3.4e38)) = 4.6e-20``; 1e-6 keeps a wide margin. Nothing is lost:
#: colours differ by at least 1, and for ``sigma <= 0.1`` every kernel value of two different colours
#: is already the clamp 2^-72 (:data:`~silkvision.detector.kernels.U_MIN`), so all such widths give
#: the same detector. Defined in the config schema, which checks ``detector.*.sigma`` with it.
SIGMA_MIN = _SIGMA_MIN


def schema_default(section: str, key: str):
    """Built-in default of ``detector.<section>.<key>`` (the config schema)."""
    return SCHEMA["detector"][section][key].default


def scratch_threads() -> int:
    """Rows of per-thread scratch the kernels need: ``numba.get_thread_id()`` is below the number of
    threads numba launched (``NUMBA_NUM_THREADS`` of this process; ``numba.set_num_threads`` can only
    lower the number in use)."""
    # numba.config sets its options at import time, from the environment: mypy cannot see them
    configured = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    return max(configured, getattr(_nb_parallel, "NUM_THREADS", 1), 1)


def check_number(name, value, lo=None, hi=None, lo_open=False, hi_open=False) -> float:
    if isinstance(value, (str, bytes)):  # float("0.3") would take it; learningRate refuses it too
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


def check_sigma(value) -> float:
    """The kernel width: a finite number >= :data:`SIGMA_MIN` (the schema's ``kernel_width``)."""
    v = check_number("sigma", value, 0, lo_open=True)
    if v < SIGMA_MIN:
        raise ValueError(
            f"sigma: {value!r} must be >= {SIGMA_MIN} (smaller widths overflow the kernel's float32 scale)"
        )
    return v


def check_param(section: str, key: str, value, name: str | None = None):
    """``detector.<section>.<key>`` checked against its config-schema entry, so that a bound is
    written once (:data:`silkvision.config.schema.SCHEMA`): a number in the entry's ``bounds`` (open
    ends as given), an integer for an ``int`` entry, true or false for a ``bool`` one.

    Returns the value as ``float``, ``int`` or ``bool``; ``ValueError`` naming ``name`` (default: the
    key) with the value and what was expected otherwise.
    """
    name = key if name is None else name
    param = SCHEMA["detector"][section][key]
    if key == "sigma":
        return check_sigma(value)
    if param.type is bool:
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name}: {value!r} must be true or false")
        return bool(value)
    lo, hi = param.bounds
    if param.type is int:
        return check_int(name, value, lo, hi)
    lo_open, hi_open = param.open_ends
    return check_number(name, value, lo, hi, lo_open=lo_open, hi_open=hi_open)


def state_number(state: dict, key: str, lo: float, hi: float, integer: bool = False):
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


def check_int(name, value, lo, hi=None) -> int:
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
    # the state arrays: None until the first frame (``_shape is None``), allocated by _allocate
    _shape: tuple[int, int] | None
    _conv: FeatureConverter | None
    _colours: np.ndarray | None
    _alphas: np.ndarray | None
    _scores: np.ndarray | None
    _raw: np.ndarray | None
    _scr_f: np.ndarray | None
    _scr_i: np.ndarray | None
    _bound: float

    def __init__(self, **params: Any):
        self._p: dict = {}
        self._thr_raw: np.ndarray | None = None  # mask_from_scores's raw-mask buffer
        self._set(params, initial=True)
        self.reset()

    # ------------------------------------------------------------------ parameters
    def _set(self, params: dict, initial: bool = False) -> bool:
        unknown = set(params) - set(self._PARAM_NAMES)
        if unknown:
            raise ValueError(
                f"{self.name}: unknown parameter {sorted(unknown)[0]!r}; allowed: "
                + ", ".join(self._PARAM_NAMES)
            )
        merged = {**self._p, **params}
        merged["colour_space"] = check_colour_space(merged["colour_space"])
        # checks all four
        post = MaskFilter(merged["median"], merged["close"], merged["fill_holes"], merged["filter_width"])
        merged["median"], merged["close"], merged["fill_holes"] = post.median, post.close, post.fill_holes
        merged["filter_width"] = post.filter_width
        merged["omega"] = check_param(self.name, "omega", merged["omega"])
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
        return self._p[name]  # by _PARAM_NAMES

    @property
    def threshold(self) -> float:
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
        self._fg_fraction = 0.0  # foreground fraction of the last learned frame's raw mask
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
        extras = sum(
            int(np.prod(shape)) * np.dtype(dtype).itemsize
            for shape, dtype, _ in self._extra_state_shapes(H, W).values()
        )
        scratch = scratch_threads() * W * (4 * _k.SCRATCH_ROWS + 4)
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
        self._extra = {
            k: np.full(shape, fill, dtype)
            for k, (shape, dtype, fill) in self._extra_state_shapes(H, W).items()
        }

    def _allocate_scratch(self) -> None:
        """Per-thread scratch of the kernels, one slice per numba thread of THIS process (the kernels
        index it by ``numba.get_thread_id()`` without bounds checks)."""
        assert self._shape is not None  # called once the first frame has set the size
        T, W = scratch_threads(), self._shape[1]
        self._scr_f = np.zeros((T, _k.SCRATCH_ROWS, W), np.float32)
        self._scr_i = np.zeros((T, W), np.uint32)

    def __getstate__(self) -> dict:
        # the scratch is sized for this process's numba threads: never pickle it (a process with
        # more threads would write past it), make it again on unpickling
        state = self.__dict__.copy()
        state["_scr_f"] = state["_scr_i"] = None
        state["_thr_raw"] = None  # mask_from_scores's work buffer: nothing worth pickling
        return state

    def __setstate__(self, state: dict) -> None:
        state = {"_fg_pending": False, "_thr_raw": None, **state}  # pickles of older versions
        self.__dict__.update(state)
        if self._shape is not None:
            self._allocate_scratch()

    def _extra_state_shapes(self, H, W) -> dict:
        return {}

    # ------------------------------------------------------------------ detection
    def apply(
        self, frame: np.ndarray, learningRate: float = -1, fgmask: np.ndarray | None = None
    ) -> np.ndarray:
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
            raise ValueError(
                f"frame: size changed from {self._shape[1]}x{self._shape[0]} to {W}x{H}; call reset() first"
            )
        if self._scr_i is None or self._scr_i.shape[0] < scratch_threads():
            self._allocate_scratch()
        assert self._conv is not None and self._raw is not None  # allocated above
        feat = self._conv(frame)
        learn = lr != 0.0
        if not learn and self._fg_pending:
            self._fg_now()  # this frame overwrites the last learned frame's raw mask
        self._run(feat, learn)
        self._frames_scored += 1
        if learn:
            self._fg_pending = True  # counted when (if ever) needed: see _fg_now
            self._frames += 1
            if self._scale < RENORM_BELOW:
                run_kernel(
                    _k.renormalise, _k.renormalise_serial, self._alphas, _F(self._scale), _F(ALPHA_FLOOR)
                )
                self._scale = 1.0
        return self._post(self._shown_mask(), out=fgmask)

    def _shown_mask(self) -> np.ndarray:
        """The mask the post-processing receives: the raw mask (SILK's shadow test changes it)."""
        assert self._raw is not None
        return self._raw

    def _fg_now(self) -> float:
        """Foreground fraction of the last learned frame's raw mask, counted on first use (NORMA and
        SILK without the global-change rule never need it per frame)."""
        if self._fg_pending:
            assert self._raw is not None  # pending only after a learned frame
            self._fg_fraction = np.count_nonzero(self._raw) / self._raw.size
            self._fg_pending = False
        return self._fg_fraction

    def mask_from_scores(
        self, scores: np.ndarray, threshold: float | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
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
        thr = self._p["threshold"] if threshold is None else check_param(self.name, "threshold", threshold)
        scores = np.asarray(scores)
        if scores.ndim != 2:
            raise ValueError(f"scores: expected an (H, W) array, got shape {scores.shape}")
        if scores.dtype.kind not in "fiu":
            raise ValueError(f"scores: expected real numbers, got dtype {scores.dtype}")
        raw = self._thr_raw  # (a wrong ``out`` is refused by the mask chain, checked_mask_pair)
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
        assert self._colours is not None and self._alphas is not None  # allocated with _shape
        C = self._colours.shape[2]
        idx = np.argmax(self._alphas, axis=1)  # (H, W)
        idx4 = np.broadcast_to(idx[:, None, None, :], (H, 1, C, W))
        best = np.take_along_axis(self._colours, idx4, axis=1)[:, 0]  # (H, C, W)
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
        omega_lo, omega_hi = SCHEMA["detector"][self.name]["omega"].bounds
        omega = state_number(state, "omega", omega_lo, omega_hi, integer=True)
        if omega != self._p["omega"]:
            raise ValueError(f"state: omega {omega} does not match this detector's omega {self._p['omega']}")
        if str(state["colour_space"]) != self._p["colour_space"]:
            raise ValueError(
                f"state: colour_space {str(state['colour_space'])!r} does not match this "
                f"detector's {self._p['colour_space']!r}"
            )
        # the global decay scale starts at 1 and only decays, and apply renormalises it to 1 once it
        # is below RENORM_BELOW: [RENORM_BELOW, 1] (a smaller one overflows 1 / scale in float32)
        scale = state_number(state, "scale", RENORM_BELOW, 1.0)
        frames = state_number(state, "frames_seen", 0, math.inf, integer=True)
        bound = state_number(state, "score_bound", 0, math.inf)
        fg = state_number(state, "fg_fraction", 0, 1) if "fg_fraction" in state else 0.0
        col = np.asarray(state["colours"])
        if col.size == 0:
            self.reset()
            self._bound = max(bound, self._bound)
            return
        if col.ndim != 4:
            raise ValueError(f"state: colours must be 4-D (H, omega, C, W), got shape {col.shape}")
        H, W = col.shape[0], col.shape[3]
        om, C = self._p["omega"], channels(self._p["colour_space"])
        expected = {
            "colours": ((H, om, C, W), np.uint8),
            "alphas": ((H, om, W), np.float32),
            **{k: (shape, dtype) for k, (shape, dtype, _) in self._extra_state_shapes(H, W).items()},
        }
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
        self.check_memory(H, W)  # before reset(): on a MemoryError the detector keeps its model
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
