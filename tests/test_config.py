from pathlib import Path

import numpy as np
import pytest
import yaml

from silkvision.config import defaults, load_config, parse_set, render_commented, validate
from silkvision.errors import ConfigError
from tests.conftest import REPO


def test_top_level_config_yaml_matches_builtin_defaults():
    assert yaml.safe_load((REPO / "config.yaml").read_text()) == defaults()
    assert (REPO / "config.yaml").read_text() == render_commented()


@pytest.mark.parametrize(
    "item, fragment",
    [
        ("detector.silk.tau=2", "detector.silk.tau: 2.0"),
        ("detector.nope=1", "detector.nope: unknown key"),
        ("detector.silk.omega=abc", "wrong type"),
        ("detector.algorithm=xyz", "one of 'silk'"),
        ("detector.median=4", "odd integer"),
        ("detector.close=4", "detector.close: 4"),
        ("detector.fill_holes=maybe", "detector.fill_holes"),
        ("capture.resize=[0, 10]", "capture.resize"),
        ("capture.resize=[100000, 100000]", "integers in 1..16384"),
        ("capture.camera_timeout=1e300", "(0, 86400]"),
        ("gui.display_fps=1e-300", "[0.1, 1000]"),
        ("gui.second_algorithm=silk", "one of 'norma'"),
        ("detector", "expected key=value"),
        ("detector.silk=1", "is a section"),
    ],
)
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
    assert cfg["detector"]["silk"]["tau"] == 0.03  # --config beats ./config.yaml
    assert cfg["detector"]["silk"]["C"] == 0.7  # --set beats everything
    assert cfg["detector"]["silk"]["omega"] == 20  # default kept
    cfg2 = load_config(None)
    assert cfg2["detector"]["silk"]["C"] == 0.5  # ./config.yaml beats defaults


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


# --- non-finite numbers, scientific notation, unreadable files, duplicate keys, empty --set key ---

FLOAT_KEYS = [
    "detector.silk.sigma",
    "detector.silk.C",
    "detector.silk.rho",
    "detector.silk.threshold",
    "detector.norma.sigma",
    "detector.norma.eta",
    "detector.norma.threshold",
    "detector.mog2.var_threshold",
    "detector.knn.dist2_threshold",
    "capture.camera_timeout",
    "gui.display_fps",
]


@pytest.mark.parametrize("key", FLOAT_KEYS)
@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1e400"])
def test_non_finite_numbers_are_refused_by_set(key, value):
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[f"{key}={value}"], use_cwd=False)
    msg = str(e.value)
    assert msg.startswith(f"{key}: ") and "in --set is out of range; expected a finite number" in msg
    assert "\n" not in msg


def test_every_float_key_refuses_inf():
    from silkvision.config.schema import SCHEMA, Param

    def walk(node, prefix):
        for k, v in node.items():
            if isinstance(v, dict):
                yield from walk(v, f"{prefix}{k}.")
            elif isinstance(v, Param) and v.type is float:
                yield f"{prefix}{k}"

    keys = list(walk(SCHEMA, ""))
    assert len(keys) >= len(FLOAT_KEYS)
    for key in keys:
        for bad in (float("inf"), float("-inf"), float("nan")):
            with pytest.raises(ConfigError, match="out of range"):
                validate(_nest_for_test(key, bad))


def _nest_for_test(key, value):
    out = node = {}
    parts = key.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value
    return out


def test_inf_in_a_config_file_names_file_and_says_finite(tmp_path):
    p = tmp_path / "c_inf.yaml"
    p.write_text("detector:\n  silk:\n    sigma: .inf\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    assert str(e.value) == (
        f"detector.silk.sigma: inf in {p} is out of range; expected a finite number >= 1e-06"
    )
    p.write_text("detector:\n  mog2:\n    var_threshold: .inf\n")
    with pytest.raises(ConfigError, match=r"var_threshold: inf in .* expected a finite number > 0$"):
        load_config(p, use_cwd=False)


