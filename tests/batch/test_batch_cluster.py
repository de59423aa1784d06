"""``silkvision batch`` on a local Dask cluster of two worker processes: the same files as serial
exports, a worker killed mid-export, bad sources among good ones, a rerun after an interrupted
client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from silkvision.batch import expand_sources, run_batch
from silkvision.batch.task import PROGRESS_TOPIC
from silkvision.cli.main import main

from .conftest import FRAMES, config, files

REPO = Path(__file__).resolve().parents[2]


def _report(out: Path) -> dict[str, dict]:
    return {r["name"]: r for r in json.loads((out / "batch.json").read_text())["sources"]}


def _same_as_serial(out: Path, serial: dict[str, Path], names) -> None:
    for name in names:
        assert files(out / name) == files(serial[name]), name


def test_batch_matches_serial_exports_byte_for_byte(tmp_path, clips, serial, cluster):
    out = tmp_path / "out"
    short = list(clips)
    jobs = expand_sources([str(clips[n]) for n in short])
    assert [j.name for j in jobs] == short
    result = run_batch(jobs, out, config(), cluster, interval=0.05)
    assert not result.failed
    _same_as_serial(out, serial, short)
    # the workers' progress events (frames written so far, and the total once known)
    events = [msg for _, msg in cluster.client.get_events(PROGRESS_TOPIC) if msg["name"] in short]
    assert events and all(0 <= m["frames"] <= FRAMES and m["total"] in (None, FRAMES) for m in events)
    rows = _report(out)
    assert [r["status"] for r in rows.values()] == ["done"] * len(short)
    assert all(
        r["frames"] == r["processed"] == FRAMES
        and r["worker"].startswith("tcp://")
        and r["fps"] > 0
        and r["seconds"] > 0
        and r["error"] is None
        for r in rows.values()
    )
    csv_lines = (out / "batch.csv").read_text().splitlines()
    assert csv_lines[0].startswith("name,source,status,frames,processed,fps,seconds,worker")
    assert len(csv_lines) == 1 + len(short)


def test_a_worker_killed_mid_export_ends_with_identical_output(tmp_path, clips, serial, cluster):
    from .helpers import export_killing_worker

    out = tmp_path / "out"
    out.mkdir()
    (out / ".kill-plan").write_text("clip1 bin000015.png")  # after the checkpoint of frame 10
    jobs = expand_sources([str(clips["clip0"]), str(clips["clip1"])])
    result = run_batch(jobs, out, config(), cluster, export=export_killing_worker)
    killed = int((out / ".killed").read_text())
    assert not result.failed
    rows = _report(out)
    assert rows["clip1"]["status"] == "done" and rows["clip1"]["resumed_from"] == 10
    assert rows["clip1"]["processed"] == FRAMES - 10 and rows["clip1"]["frames"] == FRAMES
    assert any("after frame 10 (checkpoint)" in n for n in rows["clip1"]["notes"])
    assert killed not in _worker_pids(cluster)  # that process is gone
    _same_as_serial(out, serial, ["clip0", "clip1"])


def _worker_pids(cluster) -> set[int]:
    return set(cluster.client.run(os.getpid).values())


def test_a_corrupt_or_missing_source_fails_alone(tmp_path, clips, serial, cluster, monkeypatch, capsys):
    bad = tmp_path / "bad.avi"
    bad.write_bytes(b"\x00not a video" * 100)
    monkeypatch.chdir(tmp_path)  # no ./config.yaml from elsewhere
    out = tmp_path / "out"
    address = cluster.client.scheduler.address  # the cluster as an existing one
    rc = main(
        [
            "batch",
            str(clips["clip0"]),
            str(bad),
            str(tmp_path / "missing.mp4"),
            str(tmp_path / "nothing*.mp4"),
            str(clips["folder3"]),
            "--out",
            str(out),
            "--set",
            "export.checkpoint_every=10",
            "--scores",
            "--no-progress",
            "--scheduler",
            address,
        ]
    )
    captured = capsys.readouterr()
    assert rc == 1
    rows = _report(out)
    assert {n: r["status"] for n, r in rows.items()} == {
        "clip0": "done",
        "bad": "failed",
        "missing": "failed",
        "": "failed",
        "folder3": "done",
    }
    assert rows["bad"]["error"].startswith(f"{bad}: cannot open as a video")
    assert "no such file or folder" in rows["missing"]["error"]
    assert rows[""]["error"] == f"{tmp_path / 'nothing*.mp4'}: no file or folder matches this pattern"
    assert all("\n" not in r["error"] for r in rows.values() if r["error"])
    _same_as_serial(out, serial, ["clip0", "folder3"])
    first = captured.out.splitlines()[0]
    assert first.startswith(f"batch of 5 sources on scheduler {address}: 2 done, 3 failed")
    assert f"wrote {out / 'batch.json'}" in captured.out


# the command line, with the batch's task replaced by one that stalls one source for good
_STALLING_BATCH = """
import sys
import silkvision.batch.runner as runner
from tests.batch.helpers import export_job_stalling
from silkvision.cli.main import main
runner.export_job = export_job_stalling
sys.exit(main(["batch", *sys.argv[1:]]))
"""


def test_rerun_after_an_interrupted_client_skips_finished_work(tmp_path, clips, serial, cluster, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    # clip1 stops after its mask 15 (checkpoint at 10) and never ends in the interrupted run,
    # while the other clips go through the other worker; Ctrl-C comes when the first is done
    (out / ".stall-plan").write_text("clip1 bin000015.png")
    names = ["clip1", *(n for n in clips if n != "clip1")]
    args = [
        *(str(clips[n]) for n in names),
        "--out",
        str(out),
        "--set",
        "export.checkpoint_every=10",
        "--scores",
        "--no-progress",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", _STALLING_BATCH, *args, "--workers", "2"],
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stderr:  # wait for the first finished source
            if ": done, " in line:
                break
        else:
            pytest.fail(f"no source finished: {proc.communicate()}")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert f"unfinished (listed in {out / 'batch.json'}); run the same command again to resume" in err
    before = _report(out)
    finished = {n for n, r in before.items() if r["status"] == "done"}
    assert finished and "clip1" not in finished
    assert all(r["status"] == "unfinished" for n, r in before.items() if n not in finished)
    assert (out / "clip1" / "bin000015.png").is_file() and not (out / "clip1" / "bin000016.png").exists()

    (out / ".stall-plan").unlink()
    monkeypatch.chdir(tmp_path)
    assert main(["batch", *args, "--scheduler", cluster.client.scheduler.address]) == 0
    after = _report(out)
    # (a clip may also have finished while the client was stopping the cluster)
    skipped = {n for n, r in after.items() if r["status"] == "skipped"}
    assert finished <= skipped and "clip1" not in skipped
    assert all(after[n]["status"] == "done" for n in set(after) - skipped)
    assert after["clip1"]["resumed_from"] == 10 and after["clip1"]["processed"] == FRAMES - 10
    _same_as_serial(out, serial, clips)
