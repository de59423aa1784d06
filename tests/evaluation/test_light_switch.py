"""Light switch parsing, application and the recovery measure on hand-made per-frame counts."""

import numpy as np
import pytest

from silkvision.errors import ConfigError
from silkvision.evaluation.light_switch import (
    LightSwitch,
    apply_light_switches,
    recovery_report,
    switch_events,
)


def test_parse():
    s = LightSwitch.parse("900:1000:0.4")
    assert (s.start, s.end, s.gain) == (900, 1000, 0.4) and str(s) == "900:1000:0.4"
    for bad in ("900:1000", "a:b:c", "10:5:0.4", "0:5:0.4", "1:5:0", "1:5:-2"):
        with pytest.raises(ConfigError, match="--light-switch"):
            LightSwitch.parse(bad)


def test_apply_gain_and_overlap():
    f = np.full((2, 2, 3), 100, np.uint8)
    sw = (LightSwitch(5, 10, 0.4), LightSwitch(8, 9, 3.0))
    assert apply_light_switches(f, 4, sw) is f
    assert (apply_light_switches(f, 5, sw) == 40).all()
    assert (apply_light_switches(f, 8, sw) == 120).all()  # 100 * 0.4 * 3
    assert (apply_light_switches(f, 8, (LightSwitch(8, 8, 4.0),)) == 255).all()  # saturates
    ev = switch_events(sw, last_frame=10)
    assert [(e["frame"], e["event"]) for e in ev] == [(5, "switch"), (8, "switch"), (10, "restore")]


def _counts(f_values):
    """Per-frame counts whose F-measure is exactly the given value (tp, fp, fn with fp = fn)."""
    rows = []
    for f in f_values:
        tp = int(round(f * 100))
        miss = 100 - tp  # F = 2tp / (2tp + fp + fn) = tp / 100 with fp = fn = 100 - tp
        rows.append((tp, miss, miss, 1000))
    return np.array(rows, np.int64)


def test_recovery_by_hand():
    # frames 1..300; F 0.9 before the switch at 101, 0.0 for 20 frames, then 0.9 again
    f = np.full(300, 0.9)
    f[100:120] = 0.0
    f[120:200] = 0.5  # adapted to the dark, worse than before: not recovered before the restore
    f[200:215] = 0.3  # after the light comes back at 201: 15 bad frames, then 0.9
    idx = np.arange(1, 301)
    sw = [LightSwitch(101, 200, 0.4)]
    for smoothing in (1, 10):
        rep = recovery_report(idx, _counts(f), sw, window=100, tolerance=0.05, smoothing=smoothing)
        first = rep[0]
        assert first["frame"] == 101 and first["event"] == "switch"
        assert first["f_reference"] == pytest.approx(0.9)
        assert first["f_before"] == pytest.approx(0.9)
        # pooled over 101..200: tp = 20*0 + 80*50, fp = fn = 20*100 + 80*50
        assert first["f_after"] == pytest.approx(2 * 4000 / (2 * 4000 + 2 * 6000))
        assert first["recovery_frames"] is None and first["searched_frames"] == 100
        second = rep[1]
        assert second["frame"] == 201 and second["event"] == "restore"
        assert second["f_reference"] == pytest.approx(0.9)  # the light before the switch, not the dark
        assert second["f_before"] == pytest.approx(0.9)
        assert second["recovery_frames"] == 15
        assert second["searched_frames"] == 100


def test_f_after_of_a_short_switch_holds_only_its_switched_frames():
    """A 20-frame switch with W = 100: "F after" of the switch used to pool the 80 frames after the
    light came back (F 0.72 for a detector at 0.0 in the dark); now only the switched frames."""
    f = np.full(300, 0.9)
    f[100:120] = 0.0  # dark 101..120
    f[120:130] = 0.5  # the restore's first 10 frames
    idx = np.arange(1, 301)
    rep = recovery_report(
        idx, _counts(f), [LightSwitch(101, 120, 0.4)], window=100, tolerance=0.05, smoothing=1
    )
    switch, restore = rep
    assert switch["f_after"] == 0.0 and switch["searched_frames"] == 20
    # the restore: frames 121..220, 10 at 0.5 and 90 at 0.9: tp 8600, fp = fn = 1400
    assert restore["f_after"] == pytest.approx(2 * 8600 / (2 * 8600 + 2 * 1400))