def test_huge_integer_for_a_float_key_is_out_of_range_not_a_traceback(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_text("detector:\n  norma:\n    lambda: 1" + "0" * 400 + "\n")
    with pytest.raises(
        ConfigError, match=r"detector.norma.lambda: .* is out of range; expected a finite number > 0"
    ):
        load_config(p, use_cwd=False)
    p.write_text("detector:\n  silk:\n    C: 1" + "0" * 400 + "\n")
    with pytest.raises(
        ConfigError,
        match=r"detector.silk.C: .* is out of range; expected a finite number in \[1e-06, 1e\+06\]",
    ):
        load_config(p, use_cwd=False)
    with pytest.raises(ConfigError, match="detector.mog2.var_threshold: .* out of range"):
        validate({"detector": {"mog2": {"var_threshold": 10**400}}})


@pytest.mark.parametrize(
    "text, value",
    [
        ("5e-4", 5e-4),
        ("5E-4", 5e-4),
        ("1e-3", 1e-3),
        ("-2.5e+3", None),
        ("2.5e-1", 0.25),
        ("5.0e-4", 5e-4),
        ("+5e-4", 5e-4),
        ("1_0e-2", 0.1),
        ("1.5e-3", 1.5e-3),
        (".5e-1", 0.05),
    ],
)
def test_scientific_notation_is_a_number_in_set(text, value):
    key, v = parse_set(f"detector.silk.tau={text}")
    assert key == "detector.silk.tau"
    assert isinstance(v, float)
    assert v == float(text.replace("_", ""))
    if value is not None:
        assert load_config(overrides=[f"detector.silk.tau={text}"], use_cwd=False)["detector"]["silk"][
            "tau"
        ] == pytest.approx(value)


def test_scientific_notation_in_a_config_file(tmp_path):
    p = tmp_path / "sci.yaml"
    p.write_text(
        "detector:\n  silk:\n    tau: 5e-4\n    C: 1E3\n    sigma: 2e1\n"
        "    rho: 2.5e1\n  mog2:\n    var_threshold: 1.6e+1\n"
    )
    cfg = load_config(p, use_cwd=False)
    assert cfg["detector"]["silk"]["tau"] == 5e-4
    assert cfg["detector"]["silk"]["C"] == 1000.0
    assert cfg["detector"]["silk"]["sigma"] == 20.0
    assert cfg["detector"]["silk"]["rho"] == 25.0
    assert cfg["detector"]["mog2"]["var_threshold"] == 16.0
    # integers stay integers; a float in scientific notation is still not an integer
    p.write_text("detector:\n  silk:\n    omega: 1e1\n")
    with pytest.raises(
        ConfigError, match=r"detector.silk.omega: 10.0 in .* has the wrong type; expected an integer"
    ):
        load_config(p, use_cwd=False)
    # out-of-range scientific values are reported as numbers
    p.write_text("detector:\n  silk:\n    tau: 5e3\n")
    with pytest.raises(ConfigError, match=r"detector.silk.tau: 5000.0 in .* is out of range"):
        load_config(p, use_cwd=False)


def test_things_that_only_look_like_numbers_stay_strings():
    # not float literals: no digits before/after the exponent marker, or a bare 'e'
    for text in ("e5", "5e", "1e-", "abc", "1.2.3"):
        with pytest.raises(ConfigError, match="wrong type"):
            load_config(overrides=[f"detector.silk.C={text}"], use_cwd=False)
    # string keys keep the text as written
    assert parse_set("detector.algorithm=1e3") == ("detector.algorithm", "1e3")


def test_written_config_round_trips_small_floats(tmp_path):
    from silkvision.config import write_config

    cfg = load_config(overrides=["detector.silk.tau=1e-7", "detector.silk.C=2.5e-5"], use_cwd=False)
    out = write_config(cfg, tmp_path / "config.yaml")
    assert load_config(out, use_cwd=False) == cfg


@pytest.mark.parametrize(
    "data",
    [b"\xff\xfe\x00bad", "detector: {}\n".encode("utf-16"), b"detector:\n  silk:\n    tau: 0.02 \xe9\n"],
)
def test_non_utf8_config_file_is_a_one_line_error(tmp_path, data):
    p = tmp_path / "c_bin.yaml"
    p.write_bytes(data)
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    assert str(e.value) == f"{p}: cannot read config file (not UTF-8 text)"


def test_an_endless_or_huge_config_file_is_refused_and_a_pipe_is_read(tmp_path):
    """File > Load parameters on /dev/zero (or --config /dev/zero) read until memory ran out."""
    import os
    import threading

    from silkvision.config.loader import MAX_CONFIG_BYTES

    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    specs = [big] + ([Path("/dev/zero")] if Path("/dev/zero").exists() else [])
    for spec in specs:
        with pytest.raises(ConfigError, match=f"^{spec}: is larger than 4 MiB; expected a YAML config file"):
            load_config(spec, use_cwd=False)
    fifo = tmp_path / "pipe.yaml"  # as --config <(...) passes it
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("detector:\n  silk:\n    tau: 0.02\n"))
    writer.start()
    assert load_config(fifo, use_cwd=False)["detector"]["silk"]["tau"] == 0.02
    writer.join()


