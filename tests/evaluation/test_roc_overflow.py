"""RocAccumulator's documented limit: scores at or above ``hi`` are never counted as below a
threshold (they sit in the overflow bin, which no edge closes), and is_exact says so."""

import numpy as np

from silkvision.evaluation import Counts, RocAccumulator


def test_scores_at_or_above_hi_are_never_below_a_threshold_and_is_exact_says_so():
    roc = RocAccumulator(0.0, 1.0, bins=10)
    roc.update(np.float32([[0.95, 1.5, 0.2, 7.0]]), np.uint8([[255, 255, 0, 0]]))
    assert roc.counts_at(8.0) == Counts(tp=1, fp=1, fn=1, tn=1)  # 1.5 and 7.0 are left out
    assert not roc.is_exact(8.0)
    inside = RocAccumulator(0.0, 1.0, bins=10)
    inside.update(np.float32([[0.95, 0.2]]), np.uint8([[255, 0]]))
    assert inside.counts_at(8.0) == Counts(tp=1, fp=1, fn=0, tn=0)
