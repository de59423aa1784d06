"""export.pipeline: decoding and writing on threads of their own give the files of the serial loop,
in order, with the source's errors, a write error, a bad frame and Ctrl-C handled as there."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from silkvision.errors import BadFrame, ExportError, SourceError
from silkvision.export import CHECKPOINT, MANIFEST, export_masks
from silkvision.export import loop as loop_module
from silkvision.export.pipeline import FileWriter, FrameReader

from ..io.export_files import files_of, video_frames
from ..io.fake_detector import FakeDetector, interrupt_after

N = 30


def _cfg(pipeline: bool, **export):
    return {
        "capture": {"max_frames": N},
        "export": {"checkpoint_every": 7, "pipeline": pipeline, **export},
    }


def _export(src, out, cfg, det=None, **kw):
    return export_masks(
        src, out, cfg, detector=det or FakeDetector(), progress=False, log=lambda m: None, **kw
    )


def _assert_same(a: Path, b: Path) -> None:
    """The same files, byte for byte, but the video, whose Matroska header has a random UID (its
    decoded frames are compared)."""
    fa, fb = files_of(a), files_of(b)
    assert sorted(fa) == sorted(fb)
    for name in fa:
        if name == "masks.mkv":
            va, vb = video_frames(a / name), video_frames(b / name)
            assert len(va) == len(vb) > 0 and all(np.array_equal(x, y) for x, y in zip(va, vb))
        else:
            assert fa[name] == fb[name], name


def _export_silk(src, out: Path, pipeline: bool):
    """The sample clip through SILK, with scores and the mask video."""
    cfg = _cfg(pipeline, scores=True, video=True)
    res = export_masks(src, out, cfg, algorithm="silk", progress=False, log=lambda m: None)
    assert res.complete and res.frames == N
    return res


@pytest.fixture(scope="module")
def serial(tmp_path_factory, sample_seq) -> Path:
    """The serial export of the sample clip with SILK, scores and the mask video."""
    out = tmp_path_factory.mktemp("serial") / "out"
    _export_silk(sample_seq, out, pipeline=False)
    return out


def test_pipelined_export_writes_the_files_of_the_serial_one(tmp_path, sample_seq, serial):
    out = tmp_path / "out"
    _export_silk(sample_seq, out, pipeline=True)
    assert len(list(out.glob("scores*.npz"))) == N
    _assert_same(out, serial)


@pytest.fixture
def fake_serial(tmp_path, sample_seq) -> Path:
    out = tmp_path / "fake-serial"
    assert _export(sample_seq, out, _cfg(False, scores=True, video=True)).complete
    return out


def _slow_writes(monkeypatch, seconds: float) -> None:
    """Mask writes that lag behind the detector, so the writer queue is full when it matters."""
    write = loop_module.write_mask_png

    def slow(path, mask):
        time.sleep(seconds)
        return write(path, mask)

    monkeypatch.setattr(loop_module, "write_mask_png", slow)


def test_ctrl_c_leaves_every_mask_up_to_the_checkpoint_and_resumes(
    tmp_path, sample_seq, fake_serial, monkeypatch
):
    _slow_writes(monkeypatch, 0.02)
    out = tmp_path / "out"
    cfg = _cfg(True, scores=True, video=True)
    res = _export(sample_seq, out, cfg, det=interrupt_after(FakeDetector(), 12))
    assert res.interrupted and res.last_index == 12
    assert (out / CHECKPOINT).is_file()
    assert sorted(p.name for p in out.glob("bin*.png")) == [f"bin{i:06d}.png" for i in range(1, 13)]
    for i in range(1, 13):  # written in full, as the serial loop writes them
        assert (out / f"bin{i:06d}.png").read_bytes() == (fake_serial / f"bin{i:06d}.png").read_bytes()
    res = _export(sample_seq, out, cfg)
    assert res.complete and res.resumed_from == 12
    _assert_same(out, fake_serial)


def test_a_write_error_is_the_serial_one_line_error_and_the_export_resumes(
    tmp_path, sample_seq, fake_serial, monkeypatch
):
    write = loop_module.write_mask_png

    def disk_full_at_12(path, mask):  # slow: the detector reaches the checkpoint of frame 14 first
        if path.name == "bin000012.png":
            raise ExportError(f"{path}: cannot write (No space left on device)")
        time.sleep(0.03)
        return write(path, mask)

    monkeypatch.setattr(loop_module, "write_mask_png", disk_full_at_12)
    out = tmp_path / "out"
    cfg = _cfg(True, scores=True, video=True)
    with pytest.raises(ExportError, match=r"bin000012\.png: cannot write \(No space left on device\)$"):
        _export(sample_seq, out, cfg)
    # the checkpoint on disk is of a frame whose masks, and those before it, are all written
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["status"] == "running"
    written = sorted(int(p.name[3:9]) for p in out.glob("bin*.png"))
    assert written == list(range(1, 12))
    assert not (out / "masks.mkv").exists()
    monkeypatch.setattr(loop_module, "write_mask_png", write)
    res = _export(sample_seq, out, cfg)
    assert res.complete and res.resumed_from == 7
    _assert_same(out, fake_serial)


def test_a_bad_frame_skipped_gives_the_serial_folder(tmp_path, sample_seq):
    seq = tmp_path / "seq"
    (seq / "input").mkdir(parents=True)
    for i in range(1, 13):
        shutil.copy2(sample_seq / "input" / f"in{i:06d}.jpg", seq / "input")
    bad = seq / "input" / "in000005.jpg"
    bad.write_bytes(bad.read_bytes()[:2000])
    outs = {}
    for pipeline in (False, True):
        cfg = _cfg(pipeline, scores=True)
        cfg["capture"]["on_bad_frame"] = "skip"
        out = outs[pipeline] = tmp_path / f"out-{pipeline}"
        res = _export(seq, out, cfg)
        assert res.complete and res.frames == 11 and res.skipped == [5]
    _assert_same(outs[True], outs[False])
    cfg = _cfg(True)
    with pytest.raises(BadFrame, match=r"in000005\.jpg: truncated JPEG.*on_bad_frame=skip"):
        _export(seq, tmp_path / "stop", cfg)
    assert sorted(p.name for p in (tmp_path / "stop").glob("bin*.png")) == [
        f"bin{i:06d}.png" for i in range(1, 5)
    ]


class _Source:
    """Frames 1..8 with a bad frame 3 and a source error at 6, as a reader would meet them."""

    seekable = False

    def __init__(self):
        self.i = 0
        self.decoder_message = None

    def __next__(self):
        self.i += 1
        self.decoder_message = f"note {self.i}" if self.i == 2 else None
        if self.i == 3:
            raise BadFrame("frame 3: bad", 3)
        if self.i == 6:
            raise SourceError("frame 6: gone")
        return self.i, np.full((2, 2, 3), self.i, np.uint8)


def test_the_reader_passes_frames_and_errors_on_in_order():
    reader = FrameReader(_Source(), skip=True, on_bad=lambda e: None, depth=2)
    seen = []
    while True:
        try:
            index, frame = next(reader)
            seen.append((index, int(frame[0, 0, 0]), reader.decoder_message))
        except BadFrame as e:
            seen.append(("bad", e.index))
        except SourceError as e:
            seen.append(("error", str(e)))
            break
    reader.close()
    assert seen == [
        (1, 1, None),
        (2, 2, "note 2"),
        ("bad", 3),
        (4, 4, None),
        (5, 5, None),
        ("error", "frame 6: gone"),
    ]
    with pytest.raises(StopIteration):
        next(reader)


def test_the_writer_writes_in_order_and_raises_its_error_on_the_caller():
    written, done = [], []

    def write(i):
        if i == 5:
            raise ExportError("x: disk full")
        time.sleep(0.001)
        written.append(i)

    w = FileWriter(write, done.append, depth=2)
    with pytest.raises(ExportError, match="x: disk full"):
        for i in range(20):
            w.put(i)
    with pytest.raises(ExportError):
        w.close()
    assert written == [0, 1, 2, 3, 4] and len(done) == i  # every job put, written or dropped
