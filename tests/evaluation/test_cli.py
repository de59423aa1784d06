"""``silkvision evaluate``: JSON on stdout only, files written, several sequences, errors."""

import json
import shutil
import sys

import cv2
import numpy as np
import pytest

from silkvision.cli.main import main

from .conftest import H, W, make_sequence, square_frame

KEYS = {
    "tp",
    "fp",
    "fn",
    "tn",
    "recall",
    "specificity",
    "fpr",
    "fnr",
    "pwc",
    "precision",
    "f_measure",
    "auc",
    "threshold",
}


@pytest.fixture
def two_seqs(tmp_path):
    a = make_sequence(tmp_path / "catA", n=20, temporal=(8, 20), name="s1")
    b = make_sequence(tmp_path / "catB", n=20, temporal=(5, 20), name="s2")
    return a, b


def test_json_only_on_stdout_and_files(tmp_path, two_seqs, capsys):
    out = tmp_path / "out"
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            str(two_seqs[1]),
            "--algorithms",
            "mog2",
            "--json",
            "--out",
            str(out),
            "--fpr-scale",
            "log",
        ]
    )
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
    rc = main(
        [
            "evaluate",
            str(seq),
            "--results",
            f"perfect={res}",
            "--out",
            str(tmp_path / "o"),
            "--no-figures",
            "--no-progress",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "perfect" in text and "1.0000" in text
    rc = main(
        [
            "evaluate",
            str(seq),
            "--algorithms",
            "knn",
            "--results",
            str(res),
            "--json",
            "--out",
            str(tmp_path / "o2"),
            "--no-figures",
        ]
    )
    rep = json.loads(capsys.readouterr().out)
    row = rep["sequences"]["s1"]["tool"]
    assert row["f_measure"] == 1.0 and row["fp"] == 0 and row["fn"] == 0
    assert "knn" in rep["sequences"]["s1"] and "light_switch" not in rep
    rc = main(
        [
            "evaluate",
            str(seq),
            "--algorithms",
            "knn",
            "--json",
            "--light-switch",
            "12:15:0.4",
            "--out",
            str(tmp_path / "o3"),
            "--no-figures",
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    ev = rep["light_switch"]["s1"]["knn"]
    assert [e["frame"] for e in ev] == [12, 16]
    assert captured.err == ""  # a switch inside the evaluated frames: no note


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


def _perfect_masks(folder, n=20):
    folder.mkdir(parents=True)
    for i in range(1, n + 1):  # perfect masks from the ground truth itself
        cv2.imwrite(str(folder / f"bin{i:06d}.png"), ((square_frame(i)[1] == 255) * 255).astype("uint8"))
    return folder


def test_a_flat_results_folder_is_refused_for_several_sequences(tmp_path, two_seqs, capsys, monkeypatch):
    """One folder of bin*.png would be scored against every sequence's ground truth: refused, and
    DIR/SEQUENCE folders work."""
    flat = _perfect_masks(tmp_path / "flat")
    _no_detectors(monkeypatch)
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            str(two_seqs[1]),
            "--results",
            f"t={flat}",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err,
        f"--results t={flat}: holds bin* masks itself, so every "
        f"one of the 2 sequences would be scored against the same masks",
    )
    monkeypatch.undo()
    for seq in ("s1", "s2"):
        _perfect_masks(tmp_path / "per_seq" / seq)
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            str(two_seqs[1]),
            "--results",
            str(tmp_path / "per_seq"),
            "--json",
            "--out",
            str(tmp_path / "o"),
            "--no-figures",
        ]
    )
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    assert [rep["sequences"][s]["per_seq"]["f_measure"] for s in ("s1", "s2")] == [1.0, 1.0]


def test_results_masks_are_checked_before_any_detector_runs(tmp_path, two_seqs, capsys, monkeypatch):
    """A mask missing for the last sequence is an error before the first sequence's detectors run."""
    import silkvision.evaluation.runner as runner

    res = tmp_path / "res"
    for seq in ("s1", "s2"):
        _perfect_masks(res / seq)
    (res / "s2" / "bin000017.png").unlink()

    def boom(*a, **k):
        raise AssertionError("a detector ran before the --results masks were checked")

    monkeypatch.setattr(runner, "evaluate_sequence", boom)
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            str(two_seqs[1]),
            "--algorithms",
            "mog2",
            "--results",
            str(res),
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err, f"{res / 's2'}: mask bin000017.png of evaluated frame 17 is missing"
    )


