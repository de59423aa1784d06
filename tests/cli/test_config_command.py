"""``silkvision config``: the reference configuration, also where no source tree has config.yaml."""

from pathlib import Path

import yaml

from silkvision.cli.main import main
from silkvision.config import defaults

REPO = Path(__file__).resolve().parents[2]


def test_prints_the_repositorys_config_yaml(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./config.yaml here
    assert main(["config"]) == 0
    out = capsys.readouterr().out
    assert out == (REPO / "config.yaml").read_text()
    assert yaml.safe_load(out) == defaults()


def test_prints_the_configuration_the_commands_would_use(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("detector:\n  silk:\n    C: 0.5\n")
    mine = tmp_path / "mine.yaml"
    mine.write_text("detector:\n  median: 3\n")
    assert main(["config", "--config", str(mine), "--set", "detector.silk.tau=0.03"]) == 0
    cfg = yaml.safe_load(capsys.readouterr().out)
    assert cfg["detector"]["silk"]["C"] == 0.5 and cfg["detector"]["median"] == 3
    assert cfg["detector"]["silk"]["tau"] == 0.03
    assert main(["config", "--set", "detector.silk.tau=2"]) == 2  # checked like everywhere else
    assert "detector.silk.tau" in capsys.readouterr().err
