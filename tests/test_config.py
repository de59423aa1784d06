import pytest
import yaml

from silkvision.config import defaults, load_config, parse_set, render_commented, validate
from silkvision.errors import ConfigError

from tests.conftest import REPO


def test_top_level_config_yaml_matches_builtin_defaults():
    assert yaml.safe_load((REPO / "config.yaml").read_text()) == defaults()
    assert (REPO / "config.yaml").read_text() == render_commented()


@pytest.mark.parametrize("item, fragment", [
    ("detector.silk.tau=2", "detector.silk.tau: 2.0"),
    ("detector.nope=1", "detector.nope: unknown key"),
    ("detector.silk.omega=abc", "wrong type"),
    ("detector.algorithm=xyz", "one of 'silk'"),
    ("detector.median=4", "odd integer"),
    ("detector.close=4", "detector.close: 4"),
    ("detector.fill_holes=maybe", "detector.fill_holes"),
    ("capture.resize=[0, 10]", "capture.resize"),
    ("detector", "expected key=value"),
    ("detector.silk=1", "is a section"),
])
def test_bad_overrides_give_one_line_errors(item, fragment):
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[item], use_cwd=False)
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_precedence_defaults_cwd_file_set(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("detector:\n  silk:\n    tau: 0.02\n    C: 0.5\n")
    other = tmp_path / "other.yaml"
    other.write_text("detector:\n  silk:\n    tau: 0.03\n")
    cfg = load_config(other, ["detector.silk.C=0.7"])
    assert cfg["detector"]["silk"]["tau"] == 0.03      # --config beats ./config.yaml
    assert cfg["detector"]["silk"]["C"] == 0.7         # --set beats everything
    assert cfg["detector"]["silk"]["omega"] == 20      # default kept
    cfg2 = load_config(None)
    assert cfg2["detector"]["silk"]["C"] == 0.5        # ./config.yaml beats defaults


def test_bad_yaml_file_names_the_file(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("detector: [1, 2\n")
    with pytest.raises(ConfigError, match="bad.yaml: invalid YAML at line"):
        load_config(p, use_cwd=False)
    p.write_text("detector:\n  silk:\n    sigma: -1\n")
    with pytest.raises(ConfigError, match=r"detector.silk.sigma: -1.0 in .*bad.yaml is out of range"):
        load_config(p, use_cwd=False)
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "missing.yaml", use_cwd=False)


def test_int_accepted_for_float_but_bool_is_not_a_number():
    assert validate({"detector": {"silk": {"C": 1}}})["detector"]["silk"]["C"] == 1.0
    with pytest.raises(ConfigError):
        validate({"detector": {"silk": {"C": True}}})


def test_parse_set_reads_yaml_values():
    assert parse_set("capture.resize=[640, 480]") == ("capture.resize", [640, 480])
    assert parse_set("export.scores=true") == ("export.scores", True)
