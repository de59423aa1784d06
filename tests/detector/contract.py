"""The contract every registered background subtractor keeps (in the style of river's
``utils.estimator_checks`` and of ``tests/backends/test_estimators.py`` for the learners).

Each ``check_*`` function takes a registry name (:func:`silkvision.detector.available_subtractors`)
and raises ``AssertionError`` where the detector breaks the contract of
:class:`~silkvision.detector.BackgroundSubtractor`. Detector-specific behaviour (SILK's maths,
OpenCV's parameters) is tested in the other files of this folder. ``test_contract.py`` runs every
check on every detector; a new detector is covered once it is registered.

A check that compares two runs compares everything a caller can see: the mask and, for detectors
with scores, the scores, bit for bit.
"""

from __future__ import annotations

import copy
import pickle
from unittest import mock

import cv2
import numpy as np
import pytest

import silkvision as sv
from silkvision.config import SCHEMA
from silkvision.detector import memory

from .alloc import peak_allocation

H, W = 48, 64
BOX = (slice(10, 30), slice(16, 40))  # where the intruder of the scene is


class Scene:
    """A static, slightly noisy background, and the same background with an intruder in ``BOX``."""

    def __init__(self, seed: int = 0, shape: tuple[int, int] = (H, W), n: int = 12, noise: int = 4):
        rng = np.random.default_rng(seed)
        self.base = rng.integers(40, 216, (*shape, 3), dtype=np.uint8)
        self.background = [
            np.clip(
                self.base.astype(np.int16) + rng.integers(-noise, noise + 1, self.base.shape), 0, 255
            ).astype(np.uint8)
            for _ in range(n)
        ]
        self.intruder = self.background[0].copy()
        self.intruder[BOX] = 255 - self.intruder[BOX]

    def moving(self, i: int) -> np.ndarray:
        """Background frame ``i`` with the intruder's box moved ``3 i`` pixels to the right."""
        f = self.background[i % len(self.background)].copy()
        rows, cols = BOX
        moved = slice(cols.start + 3 * i, cols.stop + 3 * i)
        f[rows, moved] = 255 - f[rows, moved]
        return f


def make(name: str, **params) -> sv.BackgroundSubtractor:
    return sv.create_subtractor(name, **params)


def trained(name: str, scene: Scene, n: int = 6, **params) -> sv.BackgroundSubtractor:
    """A detector that has learned the first ``n`` background frames of ``scene``."""
    det = make(name, **params)
    for f in scene.background[:n]:
        det.apply(f)
    return det


def seen(det: sv.BackgroundSubtractor, frame: np.ndarray, learning_rate: float | None = None) -> tuple:
    """Everything a caller sees of one ``apply`` (with ``learningRate`` when given): copies of the
    mask and of the scores (or None)."""
    mask = (
        det.apply(frame) if learning_rate is None else det.apply(frame, learningRate=learning_rate)
    ).copy()
    scores = det.scores
    return mask, None if scores is None else scores.copy()


def assert_same(a: tuple, b: tuple, what: str) -> None:
    np.testing.assert_array_equal(a[0], b[0], err_msg=f"{what}: masks differ")
    assert (a[1] is None) == (b[1] is None), f"{what}: scores given by one run only"
    if a[1] is not None:
        np.testing.assert_array_equal(a[1], b[1], err_msg=f"{what}: scores differ")


def differs(a: tuple, b: tuple) -> bool:
    return not np.array_equal(a[0], b[0]) or (a[1] is not None and not np.array_equal(a[1], b[1]))


def one_line_error(exc_type, pattern: str, call) -> str:
    """Run ``call``, which must raise ``exc_type`` with a one-line message matching ``pattern``."""
    with pytest.raises(exc_type, match=pattern) as e:
        call()
    msg = str(e.value)
    assert "\n" not in msg, f"{exc_type.__name__} message spans lines: {msg!r}"
    return msg


# ---------------------------------------------------------------- the checks
def check_apply_shape_and_dtype(name: str) -> None:
    """``apply`` returns an HxW uint8 mask of 0 and 255 for BGR, HxW and HxWx1 grey and cropped
    (non-contiguous) frames, writes into ``fgmask`` when given, and finds the intruder; ``scores``
    is HxW float32 (or None without scores) and the background image HxWx3 uint8."""
    scene = Scene()
    det = trained(name, scene)
    mask = det.apply(scene.intruder, learningRate=0)
    assert mask.shape == (H, W) and mask.dtype == np.uint8, (mask.shape, mask.dtype)
    assert set(np.unique(mask)) <= {0, 255}
    assert mask[BOX].mean() > 0.5 * 255, "the intruder is not found"
    outside = np.ones((H, W), bool)
    outside[BOX] = False
    assert mask[outside].mean() < 0.05 * 255, "the static background is foreground"
    if det.has_scores:
        assert det.scores.shape == (H, W) and det.scores.dtype == np.float32
        assert np.isfinite(det.scores).all()
    else:
        assert det.scores is None
    bg = det.get_background_image()
    assert bg.shape == (H, W, 3) and bg.dtype == np.uint8

    out = np.full((H, W), 7, np.uint8)
    assert det.apply(scene.intruder, learningRate=0, fgmask=out) is out
    np.testing.assert_array_equal(out, mask)

    grey = [f[:, :, 1].copy() for f in scene.background]
    for shape in ((H, W), (H, W, 1)):
        g = make(name)
        for f in grey[:6]:
            m = g.apply(f.reshape(shape))
        assert m.shape == (H, W) and m.dtype == np.uint8

    wide = np.zeros((H, 2 * W, 3), np.uint8)
    a, b = make(name), make(name)
    for f in scene.background[:6]:
        wide[:, :W] = f
        assert_same(seen(a, wide[:, :W]), seen(b, f), "cropped frame")


