"""``silkvision evaluate``: JSON on stdout only, files written, several sequences, errors."""

import json
import shutil

import cv2
import pytest

from silkvision.cli.main import main

from .conftest import make_sequence, square_frame

KEYS = {"tp", "fp", "fn", "tn", "recall", "specificity", "fpr", "fnr", "pwc", "precision",
        "f_measure", "auc", "threshold"}


@pytest.fixture
def two_seqs(tmp_path):
    a = make_sequence(tmp_path / "catA", n=20, temporal=(8, 20), name="s1")
    b = make_sequence(tmp_path / "catB", n=20, temporal=(5, 20), name="s2")
    return a, b


def test_json_only_on_stdout_and_files(tmp_path, two_seqs, capsys):
    out = tmp_path / "out"
    rc = main(["evaluate", str(two_seqs[0]), str(two_seqs[1]), "--algorithms", "mog2", "--json",
               "--out", str(out), "--fpr-scale", "log"])
    assert rc == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)  # the whole of stdout is one JSON object
    assert set(rep["sequences"]) == {"s1", "s2"}
    for seq in ("s1", "s2"):
        assert KEYS <= set(rep["sequences"][seq]["mog2"])
        assert rep["sequences"][seq]["mog2"]["auc"] is None
    assert set(rep["categories"]) == {"catA", "catB"}
    m = rep["mean"]["mog2"]
    f = [rep["sequences"][s]["mog2"]["f_measure"] for s in ("s1", "s2")]
    assert m["f_measure"] == pytest.approx(sum(f) / 2)
    assert m["tp"] == sum(rep["sequences"][s]["mog2"]["tp"] for s in ("s1", "s2"))
    assert json.loads((out / "metrics.json").read_text()) == rep
    csv_lines = (out / "metrics.csv").read_text().splitlines()
    assert csv_lines[0].startswith("sequence,category,algorithm,tp,fp,fn,tn,recall")
    assert len(csv_lines) == 1 + 2 + 2 + 1  # 2 sequences, 2 category means, overall mean
    for name in ("roc_s1.png", "pr_s2.png", "f_per_frame_s1.png"):
        assert (out / name).stat().st_size > 1000
    assert not (out / "roc_s1_linear.png").exists()


