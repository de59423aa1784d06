"""SILK and NORMA at their exact boundaries: a score equal to the threshold or to NORMA's offset,
a foreground fraction equal to ``global_change``, and ``score_range`` after ``C`` is lowered live.

The other detector tests use natural frames, where a score never lands exactly on a limit; these
pin which side of each documented strict inequality the limit itself falls on.
"""

from __future__ import annotations

import numpy as np

from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.silk import SilkSubtractor

_RAW = dict(median=0, close=0, fill_holes=False)  # raw masks: no post-processing


def _flat(colour, h=2, w=3):
    return np.full((h, w, 3), colour, np.uint8)


def test_a_score_equal_to_the_threshold_is_background():
    """The mask is ``score < threshold``: an empty model scores exactly 0, and with threshold 0
    that is background, in ``apply`` as in ``mask_from_scores``."""
    det = SilkSubtractor(threshold=0.0, conservative=True, kappa=0.05, warmup=0, **_RAW)
    m = det.apply(_flat(77))
    assert np.all(det.scores == 0.0)
    assert not m.any()
    np.testing.assert_array_equal(m, det.mask_from_scores(det.scores))


def test_a_score_equal_to_the_threshold_is_learned_without_the_conservative_cap():
    """The conservative cap (kappa) applies to pixels scored foreground; a score equal to the
    threshold is background, so its new coefficient is the full one, as without the cap."""
    kw = dict(threshold=0.0, kappa=0.05, warmup=0, **_RAW)
    capped, free = SilkSubtractor(conservative=True, **kw), SilkSubtractor(conservative=False, **kw)
    for det in (capped, free):
        det.apply(_flat(77))  # every score is exactly 0 = threshold
        det.apply(_flat(77))
    np.testing.assert_array_equal(capped.scores, free.scores)
    # one full coefficient (1 - tau) C = 0.4 x 0.9995, not the capped kappa x that
    np.testing.assert_allclose(capped.scores, 0.9995 * 0.4, rtol=1e-5)


def test_norma_score_equal_to_rho_raises_rho_and_inserts_nothing():
    """NORMA inserts a term and lowers rho only when ``f < rho``; at ``f == rho`` rho rises by
    ``eta nu`` and the ring buffer does not move."""
    det = NormaSubtractor(**_RAW)
    f = _flat(90, 1, 2)
    det.apply(f)
    det.apply(f)
    det.apply(f, learningRate=0)
    s = det.scores.copy()  # the score the next learned frame gets
    st = det.get_state()
    st["rho"] = s.copy()  # put the offset exactly on that score
    det.set_state(st)
    det.apply(f)
    assert np.array_equal(det.scores, s)
    after = det.get_state()
    p = det.get_params()
    np.testing.assert_allclose(after["rho"], s + np.float32(p["eta"] * p["nu"]), rtol=1e-6)
    np.testing.assert_array_equal(after["ptr"], st["ptr"])  # nothing inserted
    np.testing.assert_array_equal(after["colours"], st["colours"])
    det.apply(f, learningRate=0)
    assert np.all(det.scores < s)  # the old terms only decayed


def test_score_range_keeps_the_largest_C_after_C_is_lowered_live():
    """``score_range`` is (0, omega x the largest C used since the last reset): coefficients learned
    under a larger C stay in the model after ``set_params(C=...)`` lowers it."""
    det = SilkSubtractor(C=0.4, **_RAW)
    f = _flat(100, 4, 4)
    for _ in range(30):
        det.apply(f)
    det.set_params(C=0.01)
    det.apply(f)
    lo, hi = det.score_range
    assert (lo, hi) == (0.0, det.omega * 0.4)
    assert det.scores.max() > det.omega * 0.01 and det.scores.max() <= hi
    det.reset()
    assert det.score_range == (0.0, det.omega * 0.01)


def _white_half_scores(global_change):
    """Scores of the right half after it turned white while exactly half the frame was foreground."""
    det = SilkSubtractor(
        conservative=True, kappa=0.05, warmup=20, warmup_kappa=1.0, global_change=global_change, **_RAW
    )
    black = np.zeros((2, 4, 3), np.uint8)
    half = black.copy()
    half[:, 2:] = 255
    for _ in range(20):
        det.apply(black)
    m = det.apply(half)
    assert m.mean() == 255 * 0.5  # exactly half of the pixels foreground
    det.apply(half)
    det.apply(half)
    return det.scores[:, 2:].copy()


def test_foreground_fraction_equal_to_global_change_keeps_the_cap():
    """The cap is lifted only when MORE than ``global_change`` of the frame was foreground: at
    exactly that fraction it behaves as ``global_change=1`` (always capped)."""
    at_limit, always = _white_half_scores(0.5), _white_half_scores(1.0)
    np.testing.assert_array_equal(at_limit, always)
    lifted = _white_half_scores(0.49)
    assert np.all(lifted > 5 * at_limit)  # below the fraction: learned at full speed
