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
