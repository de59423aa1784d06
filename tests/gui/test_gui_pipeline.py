"""The GUI's per-frame pipeline (no Qt): same numbers as the evaluation engine fed directly."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from silkvision.errors import SourceError
from silkvision.gui.pipeline import MaskRecorder, Pipeline
from silkvision.io.manifest import source_fingerprint

from .gui_helpers import FRAMES, START, binary, fpr_tpr, reference_run


def run(pipe, source, start=START, frames=FRAMES):
    pipe.open(source)
    pipe.seek(start)
    results = [pipe.step() for _ in range(frames)]
    return results


@pytest.mark.parametrize("second", ["norma", "mog2"])
@pytest.mark.slow
def test_live_roc_equals_engine(sample_seq, second):
    pipe = Pipeline({}, second=second)
    results = run(pipe, sample_seq)
    assert [r.index for r in results] == list(range(START, START + FRAMES))  # none twice, none skipped
    ref = reference_run(sample_seq, second=second)
    last = results[-1]
    assert last.roc["silk"].frames == ref.roc.frames == START + FRAMES - 100
    assert last.roc["silk"].auc == ref.roc.auc()
    np.testing.assert_array_equal(last.roc["silk"].fpr, ref.roc.curve()[0])
    assert last.roc["silk"].point == pytest.approx(fpr_tpr(ref.roc.counts_at(ref.silk.threshold)), abs=0)
    if ref.roc2 is not None:
        assert last.roc[second].auc == ref.roc2.auc()
    else:  # no scores: an operating point from the summed confusion counts, no curve
        assert last.roc[second].fpr is None and last.roc[second].auc is None
        assert last.roc[second].point == pytest.approx(fpr_tpr(ref.counts2), abs=0)
    np.testing.assert_array_equal(last.masks["silk"], ref.silk.mask_from_scores(ref.silk.scores))
    np.testing.assert_array_equal(last.scores, ref.silk.scores)


@pytest.mark.parametrize("second", ["norma", "mog2"])
@pytest.mark.slow
def test_live_f_measures_of_scores_and_of_shown_masks(sample_seq, second):
    # "F scores": raw scores at the threshold (scored detectors only); "F mask": the masks as shown,
    # post-processed, for every detector, so that SILK and MOG2 are compared on the same footing
    from silkvision.evaluation import metrics

    last = run(Pipeline({}, second=second), sample_seq)[-1]
    ref = reference_run(sample_seq, second=second)
    silk, other = last.roc["silk"], last.roc[second]
    assert silk.f_measure == pytest.approx(metrics(ref.roc.counts_at(ref.silk.threshold))["f_measure"], abs=0)
    assert silk.mask_f_measure == pytest.approx(metrics(ref.counts)["f_measure"], abs=0)
    assert other.mask_f_measure == pytest.approx(metrics(ref.counts2)["f_measure"], abs=0)
    if ref.roc2 is None:
        assert other.f_measure is None
    else:
        assert other.f_measure == pytest.approx(
            metrics(ref.roc2.counts_at(ref.second.threshold))["f_measure"], abs=0
        )
    # the default chain (median, closing, hole filling) is what the user sees, and it changes F
    assert silk.mask_f_measure != silk.f_measure


def test_rethreshold_uses_last_scores(sample_seq):
    pipe = Pipeline({})
    last = run(pipe, sample_seq, frames=8)[-1]
    seen = pipe.silk.frames_seen
    new = pipe.rethreshold(0.9)
    assert pipe.silk.frames_seen == seen  # nothing re-run
    assert new.index == last.index and new.rethreshold
    np.testing.assert_array_equal(new.masks["silk"], pipe.silk.mask_from_scores(last.scores, 0.9))
    assert (new.masks["silk"] > 0).sum() > (last.masks["silk"] > 0).sum()
    assert pipe.silk.threshold == 0.9  # later frames use it
    # 0.9 is not an exact edge of the ROC built at the restart: its F is marked as read from bins
    assert last.roc["silk"].exact and not new.roc["silk"].exact


def test_restart_param_resets_both_detectors_and_roc(sample_seq):
    pipe = Pipeline({})
    run(pipe, sample_seq, frames=8)
    assert not pipe.set_params("silk", {"tau": 0.02})
    assert pipe.processed == 8 and pipe.config["detector"]["silk"]["tau"] == 0.02
    assert pipe.set_params("silk", {"omega": 10})
    assert pipe.processed == 0 and pipe.silk.frames_seen == 0 and pipe.detectors["norma"].frames_seen == 0
    assert all(r.frames == 0 for r in pipe.rocs.values())


def test_recorder_writes_export_layout(tmp_path, sample_seq):
    pipe = Pipeline({}, second="mog2")
    pipe.open(sample_seq)
    pipe.start_recording(tmp_path / "rec")
    r = [pipe.step() for _ in range(3)][-1]
    rec = pipe.stop_recording()
    assert rec.written == 6
    for algo in ("silk", "mog2"):
        files = sorted(p.name for p in (tmp_path / "rec" / algo).iterdir())
        assert files == ["bin000001.png", "bin000002.png", "bin000003.png", "config.yaml", "recording.json"]
        m = cv2.imread(str(tmp_path / "rec" / algo / "bin000003.png"), cv2.IMREAD_UNCHANGED)
        assert binary(m)
        np.testing.assert_array_equal(m, r.masks[algo])
    from silkvision.config import load_config

    assert (
        load_config(tmp_path / "rec" / "mog2" / "config.yaml", use_cwd=False)["detector"]["algorithm"]
        == "mog2"
    )
    assert isinstance(rec, MaskRecorder)


def test_recorder_counts_each_file_once(tmp_path, sample_seq):
    """A threshold move rewrites the shown frame's SILK mask and a seek back rewrites frames: the
    count said 11 masks for 6 files."""
    pipe = Pipeline({}, second="mog2")
    pipe.open(sample_seq)
    rec = pipe.start_recording(tmp_path / "rec")
    for _ in range(3):
        pipe.step()
    for t in (0.3, 0.4, 0.5):
        pipe.rethreshold(t)
    pipe.seek(2)
    pipe.step()
    files = [p for algo in ("silk", "mog2") for p in (tmp_path / "rec" / algo).glob("bin*.png")]
    assert rec.written == len(files) == 6


def _video(path, size=(32, 24), frames=5):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, size)
    for i in range(frames):
        w.write(np.full((size[1], size[0], 3), 10 * i, np.uint8))
    w.release()
    return path


def test_recording_refuses_a_folder_of_other_files_or_sources(tmp_path, sample_seq):
    """Record used to overwrite an export's masks, or an earlier recording of another source, and
    leave masks of two sources (and sizes) in one folder."""
    import json

    from silkvision.errors import ExportError
    from silkvision.export import export_masks

    pipe = Pipeline({}, second="mog2")
    pipe.open(sample_seq)
    export_masks(sample_seq, tmp_path / "ex" / "silk", config={"capture": {"max_frames": 2}})
    before = {p.name: p.read_bytes() for p in (tmp_path / "ex" / "silk").iterdir()}
    with pytest.raises(
        ExportError,
        match=r"ex/silk: holds a silkvision export \(export.json\); record into "
        r"an empty folder, or into one recorded from this source$",
    ):
        pipe.start_recording(tmp_path / "ex")
    assert pipe.recorder is None
    assert {p.name: p.read_bytes() for p in (tmp_path / "ex" / "silk").iterdir()} == before
    (tmp_path / "mine" / "mog2").mkdir(parents=True)
    (tmp_path / "mine" / "mog2" / "notes.txt").write_text("keep")
    with pytest.raises(
        ExportError, match=r"mine/mog2: holds notes.txt, which no recording of this source wrote"
    ):
        pipe.start_recording(tmp_path / "mine")
    # a recording of this source is continued (stop, go on, record again) ...
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    pipe.stop_recording()
    pipe.step()
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    assert sorted(p.name for p in (tmp_path / "rec" / "silk").glob("bin*")) == [
        "bin000001.png",
        "bin000003.png",
    ]
    ident = json.loads((tmp_path / "rec" / "silk" / "recording.json").read_text())
    assert ident == {
        "spec": str(sample_seq.resolve()),
        "kind": "cdnet",
        "size": [320, 240],
        "fingerprint": source_fingerprint(pipe.src),
    }
    # ... but not from another source: masks of two sources would share the folder
    pipe.stop_recording()
    pipe.open(_video(tmp_path / "other.avi"))
    with pytest.raises(ExportError, match=f"rec/silk: holds a recording of {sample_seq}; record into"):
        pipe.start_recording(tmp_path / "rec")


def test_recording_started_before_a_source_claims_an_empty_folder_only(tmp_path, sample_seq):
    from silkvision.errors import ExportError

    pipe = Pipeline({}, second="mog2")
    (tmp_path / "old" / "silk").mkdir(parents=True)
    (tmp_path / "old" / "silk" / "bin000001.png").write_bytes(b"x")
    with pytest.raises(ExportError, match="old/silk: holds bin000001.png"):
        pipe.start_recording(tmp_path / "old")
    pipe.start_recording(tmp_path / "rec")
    pipe.open(sample_seq)
    pipe.step()
    assert (tmp_path / "rec" / "silk" / "recording.json").read_text().count(str(sample_seq)) == 1


def test_recorded_config_follows_the_threshold(tmp_path, sample_seq):
    """A threshold move changed the recorded masks but not the recording's config.yaml."""
    from silkvision.config import load_config

    pipe = Pipeline({}, second="mog2")
    pipe.open(sample_seq)
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    pipe.rethreshold(0.75)
    cfg = load_config(tmp_path / "rec" / "silk" / "config.yaml", use_cwd=False)
    assert cfg["detector"]["silk"]["threshold"] == 0.75
    pipe.restart()  # no frame shown: the move still sets the masks to come
    pipe.rethreshold(0.05)
    pipe.step()
    cfg = load_config(tmp_path / "rec" / "silk" / "config.yaml", use_cwd=False)
    assert cfg["detector"]["silk"]["threshold"] == 0.05