def test_f_before_of_a_later_switch_uses_normal_light_only():
    """Two switches two frames apart: the later one's "F before" used to pool the earlier one's dark
    frames (F 0.04 and "recovered at once"); now only the frames of normal light between them."""
    f = np.full(400, 0.9)
    f[150:250] = 0.0  # dark 151..250
    f[250:252] = 0.8  # normal light 251..252
    f[252:300] = 0.1  # dark again 253..300
    idx = np.arange(1, 401)
    sw = [LightSwitch(151, 250, 0.4), LightSwitch(253, 300, 0.4)]
    rep = recovery_report(idx, _counts(f), sw, window=100, tolerance=0.05, smoothing=1)
    later = [e for e in rep if e["start"] == 253]
    assert later and all(
        e["f_reference"] == pytest.approx(0.8) and e["f_before"] == pytest.approx(0.8) for e in later
    )
    assert later[0]["recovery_frames"] is None  # 0.1 never comes back to 0.8 in the dark


def test_single_lucky_frame_does_not_count_with_smoothing():
    f = np.full(300, 0.9)
    f[100:130] = 0.0
    f[105] = 0.9  # one lucky frame
    idx = np.arange(1, 301)
    sw = [LightSwitch(101, 300, 0.4)]
    assert recovery_report(idx, _counts(f), sw, smoothing=1)[0]["recovery_frames"] == 5
    assert recovery_report(idx, _counts(f), sw, smoothing=10)[0]["recovery_frames"] == 30


def test_never_recovered_and_no_reference():
    f = np.full(200, 0.9)
    f[100:] = 0.2
    idx = np.arange(1, 201)
    rep = recovery_report(idx, _counts(f), [LightSwitch(101, 500, 0.4)], last_frame=200)
    assert len(rep) == 1 and rep[0]["recovery_frames"] is None and rep[0]["searched_frames"] == 100
    rep = recovery_report(idx[50:], _counts(f[50:]), [LightSwitch(40, 45, 0.4)])
    assert rep[0]["f_reference"] is None and rep[0]["recovery_frames"] is None


def test_fit_switches_against_the_sequence():
    from silkvision.evaluation.light_switch import fit_switches

    ev = list(range(10, 26))  # frames 1..30, evaluated 10..25
    sw = (LightSwitch(12, 15, 0.4),)
    assert fit_switches(sw, "seq", 1, 30, ev) == (sw, [])
    for spec, message in (
        ("31:40:0.5", "starts at frame 31, after the last frame 30 of seq"),
        ("26:28:0.5", "starts at frame 26, after the last evaluated frame 25 of seq"),
    ):
        with pytest.raises(ConfigError) as e:
            fit_switches((LightSwitch.parse(spec),), "seq", 1, 30, ev)
        msg = str(e.value)
        assert msg.startswith(f"--light-switch '{spec}': ") and message in msg and "\n" not in msg
        assert "(frames 1..30, evaluated 10..25)" in msg and msg.endswith("expected START in 1..25")
    # frames start at 5 (an image folder numbered from 5): a switch at 3 starts outside
    with pytest.raises(ConfigError, match="starts at frame 3, before the first frame 5 of seq"):
        fit_switches((LightSwitch(3, 12, 0.5),), "seq", 5, 30, ev)
    # clipped to the last frame (no restore event), with a note
    fit, notes = fit_switches((LightSwitch(20, 99999, 0.5),), "seq", 1, 30, ev)
    assert fit == (LightSwitch(20, 30, 0.5),) and len(notes) == 1
    assert "ends after the last frame 30 of seq; taken as 20:30:0.5" in notes[0]
    assert [e["event"] for e in switch_events(fit, last_frame=25)] == ["switch"]
    # ends after the last evaluated frame but inside the sequence: kept, with a note
    fit, notes = fit_switches((LightSwitch(20, 27, 0.5),), "seq", 1, 30, ev)
    assert fit == (LightSwitch(20, 27, 0.5),) and "no restore event" in notes[0]
    # starts in the warm-up: kept, with a note that no recovery is measured
    fit, notes = fit_switches((LightSwitch(2, 12, 0.5),), "seq", 1, 30, ev)
    assert fit == (LightSwitch(2, 12, 0.5),)
    assert notes == [
        "--light-switch '2:12:0.5': starts at frame 2, before the first evaluated frame 10 of "
        "seq (frames 1..30, evaluated 10..25): there is no F before it, so no recovery is "
        "measured"
    ]
    # frame count unknown (some videos): only the evaluated range is checked, nothing clipped
    fit, notes = fit_switches((LightSwitch(20, 99999, 0.5),), "seq", None, None, ev)
    assert fit == (LightSwitch(20, 99999, 0.5),) and "no restore event" in notes[0]
    with pytest.raises(ConfigError, match=r"\(frame count unknown, evaluated 10..25\)"):
        fit_switches((LightSwitch(26, 30, 0.5),), "seq", None, None, ev)