def check_learning_rate_minus_one_is_the_default(name: str) -> None:
    """``learningRate=-1`` is the configured learning, the same as giving none."""
    scene = Scene()
    a, b = make(name, median=0), make(name, median=0)
    for f in [*scene.background[:6], scene.intruder, scene.intruder, *(scene.moving(i) for i in range(6))]:
        assert_same(seen(a, f), seen(b, f, -1), "learningRate=-1")


def check_bad_learning_rates(name: str) -> None:
    """NaN, None, strings, bools and sequences are a one-line ``ValueError`` naming
    ``learningRate``, raised before anything is learned."""
    scene = Scene()
    det, twin = trained(name, scene), trained(name, scene)
    for lr in (float("nan"), None, "0.5", True, [0.5]):
        one_line_error(
            ValueError, "^learningRate: ", lambda lr=lr: det.apply(scene.intruder, learningRate=lr)
        )
    assert det.frames_seen == twin.frames_seen
    assert_same(seen(det, scene.background[6]), seen(twin, scene.background[6]), "after bad learningRate")


def check_learning_rate_zero_does_not_learn(name: str) -> None:
    """``learningRate=0`` scores a frame without learning it: an intruder shown many times at rate 0
    is still found, exactly as by a twin that never saw it. (Shown with learning, it is absorbed:
    the check would notice a rate that is ignored.)"""
    scene = Scene()
    det, twin, learner = (trained(name, scene) for _ in range(3))
    for _ in range(12):
        det.apply(scene.intruder, learningRate=0)
        learner.apply(scene.intruder)
    want = seen(twin, scene.intruder, 0)
    assert differs(seen(learner, scene.intruder, 0), want), "learning the intruder changed nothing"
    assert_same(seen(det, scene.intruder, 0), want, "intruder after 12 frames at learningRate=0")
    assert_same(seen(det, scene.background[6]), seen(twin, scene.background[6]), "next frame")