def test_results_exported_from_another_sequence_are_warned_about(tmp_path, two_seqs, capsys):
    res = tmp_path / "res"
    main(["export", str(two_seqs[1]), "--out", str(res), "-a", "mog2"])
    capsys.readouterr()
    rc = main(
        ["evaluate", str(two_seqs[0]), "--results", str(res), "--out", str(tmp_path / "o"), "--no-figures"]
    )
    assert rc == 0
    err = capsys.readouterr().err
    assert (
        f"warning: {res}: its export.json says these masks were exported from {two_seqs[1].resolve()}, "
        f"not from {two_seqs[0]}; scoring them anyway" in err
    )
    main(["evaluate", str(two_seqs[1]), "--results", str(res), "--out", str(tmp_path / "o2"), "--no-figures"])
    assert "warning" not in capsys.readouterr().err


def test_results_recorded_in_the_gui_from_another_sequence_are_warned_about(tmp_path, two_seqs, capsys):
    """Only export.json was read: a GUI recording of another source was scored without a word."""
    from silkvision.gui.pipeline import Pipeline

    pipe = Pipeline({}, second="mog2")
    pipe.open(two_seqs[1])
    pipe.start_recording(tmp_path / "rec")
    while pipe.step() is not None and not pipe.at_end:
        pass
    pipe.close()
    res = tmp_path / "rec" / "silk"
    rc = main(
        ["evaluate", str(two_seqs[0]), "--results", str(res), "--out", str(tmp_path / "o"), "--no-figures"]
    )
    assert rc == 0
    assert (
        f"warning: {res}: its recording.json says these masks were recorded from {two_seqs[1].resolve()}, "
        f"not from {two_seqs[0]}; scoring them anyway" in capsys.readouterr().err
    )
    main(["evaluate", str(two_seqs[1]), "--results", str(res), "--out", str(tmp_path / "o2"), "--no-figures"])
    assert "warning" not in capsys.readouterr().err


@pytest.mark.slow
def test_sequence_names_that_clash_in_files_or_rows_are_kept_apart(tmp_path, capsys):
    """ "x y" and "x_y" clean up to the same figure name, and a sequence called "mean" shared the
    overall mean's row name: each now gets a name of its own."""
    seqs = [make_sequence(tmp_path / "c1", n=12, temporal=(5, 12), name=n) for n in ("x y", "x_y")]
    seqs.append(make_sequence(tmp_path / "c2", n=12, temporal=(5, 12), name="mean"))
    out = tmp_path / "o"
    rc = main(["evaluate", *map(str, seqs), "--algorithms", "mog2", "--json", "--out", str(out)])
    assert rc == 0
    rep = json.loads(capsys.readouterr().out)
    assert list(rep["sequences"]) == ["x y", "x_y", "mean-2"]
    assert sorted(p.name for p in out.glob("pr_*.png")) == ["pr_mean-2.png", "pr_x_y-2.png", "pr_x_y.png"]
    assert [line.split(",")[0] for line in (out / "metrics.csv").read_text().splitlines()].count("mean") == 1


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
    _one_error_line(
        capsys.readouterr().err, f"{out}: cannot write in the output folder (Read-only file system)"
    )


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
    _one_error_line(
        capsys.readouterr().err, f"{out / 'metrics.json'}: cannot write (No space left on device)"
    )


