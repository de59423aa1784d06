"""The parameter panel on its own: what it shows after an Apply, a re-announcement, or a value
outside the range its editor offers."""

from __future__ import annotations

import pytest

import silkvision as sv


@pytest.fixture
def panel(qtbot):
    from silkvision.gui.widgets.param_panel import ParamPanel

    p = ParamPanel("silk")
    qtbot.addWidget(p)
    params = sv.create_subtractor("silk").get_params()
    p.set_params("silk", params, frozenset({"omega"}))
    return p, params


def test_a_refused_apply_is_reverted_to_the_workers_answer(qtbot, panel):
    """Apply sends the typed value; the worker refuses it and announces the old values again: the
    panel must show those, not keep the refused value as if it were live."""
    p, params = panel
    p.editors["C"].setValue(0.8)
    with qtbot.waitSignal(p.apply_requested) as sent:
        p.apply()
    assert sent.args == ["silk", {"C": 0.8}]
    p.set_params("silk", params, frozenset({"omega"}))  # the answer: unchanged values
    assert p.changed() == {} and p.editors["C"].value() == params["C"]


def test_after_an_answered_apply_a_redundant_announcement_keeps_typed_values(qtbot, panel):
    p, params = panel
    p.editors["C"].setValue(0.8)
    p.apply()
    p.set_params("silk", {**params, "C": 0.8}, frozenset({"omega"}))  # accepted
    editor = p.editors["C"]
    editor.setValue(0.9)  # typed, not applied
    p.set_params("silk", {**params, "C": 0.8}, frozenset({"omega"}))  # the same values again
    assert p.editors["C"] is editor and p.changed() == {"C": 0.9}


def test_a_live_value_outside_the_offered_range_is_not_a_change(panel):
    """A valid value below the smallest one an editor offers (C = 1e-310) is shown as it is, and an
    Apply without edits sends nothing."""
    p, params = panel
    p.set_params("silk", {**params, "C": 1e-310, "tau": 1e-300}, frozenset({"omega"}))
    assert p.changed() == {}
    assert p.apply() == {}


def test_a_new_restart_set_updates_the_marks(panel):
    p, params = panel
    label = p.form.labelForField(p.editors["tau"])
    assert label.text() == "tau"
    p.set_params("silk", params, frozenset({"omega", "tau"}))
    assert p.form.labelForField(p.editors["tau"]).text() == "tau *"
