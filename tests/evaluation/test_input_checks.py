"""Bad arguments to the evaluation functions are one-line errors naming the parameter."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.errors import ConfigError, DataError
from silkvision.evaluation import RocAccumulator, confusion_counts, evaluate_sequence
from silkvision.evaluation.cdnet import label_classes, mask_foreground


@pytest.mark.parametrize(
    "bins",
    [
        2.7,
        "8",
        "8.0",
        0,
        -1,
        0.0,
        True,
        np.bool_(True),
        None,
        float("nan"),
        float("inf"),
        np.float64(8.5),
        np.array([8]),
        np.array(True),
    ],
)
def test_roc_bins_must_be_an_integer_at_least_1(bins):
    with pytest.raises(ValueError, match=r"^bins: .*; expected an integer >= 1$"):
        RocAccumulator(0, 1, bins=bins)


@pytest.mark.parametrize(
    "bins", [np.int64(8), 8.0, np.float32(8.0), np.array(8), np.array(8.0), np.uint16(8)]
)
def test_roc_bins_may_be_any_integer_value(bins):
    roc = RocAccumulator(0, 1, bins=bins)
    assert roc.bins == 8 and type(roc.bins) is int
    assert roc.n_bins == RocAccumulator(0, 1, bins=8).n_bins
    np.testing.assert_array_equal(roc.edges, RocAccumulator(0, 1, bins=8).edges)


def test_roc_default_bins_as_a_float_is_the_default():
    assert RocAccumulator(0.0, 1.0, bins=4096.0).bins == 4096


@pytest.mark.parametrize(
    "lo, hi",
    [
        (np.array(0.0), np.array(1.0)),
        (np.array(0), 1.0),
        (0.0, np.array(1, np.int32)),
        (np.float32(0), np.array(1.0, np.float32)),
    ],
)
def test_roc_lo_hi_may_be_0d_arrays(lo, hi):
    roc = RocAccumulator(lo, hi, bins=4, thresholds=(np.array(0.5),))
    assert (roc.lo, roc.hi) == (0.0, 1.0) and type(roc.lo) is float and type(roc.hi) is float
    assert roc.thresholds == (0.5,)
    ref = RocAccumulator(0.0, 1.0, bins=4, thresholds=(0.5,))
    s = np.array([[0.1, 0.5, 0.3, 0.9, -1.0, 2.0]], np.float32)
    np.testing.assert_array_equal(roc.bin_index(s), ref.bin_index(s))


@pytest.mark.parametrize("thresholds", ["0.5", b"0.5", 0.5, [0.1, "0.2"], [np.nan], [True], [None]])
def test_roc_thresholds_must_be_finite_numbers(thresholds):
    with pytest.raises(ValueError, match=r"^thresholds: .*; expected a sequence of finite numbers"):
        RocAccumulator(0, 1, bins=4, thresholds=thresholds)


def test_roc_thresholds_may_be_numpy_numbers_or_a_generator():
    roc = RocAccumulator(0, 1, bins=4, thresholds=(t for t in (np.float32(0.25), np.float64(0.5), 1)))
    assert roc.thresholds == (0.25, 0.5, 1.0)


@pytest.mark.parametrize(
    "lo, hi",
    [("0", 1), (0, None), (False, 1), (np.array(False), 1), (np.array([0.0]), 1), (0, np.array("1"))],
)
def test_roc_lo_hi_must_be_numbers(lo, hi):
    with pytest.raises(ValueError, match=r"^lo, hi: .*expected finite numbers with lo < hi$"):
        RocAccumulator(lo, hi)


def test_roc_merge_of_something_else_is_a_type_error():
    with pytest.raises(TypeError, match="other: str; expected a RocAccumulator"):
        RocAccumulator(0, 1, 8).merge("x")


@pytest.mark.parametrize("roi", [np.ones((4, 4, 3), bool), np.ones(16, bool), np.ones((1, 4, 4), bool)])
def test_roi_that_is_not_2d_says_so(roi):
    z = np.zeros((4, 4), np.uint8)
    with pytest.raises(DataError) as e:
        confusion_counts(z, z, roi=roi)
    msg = str(e.value)
    assert msg.startswith(f"ROI: shape {roi.shape}; expected an HxW array") and "4x4" in msg
    with pytest.raises(DataError, match=r"^ROI: shape"):
        label_classes(z, roi)


def test_roi_of_another_size_still_names_both_sizes():
    z = np.zeros((4, 4), np.uint8)
    with pytest.raises(DataError, match="ROI is 3x3 but ground truth is 4x4"):
        confusion_counts(z, z, roi=np.ones((3, 3), bool))


@pytest.mark.parametrize("mask", [np.ones((4, 4), bool), np.full((4, 4), 255, np.uint8)])
def test_unknown_mask_rule_is_refused_for_every_mask_type(mask):
    with pytest.raises(ValueError, match=r"^rule: 'bogus'; expected one of strict, cdnet, half, nonzero$"):
        mask_foreground(mask, rule="bogus")
    with pytest.raises(ValueError, match="rule: 'bogus'"):
        confusion_counts(mask, np.zeros((4, 4), np.uint8), rule="bogus")


def test_an_algorithm_listed_twice_is_refused(tiny_seq):
    with pytest.raises(
        ConfigError, match=r"^algorithms: 'silk' is listed twice in \['silk', 'mog2', 'silk'\]"
    ):
        evaluate_sequence(tiny_seq, ("silk", "mog2", "silk"))
    with pytest.raises(ValueError, match="listed twice"):  # (ConfigError is a ValueError)
        evaluate_sequence(tiny_seq, iter(["mog2", "mog2"]))