def test_non_utf8_config_yaml_in_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ConfigError) as e:
        load_config()
    assert str(e.value) == f"{tmp_path / 'config.yaml'}: cannot read config file (not UTF-8 text)"


def test_utf8_bom_is_accepted(tmp_path):
    p = tmp_path / "bom.yaml"
    p.write_bytes("detector:\n  silk:\n    tau: 0.02\n".encode("utf-8-sig"))
    assert load_config(p, use_cwd=False)["detector"]["silk"]["tau"] == 0.02


def test_control_characters_in_config_file_are_a_one_line_error(tmp_path):
    p = tmp_path / "ctl.yaml"
    p.write_bytes(b"detector:\n  silk:\n    tau: 0.0\x002\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    msg = str(e.value)
    assert msg.startswith(f"{p}: invalid YAML") and "#x0000" in msg and "\n" not in msg


def test_cli_reports_non_utf8_config_with_exit_2(tmp_path, monkeypatch, capsys):
    from silkvision.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c_bin.yaml").write_bytes(b"\xff\xfe\x00bad")
    rc = main(["export", "missing_source", "--out", str(tmp_path / "out"), "--config", "c_bin.yaml"])
    assert rc == 2
    assert (
        capsys.readouterr().err == "silkvision: error: c_bin.yaml: cannot read config file (not UTF-8 text)\n"
    )


def test_cli_reports_inf_and_accepts_scientific_notation(tmp_path, monkeypatch, capsys):
    from silkvision.cli.main import main

    monkeypatch.chdir(tmp_path)
    rc = main(
        ["export", "missing_source", "--out", str(tmp_path / "out"), "--set", "detector.silk.sigma=.inf"]
    )
    assert rc == 2
    assert capsys.readouterr().err == (
        "silkvision: error: detector.silk.sigma: inf in --set is out of range; "
        "expected a finite number >= 1e-06\n"
    )
    # 5e-4 passes the config stage; the run then stops at the missing source, not at the config
    rc = main(["export", "missing_source", "--out", str(tmp_path / "out"), "--set", "detector.silk.tau=5e-4"])
    err = capsys.readouterr().err
    assert rc == 2 and "missing_source" in err and "tau" not in err


def test_duplicate_keys_in_a_config_file_are_an_error(tmp_path):
    p = tmp_path / "dup.yaml"
    p.write_text("detector:\n  silk:\n    tau: 0.02\n    C: 0.5\n    tau: 0.03\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    msg = str(e.value)
    assert msg.startswith(f"{p}: ") and "line 5" in msg and "duplicate key 'tau'" in msg and "line 3" in msg
    assert "\n" not in msg
    p.write_text("detector:\n  silk:\n    tau: 0.02\ndetector:\n  median: 3\n")
    with pytest.raises(
        ConfigError,
        match=r"dup.yaml: duplicate key 'detector' at line 4, column 1 \(first given at line 1\)$",
    ):
        load_config(p, use_cwd=False)
    # flow mappings too
    p.write_text("capture: {max_frames: 3, max_frames: 4}\n")
    with pytest.raises(ConfigError, match="duplicate key 'max_frames'"):
        load_config(p, use_cwd=False)


def test_same_key_in_different_sections_is_not_a_duplicate(tmp_path):
    p = tmp_path / "ok.yaml"
    p.write_text("detector:\n  silk:\n    sigma: 9.0\n  norma:\n    sigma: 14.0\n")
    cfg = load_config(p, use_cwd=False)
    assert cfg["detector"]["silk"]["sigma"] == 9.0 and cfg["detector"]["norma"]["sigma"] == 14.0


def test_yaml_merge_keys_still_work(tmp_path):
    p = tmp_path / "merge.yaml"
    p.write_text(
        "detector:\n  silk: &s {sigma: 9.0, rho: 2.0}\n  norma:\n    <<: {sigma: 3.0}\n    sigma: 14.0\n"
    )
    cfg = load_config(p, use_cwd=False)
    assert cfg["detector"]["norma"]["sigma"] == 14.0


@pytest.mark.parametrize("item", ["=3", " =3", "  = "])
def test_set_with_an_empty_key(item):
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[item], use_cwd=False)
    msg = str(e.value)
    assert "empty key" in msg and "expected key=value" in msg and "\n" not in msg


@pytest.mark.parametrize(
    "key",
    [
        "detector.mog2.history",
        "detector.knn.history",
        "detector.silk.warmup",
        "capture.max_frames",
        "export.checkpoint_every",
        "gui.roc_every",
    ],
)
def test_integers_must_fit_a_c_int(key):
    assert load_config(overrides=[f"{key}=2147483647"], use_cwd=False)
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[f"{key}=2147483648"], use_cwd=False)
    assert str(e.value).startswith(f"{key}: 2147483648 in --set is out of range; expected ")
    assert str(e.value).endswith("(at most 2147483647)")
    with pytest.raises(
        ConfigError, match=f"{key}: an integer with 5001 digits in --set is out of range; expected "
    ):
        load_config(overrides=[f"{key}=1" + "0" * 5000], use_cwd=False)


