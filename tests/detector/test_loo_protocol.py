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

    a = sv.create_subtractor("silk", warmup=5, width_gain=0.0)  # the variants' base: one width
    b = loo._variant_class()({}, warmup=5)
    for f in _frames():
        np.testing.assert_array_equal(a.apply(f), b.apply(f))
        np.testing.assert_array_equal(a.scores, b.scores)
    np.testing.assert_array_equal(a._alphas, b._alphas)
    np.testing.assert_array_equal(a._colours, b._colours)


def test_the_products_texture_option_is_the_variant_it_was_ported_from():
    """Masks and state bit for bit (scores differ only where the shadow test raises them)."""
    a = loo.make_detector({**loo.PRODUCT_TEXTURE, "warmup": 5})
    b = loo.make_detector({**loo.PRODUCT_TEXTURE_AS_VARIANT, "warmup": 5})
    assert type(a).__name__ == "SilkSubtractor" and a.get_params()["shadow"] is True
    assert type(b).__name__ == "VariantSilk"  # its shadow is 1, the product's true
    held = 0
    for t, f in enumerate(_frames(80)):
        if t % 5 == 4:
            f = (f * 0.7).astype(np.uint8)  # darker copies: the shadow test holds somewhere
        np.testing.assert_array_equal(a.apply(f), b.apply(f))
        held += int(np.count_nonzero(a._shown != a._raw))
    assert held > 0
    np.testing.assert_array_equal(a._alphas, b._alphas)
    np.testing.assert_array_equal(a._colours, b._colours)
    np.testing.assert_array_equal(a._extra["textures"], b._extra["svtex"])


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


def test_lbsp_kernel_agrees_with_the_numpy_reference():
    vk = pytest.importorskip("silk_variants_kernels")
    rng = np.random.default_rng(5)
    feat = rng.integers(0, 256, (11, 19, 3)).astype(np.uint8)
    feat[3:8, 4:12, 0] = 40  # a flat patch: only the absolute floor decides there
    out = np.zeros((11, 19), np.uint16)
    for rel in (0.1, 0.3):
        vk.lbsp(feat, np.float32(rel), out)
        np.testing.assert_array_equal(out, vk.lbsp_reference(feat[..., 0], rel))
    # a uniformly darker copy keeps its pattern away from the floor (why shadows keep texture)
    bright = np.ascontiguousarray(np.repeat(np.tile([[60, 200], [200, 60]], (6, 10)), 3).reshape(12, 20, 3))
    a, b = np.zeros((12, 20), np.uint16), np.zeros((12, 20), np.uint16)
    vk.lbsp(bright.astype(np.uint8), np.float32(0.3), a)
    vk.lbsp((bright * 0.6).astype(np.uint8), np.float32(0.3), b)
    np.testing.assert_array_equal(a, b)
    assert a.any()


def _textured(h=12, w=16):
    yy, xx = np.mgrid[:h, :w]
    grey = np.where((yy + xx) % 2 == 0, 90, 200)
    f = np.stack([grey, grey, grey], axis=-1).astype(np.float32)
    return f


def test_shadow_test_keeps_a_darker_textured_patch_as_background():
    from silkvision.detector.postprocess import NO_POSTPROCESSING

    # raw masks: the patterns that straddle the patch's edge differ, and with the product's hole
    # filling that foreground ring would fill the shadow back in
    base = _textured()
    plain = loo._variant_class()({}, warmup=5, **NO_POSTPROCESSING)
    shadow = loo.make_detector({"shadow": 1, "sh_ham": 1, "warmup": 5, **NO_POSTPROCESSING})
    for _ in range(30):
        plain.apply(base.astype(np.uint8))
        shadow.apply(base.astype(np.uint8))
    dark = base.copy()
    dark[2:10, 3:13] *= 0.7  # a shadow: darker, same grey chroma, same texture
    flat = base.copy()
    flat[2:10, 3:13] = 0.7 * 145  # as dark on average, but no texture: an object
    m_plain, m_shadow = plain.apply(dark.astype(np.uint8)), shadow.apply(dark.astype(np.uint8))
    assert m_plain[4:8, 5:11].all() and not m_shadow[4:8, 5:11].any()
    assert shadow.apply(flat.astype(np.uint8))[4:8, 5:11].all()
    # output only: the model learned exactly what the plain detector learned
    plain.apply(flat.astype(np.uint8))
    np.testing.assert_array_equal(plain._alphas, shadow._alphas)


def test_texture_term_makes_a_matching_colour_with_other_texture_novel():
    base = _textured()
    flat = np.full_like(base, 145.0)  # a colour the model knows on average, without texture
    plain = loo._variant_class()({}, warmup=5, sigma=60.0)
    tex = loo.make_detector({"tex_w": 0.5, "warmup": 5, "sigma": 60.0})
    for _ in range(30):
        plain.apply(base.astype(np.uint8))
        tex.apply(base.astype(np.uint8))
    plain.apply(flat.astype(np.uint8), learningRate=0)
    tex.apply(flat.astype(np.uint8), learningRate=0)
    assert (tex.scores[3:9, 3:13] < 0.5 * plain.scores[3:9, 3:13]).all()


def test_strong_wind_scene_is_deterministic_and_its_truth_is_the_pasted_person(shared_data):
    stress = pytest.importorskip("foliage_stress")
    root = shared_data / "video"
    if not (root / stress.SEQ).is_dir():
        pytest.skip(f"{root / stress.SEQ} not present")
    frames, person, gt = stress.load_trees(root)
    runs = [list(stress.make_scene(frames, person, gt, 8, 3.0)) for _ in range(2)]
    for (fa, ta), (fb, tb) in zip(*runs):
        np.testing.assert_array_equal(fa, fb)
        np.testing.assert_array_equal(ta, tb)
    truths = [t for _, t in runs[0]]
    assert not any(t.any() for t in truths[:4]) and all(t.any() for t in truths[4:])
    # the wind moves the background; it is the same background when the wind is still
    calm = [f for f, _ in stress.make_scene(frames, person, gt, 2, 0.0)]
    np.testing.assert_array_equal(calm[0], frames[0])
    assert np.abs(runs[0][0][0].astype(int) - frames[0]).mean() > 2
