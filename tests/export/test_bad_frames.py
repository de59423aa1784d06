"""capture.on_bad_frame: a frame that cannot be decoded, or has another size, stops an export with
advice that works as given (stop), or is passed over, listed and left without a mask (skip); either
way the export resumes to the folder an uninterrupted run writes."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from silkvision.capture import open_source
from silkvision.cli.main import main
from silkvision.errors import ExportMismatchError, SourceError
from silkvision.export import CHECKPOINT, MANIFEST, export_masks
from silkvision.io.npz import load_npz

from ..io.export_files import files_of
from ..io.fake_detector import FakeDetector, interrupt_after

N = 12
BAD = 5
SKIP = {"capture": {"on_bad_frame": "skip"}, "export": {"checkpoint_every": 4, "scores": True}}
STOP = {"capture": {"on_bad_frame": "stop"}, "export": {"checkpoint_every": 4, "scores": True}}


def _export(src, out, cfg, after=None, log=None):
    det = FakeDetector() if after is None else interrupt_after(FakeDetector(), after)
    return export_masks(src, out, cfg, detector=det, progress=False, log=log or (lambda m: None))


@pytest.fixture
def seq(tmp_path, sample_seq) -> Path:
    """A CDnet folder of N frames whose frame BAD is a truncated JPEG."""
    folder = tmp_path / "seq"
    (folder / "input").mkdir(parents=True)
    for i in range(1, N + 1):
        shutil.copy2(sample_seq / "input" / f"in{i:06d}.jpg", folder / "input")
    bad = folder / "input" / f"in{BAD:06d}.jpg"
    bad.write_bytes(bad.read_bytes()[:2000])
    return folder


@pytest.fixture
def reference(tmp_path, seq) -> Path:
    out = tmp_path / "ref"
    res = _export(seq, out, SKIP)
    assert res.complete and res.frames == N - 1 and res.skipped == [BAD]
    return out


def test_skip_passes_over_the_bad_frame_and_lists_it(tmp_path, seq, reference):
    names = sorted(p.name for p in reference.glob("bin*.png"))
    assert names == [f"bin{i:06d}.png" for i in range(1, N + 1) if i != BAD]
    assert not (reference / f"scores{BAD:06d}.npz").exists()
    m = json.loads((reference / MANIFEST).read_text())
    assert m["status"] == "complete" and m["frames"] == N - 1
    assert [s["frame"] for s in m["skipped"]] == [BAD]
    assert m["skipped"][0]["reason"].startswith(f"{seq / 'input' / f'in{BAD:06d}.jpg'}: truncated JPEG")
    notes = []
    res = _export(seq, tmp_path / "again", SKIP, log=notes.append)
    assert "skipped 1 bad frame (capture.on_bad_frame=skip; no mask written, reasons in " in notes[-1]
    assert notes[-1].endswith(f"export.json): {BAD}") and "\n" not in notes[-1]
    assert ", 1 bad frame skipped) in " in res.summary()
    # the masks after it are those of the frames of the same number
    assert files_of(tmp_path / "again") == files_of(reference)


@pytest.mark.parametrize("after", [3, BAD - 1, 8], ids=["before-the-bad-frame", "just-before-it", "after-it"])
def test_an_interrupted_skipping_export_resumes_identically(tmp_path, seq, reference, after):
    out = tmp_path / "out"
    res = _export(seq, out, SKIP, after=after)
    assert res.interrupted
    res = _export(seq, out, SKIP)
    assert res.complete and res.resumed_from == (after if after < BAD else after + 1)
    assert res.skipped == [BAD]
    assert files_of(out) == files_of(reference)


def test_stop_names_the_frame_and_its_advice_works_in_the_same_folder(tmp_path, seq, reference):
    out = tmp_path / "out"
    with pytest.raises(SourceError) as e:
        _export(seq, out, STOP)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"{seq / 'input' / f'in{BAD:06d}.jpg'}: truncated JPEG")
    assert msg.endswith("; add --set capture.on_bad_frame=skip to go on past it")
    assert int(load_npz(out / CHECKPOINT)["_index"]) == BAD - 1  # the frames before it are kept
    res = _export(seq, out, SKIP)
    assert res.complete and res.resumed_from == BAD - 1
    assert files_of(out) == files_of(reference)


def test_an_export_that_skipped_frames_is_resumed_only_by_a_skipping_run(tmp_path, seq):
    out = tmp_path / "out"
    assert _export(seq, out, SKIP, after=8).interrupted
    with pytest.raises(ExportMismatchError) as e:
        _export(seq, out, STOP)
    assert str(e.value) == (
        f"{out}: holds an export that skipped bad frames ({BAD}) with "
        f"capture.on_bad_frame=skip; add --set capture.on_bad_frame=skip to "
        f"resume it, or --overwrite to start over"
    )
    assert _export(seq, out, SKIP).complete


def test_a_frame_of_another_size_is_skipped(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for i in range(1, 7):
        size = (24, 32) if i != 3 else (20, 32)
        cv2.imwrite(str(folder / f"f{i}.png"), rng.integers(0, 256, (*size, 3), np.uint8))
    res = _export(folder, tmp_path / "o", SKIP)
    assert res.complete and res.skipped == [3] and res.frames == 5
    reason = json.loads((tmp_path / "o" / MANIFEST).read_text())["skipped"][0]["reason"]
    assert "frame size 32x20 differs from 32x24" in reason


def test_a_source_whose_every_frame_is_bad_has_no_frames_to_export(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "f1.png"), np.zeros((24, 32, 3), np.uint8))  # read when opened
    for i in (2, 3):
        (folder / f"f{i}.png").write_bytes(b"not a png")
    src = open_source(folder)
    next(src)  # the first frame is then behind: a fresh export rewinds to it
    res = _export(src, tmp_path / "o", SKIP)
    assert res.complete and res.frames == 1 and res.skipped == [2, 3]


# -- a video with a frame that does not decode -----------------------------------------------------
def _damaged_video(path: Path, frames: int = 20, bad: int = 8) -> Path:
    """An MJPG video whose frame ``bad`` has its first 600 bytes scrambled (FFmpeg cannot decode
    it, and decodes the frames after it)."""
    rng = np.random.default_rng(0)
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert w.isOpened()
    for _ in range(frames):
        w.write(cv2.GaussianBlur(rng.integers(0, 256, (48, 64, 3), np.uint8), (5, 5), 0))
    w.release()
    data = bytearray(path.read_bytes())
    end, pos = data.find(b"idx1"), data.find(b"movi")
    for _ in range(bad):
        pos = data.find(b"00dc", pos + 1, end)
    data[pos + 8 : pos + 608] = rng.integers(0, 256, 600, np.uint8).tobytes()
    path.write_bytes(bytes(data))
    return path


def test_a_video_goes_on_past_a_frame_that_does_not_decode(tmp_path, capsys):
    video = _damaged_video(tmp_path / "v.avi")
    cap = cv2.VideoCapture(str(video), cv2.CAP_FFMPEG)
    decoded = [cap.read()[0] for _ in range(20)]
    cap.release()
    assert decoded == [i != 8 for i in range(1, 21)]  # the damage this test is about
    out = tmp_path / "out"
    argv = ["export", str(video), "--out", str(out), "-a", "mog2"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "could not decode frame 8 of the 20 the container reports" in err
    hint = re.search(r"; add (--set \S+) to go on past it$", err)
    assert hint, err
    assert sorted(p.name for p in out.glob("bin*.png")) == [f"bin{i:06d}.png" for i in range(1, 8)]
    assert main(argv + hint.group(1).split()) == 0  # the advice, followed as given
    cap_out = capsys.readouterr()
    assert ", 1 bad frame skipped)" in cap_out.out
    names = sorted(p.name for p in out.glob("bin*.png"))
    assert names == [f"bin{i:06d}.png" for i in range(1, 21) if i != 8]
    assert [s["frame"] for s in json.loads((out / MANIFEST).read_text())["skipped"]] == [8]
    fresh = tmp_path / "fresh"
    assert (
        main(["export", str(video), "--out", str(fresh), "-a", "mog2", "--set", "capture.on_bad_frame=skip"])
        == 0
    )
    assert files_of(out) == files_of(fresh)


# -- an image folder whose files changed after the checkpoint ------------------------------------
def _fresh(seq, tmp_path, cfg) -> Path:
    out = tmp_path / "fresh"
    assert _export(seq, out, cfg).complete
    return out


@pytest.mark.parametrize("fix", ["removed", "replaced"])
def test_removing_or_replacing_the_bad_file_resumes(tmp_path, seq, fix):
    out = tmp_path / "out"
    with pytest.raises(SourceError):
        _export(seq, out, STOP)
    bad = seq / "input" / f"in{BAD:06d}.jpg"
    if fix == "removed":
        bad.unlink()
    else:
        shutil.copy(seq / "input" / "in000011.jpg", bad)
    notes = []
    res = _export(seq, out, STOP, log=notes.append)
    assert res.complete and res.resumed_from == BAD - 1 and res.processed == N - BAD + (fix == "replaced")
    assert notes[0] == (
        f"resuming {out} after frame {BAD - 1} (checkpoint); {seq.resolve()} changed "
        f"after that frame, and the frames after it are exported as they are now"
    )
    assert files_of(out) == files_of(_fresh(seq, tmp_path, STOP))


def test_masks_after_the_checkpoint_of_a_frame_now_gone_are_removed(tmp_path, seq):
    """Killed after frame 8 with the last checkpoint after frame 4: the masks of frames 5..8 are on
    disk; frame 6 is then removed from the folder. Its mask must not stay behind."""
    out, saved = tmp_path / "out", tmp_path / "saved"
    assert _export(seq, out, SKIP, after=4).interrupted
    saved.mkdir()
    for name in (CHECKPOINT, MANIFEST):
        shutil.copy(out / name, saved / name)
    assert _export(seq, out, SKIP, after=8).interrupted
    for name in (CHECKPOINT, MANIFEST):  # as if killed after frame 8, checkpoint of frame 4
        shutil.copy(saved / name, out / name)
    assert (out / "bin000006.png").is_file()
    (seq / "input" / "in000006.jpg").unlink()
    res = _export(seq, out, SKIP)
    assert res.complete and res.resumed_from == 4 and res.skipped == [BAD]
    assert not (out / "bin000006.png").exists() and not (out / "scores000006.npz").exists()
    assert files_of(out) == files_of(_fresh(seq, tmp_path, SKIP))


def test_a_change_up_to_the_checkpoint_is_still_refused(tmp_path, seq):
    out = tmp_path / "out"
    assert _export(seq, out, SKIP, after=8).interrupted
    (seq / "input" / "in000007.jpg").unlink()
    with pytest.raises(ExportMismatchError, match="but it now has 11"):
        _export(seq, out, SKIP)


def test_a_change_after_a_checkpoint_that_cannot_be_used_is_refused(tmp_path, seq):
    """Without the checkpoint the export would replay, keeping masks of the frames as they were."""
    out = tmp_path / "out"
    assert _export(seq, out, SKIP, after=8).interrupted
    (out / CHECKPOINT).write_bytes(b"garbage")
    (seq / "input" / "in000010.jpg").unlink()
    with pytest.raises(ExportMismatchError, match="but it now has 11"):
        _export(seq, out, SKIP)
