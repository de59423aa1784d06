"""Every configuration key, its built-in default, its type and its allowed range.

This table is the single source of truth: the top-level ``config.yaml`` mirrors it (a test checks
that they agree) and :func:`silkvision.config.load_config` validates against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


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
        Predicate on the value; ``False`` means out of range. Numbers reach it only when finite
        (inf and NaN are refused before).
    allowed : str
        Human description of the allowed values, used in error messages.
    nullable : bool
        Whether ``null`` is allowed.
    help : str
        One line on what the key does: the comment of ``silkvision config`` and the tooltip of
        the GUI's parameter boxes.
    bounds : (lo, hi)
        The range of a number as plain limits (``None``: unbounded on that side; an open end is given
        as the limit itself), for widgets such as the GUI's spin boxes. ``check`` decides.
    open_ends : (bool, bool)
        Whether ``lo`` / ``hi`` of ``bounds`` are themselves refused (``(0, 1]`` is ``(True, False)``).
    values : tuple of int, optional
        The whole list of allowed values, where it is a short list (the mask filter sizes).
    """

    default: Any
    type: type | tuple
    allowed: str
    check: Callable[[Any], bool] | None = None
    nullable: bool = False
    help: str = ""
    bounds: tuple = (None, None)
    open_ends: tuple = (False, False)
    values: tuple | None = None


def ranged(default, type_, lo=None, hi=None, lo_open=False, hi_open=False, help="", nullable=False):
    """A number in a range: the ``allowed`` text, the check and the bounds from one statement
    (``"an integer 1..255"``, ``"a number in (0, 1]"``, ``"a number > 0"``, ...)."""
    if type_ is int and not lo_open and not hi_open:
        text = f"an integer {lo}..{hi}" if hi is not None else f"an integer >= {lo}"
    elif hi is None:
        text = f"a number {'>' if lo_open else '>='} {lo:g}"
    else:
        text = f"a number in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"

    def check(v):
        return (lo is None or (v > lo if lo_open else v >= lo)) and (
            hi is None or (v < hi if hi_open else v <= hi)
        )

    return Param(
        default,
        type_,
        ("null or " if nullable else "") + text,
        check,
        nullable=nullable,
        help=help,
        bounds=(lo, hi),
        open_ends=(lo_open, hi_open),
    )


def one_of(default, values, text, help=""):
    """An integer from a short list ``values`` (the ``allowed`` text says it in words)."""
    values = tuple(values)
    return Param(
        default, int, text, lambda v: v in values, help=help, bounds=(min(values), max(values)), values=values
    )


def choice(default, values, help=""):
    return Param(
        default, str, "one of " + ", ".join(repr(v) for v in values), lambda v: v in values, help=help
    )


def positive(default, help="", hi=None):
    return ranged(default, float, 0, hi, lo_open=True, help=help)


def coefficient(default, help=""):
    """A coefficient scale of the pixel detectors: a number in [MIN_COEF, MAX_COEF]."""
    return ranged(default, float, MIN_COEF, MAX_COEF, help=help)


#: Largest C, rho (SILK) and eta (NORMA) of the pixel detectors. The float32 state holds
#: coefficients over a decay scale that goes down to 2**-40 before it is renormalised, so values
#: above about 3e26 overflow to inf; 1e6 is far beyond any useful setting (the GUI's boxes end there).
MAX_COEF = 1e6

#: Smallest C, rho (SILK) and eta (NORMA). The live ROC bins the scores over (0, omega x C] (or
#: omega x eta) with a float32 scale of bins / range, which overflows below about 1e-34, and the
#: float32 coefficients underflow to 0 below about 1e-26; 1e-6 is far below any useful setting.
MIN_COEF = 1e-6


#: Largest score threshold of the pixel detectors (``detector.silk.threshold``,
#: ``detector.norma.threshold``; the detectors import it): a score is a sum of at most omega <= 255
#: terms of at most MAX_COEF each, so every pixel is foreground above it. It also keeps the
#: threshold within float32, the detectors' state type.
MAX_THRESHOLD = 255 * MAX_COEF


def threshold(default, help=""):
    return ranged(default, float, 0, MAX_THRESHOLD, help=help)


def unit_open(default, help=""):
    return ranged(default, float, 0, 1, lo_open=True, hi_open=True, help=help)


def boolean(default, help=""):
    return Param(default, bool, "true or false", help=help)


