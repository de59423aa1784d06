"""The leave-one-out benchmark's selection rule and its experimental kernel
(``benchmarks/detector_loo.py``, ``benchmarks/silk_variants_kernels.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
loo = pytest.importorskip("detector_loo")


def test_held_out_sequence_never_chooses_its_own_configuration():
    # "a" is best on s1 alone, "b" on the other two: holding s1 out must pick b, holding s2 out a
    table = {"a": {"s1": 0.99, "s2": 0.50, "s3": 0.60}, "b": {"s1": 0.40, "s2": 0.70, "s3": 0.70}}
    res = loo.leave_one_out(table, ["a", "b"], ["s1", "s2", "s3"])
    assert res["s1"]["config"] == "b" and res["s1"]["held_out_f"] == 0.40
    assert res["s2"]["config"] == "a" and res["s2"]["held_out_f"] == 0.50
    assert res["s3"]["config"] == "a" and res["s3"]["train_mean"] == pytest.approx(0.745)


def _frames(n=40, h=12, w=16, seed=3):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, (h, w, 3)).astype(np.int16)
    out = []
    for t in range(n):
        f = base + rng.normal(0, 5, base.shape).round().astype(np.int16)
        if t % 4 == 0:
            f[2:6, 3:8] = rng.integers(0, 256, 3)
        out.append(np.clip(f, 0, 255).astype(np.uint8))
    return out


def test_variant_kernel_with_every_idea_off_is_the_product_kernel():
    import silkvision as sv

    a = sv.create_subtractor("silk", warmup=5)
    b = loo._variant_class()({}, warmup=5)
    for f in _frames():
        np.testing.assert_array_equal(a.apply(f), b.apply(f))
        np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a._alphas, b._alphas)
    np.testing.assert_array_equal(a._colours, b._colours)


def test_diffusion_is_deterministic_and_changes_the_model():
    runs = []
    for _ in range(2):
        det = loo.make_detector({"diff_every": 2, "diff_kappa": 1.0, "warmup": 5})
        for f in _frames():
            det.apply(f)
        runs.append(det.get_state())
    np.testing.assert_array_equal(runs[0]["alphas"], runs[1]["alphas"])
    plain = loo._variant_class()({}, warmup=5)
    for f in _frames():
        plain.apply(f)
    assert not np.array_equal(plain._alphas, runs[0]["alphas"])


def test_output_only_consultation_learns_like_the_plain_detector():
    a = loo.make_detector({"consult": 8, "consult_output_only": 1, "warmup": 5})
    b = loo._variant_class()({}, warmup=5)
    fewer = 0
    for t, f in enumerate(_frames()):
        f = np.roll(f, t % 2, axis=1)  # one-pixel jitter: neighbours explain each other
        fewer += int(np.count_nonzero(b.apply(f))) - int(np.count_nonzero(a.apply(f)))
    np.testing.assert_array_equal(a._alphas, b._alphas)
    assert fewer > 0
