"""CDnet2014 confusion counts and metrics.

Scoring rules (those of the CDnet2014 comparator, ``changedetection.net`` utilities):

* only pixels inside the ROI count (``ROI.bmp``: non-zero = inside);
* ground-truth label 255 (moving) is *positive*; 0 (static) and 50 (hard shadow) are *negative*;
  85 (outside ROI) and 170 (unknown motion) are *ignored*;
* any other ground-truth value is an error (:class:`~silkvision.errors.DataError`), never silently
  mapped: ground truth saved lossily (JPEG) or resized with interpolation would otherwise give
  wrong numbers;
* confusion counts are pooled (summed) over all evaluated frames of a sequence, and the metrics are
  computed once from the pooled counts:

  ============  ======================================
  recall        TP / (TP + FN)
  specificity   TN / (TN + FP)
  fpr           FP / (FP + TN)
  fnr           FN / (TP + FN)
  pwc           100 (FN + FP) / (TP + FN + FP + TN)
  precision     TP / (TP + FP)
  f_measure     2 precision recall / (precision + recall)
  ============  ======================================

  A metric whose denominator is 0 is ``nan`` (``null`` in JSON), e.g. precision when nothing was
  detected; F-measure is 0 when TP = 0 and TP + FP + FN > 0.

Masks
-----
A detector mask is HxW ``uint8`` 0/255 or ``bool``. What counts as foreground in a ``uint8`` mask is
the *mask rule*:

``"strict"`` (default)
    values must be 0 or 255; anything else raises :class:`~silkvision.errors.DataError`.
``"cdnet"``
    exactly 255 is foreground, every other value background (what the CDnet comparator does; an
    OpenCV shadow value 127 is then background).
``"half"``
    values >= 128 are foreground (for masks that went through lossy compression).
``"nonzero"``
    values > 0 are foreground.

Averages over several sequences follow CDnet's ``Stats.py``: a category's metrics are the means of
its sequences' metrics (not metrics of pooled counts), the overall metrics the means over categories;
the counts of a category / overall are sums. A sequence without any scored pixel (all its ground
truth ignored or outside the ROI: every metric undefined) is left out of the means, and
``n_sequences`` counts only the sequences that went in (see :func:`mean_metrics`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from silkvision.errors import DataError

__all__ = [
    "Counts",
    "confusion_counts",
    "class_counts",
    "metrics",
    "METRIC_NAMES",
    "LABEL_POSITIVE",
    "LABEL_NEGATIVE",
    "LABEL_IGNORED",
    "MASK_RULES",
    "label_classes",
    "mask_foreground",
    "mean_metrics",
    "has_scored_pixels",
    "CLASS_NEG",
    "CLASS_POS",
    "CLASS_IGNORE",
]

LABEL_POSITIVE = (255,)
LABEL_NEGATIVE = (0, 50)
LABEL_IGNORED = (85, 170)
METRIC_NAMES = ("recall", "specificity", "fpr", "fnr", "pwc", "precision", "f_measure")
MASK_RULES = ("strict", "cdnet", "half", "nonzero")

# per-pixel classes used by the ROC accumulator as well
CLASS_NEG, CLASS_POS, CLASS_IGNORE, CLASS_BAD = 0, 1, 2, 3
_LUT = np.full(256, CLASS_BAD, np.uint8)
_LUT[list(LABEL_NEGATIVE)] = CLASS_NEG
_LUT[list(LABEL_POSITIVE)] = CLASS_POS
_LUT[list(LABEL_IGNORED)] = CLASS_IGNORE


@dataclass(frozen=True)
class Counts:
    """Confusion counts (pixels) of a mask against ground truth; ``c1 + c2`` adds them."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: Counts) -> Counts:
        if not isinstance(other, Counts):
            return NotImplemented
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn)

    def __radd__(self, other):  # sum([...]) starts with 0
        if other == 0:
            return self
        return NotImplemented

    @property
    def total(self) -> int:
        """Number of scored pixels."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        return self.fp + self.tn

    def as_dict(self) -> dict:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}

    def as_array(self) -> np.ndarray:
        return np.array([self.tp, self.fp, self.fn, self.tn], np.int64)

    @classmethod
    def from_array(cls, a) -> Counts:
        a = np.asarray(a)
        return cls(int(a[0]), int(a[1]), int(a[2]), int(a[3]))


def _check_2d(name: str, a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 3 and a.shape[2] in (1, 3, 4):
        # a 3-channel CDnet PNG read in colour: channels must agree
        if a.shape[2] == 1 or (np.array_equal(a[..., 0], a[..., 1]) and np.array_equal(a[..., 0], a[..., 2])):
            a = a[..., 0]
        else:
            raise DataError(f"{name}: colour image whose channels differ; expected a grey HxW image")
    if a.ndim != 2:
        raise DataError(f"{name}: expected an HxW image, got shape {a.shape}")
    return a


def label_classes(gt: np.ndarray, roi: np.ndarray | None = None, *, name: str = "ground truth") -> np.ndarray:
    """Per-pixel class of a CDnet ground-truth frame: 0 negative, 1 positive, 2 ignored.

    Parameters
    ----------
    gt : ndarray
        HxW uint8 labels (0, 50, 85, 170, 255).
    roi : ndarray, optional
        HxW bool (or 0/non-zero) region of interest; pixels outside are ignored.
    name : str
        Used in error messages (e.g. the file name).

    Raises
    ------
    DataError
        Labels other than 0/50/85/170/255, or an ROI of another size.
    """
    gt = _check_2d(name, gt)
    if gt.dtype != np.uint8:
        raise DataError(f"{name}: expected uint8 labels, got {gt.dtype}")
    cls = _LUT[gt]
    if roi is not None:
        roi = np.asarray(roi)
        if roi.ndim != 2:
            raise DataError(
                f"ROI: shape {roi.shape}; expected an HxW array the size of {name} "
                f"({gt.shape[1]}x{gt.shape[0]})"
            )
        if roi.shape != gt.shape:
            raise DataError(
                f"ROI is {roi.shape[1]}x{roi.shape[0]} but {name} is "
                f"{gt.shape[1]}x{gt.shape[0]}; expected the same size"
            )
        cls[~roi.astype(bool, copy=False)] = CLASS_IGNORE
    if (cls == CLASS_BAD).any():
        bad = np.unique(gt[cls == CLASS_BAD])
        shown = ", ".join(str(int(v)) for v in bad[:6]) + (", ..." if bad.size > 6 else "")
        raise DataError(
            f"{name}: labels {shown} are not CDnet labels; expected only 0, 50, 85, 170, 255 "
            f"(lossy or resized ground truth?)"
        )
    return cls


def mask_foreground(mask: np.ndarray, rule: str = "strict", *, name: str = "mask") -> np.ndarray:
    """Boolean foreground of a mask under a mask rule (see the module docstring)."""
    if rule not in MASK_RULES:  # (checked for bool masks too, which every rule reads alike)
        raise ValueError(f"rule: {rule!r}; expected one of {', '.join(MASK_RULES)}")
    mask = _check_2d(name, mask)
    if mask.dtype == bool:
        return mask
    if mask.dtype != np.uint8:
        raise DataError(f"{name}: expected a uint8 0/255 or bool mask, got {mask.dtype}")
    if rule == "strict":
        fg = mask == 255
        if not (fg | (mask == 0)).all():
            bad = np.unique(mask[~(fg | (mask == 0))])
            shown = ", ".join(str(int(v)) for v in bad[:6]) + (", ..." if bad.size > 6 else "")
            raise DataError(
                f"{name}: values {shown} in a mask; expected only 0 and 255 "
                f"(choose a mask rule: cdnet = only 255 is foreground, half = >= 128)"
            )
        return fg
    if rule == "cdnet":
        return mask == 255
    if rule == "half":
        return mask >= 128
    return mask > 0


def confusion_counts(
    mask: np.ndarray,
    gt: np.ndarray,
    roi: np.ndarray | None = None,
    *,
    rule: str = "strict",
    name: str = "mask",
) -> Counts:
    """Confusion counts of one mask against one CDnet ground-truth frame.

    Parameters
    ----------
    mask : ndarray
        HxW uint8 0/255 (see ``rule``) or bool; foreground = detected motion.
    gt : ndarray
        HxW uint8 CDnet labels: 255 positive, 0 and 50 negative, 85 and 170 ignored.
    roi : ndarray, optional
        HxW bool region of interest; pixels outside are ignored.
    rule : str
        Mask rule for uint8 masks: ``"strict"``, ``"cdnet"``, ``"half"`` or ``"nonzero"``.
    name : str
        Name used in error messages (e.g. the mask file).

    Returns
    -------
    Counts

    Raises
    ------
    DataError
        Mask and ground truth of different sizes, non-CDnet labels, a mask that breaks the rule.

    Examples
    --------
    >>> import numpy as np
    >>> gt = np.array([[255, 0, 50, 85, 170]], np.uint8)
    >>> confusion_counts(np.array([[255, 255, 255, 255, 0]], np.uint8), gt)
    Counts(tp=1, fp=2, fn=0, tn=0)
    """
    fg = mask_foreground(mask, rule, name=name)
    gt2 = _check_2d("ground truth", gt)
    if fg.shape != gt2.shape:
        raise DataError(
            f"{name} is {fg.shape[1]}x{fg.shape[0]} but its ground truth is "
            f"{gt2.shape[1]}x{gt2.shape[0]}; expected the same size"
        )
    tp, fp, fn, tn = class_counts(label_classes(gt2, roi), fg)
    return Counts(tp=tp, fp=fp, fn=fn, tn=tn)


def class_counts(cls: np.ndarray, fg: np.ndarray) -> tuple[int, int, int, int]:
    """``(tp, fp, fn, tn)`` of a frame from its pixel classes and its foreground: the one place the
    confusion counts are computed (:func:`confusion_counts`, and the evaluation runner per frame).

    Parameters
    ----------
    cls : ndarray
        Pixel classes of :func:`label_classes` (0 negative, 1 positive, 2 ignored), any shape.
    fg : ndarray
        Foreground of the same shape, bool or 0/1 (:func:`mask_foreground`).
    """
    # one bincount over (class, foreground) pairs: no Python loop over pixels
    h = np.bincount((cls.astype(np.intp).ravel() << 1) | fg.ravel(), minlength=6)
    return int(h[3]), int(h[1]), int(h[2]), int(h[0])


def _div(a: float, b: float) -> float:
    return a / b if b else math.nan


def metrics(c: Counts) -> dict:
    """The seven CDnet metrics of pooled counts (see the module docstring); ``nan`` when undefined."""
    tp, fp, fn, tn = c.tp, c.fp, c.fn, c.tn
    recall = _div(tp, tp + fn)
    precision = _div(tp, tp + fp)
    if tp == 0:
        f = 0.0 if (fp + fn) > 0 else math.nan
    else:
        f = 2.0 * precision * recall / (precision + recall)
    return {
        "recall": recall,
        "specificity": _div(tn, tn + fp),
        "fpr": _div(fp, fp + tn),
        "fnr": _div(fn, tp + fn),
        "pwc": _div(100.0 * (fn + fp), tp + fn + fp + tn),
        "precision": precision,
        "f_measure": f,
    }


def _nanmean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    if not vals or len(vals) < len(values):
        return None  # a mean over a subset would mislead: undefined if any member is undefined
    arr = np.asarray(vals, float)
    return float(arr.mean())


def has_scored_pixels(row: Mapping) -> bool:
    """Whether a result row (``tp, fp, fn, tn``) counts at least one scored pixel; without one every
    metric of the row is undefined (all ground truth ignored or outside the ROI)."""
    return any(int(row[k]) for k in ("tp", "fp", "fn", "tn"))


def mean_metrics(rows: Iterable[Mapping]) -> dict:
    """CDnet-style mean of per-sequence result rows (or of category means).

    Parameters
    ----------
    rows : iterable of mapping
        Each row has ``tp, fp, fn, tn`` and the metric keys (and optionally ``auc``, ``best_f``,
        ``threshold``, and ``n_sequences`` for a row that is itself a mean).

    Returns
    -------
    dict
        Counts summed over all rows. Metrics (and ``auc``, ``best_f``) averaged over the rows with
        at least one scored pixel (:func:`has_scored_pixels`); rows without one are left out, as
        their metrics are all undefined. Among the rows that go in, a metric undefined
        (``nan``/``None``) in any of them makes its mean ``None``: a mean over a subset would
        mislead. ``threshold`` is kept only if every row has the same one. ``n_sequences`` is the
        number of sequences that went into the means (a row counts as its own ``n_sequences``, 1
        by default); with none, every metric is ``None``.
    """
    rows = list(rows)
    scored = [r for r in rows if has_scored_pixels(r)]
    out: dict = {}
    for k in ("tp", "fp", "fn", "tn"):
        out[k] = int(sum(int(r[k]) for r in rows))
    for k in (*METRIC_NAMES, "auc", "best_f"):
        vals = [r.get(k) for r in scored]
        vals = [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in vals]
        out[k] = _nanmean(vals)
    thr = {r.get("threshold") for r in rows}
    out["threshold"] = thr.pop() if len(thr) == 1 else None
    out["n_sequences"] = int(sum(r.get("n_sequences", 1) for r in scored))
    return out
