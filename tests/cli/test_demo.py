import re

import pytest

from silkvision.cli.main import main

HIGHWAY = ["-s", "highway"]


def _rows(out: str) -> dict:
    """The metrics table's rows: (clip, algorithm) -> (frames, F-measure)."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 7 and parts[1][0].isdigit():
            rows[parts[0], parts[2]] = (parts[1], float(parts[3]))
    return rows


@pytest.mark.slow
def test_demo_exports_the_sample_and_prints_its_f_measure(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "silk", *HIGHWAY]) == 0
    out = capsys.readouterr().out
    assert len(list((tmp_path / "highway" / "silk").glob("bin*.png"))) == 400
    assert (tmp_path / "highway" / "silk" / "config.yaml").is_file()
    frames, f = _rows(out)["highway", "silk"]
    assert frames == "100-400"
    assert 0.5 < f <= 1.0  # a real score, computed from the written masks


@pytest.mark.slow
def test_demo_shows_silk_beside_knn_and_mog2_with_one_mask_chain(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-s", "pets2001_illumination,office"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert list(rows) == [
        (c, a) for c in ("pets2001_illumination", "office") for a in ("silk", "knn", "mog2")
    ]
    assert rows["office", "knn"][0] == "80-400" and rows["pets2001_illumination", "mog2"][0] == "57-201"
    assert all(0.0 < f <= 1.0 for _, f in rows.values())
    assert "the same mask chain on every detector: median 5, closing 5, holes filled" in out
    mean = out.splitlines()[-1]
    assert mean.startswith("mean F-measure over the 2 clips: silk ")
    for a in ("silk", "knn", "mog2"):
        want = (rows["office", a][1] + rows["pets2001_illumination", a][1]) / 2
        assert abs(float(mean.split(f"{a} ")[1][:6]) - want) < 1e-4
    for clip in ("office", "pets2001_illumination"):
        assert sorted(p.name for p in (tmp_path / clip).iterdir()) == ["knn", "mog2", "silk"]


def test_demo_rejects_an_unknown_algorithm(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "silk,bogus"]) == 2
    assert "--algorithms: 'bogus' is unknown" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_without_algorithms_runs_the_configured_detector_then_the_baselines(tmp_path, capsys):
    # detector.algorithm is the detector export and demo run when none is named; demo adds KNN and
    # MOG2 beside it (once each)
    assert (
        main(
            [
                "demo",
                "--out",
                str(tmp_path),
                "--set",
                "detector.algorithm=mog2",
                "-s",
                "pets2001_illumination",
            ]
        )
        == 0
    )
    assert [a for _, a in _rows(capsys.readouterr().out)] == ["mog2", "knn"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pets2001_illumination"]
    assert sorted(p.name for p in (tmp_path / "pets2001_illumination").iterdir()) == ["knn", "mog2"]


@pytest.mark.parametrize(
    "value,match",
    [
        (
            "lobby",
            "^silkvision: error: --samples: 'lobby' is unknown; expected one of highway, office, "
            "pets2001_illumination$",
        ),
        (" , ", "^silkvision: error: --samples ' , ': no sample named; expected some of highway, office"),
    ],
)
def test_demo_rejects_an_unknown_sample(tmp_path, capsys, value, match):
    assert main(["demo", "--out", str(tmp_path / "d"), "-a", "mog2", "-s", value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.match(match, err.strip()), err
    assert not (tmp_path / "d").exists()


@pytest.mark.slow
def test_demo_replaces_its_own_earlier_export_made_with_other_settings(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", *HIGHWAY]) == 0
    capsys.readouterr()
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", "--set", "detector.median=3", *HIGHWAY]) == 0
    out, err = capsys.readouterr()
    assert "detector.median=5, not 3" in err and "starting that demo export over" in err
    assert "mog2" in out.splitlines()[-1]


def test_demo_still_refuses_a_folder_with_foreign_files(tmp_path, capsys):
    (tmp_path / "highway" / "mog2").mkdir(parents=True)
    (tmp_path / "highway" / "mog2" / "notes.txt").write_text("mine")
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", *HIGHWAY]) != 0
    assert "notes.txt" in capsys.readouterr().err
    assert (tmp_path / "highway" / "mog2" / "notes.txt").read_text() == "mine"


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


@pytest.mark.slow
def test_demo_overwrite_redoes_a_complete_export(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", *HIGHWAY]) == 0
    capsys.readouterr()
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2", "--overwrite", *HIGHWAY]) == 0
    summary = capsys.readouterr().out.splitlines()[0]
    assert summary.startswith("highway: exported 400 frames (400 processed)"), summary
    assert "overwrite: false" in (tmp_path / "highway" / "mog2" / "config.yaml").read_text()


@pytest.mark.parametrize("signum", [2, 15], ids=["SIGINT", "SIGTERM"])
def test_demo_interrupted_export_exits_128_plus_signal_like_export(tmp_path, capsys, monkeypatch, signum):
    import silkvision.export as engine

    def stopped(source, out_dir, *a, **k):
        return engine.ExportResult(out_dir=out_dir, interrupted=True, signal=signum, algorithm="mog2")

    monkeypatch.setattr(engine, "export_masks", stopped)
    assert main(["demo", "--out", str(tmp_path), "-a", "mog2"]) == 128 + signum
    assert capsys.readouterr().out.startswith("highway: interrupted after 0 frames")
