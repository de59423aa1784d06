"""Every configuration key, its built-in default, its type and its allowed range.

This table is the single source of truth: the top-level ``config.yaml`` mirrors it (a test checks
that they agree) and :func:`silkvision.config.load_config` validates against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Param:
    """One configuration key.

    Parameters
    ----------
    default : object
        Built-in default value.
    type : type or tuple of types
        Allowed Python type(s) after YAML parsing (``int`` is accepted where ``float`` is asked;
        a NumPy scalar counts as the Python type it holds and a tuple as a list).
    check : callable, optional
        Predicate on the value; ``False`` means out of range.
    allowed : str
        Human description of the allowed values, used in error messages.
    nullable : bool
        Whether ``null`` is allowed.
    allow_inf : bool
        Whether ``.inf`` / ``-.inf`` may reach ``check``. Numbers must be finite by default (NaN is
        always refused); no key allows infinity at present.
    """

    default: Any
    type: type | tuple
    allowed: str
    check: Callable[[Any], bool] | None = None
    nullable: bool = False
    help: str = ""
    allow_inf: bool = False


def choice(default, values, help=""):
    return Param(default, str, "one of " + ", ".join(repr(v) for v in values),
                 lambda v: v in values, help=help)


def positive(default, help="", type_=float):
    return Param(default, type_, "a number > 0", lambda v: v > 0, help=help)


def unit_open(default, help=""):
    return Param(default, float, "a number in (0, 1)", lambda v: 0 < v < 1, help=help)


def boolean(default, help=""):
    return Param(default, bool, "true or false", help=help)


#: Smallest Gaussian kernel width of the SILK/NORMA detectors (``detector.silk.sigma``,
#: ``detector.norma.sigma``; the detectors import it): below about 4.6e-20 the kernel's float32
#: scale overflows, and every width <= 0.1 already gives the same detector.
SIGMA_MIN = 1e-6


def kernel_width(default, help=""):
    return Param(default, float, f"a number >= {SIGMA_MIN:g}", lambda v: v >= SIGMA_MIN, help=help)


#: Largest width or height a frame may be resized to (``capture.resize`` and
#: :func:`silkvision.capture.open_source` share it).
MAX_FRAME_SIDE = 16384

ALGORITHMS = ("silk", "norma", "mog2", "knn", "gsoc", "cnt")
COLOUR_SPACES = ("rgb", "ycrcb", "lab", "gray")

SCHEMA: dict[str, Any] = {
    "detector": {
        "algorithm": choice("silk", ALGORITHMS, "background subtractor used by default"),
        "colour_space": choice("ycrcb", COLOUR_SPACES, "pixel feature for SILK/NORMA"),
        "median": Param(5, int, "0 (off) or an odd integer 3..15",
                        lambda v: v == 0 or (v % 2 == 1 and 3 <= v <= 15),
                        help="median filter size applied to the mask"),
        "close": Param(5, int, "0 (off) or an odd integer 3..15",
                       lambda v: v == 0 or (v % 2 == 1 and 3 <= v <= 15),
                       help="size of the elliptic closing applied to the mask after the median"),
        "fill_holes": boolean(True, "fill enclosed background holes of the mask, after the closing"),
        "silk": {
            "omega": Param(20, int, "an integer 1..255", lambda v: 1 <= v <= 255,
                           help="support-vector buffer size per pixel"),
            "tau": unit_open(0.000503, "decay: old coefficients are multiplied by (1 - tau)"),
            "C": positive(0.4, "box constraint: new coefficient <= (1 - tau) C"),
            "rho": positive(1.0, "margin of the novelty hinge loss"),
            "sigma": kernel_width(8.0, "Gaussian kernel width in 8-bit colour units"),
            "threshold": Param(0.45, float, "a number >= 0", lambda v: v >= 0,
                               help="foreground if score f(x) < threshold"),
            "conservative": boolean(True, "soft conservative update for foreground pixels"),
            "kappa": Param(0.078125, float, "a number in [0, 1]", lambda v: 0 <= v <= 1,
                           help="cap factor of the new coefficient for foreground pixels"),
            "warmup": Param(200, int, "an integer >= 0", lambda v: v >= 0,
                            help="frames learned with the milder warm-up cap warmup_kappa"),
            "warmup_kappa": Param(0.5, float, "a number in [0, 1]", lambda v: 0 <= v <= 1,
                                  help="cap factor for foreground pixels during the warm-up; "
                                       "1 = no cap"),
            "hold": Param(1, int, "an integer 0..100", lambda v: 0 <= v <= 100,
                          help="the conservative cap also applies for this many frames after a "
                               "pixel was last scored foreground"),
            "global_change": Param(0.5, float, "a number in (0, 1]", lambda v: 0 < v <= 1,
                                   help="if more than this fraction of the last frame was foreground "
                                        "(e.g. a light switch), learn without the conservative cap; "
                                        "1 = never"),
        },
        "norma": {
            "omega": Param(20, int, "an integer 1..255", lambda v: 1 <= v <= 255,
                           help="truncation: the last omega terms are kept"),
            "eta": positive(0.1, "learning rate (coefficient of a new term)"),
            "lambda": positive(0.1, "regulariser: old terms decay by (1 - eta*lambda)"),
            "nu": Param(0.5, float, "a number in [0, 1]", lambda v: 0 <= v <= 1,
                        help="nu of NORMA's novelty detection (offset update)"),
            "sigma": kernel_width(15.0, "Gaussian kernel width in 8-bit colour units"),
            "threshold": Param(0.36, float, "a number >= 0", lambda v: v >= 0,
                               help="foreground if score f(x) < threshold"),
        },
        "mog2": {
            "history": Param(500, int, "an integer >= 1", lambda v: v >= 1),
            "var_threshold": positive(16.0),
            "detect_shadows": boolean(False, "shadows (127) are reported as background"),
        },
        "knn": {
            "history": Param(500, int, "an integer >= 1", lambda v: v >= 1),
            "dist2_threshold": positive(400.0),
            "detect_shadows": boolean(False, "shadows (127) are reported as background"),
        },
    },
    "capture": {
        "camera_timeout": Param(5.0, float, "a number in (0, 86400]", lambda v: 0 < v <= 86400,
                                help="seconds to wait for a camera frame before giving up"),
        "max_frames": Param(None, int, "null or an integer >= 1", lambda v: v >= 1, nullable=True,
                            help="stop after this many frames"),
        "resize": Param(None, list, f"null or [width, height] with integers in 1..{MAX_FRAME_SIDE}",
                        lambda v: len(v) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                      and 0 < x <= MAX_FRAME_SIDE for x in v),
                        nullable=True, help="resize frames before detection"),
    },
    "export": {
        "scores": boolean(False, "also write per-frame scores (float16, compressed .npz)"),
        "video": boolean(False, "also write a lossless mask video (FFV1 .mkv)"),
        "overwrite": boolean(False, "allow writing into a non-empty folder with other content"),
        "checkpoint_every": Param(100, int, "an integer >= 0", lambda v: v >= 0,
                                  help="save the detector state every N frames so an interrupted "
                                       "export resumes (0: only on Ctrl-C)"),
    },
    "evaluation": {
        "bins": Param(4096, int, "an integer 16..1048576", lambda v: 16 <= v <= 1 << 20,
                      help="score histogram bins for the ROC"),
        "light_switch_window": Param(100, int, "an integer >= 1", lambda v: v >= 1,
                                     help="frames after a light switch that are scored"),
        "recovery_tolerance": Param(0.05, float, "a number in (0, 1)", lambda v: 0 < v < 1,
                                    help="F-measure gap that counts as recovered"),
        "recovery_smoothing": Param(10, int, "an integer >= 1", lambda v: v >= 1,
                                    help="frames whose per-frame F-measures are averaged when "
                                         "testing recovery after a light switch (1 = single frame)"),
    },
    "gui": {
        "second_algorithm": choice("norma", tuple(a for a in ALGORITHMS if a != "silk"),
                                   "algorithm shown beside SILK"),
        "show_scores": boolean(True, "show the SILK score heat map"),
        "show_overlay": boolean(False, "show the mask overlaid on the input"),
        "roc_every": Param(5, int, "an integer >= 1", lambda v: v >= 1,
                           help="redraw the ROC every N frames"),
        "display_fps": Param(30.0, float, "a number in [0.1, 1000]", lambda v: 0.1 <= v <= 1000,
                             help="maximum display refresh rate"),
    },
}
