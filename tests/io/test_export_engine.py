"""Batch export: outputs, refusal rules, and resume after SIGKILL / SIGINT giving identical files."""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

import silkvision as sv
from silkvision.capture import open_source
from silkvision.errors import ExportError
from silkvision.export import CHECKPOINT, MANIFEST, export_masks, is_export_output
from silkvision.export.pipeline import DEPTH
from silkvision.io.npz import load_npz, npz_bytes

from .export_files import files_of, video_frames
from .fake_detector import FakeDetector, interrupt_after

HERE = Path(__file__).resolve().parent
N = 60  # frames of the sample clip used here


def _cfg(**export):
    return {"capture": {"max_frames": N}, "export": {"checkpoint_every": 10, **export}}


def _assert_same_export(a: Path, b: Path) -> None:
    fa, fb = files_of(a), files_of(b)
    assert sorted(fa) == sorted(fb)
    for name in fa:
        if name == "masks.mkv":  # Matroska header has a random UID: compare decoded frames
            va, vb = video_frames(a / name), video_frames(b / name)
            assert len(va) == len(vb) == N and all(np.array_equal(x, y) for x, y in zip(va, vb))
        else:
            assert fa[name] == fb[name], name


@pytest.fixture(scope="module")
def reference(tmp_path_factory, sample_seq):
    """An uninterrupted export of the sample (first N frames) with scores and video."""
    out = tmp_path_factory.mktemp("ref") / "out"
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=lambda m: None,
    )
    assert res.complete and res.frames == res.processed == N and not res.interrupted
    return out


@pytest.mark.slow
def test_outputs_of_a_complete_export(reference, sample_seq):
    names = sorted(p.name for p in reference.iterdir())
    assert names == sorted(
        [f"bin{i:06d}.png" for i in range(1, N + 1)]
        + [f"scores{i:06d}.npz" for i in range(1, N + 1)]
        + ["config.yaml", MANIFEST, "masks.mkv"]
    )
    # masks equal the detector's, bit for bit, and are 0/255 grey
    det = FakeDetector()
    with open_source(sample_seq, max_frames=N) as src:
        for i, frame in src:
            m = det.apply(frame)
            got = cv2.imread(str(reference / f"bin{i:06d}.png"), cv2.IMREAD_UNCHANGED)
            assert got.dtype == np.uint8 and got.ndim == 2 and np.array_equal(got, m)
            s = load_npz(reference / f"scores{i:06d}.npz")["scores"]
            assert s.dtype == np.float16 and np.array_equal(s, det.scores.astype(np.float16))
    video = video_frames(reference / "masks.mkv")
    assert len(video) == N and np.array_equal(video[-1], m)
    manifest = json.loads((reference / MANIFEST).read_text())
    assert manifest["status"] == "complete" and manifest["frames"] == N and manifest["algorithm"] == "fake"
    cfg = sv.load_config(reference / "config.yaml", use_cwd=False)
    assert cfg["capture"]["max_frames"] == N and cfg["export"]["scores"] is True


def test_npz_files_are_reproducible():
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    assert npz_bytes({"scores": a}) == npz_bytes({"scores": a.copy()})


