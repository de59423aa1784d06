"""Large frames: the up-front memory check, and what ``capture.resize`` tells the user."""

from __future__ import annotations

import re

import numpy as np
import pytest

from silkvision.cli.main import main
from silkvision.detector import memory
from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.silk import SilkSubtractor


def _pretend_available(monkeypatch, nbytes):
    monkeypatch.setattr(memory, "available_memory", lambda: nbytes)


@pytest.mark.parametrize("cls", [SilkSubtractor, NormaSubtractor])
def test_nbytes_for_is_what_the_first_frame_allocates(cls):
    det = cls()
    det.apply(np.zeros((37, 53, 3), np.uint8))
    arrays = [det._colours, det._alphas, det._scores, det._raw, det._scr_f, det._scr_i, *det._extra.values()]
    assert det.nbytes_for(37, 53) == sum(a.nbytes for a in arrays)
    assert det.state_nbytes == (141 if cls is SilkSubtractor else 145) * 37 * 53


def test_available_memory_is_a_positive_number_of_bytes_here():
    avail = memory.available_memory()
    if avail is None:
        pytest.skip("this system reports no available memory")
    assert isinstance(avail, int) and avail > 0


def test_a_state_that_does_not_fit_is_refused_before_it_is_allocated(monkeypatch):
    det = SilkSubtractor()
    need = det.nbytes_for(24, 32)
    _pretend_available(monkeypatch, need - 1)
    with pytest.raises(MemoryError, match=r"^the silk state of a 32x24 frame needs \d+ MiB, but only "
                                          r"\d+ MiB of memory is available$"):
        det.apply(np.zeros((24, 32, 3), np.uint8))
    assert det.state_nbytes == 0          # nothing allocated, the detector is still usable
    _pretend_available(monkeypatch, need)
    assert det.apply(np.zeros((24, 32, 3), np.uint8)).shape == (24, 32)


def test_export_refuses_a_frame_too_large_before_writing_anything(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _pretend_available(monkeypatch, 10_000_000)     # the sample's 320x240 needs 11 MB
    out = tmp_path / "out"
    rc = main(["export", str(sample_seq), "--out", str(out), "--set", "capture.max_frames=3"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert re.search(r"out of memory \(the silk state of a 320x240 frame needs 1[01] MiB, but only 10 MiB", err)
    assert "capture.resize" in err
    assert not (out / "export.json").exists() and not list(out.glob("bin*"))
    # nothing was started, so other settings are not refused as "a different export"
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    assert main(["export", str(sample_seq), "--out", str(out), "--set", "capture.max_frames=3",
                 "--set", "capture.resize=[160,120]"]) == 0


def test_export_notes_the_mask_size_and_an_aspect_change(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["export", str(sample_seq), "--set", "capture.max_frames=2"]
    assert main(args + ["--out", str(tmp_path / "a"), "--set", "capture.resize=[160,120]"]) == 0
    err = capsys.readouterr().err
    assert "masks are 160x120 (capture.resize); the source's frames are 320x240\n" in err
    assert main(args + ["--out", str(tmp_path / "b"), "--set", "capture.resize=[120,160]"]) == 0
    err = capsys.readouterr().err
    assert ("masks are 120x160 (capture.resize); the source's frames are 320x240, so the resize changes "
            "the aspect ratio from 1.33 to 0.75 (width/height)") in err
    assert main(args + ["--out", str(tmp_path / "c")]) == 0
    assert "capture.resize" not in capsys.readouterr().err


def test_scoring_a_downscaled_export_names_its_resize(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = tmp_path / "small"
    assert main(["export", str(sample_seq), "--out", str(res), "--set", "capture.resize=[160,120]"]) == 0
    capsys.readouterr()
    rc = main(["evaluate", str(sample_seq), "--results", str(res), "--out", str(tmp_path / "ev"),
               "--no-figures"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "mask is 160x120 but the ground truth is 320x240; expected the same size (its export.json " \
           "says it was exported with capture.resize=[160, 120]; export again without capture.resize" in err


def test_a_resize_of_the_wrong_length_is_not_valid_rather_than_out_of_range(tmp_path, sample_seq, capsys,
                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc = main(["export", str(sample_seq), "--out", str(tmp_path / "o"), "--set", "capture.resize=[640]"])
    assert rc == 2
    assert "capture.resize: [640] in --set is not valid; expected null or [width, height]" in capsys.readouterr().err