def test_too_long_integer_in_a_file_is_a_one_line_error(tmp_path):
    p = tmp_path / "long.yaml"
    p.write_text("detector:\n  silk:\n    omega: 1" + "0" * 5000 + "\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    assert str(e.value) == f"{p}: invalid YAML at line 3, column 12: integer with 5001 digits is too long"


# -- NumPy scalars and tuples (values computed by a script) -------------------------------------


def _types(node):
    """Set of the types of every leaf value of a nested config."""
    out = set()
    for v in node.values():
        if isinstance(v, dict):
            out |= _types(v)
        elif isinstance(v, list):
            out |= {type(x) for x in v} | {list}
        else:
            out.add(type(v))
    return out


def test_numpy_scalars_and_tuples_are_accepted_as_plain_python_values():
    import numpy as np

    cfg = validate(
        {
            "detector": {
                "fill_holes": np.bool_(False),
                "silk": {
                    "tau": np.float64(1e-3),
                    "omega": np.int64(5),
                    "C": np.int32(2),
                    "sigma": np.float32(4.5),
                },
            },
            "capture": {"resize": (np.int64(320), 240)},
        }
    )
    silk = cfg["detector"]["silk"]
    assert silk["tau"] == 1e-3 and silk["omega"] == 5 and silk["C"] == 2.0 and silk["sigma"] == 4.5
    assert cfg["detector"]["fill_holes"] is False
    assert cfg["capture"]["resize"] == [320, 240]
    assert not any(issubclass(t, np.generic) for t in _types(cfg))
    assert type(silk["C"]) is float and type(silk["omega"]) is int


@pytest.mark.parametrize(
    "section, key, value",
    [
        ("silk", "omega", "np.bool_(True)"),  # a bool is not a number, NumPy's neither
        ("silk", "tau", "np.bool_(True)"),
        ("silk", "omega", "np.float64(5.0)"),  # a float is not an integer, NumPy's neither
        (None, "fill_holes", "np.int64(1)"),  # a number is not a bool
    ],
)
def test_numpy_scalars_of_the_wrong_kind_are_still_refused(section, key, value):
    import numpy as np

    v = eval(value, {"np": np})
    cfg = {key: v} if section is None else {section: {key: v}}
    with pytest.raises(ConfigError, match="wrong type"):
        validate({"detector": cfg})


def test_a_python_bool_in_resize_is_refused():
    with pytest.raises(ConfigError, match="capture.resize"):
        validate({"capture": {"resize": [True, 240]}})


def test_config_with_numpy_scalars_can_be_written_and_read_back(tmp_path):
    import numpy as np

    from silkvision.config import write_config

    cfg = validate({"detector": {"silk": {"tau": np.float64(1e-3)}}, "capture": {"resize": (32, 24)}})
    out = write_config(cfg, tmp_path / "c.yaml")
    assert load_config(out, use_cwd=False) == cfg
    # a hand-made (not validated) mapping with NumPy scalars and tuples is written too
    raw = {
        "detector": {"silk": {"tau": np.float64(2e-3), "omega": np.int64(7)}},
        "capture": {"resize": (np.int64(16), 12)},
    }
    out = write_config(raw, tmp_path / "raw.yaml")
    got = load_config(out, use_cwd=False)
    assert got["detector"]["silk"]["tau"] == 2e-3 and got["detector"]["silk"]["omega"] == 7
    assert got["capture"]["resize"] == [16, 12]


def test_create_subtractor_accepts_numpy_scalars():
    import numpy as np

    from silkvision.detector import create_subtractor

    det = create_subtractor("silk", omega=np.int64(5), fill_holes=np.bool_(False), tau=np.float64(1e-3))
    assert det.name == "silk"


def test_detector_sigma_below_the_kernel_floor_is_a_config_error(tmp_path):
    """SIGMA_MIN (1e-6) is shared by the schema and the detectors: below ~4.6e-20 the float32 kernel
    scale overflows and every score is NaN, so the config refuses tiny widths with the key named."""
    from silkvision.config.schema import SIGMA_MIN
    from silkvision.detector.silk import SIGMA_MIN as DETECTOR_MIN

    assert SIGMA_MIN == DETECTOR_MIN == 1e-6
    p = tmp_path / "tiny.yaml"
    for algo in ("silk", "norma"):
        p.write_text(f"detector:\n  {algo}:\n    sigma: 1.0e-9\n")
        with pytest.raises(
            ConfigError, match=rf"detector\.{algo}\.sigma: 1e-09 .* expected a number >= 1e-06"
        ):
            load_config(p, use_cwd=False)
        p.write_text(f"detector:\n  {algo}:\n    sigma: 1.0e-6\n")
        assert load_config(p, use_cwd=False)["detector"][algo]["sigma"] == 1e-6


@pytest.mark.parametrize("norma", [{"eta": 1e6}, {"lambda": 19}, {"eta": 5.0, "lambda": 0.5}])
def test_norma_eta_times_lambda_must_be_below_one(tmp_path, norma):
    """A cross-key rule: NORMA's old terms decay by (1 - eta * lambda), so the product must be < 1.
    The config layer refuses it (naming both keys and the file) before any detector sees it."""
    with pytest.raises(ConfigError) as e:
        validate({"detector": {"norma": norma}}, "panel")
    msg = str(e.value)
    assert "detector.norma.eta" in msg and "detector.norma.lambda" in msg and "in panel" in msg
    assert "< 1" in msg and "\n" not in msg
    p = tmp_path / "product.yaml"
    p.write_text("detector:\n  norma:\n" + "".join(f"    {k}: {v}\n" for k, v in norma.items()))
    with pytest.raises(ConfigError, match=r"detector\.norma\.eta, detector\.norma\.lambda: .*product\.yaml"):
        load_config(p, use_cwd=False)
    items = [f"detector.norma.{k}={v}" for k, v in norma.items()]
    with pytest.raises(ConfigError, match="--set"):
        load_config(overrides=items, use_cwd=False)
    # each key alone may be large when the other is small enough
    ok = validate({"detector": {"norma": {"eta": 1e6, "lambda": 1e-7}}})
    assert ok["detector"]["norma"]["eta"] * ok["detector"]["norma"]["lambda"] < 1


def test_create_subtractor_checks_eta_times_lambda_after_the_keyword_overrides():
    """A config whose NORMA eta * lambda is >= 1 is fine when a keyword override brings it below 1
    (the cross-key rule is checked on the merged values), and refused when the override does not."""
    import silkvision as sv

    cfg = {"detector": {"norma": {"eta": 20.0}}}  # 20 * 0.1 (default lambda) = 2
    det = sv.create_subtractor("norma", config=cfg, **{"lambda": 0.01})
    assert det.get_params()["eta"] == 20.0
    with pytest.raises(ConfigError, match=r"eta \* lambda = 2"):
        sv.create_subtractor("norma", config=cfg)
    with pytest.raises(ConfigError, match=r"eta \* lambda = 1"):
        sv.create_subtractor("norma", eta=10.0)


def _laughs(levels: int) -> str:
    """A "billion laughs" value: ``levels`` nested lists of 9 aliases of the level below."""
    text = "&a0 [x, x, x, x, x, x, x, x, x]"
    for k in range(1, levels):
        text = f"&a{k} [{text}, " + ", ".join([f"*a{k - 1}"] * 8) + "]"
    return text


def test_a_yaml_alias_bomb_is_refused_while_reading_the_file(tmp_path):
    p = tmp_path / "laughs.yaml"
    p.write_text(f"detector:\n  algorithm: {_laughs(6)}\n")  # 9**6 values once expanded
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    msg = str(e.value)
    assert msg.startswith(f"{p}: alias *a") and "expands the file to more than 10000 values (line 2" in msg
    assert msg.endswith("expected aliases (*name) that copy a few settings, or none") and "\n" not in msg


def _aliases_to(total: int) -> str:
    """A flat document of exactly ``total`` values (>= 9906) once aliases are expanded, the last
    alias reaching the total: ``c`` pads with scalars, ``b`` holds 98 aliases of the 100-value ``a``.
    Counted as the loader counts: the root, each key, each list and each item are one value each."""
    pad = total - (1 + 2 + 101 + 2 + 98 * 100)  # root; c: key+list; a: key+list+99; b: key+list
    assert pad >= 0
    return f"c: [{', '.join(['x'] * pad)}]\na: &a [{', '.join(['1'] * 99)}]\nb: [{', '.join(['*a'] * 98)}]\n"


def test_the_alias_limit_is_exactly_max_expanded_values(tmp_path):
    """The bomb above is far over any plausible limit; this pins the limit itself: a document of
    exactly MAX_EXPANDED_VALUES values loads, one more value is refused at its last alias."""
    from silkvision.config.loader import MAX_EXPANDED_VALUES, _load_yaml

    assert MAX_EXPANDED_VALUES == 10_000  # the number the README and the message give
    doc = _load_yaml(_aliases_to(MAX_EXPANDED_VALUES))
    assert len(doc["b"]) == 98 and doc["b"][0] == [1] * 99
    p = tmp_path / "over.yaml"
    p.write_text(_aliases_to(MAX_EXPANDED_VALUES + 1))
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    assert str(e.value).startswith(
        f"{p}: alias *a expands the file to more than 10000 values (line 3, column "
    )


def test_a_yaml_alias_bomb_in_set_is_refused():
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[f"detector.algorithm={_laughs(6)}"], use_cwd=False)
    msg = str(e.value)
    assert msg.startswith("detector.algorithm: alias *a") and "in --set; expected one of" in msg