def test_results_folder_table_and_light_switch(tmp_path, two_seqs, capsys):
    seq = two_seqs[0]
    res = tmp_path / "tool"
    res.mkdir()
    for i in range(1, 21):  # perfect masks from the ground truth itself
        gt = square_frame(i)[1]
        cv2.imwrite(str(res / f"bin{i:06d}.png"), ((gt == 255) * 255).astype("uint8"))
    rc = main(["evaluate", str(seq), "--results", f"perfect={res}", "--out", str(tmp_path / "o"),
               "--no-figures", "--no-progress"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "perfect" in text and "1.0000" in text
    rc = main(["evaluate", str(seq), "--algorithms", "knn", "--results", str(res), "--json",
               "--light-switch", "12:15:0.4", "--out", str(tmp_path / "o2"), "--no-figures"])
    rep = json.loads(capsys.readouterr().out)
    row = rep["sequences"]["s1"]["tool"]
    assert row["f_measure"] == 1.0 and row["fp"] == 0 and row["fn"] == 0
    ev = rep["light_switch"]["s1"]["knn"]
    assert [e["frame"] for e in ev] == [12, 16]


def test_user_errors_exit_2(tmp_path, two_seqs, capsys):
    assert main(["evaluate", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert main(["evaluate", str(two_seqs[0]), "--light-switch", "5-9", "--out", str(tmp_path / "o")]) == 2
    assert main(["evaluate", str(two_seqs[0]), "--algorithms", "bogus", "--out", str(tmp_path / "o")]) == 2
    bad = tmp_path / "bad"
    shutil.copytree(two_seqs[0], bad)
    (bad / "temporalROI.txt").write_text("5 99\n")
    assert main(["evaluate", str(bad), "--algorithms", "mog2", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("silkvision: error:")]
    assert len(lines) == 4 and "temporalROI 5 99" in lines[-1]


# -- output folder checks and write errors, config.yaml, refused capture settings -----------------

def _enospc(*args, **kwargs):
    import errno

    raise OSError(errno.ENOSPC, "No space left on device")


def _one_error_line(err: str, message: str) -> None:
    assert err.startswith("silkvision: error: ") and err.count("\n") == 1, err
    assert message in err, err


def _no_detectors(monkeypatch):
    import silkvision.evaluation.runner as runner

    def boom(*a, **k):
        raise AssertionError("detectors ran before the output folder was checked")

    monkeypatch.setattr(runner, "evaluate_sequence", boom)
    monkeypatch.setattr(runner, "score_results", boom)


def test_unwritable_out_is_refused_before_any_detector_runs(tmp_path, two_seqs, capsys, monkeypatch):
    import errno
    import types

    import silkvision.io.atomic as atomic

    def mkstemp(*a, **k):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(atomic, "tempfile", types.SimpleNamespace(mkstemp=mkstemp))
    _no_detectors(monkeypatch)
    out = tmp_path / "ro"
    out.mkdir()
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--no-progress", "--out", str(out)])
    assert rc == 2
    _one_error_line(capsys.readouterr().err,
                    f"{out}: cannot write in the output folder (Read-only file system)")


def test_out_that_is_a_file_is_refused_before_any_detector_runs(tmp_path, two_seqs, capsys, monkeypatch):
    _no_detectors(monkeypatch)
    afile = tmp_path / "afile"
    afile.write_text("mine")
    assert main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", str(afile)]) == 2
    _one_error_line(capsys.readouterr().err, f"{afile}: exists and is not a folder")
    assert afile.read_text() == "mine"


def test_empty_out_or_sequence_is_refused(tmp_path, two_seqs, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _no_detectors(monkeypatch)
    assert main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", ""]) == 2
    _one_error_line(capsys.readouterr().err, "--out '': empty path; expected an output folder")
    assert main(["evaluate", "", "--algorithms", "mog2", "--out", "o"]) == 2
    _one_error_line(capsys.readouterr().err, "SEQUENCE '': empty path")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["catA", "catB"]


def test_full_disk_on_metrics_json_is_one_line(tmp_path, two_seqs, capsys, monkeypatch):
    import silkvision.evaluation.report as report

    monkeypatch.setattr(report, "write_json", _enospc)
    out = tmp_path / "o"
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--no-progress", "--out", str(out)])
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"{out / 'metrics.json'}: cannot write (No space left on device)")


def test_full_disk_on_a_figure_is_one_line_and_leaves_no_temp_file(tmp_path, two_seqs, capsys, monkeypatch):
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "savefig", _enospc)
    out = tmp_path / "o"
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--no-progress", "--out", str(out),
               "--fpr-scale", "log"])
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"{out / 'roc_s1.png'}: cannot write (No space left on device)")
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "metrics.csv", "metrics.json"]


def test_out_gets_the_effective_config_yaml(tmp_path, two_seqs, capsys):
    import silkvision as sv

    out = tmp_path / "o"
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--no-progress", "--no-figures",
               "--out", str(out), "--set", "detector.mog2.history=77"])
    assert rc == 0
    assert f"wrote {out / 'config.yaml'}" in capsys.readouterr().out
    cfg = sv.load_config(out / "config.yaml", use_cwd=False)
    assert cfg["detector"]["mog2"]["history"] == 77


@pytest.mark.parametrize("setting, message", [
    ("capture.resize=[8, 6]", "capture.resize: [8, 6] in --set cannot apply to evaluate: the ground "
                              "truth is scored at its original size; expected null"),
    ("capture.max_frames=5", "capture.max_frames: 5 in --set cannot apply to evaluate: the evaluated "
                             "frames are the sequence's temporalROI"),
])
def test_capture_resize_and_max_frames_are_refused(tmp_path, two_seqs, capsys, monkeypatch, setting, message):
    _no_detectors(monkeypatch)
    out = tmp_path / "o"
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", str(out), "--set", setting])
    assert rc == 2
    _one_error_line(capsys.readouterr().err, message)
    assert not out.exists()


def test_capture_setting_from_a_config_file_is_refused_with_a_hint(tmp_path, two_seqs, capsys, monkeypatch):
    _no_detectors(monkeypatch)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("capture:\n  max_frames: 7\n")
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", str(tmp_path / "o"),
               "--config", str(cfg)])
    assert rc == 2
    _one_error_line(capsys.readouterr().err, "capture.max_frames: 7 in the configuration (--config or "
                                             "./config.yaml) cannot apply to evaluate")
    # the hint works: null overrides the file
    monkeypatch.undo()
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", str(tmp_path / "o"),
               "--config", str(cfg), "--set", "capture.max_frames=null", "--no-figures", "--no-progress"])
    assert rc == 0, capsys.readouterr().err
