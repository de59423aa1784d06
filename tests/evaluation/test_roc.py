"""RocAccumulator: exact counts at the listed thresholds, curves, AUC, PR and best F."""

import warnings

import numpy as np
import pytest

from silkvision.errors import DataError
from silkvision.evaluation import Counts, RocAccumulator, confusion_counts

LABELS = np.array([0, 50, 85, 170, 255], np.uint8)


def _brute(scores, gt, roi, t):
    return confusion_counts(((scores < np.float32(t)) * 255).astype(np.uint8), gt, roi)


def test_counts_at_listed_thresholds_are_exact(rng):
    for trial in range(40):
        lo, hi = np.sort(rng.uniform(-1, 2, 2))
        bins = int(rng.integers(1, 64))
        thr = list(rng.uniform(lo - 0.5, hi + 0.5, 3)) + [
            lo + (hi - lo) * int(rng.integers(0, bins + 1)) / bins
        ]
        s = rng.uniform(lo - 0.6, hi + 0.6, (20, 30)).astype(np.float32)
        for t in thr:  # scores exactly at, and one float32 step around, every threshold
            t32 = np.float32(t)
            s.flat[rng.integers(0, s.size, 5)] = t32
            s.flat[rng.integers(0, s.size, 3)] = np.nextafter(t32, np.float32(-np.inf))
            s.flat[rng.integers(0, s.size, 3)] = np.nextafter(t32, np.float32(np.inf))
        s.flat[:3] = [np.nan, np.inf, -np.inf]
        gt = rng.choice(LABELS, s.shape)
        roi = rng.random(s.shape) > 0.2
        roc = RocAccumulator(lo, hi, bins, thr)
        s2 = rng.permutation(s.ravel()).reshape(s.shape)
        roc.update(s, gt, roi)
        roc.update(s2, gt, roi)
        for t in thr:
            assert roc.counts_at(t) == _brute(s, gt, roi, t) + _brute(s2, gt, roi, t), (trial, t)


def test_is_exact_says_when_counts_at_may_be_a_bin_off(rng):
    s = rng.uniform(0, 1, (30, 40)).astype(np.float32)
    s[s.shape[0] // 2 :] += np.float32(2)  # an empty band [1, 2)
    gt = rng.choice(LABELS, s.shape)
    roc = RocAccumulator(0.0, 4.0, bins=64, thresholds=(0.3,))
    roc.update(s, gt)
    assert roc.is_exact(0.3)
    inexact = [t for t in rng.uniform(0, 1, 50) if roc.counts_at(t) != _brute(s, gt, None, t)]
    assert inexact and not any(roc.is_exact(t) for t in inexact)  # a binned value is never called exact
    for t in (1.3, 1.5, 1.7, 5.0):  # no score in or beside its bin: the edge below splits the same
        assert roc.is_exact(t) and roc.counts_at(t) == _brute(s, gt, None, t), t


def test_curve_shape_and_totals(rng):
    s = rng.normal(size=(40, 50)).astype(np.float32)
    gt = rng.choice(LABELS, s.shape)
    roc = RocAccumulator(-3, 3, 100, (0.0,))
    roc.update(s, gt)
    fpr, tpr, thr = roc.curve()
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0) and np.all(np.diff(thr) >= 0)
    assert roc.positives == int((gt == 255).sum())
    assert roc.negatives == int(np.isin(gt, (0, 50)).sum())


def test_auc_equals_mann_whitney_on_edge_aligned_scores(rng):
    # integer scores on the bin edges: histogram per value is exact, so the trapezoid AUC equals
    # P(s_pos < s_neg) + P(tie) / 2 (positives are the more novel = lower scores)
    pos = rng.integers(0, 10, 300).astype(np.float32)
    neg = (rng.integers(0, 10, 700) + 3).clip(0, 9).astype(np.float32)
    scores = np.concatenate([pos, neg])[None, :]
    gt = np.concatenate([np.full(300, 255), np.zeros(700)]).astype(np.uint8)[None, :]
    roc = RocAccumulator(0, 10, bins=10)
    roc.update(scores, gt)
    less = (pos[:, None] < neg[None, :]).mean()
    tie = (pos[:, None] == neg[None, :]).mean()
    assert roc.auc() == pytest.approx(less + tie / 2, abs=1e-12)


def test_perfect_and_inverted_separation():
    s = np.array([[0.1, 0.2, 0.8, 0.9]], np.float32)
    gt = np.array([[255, 255, 0, 0]], np.uint8)
    roc = RocAccumulator(0, 1, 64)
    roc.update(s, gt)
    assert roc.auc() == pytest.approx(1.0)
    thr, f = roc.best_f()
    assert f == pytest.approx(1.0) and 0.2 < thr <= 0.8
    roc2 = RocAccumulator(0, 1, 64)
    roc2.update(s, gt[:, ::-1].copy())
    assert roc2.auc() == pytest.approx(0.0)


def test_pr_and_best_f_match_brute_force(rng):
    s = rng.uniform(0, 1, (30, 30)).astype(np.float32)
    gt = np.where(rng.random(s.shape) < 0.3 + 0.4 * (s < 0.4), 255, 0).astype(np.uint8)
    roc = RocAccumulator(0, 1, 32)
    roc.update(s, gt)
    p, r, thr = roc.pr_curve()
    best = 0.0
    for k in range(0, len(thr), 3):
        c = _brute(s, gt, None, thr[k])
        assert p[k] == pytest.approx(c.tp / (c.tp + c.fp))
        assert r[k] == pytest.approx(c.tp / (c.tp + c.fn))
    for t in roc.edges:
        c = _brute(s, gt, None, t)
        best = max(best, 2 * c.tp / (2 * c.tp + c.fp + c.fn))
    assert roc.best_f()[1] == pytest.approx(best)
    none = RocAccumulator(0, 1, 32)
    none.update(s, np.zeros_like(gt))  # no positive: F is 0 wherever something is detected
    with pytest.raises(DataError, match="F-measure undefined: no positive pixel seen"):
        none.best_f()