def _run_fake(args, env_extra, **kw):
    env = {**os.environ, "FAKE_SLEEP": "0", **env_extra}
    return subprocess.Popen(
        [sys.executable, str(HERE / "run_export_with_fake.py"), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def _args(sample_seq, out):
    return [
        str(sample_seq),
        "--out",
        str(out),
        "--scores",
        "--video",
        "--set",
        f"capture.max_frames={N}",
        "--set",
        "export.checkpoint_every=10",
    ]


def _wait_for(path: Path, proc, timeout=60.0):
    t0 = time.time()
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() - t0 < timeout
        time.sleep(0.01)


@pytest.mark.parametrize("checkpointable", [True, False], ids=["checkpoint", "replay"])
@pytest.mark.slow
def test_sigkill_then_rerun_gives_identical_files(tmp_path, sample_seq, reference, checkpointable):
    out = tmp_path / "out"
    env = {"FAKE_SLEEP": "0.03", "FAKE_CHECKPOINT": "1" if checkpointable else "0"}
    proc = _run_fake(_args(sample_seq, out), env)
    _wait_for(out / "bin000035.png", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (out / f"bin{N:06d}.png").exists()  # really killed mid-way
    assert (out / CHECKPOINT).exists() == checkpointable
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("bin*.png")}
    k = int(load_npz(out / CHECKPOINT)["_index"]) if checkpointable else None
    proc = _run_fake(_args(sample_seq, out), {"FAKE_CHECKPOINT": env["FAKE_CHECKPOINT"]})
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    if checkpointable:
        assert "resuming" in stderr and "(checkpoint)" in stderr
        assert k >= 30 and k % 10 == 0 and f"resumed after frame {k}" in stdout
    else:
        assert "fake cannot be checkpointed" in stderr and "replayed from the first frame" in stdout
        # replay keeps the masks already written
        assert all((out / n).stat().st_mtime_ns == t for n, t in before.items())
    assert stdout.count("\n") == 1 and f"exported {N} frames" in stdout
    assert not (out / CHECKPOINT).exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary leftovers
    _assert_same_export(reference, out)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.slow
def test_signal_saves_checkpoint_exits_128_plus_signal_and_resumes(tmp_path, sample_seq, reference, signum):
    out = tmp_path / "out"
    proc = _run_fake(_args(sample_seq, out), {"FAKE_SLEEP": "0.03"})
    _wait_for(out / "bin000012.png", proc)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, stderr
    assert "checkpoint saved; run the same command again to resume" in stderr
    assert stdout.startswith("interrupted after")
    assert (out / CHECKPOINT).exists() and not (out / "masks.mkv").exists()
    state = load_npz(out / CHECKPOINT)
    k = int(state["_index"])
    assert k >= 12 and not (out / f"bin{k + 1:06d}.png").exists()
    proc = _run_fake(_args(sample_seq, out), {})
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert f"after frame {k} (checkpoint)" in stderr
    _assert_same_export(reference, out)


def test_rerun_of_complete_export_does_nothing(reference, sample_seq):
    before = files_of(reference)
    res = export_masks(
        sample_seq,
        reference,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=lambda m: None,
    )
    assert res.already_complete and res.processed == 0 and "nothing to do" in res.summary()
    assert files_of(reference) == before


@pytest.mark.parametrize("removed", ["bin", "scores"])
def test_complete_export_with_a_file_removed_is_not_nothing_to_do(reference, sample_seq, tmp_path, removed):
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(reference, out)
    next(iter(sorted(out.glob(f"{removed}*")))).unlink()
    with pytest.raises(ExportError, match=f"only {N - 1} .*--overwrite"):
        export_masks(
            sample_seq,
            out,
            _cfg(scores=True, video=True),
            detector=FakeDetector(),
            progress=False,
            log=lambda m: None,
        )


def test_different_settings_are_refused_naming_the_key(reference, sample_seq):
    with pytest.raises(ExportError) as e:
        export_masks(
            sample_seq, reference, _cfg(scores=True, video=False), detector=FakeDetector(), progress=False
        )
    msg = str(e.value)
    assert "export.video=true, not false" in msg and "--overwrite" in msg and "\n" not in msg
    with pytest.raises(ExportError, match="--algorithm fake, not mog2"):
        export_masks(sample_seq, reference, _cfg(scores=True, video=True), algorithm="mog2", progress=False)


def test_foreign_files_are_refused_and_overwrite_keeps_them(tmp_path, sample_seq):
    out = tmp_path / "out"
    out.mkdir()
    (out / "holiday.jpg").write_bytes(b"x")
    cfg = {"capture": {"max_frames": 5}}
    with pytest.raises(ExportError) as e:
        export_masks(sample_seq, out, cfg, detector=FakeDetector(), progress=False)
    assert "'holiday.jpg'" in str(e.value) and "--overwrite" in str(e.value)
    res = export_masks(sample_seq, out, cfg, detector=FakeDetector(), overwrite=True, progress=False)
    assert res.complete and (out / "holiday.jpg").exists() and (out / "bin000005.png").exists()
    # beside an export of ours, other files no longer block the same export (resume, or "complete")
    res = export_masks(sample_seq, out, cfg, detector=FakeDetector(), progress=False)
    assert res.already_complete and (out / "holiday.jpg").exists()
    # --overwrite replaces an earlier export completely (no stale masks of a longer run)
    (out / "bin000099.png").write_bytes(b"stale")
    res = export_masks(
        sample_seq,
        out,
        {"capture": {"max_frames": 3}},
        detector=FakeDetector(),
        overwrite=True,
        progress=False,
    )
    assert res.frames == 3 and not (out / "bin000099.png").exists() and not (out / "bin000004.png").exists()


@pytest.mark.slow
def test_an_export_started_with_overwrite_resumes_without_it(tmp_path, sample_seq, reference):
    """The user's file forced --overwrite; the interrupted export then resumes when the same command
    is run without it, and the note says so (re-running with --overwrite starts over, by design)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    notes = []
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=interrupt_after(FakeDetector(), 25),
        overwrite=True,
        progress=False,
        log=notes.append,
    )
    assert res.interrupted and "run the same command again without --overwrite to resume" in notes[-1]
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=lambda m: None,
    )
    assert res.complete and res.resumed_from == 25 and (out / "notes.txt").read_text() == "mine"
    (out / "notes.txt").unlink()
    _assert_same_export(reference, out)


def test_masks_without_manifest_are_not_resumed(tmp_path, sample_seq):
    out = tmp_path / "out"
    out.mkdir()
    (out / "bin000001.png").write_bytes(b"x")
    with pytest.raises(ExportError, match="no export.json"):
        export_masks(sample_seq, out, {"capture": {"max_frames": 2}}, detector=FakeDetector(), progress=False)


def test_mog2_export_matches_the_detector_and_is_numbered_like_the_input(tmp_path, sample_seq):
    import shutil

    seq = tmp_path / "seq"
    (seq / "input").mkdir(parents=True)
    for n in range(1, 9):
        shutil.copy(sample_seq / "input" / f"in{n:06d}.jpg", seq / "input" / f"in{n + 100:06d}.jpg")
    out = tmp_path / "out"
    notes = []
    res = export_masks(seq, out, {}, algorithm="mog2", scores=True, progress=False, log=notes.append)
    assert res.complete and res.first_index == 101 and res.last_index == 108
    assert any("mog2 has no per-pixel scores" in n for n in notes)
    assert sorted(p.name for p in out.glob("bin*.png")) == [f"bin{n:06d}.png" for n in range(101, 109)]
    assert not list(out.glob("scores*"))
    det = sv.create_subtractor("mog2")
    with open_source(seq) as src:
        for i, frame in src:
            assert np.array_equal(
                cv2.imread(str(out / f"bin{i:06d}.png"), cv2.IMREAD_UNCHANGED), det.apply(frame)
            )


def test_output_folder_may_not_be_the_source_folder(tmp_path):
    folder = tmp_path / "imgs"
    folder.mkdir()
    cv2.imwrite(str(folder / "a1.png"), np.zeros((8, 8, 3), np.uint8))
    with pytest.raises(ExportError, match="is the source folder"):
        export_masks(folder, folder, {}, detector=FakeDetector(), overwrite=True, progress=False)


def test_a_second_export_into_the_same_folder_is_refused(tmp_path, sample_seq):
    fcntl = pytest.importorskip("fcntl")
    out = tmp_path / "out"
    out.mkdir()
    with open(out / ".export.lock", "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ExportError, match="another silkvision export is writing"):
            export_masks(
                sample_seq, out, {"capture": {"max_frames": 2}}, detector=FakeDetector(), progress=False
            )


def test_is_export_output():
    assert all(
        is_export_output(n)
        for n in (
            "bin000001.png",
            "scores000002.npz",
            "config.yaml",
            "export.json",
            "checkpoint.npz",
            "masks.mkv",
            ".bin000001.png.abc.tmp",
            ".masks.partial.mkv",
        )
    )
    assert not any(is_export_output(n) for n in ("in000001.jpg", "bin.png", "notes.txt"))


def test_progress_bar_goes_to_stderr_when_asked(tmp_path, sample_seq, capsys):
    export_masks(
        sample_seq,
        tmp_path / "o",
        {"capture": {"max_frames": 3}},
        detector=FakeDetector(),
        progress=True,
        log=lambda m: None,
    )
    cap = capsys.readouterr()
    assert cap.out == "" and "frame/s" in cap.err and "/3 " in cap.err


def _fake_camera(monkeypatch, period: float):
    """Replace cv2.VideoCapture by an endless camera delivering a frame every ``period`` seconds
    (files, such as the mask video read back, are still opened by the real one)."""
    import silkvision.capture.camera as camera_mod

    real = cv2.VideoCapture

    class Cap:
        def __new__(cls, index, *a):
            return real(index, *a) if isinstance(index, str) else super().__new__(cls)

        def __init__(self, index, *a):
            self.n = 0

        def isOpened(self):  # noqa: N802
            return True

        def get(self, prop):
            return 0.0

        def read(self):
            self.n += 1
            time.sleep(period)
            return True, np.full((12, 16, 3), (self.n * 37) % 256, np.uint8)

        def release(self):
            pass

    monkeypatch.setattr(camera_mod.cv2, "VideoCapture", Cap)


def test_camera_export_with_video_and_no_resume(tmp_path, monkeypatch):
    _fake_camera(monkeypatch, 0.002)
    out = tmp_path / "cam"
    res = export_masks(
        "0", out, {"capture": {"max_frames": 5}}, detector=FakeDetector(), video=True, progress=False
    )
    assert res.complete and res.frames == 5 and res.video.name == "masks.mkv"
    assert json.loads((out / MANIFEST).read_text())["source"] == "camera:0"
    # an unfinished camera export cannot be resumed
    m = json.loads((out / MANIFEST).read_text())
    m["status"] = "running"
    (out / MANIFEST).write_text(json.dumps(m))
    with pytest.raises(ExportError, match="cannot be resumed"):
        export_masks(
            "0", out, {"capture": {"max_frames": 5}}, detector=FakeDetector(), video=True, progress=False
        )
    monkeypatch.undo()  # the real VideoCapture again, to read the mask video
    assert len(video_frames(out / "masks.mkv")) == 5


def test_camera_frames_dropped_while_the_detector_is_busy_are_reported(tmp_path, monkeypatch):
    _fake_camera(monkeypatch, 0.001)  # a 1 kHz camera for a detector that needs 20 ms a frame
    said = []
    res = export_masks(
        "0",
        tmp_path / "cam",
        {"capture": {"max_frames": 4}},
        detector=FakeDetector(sleep=0.02),
        progress=False,
        log=said.append,
    )
    assert res.complete and res.frames == 4
    assert any("not exported" in n and "camera frame" in n for n in res.notes)
    assert said and "detector was busy" in said[-1]


@pytest.mark.parametrize("algorithm", ["silk", "norma"])
@pytest.mark.slow
def test_real_detector_interrupted_and_resumed_gives_identical_files(tmp_path, sample_seq, algorithm):
    """SIGINT after frame 12 of 30 (checkpoints every 10), resume, compare with an uninterrupted run."""
    cfg = {"capture": {"max_frames": 30, "resize": [160, 120]}, "export": {"checkpoint_every": 10}}
    ref = tmp_path / "ref"
    assert export_masks(sample_seq, ref, cfg, algorithm=algorithm, scores=True, progress=False).complete

    det = sv.create_subtractor(algorithm)
    apply = det.apply

    def apply_then_interrupt(frame, *a, **k):
        mask = apply(frame, *a, **k)
        if det.frames_seen == 12:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: caught, the export stops after this frame
        return mask

    det.apply = apply_then_interrupt
    out = tmp_path / "out"
    notes = []
    res = export_masks(
        sample_seq, out, cfg, algorithm=algorithm, scores=True, detector=det, progress=False, log=notes.append
    )
    assert res.interrupted and not res.complete and res.last_index == 12
    assert int(load_npz(out / CHECKPOINT)["_index"]) == 12
    assert "checkpoint saved" in notes[-1] and not (out / "bin000013.png").exists()
    res = export_masks(
        sample_seq, out, cfg, algorithm=algorithm, scores=True, progress=False, log=notes.append
    )
    assert res.complete and res.resumed_from == 12 and res.processed == 18 and res.frames == 30
    assert not any("found another frame" in n for n in notes)  # the seek landed: no replay
    fa, fb = files_of(ref), files_of(out)
    assert sorted(fa) == sorted(fb) and all(fa[n] == fb[n] for n in fa)


@pytest.mark.parametrize("when", ["during the last frame", "during the last checkpoint"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.slow
def test_a_signal_after_the_last_frame_was_read_finishes_the_export(
    tmp_path, sample_seq, monkeypatch, when, signum
):
    """Every frame is done: the export is completed (video kept, manifest complete, exit 0), not
    left "interrupted" for a re-run that only rebuilt the video."""
    import silkvision.export.loop as export_module

    cfg = {"capture": {"max_frames": 30, "resize": [160, 120]}, "export": {"checkpoint_every": 10}}
    ref = tmp_path / "ref"
    assert export_masks(sample_seq, ref, cfg, algorithm="silk", video=True, progress=False).complete
    det = sv.create_subtractor("silk")
    if when == "during the last frame":
        apply = det.apply

        def apply_then_signal(frame, *a, **k):
            mask = apply(frame, *a, **k)
            if det.frames_seen == 30:
                os.kill(os.getpid(), signum)
            return mask

        det.apply = apply_then_signal
    else:
        save = export_module.save_checkpoint

        def save_then_signal(out, d, index, frames, frame=None):
            saved = save(out, d, index, frames, frame)
            if frames == 30:
                os.kill(os.getpid(), signum)
            return saved

        monkeypatch.setattr(export_module, "save_checkpoint", save_then_signal)
    out = tmp_path / "out"
    notes = []
    res = export_masks(
        sample_seq, out, cfg, algorithm="silk", video=True, detector=det, progress=False, log=notes.append
    )
    assert res.complete and not res.interrupted and res.frames == 30 and res.video is not None
    assert notes[-1].endswith("came after the last frame was exported: the export was finished")
    assert json.loads((out / MANIFEST).read_text())["status"] == "complete"
    assert not (out / CHECKPOINT).exists()
    fa, fb = files_of(ref), files_of(out)
    fa.pop("masks.mkv"), fb.pop("masks.mkv")  # its header carries a random segment UID
    assert sorted(fa) == sorted(fb) and all(fa[n] == fb[n] for n in fa)


# -- an unusable checkpoint: replay from the first frame, keeping the masks --------------------
def _interrupted_fake_export(out: Path, sample_seq, after: int, det=None) -> dict[str, int]:
    """Export with the fake detector, stopped as by Ctrl-C after frame ``after`` (a checkpoint is
    saved then); returns the mtimes of the masks written."""
    det = interrupt_after(det or FakeDetector(), after)
    res = export_masks(
        sample_seq, out, _cfg(scores=True, video=True), detector=det, progress=False, log=lambda m: None
    )
    assert res.interrupted and res.last_index == after
    assert int(load_npz(out / CHECKPOINT)["_index"]) == after
    return {p.name: p.stat().st_mtime_ns for p in out.glob("bin*.png")}


def _checkpoint_with(out: Path, **changes) -> bytes:
    arrays = load_npz(out / CHECKPOINT)
    for k, v in changes.items():
        if v is None:
            arrays.pop(k)
        else:
            arrays[k] = v
    return npz_bytes(arrays, compress=False)


_CORRUPTIONS = {
    "truncated": lambda out: (out / CHECKPOINT).read_bytes()[: (out / CHECKPOINT).stat().st_size // 2],
    "garbage": lambda out: b"this is not a zip file\n" * 40,
    "empty": lambda out: b"",
    "no_index": lambda out: _checkpoint_with(out, _index=None),
    "index_not_int": lambda out: _checkpoint_with(out, _index=np.array([25.0, 1.0])),
    "wrong_frame": lambda out: _checkpoint_with(out, _index=np.int64(N - 1), _frames=np.int64(N - 1)),
    "frames_mismatch": lambda out: _checkpoint_with(out, _frames=np.int64(20)),  # 25 frames were done
    "no_state": lambda out: _checkpoint_with(out, **{"state.bg": None, "state.frames_seen": None}),
    "bad_state": lambda out: _checkpoint_with(out, **{"state.bg": None}),  # set_state: KeyError
}


@pytest.mark.parametrize("corruption", list(_CORRUPTIONS))
@pytest.mark.slow
def test_corrupt_checkpoint_replays_from_first_frame_keeping_masks(
    tmp_path, sample_seq, reference, corruption
):
    out = tmp_path / "out"
    before = _interrupted_fake_export(out, sample_seq, after=25)
    assert len(before) == 25
    (out / CHECKPOINT).write_bytes(_CORRUPTIONS[corruption](out))
    notes = []
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=notes.append,
    )
    assert res.complete and res.resumed_from == 0 and res.processed == N and res.frames == N
    assert "replayed from the first frame" in res.summary()
    note = notes[0]
    assert "\n" not in note
    assert note.startswith(f"{out / CHECKPOINT}: cannot be used (")
    assert note.endswith("); replaying from the first frame, keeping the 25 masks already written")
    # the masks written before are kept as they were, and the folder is that of a clean run
    assert all((out / n).stat().st_mtime_ns == t for n, t in before.items())
    assert not (out / CHECKPOINT).exists()
    _assert_same_export(reference, out)


@pytest.mark.slow
def test_a_seek_that_lands_on_another_frame_is_caught_on_resume(tmp_path, sample_seq, reference, monkeypatch):
    """Some containers (MPEG-1/2 program streams) seek to the wrong frame inside their first group
    of pictures; the resume then labelled every later mask wrongly. The checkpoint's frame digest
    catches it, and the source is read forward from its first frame instead."""
    from silkvision.capture.folder import FolderSource

    out = tmp_path / "out"
    _interrupted_fake_export(out, sample_seq, after=25)
    seek = FolderSource.seek
    monkeypatch.setattr(
        FolderSource, "seek", lambda self, i: seek(self, i if i == self.first_index else i + 2)
    )
    notes = []
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=notes.append,
    )
    assert res.complete and res.resumed_from == 25 and res.processed == N - 25
    assert any(
        "seeking to frame 25 found another frame; reading forward from the first frame" in n for n in notes
    )
    _assert_same_export(reference, out)


@pytest.mark.slow
def test_a_seek_that_gives_another_frames_pixels_is_caught_by_the_digest(
    tmp_path, sample_seq, reference, monkeypatch
):
    """The MPEG-1/2 case itself: the seek reports the right frame number with another frame's
    pixels. Only the checkpoint's digest of the frame's content can tell."""
    import silkvision.capture.folder as folder_mod

    out = tmp_path / "out"
    _interrupted_fake_export(out, sample_seq, after=25)
    read = folder_mod.read_image
    swapped = []

    def read_after_seek(path, *a, **k):  # the resume's first read: frame 25 with frame 27's pixels
        if path.name == "in000025.jpg" and not swapped:
            swapped.append(path)
            path = path.with_name("in000027.jpg")
        return read(path, *a, **k)

    monkeypatch.setattr(folder_mod, "read_image", read_after_seek)
    notes = []
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=notes.append,
    )
    assert swapped and res.complete and res.resumed_from == 25
    assert any(
        "seeking to frame 25 found another frame; reading forward from the first frame" in n for n in notes
    )
    _assert_same_export(reference, out)


@pytest.mark.slow
def test_a_checkpoint_frame_that_never_matches_is_an_error(tmp_path, sample_seq):
    out = tmp_path / "out"
    _interrupted_fake_export(out, sample_seq, after=25)
    (out / CHECKPOINT).write_bytes(_checkpoint_with(out, _frame_digest=np.zeros(16, np.uint8)))
    with pytest.raises(ExportError, match="frame 25 of .* is not the frame this checkpoint was saved after"):
        export_masks(
            sample_seq,
            out,
            _cfg(scores=True, video=True),
            detector=FakeDetector(),
            progress=False,
            log=lambda m: None,
        )


def test_frame_numbers_beyond_int64_checkpoint(tmp_path):
    """Time-stamped file names (cam20240101120000000000.png) number frames beyond int64."""
    from silkvision.io.checkpoint import load_checkpoint, save_checkpoint

    det = FakeDetector()
    det.apply(np.zeros((4, 4, 3), np.uint8))
    big = 20240101120000040000
    assert save_checkpoint(tmp_path, det, big, 3, np.zeros((4, 4, 3), np.uint8))
    state, index, frames, digest = load_checkpoint(tmp_path)
    assert index == big and frames == 3 and len(digest) == 16


@pytest.mark.slow
def test_corrupt_checkpoint_interrupted_again_then_resumed(tmp_path, sample_seq, reference):
    """The replay itself is interrupted: it saves a good checkpoint, and the next run resumes."""
    out = tmp_path / "out"
    _interrupted_fake_export(out, sample_seq, after=25)
    (out / CHECKPOINT).write_bytes(b"PK\x03\x04 garbled")
    _interrupted_fake_export(out, sample_seq, after=15)  # replay, stopped before frame 25
    notes = []
    res = export_masks(
        sample_seq,
        out,
        _cfg(scores=True, video=True),
        detector=FakeDetector(),
        progress=False,
        log=notes.append,
    )
    assert res.complete and res.resumed_from == 15 and res.processed == N - 15
    assert notes[0].endswith("after frame 15 (checkpoint)")
    _assert_same_export(reference, out)


def test_checkpoint_of_a_detector_that_cannot_be_reset_is_still_refused(tmp_path, sample_seq):
    """A failed set_state may leave a detector half restored; without reset() there is no clean
    replay, so the old one-line error (use --overwrite) stays."""
    out = tmp_path / "out"
    _interrupted_fake_export(out, sample_seq, after=25)
    (out / CHECKPOINT).write_bytes(_checkpoint_with(out, **{"state.bg": None}))
    det = FakeDetector()
    det.reset = None
    with pytest.raises(ExportError) as e:
        export_masks(
            sample_seq, out, _cfg(scores=True, video=True), detector=det, progress=False, log=lambda m: None
        )
    assert str(e.value).startswith(f"{out / CHECKPOINT}: cannot restore the fake detector (")
    assert str(e.value).endswith("use --overwrite to start over") and "\n" not in str(e.value)
    assert len(list(out.glob("bin*.png"))) == 25


@pytest.mark.slow
def test_real_detector_with_a_garbled_checkpoint_replays_identically(tmp_path, sample_seq):
    """SILK's set_state rejects the garbled arrays; the detector is reset and replays."""
    cfg = {"capture": {"max_frames": 30, "resize": [160, 120]}, "export": {"checkpoint_every": 10}}
    ref = tmp_path / "ref"
    assert export_masks(sample_seq, ref, cfg, algorithm="silk", scores=True, progress=False).complete
    det = sv.create_subtractor("silk")
    apply = det.apply

    def apply_then_interrupt(frame, *a, **k):
        mask = apply(frame, *a, **k)
        if det.frames_seen == 12:
            os.kill(os.getpid(), signal.SIGINT)
        return mask

    det.apply = apply_then_interrupt
    out = tmp_path / "out"
    res = export_masks(
        sample_seq, out, cfg, algorithm="silk", scores=True, detector=det, progress=False, log=lambda m: None
    )
    assert res.interrupted and res.last_index == 12
    state = load_npz(out / CHECKPOINT)
    state["state.alphas"] = state["state.alphas"][:-1]  # a wrong shape
    (out / CHECKPOINT).write_bytes(npz_bytes(state, compress=False))
    notes = []
    res = export_masks(sample_seq, out, cfg, algorithm="silk", scores=True, progress=False, log=notes.append)
    assert res.complete and res.resumed_from == 0 and res.processed == 30
    assert notes[0].startswith(f"{out / CHECKPOINT}: cannot be used (cannot restore the silk detector: ")
    assert notes[0].endswith("keeping the 12 masks already written")
    fa, fb = files_of(ref), files_of(out)
    assert sorted(fa) == sorted(fb) and all(fa[n] == fb[n] for n in fa)


@pytest.mark.parametrize("size", [(63, 47), (40, 1)])
def test_mask_video_of_an_odd_size_is_padded_not_cropped(tmp_path, sample_seq, size):
    """OpenCV's FFmpeg writer drops an odd last column/row (and cannot write a height of 1): the
    video is padded with background to an even size, and its top-left is the masks, exactly."""
    w, h = size
    cfg = {"capture": {"max_frames": 5, "resize": [w, h]}, "export": {"video": True}}
    notes = []
    res = export_masks(sample_seq, tmp_path, cfg, algorithm="mog2", progress=False, log=notes.append)
    assert res.complete
    frames = video_frames(tmp_path / "masks.mkv")
    assert len(frames) == 5 and frames[0].shape == (h + h % 2, w + w % 2)
    for k, f in enumerate(frames, 1):
        mask = cv2.imread(str(tmp_path / f"bin{k:06d}.png"), cv2.IMREAD_GRAYSCALE)
        assert np.array_equal(f[:h, :w], mask) and not f[h:].any() and not f[:, w:].any()
    assert any(f"masks.mkv is {w + w % 2}x{h + h % 2}: the {w}x{h} masks are padded" in n for n in notes)


def test_a_video_that_does_not_read_back_whole_is_not_published(tmp_path, sample_seq, monkeypatch):
    """OpenCV's writer drops the frames a full disk refuses without saying so: the finished video is
    read back, and a short one is an error (no truncated masks.mkv in place); the same command run
    again, with space, rebuilds the video from the masks on disk."""
    from silkvision.io.writers import MaskVideoWriter

    write = MaskVideoWriter.write

    def full_disk_after_3(self, mask):
        if self.frames >= 3:
            self.frames += 1  # counted as written, as the caller believes
            return
        write(self, mask)

    cfg = {"capture": {"max_frames": 8}, "export": {"video": True}}
    monkeypatch.setattr(MaskVideoWriter, "write", full_disk_after_3)
    with pytest.raises(ExportError, match=r"masks\.mkv: only 3 of the 8 frames written read back"):
        export_masks(sample_seq, tmp_path, cfg, algorithm="silk", progress=False)
    assert not list(tmp_path.glob("*masks*.mkv"))  # neither the video nor its partial file
    assert json.loads((tmp_path / MANIFEST).read_text())["status"] != "complete"
    monkeypatch.setattr(MaskVideoWriter, "write", write)
    res = export_masks(sample_seq, tmp_path, cfg, algorithm="silk", progress=False)
    assert res.complete and res.video == tmp_path / "masks.mkv"
    frames = video_frames(res.video)
    assert len(frames) == 8
    for k, f in enumerate(frames, 1):
        assert np.array_equal(f, cv2.imread(str(tmp_path / f"bin{k:06d}.png"), cv2.IMREAD_GRAYSCALE))


@pytest.mark.slow
def test_the_export_loop_reuses_one_mask_buffer(tmp_path, sample_seq):
    """No allocation per frame: a detector that takes ``fgmask`` gets the same buffer every frame
    (the masks written are still each frame's own); one that does not is called without it."""
    det = sv.create_subtractor("silk")
    apply, buffers = det.apply, set()

    def spy(frame, *a, **k):
        buffers.add(id(k.get("fgmask")))
        return apply(frame, *a, **k)

    spy.__signature__ = inspect.signature(apply)
    det.apply = spy
    ref = export_masks(sample_seq, tmp_path / "ref", _cfg(pipeline=False), progress=False)
    res = export_masks(sample_seq, tmp_path / "out", _cfg(pipeline=False), detector=det, progress=False)
    assert res.complete and len(buffers) == 1 and id(None) not in buffers
    assert files_of(tmp_path / "ref") == files_of(tmp_path / "out") and ref.frames == res.frames
    # pipelined: a few buffers handed round the writer thread, made once
    buffers.clear()
    res = export_masks(sample_seq, tmp_path / "piped", _cfg(pipeline=True), detector=det, progress=False)
    assert res.complete and 1 < len(buffers) <= DEPTH + 2 and id(None) not in buffers
    masks = {n: b for n, b in files_of(tmp_path / "piped").items() if n.startswith("bin")}
    assert len(masks) == res.frames and all(files_of(tmp_path / "ref")[n] == b for n, b in masks.items())
    res = export_masks(sample_seq, tmp_path / "fake", _cfg(), detector=FakeDetector(), progress=False)
    assert res.complete


_POOL_TERMINATE = """
import multiprocessing as mp, pathlib, sys, time
import silkvision as sv
from silkvision.export import export_masks

def job(out):
    if sys.argv[3] == "cli":
        from silkvision.cli.main import main
        return main(["export", str(sv.samples.highway()), "--out", out, "-a", "silk", "--overwrite"])
    return export_masks(sv.samples.highway(), out, algorithm="silk", progress=False,
                        log=lambda m: None, overwrite=True).interrupted

def started(out):   # wait until the export is writing masks
    t = time.time()
    while len(list(pathlib.Path(out).glob("bin*.png"))) < 3:
        assert time.time() - t < 100, "the export did not start"
        time.sleep(0.01)

if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[2])
    out = sys.argv[1]
    pool = ctx.Pool(1)
    pool.apply_async(job, (out,))
    started(out)
    pool.terminate()            # what `with Pool()` does on an error
    print("terminated")
    p = ctx.Process(target=job, args=(out + "-p",))
    p.start(); started(out + "-p"); p.terminate(); p.join()
    print(p.exitcode)
"""


@pytest.mark.parametrize("method, entry", [("fork", "api"), ("spawn", "api"), ("fork", "cli")])
@pytest.mark.slow
def test_pool_terminate_stops_a_worker_inside_an_export(tmp_path, method, entry):
    """A Pool worker runs its task on its main thread, where the export caught SIGTERM and returned
    normally: Pool.terminate() (which `with Pool()` calls on an error) then waited for ever, and a
    terminated Process reported exit code 0. In a multiprocessing child SIGTERM is left alone, by the
    export and by the command line's main() alike."""
    if method not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip(f"no {method} start method")
    script = tmp_path / "pool_terminate.py"
    script.write_text(_POOL_TERMINATE)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "out"), method, entry],
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["terminated", str(-signal.SIGTERM)]