def check_reset(name: str) -> None:
    """After ``reset`` the detector behaves as a new one, at the same frame size or another; a
    size change without ``reset`` is a one-line ``ValueError`` that leaves the model as it was."""
    scene, small = Scene(), Scene(seed=1, shape=(H // 2, W // 2))
    det = trained(name, scene)
    twin = trained(name, scene)
    one_line_error(ValueError, "^frame: size changed", lambda: det.apply(small.background[0]))
    assert_same(seen(det, scene.intruder), seen(twin, scene.intruder), "after a refused size")
    for frames in ([*scene.background[:6], scene.intruder], [*small.background[:6], small.intruder]):
        det.reset()
        assert det.frames_seen == 0 and det.scores is None
        fresh = make(name)
        for f in frames:
            assert_same(seen(det, f), seen(fresh, f), "after reset")


def check_state_round_trip(name: str) -> None:
    """A checkpoint (``get_state``/``set_state``), a pickle and a deep copy continue bit for bit
    like the original. A detector that cannot be checkpointed says so: ``NotImplementedError``
    from ``get_state`` and a one-line ``TypeError`` from pickle and copy, each naming it."""
    scene = Scene()
    det = trained(name, scene)
    try:
        state = det.get_state()
    except NotImplementedError as e:
        assert name in str(e).lower(), str(e)
        one_line_error(NotImplementedError, name, lambda: det.set_state({}))
        for call in (lambda: pickle.dumps(det), lambda: copy.copy(det), lambda: copy.deepcopy(det)):
            assert name in one_line_error(TypeError, "cannot be pickled", call).lower()
        assert_same(seen(det, scene.intruder), seen(trained(name, scene), scene.intruder), "after refusals")
        return
    restored = make(name)
    restored.set_state(state)
    assert restored.frames_seen == det.frames_seen and restored.scores is None
    copies = [restored, pickle.loads(pickle.dumps(det)), copy.deepcopy(det), copy.copy(det)]
    for f in [scene.intruder, *scene.background[6:9]]:
        want = seen(det, f)
        for c in copies:
            assert_same(seen(c, f), want, "restored detector")


def check_bad_frames(name: str) -> None:
    """Frames of another dtype, channel count or rank, and empty ones, are a one-line
    ``ValueError`` starting ``frame:``; the model is left as it was."""
    scene = Scene()
    det, twin = trained(name, scene), trained(name, scene)
    bad = [
        np.zeros((H, W, 3), np.float32),
        np.zeros((H, W), np.uint16),
        np.zeros((H, W, 3), bool),
        np.zeros((H, W, 2), np.uint8),
        np.zeros((H, W, 4), np.uint8),
        np.zeros((0, W, 3), np.uint8),
        np.zeros((H, 0), np.uint8),
        np.zeros((H, W, 0), np.uint8),
        np.zeros(W, np.uint8),
        np.zeros((1, H, W, 3), np.uint8),
        np.zeros((), np.uint8),
        [[0] * W] * H,
    ]
    for frame in bad:
        one_line_error(ValueError, "^frame: ", lambda frame=frame: det.apply(frame))
    assert det.frames_seen == twin.frames_seen
    assert_same(seen(det, scene.intruder), seen(twin, scene.intruder), "after bad frames")


def check_determinism(name: str) -> None:
    """Two detectors fed the same frames give the same output, also when their frames are
    interleaved with a third detector's and with other draws from OpenCV's random generator, and
    when one is made after the others ran: no random or cached state is shared between detectors.
    (Raw masks, no post-processing, of a noisy scene with a moving object, so that a detector's
    random choices show.)"""
    scene, other = Scene(noise=40), Scene(seed=2, noise=40)
    raw = {"median": 0, "close": 0, "fill_holes": False}
    a, b, c = make(name, **raw), make(name, **raw), make(name, **raw)
    frames = [*scene.background[:6], *(scene.moving(i) for i in range(10))]
    outputs = []
    for i, f in enumerate(frames):
        outputs.append(seen(a, f))
        c.apply(other.background[i % len(other.background)])
        cv2.randu(np.empty((16, 16), np.uint8), 0, 255)
        assert_same(seen(b, f), outputs[-1], f"frame {i} of an interleaved twin")
    late = make(name, **raw)
    for i, f in enumerate(frames):
        assert_same(seen(late, f), outputs[i], f"frame {i} of a later detector")


def check_params_round_trip(name: str) -> None:
    """``get_params`` names every parameter (the algorithm's config section and the
    post-processing's): ``create_subtractor(name, **params)`` makes the same detector, and
    ``set_params`` with the current values changes nothing."""
    scene = Scene()
    det = trained(name, scene)
    params = det.get_params()
    post = {"median", "close", "fill_holes", "filter_width"}
    own = set(SCHEMA["detector"].get(name, {}))
    assert post <= set(params) and set(params) - post - {"colour_space"} == own, sorted(params)
    again = make(name, **params)
    assert again.get_params() == params and repr(again) == repr(det)
    twin = trained(name, scene)
    det.set_params(**params)
    assert det.get_params() == params and det.frames_seen == twin.frames_seen
    assert_same(seen(det, scene.intruder), seen(twin, scene.intruder), "after set_params")


def check_no_frame_sized_allocation(name: str) -> None:
    """Once running, ``apply`` with an ``fgmask`` allocates nothing frame-sized (peak Python-heap
    allocation under a quarter of a byte per pixel at 320x240)."""
    scene = Scene(shape=(240, 320), n=4)
    det = make(name)
    out = np.empty((240, 320), np.uint8)
    for f in scene.background[:3]:
        det.apply(f, fgmask=out)
    # tracemalloc counts every thread's allocations: the least of three frames is apply's own
    # (threads an earlier test left running, e.g. a Dask client's, cannot inflate all three)
    peak = min(peak_allocation(lambda: det.apply(f, fgmask=out)) for f in scene.background[:3])
    assert peak < 240 * 320 // 4, f"apply allocated {peak} bytes"


def check_memory_refused_up_front(name: str) -> None:
    """A frame or checkpoint whose model does not fit in the memory available is a one-line
    ``MemoryError`` naming the detector and the frame size, raised before anything is allocated:
    a new detector stays new, a running one keeps its model."""
    scene, small = Scene(), Scene(seed=1, shape=(H // 2, W // 2))
    if not hasattr(make(name), "check_memory"):
        pytest.skip(f"{name}: OpenCV allocates its model itself (no up-front memory check)")
    state = trained(name, scene).get_state()
    running, twin = trained(name, small), trained(name, small)
    fresh = make(name)
    refused = f"^the {name} state of a {W}x{H} frame needs"
    with mock.patch.object(memory, "available_memory", lambda: 1000):
        one_line_error(MemoryError, refused, lambda: fresh.apply(scene.background[0]))
        one_line_error(MemoryError, refused, lambda: running.set_state(state))
    assert fresh.frames_seen == 0 and fresh.scores is None
    new = make(name)
    for f in [*scene.background[:6], scene.intruder]:
        assert_same(seen(fresh, f), seen(new, f), "a detector after a refused first frame")
    for f in [*small.background[6:], small.intruder]:
        assert_same(seen(running, f), seen(twin, f), "a detector after a refused checkpoint")


CHECKS = [
    check_apply_shape_and_dtype,
    check_learning_rate_minus_one_is_the_default,
    check_bad_learning_rates,
    check_learning_rate_zero_does_not_learn,
    check_reset,
    check_state_round_trip,
    check_bad_frames,
    check_determinism,
    check_params_round_trip,
    check_no_frame_sized_allocation,
    check_memory_refused_up_front,
]
