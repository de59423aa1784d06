"""Every advice an export error gives works when followed as written: the command run again with
the ``--overwrite`` or ``--set key=value`` it names (or as first started, where it says so)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from silkvision.cli.main import main
from silkvision.export import MANIFEST

N = 6
#: "add --overwrite", "use --overwrite", "add --set capture.on_bad_frame=skip"
_ADVICE = re.compile(r"\b(?:add|use) (--overwrite|--set [a-z_.]+=\S+?)(?=[ ;,)]|$)")


@pytest.fixture
def seq(tmp_path, sample_seq) -> Path:
    folder = tmp_path / "seq"
    (folder / "input").mkdir(parents=True)
    for i in range(1, N + 1):
        shutil.copy2(sample_seq / "input" / f"in{i:06d}.jpg", folder / "input")
    return folder


def _argv(seq: Path, out: Path, *more: str) -> list[str]:
    return ["export", str(seq), "--out", str(out), "-a", "mog2", *more]


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("silkvision: error: "), err
    return err[0][len("silkvision: error: ") :]


def _foreign_file(seq, out):
    out.mkdir()
    (out / "notes.txt").write_text("mine")


def _masks_without_manifest(seq, out):
    out.mkdir()
    shutil.copy(seq / "input" / "in000001.jpg", out / "bin000001.png")


def _complete(seq, out):
    assert main(_argv(seq, out)) == 0


def _complete_then_mask_removed(seq, out):
    _complete(seq, out)
    (out / "bin000003.png").unlink()


def _garbled_manifest(seq, out):
    _complete(seq, out)
    (out / MANIFEST).write_text("{")


def _unfinished(seq, out):
    _complete(seq, out)
    m = json.loads((out / MANIFEST).read_text())
    (out / MANIFEST).write_text(json.dumps({**m, "status": "running"}))
    (out / "bin000004.png").unlink()


def _bad_frame(seq, out):
    frame = seq / "input" / "in000004.jpg"
    frame.write_bytes(frame.read_bytes()[:1000])


def _skipped_then_stop(seq, out):
    _bad_frame(seq, out)
    assert main(_argv(seq, out, "--set", "capture.on_bad_frame=skip")) == 0


#: (what the folder holds, arguments of the failing run, a phrase of its error)
CASES = {
    "foreign file": (_foreign_file, [], "which an export did not write"),
    "masks without manifest": (_masks_without_manifest, [], "so it is not a resumable export"),
    "complete, other settings": (
        _complete,
        ["--set", "detector.mog2.history=50"],
        "holds an export made with detector.mog2.history=500",
    ),
    "complete, a mask removed": (_complete_then_mask_removed, [], "files were removed?"),
    "garbled manifest": (_garbled_manifest, [], "not a silkvision export manifest"),
    "unfinished, other settings": (
        _unfinished,
        ["--set", "detector.mog2.history=50"],
        "re-run with the arguments it was started with",
    ),
    "bad frame": (_bad_frame, [], "truncated JPEG"),
    "skipped frames, stop": (_skipped_then_stop, [], "holds an export that skipped bad frames"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_each_advice_of_an_export_error_works_as_written(tmp_path, seq, capsys, case):
    setup, more, phrase = CASES[case]
    work = tmp_path / "work"
    shutil.copytree(seq, work / "seq")
    setup(work / "seq", work / "out")
    capsys.readouterr()
    assert main(_argv(work / "seq", work / "out", *more)) == 2
    msg = _error(capsys)
    assert phrase in msg
    advice = _ADVICE.findall(msg)
    assert advice, msg
    if "re-run with the arguments it was started with" in msg:
        advice.append("")
    backup = tmp_path / "backup"
    shutil.copytree(work, backup)
    for extra in advice:  # each alternative, on the folders as the error left them
        shutil.rmtree(work)
        shutil.copytree(backup, work)
        args = [*more, *extra.split()] if extra else []
        rc = main(_argv(work / "seq", work / "out", *args))
        assert rc == 0, (extra, capsys.readouterr().err)