def test_a_recursive_alias_is_refused(tmp_path):
    p = tmp_path / "rec.yaml"
    p.write_text("capture:\n  resize: &r [1, *r]\n")
    with pytest.raises(
        ConfigError,
        match=r"rec.yaml: alias \*r refers to the node it is in \(a recursive "
        r"structure\) \(line 2, column 18\)",
    ):
        load_config(p, use_cwd=False)


def test_a_few_aliases_that_copy_settings_still_work(tmp_path):
    p = tmp_path / "alias.yaml"
    p.write_text(
        "detector:\n  silk: &k {sigma: 9.0}\n  norma:\n    <<: *k\n  mog2: {history: &h 300}\n"
        "  knn: {history: *h}\n"
    )
    cfg = load_config(p, use_cwd=False)
    assert cfg["detector"]["norma"]["sigma"] == 9.0 and cfg["detector"]["knn"]["history"] == 300


def test_values_are_shortened_before_they_are_formatted():
    from silkvision.config.loader import _show

    class Unprintable:
        def __repr__(self):
            raise AssertionError("formatted a part of the value that is not shown")

    assert _show([0] * 30 + [Unprintable()]).endswith("... (shortened)")
    nested = [[[[[[Unprintable()]]]]]]
    assert len(_show(nested)) <= 65
    assert _show("x" * 10**6) == "'" + "x" * 49 + "... (shortened)"
    assert _show([1, "a", 2.5]) == "[1, 'a', 2.5]"