def test_full_disk_on_a_figure_is_one_line_and_leaves_no_temp_file(tmp_path, two_seqs, capsys, monkeypatch):
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "savefig", _enospc)
    out = tmp_path / "o"
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--no-progress",
            "--out",
            str(out),
            "--fpr-scale",
            "log",
        ]
    )
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"{out / 'roc_s1.png'}: cannot write (No space left on device)")
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "metrics.csv", "metrics.json"]


def test_out_gets_the_effective_config_yaml(tmp_path, two_seqs, capsys):
    import silkvision as sv

    out = tmp_path / "o"
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--no-progress",
            "--no-figures",
            "--out",
            str(out),
            "--set",
            "detector.mog2.history=77",
        ]
    )
    assert rc == 0
    assert f"wrote {out / 'config.yaml'}" in capsys.readouterr().out
    cfg = sv.load_config(out / "config.yaml", use_cwd=False)
    assert cfg["detector"]["mog2"]["history"] == 77


@pytest.mark.parametrize(
    "setting, message",
    [
        (
            "capture.resize=[8, 6]",
            "capture.resize: [8, 6] in --set cannot apply to evaluate: the ground "
            "truth is scored at its original size; expected null",
        ),
        (
            "capture.max_frames=5",
            "capture.max_frames: 5 in --set cannot apply to evaluate: the evaluated "
            "frames are the sequence's temporalROI",
        ),
    ],
)
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
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--out",
            str(tmp_path / "o"),
            "--config",
            str(cfg),
        ]
    )
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"capture.max_frames: 7 in {cfg} cannot apply to evaluate")
    # the hint works: null overrides the file
    monkeypatch.undo()
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--out",
            str(tmp_path / "o"),
            "--config",
            str(cfg),
            "--set",
            "capture.max_frames=null",
            "--no-figures",
            "--no-progress",
        ]
    )
    assert rc == 0, capsys.readouterr().err


# -- light switches against the sequence, --results with --light-switch, sparse or empty ground truth


def test_light_switch_starting_outside_the_sequence_is_refused(tmp_path, two_seqs, capsys, monkeypatch):
    _no_detectors(monkeypatch)
    out = tmp_path / "o"
    for spec, message in (
        (
            "5000:6000:0.5",
            "--light-switch '5000:6000:0.5': starts at frame 5000, after the last frame 20 of ",
        ),
        ("21:22:0.5", "starts at frame 21, after the last frame 20"),
    ):
        rc = main(
            ["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--light-switch", spec, "--out", str(out)]
        )
        assert rc == 2
        err = capsys.readouterr().err
        _one_error_line(err, message)
        assert "(frames 1..20, evaluated 8..20); expected START in 1..20" in err
    assert not out.exists()  # refused before the output folder is made


