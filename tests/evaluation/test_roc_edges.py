"""RocAccumulator at its edges: lo == hi, scores at or above ``hi``, merging accumulators with other
listed thresholds, ground truth without negatives, and thresholds one float32 step away from a
uniform bin edge (where float32 binning and float64 edges disagree)."""

import numpy as np
import pytest

from silkvision.errors import DataError
from silkvision.evaluation import Counts, RocAccumulator, confusion_counts


def _brute(scores, gt, t):
    return confusion_counts(((scores < np.float32(t)) * 255).astype(np.uint8), gt, None)


def _around(x, steps):
    """float32 values ``x`` and ``steps`` float32 steps either side of it."""
    x = np.float32(x)
    return [float(x + np.float32(i) * np.spacing(x)) for i in range(-steps, steps + 1)]


@pytest.mark.parametrize("lo,hi", [(1.0, 1.0), (0.0, 0.0), (-2.5, -2.5)])
def test_an_empty_score_range_is_refused(lo, hi):
    """``lo == hi`` is refused with the documented ValueError (not a division by zero)."""
    with pytest.raises(ValueError, match=r"lo, hi: .* must be finite with lo < hi"):
        RocAccumulator(lo, hi)


def test_scores_at_or_above_hi_are_not_below_hi():
    """Scores >= ``hi`` go to the overflow bin, above the last uniform edge: ``counts_at(hi)``
    does not count them as detected."""
    roc = RocAccumulator(0.0, 1.0, bins=10)
    s = np.float32([[0.95, 1.5, 1.0, 0.2, 0.3, 7.0]])
    gt = np.uint8([[255, 255, 255, 0, 0, 0]])
    roc.update(s, gt)
    assert roc.counts_at(1.0) == _brute(s, gt, 1.0) == Counts(tp=1, fp=2, fn=2, tn=1)


def test_merge_refuses_other_listed_thresholds():
    """Accumulators with different listed thresholds have different bins: merging them would add
    unrelated histograms bin by bin."""
    a = RocAccumulator(0.0, 1.0, 10, (0.3,))
    b = RocAccumulator(0.0, 1.0, 10, (0.5,))
    b.update(np.float32([[0.4]]), np.uint8([[255]]))
    with pytest.raises(ValueError, match="different bins"):
        a.merge(b)
    assert a.counts_at(0.3) == Counts()  # nothing was added
    with pytest.raises(ValueError, match="different bins"):
        a.merge(RocAccumulator(0.0, 1.0, 10))  # none listed against one listed


def test_roc_without_negative_pixels_is_undefined():
    """The no-negative side of "ROC undefined" (the no-positive side is in test_roc.py)."""
    roc = RocAccumulator(0.0, 1.0, 10)
    roc.update(np.float32([[0.2, 0.7]]), np.uint8([[255, 255]]))
    with pytest.raises(DataError, match="ROC undefined: 2 positive and 0 negative pixels seen"):
        roc.curve()
    with pytest.raises(DataError, match="ROC undefined"):
        roc.auc()


@pytest.mark.parametrize(
    "lo,hi,bins,listed",
    [
        (-3.3, 5.7, 100, 1.7400002479553223),  # float32 binning puts this listed value below edge 1.74
        (0.0, 9.0, 10, 0.9),
        (-3.3, 5.7, 100, 1.74),
    ],
)
def test_counts_never_decrease_with_the_threshold_next_to_a_listed_one(lo, hi, bins, listed):
    """A listed threshold one float32 step from a uniform edge: sweeping ``t`` across both, the
    counts never decrease, and an unlisted ``t`` below the listed one never counts more than the
    listed one's exact counts (the scores include the listed value itself)."""
    roc = RocAccumulator(lo, hi, bins, (listed,))
    L = roc.thresholds[0]
    near = _around(L, 6)
    s = np.float32(near + [L - 0.2, L - 0.05, L + 0.05, L + 0.2])[None, :]
    gt = np.where(np.arange(s.size) % 3 == 2, 0, 255).astype(np.uint8)[None, :]
    roc.update(s, gt)
    exact = roc.counts_at(L)
    assert exact == _brute(s, gt, L)
    sweep = sorted(set(_around(L, 8) + [L - 0.1, L + 0.1, lo, hi]))
    counts = [roc.counts_at(t) for t in sweep]
    for t, a, b in zip(sweep[1:], counts, counts[1:]):
        assert b.tp >= a.tp and b.fp >= a.fp, t
    for t, c in zip(sweep, counts):
        if t < L:
            assert c.tp <= exact.tp and c.fp <= exact.fp, t


@pytest.mark.parametrize(
    "lo,hi,bins", [(-3.3, 4.7, 100), (0.1, 9.1, 16), (123.456, 124.156, 10), (0.7, 7.7, 100)]
)
def test_is_exact_is_never_claimed_for_a_score_binned_beside_its_edge(lo, hi, bins):
    """Scores a few float32 steps around every uniform edge, each also used as the threshold: some
    land in the bin beside their own (float32 binning against float64 edges), and wherever
    ``counts_at`` is then off, ``is_exact`` says False."""
    probe = RocAccumulator(lo, hi, bins)
    scores = np.float32([v for e in probe.edges[1:-1] for v in _around(e, 3)])
    off = 0
    for k, t in enumerate(scores):
        roc = RocAccumulator(lo, hi, bins)
        s = np.float32([[t, lo + 0.5 * (hi - lo) / bins]])  # one positive, one far negative
        gt = np.uint8([[255, 0]])
        roc.update(s, gt)
        if roc.counts_at(float(t)) != _brute(s, gt, t):
            off += 1
            assert not roc.is_exact(float(t)), (k, float(t))
    assert off  # the case does occur on these edges


def test_is_exact_false_for_a_score_just_above_an_edge_binned_below_it():
    """A score just above the edge -3.3 + 27 x 0.08 is binned below it: ``counts_at`` at that
    score counts it, so the counts are not exact there."""
    roc = RocAccumulator(-3.3, 4.7, bins=100)
    s = np.float32(-1.1399999856948853)
    scores, gt = np.float32([[s, -3.0]]), np.uint8([[255, 0]])
    roc.update(scores, gt)
    t = float(s)
    assert roc.counts_at(t) != _brute(scores, gt, t)
    assert not roc.is_exact(t)