def test_a_huge_key_or_set_item_is_shortened_in_the_message(tmp_path):
    p = tmp_path / "k.yaml"
    p.write_text("detector:\n  ? " + "k" * 5000 + "\n  : 1\n")  # (an explicit key may be that long)
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    assert len(str(e.value)) < 400 and "(shortened): unknown key" in str(e.value)
    with pytest.raises(ConfigError) as e:
        load_config(overrides=["x" * 5000], use_cwd=False)
    assert len(str(e.value)) < 200


def test_several_config_files_are_merged_in_the_order_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("detector:\n  median: 3\n  close: 3\n  silk: {tau: 0.01}\n")
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("detector:\n  median: 7\n  silk: {tau: 0.02, C: 0.5}\n")
    b.write_text("detector:\n  silk: {tau: 0.03}\n")
    cfg = load_config([a, b], ["detector.silk.C=0.7"])
    det = cfg["detector"]
    assert (det["close"], det["median"], det["silk"]["tau"], det["silk"]["C"]) == (3, 7, 0.03, 0.7)
    assert load_config([b, a])["detector"]["silk"]["tau"] == 0.02


def test_key_source_names_where_a_value_came_from(tmp_path, monkeypatch):
    from silkvision.config.loader import key_source

    monkeypatch.chdir(tmp_path)
    cwd = tmp_path / "config.yaml"
    cwd.write_text("capture:\n  resize: [8, 6]\n  max_frames: 4\n")
    a = tmp_path / "a.yaml"
    a.write_text("capture:\n  max_frames: 5\ndetector: null\n")
    assert key_source("capture.resize", [a]) == str(cwd)
    assert key_source("capture.max_frames", [a]) == str(a)
    assert key_source("capture.max_frames", [a], ["capture.max_frames=6"]) == "--set"
    assert key_source("detector.median", [a]) == ""
    assert key_source("capture.resize", None, use_cwd=False) == ""


