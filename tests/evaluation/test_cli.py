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
