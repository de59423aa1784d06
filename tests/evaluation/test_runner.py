"""evaluate_sequence / score_results on tiny hand-made CDnet folders, and the bad-input rules."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from silkvision.errors import DataError, SilkvisionError
from silkvision.evaluation import Counts, confusion_counts, evaluate_sequence, score_results
from silkvision.evaluation.light_switch import LightSwitch
from silkvision.evaluation.runner import format_frames, sequence_frames

from .conftest import FakeScored, H, W, make_sequence, square_frame


def _expected(seq: Path, det, first, last, roi=None, switches=()):
    """Run ``det`` by hand over every frame and count the evaluated ones."""
    from silkvision.evaluation.light_switch import apply_light_switches

    total = Counts()
    n = len(list((seq / "input").iterdir()))
    for i in range(1, n + 1):
        img, gt = square_frame(i)
        mask = det.apply(apply_light_switches(img, i, switches))
        if first <= i <= last:
            total = total + confusion_counts(mask, gt, roi)
    return total


def test_counts_equal_hand_run_and_roc_point_equals_masks(tiny_seq):
    roi = cv2.imread(str(tiny_seq / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    res = evaluate_sequence(tiny_seq, detectors={"fake": FakeScored(median=0)})
    ar = res.algorithms["fake"]
    assert (res.first, res.last, res.frames) == (10, 25, 30)
    assert list(ar.frame_indices) == list(range(10, 26))
    assert ar.counts == _expected(tiny_seq, FakeScored(median=0), 10, 25, roi)
    assert ar.counts.tp > 0 and ar.counts.fp > 0
    # median 0: the ROC's point at the configured threshold is exactly the masks' counts
    assert ar.roc_counts == ar.counts
    row = ar.row()
    assert row["auc"] is not None and row["threshold"] == -20.0 and row["frames"] == 16


def test_with_median_filter_masks_differ_from_raw_roc_point(tiny_seq):
    roi = cv2.imread(str(tiny_seq / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    ar = evaluate_sequence(tiny_seq, detectors={"fake": FakeScored(median=3)}).algorithms["fake"]
    assert ar.counts == _expected(tiny_seq, FakeScored(median=3), 10, 25, roi)
    raw = evaluate_sequence(tiny_seq, detectors={"fake": FakeScored(median=0)}).algorithms["fake"]
    assert ar.roc_counts == raw.counts  # the ROC is over raw scores, before the median filter


def test_light_switch_is_applied_to_frames_not_ground_truth(tiny_seq):
    roi = cv2.imread(str(tiny_seq / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    sw = (LightSwitch(15, 20, 0.4),)
    res = evaluate_sequence(tiny_seq, detectors={"fake": FakeScored()}, light_switches=sw)
    assert res.algorithms["fake"].counts == _expected(tiny_seq, FakeScored(), 10, 25, roi, sw)
    assert res.brightness[14] < 0.5 * res.brightness[13]


def test_score_results_matches_and_rules(tmp_path, tiny_seq):
    res = evaluate_sequence(tiny_seq, detectors={"fake": FakeScored()})
    det = FakeScored()
    out = tmp_path / "mytool"
    out.mkdir()
    for i in range(1, 31):
        img, _ = square_frame(i)
        cv2.imwrite(str(out / f"bin{i:06d}.png"), det.apply(img))
    ar = score_results(tiny_seq, out)
    assert ar.counts == res.algorithms["fake"].counts and ar.algorithm == "mytool" and ar.roc is None
    # CDnet results layout DIR/CATEGORY/SEQ
    import shutil

    shutil.copytree(out, tmp_path / "results" / "cat" / "tiny")
    ar2 = score_results(tiny_seq, tmp_path / "results", name="x")
    assert ar2.algorithm == "x" and ar2.counts == ar.counts
    # a shadow value 127 in one mask: strict refuses, cdnet counts it as background
    m = cv2.imread(str(out / "bin000012.png"), cv2.IMREAD_GRAYSCALE)
    m[5, 5] = 127
    cv2.imwrite(str(out / "bin000012.png"), m)
    with pytest.raises(DataError, match="bin000012.png: values 127"):
        score_results(tiny_seq, out)
    score_results(tiny_seq, out, rule="cdnet")
    (out / "bin000013.png").unlink()
    with pytest.raises(DataError, match="bin000013.png"):
        score_results(tiny_seq, out, rule="cdnet")


def test_without_temporal_roi_frames_with_gt_are_scored(tmp_path):
    seq = make_sequence(tmp_path, n=12, temporal=None, gt_frames={3, 4, 9})
    ar = evaluate_sequence(seq, detectors={"fake": FakeScored()}).algorithms["fake"]
    assert list(ar.frame_indices) == [3, 4, 9]
    # ... and sequence_frames says which frames have none, for the command's note
    sf = sequence_frames(seq)
    assert (sf.first, sf.last, sf.evaluated, sf.temporal_roi) == (1, 12, [3, 4, 9], None)
    assert sf.without_gt == [1, 2, 5, 6, 7, 8, 10, 11, 12]
    assert sf.ground_truth_note() == (
        f"{seq}: ground truth for 3 of 12 frames and no temporalROI.txt; "
        f"evaluating those 3 only (frames 1..2, 5..8, 10..12 have none)"
    )


def test_sequence_frames_with_temporal_roi_or_full_ground_truth_has_no_note(tmp_path, tiny_seq):
    sf = sequence_frames(tiny_seq)
    assert (sf.first, sf.last, sf.evaluated[0], sf.evaluated[-1]) == (1, 30, 10, 25)
    assert sf.without_gt == [] and sf.ground_truth_note() is None
    full = make_sequence(tmp_path, n=6, temporal=None, name="full")
    assert sequence_frames(full).ground_truth_note() is None
    # the same errors as evaluate_sequence (checked before anything runs)
    bad = make_sequence(tmp_path, n=14, temporal=(5, 12), gt_frames=set(range(1, 15)) - {8}, name="bad")
    with pytest.raises(DataError, match="frame 8 is missing inside temporalROI"):
        sequence_frames(bad)


def test_format_frames():
    assert format_frames([6]) == "6"
    assert format_frames([11, 12, 13, 6, 9]) == "6, 9, 11..13"
    assert format_frames(range(1, 40, 2), limit=3) == "1, 3, 5, ..."


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"temporal": (5, 40)}, "outside the frames"),
        ({"temporal": (5, 12), "gt_frames": set(range(1, 31)) - {8}}, "frame 8 is missing"),
        ({"gt_shape": (H + 2, W)}, "ground truth is"),
        ({"roi": np.ones((H, W + 4), bool)}, "ROI"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path, kwargs, match):
    seq = make_sequence(tmp_path, n=14, **{"temporal": (5, 12), **kwargs})
    with pytest.raises(SilkvisionError, match=match) as e:
        evaluate_sequence(seq, detectors={"fake": FakeScored()})
    assert "\n" not in str(e.value)


def test_no_groundtruth_is_an_error(tmp_path):
    seq = make_sequence(tmp_path, n=5, temporal=None)
    for p in (seq / "groundtruth").iterdir():
        p.unlink()
    (seq / "groundtruth").rmdir()
    with pytest.raises(DataError, match="no ground truth"):
        evaluate_sequence(seq, detectors={"fake": FakeScored()})


def test_video_file_with_groundtruth_beside_it(tmp_path, tiny_seq):
    # a lossless video of the frames, ground truth folder <stem>_groundtruth beside it
    video = tmp_path / "clip.avi"
    vw = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"FFV1"), 25, (W, H))
    if not vw.isOpened():
        pytest.skip("no FFV1 encoder in this OpenCV build")
    for i in range(1, 31):
        vw.write(square_frame(i)[0])
    vw.release()
    gtdir = tmp_path / "clip_groundtruth"
    gtdir.mkdir()
    for i in range(1, 31):
        cv2.imwrite(str(gtdir / f"gt{i:06d}.png"), square_frame(i)[1])
    (tmp_path / "temporalROI.txt").write_text("10 25\n")
    ref = evaluate_sequence(tiny_seq, detectors={"fake": FakeScored()}).algorithms["fake"]
    got = evaluate_sequence(video, detectors={"fake": FakeScored()})
    assert (got.first, got.last) == (10, 25)
    roi = cv2.imread(str(tiny_seq / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    assert got.algorithms["fake"].counts == _expected(tiny_seq, FakeScored(), 10, 25)
    assert ref.counts == _expected(tiny_seq, FakeScored(), 10, 25, roi)


@pytest.fixture(scope="module")
def sample_head(tmp_path_factory):
    """First 120 frames of the shipped clip, evaluated 100..120 (warm-up included in the run)."""
    import shutil

    import silkvision as sv

    src = sv.samples.highway()
    seq = tmp_path_factory.mktemp("head") / "hw"
    (seq / "input").mkdir(parents=True)
    (seq / "groundtruth").mkdir()
    for i in range(1, 121):
        shutil.copy(src / "input" / f"in{i:06d}.jpg", seq / "input")
        shutil.copy(src / "groundtruth" / f"gt{i:06d}.png", seq / "groundtruth")
    shutil.copy(src / "ROI.bmp", seq)
    (seq / "temporalROI.txt").write_text("100 120\n")
    return seq


def test_opencv_baselines_run_on_the_sample_head(sample_head):
    res = evaluate_sequence(sample_head, ["mog2", "knn"])
    for a in ("mog2", "knn"):
        ar = res.algorithms[a]
        assert ar.roc is None and ar.row()["auc"] is None and ar.counts.tp > 0
        assert 0 < ar.row()["f_measure"] <= 1


#: detector keys that switch the mask post-processing off (median, closing, hole filling)
RAW = {"median": 0, "close": 0, "fill_holes": False}


@pytest.mark.parametrize("algo", ["silk", "norma"])
@pytest.mark.slow
def test_real_detector_roc_point_equals_exported_masks(sample_head, algo):
    """With the mask post-processing off the ROC's operating point at the configured threshold is exactly the confusion
    counts of the masks the detector returns (and writes on export)."""
    pytest.importorskip(f"silkvision.detector.{algo}")
    import silkvision as sv

    res = evaluate_sequence(sample_head, [algo], {"detector": RAW})
    ar = res.algorithms[algo]
    assert ar.roc is not None and ar.threshold == sv.create_subtractor(algo).threshold
    assert ar.roc_counts == ar.counts
    assert ar.counts.tp > 0 and 0.5 < ar.auc <= 1.0
    # and a threshold other than the default: re-threshold the same scores via the config
    t = ar.threshold * 0.8
    key = "threshold"
    res2 = evaluate_sequence(sample_head, [algo], {"detector": {**RAW, algo: {key: t}}})
    assert res2.algorithms[algo].roc_counts == res2.algorithms[algo].counts


def test_roc_point_equals_masks_written_by_silkvision_export(sample_head, tmp_path):
    """The literal check: masks exported by ``silkvision export`` (no post-processing), scored as result files,
    give exactly the counts of the ROC's point at the configured threshold."""
    from silkvision.cli.main import main

    out = tmp_path / "exported"
    assert (
        main(
            [
                "export",
                str(sample_head),
                "-a",
                "silk",
                "--out",
                str(out),
                "--set",
                "detector.median=0",
                "--set",
                "detector.close=0",
                "--set",
                "detector.fill_holes=false",
            ]
        )
        == 0
    )
    scored = score_results(sample_head, out)
    ar = evaluate_sequence(sample_head, ["silk"], {"detector": RAW}).algorithms["silk"]
    assert scored.counts == ar.roc_counts == ar.counts
    assert scored.counts.tp > 0


