"""The resume plan alone: what a run keeps or redoes, decided from the manifest, the checkpoint and
the files on disk, without writing anything."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from silkvision.capture import open_source
from silkvision.errors import ExportError, ExportMismatchError
from silkvision.export.plan import ResumePlan, plan_resume
from silkvision.io.checkpoint import CHECKPOINT, save_checkpoint
from silkvision.io.manifest import build_manifest
from silkvision.io.writers import mask_name, scores_name, write_mask_png, write_scores_npz

from ..io.fake_detector import FakeDetector

N = 6
SIZE = (16, 12)  # width, height


@pytest.fixture
def src(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for i in range(1, N + 1):
        cv2.imwrite(str(folder / f"f{i:03d}.png"), rng.integers(0, 256, (SIZE[1], SIZE[0], 3), np.uint8))
    with open_source(folder) as s:
        yield s


def _manifest(src, status="running", **more):
    return {**build_manifest(src, "fake", {"export.scores": False}, status), **more}


def _write_masks(out: Path, upto: int, scores: bool = False) -> None:
    for i in range(1, upto + 1):
        write_mask_png(out / mask_name(i), np.zeros(SIZE[::-1], np.uint8))
        if scores:
            write_scores_npz(out / scores_name(i), np.zeros(SIZE[::-1], np.float32))


def _checkpoint(out: Path, src, after: int) -> None:
    det = FakeDetector()
    for _, (_, frame) in zip(range(after), src):
        det.apply(frame)
    assert save_checkpoint(out, det, after, after, frame)


def _plan(out, old, src, scores=False, checkpointable=True) -> ResumePlan:
    return plan_resume(
        out, old, _manifest(src), src, scores=scores, algorithm="fake", checkpointable=checkpointable
    )


def _snapshot(folder: Path) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.is_file()}


def test_no_manifest_is_a_fresh_export(tmp_path, src):
    plan = _plan(tmp_path, None, src)
    assert plan.action == "fresh" and plan.resume_index is None and plan.note is None
    assert not plan.keep_existing and plan.resumed_from is None


def test_a_complete_export_with_every_mask_is_done(tmp_path, src):
    _write_masks(tmp_path, N)
    plan = _plan(tmp_path, _manifest(src, "complete", frames=N), src)
    assert plan.action == "done" and plan.resumed_from is None


def test_a_complete_export_missing_a_mask_is_refused(tmp_path, src):
    _write_masks(tmp_path, N)
    (tmp_path / mask_name(3)).unlink()
    with pytest.raises(ExportError, match=f"complete with {N} frames, but only {N - 1} masks"):
        _plan(tmp_path, _manifest(src, "complete", frames=N), src)


def test_other_settings_are_a_mismatch(tmp_path, src):
    old = {**_manifest(src), "settings": {"export.scores": True}}
    with pytest.raises(ExportMismatchError, match="made with export.scores=true, not false"):
        _plan(tmp_path, old, src)


def test_a_usable_checkpoint_resumes_after_its_frame(tmp_path, src):
    _write_masks(tmp_path, 3)
    _checkpoint(tmp_path, src, 3)
    before = _snapshot(tmp_path)
    plan = _plan(tmp_path, _manifest(src), src)
    assert (plan.action, plan.resume_index, plan.frames_before, plan.resumed_from) == ("checkpoint", 3, 3, 3)
    assert not plan.keep_existing and len(plan.digest) == 16
    assert set(plan.state) == {"bg", "frames_seen"} and int(plan.state["frames_seen"]) == 3
    assert plan.note == f"resuming {tmp_path} after frame 3 (checkpoint)"
    assert _snapshot(tmp_path) == before  # the plan writes nothing


def test_a_damaged_checkpoint_replays_keeping_the_masks(tmp_path, src):
    _write_masks(tmp_path, 3)
    (tmp_path / CHECKPOINT).write_bytes(b"garbage")
    before = _snapshot(tmp_path)
    plan = _plan(tmp_path, _manifest(src), src)
    assert plan.action == "replay" and plan.keep_existing and plan.resumed_from == 0
    assert plan.resume_index is None and plan.state is None and plan.frames_before == 0
    assert plan.note == (
        f"{tmp_path / CHECKPOINT}: cannot be used (not a .npz (zip) file); replaying "
        f"from the first frame, keeping the 3 masks already written"
    )
    assert _snapshot(tmp_path) == before


def test_a_checkpoint_after_a_missing_scores_file_replays(tmp_path, src):
    _write_masks(tmp_path, 3, scores=True)
    _checkpoint(tmp_path, src, 3)
    (tmp_path / scores_name(2)).unlink()
    assert _plan(tmp_path, _manifest(src), src, scores=False).action == "checkpoint"
    plan = _plan(tmp_path, _manifest(src), src, scores=True)
    assert plan.action == "replay" and "scores000002.npz, written before it, is missing" in plan.note


@pytest.mark.parametrize(
    "checkpointable, why", [(False, "fake cannot be checkpointed"), (True, "no checkpoint was saved yet")]
)
def test_no_checkpoint_replays_and_says_why(tmp_path, src, checkpointable, why):
    _write_masks(tmp_path, 2)
    plan = _plan(tmp_path, _manifest(src), src, checkpointable=checkpointable)
    assert plan.action == "replay" and plan.keep_existing
    assert plan.note == (
        f"resuming {tmp_path}: {why}, so frames are replayed from the first one; "
        f"masks already written are kept"
    )


def test_an_unfinished_camera_export_cannot_be_resumed(tmp_path, src):
    camera = SimpleNamespace(seekable=False, name="camera 0", kind="camera")
    new = _manifest(src)
    with pytest.raises(ExportError, match="unfinished export of camera 0, which cannot be resumed"):
        plan_resume(tmp_path, dict(new), new, camera, scores=False, algorithm="fake", checkpointable=True)


def test_frame_list_joins_runs_of_consecutive_frames():
    from silkvision.export.plan import frame_list

    assert frame_list([{"frame": i} for i in (300, 248, 301, 302, 5)]) == "5, 248, 300-302"
    assert frame_list([{"frame": 7}]) == "7" and frame_list([]) == ""
