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
    cfg.write_text(
        "detector:\n  algorithm: knn\nexport:\n  scores: true\n  video: true\ncapture:\n  max_frames: 4\n"
    )
    out = tmp_path / "out"
    rc = main(
        [
            "export",
            str(sample_seq),
            "--out",
            str(out),
            "--config",
            str(cfg),
            "--algorithm",
            "mog2",
            "--no-video",
            "--set",
            "capture.resize=[160, 120]",
        ]
    )
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
    assert (
        main(
            [
                "export",
                str(sample_seq),
                "--out",
                str(out),
                "-a",
                "mog2",
                "--video",
                "--set",
                "capture.max_frames=5",
            ]
        )
        == 0
    )
    cap = cv2.VideoCapture(str(out / "masks.mkv"))
    for i in range(1, 6):
        ok, f = cap.read()
        assert ok and np.array_equal(
            f[..., 0], cv2.imread(str(out / f"bin{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
        )
    assert not cap.read()[0]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["nope/missing.avi"], "nope/missing.avi: no such file or folder"),
        (
            ["SAMPLE", "--set", "export.checkpoint_every=-1"],
            "export.checkpoint_every: -1 in --set is out of range",
        ),
    ],
)
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
    for word in (
        "--out",
        "--algorithm",
        "--scores",
        "--video",
        "--overwrite",
        "--config",
        "--set",
        "bin%06d.png",
        "resume",
    ):
        assert word in text


@pytest.mark.slow
def test_corrupt_video_is_one_line_without_ffmpeg_noise(tmp_path):
    # a fresh process: FFmpeg writes its own log lines straight to file descriptor 2
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all" * 10)
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCV_FFMPEG_LOGLEVEL", "OPENCV_LOG_LEVEL")}
    r = subprocess.run(
        [sys.executable, "-m", "silkvision.cli", "export", str(bad), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 2
    assert r.stderr.startswith("silkvision: error: ") and "bad.mp4: cannot open as a video" in r.stderr
    assert r.stderr.count("\n") == 1, r.stderr


# -- disk errors, bad manifests, empty paths ----------------------------------------------------


def _enospc(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def _one_error_line(err: str, message: str) -> None:
    assert err.startswith("silkvision: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_full_disk_on_a_scores_file_is_one_line_and_resumable(tmp_path, sample_seq, capsys, monkeypatch):
    import silkvision.io.npz as npz

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    argv = [
        "export",
        str(sample_seq),
        "--out",
        str(out),
        "-a",
        "norma",
        "--scores",
        "--set",
        "capture.max_frames=3",
    ]
    with monkeypatch.context() as m:
        m.setattr(npz, "_write_npz", _enospc)
        rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2
    _one_error_line(err, f"{out / 'scores000001.npz'}: cannot write (No space left on device)")
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if n.endswith(".tmp")]  # the atomic write left nothing behind
    assert "bin000001.png" in names and "scores000001.npz" not in names
    # the partial export is kept and finished by the same command
    assert main(argv) == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.glob("scores*.npz")) == [f"scores{i:06d}.npz" for i in (1, 2, 3)]


@pytest.mark.parametrize("target", ["write_config", "write_manifest"])
def test_full_disk_on_config_or_manifest_is_one_line(tmp_path, sample_seq, capsys, monkeypatch, target):
    import silkvision.export.engine as engine
    import silkvision.io.manifest as manifest

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    if target == "write_config":
        monkeypatch.setattr(engine, "write_config", _enospc)
        name = "config.yaml"
    else:
        monkeypatch.setattr(manifest, "atomic_write_text", _enospc)
        name = "export.json"
    rc = main(["export", str(sample_seq), "--out", str(out), "-a", "mog2", "--set", "capture.max_frames=2"])
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"{out / name}: cannot write (No space left on device)")


def test_full_disk_during_video_export_leaves_no_partial_video(tmp_path, sample_seq, capsys, monkeypatch):
    import silkvision.io.writers as writers

    monkeypatch.chdir(tmp_path)
    real = writers.atomic_write_bytes
    calls = []

    def flaky(path, data):
        calls.append(path)
        if len(calls) == 3:
            _enospc()
        return real(path, data)

    monkeypatch.setattr(writers, "atomic_write_bytes", flaky)
    out = tmp_path / "out"
    rc = main(
        [
            "export",
            str(sample_seq),
            "--out",
            str(out),
            "-a",
            "mog2",
            "--video",
            "--set",
            "capture.max_frames=5",
        ]
    )
    assert rc == 2
    _one_error_line(capsys.readouterr().err, "bin000003.png: cannot write (No space left on device)")
    names = sorted(p.name for p in out.iterdir())
    assert not [n for n in names if "partial" in n or n.endswith(".tmp")], names
    assert "bin000002.png" in names and "masks.mkv" not in names


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("frames", "x", '"frames": "x" is not an integer >= 0'),
        ("frames", None, '"frames": null is not an integer >= 0'),
        ("settings", [1], '"settings": [1] is not an object'),
        ("first_index", "1", '"first_index": "1" is not null or an integer'),
        ("status", 3, '"status": 3 is not "running" or "complete"'),
        ("source", None, '"source": null is not a string'),
    ],
)
def test_hand_edited_manifest_with_a_bad_field_is_one_line(
    tmp_path, sample_seq, capsys, monkeypatch, field, value, message
):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    argv = ["export", str(sample_seq), "--out", str(out), "-a", "mog2", "--set", "capture.max_frames=2"]
    assert main(argv) == 0
    m = _manifest(out)
    m[field] = value
    (out / "export.json").write_text(json.dumps(m))
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_error_line(err, "export.json: not a silkvision export manifest this version can read")
    assert message in err and "--overwrite" in err
    assert main([*argv, "--overwrite"]) == 0  # the advice works