def _relabel(path: Path, old: int, new: int) -> None:
    gt = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    gt[gt == old] = new
    assert cv2.imwrite(str(path), gt)


def test_a_non_cdnet_label_names_the_ground_truth_file(tiny_seq):
    bad = tiny_seq / "groundtruth" / "gt000012.png"
    _relabel(bad, 255, 128)
    with pytest.raises(DataError) as e:
        evaluate_sequence(tiny_seq, detectors={"fake": FakeScored()})
    assert str(e.value).startswith(f"{bad}: labels 128 are not CDnet labels; expected only 0, 50, 85")
    masks = tiny_seq.parent / "masks"
    masks.mkdir()
    for i in range(1, 31):
        cv2.imwrite(str(masks / f"bin{i:06d}.png"), np.zeros((H, W), np.uint8))
    with pytest.raises(DataError, match=f"^{bad}: labels 128 "):
        score_results(tiny_seq, masks)


def test_sequence_frames_can_check_every_ground_truth_file_up_front(tiny_seq):
    bad = tiny_seq / "groundtruth" / "gt000020.png"
    _relabel(bad, 255, 200)
    assert sequence_frames(tiny_seq).evaluated == list(range(10, 26))  # listing only: not read
    with pytest.raises(DataError, match=f"^{bad}: labels 200 are not CDnet labels"):
        sequence_frames(tiny_seq, check_groundtruth=True)
    bad.write_bytes(bad.read_bytes()[:40])  # truncated PNG
    with pytest.raises(SilkvisionError, match=f"^{bad}: cannot decode"):
        sequence_frames(tiny_seq, check_groundtruth=True)