def test_ignored_labels_and_precomputed_classes(rng):
    from silkvision.evaluation.cdnet import label_classes

    s = rng.uniform(0, 1, (8, 8)).astype(np.float32)
    gt = rng.choice(LABELS, s.shape)
    roi = rng.random(s.shape) > 0.3
    a, b = RocAccumulator(0, 1, 16, (0.5,)), RocAccumulator(0, 1, 16, (0.5,))
    a.update(s, gt, roi)
    b.update(s, None, classes=label_classes(gt, roi))
    assert a.counts_at(0.5) == b.counts_at(0.5) == _brute(s, gt, roi, 0.5)
    assert a.positives + a.negatives == int((roi & np.isin(gt, (0, 50, 255))).sum())


def test_merge_and_reset(rng):
    s = rng.uniform(0, 1, (6, 6)).astype(np.float32)
    gt = rng.choice(LABELS, s.shape)
    a, b = RocAccumulator(0, 1, 8, (0.3,)), RocAccumulator(0, 1, 8, (0.3,))
    a.update(s, gt)
    b.update(s, gt)
    a.merge(b)
    assert a.counts_at(0.3) == _brute(s, gt, None, 0.3) + _brute(s, gt, None, 0.3)
    with pytest.raises(ValueError):
        a.merge(RocAccumulator(0, 1, 9))
    a.reset()
    assert a.counts_at(0.3) == Counts()


def test_errors():
    with pytest.raises(ValueError, match="lo, hi"):
        RocAccumulator(1, 0)
    with pytest.raises(ValueError, match="bins"):
        RocAccumulator(0, 1, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way to the error
        with pytest.raises(ValueError, match=r"^lo, hi: \(0.0, 1e-300\) too close for 4096 bins"):
            RocAccumulator(0, 1e-300, 4096)
    roc = RocAccumulator(0, 1, 8)
    with pytest.raises(DataError, match="same size"):
        roc.update(np.zeros((2, 2), np.float32), np.zeros((3, 2), np.uint8))
    roc.update(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.uint8))
    with pytest.raises(DataError, match="ROC undefined"):
        roc.curve()


def test_best_f_takes_the_lowest_threshold_on_ties_and_counts_at_an_edge_is_exact():
    """Empty bins give equal F at neighbouring edges: best_f must return the lowest (documented),
    and counts_at on a bin edge counts the scores below that edge."""
    acc = RocAccumulator(0.0, 1.0, bins=10)
    acc.update(np.array([[0.05, 0.95]], np.float32), np.array([[255, 0]], np.uint8))
    thr, f = acc.best_f()
    assert (thr, f) == (pytest.approx(0.1), 1.0)
    acc = RocAccumulator(0.0, 1.0, bins=4)
    acc.update(np.array([[0.3, 0.9]], np.float32), np.array([[255, 0]], np.uint8))
    assert acc.counts_at(0.5) == Counts(tp=1, fp=0, fn=0, tn=1)
    assert acc.counts_at(0.25) == Counts(tp=0, fp=0, fn=1, tn=1)


@pytest.mark.parametrize(
    "lo, hi, bins, thr", [(0, 9, 10, (0.9,)), (-3.3, 5.7, 100, (1.74000025,)), (0, 1, 4096, (0.3, 0.45, 0.7))]
)
def test_reported_thresholds_never_decrease_and_listed_ones_stay_exact(lo, hi, bins, thr):
    """A listed threshold one float32 step on the other side of a uniform edge (0.89999998 after
    0.9) made curve()/pr_curve()/f_curve() thresholds decrease."""
    roc = RocAccumulator(lo, hi, bins=bins, thresholds=thr)
    rng = np.random.default_rng(0)
    gt = np.where(rng.random((20, 20)) < 0.3, 255, 0).astype(np.uint8)
    scores = rng.uniform(lo, hi, (20, 20)).astype(np.float32)
    roc.update(scores, gt)
    for t in (roc.curve()[2], roc.f_curve()[1], roc.pr_curve()[2]):
        assert np.all(np.diff(t[np.isfinite(t)]) > 0)
    _, _, t = roc.curve()
    for listed in roc.thresholds:
        assert list(t).count(listed) == 1
        assert roc.counts_at(listed) == confusion_counts(scores < np.float32(listed), gt)  # brute force


def test_the_best_f_threshold_reported_beside_a_listed_one_has_its_own_counts():
    """The uniform edge next to a listed threshold was reported as that threshold (or as an edge
    whose counts_at differed): best_f gave F 0.667 at a threshold where counts_at gave 0.5."""
    roc = RocAccumulator(-3.3, 5.7, 4096, (0.510058581829071,))
    t = roc.thresholds[0]
    x = np.float32(t)
    below = np.array([x - np.float32(i) * np.spacing(x) for i in range(1, 40)], np.float32)
    b = roc.bin_index(below[None])[0]
    j = roc._thr_pos[t]
    roc.update(np.float32([[below[b == j - 1][0], below[b == j][0], 2.0, 2.0]]), np.uint8([[255, 0, 255, 0]]))
    thr, f = roc.best_f()
    c = roc.counts_at(thr)
    assert f == pytest.approx(2 * c.tp / (2 * c.tp + c.fp + c.fn))
    assert list(roc.pr_curve()[2]).count(t) <= 1
