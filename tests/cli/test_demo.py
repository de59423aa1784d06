import pytest

from silkvision.cli.main import main


@pytest.mark.slow
def test_demo_exports_the_sample_and_prints_its_f_measure(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "silk"]) == 0
    out = capsys.readouterr().out
    assert len(list((tmp_path / "silk").glob("bin*.png"))) == 400
    assert (tmp_path / "silk" / "config.yaml").is_file()
    line = next(l for l in out.splitlines() if l.startswith("silk "))
    f = float(line.split()[1])
    assert 0.5 < f <= 1.0          # a real score, computed from the written masks


def test_demo_rejects_an_unknown_algorithm(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "silk,bogus"]) == 2
    assert "--algorithms: 'bogus' is unknown" in capsys.readouterr().err


def test_demo_without_algorithms_runs_the_configured_detector(tmp_path, capsys):
    # detector.algorithm is the detector export and demo run when none is named
    assert main(["demo", "--out", str(tmp_path), "--set", "detector.algorithm=mog2"]) == 0
    assert "mog2" in capsys.readouterr().out.splitlines()[-1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mog2"]


def test_demo_replaces_its_own_earlier_export_made_with_other_settings(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2"]) == 0
    capsys.readouterr()
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", "--set", "detector.median=3"]) == 0
    out, err = capsys.readouterr()
    assert "detector.median=5, not 3" in err and "starting that demo export over" in err
    assert "mog2" in out.splitlines()[-1]


def test_demo_still_refuses_a_folder_with_foreign_files(tmp_path, capsys):
    (tmp_path / "mog2").mkdir()
    (tmp_path / "mog2" / "notes.txt").write_text("mine")
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2"]) != 0
    assert "notes.txt" in capsys.readouterr().err
    assert (tmp_path / "mog2" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("value", ["", ",", " , "])
def test_demo_with_no_algorithm_named_is_an_error(tmp_path, capsys, value):
    assert main(["demo", "--out", str(tmp_path / "d"), "-a", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("silkvision: error: ") and err.count("\n") == 1
    assert f"--algorithms {value!r}: no algorithm named" in err
    assert not (tmp_path / "d").exists()


def test_demo_refuses_an_empty_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--out", "", "-a", "mog2"]) == 2
    assert "--out '': empty path" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("setting", ["capture.max_frames=50", "capture.resize=[160, 120]"])
def test_demo_refuses_capture_settings_that_cannot_be_scored(tmp_path, capsys, setting):
    assert main(["demo", "--out", str(tmp_path / "d"), "-a", "mog2", "--set", setting]) == 2
    err = capsys.readouterr().err
    assert err.startswith("silkvision: error: ") and err.count("\n") == 1
    assert f"{setting.split('=')[0]}: " in err and "cannot apply to demo" in err
    assert not (tmp_path / "d").exists()


def test_demo_help_shows_the_mask_name_with_one_percent_sign(capsys):
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    text = capsys.readouterr().out
    assert "bin%06d.png" in text and "%%" not in text and "--overwrite" in text


def test_demo_overwrite_redoes_a_complete_export(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2"]) == 0
    capsys.readouterr()
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", "--overwrite"]) == 0
    summary = capsys.readouterr().out.splitlines()[0]
    assert summary.startswith("exported 400 frames (400 processed)"), summary
    assert "overwrite: false" in (tmp_path / "mog2" / "config.yaml").read_text()


@pytest.mark.parametrize("signum", [2, 15], ids=["SIGINT", "SIGTERM"])
def test_demo_interrupted_export_exits_128_plus_signal_like_export(tmp_path, capsys, monkeypatch, signum):
    import silkvision.export as engine

    def stopped(source, out_dir, *a, **k):
        return engine.ExportResult(out_dir=out_dir, interrupted=True, signal=signum, algorithm="mog2")

    monkeypatch.setattr(engine, "export_masks", stopped)
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2"]) == 128 + signum
    assert capsys.readouterr().out.startswith("interrupted after 0 frames")