def test_rows_and_label_name_the_whole_mask_post_processing(tiny_seq):
    from silkvision.evaluation.runner import AlgorithmResult

    class Post(FakeScored):
        def get_params(self):
            return {**super().get_params(), "close": 5, "fill_holes": True}

    ar = evaluate_sequence(tiny_seq, detectors={"fake": Post(median=3)}).algorithms["fake"]
    row = ar.row()
    assert (row["median"], row["close"], row["fill_holes"]) == (3, 5, True)
    assert ar.postprocessing == "median 3, closing 5, hole filling"
    empty = np.zeros((0, 4), np.int64)
    off = AlgorithmResult("x", Counts(), np.zeros(0), empty, median=0, close=0, fill_holes=False)
    assert off.postprocessing == "no post-processing"
    assert AlgorithmResult("results", Counts(), np.zeros(0), empty).postprocessing is None


def test_evaluate_sequence_refuses_overlapping_light_switches(tiny_seq):
    from silkvision.errors import ConfigError

    sw = (LightSwitch(12, 18, 0.5), LightSwitch(15, 20, 2.0))
    with pytest.raises(ConfigError, match="'12:18:0.5' and '15:20:2' overlap"):
        evaluate_sequence(tiny_seq, detectors={"fake": FakeScored()}, light_switches=sw)
