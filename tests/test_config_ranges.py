"""The ends of every configuration range: an open end refuses the limit itself, a closed end accepts
it, and ``capture.resize`` takes exactly two sides. The detectors rely on these refusals (tau = 0
or 1, camera_timeout = 0, global_change = 0 would each break or hang a run)."""

import math

import pytest

from silkvision.config import load_config, validate
from silkvision.config.schema import SCHEMA, Param
from silkvision.errors import ConfigError

from .test_config import _nest_for_test as _nest


def _params(node=SCHEMA, prefix=""):
    for k, v in node.items():
        if isinstance(v, dict):
            yield from _params(v, f"{prefix}{k}.")
        elif isinstance(v, Param):
            yield f"{prefix}{k}", v


def _get(config, key):
    for part in key.split("."):
        config = config[part]
    return config


def _ends(open_):
    """(key, spec, side, limit) for every finite numeric range end that is open (or closed)."""
    out = []
    for key, spec in _params():
        if spec.values is not None or spec.type not in (int, float):
            continue
        for side, limit, is_open in zip((0, 1), spec.bounds, spec.open_ends):
            if limit is not None and is_open == open_:
                out.append(pytest.param(key, spec, side, limit, id=f"{key}-{'lo' if side == 0 else 'hi'}"))
    return out


OPEN_ENDS = _ends(True)
CLOSED_ENDS = _ends(False)


def test_the_schema_has_open_ends_on_both_sides():
    sides = {p.values[2] for p in OPEN_ENDS}
    assert sides == {0, 1}
    keys = {p.values[0] for p in OPEN_ENDS}
    assert {"detector.silk.tau", "capture.camera_timeout", "detector.silk.global_change"} <= keys


def _inside(spec, side, limit):
    step = math.nextafter(float(limit), math.inf if side == 0 else -math.inf)
    return step if spec.type is float else int(limit) + (1 if side == 0 else -1)


@pytest.mark.parametrize("key, spec, side, limit", OPEN_ENDS)
def test_an_open_end_refuses_its_limit_and_accepts_the_next_value(key, spec, side, limit):
    """``(0, 1)`` refuses 0 and 1 themselves (each key alone; cross-key rules are not asked)."""
    with pytest.raises(ConfigError, match=r"is out of range; expected") as e:
        validate(_nest(key, spec.type(limit)), cross=False)
    assert str(e.value).startswith(f"{key}: ") and spec.allowed in str(e.value)
    inside = _inside(spec, side, limit)
    assert _get(validate(_nest(key, inside), cross=False), key) == inside


@pytest.mark.parametrize("key, spec, side, limit", CLOSED_ENDS)
def test_a_closed_end_accepts_its_limit(key, spec, side, limit):
    assert _get(validate(_nest(key, spec.type(limit)), cross=False), key) == limit


@pytest.mark.parametrize(
    "item, allowed",
    [
        ("detector.silk.tau=0", "(0, 1)"),
        ("detector.silk.tau=1", "(0, 1)"),
        ("capture.camera_timeout=0", "(0, 86400]"),
        ("detector.silk.global_change=0", "(0, 1]"),
        ("evaluation.recovery_tolerance=1", ", 1)"),
    ],
)
def test_set_refuses_a_value_on_an_open_end(item, allowed):
    key = item.split("=")[0]
    with pytest.raises(ConfigError) as e:
        load_config(overrides=[item], use_cwd=False)
    msg = str(e.value)
    assert msg.startswith(f"{key}: ") and "out of range" in msg and allowed in msg


@pytest.mark.parametrize("value", ["[320, 240, 3]", "[320]", "[]", "[320, 240, 3, 4]"])
def test_resize_takes_exactly_width_and_height(value):
    with pytest.raises(
        ConfigError, match=r"capture.resize: .* is not valid; expected null or \[width, height\]"
    ):
        load_config(overrides=[f"capture.resize={value}"], use_cwd=False)
    assert load_config(overrides=["capture.resize=[320, 240]"], use_cwd=False)["capture"]["resize"] == [
        320,
        240,
    ]


@pytest.mark.parametrize("key", ["detector.median", "detector.close"])
def test_mask_filter_sizes_stop_at_15(key):
    assert load_config(overrides=[f"{key}=15"], use_cwd=False)["detector"][key.split(".")[1]] == 15
    for bad in (17, 1, 2, -1):
        with pytest.raises(ConfigError, match="0 \\(off\\) or an odd integer 3..15"):
            load_config(overrides=[f"{key}={bad}"], use_cwd=False)