@pytest.mark.parametrize(
    "specs, message",
    [
        (("150:250:0.4", "150:250:0.4"), "'150:250:0.4' and '150:250:0.4' overlap (given twice)"),
        (("200:300:2", "150:250:0.4"), "'150:250:0.4' and '200:300:2' overlap (frames 200..250 are in both)"),
        (("10:50:0.5", "20:30:2"), "'10:50:0.5' and '20:30:2' overlap (frames 20..30 are in both)"),
        (
            ("150:199:0.4", "200:300:2"),
            "'150:199:0.4' and '200:300:2' touch (200:300:2 starts on frame 200, "
            "where the light of 150:199:0.4 comes back)",
        ),
    ],
)
def test_overlapping_or_touching_switches_are_refused_naming_both(specs, message):
    from silkvision.evaluation.light_switch import check_disjoint

    with pytest.raises(ConfigError) as e:
        check_disjoint([LightSwitch.parse(s) for s in specs])
    assert str(e.value).startswith(
        f"--light-switch {message}; expected switches with at least one frame of normal light between them"
    )


def test_switches_with_normal_light_between_them_are_accepted():
    from silkvision.evaluation.light_switch import check_disjoint

    check_disjoint([LightSwitch.parse("201:300:2"), LightSwitch.parse("150:199:0.4")])
    check_disjoint([])


def test_recovery_in_the_last_window_and_at_the_tolerance_edge():
    """Two boundaries no test pinned: a detector that recovers only in the last smoothing window
    before the search ends, and an F exactly ``tolerance`` below the reference (both recover)."""
    good, bad = [9, 1, 1, 89], [1, 1, 9, 89]  # per-frame F 0.9 and 0.167
    counts = np.array([good] * 10 + [bad] * 27 + [good] * 3)
    r = recovery_report(
        np.arange(1, 41), counts, [LightSwitch(11, 40, 0.5)], window=100, smoothing=3, last_frame=40
    )[0]
    assert (r["f_reference"], r["recovery_frames"], r["searched_frames"]) == (0.9, 27, 30)
    counts = np.array([[1, 0, 0, 99]] * 10 + [[1, 1, 1, 97]] * 10)  # F 1.0, then exactly 0.5
    r = recovery_report(
        np.arange(1, 21),
        counts,
        [LightSwitch(11, 20, 0.5)],
        window=100,
        tolerance=0.5,
        smoothing=1,
        last_frame=20,
    )[0]
    assert (r["f_reference"], r["recovery_frames"]) == (1.0, 0)
