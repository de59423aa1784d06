"""``silkvision evaluate --workers N`` runs each sequence's detectors on a Dask cluster and writes
the same tables, bit for bit, as the serial run."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from silkvision.cli.main import main


def _sequence(root: Path, sample: Path, first: int, last: int, evaluated: int) -> Path:
    """A CDnet sequence of the sample's frames ``first..last`` (numbers kept), the last
    ``evaluated`` of them in its temporalROI."""
    seq = root / f"seq{first}"
    for sub, prefix in (("input", "in"), ("groundtruth", "gt")):
        (seq / sub).mkdir(parents=True)
        for i in range(first, last + 1):
            src = next((sample / sub).glob(f"{prefix}{i:06d}.*"))
            shutil.copy(src, seq / sub / src.name)
    shutil.copy(sample / "ROI.bmp", seq / "ROI.bmp")
    (seq / "temporalROI.txt").write_text(f"{last - evaluated + 1} {last}\n")
    return seq


def test_evaluate_on_a_cluster_gives_the_serial_tables_bit_for_bit(
    tmp_path, sample_seq, cluster, monkeypatch, capsys
):
    import silkvision.batch.cluster as cl

    seqs = [str(_sequence(tmp_path, sample_seq, a, a + 29, 15)) for a in (101, 151)]
    monkeypatch.chdir(tmp_path)
    common = [*seqs, "--algorithms", "silk,mog2", "--no-figures", "--no-progress"]
    assert main(["evaluate", *common, "--out", "serial"]) == 0
    serial_out = capsys.readouterr().out

    opened = []

    def shared(scheduler=None, workers=None, **kw):
        opened.append(workers)
        return contextlib.nullcontext(cluster)

    monkeypatch.setattr(cl, "open_cluster", shared)
    submitted = []
    real_submit = type(cluster.client).submit
    monkeypatch.setattr(
        type(cluster.client),
        "submit",
        lambda self, fn, *a, **k: submitted.append(fn.__name__) or real_submit(self, fn, *a, **k),
    )
    assert main(["evaluate", *common, "--out", "cluster", "--workers", "2"]) == 0
    cluster_out = capsys.readouterr().out
    assert opened == [2] and submitted == ["evaluate_sequence"] * 2  # really ran on the cluster
    for name in ("metrics.json", "metrics.csv"):
        assert (tmp_path / "cluster" / name).read_bytes() == (tmp_path / "serial" / name).read_bytes()
    table = lambda text: text.split("\nwrote ")[0]  # noqa: E731 - the printed table, not the paths
    assert table(cluster_out) == table(serial_out) and "seq101" in serial_out


def test_workers_and_scheduler_together_are_refused(tmp_path, sample_seq, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc = main(
        [
            "evaluate",
            str(sample_seq),
            "--workers",
            "2",
            "--scheduler",
            "tcp://127.0.0.1:1",
            "--algorithms",
            "mog2",
            "--no-figures",
        ]
    )
    assert rc == 2
    assert "--workers 2 and --scheduler tcp://127.0.0.1:1: choose one" in capsys.readouterr().err
