"""Frames that FFmpeg decodes with errors (it conceals the damage and returns a frame) are exported
and listed: ``export.json`` names each with FFmpeg's first message, a note names them by number,
and an interrupted export resumes to the same files as an uninterrupted one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from silkvision.capture import open_source
from silkvision.export import MANIFEST, export_masks

from ..io.export_files import files_of
from ..io.fake_detector import FakeDetector, interrupt_after

N = 16
DAMAGED = (5, 11)  # one before the checkpoint the interrupted export resumes from, one after it
CFG = {"export": {"checkpoint_every": 4, "scores": True}}


def _export(src, out, after=None, log=None):
    det = FakeDetector() if after is None else interrupt_after(FakeDetector(), after)
    return export_masks(src, out, CFG, detector=det, progress=False, log=log or (lambda m: None))


def _clip(path: Path, damaged=()) -> Path:
    """An MJPG video of N frames; in the frames ``damaged`` some bytes of the compressed image data
    (after the start-of-scan header) are scrambled, which FFmpeg conceals."""
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (160, 120))
    for i in range(N):
        f = np.full((120, 160, 3), i * 8, np.uint8)
        f[40:80, 4 * i : 4 * i + 40] = 255
        w.write(f)
    w.release()
    data = bytearray(path.read_bytes())
    starts = [k for k in range(len(data) - 2) if data[k : k + 3] == b"\xff\xd8\xff"]  # each frame's SOI
    assert len(starts) == N
    rng = np.random.default_rng(0)
    for index in damaged:
        sos = data.index(b"\xff\xda", starts[index - 1])
        scan = sos + 2 + int.from_bytes(data[sos + 2 : sos + 4], "big")  # after the SOS header
        data[scan + 10 : scan + 50] = rng.integers(0, 256, 40, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))
    return path


@pytest.fixture
def damaged(tmp_path) -> Path:
    return _clip(tmp_path / "damaged.avi", DAMAGED)


@pytest.fixture
def reference(tmp_path, damaged) -> Path:
    out = tmp_path / "ref"
    res = _export(damaged, out)
    assert res.complete and res.frames == N and res.damaged == list(DAMAGED)
    return out


def test_damaged_frames_are_listed_by_number_in_the_manifest_and_the_note(tmp_path, damaged, reference):
    m = json.loads((reference / MANIFEST).read_text())
    assert [d["frame"] for d in m["damaged"]] == list(DAMAGED)
    for d in m["damaged"]:
        assert d["message"].startswith("mjpeg: ") and " @ 0x" not in d["message"]
        assert "\n" not in d["message"]
    assert len(list(reference.glob("bin*.png"))) == N  # still exported
    notes = []
    _export(damaged, tmp_path / "again", log=notes.append)
    assert notes[-1] == (
        "2 frames decoded with errors (FFmpeg concealed the damage; export.json lists them): 5, 11"
    )


def test_a_clean_video_lists_none(tmp_path):
    notes = []
    res = _export(_clip(tmp_path / "clean.avi"), tmp_path / "o", log=notes.append)
    assert res.complete and res.damaged == []
    assert "damaged" not in json.loads((tmp_path / "o" / MANIFEST).read_text())
    assert not any("decoded with errors" in n for n in notes)


@pytest.mark.parametrize("after", [3, 8, 12], ids=["before-both", "between", "after-both"])
def test_an_interrupted_export_resumes_to_the_same_files(tmp_path, damaged, reference, after):
    out = tmp_path / "out"
    assert _export(damaged, out, after=after).interrupted
    res = _export(damaged, out)
    assert res.complete and res.resumed_from == after and res.damaged == list(DAMAGED)
    assert files_of(out) == files_of(reference)


def test_only_the_export_catches_the_messages(damaged):
    """A source read outside an export (the GUI, evaluate) neither catches nor prints them."""
    with open_source(damaged) as src:
        for _ in src:
            assert src.decoder_message is None


def test_caught_when_ffmpeg_was_first_used_after_the_library_was_found(tmp_path, damaged):
    """OpenCV installs its own log callback (printing to stdout) when it first uses FFmpeg: a
    process that looked FFmpeg up before that still catches the messages."""
    code = (
        "import sys; from silkvision.capture.opencv import _avutil; _avutil()\n"
        "from silkvision.capture import open_source\n"
        "src = open_source(sys.argv[1]); src.report_decoder_errors = True\n"
        "print([i for i, _ in src if src.decoder_message])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(damaged)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(list(DAMAGED)) and run.stderr == ""
