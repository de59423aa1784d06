"""The task of one source outside Dask, the report files and summary, and the up-front check of the
workers (without a cluster)."""

from __future__ import annotations

import csv
import json

import pytest

from silkvision.batch.cluster import Cluster, ClusterError, _worker_check, check_workers
from silkvision.batch.report import summary, write_report
from silkvision.batch.task import export_job, record


def test_a_missing_source_is_a_failed_record_not_an_exception(tmp_path):
    r = export_job(str(tmp_path / "none.mp4"), "none", tmp_path / "out" / "none", {})
    assert r["status"] == "failed" and r["error"].startswith(f"{tmp_path / 'none.mp4'}: no such file")
    assert r["frames"] is None and r["worker"]


def test_an_unexpected_error_is_one_line_naming_its_type(tmp_path):
    def broken(*a, **k):
        raise RuntimeError("first line\nsecond line")

    r = export_job("x.mp4", "x", tmp_path / "x", {}, export=broken)
    assert r["status"] == "failed" and r["error"] == "unexpected RuntimeError: first line"


def test_export_job_runs_the_export_and_reports_it(tmp_path, sample_seq):
    cfg = {"capture": {"max_frames": 5}, "detector": {"algorithm": "mog2"}}
    r = export_job(str(sample_seq), "highway", tmp_path / "highway", cfg)
    assert r["status"] == "done" and r["frames"] == r["processed"] == 5 and r["error"] is None
    assert len(list((tmp_path / "highway").glob("bin*.png"))) == 5
    again = export_job(str(sample_seq), "highway", tmp_path / "highway", cfg)
    assert again["status"] == "skipped" and again["frames"] == 5 and again["processed"] == 0


def test_report_files_and_summary(tmp_path):
    rows = [
        record(
            "a", "a.mp4", "o/a", "done", frames=10, processed=10, fps=5.0, seconds=2.0, worker="tcp://h:1"
        ),
        record("b", "b.mp4", "o/b", "failed", error="b.mp4: cannot open as a video"),
        record("c", "c.mp4", "o/c", "unfinished", error="interrupted"),
    ]
    js, cs = write_report(tmp_path, rows, seconds=4.0, where="local cluster of 2 worker processes")
    doc = json.loads(js.read_text())
    assert doc["counts"] == {"done": 1, "skipped": 0, "failed": 1, "unfinished": 1, "pending": 0}
    assert doc["frames"] == 10 and doc["sources"] == rows
    with open(cs, newline="") as f:
        table = list(csv.DictReader(f))
    assert [t["status"] for t in table] == ["done", "failed", "unfinished"] and table[1]["frames"] == ""
    text = summary(rows, 4.0, "local cluster of 2 worker processes")
    assert text.splitlines() == [
        "batch of 3 sources on local cluster of 2 worker processes: 1 done, 1 failed, 1 unfinished; "
        "10 frames processed in 4.0 s, 2.5 frames/s",
        "  b  failed: b.mp4: cannot open as a video",
        "  c  unfinished: interrupted",
    ]


def test_worker_check_sees_the_token_or_says_why(tmp_path):
    (tmp_path / "t").write_text("token")
    assert _worker_check(str(tmp_path), "t", "token")[0] is True
    ok, why = _worker_check(str(tmp_path), "t", "other")
    assert not ok and "holds other content" in why
    ok, why = _worker_check(str(tmp_path / "elsewhere"), "t", "token")
    assert not ok and "the folder is not shared with this worker" in why


class _FakeClient:
    def __init__(self, answer):
        self.answer = answer

    def run(self, fn, *args):
        return {"tcp://10.0.0.2:4000": self.answer, "tcp://10.0.0.1:4000": fn(*args)}


@pytest.mark.parametrize(
    "answer, message",
    [
        (
            (False, "cannot read X (No such file or directory): the folder is not shared with this worker"),
            "worker tcp://10.0.0.2:4000: cannot read X",
        ),
        ((True, "0.0.1"), "worker tcp://10.0.0.2:4000: it runs silkvision 0.0.1, this client "),
    ],
)
def test_check_workers_names_the_worker_that_cannot_do_the_work(tmp_path, answer, message):
    with pytest.raises(ClusterError) as e:
        check_workers(Cluster(_FakeClient(answer), "test"), tmp_path / "out")
    assert str(e.value).startswith(message) and "\n" not in str(e.value)
    assert list((tmp_path / "out").iterdir()) == []  # the check's file is removed


def test_check_workers_passes_when_every_worker_sees_the_folder(tmp_path):
    import silkvision

    assert check_workers(Cluster(_FakeClient((True, silkvision.__version__)), "t"), tmp_path) == 2


def test_the_progress_bar_counts_frames_and_videos(capsys):
    from silkvision.batch.runner import _Bar

    bar = _Bar(["a", "b"], enabled=True)
    bar.event((0.0, {"name": "a", "frames": 5, "total": 10}))
    assert bar.bar.n == 5 and bar.bar.total is None  # b's length not known yet
    bar.event((0.0, {"name": "b", "frames": 2, "total": 20}))
    bar.event((0.0, {"name": "from another batch", "frames": 99, "total": 99}))
    assert bar.bar.n == 7 and bar.bar.total == 30
    bar.done(record("a", "a.mp4", "o/a", "done", frames=10))
    bar.done(record("b", "b.mp4", "o/b", "failed", error="x"))
    assert bar.bar.n == 10 and bar.bar.postfix == "videos 2/2, 1 failed"
    bar.close()
    assert "videos 2/2, 1 failed" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--scheduler", "foo"],
            "--scheduler 'foo': missing port number in address 'foo'; expected an address",
        ),
        (["--scheduler", "udp://h:1"], "--scheduler 'udp://h:1': unknown address scheme 'udp'"),
        (["--scheduler", ""], "--scheduler '': empty address"),
        (["--workers", "0"], "--workers 0: expected an integer >= 1"),
        (["--workers", "2", "--scheduler", "tcp://h:1"], "--workers 2 and --scheduler tcp://h:1: choose one"),
    ],
)
def test_cluster_options_are_checked_before_any_client_is_made(tmp_path, monkeypatch, capsys, argv, message):
    from silkvision.cli.main import main

    monkeypatch.chdir(tmp_path)
    assert main(["batch", "x.mp4", "--out", "o", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"silkvision: error: {message}") and err.count("\n") == 1