def test_camera_recordings_are_per_opening(tmp_path):
    """A camera's frame numbers start again at each opening: a second opening must not overwrite
    the first one's masks."""
    from silkvision.errors import ExportError

    video = _video(tmp_path / "cam.avi")
    pipe = Pipeline({}, second="mog2")
    pipe.open(video)
    pipe.src.seekable = False  # as a camera: identified by its opening
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    pipe.stop_recording()
    pipe.start_recording(tmp_path / "rec")  # the same opening: goes on
    pipe.stop_recording()
    pipe.open(video)
    pipe.src.seekable = False
    pipe._opened_at = "later"
    with pytest.raises(
        ExportError, match="holds a recording of .*cam.avi from another opening of the camera"
    ):
        pipe.start_recording(tmp_path / "rec")


def test_a_recording_knows_its_source_by_path_and_content_not_by_spelling(tmp_path, monkeypatch):
    """recording.json held the path as typed: a recording of ./seq was refused when continued from
    its absolute path (File > Open gives one, the command line the other), while another clip
    reached by the same relative path was accepted into the folder."""
    from silkvision.errors import ExportError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    _video(tmp_path / "a" / "clip.avi")
    pipe = Pipeline({}, second="mog2")
    pipe.open("a/clip.avi")
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    pipe.stop_recording()
    pipe.open(str(tmp_path / "a" / "clip.avi"))  # the same file, spelt otherwise: goes on
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    pipe.stop_recording()
    pipe.close()
    _video(tmp_path / "a" / "clip.avi", frames=7)  # another clip at the same path
    pipe.open("a/clip.avi")
    with pytest.raises(
        ExportError,
        match=r"rec/silk: holds a recording of .*clip.avi whose files have "
        r"changed since; record into an empty folder",
    ):
        pipe.start_recording(tmp_path / "rec")


