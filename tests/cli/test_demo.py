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
