"""The float spin boxes of the parameter panel and of the SILK threshold: they show and take any
float the schema allows, and the panel never reports (or applies) a change the user did not make."""

from __future__ import annotations

import pytest

from .gui_helpers import type_into


def live(win, role):
    name = "silk" if role == "silk" else win.pipeline.second
    return win.pipeline.detectors[name].get_params()


# -- typed text: scientific notation, no silent other number -----------------------------------------
def test_typed_scientific_notation_is_taken_and_a_decimal_comma_is_refused(qtbot, make_window):
    win = make_window()
    silk = win.panels["silk"].editors
    for key, text, value in (
        ("tau", "5e-4", 5e-4),
        ("rho", "1e-3", 1e-3),
        ("C", "0.00005", 5e-5),
        ("sigma", "0.000001", 1e-6),
        ("sigma", "200000", 2e5),
        ("warmup", "2000000", 2_000_000),
        ("threshold", ".5", 0.5),
        ("tau", "1E-7", 1e-7),
    ):
        type_into(qtbot, silk[key], text)
        assert win.panels["silk"].value(key) == value, (key, text)
    assert float(silk["tau"].text()) == 1e-7
    # refused as a whole, never read as another number: 1,5 is not 15, 1e- is not 1
    for key, text in (("threshold", "1,5"), ("rho", "1e-"), ("tau", "0"), ("kappa", "1.5")):
        before = win.panels["silk"].value(key)
        type_into(qtbot, silk[key], text)
        assert win.panels["silk"].value(key) == before and float(silk[key].text()) == before, (key, text)
    # letters are refused key by key: the text stays as it was
    assert type_into(qtbot, silk["rho"], "abc") == "0.001"
    assert win.panels["silk"].apply() == {
        "tau": 1e-7,
        "rho": 1e-3,
        "C": 5e-5,
        "sigma": 2e5,
        "warmup": 2_000_000,
        "threshold": 0.5,
    }
    qtbot.waitUntil(lambda: win.detectors["silk"].params["tau"] == 1e-7, timeout=5000)
    assert live(win, "silk")["sigma"] == 2e5 and live(win, "silk")["warmup"] == 2_000_000
    # text typed without Enter counts on Apply (clicking a button may leave the focus in the box)
    silk = win.panels["silk"].editors  # rebuilt with the applied values
    silk["rho"].lineEdit().selectAll()
    qtbot.keyClicks(silk["rho"].lineEdit(), "2e-3")
    assert win.panels["silk"].apply() == {"rho": 2e-3}


def test_arrows_step_by_decades_without_float_noise():
    from silkvision.gui.widgets.float_spin import step_value

    assert [step_value(0.45, s, 0.01) for s in (1, -1, 3)] == [0.46, 0.44, 0.48]
    assert step_value(1.0, -1, 0.01) == 0.99 and step_value(0.1, -1, 0.01) == 0.099
    assert step_value(8e-6, 1, 0.01) == 8.1e-6 and step_value(200.0, 1, 0.01) == 210.0
    assert step_value(0.0, 1, 0.01) == 0.01


# -- live values the old 4..15-decimal boxes rounded -----------------------------------------------
def test_tiny_live_values_are_shown_and_apply_sends_only_the_edited_key(qtbot, make_window):
    win = make_window({"detector": {"silk": {"tau": 1e-16, "threshold": 1e-17}, "norma": {"lambda": 1e-18}}})
    silk, norma = win.panels["silk"], win.panels["second"]
    assert silk.editors["tau"].text() == "1e-16" and silk.value("tau") == 1e-16
    assert silk.editors["threshold"].text() == "1e-17" and win.threshold_spin.text() == "1e-17"
    assert norma.value("lambda") == 1e-18
    assert silk.changed() == {} and norma.changed() == {}
    type_into(qtbot, silk.editors["rho"], "1.5")
    type_into(qtbot, norma.editors["nu"], "0.3")
    assert silk.apply() == {"rho": 1.5} and norma.apply() == {"nu": 0.3}
    qtbot.waitUntil(
        lambda: win.detectors["silk"].params["rho"] == 1.5 and win.detectors["second"].params["nu"] == 0.3,
        timeout=5000,
    )
    assert win.errors == []
    assert live(win, "silk")["tau"] == 1e-16 and live(win, "silk")["threshold"] == 1e-17
    assert live(win, "second")["lambda"] == 1e-18


def test_threshold_from_the_slider_is_not_sent_by_apply_of_another_key(qtbot, make_window):
    win = make_window()
    panel = win.panels["silk"]
    for pos, rho in ((1, "1.5"), (3, "1.2"), (37, "1.1")):
        win.threshold_slider.setValue(pos)
        t = win.detectors["silk"].threshold
        assert 0 < t < 0.02
        # both boxes show the threshold in use, in text that reads back exactly
        assert win.threshold_spin.value() == t and float(win.threshold_spin.text()) == t
        assert panel.value("threshold") == t and float(panel.editors["threshold"].text()) == t
        assert panel.changed() == {}
        type_into(qtbot, panel.editors["rho"], rho)
        assert panel.apply() == {"rho": float(rho)}
        qtbot.waitUntil(lambda: win.detectors["silk"].params["rho"] == float(rho), timeout=5000)
        assert live(win, "silk")["threshold"] == t
    assert win.detectors["silk"].threshold == 0.01095  # slider thresholds: 4 significant digits


@pytest.mark.parametrize("threshold", [100.0, 2e-5])
def test_the_bottom_threshold_box_shows_a_threshold_outside_the_slider_range(qtbot, make_window, threshold):
    win = make_window({"detector": {"silk": {"threshold": threshold}}})
    lo, hi = win.detectors["silk"].score_range
    assert win.threshold_spin.value() == threshold == win.panels["silk"].value("threshold")
    assert win.threshold_slider.value() == (1000 if threshold > hi else 2)  # only the slider is clamped
    type_into(qtbot, win.threshold_spin, "50")  # beyond the score range: taken as typed
    qtbot.waitUntil(lambda: win.pipeline.silk.threshold == 50.0, timeout=5000)
    assert win.panels["silk"].value("threshold") == 50.0 and win.panels["silk"].changed() == {}


def test_arrows_step_from_typed_text_and_reach_zero(qtbot, make_window):
    """An arrow after typing steps from the typed value (as Qt's own boxes do), and stepping down
    reaches 0 where the range starts there; an unbounded end stops at 1e6 (C = 1e308 would overflow
    the score range)."""
    from PyQt5.QtCore import Qt

    win = make_window()
    box = win.threshold_spin
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "0.2")
    qtbot.keyClick(box, Qt.Key_Up)
    assert box.value() == pytest.approx(0.21)
    box.setValue(0.02)
    for _ in range(200):  # a tenth of the leading decade per step: 0.02, 0.019, ..., then 0
        box.stepBy(-1)
    assert box.value() == 0.0
    assert win.panels["silk"].editors["C"].maximum() == 1e6
