"""SILK's texture term and shadow test (``texture_weight``, ``shadow``): what each is for."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.detector.silk import SilkSubtractor

RAW = dict(median=0, close=0, fill_holes=False, warmup=5)  # the decisions themselves


def _stripes(vertical: bool, h=24, w=32):
    """Columns (or rows) of two greys, 4 pixels wide: a texture LBSP sees."""
    band = (np.arange(w if vertical else h) // 4) % 2
    grey = np.where(band, 150, 100).astype(np.uint8)
    img = np.broadcast_to(grey[None, :] if vertical else grey[:, None], (h, w))
    return np.repeat(img[..., None], 3, axis=2).copy()


def _textured(h=40, w=48):
    """A grey checkerboard of 4x4 blocks, 80 and 180: every pixel's pattern has set bits, and
    darkening it by a factor keeps them (relative LBSP threshold)."""
    yy, xx = np.mgrid[0:h, 0:w]
    g = np.where((yy // 4 + xx // 4) % 2, 180, 80).astype(np.uint8)
    return np.repeat(g[..., None], 3, axis=2)


def test_texture_term_finds_an_object_of_the_background_colour():
    bg, obj = _stripes(True), _stripes(False)
    same = (obj == bg)[..., 0]  # pixels where the object has the background's colour
    fg = {}
    for tw in (0.0, 1.0):
        det = SilkSubtractor(texture_weight=tw, **RAW)
        for _ in range(40):
            det.apply(bg)
        fg[tw] = det.apply(obj, learningRate=0) > 0
    inner = np.zeros_like(same)
    inner[2:-2, 2:-2] = True  # (the border repeats itself: its patterns partly match)
    assert not fg[0.0][same].any()  # colour alone: the same colours are background
    assert fg[1.0][same & inner].mean() > 0.9  # with the texture: the pattern has changed


def _shadowed(img, factor=0.7, box=(10, 30, 12, 36)):
    y0, y1, x0, x1 = box
    out = img.copy()
    out[y0:y1, x0:x1] = (out[y0:y1, x0:x1] * factor).astype(np.uint8)
    region = np.zeros(img.shape[:2], bool)
    region[y0 + 2 : y1 - 2, x0 + 2 : x1 - 2] = True  # (its edge's patterns straddle the shadow)
    return out, region


@pytest.mark.parametrize("colour_space", ["ycrcb", "lab", "gray"])
def test_shadow_test_shows_a_textured_shadow_as_background(colour_space):
    bg = _textured()
    frame, region = _shadowed(bg)
    det = SilkSubtractor(shadow=True, colour_space=colour_space, **RAW)
    for _ in range(40):
        det.apply(bg)
    mask = det.apply(frame, learningRate=0)
    assert det._raw[region].mean() > 0.9 * 255  # the colour model alone: foreground
    assert (mask[region] == 0).mean() > 0.9  # the shadow test: background
    np.testing.assert_array_equal(mask, det.mask_from_scores(det.scores))  # scores raised to match
    assert (det.scores[region & (mask == 0)] >= det.threshold).all()


def test_shadow_test_keeps_dark_flat_objects_and_rgb_and_learns_from_the_raw_decision():
    flat = np.full((40, 48, 3), 150, np.uint8)
    frame, region = _shadowed(flat)
    det = SilkSubtractor(shadow=True, **RAW)
    for _ in range(40):
        det.apply(flat)
    assert (det.apply(frame, learningRate=0)[region] == 255).all()  # no pattern: no evidence
    bg = _textured()
    frame, region = _shadowed(bg)
    det = SilkSubtractor(shadow=True, colour_space="rgb", **RAW)  # the test needs luma first
    for _ in range(40):
        det.apply(bg)
    assert (det.apply(frame, learningRate=0)[region] == 255).all()
    # the pixel learns from its own decision: with and without the test, the same model
    a, b = SilkSubtractor(shadow=True, **RAW), SilkSubtractor(shadow=False, **RAW)
    shown = []
    for f in [bg] * 30 + [frame] * 5:
        shown.append(np.count_nonzero(a.apply(f) != b.apply(f)))
    assert shown[-1] > 0
    np.testing.assert_array_equal(a._alphas, b._alphas)
    np.testing.assert_array_equal(a._colours, b._colours)


def test_switching_the_texture_on_or_off_restarts_the_model():
    bg = _textured()
    det = SilkSubtractor(**RAW)
    det.apply(bg)
    assert det.get_state()["textures"].size == 0  # colour only: no patterns kept
    det.set_params(texture_weight=0.125)
    assert det.frames_seen == 0
    det.apply(bg)
    assert det.get_state()["textures"].shape == (40, 20, 48)
    det.set_params(texture_weight=0.25, shadow=True)  # still textured: the model is kept
    assert det.frames_seen == 1
    assert det.state_nbytes == 40 * 48 * 187 and det.nbytes_for(40, 48) > det.state_nbytes + 5 * 40 * 48
