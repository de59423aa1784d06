"""The confusion counts have one implementation, used by the pooled counts and the runner alike."""

import numpy as np

from silkvision.evaluation.cdnet import class_counts, confusion_counts, label_classes


def test_class_counts_against_a_loop_over_pixels():
    rng = np.random.default_rng(3)
    gt = rng.choice(np.array([0, 50, 85, 170, 255], np.uint8), size=(9, 11))
    fg = rng.random((9, 11)) < 0.4
    cls = label_classes(gt, None)
    want = [0, 0, 0, 0]  # tp fp fn tn by hand
    for label, f in zip(gt.ravel(), fg.ravel()):
        if label in (85, 170):
            continue
        pos = label == 255
        want[(0 if f else 2) if pos else (1 if f else 3)] += 1
    assert class_counts(cls, fg) == tuple(want)
    c = confusion_counts(np.where(fg, 255, 0).astype(np.uint8), gt)
    assert (c.tp, c.fp, c.fn, c.tn) == tuple(want)
