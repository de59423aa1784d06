"""Paths that are there but not usable (FIFOs, broken links, link loops, unknown ~user, bytes that
are not UTF-8): one-line errors or correct results, never a hang, a traceback or a silent default."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import pytest

from silkvision.cli.main import main
from silkvision.errors import SilkvisionError, SourceError

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs and symbolic links")


def _one_error_line(err: str, message: str) -> None:
    assert err.startswith("silkvision: error: ") and err.count("\n") == 1, err
    assert message in err, err


def _small_cdnet(root, n=12, roi=True, troi=True):
    """A 12-frame CDnet folder cut from the sample (ROI: the left half; temporalROI 5..12)."""
    import silkvision as sv

    src = sv.samples.highway()
    (root / "input").mkdir(parents=True)
    (root / "groundtruth").mkdir()
    for i in range(1, n + 1):
        shutil.copy(src / "input" / f"in{i + 200:06d}.jpg", root / "input" / f"in{i:06d}.jpg")
        shutil.copy(src / "groundtruth" / f"gt{i + 200:06d}.png", root / "groundtruth" / f"gt{i:06d}.png")
    if roi:
        r = np.zeros((240, 320), np.uint8)
        r[:, :160] = 255
        (root / "ROI.bmp").write_bytes(cv2.imencode(".bmp", r)[1].tobytes())  # (imwrite: UTF-8 paths only)
    if troi:
        (root / "temporalROI.txt").write_text("5 12\n")
    return root


@pytest.mark.parametrize("name", ["ROI.bmp", "temporalROI.txt"])
@pytest.mark.parametrize("kind", ["broken link", "fifo", "folder"])
def test_an_roi_file_that_cannot_be_read_is_an_error_not_absent(tmp_path, capsys, name, kind):
    """It used to count as absent: the whole frame or every frame was scored, exit 0, no word."""
    seq = _small_cdnet(tmp_path / "seq")
    (seq / name).unlink()
    if kind == "broken link":
        os.symlink(tmp_path / "gone" / name, seq / name)
    elif kind == "fifo":
        os.mkfifo(seq / name)
    else:
        (seq / name).mkdir()
    rc = main(["evaluate", str(seq), "--algorithms", "mog2", "--no-figures", "--out", str(tmp_path / "o")])
    assert rc == 2
    why = {
        "broken link": "is a broken symbolic link",
        "fifo": "is a named pipe (FIFO), not a regular file",
        "folder": "is a folder",
    }[kind]
    _one_error_line(capsys.readouterr().err, f"{seq / name}: {why}")


@pytest.mark.slow
def test_a_fifo_named_like_an_image_is_refused_not_waited_on(tmp_path):
    """Opening a FIFO for reading waits for a writer for ever: export and evaluate hung."""
    seq = _small_cdnet(tmp_path / "seq", roi=False, troi=False)
    (seq / "input" / "in000004.jpg").unlink()
    os.mkfifo(seq / "input" / "in000004.jpg")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "silkvision.cli",
            "export",
            str(seq),
            "--out",
            str(tmp_path / "o"),
            "-a",
            "mog2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2, p.stderr
    _one_error_line(p.stderr, "in000004.jpg: is a named pipe (FIFO), not a regular file")
    assert (tmp_path / "o" / "bin000003.png").is_file()  # the frames before it are kept


@pytest.mark.slow
def test_paths_that_lead_nowhere_are_one_line_errors(tmp_path, sample_seq, capsys):
    os.symlink("loop_b", tmp_path / "loop_a")
    os.symlink("loop_a", tmp_path / "loop_b")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    for argv, message in (
        (["export", str(sample_seq), "--out", str(tmp_path / "loop_a")], "is in a symbolic link loop"),
        (["demo", "-a", "mog2", "--out", str(tmp_path / "loop_a")], "symbolic link loop"),
        (
            ["export", str(sample_seq), "--out", str(tmp_path / "dangling")],
            f"is a broken symbolic link to {tmp_path / 'nowhere'}",
        ),
        (
            ["evaluate", str(sample_seq), "--algorithms", "mog2", "--out", str(tmp_path / "dangling")],
            "is a broken symbolic link",
        ),
        (
            ["export", str(sample_seq), "--out", "~no_such_user_sv/x"],
            "cannot expand '~no_such_user_sv': no such user",
        ),
        (
            ["evaluate", str(sample_seq), "--algorithms", "mog2", "--out", "~no_such_user_sv/x"],
            "cannot expand '~no_such_user_sv': no such user",
        ),
        (
            ["export", "~no_such_user_sv/clip.mp4", "--out", str(tmp_path / "o")],
            "cannot expand '~no_such_user_sv': no such user",
        ),
        (["export", str(tmp_path / "loop_a"), "--out", str(tmp_path / "o")], "is in a symbolic link loop"),
        (["export", str(tmp_path / "dangling"), "--out", str(tmp_path / "o")], "is a broken symbolic link"),
    ):
        assert main(argv) == 2, argv
        _one_error_line(capsys.readouterr().err, message)


def test_an_evaluation_of_a_path_that_is_not_utf8_writes_every_file(tmp_path, capsys):
    """metrics.csv could not encode the name: a traceback after metrics.json alone was written."""
    name = os.fsdecode(b"seq\xff")
    seq = _small_cdnet(tmp_path / name)
    out = tmp_path / "o"
    rc = main(["evaluate", str(seq), "--algorithms", "mog2", "--no-figures", "--json", "--out", str(out)])
    assert rc == 0
    assert json.loads(capsys.readouterr().out)["sequences"]
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "metrics.csv", "metrics.json"]
    assert b"seq\xff" in (out / "metrics.csv").read_bytes()  # the name's own bytes


@pytest.mark.slow
def test_videos_whose_paths_are_not_utf8_are_read_and_written(tmp_path, capsys):
    """OpenCV's Python binding crashed (SIGSEGV) on a video or mask-video path holding bytes that
    are not UTF-8; such paths are reached through a UTF-8 symbolic link."""
    folder = tmp_path / os.fsdecode(b"v\xff")
    folder.mkdir()
    clip = folder / os.fsdecode(b"clip\xfe.avi")
    vw = cv2.VideoWriter(
        str(tmp_path / "clip.avi"), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"MJPG"), 25, (64, 48)
    )
    for i in range(6):
        vw.write(np.full((48, 64, 3), 40 * i, np.uint8))
    vw.release()
    os.rename(tmp_path / "clip.avi", clip)
    out = tmp_path / os.fsdecode(b"out\xfd")
    code = (
        "import sys; from silkvision.cli.main import main; "
        f"sys.exit(main(['export', {str(clip)!r}, '--out', {str(out)!r}, '--video', '-a', 'mog2']))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, errors="replace", timeout=120
    )
    assert p.returncode == 0, p.stderr
    assert (out / "masks.mkv").is_file() and (out / "bin000006.png").is_file()
    assert not [
        f
        for f in os.listdir(tempfile.gettempdir())
        if f.startswith("silkvision-") and os.path.islink(os.path.join(tempfile.gettempdir(), f, "file.mkv"))
    ]


def test_helpers(tmp_path):
    from silkvision.io.paths import expand_user, link_problem, resolved

    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    with pytest.raises(SourceError, match=r"a: cannot resolve \("):
        resolved(tmp_path / "a")
    with pytest.raises(SilkvisionError, match="no such user"):
        expand_user("~no_such_user_sv/x", SilkvisionError)
    assert link_problem(tmp_path / "a") == "is in a symbolic link loop"
    assert link_problem(tmp_path) is None and link_problem(tmp_path / "absent") is None


def test_a_lock_taken_on_a_removed_lock_file_does_not_count(tmp_path, monkeypatch):
    """release() removes the lock file: an export that had opened it just before locked the removed
    file while another locked a new one, and both wrote the folder. Now the first takes the lock
    again, on the file that is there, and one of the two is refused."""
    pytest.importorskip("fcntl")
    from silkvision.export import folder as export_mod
    from silkvision.export.folder import FolderLock as _FolderLock

    a = _FolderLock(tmp_path)
    a.acquire()
    old = open(a.path, "a+")  # b's open of the file, just before a releases it
    a.release()
    assert not (tmp_path / ".export.lock").exists()
    opened = iter([old])
    real_open = export_mod._open_lock
    monkeypatch.setattr(export_mod, "_open_lock", lambda p: next(opened, None) or real_open(p))
    b = _FolderLock(tmp_path)
    b.acquire()  # locks the removed file first, sees it is not the one there, locks the new one
    monkeypatch.undo()
    assert os.path.samestat(os.fstat(b._f.fileno()), os.stat(tmp_path / ".export.lock"))
    c = _FolderLock(tmp_path)
    with pytest.raises(SilkvisionError, match="another silkvision export is writing"):
        c.acquire()
    b.release()
    c.acquire()
    c.release()


def test_yaml_words_are_echoed_as_typed(tmp_path, sample_seq, capsys):
    assert (
        main(["export", str(sample_seq), "--out", str(tmp_path / "o"), "--set", "capture.max_frames=true"])
        == 2
    )
    _one_error_line(capsys.readouterr().err, "capture.max_frames: true in --set has the wrong type")


def test_a_fifo_as_a_data_set_is_named_as_such(tmp_path, capsys):
    os.mkfifo(tmp_path / "data.csv")
    assert main(["online-bench", "--dataset", str(tmp_path / "data.csv"), "--algorithms", "pa1"]) == 2
    _one_error_line(
        capsys.readouterr().err, f"{tmp_path / 'data.csv'}: is a named pipe (FIFO), not a regular file"
    )
