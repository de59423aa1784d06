"""ROC and precision-recall curves from a detector's real per-pixel scores.

A scored detector marks a pixel foreground iff ``score < threshold`` (lower = more novel). Instead of
re-running the detector once per threshold, :class:`RocAccumulator` keeps two histograms of the
scores over fixed bins -- one of the positive pixels (ground truth 255), one of the negative pixels
(0, 50) -- with exact integer counts, under the same CDnet rules as
:func:`~silkvision.evaluation.cdnet.confusion_counts` (ROI, ignored labels 85/170). For a threshold
``t`` that is a bin edge, the pixels with ``score < t`` are exactly the bins below the edge, so::

    TP(t) = #positives below t     FN(t) = #positives - TP(t)
    FP(t) = #negatives below t     TN(t) = #negatives - FP(t)

Bins
----
``bins`` uniform bins cover ``[lo, hi)``, plus one bin for scores below ``lo`` and one for scores at or
above ``hi`` (and ``+inf``/``nan``: a ``nan`` score is never ``< t``, so it is never foreground).
Each threshold listed at construction is inserted as an extra, *exact* edge: the bin index of a score
``s`` is ``u(s) + #{listed t : t <= s}`` where ``u`` is the (monotone) uniform-bin index, hence
``s < t`` <=> the bin of ``s`` is below the edge of ``t``, bit-exactly, whatever the rounding of ``u``.
The curves therefore pass exactly through the operating point of every listed threshold. The other
edges are exact up to float rounding of the uniform grid (the reported edge value may differ from the
true cut by one float32 ulp).

Scores and thresholds are compared in float32, as the detectors do (``scores < threshold`` with
float32 scores): listed thresholds are rounded to float32 once.

Mask post-processing
--------------------
The ROC is over the *raw* per-pixel decision ``score < t``. Detectors post-process their masks
after thresholding (``detector.median``, ``detector.close``, ``detector.fill_holes``), so the masks'
counts differ from the curve's point at the same threshold; with the post-processing off
(``median = 0``, ``close = 0``, ``fill_holes = false``) they are identical (tested).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

from silkvision.errors import DataError
from silkvision.evaluation.cdnet import CLASS_IGNORE, Counts, label_classes

__all__ = ["RocAccumulator"]


def _scalar(v):
    """``v`` itself, or the value of a 0-d numeric NumPy array (``np.array(0.5)`` -> ``0.5``); a 0-d
    bool array stays an array (and is no number)."""
    if isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind in "iuf":
        return v[()]
    return v


def _is_number(v) -> bool:
    """A real number (Python or NumPy scalar, or a 0-d numeric array), not a bool."""
    v = _scalar(v)
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _count(v) -> int | None:
    """``v`` as an int when it is an integer value: an integer, or an integral float such as
    ``4096.0`` (Python, NumPy or a 0-d array); None for bools, fractions, NaN, inf and non-numbers."""
    v = _scalar(v)
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer():
        return int(v)  # type: ignore[call-overload]  # numbers.Real does not declare __int__
    return None


def _numbers(values) -> list[float] | None:
    """``values`` as a list of floats, or None when it is not an iterable of real numbers."""
    try:
        items = list(values)
    except TypeError:
        return None
    return [float(_scalar(v)) for v in items] if all(_is_number(v) for v in items) else None


class RocAccumulator:
    """Histograms of positive/negative pixel scores on fixed bins; ROC, AUC, PR, best F.

    Parameters
    ----------
    lo, hi : float
        Range of the uniform bins (e.g. the detector's ``score_range``); scores outside are still
        counted exactly (in an under/overflow bin). Python or NumPy numbers or 0-d numeric arrays,
        finite, not bools.
    bins : int
        Number of uniform bins in ``[lo, hi)`` (>= 1): an integer value (``4096``, ``np.int64(4096)``
        or an integral float such as ``4096.0``); fractions, bools and strings raise ``ValueError``.
    thresholds : iterable of float
        Thresholds inserted as exact edges (e.g. ``(det.threshold,)``): :meth:`counts_at` at them is
        exact.

    Examples
    --------
    >>> import numpy as np
    >>> roc = RocAccumulator(0.0, 1.0, bins=10, thresholds=(0.35,))
    >>> roc.update(np.array([[0.1, 0.5, 0.3, 0.9]], np.float32), np.array([[255, 255, 0, 0]], np.uint8))
    >>> roc.counts_at(0.35)
    Counts(tp=1, fp=1, fn=1, tn=1)
    """

    def __init__(self, lo: float, hi: float, bins: int = 4096, thresholds: Iterable[float] = ()):
        if not (_is_number(lo) and _is_number(hi)):
            raise ValueError(f"lo, hi: ({lo!r}, {hi!r}); expected finite numbers with lo < hi")
        lo, hi = float(_scalar(lo)), float(_scalar(hi))
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            raise ValueError(f"lo, hi: ({lo!r}, {hi!r}) must be finite with lo < hi")
        n = _count(bins)
        if n is None or n < 1:
            raise ValueError(f"bins: {bins!r}; expected an integer >= 1")
        bins = n
        values = None if isinstance(thresholds, (str, bytes)) else _numbers(thresholds)
        if values is None or any(not math.isfinite(t) for t in values):
            raise ValueError(
                f"thresholds: {thresholds!r}; expected a sequence of finite numbers (e.g. (0.45,))"
            )
        thr = sorted({float(np.float32(t)) for t in values})
        self.lo, self.hi, self.bins = lo, hi, bins
        self.thresholds = tuple(thr)
        self._thr32 = np.array(thr, np.float32)
        self._lo32 = np.float32(lo)
        with np.errstate(over="ignore"):
            self._scale32 = np.float32(bins / (hi - lo))
        if not np.isfinite(self._scale32):
            raise ValueError(
                f"lo, hi: ({lo!r}, {hi!r}) too close for {bins} bins (the float32 bin "
                f"scale bins / (hi - lo) overflows)"
            )
        self.n_bins = bins + 2 + len(thr)  # underflow, uniform bins, overflow, one per threshold
        # Edge j separates bin j and bin j + 1: "score < edge j" <=> bin <= j. A listed threshold t
        # sits at position bin_index(t) - 1 (computed with the very float32 arithmetic used for the
        # scores, which makes it exact); the other positions are the uniform edges
        # lo + k (hi - lo) / bins, k = 0..bins, in increasing order.
        self._thr_pos = {}
        free = np.ones(self.n_bins - 1, bool)
        for t in thr:
            j = int(self.bin_index(np.array([[t]], np.float32))[0, 0]) - 1
            self._thr_pos[t] = j
            free[j] = False
        edges = np.empty(self.n_bins - 1, float)
        edges[free] = lo + np.arange(bins + 1) * ((hi - lo) / bins)
        for t, j in self._thr_pos.items():
            edges[j] = t
        # a listed threshold can sit one float32 step on the other side of a uniform edge beside it
        # (0.89999998 after 0.9): the thresholds reported keep it exact and move that uniform edge
        # to the float32 value next to it (within the uniform edges' own float32 accuracy), so that
        # they increase and a listed threshold is reported once, with its own counts
        for t, j in self._thr_pos.items():
            t32 = np.float32(t)
            edges[:j] = np.minimum(edges[:j], float(np.nextafter(t32, np.float32(-np.inf))))
            edges[j + 1 :] = np.maximum(edges[j + 1 :], float(np.nextafter(t32, np.float32(np.inf))))
        self.edges = edges
        self._sorted_edges = np.maximum.accumulate(edges)  # (increasing already, but for a guarantee)
        self._hist = np.zeros((2, self.n_bins), np.int64)  # [negatives, positives]
        self.frames = 0

    # -- accumulation --------------------------------------------------------------------------
    def bin_index(self, scores: np.ndarray) -> np.ndarray:
        """Bin index (intp) of every score (see the module docstring)."""
        s = np.asarray(scores, dtype=np.float32)
        x = np.subtract(s, self._lo32, dtype=np.float32)
        np.multiply(x, self._scale32, out=x)
        np.floor(x, out=x)
        x += np.float32(1.0)
        # fmin/fmax map nan to the overflow bin and clip +-inf before the integer cast
        np.fmin(x, np.float32(self.bins + 1), out=x)
        np.fmax(x, np.float32(0.0), out=x)
        idx = x.astype(np.intp)
        for t in self._thr32:
            idx += s >= t
        if np.isnan(s).any():  # nan is never < t: it belongs above every edge
            idx[np.isnan(s)] = self.n_bins - 1
        return idx

    def update(
        self,
        scores: np.ndarray,
        gt: np.ndarray,
        roi: np.ndarray | None = None,
        *,
        classes: np.ndarray | None = None,
    ) -> None:
        """Add one frame.

        Parameters
        ----------
        scores : ndarray
            HxW scores (float32; lower = more novel).
        gt : ndarray
            HxW uint8 CDnet labels (255 positive, 0/50 negative, 85/170 ignored).
        roi : ndarray, optional
            HxW bool region of interest.
        classes : ndarray, optional
            Precomputed :func:`~silkvision.evaluation.cdnet.label_classes` of ``gt`` and ``roi``
            (then ``gt`` and ``roi`` are not read again).
        """
        scores = np.asarray(scores)
        if scores.ndim != 2:
            raise DataError(f"scores: expected an HxW array, got shape {scores.shape}")
        if classes is None:
            gt = np.asarray(gt)
            if gt.shape[:2] != scores.shape:
                raise DataError(
                    f"scores are {scores.shape[1]}x{scores.shape[0]} but the ground truth is "
                    f"{gt.shape[1]}x{gt.shape[0]}; expected the same size"
                )
            classes = label_classes(gt, roi)
        elif classes.shape != scores.shape:
            raise DataError(f"classes: shape {classes.shape} differs from scores {scores.shape}")
        idx = self.bin_index(scores)
        # one bincount over (class, bin): the ignored class lands in a third block that is dropped
        key = classes.astype(np.intp)
        key *= self.n_bins
        key += idx
        h = np.bincount(key.ravel(), minlength=(CLASS_IGNORE + 1) * self.n_bins)
        self._hist += h[: 2 * self.n_bins].reshape(2, self.n_bins)
        self.frames += 1

    def merge(self, other: RocAccumulator) -> RocAccumulator:
        """Add another accumulator with the same bins (e.g. to pool several sequences)."""
        if not isinstance(other, RocAccumulator):
            raise TypeError(f"other: {type(other).__name__}; expected a RocAccumulator")
        if (other.lo, other.hi, other.bins, other.thresholds) != (
            self.lo,
            self.hi,
            self.bins,
            self.thresholds,
        ):
            raise ValueError("other: accumulators have different bins")
        self._hist += other._hist
        self.frames += other.frames
        return self

    def reset(self) -> None:
        """Forget all counts."""
        self._hist[:] = 0
        self.frames = 0

    # -- results -------------------------------------------------------------------------------
    @property
    def positives(self) -> int:
        return int(self._hist[1].sum())

    @property
    def negatives(self) -> int:
        return int(self._hist[0].sum())

    def _below(self) -> tuple[np.ndarray, np.ndarray]:
        """Negatives and positives strictly below each edge (arrays of len(edges))."""
        c = np.cumsum(self._hist, axis=1)
        return c[0, :-1], c[1, :-1]

    def counts_at(self, threshold: float) -> Counts:
        """Confusion counts of ``score < threshold``.

        Exact for the thresholds listed at construction, for any value below every score, and for a
        value above every score when every score was below ``hi``: scores at or above ``hi`` sit
        in the overflow bin, which no edge closes, so no threshold counts them as below. For another
        threshold the counts are those of the largest edge <= threshold (at most one bin away);
        :meth:`is_exact` tells which.
        """
        t = float(np.float32(threshold))
        fneg, fpos = self._below()
        if t in self._thr_pos:
            j = self._thr_pos[t]
        else:
            j = int(np.searchsorted(self._sorted_edges, t, side="right")) - 1
        fp = 0 if j < 0 else int(fneg[j])
        tp = 0 if j < 0 else int(fpos[j])
        return Counts(tp=tp, fp=fp, fn=self.positives - tp, tn=self.negatives - fp)

    def is_exact(self, threshold: float) -> bool:
        """Whether :meth:`counts_at` is known to be exact at ``threshold``: it was listed at
        construction, or no counted score lies in the bin that holds it nor in the bins beside it
        (the uniform edges are not computed with the scores' float32 arithmetic, so a score next
        to an edge may sit in the bin beside its own)."""
        t = float(np.float32(threshold))
        if t in self._thr_pos:
            return True
        j = int(np.searchsorted(self._sorted_edges, t, side="right"))  # the bin that holds t
        return not self._hist[:, max(j - 1, 0) : j + 2].any()

    def curve(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ROC: ``(fpr, tpr, thresholds)`` with increasing threshold (so non-decreasing FPR and
        TPR), starting at ``(0, 0, -inf)`` and ending at ``(1, 1, +inf)``.

        Raises
        ------
        DataError
            No positive or no negative pixel was seen (the ROC is undefined).
        """
        P, N = self.positives, self.negatives
        if P == 0 or N == 0:
            raise DataError(
                f"ROC undefined: {P} positive and {N} negative pixels seen; need ground truth with both"
            )
        fneg, fpos = self._below()
        fpr = np.concatenate([[0.0], fneg / N, [1.0]])
        tpr = np.concatenate([[0.0], fpos / P, [1.0]])
        thr = np.concatenate([[-np.inf], self.edges, [np.inf]])
        return fpr, tpr, thr

    def auc(self) -> float:
        """Area under the ROC (trapezoids through every edge; ties inside a bin are linear)."""
        fpr, tpr, _ = self.curve()
        return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) * 0.5))

    def pr_curve(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Precision-recall curve ``(precision, recall, thresholds)`` at every edge where something
        is detected (precision is undefined where TP + FP = 0), increasing threshold."""
        P = self.positives
        if P == 0:
            raise DataError("precision-recall undefined: no positive pixel seen")
        fneg, fpos = self._below()
        det = fneg + fpos
        ok = det > 0
        precision = fpos[ok] / det[ok]
        recall = fpos[ok] / P
        return precision, recall, self.edges[ok].copy()

    def f_curve(self) -> tuple[np.ndarray, np.ndarray]:
        """F-measure at every edge ``(f, thresholds)`` (0 where TP = 0)."""
        P = self.positives
        fneg, fpos = self._below()
        denom = P + fneg + fpos  # 2TP + FP + FN = TP + FP + P
        f = np.where(denom > 0, 2.0 * fpos / np.maximum(denom, 1), np.nan)
        return f, self.edges.copy()

    def best_f(self) -> tuple[float, float]:
        """``(threshold, f)`` of the edge with the largest F-measure (the lowest such threshold on
        ties).

        Raises
        ------
        DataError
            No positive pixel was seen: F is 0 wherever something is detected, so no threshold is
            best (detecting nothing, F undefined, would be).
        """
        if self.positives == 0:
            raise DataError("F-measure undefined: no positive pixel seen")
        f, thr = self.f_curve()
        j = int(np.nanargmax(f))
        return float(thr[j]), float(f[j])