def test_manifest_without_required_field_is_one_line(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    argv = ["export", str(sample_seq), "--out", str(out), "-a", "mog2", "--set", "capture.max_frames=2"]
    assert main(argv) == 0
    m = _manifest(out)
    del m["frames"]
    (out / "export.json").write_text(json.dumps(m))
    capsys.readouterr()
    assert main(argv) == 2
    _one_error_line(capsys.readouterr().err, '(no "frames"); use --overwrite')


@pytest.mark.parametrize(
    "argv, message",
    [
        (["SAMPLE", "--out", ""], "--out '': empty path; expected an output folder"),
        (["", "--out", "o"], "SOURCE '': empty path"),
    ],
)
def test_empty_paths_are_refused(tmp_path, sample_seq, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    argv = [str(sample_seq) if a == "SAMPLE" else a for a in argv]
    assert main(["export", *argv, "-a", "mog2", "--overwrite", "--set", "capture.max_frames=2"]) == 2
    _one_error_line(capsys.readouterr().err, message)
    assert list(tmp_path.iterdir()) == []  # nothing written to the current folder


def test_export_masks_refuses_an_empty_output_path(tmp_path, sample_seq, monkeypatch):
    from silkvision.errors import ExportError
    from silkvision.export import export_masks

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ExportError, match="output folder '': empty path"):
        export_masks(sample_seq, "", algorithm="mog2")


# -- --overwrite is one run's action; every algorithm of the schema is a choice of -a ------------


def test_reusing_an_overwritten_exports_config_cannot_replace_another_export(
    tmp_path, sample_seq, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim"
    assert (
        main(["export", str(sample_seq), "--out", str(victim), "-a", "mog2", "--set", "capture.max_frames=4"])
        == 0
    )
    before = {p.name: p.read_bytes() for p in victim.iterdir()}
    ow = tmp_path / "ow"
    assert (
        main(
            [
                "export",
                str(sample_seq),
                "--out",
                str(ow),
                "-a",
                "mog2",
                "--overwrite",
                "--set",
                "capture.max_frames=2",
            ]
        )
        == 0
    )
    assert sv.load_config(ow / "config.yaml", use_cwd=False)["export"]["overwrite"] is False
    capsys.readouterr()
    assert main(["export", str(sample_seq), "--out", str(victim), "--config", str(ow / "config.yaml")]) == 2
    _one_error_line(capsys.readouterr().err, "capture.max_frames=4, not 2")
    assert {p.name: p.read_bytes() for p in victim.iterdir()} == before


@pytest.mark.parametrize("algorithm", ["gsoc", "cnt"])
def test_contrib_algorithm_is_a_choice_of_a_and_one_line_without_contrib(
    tmp_path, sample_seq, capsys, monkeypatch, algorithm
):
    import silkvision.detector.opencv as opencv

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(opencv, "opencv_available", lambda name: name in ("mog2", "knn"))
    rc = main(["export", str(sample_seq), "--out", str(tmp_path / "o"), "-a", algorithm])
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"--algorithm: {algorithm!r} needs opencv-contrib")
    assert not (tmp_path / "o").exists()


def test_contrib_algorithm_from_a_config_file_names_the_key_and_file(
    tmp_path, sample_seq, capsys, monkeypatch
):
    import silkvision.detector.opencv as opencv

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(opencv, "opencv_available", lambda name: name in ("mog2", "knn"))
    cfg = tmp_path / "g.yaml"
    cfg.write_text("detector:\n  algorithm: gsoc\n")
    assert main(["export", str(sample_seq), "--out", str(tmp_path / "o"), "--config", str(cfg)]) == 2
    _one_error_line(capsys.readouterr().err, f"detector.algorithm in {cfg}: 'gsoc' needs opencv-contrib")
    assert main(["demo", "-a", "silk,cnt", "--out", str(tmp_path / "d")]) == 2
    _one_error_line(capsys.readouterr().err, "--algorithms: 'cnt' needs opencv-contrib")
    assert not (tmp_path / "o").exists() and not (tmp_path / "d").exists()


def test_help_lists_every_algorithm_of_the_schema(capsys):
    from silkvision.config import ALGORITHMS

    with pytest.raises(SystemExit):
        main(["export", "--help"])
    assert "{" + ",".join(ALGORITHMS) + "}" in capsys.readouterr().out
