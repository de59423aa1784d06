"""``silkvision export`` command line: flags over config, one-line summary, quiet in a pipe, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import silkvision as sv
from silkvision.cli.main import main


def _manifest(out):
    return json.loads((out / "export.json").read_text())


def test_export_mog2_summary_is_one_line_and_quiet_in_a_pipe(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./config.yaml from elsewhere
    out = tmp_path / "out"
    rc = main(["export", str(sample_seq), "--out", str(out), "-a", "mog2", "--set", "capture.max_frames=6"])
    cap = capsys.readouterr()
    assert rc == 0 and cap.err == ""
    line = cap.out.strip()
    assert cap.out.count("\n") == 1
    assert line.startswith("exported 6 frames (6 processed) in ") and " fps) with mog2 to " in line
    assert line.endswith(str(out))
    assert sorted(p.name for p in out.glob("bin*.png")) == [f"bin{i:06d}.png" for i in range(1, 7)]
    assert sv.load_config(out / "config.yaml", use_cwd=False)["detector"]["algorithm"] == "mog2"


def test_flags_override_config_keys(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "my.yaml"
    cfg.write_text("detector:\n  algorithm: knn\nexport:\n  scores: true\n  video: true\n"
                   "capture:\n  max_frames: 4\n")
    out = tmp_path / "out"
    rc = main(["export", str(sample_seq), "--out", str(out), "--config", str(cfg), "--algorithm", "mog2",
               "--no-video", "--set", "capture.resize=[160, 120]"])
    assert rc == 0, capsys.readouterr().err
    m = _manifest(out)
    assert m["algorithm"] == "mog2" and m["frames"] == 4
    assert m["settings"]["export.video"] is False and m["settings"]["capture.resize"] == [160, 120]
    assert not (out / "masks.mkv").exists()
    eff = sv.load_config(out / "config.yaml", use_cwd=False)
    assert eff["detector"]["algorithm"] == "mog2" and eff["export"]["video"] is False
    assert eff["export"]["scores"] is True  # from the file (mog2 just has none to write)
    import cv2
    assert cv2.imread(str(out / "bin000001.png"), cv2.IMREAD_UNCHANGED).shape == (120, 160)
    # the config file's algorithm applies when no flag is given; a second run needs --overwrite
    rc = main(["export", str(sample_seq), "--out", str(out), "--config", str(cfg), "--overwrite"])
    assert rc == 0 and _manifest(out)["algorithm"] == "knn" and (out / "masks.mkv").exists()


def test_video_flag_writes_lossless_mask_video(tmp_path, sample_seq, capsys, monkeypatch):
    import cv2
    import numpy as np

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    assert main(["export", str(sample_seq), "--out", str(out), "-a", "mog2", "--video",
                 "--set", "capture.max_frames=5"]) == 0
    cap = cv2.VideoCapture(str(out / "masks.mkv"))
    for i in range(1, 6):
        ok, f = cap.read()
        assert ok and np.array_equal(f[..., 0], cv2.imread(str(out / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE))
    assert not cap.read()[0]


@pytest.mark.parametrize("argv, message", [
    (["nope/missing.avi"], "nope/missing.avi: no such file or folder"),
    (["SAMPLE", "--set", "export.checkpoint_every=-1"], "export.checkpoint_every: -1 in --set is out of range"),
])
def test_errors_are_one_line_with_exit_2(tmp_path, sample_seq, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    argv = [str(sample_seq) if a == "SAMPLE" else a for a in argv]
    rc = main(["export", *argv, "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("silkvision: error: ") and message in err and err.count("\n") == 1


def test_refuses_non_empty_folder(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    rc = main(["export", str(sample_seq), "--out", str(out), "-a", "mog2", "--set", "capture.max_frames=2"])
    err = capsys.readouterr().err
    assert rc == 2 and "'keep.txt'" in err and "--overwrite" in err


def test_help_describes_outputs(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = capsys.readouterr().out
    for word in ("--out", "--algorithm", "--scores", "--video", "--overwrite", "--config", "--set",
                 "bin%06d.png", "resume"):
        assert word in text


def test_corrupt_video_is_one_line_without_ffmpeg_noise(tmp_path):
    # a fresh process: FFmpeg writes its own log lines straight to file descriptor 2
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all" * 10)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCV_FFMPEG_LOGLEVEL", "OPENCV_LOG_LEVEL")}
    r = subprocess.run([sys.executable, "-m", "silkvision.cli", "export", str(bad), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2
    assert r.stderr.startswith("silkvision: error: ") and "bad.mp4: cannot open as a video" in r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
