"""What a resume checks before it goes on: the source's content (fingerprint), the masks written
before the checkpoint, and that ``--overwrite`` is not recorded as a setting."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

import silkvision as sv
from silkvision.errors import ExportMismatchError
from silkvision.export import CHECKPOINT, MANIFEST, export_masks
from silkvision.io.npz import load_npz

from .export_files import files_of
from .fake_detector import FakeDetector, interrupt_after

N = 12  # frames of the copied sample clip
CFG = {"export": {"checkpoint_every": 4, "scores": True}}


def _export(seq, out: Path, stop_after: int | None = None, **kw):
    """Export ``seq`` with the fake detector; with ``stop_after``, stopped as by Ctrl-C after that
    frame (a checkpoint is saved then)."""
    det = FakeDetector() if stop_after is None else interrupt_after(FakeDetector(), stop_after)
    return export_masks(seq, out, CFG, detector=det, progress=False, log=lambda m: None, **kw)


@pytest.fixture
def seq(tmp_path, sample_seq) -> Path:
    """A CDnet folder holding the first N frames of the sample clip (free to change)."""
    folder = tmp_path / "seq"
    (folder / "input").mkdir(parents=True)
    for i in range(1, N + 1):
        shutil.copy2(sample_seq / "input" / f"in{i:06d}.jpg", folder / "input")
    return folder


@pytest.fixture
def reference(tmp_path, seq) -> Path:
    out = tmp_path / "ref"
    assert _export(seq, out).complete
    return out


def _interrupted(seq, out: Path, after: int = 8, **kw) -> None:
    res = _export(seq, out, stop_after=after, **kw)
    assert res.interrupted and int(load_npz(out / CHECKPOINT)["_index"]) == after


# -- a source whose content changed --------------------------------------------------------------
def test_manifest_records_a_fingerprint_of_the_source(reference, seq):
    fp = json.loads((reference / MANIFEST).read_text())["source_fingerprint"]
    assert isinstance(fp, str) and len(fp) == 64
    assert _export(seq, reference).already_complete  # same files: same fingerprint


@pytest.mark.parametrize("change", ["replaced", "first_same_size"])
@pytest.mark.slow
def test_resume_refuses_a_folder_whose_frames_changed(tmp_path, seq, change):
    out = tmp_path / "out"
    _interrupted(seq, out)
    before = files_of(out)
    if change == "replaced":  # another image under the same name
        shutil.copy(seq / "input" / "in000011.jpg", seq / "input" / "in000003.jpg")
    else:  # the first frame's content, at the same size
        first = seq / "input" / "in000001.jpg"
        data = bytearray(first.read_bytes())
        data[len(data) // 2] ^= 0xFF
        first.write_bytes(bytes(data))
    with pytest.raises(ExportMismatchError) as e:
        _export(seq, out)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(
        f"{out}: {seq.resolve()} changed since the interrupted export in this folder"
    )
    assert msg.endswith("; add --overwrite to start over")
    assert files_of(out) == before  # nothing was processed or written
    assert _export(seq, out, overwrite=True).complete  # the advice works


@pytest.mark.slow
def test_a_copy_or_checkout_that_keeps_the_content_resumes(tmp_path, seq, reference):
    """Modification times are not part of the fingerprint: touching every frame (as a checkout or
    a copy without -p does) does not stop a resume."""
    out = tmp_path / "out"
    _interrupted(seq, out)
    for frame in (seq / "input").iterdir():
        st = frame.stat()
        os.utime(frame, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert _export(seq, out).complete
    assert files_of(out) == files_of(reference)


def _video(path: Path, seed: int, frames: int = 10) -> Path:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    assert w.isOpened()
    rng = np.random.default_rng(seed)
    for _ in range(frames):
        w.write(rng.integers(0, 256, (24, 32, 3), np.uint8))
    w.release()
    return path


def test_resume_refuses_a_video_replaced_by_another_with_as_many_frames(tmp_path):
    video = _video(tmp_path / "v.avi", seed=0)
    out = tmp_path / "out"
    _interrupted(video, out, after=5)
    _video(tmp_path / "other.avi", seed=1).replace(video)
    with pytest.raises(ExportMismatchError, match="v.avi changed since the interrupted export"):
        _export(video, out)


def test_complete_export_of_a_changed_source_is_not_nothing_to_do(reference, seq):
    shutil.copy(seq / "input" / "in000011.jpg", seq / "input" / "in000003.jpg")
    with pytest.raises(ExportMismatchError) as e:
        _export(seq, reference)
    assert "changed since the export in this folder" in str(e.value)
    assert str(e.value).endswith("; add --overwrite to export it again")


def test_manifest_without_fingerprint_still_resumes(tmp_path, seq, reference):
    """An export interrupted by an older version (no "source_fingerprint") resumes as before."""
    out = tmp_path / "out"
    _interrupted(seq, out)
    m = json.loads((out / MANIFEST).read_text())
    del m["source_fingerprint"]
    (out / MANIFEST).write_text(json.dumps(m))
    res = _export(seq, out)
    assert res.complete and res.resumed_from == 8
    assert files_of(out) == files_of(reference)


def test_changed_frame_count_gives_advice_that_can_work(tmp_path, seq):
    out = tmp_path / "out"
    _interrupted(seq, out)
    frame = seq / "input" / "in000003.jpg"  # a frame before the checkpoint
    frame.rename(tmp_path / frame.name)
    with pytest.raises(ExportMismatchError) as e:
        _export(seq, out)
    msg = str(e.value)
    assert f"a source with {N} frames, but it now has {N - 1}" in msg
    assert "re-run with the same arguments" not in msg
    assert msg.endswith("; restore the source as it was to resume, or add --overwrite to start over")
    (tmp_path / frame.name).rename(frame)  # restored: the resume works
    assert _export(seq, out).resumed_from == 8


def test_frames_added_after_the_checkpoint_are_exported_by_the_resume(tmp_path, seq):
    """Only the frames up to the checkpoint must be as they were: the others are exported again."""
    out = tmp_path / "out"
    _interrupted(seq, out)
    shutil.copy(seq / "input" / "in000001.jpg", seq / "input" / f"in{N + 1:06d}.jpg")
    res = _export(seq, out)
    assert res.complete and res.resumed_from == 8 and res.frames == N + 1
    fresh = tmp_path / "fresh"
    assert _export(seq, fresh).complete
    assert files_of(out) == files_of(fresh)


# -- --overwrite is not a setting of the output ----------------------------------------------------
def test_overwrite_is_written_as_false_and_an_overwritten_export_resumes(tmp_path, seq, reference):
    out = tmp_path / "out"
    out.mkdir()
    (out / "bin000999.png").write_bytes(b"stale")
    _interrupted(seq, out, overwrite=True)
    cfg = sv.load_config(out / "config.yaml", use_cwd=False)
    assert cfg["export"]["overwrite"] is False
    res = _export(seq, out)  # resumed without --overwrite: not another setting
    assert res.complete and res.resumed_from == 8
    assert files_of(out) == files_of(reference)  # config.yaml included


# -- masks missing before the checkpoint -----------------------------------------------------------
@pytest.mark.parametrize("removed", ["bin000003.png", "scores000003.npz"])
def test_missing_file_before_the_checkpoint_is_recreated_by_a_replay(tmp_path, seq, reference, removed):
    out = tmp_path / "out"
    _interrupted(seq, out)
    (out / removed).unlink()
    kept = {p.name: p.stat().st_mtime_ns for p in out.glob("bin*.png")}
    res = _export(seq, out)
    assert res.complete and res.resumed_from == 0 and res.processed == N
    note = res.notes[0]
    assert "\n" not in note and note.startswith(
        f"{out / CHECKPOINT}: cannot be used ({removed}, "
        f"written before it, is missing); replaying from the "
        f"first frame"
    )
    assert all((out / n).stat().st_mtime_ns == t for n, t in kept.items())
    assert files_of(out) == files_of(reference)


def test_advice_for_other_settings_fits_a_running_and_a_complete_export(tmp_path, seq):
    """An interrupted export is resumed with the arguments it was started with; a complete one is
    not resumed at all, so its message points to another --out instead."""
    other = {"export": {"checkpoint_every": 4, "scores": False}}
    out = tmp_path / "run"
    _interrupted(seq, out)
    with pytest.raises(ExportMismatchError, match="re-run with the arguments it was started with"):
        export_masks(seq, out, other, detector=FakeDetector(), progress=False, log=lambda m: None)
    done = tmp_path / "done"
    assert _export(seq, done).complete
    with pytest.raises(
        ExportMismatchError, match="choose another --out, or add --overwrite to replace it"
    ) as e:
        export_masks(seq, done, other, detector=FakeDetector(), progress=False, log=lambda m: None)
    assert "resume" not in str(e.value)


def test_an_inherited_ignored_sigint_stays_ignored_during_an_export(tmp_path, seq):
    """A background job (``cmd &``) inherits SIGINT ignored; an export must not start honouring it."""
    import signal

    seen = []
    det = FakeDetector()
    apply = det.apply

    def look(frame, *a, **k):
        seen.append(signal.getsignal(signal.SIGINT))
        return apply(frame, *a, **k)

    det.apply = look
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        res = export_masks(seq, tmp_path / "o", CFG, detector=det, progress=False, log=lambda m: None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)
    assert res.complete and seen and all(h is signal.SIG_IGN for h in seen)


def test_a_complete_export_with_scores_of_a_detector_without_them_is_complete(tmp_path, seq):
    """MOG2/KNN write no scores files even when scores are asked for; re-running such a complete
    export is "nothing to do", not "scores files were removed"."""

    def no_scores():
        det = FakeDetector()
        det.has_scores = False
        return det

    cfg = {"export": {"scores": True}}
    out = tmp_path / "o"
    assert export_masks(seq, out, cfg, detector=no_scores(), progress=False, log=lambda m: None).complete
    assert not list(out.glob("scores*.npz"))
    again = export_masks(seq, out, cfg, detector=no_scores(), progress=False, log=lambda m: None)
    assert again.already_complete


# -- files kept by a resume are read back first ----------------------------------------------------
def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _small_png(path: Path) -> None:
    assert cv2.imwrite(str(path), np.zeros((10, 10), np.uint8))


def _link_to_copy(path: Path) -> None:
    """``path`` replaced by a link to a copy of itself: the same bytes, but not our file."""
    copy = path.parent.parent / f"elsewhere-{path.name}"
    shutil.copy(path, copy)
    path.unlink()
    path.symlink_to(copy)


@pytest.mark.parametrize(
    "name, damage, problem",
    [
        ("bin000003.png", _truncate, "is truncated (no PNG end chunk)"),
        ("bin000003.png", _link_to_copy, "is a symbolic link"),
        ("bin000003.png", _small_png, "is 10x10, not 320x240"),
        ("scores000005.npz", _truncate, "cannot be read back ("),
        ("scores000005.npz", _link_to_copy, "is a symbolic link"),
    ],
    ids=["truncated-mask", "linked-mask", "small-mask", "truncated-scores", "linked-scores"],
)
def test_a_damaged_file_before_the_checkpoint_is_redone_by_a_replay(
    tmp_path, seq, reference, name, damage, problem
):
    out = tmp_path / "out"
    _interrupted(seq, out)
    damage(out / name)
    res = _export(seq, out)
    assert res.complete and res.resumed_from == 0 and res.processed == N
    assert res.notes[0].startswith(
        f"{out / CHECKPOINT}: cannot be used ({name}, written before it, {problem}"
    )
    assert not (out / name).is_symlink()
    assert files_of(out) == files_of(reference)


@pytest.mark.parametrize("damage", [_truncate, _link_to_copy, _small_png], ids=["truncated", "link", "small"])
def test_a_replay_without_checkpoint_rewrites_a_damaged_mask(tmp_path, seq, damage):
    """A detector without a checkpoint (MOG2, KNN) replays from the first frame, keeping the masks
    on disk: only those that read back as masks of the frames' size."""

    def det(after=None):
        d = FakeDetector(checkpointable=False)
        return d if after is None else interrupt_after(d, after)

    reference = tmp_path / "ref"
    assert export_masks(seq, reference, CFG, detector=det(), progress=False, log=lambda m: None).complete
    out = tmp_path / "out"
    res = export_masks(seq, out, CFG, detector=det(8), progress=False, log=lambda m: None)
    assert res.interrupted and not (out / CHECKPOINT).exists()
    damage(out / "bin000004.png")
    notes = []
    res = export_masks(seq, out, CFG, detector=det(), progress=False, log=notes.append)
    assert res.complete and res.resumed_from == 0
    assert [n for n in notes if "bin000004.png" in n][0].endswith("; written again")
    assert not (out / "bin000004.png").is_symlink()
    assert files_of(out) == files_of(reference)