def test_light_switch_is_checked_against_every_sequence(tmp_path, capsys, monkeypatch):
    _no_detectors(monkeypatch)
    long = make_sequence(tmp_path, n=20, temporal=(5, 20), name="long")
    short = make_sequence(tmp_path, n=10, temporal=(5, 8), name="short")
    rc = main(
        [
            "evaluate",
            str(long),
            str(short),
            "--algorithms",
            "mog2",
            "--light-switch",
            "9:12:0.5",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err,
        f"starts at frame 9, after the last evaluated frame 8 of {short} "
        f"(frames 1..10, evaluated 5..8), so it would change no "
        f"scored frame; expected START in 1..8",
    )


def test_light_switch_ending_after_the_last_frame_is_clipped_with_a_note(tmp_path, two_seqs, capsys):
    seq = two_seqs[0]
    rc = main(
        [
            "evaluate",
            str(seq),
            "--algorithms",
            "mog2",
            "--light-switch",
            "12:99999:0.5",
            "--json",
            "--no-progress",
            "--out",
            str(tmp_path / "o"),
            "--fpr-scale",
            "log",
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    assert rep["info"]["s1"]["light_switches"] == ["12:20:0.5"]
    assert [(e["frame"], e["event"], e["switch"]) for e in rep["light_switch"]["s1"]["mog2"]] == [
        (12, "switch", "12:20:0.5")
    ]
    assert captured.err == (
        f"silkvision: note: --light-switch '12:99999:0.5': ends after the last frame 20 "
        f"of {seq}; taken as 12:20:0.5 (the light is not restored: no restore event)\n"
    )


def test_light_switch_in_the_warm_up_runs_with_a_note(tmp_path, two_seqs, capsys):
    seq = two_seqs[0]
    rc = main(
        [
            "evaluate",
            str(seq),
            "--algorithms",
            "mog2",
            "--light-switch",
            "1:99999:0.5",
            "--json",
            "--no-progress",
            "--no-figures",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    ev = rep["light_switch"]["s1"]["mog2"]
    assert len(ev) == 1 and ev[0]["f_reference"] is None and ev[0]["recovery_frames"] is None
    lines = captured.err.splitlines()
    assert len(lines) == 2 and all(
        ln.startswith("silkvision: note: --light-switch '1:99999:0.5': ") for ln in lines
    )
    assert "before the first evaluated frame 8 of" in lines[0] and "no recovery is measured" in lines[0]
    assert "taken as 1:20:0.5" in lines[1]


def test_light_switch_with_results_is_refused(tmp_path, two_seqs, capsys, monkeypatch):
    _no_detectors(monkeypatch)
    res = tmp_path / "tool"
    res.mkdir()
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--results",
            f"t={res}",
            "--light-switch",
            "12:15:0.4",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err,
        f"--light-switch '12:15:0.4' cannot be combined with --results 't={res}': those masks "
        f"were computed from the unchanged frames",
    )
    # without --algorithms too (the same reason, not "needs detectors")
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--results",
            str(res),
            "--light-switch",
            "12:15:0.4",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
    _one_error_line(capsys.readouterr().err, "cannot be combined with --results")


def _image_folder(tmp_path, n, gt_frames):
    frames, gt = tmp_path / "frames", tmp_path / "gt"
    frames.mkdir()
    gt.mkdir()
    for i in range(1, n + 1):
        img, labels = square_frame(i)
        cv2.imwrite(str(frames / f"in{i:06d}.png"), img)
        if i in gt_frames:
            cv2.imwrite(str(gt / f"gt{i:06d}.png"), labels)
    return frames, gt


@pytest.mark.parametrize(
    "gt_frames, note",
    [
        (
            set(range(1, 11)),
            "ground truth for 10 of 20 frames and no temporalROI.txt; evaluating those 10 "
            "only (frames 11..20 have none)",
        ),
        (
            set(range(1, 21)) - {6},
            "ground truth for 19 of 20 frames and no temporalROI.txt; evaluating those "
            "19 only (frame 6 has none)",
        ),
        (set(range(1, 21)) - {6, 9, 10, 11}, "(frames 6, 9..11 have none)"),
    ],
)
def test_groundtruth_folder_with_fewer_frames_gets_a_note(tmp_path, capsys, gt_frames, note):
    frames, gt = _image_folder(tmp_path, 20, gt_frames)
    rc = main(
        [
            "evaluate",
            str(frames),
            "--groundtruth",
            str(gt),
            "--algorithms",
            "mog2",
            "--json",
            "--no-progress",
            "--no-figures",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["sequences"]["frames"]["mog2"]["frames"] == len(gt_frames)
    assert captured.err.startswith(f"silkvision: note: {frames}: ") and captured.err.count("\n") == 1
    assert note in captured.err


def test_groundtruth_folder_for_every_frame_gets_no_note(tmp_path, capsys):
    frames, gt = _image_folder(tmp_path, 12, set(range(1, 13)))
    rc = main(
        [
            "evaluate",
            str(frames),
            "--groundtruth",
            str(gt),
            "--algorithms",
            "mog2",
            "--json",
            "--no-progress",
            "--no-figures",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 0 and capsys.readouterr().err == ""


def test_ground_truth_all_outside_roi_warns_and_keeps_json_valid(tmp_path, capsys):
    seq = make_sequence(tmp_path, n=12, temporal=(3, 12), name="dark")
    for p in (seq / "groundtruth").iterdir():
        cv2.imwrite(str(p), np.full((H, W), 85, np.uint8))
    out = tmp_path / "o"
    rc = main(
        [
            "evaluate",
            str(seq),
            "--algorithms",
            "mog2",
            "--json",
            "--no-progress",
            "--out",
            str(out),
            "--fpr-scale",
            "log",
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    row = rep["sequences"]["dark"]["mog2"]
    assert (
        row["frames"] == 10
        and row["f_measure"] is None
        and row["tp"] + row["fp"] + row["fn"] + row["tn"] == 0
    )
    assert json.loads((out / "metrics.json").read_text()) == rep
    assert captured.err == (
        f"silkvision: warning: {seq}: no pixel was evaluated: every ground-truth pixel "
        f"of its 10 evaluated frames (3..12) is outside the ROI or labelled 85/170 "
        f"(ignored), so its metrics are empty ('-', null in JSON) and it is left out of "
        f"the category and overall means (see n_sequences and left_out in "
        f"metrics.json)\n"
    )


@pytest.mark.parametrize("held, what", [("export.json", "an export"), ("recording.json", "a GUI recording")])
def test_out_holding_an_export_is_refused_and_its_config_kept(
    tmp_path, two_seqs, capsys, monkeypatch, held, what
):
    _no_detectors(monkeypatch)
    out = tmp_path / "exported"
    out.mkdir()
    (out / held).write_text("{}\n")
    (out / "config.yaml").write_text("# how the masks were made\n")
    rc = main(["evaluate", str(two_seqs[0]), "--results", str(out), "--out", str(out)])
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err,
        f"--out {out}: holds {what} ({held}), whose config.yaml "
        f"evaluate would replace; expected another output folder",
    )
    assert (out / "config.yaml").read_text() == "# how the masks were made\n"
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", held]


def test_bad_ground_truth_of_a_later_sequence_is_named_before_any_detector_runs(
    tmp_path, two_seqs, capsys, monkeypatch
):
    _no_detectors(monkeypatch)
    bad = two_seqs[1] / "groundtruth" / "gt000009.png"
    gt = cv2.imread(str(bad), cv2.IMREAD_UNCHANGED)
    gt[gt == 255] = 128
    cv2.imwrite(str(bad), gt)
    rc = main(
        ["evaluate", str(two_seqs[0]), str(two_seqs[1]), "--algorithms", "mog2", "--out", str(tmp_path / "o")]
    )
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"{bad}: labels 128 are not CDnet labels")
    assert not (tmp_path / "o").exists()


def test_corrupt_ground_truth_png_is_one_line_without_opencv_warnings(tmp_path, two_seqs, capfd, monkeypatch):
    monkeypatch.delenv("OPENCV_LOG_LEVEL", raising=False)
    bad = two_seqs[0] / "groundtruth" / "gt000010.png"
    bad.write_bytes(bad.read_bytes()[:60])  # OpenCV: "[ WARN:...] PNG input buffer is incomplete"
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", str(tmp_path / "o")])
    assert rc == 2
    err = capfd.readouterr().err
    assert err == (
        f"silkvision: error: {bad}: cannot decode (corrupt file or not an image); expected a "
        f"ground-truth mask\n"
    )


def test_overlapping_light_switches_are_refused_in_one_line(tmp_path, two_seqs, capsys, monkeypatch):
    _no_detectors(monkeypatch)
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--light-switch",
            "10:14:0.4",
            "--light-switch",
            "12:16:2",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err,
        "--light-switch '10:14:0.4' and '12:16:2' overlap (frames 12..14 are in both)",
    )


def test_mean_is_over_the_sequences_with_scored_pixels(tmp_path, two_seqs, capsys):
    for p in (two_seqs[1] / "groundtruth").iterdir():
        cv2.imwrite(str(p), np.full((H, W), 170, np.uint8))
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            str(two_seqs[1]),
            "--algorithms",
            "mog2",
            "--json",
            "--no-figures",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert rc == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    mean = rep["mean"]["mog2"]
    assert mean["f_measure"] == rep["sequences"]["s1"]["mog2"]["f_measure"] is not None
    assert mean["n_sequences"] == 1 and mean["left_out"] == ["s2"]
    assert rep["sequences"]["s2"]["mog2"]["f_measure"] is None
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"silkvision: warning: {two_seqs[1]}: no pixel was evaluated")
    assert "left out of the category and overall means" in captured.err


def test_help_explains_best_f_and_the_post_processing(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "best_f is the best F-measure over all thresholds of the raw decision" in text
    assert "(detector.median, detector.close, detector.fill_holes; the median, close and fill_holes" in text


def test_capture_setting_in_the_working_directory_config_names_that_file(
    tmp_path, two_seqs, capsys, monkeypatch
):
    _no_detectors(monkeypatch)
    work = tmp_path / "work"
    work.mkdir()
    (work / "config.yaml").write_text("capture:\n  resize: [8, 6]\n")
    monkeypatch.chdir(work)
    rc = main(["evaluate", str(two_seqs[0]), "--algorithms", "mog2", "--out", str(tmp_path / "o")])
    assert rc == 2
    _one_error_line(
        capsys.readouterr().err, f"capture.resize: [8, 6] in {work / 'config.yaml'} cannot apply to evaluate"
    )
    # the later of two --config files is the one named
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("capture:\n  resize: [4, 3]\n")
    b.write_text("capture:\n  resize: [2, 2]\n")
    rc = main(
        [
            "evaluate",
            str(two_seqs[0]),
            "--algorithms",
            "mog2",
            "--out",
            str(tmp_path / "o"),
            "--config",
            str(a),
            "--config",
            str(b),
        ]
    )
    assert rc == 2
    _one_error_line(capsys.readouterr().err, f"capture.resize: [2, 2] in {b} cannot apply to evaluate")


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("frames", [1, 4])
@pytest.mark.slow
def test_fewer_evaluated_frames_than_the_per_frame_plots_smoothing(tmp_path, frames):
    """The per-frame F figure is smoothed over 5 frames; with fewer, np.convolve's "same" output
    (as long as the longer input) did not fit the frame axis and evaluate ended in a traceback."""
    seq = make_sequence(tmp_path, n=frames + 2, temporal=(3, frames + 2))
    out = tmp_path / "out"
    assert main(["evaluate", str(seq), "--algorithms", "silk,mog2", "--out", str(out)]) == 0
    assert (out / "f_per_frame_tiny.png").is_file()


@pytest.mark.skipif(
    sys.platform == "win32" or sys.getfilesystemencoding().lower() != "utf-8",
    reason="a name that is not UTF-8 needs a POSIX, UTF-8 file system encoding",
)
def test_a_sequence_name_that_is_not_utf8_gets_its_figures(tmp_path, capsys):
    """A Latin-1 folder name reaches Python with a lone surrogate, which matplotlib's text engine
    refused: evaluate lost its figures and --json output in a traceback."""
    import os

    ascii_seq = make_sequence(tmp_path, n=12, temporal=(3, 12), name="cafe")  # cv2.imwrite would crash
    seq = ascii_seq.rename(tmp_path / os.fsdecode(b"caf\xe9"))
    masks = tmp_path / "masks"  # ground truth as someone's masks, named like the folder
    masks.mkdir()
    for gt in (seq / "groundtruth").iterdir():
        shutil.copy(gt, masks / gt.name.replace("gt", "bin"))
    out = tmp_path / "out"
    assert (
        main(
            [
                "evaluate",
                str(seq),
                "--algorithms",
                "silk,mog2",
                "--results",
                f"{seq.name}={masks}",
                "--mask-rule",
                "cdnet",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["sequences"]
    assert len(list(out.glob("*.png"))) == 4
