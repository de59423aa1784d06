"""CDnet confusion counts and metrics on hand-made frames (expected values worked out by hand)."""

import math

import numpy as np
import pytest

from silkvision.errors import DataError
from silkvision.evaluation import Counts, confusion_counts, mean_metrics, metrics

# every label, each with foreground and background in the mask
#   label:  255 255   0   0  50  50  85  85 170 170
#   mask:   255   0 255   0 255   0 255   0 255   0
GT = np.array([[255, 255, 0, 0, 50, 50, 85, 85, 170, 170]], np.uint8)
MASK = np.array([[255, 0, 255, 0, 255, 0, 255, 0, 255, 0]], np.uint8)


def test_every_label_counted_by_hand():
    # 255: tp 1, fn 1;  0: fp 1, tn 1;  50 (shadow = background): fp 1, tn 1;  85, 170: ignored
    assert confusion_counts(MASK, GT) == Counts(tp=1, fp=2, fn=1, tn=2)


def test_roi_excludes_pixels():
    roi = np.ones_like(GT, bool)
    roi[0, [0, 2, 5]] = False  # drop one tp, one fp (label 0) and one tn (label 50)
    assert confusion_counts(MASK, GT, roi) == Counts(tp=0, fp=1, fn=1, tn=1)


def test_bool_mask_and_3_channel_gt():
    gt3 = np.repeat(GT[..., None], 3, axis=2)
    assert confusion_counts(MASK > 0, gt3) == Counts(tp=1, fp=2, fn=1, tn=2)


def test_mask_rules():
    m = MASK.copy()
    m[0, 0] = 127  # not 0/255: pixel with label 255
    with pytest.raises(DataError, match="127"):
        confusion_counts(m, GT)
    assert confusion_counts(m, GT, rule="cdnet") == Counts(tp=0, fp=2, fn=2, tn=2)
    assert confusion_counts(m, GT, rule="half") == Counts(tp=0, fp=2, fn=2, tn=2)
    assert confusion_counts(m, GT, rule="nonzero") == Counts(tp=1, fp=2, fn=1, tn=2)
    m[0, 0] = 200
    assert confusion_counts(m, GT, rule="half") == Counts(tp=1, fp=2, fn=1, tn=2)
    with pytest.raises(ValueError, match="rule"):
        confusion_counts(m, GT, rule="bogus")


def test_mask_rule_boundaries():
    """Each rule at its threshold: "half" is documented as >= 128, so 128 itself is foreground (the
    rule test above uses 127 and 200 only); "cdnet" is 255 alone, "nonzero" anything above 0."""
    from silkvision.evaluation.cdnet import mask_foreground

    m = np.array([[0, 1, 127, 128, 129, 254, 255]], np.uint8)
    assert mask_foreground(m, "half").tolist() == [[False, False, False, True, True, True, True]]
    assert mask_foreground(m, "cdnet").tolist() == [[False, False, False, False, False, False, True]]
    assert mask_foreground(m, "nonzero").tolist() == [[False, True, True, True, True, True, True]]


def test_bad_inputs_are_errors():
    with pytest.raises(DataError, match="same size"):
        confusion_counts(MASK[:, :5], GT)
    bad = GT.copy()
    bad[0, 1] = 254  # lossy ground truth
    with pytest.raises(DataError, match="254"):
        confusion_counts(MASK, bad)
    with pytest.raises(DataError, match="ROI"):
        confusion_counts(MASK, GT, np.ones((2, 10), bool))
    with pytest.raises(DataError, match="uint8"):
        confusion_counts(MASK, GT.astype(np.int32))


def test_metrics_by_hand():
    m = metrics(Counts(tp=30, fp=10, fn=20, tn=940))
    assert m["recall"] == pytest.approx(30 / 50)
    assert m["specificity"] == pytest.approx(940 / 950)
    assert m["fpr"] == pytest.approx(10 / 950)
    assert m["fnr"] == pytest.approx(20 / 50)
    assert m["pwc"] == pytest.approx(100 * 30 / 1000)
    assert m["precision"] == pytest.approx(30 / 40)
    assert m["f_measure"] == pytest.approx(2 * 30 / (60 + 10 + 20))


def test_metrics_undefined_are_nan():
    m = metrics(Counts(tp=0, fp=0, fn=5, tn=10))
    assert math.isnan(m["precision"]) and m["f_measure"] == 0.0 and m["recall"] == 0.0
    m = metrics(Counts(tp=0, fp=0, fn=0, tn=10))
    assert math.isnan(m["recall"]) and math.isnan(m["f_measure"]) and m["fpr"] == 0.0


def test_counts_add_and_sum():
    a, b = Counts(1, 2, 3, 4), Counts(10, 20, 30, 40)
    assert a + b == Counts(11, 22, 33, 44) == sum([a, b])
    assert Counts.from_array(a.as_array()) == a


def test_mean_is_cdnet_style():
    r1 = {**Counts(10, 0, 0, 90).as_dict(), **metrics(Counts(10, 0, 0, 90)), "auc": 0.9, "threshold": 0.3}
    r2 = {
        **Counts(10, 10, 10, 70).as_dict(),
        **metrics(Counts(10, 10, 10, 70)),
        "auc": None,
        "threshold": 0.3,
    }
    m = mean_metrics([r1, r2])
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (20, 10, 10, 160)  # sums
    assert m["f_measure"] == pytest.approx((1.0 + 0.5) / 2)  # mean of F, not F of the sums
    assert m["auc"] is None and m["threshold"] == 0.3 and m["n_sequences"] == 2


def test_mean_leaves_out_rows_without_any_scored_pixel():
    good = {**Counts(10, 10, 10, 70).as_dict(), **metrics(Counts(10, 10, 10, 70)), "threshold": 0.3}
    empty = {**Counts().as_dict(), **metrics(Counts()), "threshold": 0.3}  # every metric nan
    m = mean_metrics([good, empty])
    assert m["f_measure"] == pytest.approx(0.5) and m["recall"] == pytest.approx(0.5)
    assert m["n_sequences"] == 1 and (m["tp"], m["tn"]) == (10, 70)
    none = mean_metrics([empty])
    assert none["n_sequences"] == 0 and none["f_measure"] is None
    # a mean of means counts the sequences of its rows
    assert mean_metrics([{**m, "n_sequences": 3}, none])["n_sequences"] == 3