#: Smallest Gaussian kernel width of the SILK/NORMA detectors (``detector.silk.sigma``,
#: ``detector.norma.sigma``; the detectors import it): below about 4.6e-20 the kernel's float32
#: scale overflows, and every width <= 0.1 already gives the same detector.
SIGMA_MIN = 1e-6


def kernel_width(default, help=""):
    return ranged(default, float, SIGMA_MIN, help=help)


#: Largest width or height a frame may be resized to (``capture.resize`` and
#: :func:`silkvision.capture.open_source` share it).
MAX_FRAME_SIDE = 16384

#: Sizes of the mask's median filter and closing: 0 (off) or odd 3..15.
FILTER_SIZES = (0,) + tuple(range(3, 16, 2))

ALGORITHMS = ("silk", "norma", "mog2", "knn", "gsoc", "cnt")
#: Formats of the object and event files (``export.objects``, ``export.events``).
OBJECT_FORMATS = ("csv", "jsonl")
COLOUR_SPACES = ("rgb", "ycrcb", "lab", "gray")

SCHEMA: dict[str, Any] = {
    "detector": {
        "algorithm": choice(
            "silk",
            ALGORITHMS,
            "background subtractor of export and demo when none is named "
            "(evaluate compares its --algorithms list)",
        ),
        "colour_space": choice("ycrcb", COLOUR_SPACES, "pixel feature for SILK/NORMA"),
        "median": one_of(
            5, FILTER_SIZES, "0 (off) or an odd integer 3..15", help="median filter size applied to the mask"
        ),
        "close": one_of(
            5,
            FILTER_SIZES,
            "0 (off) or an odd integer 3..15",
            help="size of the elliptic closing applied to the mask after the median",
        ),
        "fill_holes": boolean(True, "fill enclosed background holes of the mask, after the closing"),
        "filter_width": ranged(
            320,
            int,
            0,
            100000,
            help="median and close are sizes for frames this wide; wider frames get windows that "
            "grow in proportion (odd, at most 15); 0 = the sizes as given",
        ),
        "silk": {
            "omega": ranged(20, int, 1, 255, help="support-vector buffer size per pixel"),
            "tau": unit_open(0.000503, "decay: old coefficients are multiplied by (1 - tau)"),
            "C": coefficient(0.4, "box constraint: new coefficient <= (1 - tau) C"),
            "rho": coefficient(1.0, "margin of the novelty hinge loss"),
            "sigma": kernel_width(8.0, "Gaussian kernel width in 8-bit colour units"),
            "threshold": threshold(0.45, "foreground if score f(x) < threshold"),
            "conservative": boolean(True, "soft conservative update for foreground pixels"),
            "kappa": ranged(
                0.078125, float, 0, 1, help="cap factor of the new coefficient for foreground pixels"
            ),
            "warmup": ranged(200, int, 0, help="frames learned with the milder warm-up cap warmup_kappa"),
            "warmup_kappa": ranged(
                0.5, float, 0, 1, help="cap factor for foreground pixels during the warm-up; 1 = no cap"
            ),
            "hold": ranged(
                1,
                int,
                0,
                100,
                help="the conservative cap also applies for this many frames after a "
                "pixel was last scored foreground",
            ),
            "global_change": ranged(
                0.5,
                float,
                0,
                1,
                lo_open=True,
                help="if more than this fraction of the last frame was foreground "
                "(e.g. a light switch), learn without the conservative cap; "
                "1 = never",
            ),
            "width_gain": ranged(
                0.2,
                float,
                0,
                10,
                help="kernel width per pixel: sigma grows by this much per unit of blinking above "
                "width_dead_zone (swaying leaves get absorbed); 0 = sigma everywhere",
            ),
            "width_max": ranged(2.0, float, 1, 8, help="largest kernel width per pixel, in units of sigma"),
            "width_dead_zone": ranged(
                2.0, float, 0, 10, help="blinking level (0..10) up to which a pixel keeps the width sigma"
            ),
            "texture_weight": ranged(
                0.0,
                float,
                0,
                8,
                help="texture term of the kernel: each differing bit of the 16-bit LBSP pattern "
                "multiplies it by 2^-texture_weight; 0 = colour only",
            ),
            "shadow": boolean(
                False,
                "a foreground pixel that is a darker copy of a learned colour with the same "
                "texture is shown as background (not with colour_space rgb)",
            ),
        },
        "norma": {
            "omega": ranged(20, int, 1, 255, help="truncation: the last omega terms are kept"),
            "eta": coefficient(0.1, "learning rate (coefficient of a new term)"),
            "lambda": positive(0.1, "regulariser: old terms decay by (1 - eta*lambda)"),
            "nu": ranged(0.5, float, 0, 1, help="nu of NORMA's novelty detection (offset update)"),
            "sigma": kernel_width(15.0, "Gaussian kernel width in 8-bit colour units"),
            "threshold": threshold(0.36, "foreground if score f(x) < threshold"),
        },
        "mog2": {
            "history": ranged(500, int, 1),
            "var_threshold": positive(16.0),
            "detect_shadows": boolean(False, "shadows (127) are reported as background"),
        },
        "knn": {
            "history": ranged(500, int, 1),
            "dist2_threshold": positive(400.0),
            "detect_shadows": boolean(False, "shadows (127) are reported as background"),
        },
    },
    "capture": {
        "camera_timeout": ranged(
            5.0,
            float,
            0,
            86400,
            lo_open=True,
            help="seconds to wait for a camera or stream frame before giving up",
        ),
        "reconnect_timeout": ranged(
            30.0,
            float,
            0,
            86400,
            help="seconds a network stream keeps reconnecting after it dropped (0: a drop ends it)",
        ),
        "max_frames": ranged(None, int, 1, nullable=True, help="stop after this many frames"),
        "resize": Param(
            None,
            list,
            f"null or [width, height] with integers in 1..{MAX_FRAME_SIDE}",
            lambda v: (
                len(v) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) and 0 < x <= MAX_FRAME_SIDE for x in v)
            ),
            nullable=True,
            bounds=(1, MAX_FRAME_SIDE),
            help="resize frames before detection",
        ),
        "on_bad_frame": choice(
            "stop",
            ("stop", "skip"),
            "what export does at a frame that cannot be decoded or has another "
            "size: stop with an error (the export resumes), or skip it (no mask; "
            "listed in export.json)",
        ),
    },
    "export": {
        "scores": boolean(False, "also write per-frame scores (float16, compressed .npz)"),
        "video": boolean(False, "also write a lossless mask video (FFV1 .mkv)"),
        "overwrite": boolean(False, "allow writing into a non-empty folder with other content"),
        "checkpoint_every": ranged(
            100,
            int,
            0,
            help="save the detector state every N frames so an interrupted "
            "export resumes (0: only when interrupted by Ctrl-C or SIGTERM)",
        ),
        "pipeline": boolean(
            True,
            "decode the next frames and write the files on threads of their own while the "
            "detector runs (the same files as without)",
        ),
        "objects": Param(
            None,
            str,
            "null or one of " + ", ".join(repr(v) for v in OBJECT_FORMATS),
            lambda v: v in OBJECT_FORMATS,
            nullable=True,
            help="also write the foreground regions of each mask (box, area, centroid) "
            "to objects.csv or objects.jsonl",
        ),
        "events": Param(
            None,
            str,
            "null or one of " + ", ".join(repr(v) for v in OBJECT_FORMATS),
            lambda v: v in OBJECT_FORMATS,
            nullable=True,
            help="also write motion events (runs of frames with regions) to events.csv or events.jsonl",
        ),
        "min_area": ranged(20, int, 1, help="smallest region of objects and events, in pixels"),
        "event_min_frames": ranged(5, int, 1, help="shortest motion event, in frames with regions"),
    },
    "evaluation": {
        "bins": ranged(4096, int, 16, 1 << 20, help="score histogram bins for the ROC"),
        "light_switch_window": ranged(100, int, 1, help="frames after a light switch that are scored"),
        "recovery_tolerance": ranged(
            0.05, float, 0, 1, lo_open=True, hi_open=True, help="F-measure gap that counts as recovered"
        ),
        "recovery_smoothing": ranged(
            10,
            int,
            1,
            help="frames whose per-frame F-measures are averaged when "
            "testing recovery after a light switch (1 = single frame)",
        ),
    },
    "gui": {
        "second_algorithm": choice(
            "norma", tuple(a for a in ALGORITHMS if a != "silk"), "algorithm shown beside SILK"
        ),
        "show_scores": boolean(True, "show the SILK score heat map"),
        "show_overlay": boolean(False, "show the mask overlaid on the input"),
        "roc_every": ranged(5, int, 1, help="redraw the ROC every N frames"),
        "display_fps": ranged(30.0, float, 0.1, 1000, help="maximum display refresh rate"),
    },
}
