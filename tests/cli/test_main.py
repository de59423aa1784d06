import subprocess
import sys

import pytest

import silkvision as sv
from silkvision.cli.main import main
from silkvision.errors import ConfigError


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_version_and_help_run_as_a_process():
    out = subprocess.run([sys.executable, "-m", "silkvision.cli", "--version"], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == f"silkvision {sv.__version__}"


def test_error_path_prints_one_line(monkeypatch, capsys):
    import argparse

    def fake_parser():
        p = argparse.ArgumentParser(prog="silkvision")
        p.set_defaults(_run=lambda a: (_ for _ in ()).throw(ConfigError("x.y: 3 is out of range")))
        return p

    monkeypatch.setattr("silkvision.cli.main.build_parser", fake_parser)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err == "silkvision: error: x.y: 3 is out of range\n"


def test_sample_clip_is_shipped_in_cdnet_layout(sample_seq):
    assert len(list((sample_seq / "input").glob("in*.jpg"))) == 400
    assert len(list((sample_seq / "groundtruth").glob("gt*.png"))) == 400
    assert (sample_seq / "temporalROI.txt").read_text().split() == ["100", "400"]
    assert (sample_seq / "ROI.bmp").is_file()