def test_a_recording_stopped_before_any_source_leaves_no_file_that_refuses_the_next(tmp_path, sample_seq):
    """config.yaml was written when Record was pressed, recording.json only at the first frame: a
    recording started and stopped before a source was open left a folder every later one refused."""
    pipe = Pipeline({}, second="mog2")
    pipe.start_recording(tmp_path / "rec")
    pipe.stop_recording()
    assert not list((tmp_path / "rec" / "silk").iterdir())
    pipe.open(sample_seq)
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    assert sorted(p.name for p in (tmp_path / "rec" / "silk").iterdir()) == [
        "bin000001.png",
        "config.yaml",
        "recording.json",
    ]


def test_step_without_source_raises():
    for action in (lambda p: p.step(), lambda p: p.seek(1)):  # Step, Restart: as Play says it
        with pytest.raises(
            SourceError, match="^no source is open: open a video, a folder or a camera first$"
        ):
            action(Pipeline({}, second="mog2"))


def test_seek_takes_frame_numbers_only(sample_seq):
    """Pipeline.seek truncated 100.9 to frame 100 (and True to frame 1) past the sources' check."""
    pipe = Pipeline({}, second="mog2")
    pipe.open(sample_seq)
    for bad in (100.9, True):
        with pytest.raises(ValueError, match=f"^index: {bad!r} is not a frame number"):
            pipe.seek(bad)
    pipe.seek(3)
    assert pipe.step().index == 3


def test_second_cannot_be_silk():
    with pytest.raises(ValueError, match="second"):
        Pipeline({}, second="silk")


@pytest.mark.slow
def test_a_threshold_set_before_the_first_frame_gives_an_exact_f(sample_seq):
    """The ROC was built at open time with the old threshold: its F was read from bins ('≈')."""
    pipe = Pipeline({})
    pipe.open(sample_seq)
    pipe.rethreshold(0.3)  # before any frame: no seek or restart afterwards
    for _ in range(104):  # the sample's temporal ROI starts at frame 100
        last = pipe.step()
    assert last.roc["silk"].frames > 0 and last.roc["silk"].exact


def test_the_first_scored_ground_truth_comes_with_the_source(tmp_path, sample_seq):
    """The window shows it before any frame: the temporal ROI's first mask of a CDnet sequence
    (the masks before it are flat 'outside ROI'), the first mask of a plain ground-truth folder,
    nothing without ground truth."""
    p = Pipeline()
    info = p.open(sample_seq)
    index, gt = info.first_gt
    assert index == 100 and len(np.unique(gt)) > 1
    np.testing.assert_array_equal(gt, cv2.imread(str(sample_seq / "groundtruth" / "gt000100.png"), 0))
    assert p.processed == 0
    folder = tmp_path / "gt"
    folder.mkdir()
    for i in (3, 4):
        cv2.imwrite(str(folder / f"gt{i:06d}.png"), np.full((240, 320), 85 * (i - 2), np.uint8))
    info = p.open(sample_seq / "input", groundtruth=folder)
    assert info.first_gt[0] == 3 and np.all(info.first_gt[1] == 85)
    info = p.open(sample_seq / "input")
    assert info.first_gt is None
    p.close()