# -- one reading of numbers for every --set and every file: decimal only -----------------------------
@pytest.mark.parametrize("text", ["0x10", "0b101", "1:30", "1:30.5"])
def test_numbers_in_other_yaml_11_forms_are_refused(tmp_path, text):
    with pytest.raises(
        ConfigError,
        match=rf"^detector\.silk\.omega: '{text}' in --set is not a plain "
        r"decimal number; write it in decimal",
    ):
        load_config(overrides=[f"detector.silk.omega={text}"], use_cwd=False)
    f = tmp_path / "c.yaml"
    f.write_text(f"detector:\n  silk:\n    omega: {text}\n")
    with pytest.raises(
        ConfigError, match=rf"c\.yaml: '{text}' at line 3, column 12 is not a plain decimal number"
    ):
        load_config(f, use_cwd=False)


@pytest.mark.parametrize("text, value", [("010", 10), ("1_0", 10), ("+12", 12)])
def test_decimal_integers_with_a_leading_zero_or_grouping(text, value):
    cfg = load_config(overrides=[f"detector.silk.omega={text}"], use_cwd=False)
    assert cfg["detector"]["silk"]["omega"] == value


def test_a_text_key_keeps_a_number_like_value_as_text():
    from silkvision.config.loader import parse_set

    assert parse_set("detector.algorithm=0x10") == ("detector.algorithm", "0x10")


