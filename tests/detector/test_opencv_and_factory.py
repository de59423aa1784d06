import numpy as np
import pytest

import silkvision as sv
from silkvision.detector.postprocess import median_mask
from silkvision.errors import ConfigError


def _frames(rng, n=30, h=24, w=32):
    base = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
    out = []
    for i in range(n):
        f = base.copy()
        if i >= n - 5:
            f[8:16, 10:20] = 255 - f[8:16, 10:20]  # an object appears at the end
        out.append(f)
    return out


@pytest.mark.parametrize("name", ["mog2", "knn"])
def test_opencv_baselines_detect_an_appearing_object(name, rng):
    det = sv.create_subtractor(name, median=0)
    for f in _frames(rng):
        mask = det.apply(f)
    assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 255}
    assert mask[8:16, 10:20].mean() > 200  # the object
    assert mask[:, 25:].mean() < 20  # the static background
    assert det.scores is None and not det.has_scores
    assert det.get_background_image().shape == (24, 32, 3)
    with pytest.raises(NotImplementedError):
        det.get_state()


def test_opencv_rejects_size_change_and_reset_allows_it(rng):
    det = sv.create_subtractor("mog2")
    det.apply(rng.integers(0, 255, (24, 32, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="size changed from 32x24 to 16x8"):
        det.apply(rng.integers(0, 255, (8, 16, 3), dtype=np.uint8))
    det.reset()
    det.apply(rng.integers(0, 255, (8, 16, 3), dtype=np.uint8))


def test_shadows_are_background():
    det = sv.create_subtractor("mog2", detect_shadows=True, median=0)
    f = np.full((20, 20, 3), 200, np.uint8)
    for _ in range(30):
        det.apply(f)
    g = f.copy()
    g[5:15, 5:15] = 140  # darker, same chroma: a shadow
    mask = det.apply(g)
    assert set(np.unique(mask)) <= {0, 255}


def test_factory_validates_names_and_keyword_overrides():
    with pytest.raises(ConfigError, match="algorithm 'nope' is unknown"):
        sv.create_subtractor("nope")
    with pytest.raises(ConfigError, match="unknown parameter 'tau'"):
        sv.create_subtractor("mog2", tau=0.1)
    for name in ("mog2", "knn"):  # MOG2/KNN model BGR: a colour space asked for would be ignored
        with pytest.raises(
            ConfigError,
            match=f"^{name}: unknown parameter 'colour_space' .*allowed: .*fill_holes, filter_width$",
        ):
            sv.create_subtractor(name, colour_space="gray")
    assert sv.create_subtractor("norma", colour_space="gray").colour_space == "gray"
    with pytest.raises(ConfigError, match="detector.median: 4"):
        sv.create_subtractor("mog2", median=4)
    with pytest.raises(ConfigError, match="detector.mog2.history"):
        sv.create_subtractor("mog2", history=0)
    det = sv.create_subtractor(config={"detector": {"algorithm": "knn", "median": 0}})
    assert det.name == "knn" and det.median == 0


def test_median_mask_matches_a_plain_median(rng):
    from scipy.ndimage import median_filter

    m = (rng.random((30, 40)) > 0.7).astype(np.uint8) * 255
    got = median_mask(m, 3)
    ref = median_filter(m, size=3, mode="nearest")
    # cv2.medianBlur replicates the border like mode="nearest"
    np.testing.assert_array_equal(got, ref)
    out = np.empty_like(m)
    assert median_mask(m, 0, out=out) is out and np.array_equal(out, m)
    with pytest.raises(ValueError, match="median: 4"):
        median_mask(m, 4)


@pytest.mark.slow
def test_knn_masks_do_not_depend_on_what_drew_from_opencvs_generator_before(sample_seq):
    """KNN draws from cv::theRNG(); two runs over the same frames in one process used to differ
    (an evaluation's KNN figures depended on the sequences before). Each run now starts from the
    same generator state, also after other draws, after reset() and in another thread."""
    import threading

    import cv2

    frames = [cv2.imread(str(p)) for p in sorted((sample_seq / "input").glob("*.jpg"))[:80]]

    def masks(det):
        return np.stack([det.apply(f).copy() for f in frames])

    det = sv.create_subtractor("knn", median=0)
    first = masks(det)
    cv2.randu(np.empty((500, 500), np.uint8), 0, 255)  # someone else draws from the generator
    assert np.array_equal(masks(sv.create_subtractor("knn", median=0)), first)
    det.reset()
    assert np.array_equal(masks(det), first)
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("m", masks(sv.create_subtractor("knn", median=0))))
    t.start()
    t.join()
    assert np.array_equal(box["m"], first)


def test_knn_masks_do_not_depend_on_detectors_interleaved_with_it(sample_seq):
    """Two KNN variants applied frame by frame in one thread (two detectors of one evaluation)
    used to share OpenCV's generator, so each one's masks depended on the other; so did a
    ``cv2.randu`` between frames. Each KNN now draws on a thread of its own."""
    import cv2

    frames = [cv2.imread(str(p)) for p in sorted((sample_seq / "input").glob("*.jpg"))[:60]]
    alone = sv.create_subtractor("knn", median=0)
    first = np.stack([alone.apply(f).copy() for f in frames])
    a = sv.create_subtractor("knn", median=0)
    b = sv.create_subtractor("knn", median=0, dist2_threshold=300.0)
    got = []
    for f in frames:
        got.append(a.apply(f).copy())
        b.apply(f[::-1].copy())
        cv2.randu(np.empty((50, 50), np.uint8), 0, 255)
    assert np.array_equal(np.stack(got), first)


_FORKED = {}  # what a forked child inherits (an OpenCV subtractor does not pickle)


def _apply_in_child(_):
    return int(_FORKED["det"].apply(_FORKED["frame"]).sum())


@pytest.mark.skipif(
    "fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs the fork start method"
)
def test_knn_used_before_a_fork_still_applies_in_the_child(rng):
    """KNN applies on a worker thread of its own. A forked child inherits the executor but not its
    thread, and used to queue the frame for a thread that does not exist: it hung for ever."""
    import multiprocessing as mp

    frame = rng.integers(0, 255, (24, 32, 3), dtype=np.uint8)
    det = sv.create_subtractor("knn", median=0)
    det.apply(frame)
    _FORKED.update(det=det, frame=frame)
    with mp.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(_apply_in_child, (0,))
        try:
            assert got.get(timeout=30) >= 0
        except mp.TimeoutError:
            pool.terminate()
            pytest.fail("KNN's apply hung in a forked child")
        finally:
            _FORKED.clear()
    assert det.apply(frame).shape == (24, 32)  # the parent's thread still serves the parent


def test_opencv_parameters_are_complete_and_attributes_take_effect():
    from silkvision.detector.opencv import OpenCVSubtractor

    d = OpenCVSubtractor("mog2")
    assert d.get_params() == {
        "history": 500,
        "var_threshold": 16.0,
        "detect_shadows": False,
        "median": 0,
        "close": 0,
        "fill_holes": False,
        "filter_width": 0,
    }
    assert repr(d) == (
        "OpenCVSubtractor('mog2', history=500, var_threshold=16.0, detect_shadows=False, "
        "median=0, close=0, fill_holes=False, filter_width=0)"
    )
    frame = np.zeros((8, 8, 3), np.uint8)
    for _ in range(3):
        d.apply(frame)
    d.set_params(history=500)  # the value in use: the model is kept
    assert d.frames_seen == 3
    d.history = 20  # an attribute is set_params: it takes effect ...
    assert d.history == 20 and d.get_params()["history"] == 20 and d.frames_seen == 0
    d.median = 3
    assert d.mask_filter.median == 3
    with pytest.raises(ValueError, match="history"):
        d.history = 0  # ... and is checked
    assert d.history == 20
    with pytest.raises(AttributeError, match="no attribute 'tau'"):
        d.tau


def test_norma_takes_lam_as_its_repr_and_set_params_call_lambda():
    assert sv.create_subtractor("norma", lam=0.2).lam == 0.2
    assert sv.create_subtractor("norma", **{"lambda": 0.3}).get_params()["lambda"] == 0.3
    with pytest.raises(ConfigError, match="give lambda or lam, not both"):
        sv.create_subtractor("norma", lam=0.2, **{"lambda": 0.3})


@pytest.mark.parametrize(
    "name, typo, meant",
    [
        ("silk", "treshold", "threshold"),
        ("silk", "Tau", "tau"),
        ("norma", "sgima", "sigma"),
        ("silk", "fill_hole", "fill_holes"),
        ("silk", "threshol", "threshold"),
        ("mog2", "histroy", "history"),
    ],
)
def test_a_misspelt_parameter_attribute_is_refused(name, typo, meant):
    """``det.treshold = 0.1`` made a new attribute that the model never reads."""
    det = sv.create_subtractor(name)
    before = det.get_params()
    with pytest.raises(AttributeError, match=f"no parameter '{typo}'; did you mean '{meant}'"):
        setattr(det, typo, 0.1)
    assert det.get_params() == before
    det.user_note = "kept"  # other new attributes are the user's,
    det.thresholds = [0.1, 0.2]  # also those that contain a parameter's name
    assert det.user_note == "kept" and det.thresholds == [0.1, 0.2]


def test_copy_copy_of_a_detector_shares_no_state():
    import copy

    det = sv.create_subtractor("silk")
    frame = np.zeros((8, 8, 3), np.uint8)
    det.apply(frame)
    scores = det.scores.copy()
    copy.copy(det).apply(frame + 60)
    np.testing.assert_array_equal(det.scores, scores)


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_copying_an_opencv_detector_is_a_clear_error(how):
    import copy
    import pickle

    det = sv.create_subtractor("mog2")
    det.apply(np.zeros((8, 8, 3), np.uint8))
    do = {"pickle": pickle.dumps, "copy": copy.copy, "deepcopy": copy.deepcopy}[how]
    with pytest.raises(
        TypeError, match=r"^a MOG2 detector cannot be pickled or copied .*create_subtractor\('mog2'\)"
    ):
        do(det)