# -- deeply nested values: one line naming the key or file, not a RecursionError ----------------------
def _brackets(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_deeply_nested_set_value_is_a_one_line_error_naming_the_key():
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[f"capture.resize={_brackets(400)}"], use_cwd=False)
    assert str(e.value) == (
        "capture.resize: lists or mappings nested more than 32 levels deep in --set; "
        "expected null or [width, height] with integers in 1..16384"
    )


def test_a_deeply_nested_config_file_is_a_one_line_error_naming_the_file(tmp_path):
    p = tmp_path / "deep.yaml"
    p.write_text(f"capture:\n  resize: {_brackets(400)}\n")
    with pytest.raises(ConfigError) as e:
        load_config(p, use_cwd=False)
    assert str(e.value) == (
        f"{p}: lists or mappings nested more than 32 levels deep at line 2, column 41; "
        f"expected a config of mappings and short lists"
    )


def test_the_nesting_limit_is_exactly_max_nesting():
    from silkvision.config.loader import MAX_NESTING, _load_yaml, _NestingError

    assert _load_yaml(_brackets(MAX_NESTING - 1)) is not None  # the scalar-free innermost list counts
    assert _load_yaml("a: " + _brackets(MAX_NESTING - 1)) is not None
    with pytest.raises(_NestingError):
        _load_yaml("a: " + _brackets(MAX_NESTING))
    with pytest.raises(_NestingError):
        _load_yaml("{a: " * (MAX_NESTING + 1) + "1" + "}" * (MAX_NESTING + 1))


def test_cli_reports_a_deeply_nested_set_value_with_exit_2(capsys):
    from silkvision.cli.main import main

    rc = main(["config", "--set", f"capture.resize={_brackets(400)}"])
    err = capsys.readouterr().err
    assert (
        rc == 2
        and err.startswith("silkvision: error: capture.resize: lists or mappings nested")
        and err.count("\n") == 1
    )


def test_a_deeply_nested_python_value_is_a_config_error():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ConfigError, match=r"^capture\.resize: a list nested too deeply; expected null or"):
        validate({"capture": {"resize": deep}})


# -- the score threshold stays within what the detectors' float32 state holds ------------------------
@pytest.mark.parametrize("algorithm", ["silk", "norma"])
def test_a_huge_threshold_is_refused_by_the_config_and_the_detector(algorithm):
    from silkvision.config.schema import MAX_THRESHOLD
    from silkvision.detector.norma import NormaSubtractor
    from silkvision.detector.silk import SilkSubtractor

    with pytest.raises(
        ConfigError,
        match=rf"^detector\.{algorithm}\.threshold: 1e\+308 in --set is out of "
        r"range; expected a number in \[0, 2\.55e\+08\]$",
    ):
        load_config(overrides=[f"detector.{algorithm}.threshold=1e308"], use_cwd=False)
    cls = SilkSubtractor if algorithm == "silk" else NormaSubtractor
    with pytest.raises(ValueError, match=r"threshold: 1e\+308 must be <= "):
        cls(threshold=1e308)
    det = cls(threshold=MAX_THRESHOLD)
    with pytest.raises(ValueError, match=r"threshold: 1e\+308 must be <= "):
        det.mask_from_scores(np.zeros((4, 4), np.float32), threshold=1e308)


def test_the_largest_threshold_runs_without_a_numpy_warning():
    import warnings

    from silkvision.config.schema import MAX_THRESHOLD
    from silkvision.detector.silk import SilkSubtractor

    det = SilkSubtractor(threshold=MAX_THRESHOLD, median=0, close=0, fill_holes=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mask = det.apply(np.zeros((6, 8, 3), np.uint8))
    assert mask.shape == (6, 8) and (mask == 255).all()  # every score is below it
