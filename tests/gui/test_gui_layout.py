"""The window on a small screen: it fits 1280x800 and 1024x768, every parameter can be reached,
the ground truth shows on open, no image slot stays empty, the ROC's FPR axis is logarithmic, and
the object boxes are drawn on the input."""

from __future__ import annotations

import numpy as np
import pytest

from .gui_helpers import open_and_run

SIZES = [(1280, 800), (1024, 768)]


def _shown_at(qtbot, win, size):
    win.show()
    win.resize(*size)
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: (win.width(), win.height()) == size, timeout=5000)
    qtbot.wait(50)


def test_the_default_size_fits_a_1280x800_screen():
    from silkvision.gui.main_window import DEFAULT_SIZE

    # with a title bar (about 30 px), a frame and a desktop panel (about 30 px)
    assert DEFAULT_SIZE[0] + 10 <= 1280 and DEFAULT_SIZE[1] + 60 <= 800


def _reach(scroll, w) -> None:
    """Scroll to ``w`` (its centre, with room for all of it) and check that it is seen whole."""
    g = w.geometry()
    scroll.ensureVisible(g.center().x(), g.center().y(), 0, g.height() // 2 + 2)
    rect = w.rect().translated(w.mapTo(scroll.viewport(), w.rect().topLeft()))
    port = scroll.viewport().rect()
    assert port.contains(rect), f"{w}: {rect} not inside {port}"


@pytest.mark.parametrize("size", SIZES)
def test_window_fits_and_every_parameter_is_reachable(qtbot, make_window, sample_seq, size):
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=10_000):
        win.open_source(sample_seq)
    _shown_at(qtbot, win, size)
    hint = win.minimumSizeHint()
    assert hint.width() <= size[0] and hint.height() <= size[1]
    assert win.frameGeometry().width() <= size[0] + 20
    for tab, role in enumerate(("silk", "second")):
        win.tabs.setCurrentIndex(tab)
        qtbot.wait(20)
        scroll = win.tabs.currentWidget()
        panel = win.panels[role]
        assert scroll.widget() is panel and len(panel.editors) >= 4
        assert scroll.horizontalScrollBar().maximum() == 0, "the panel is cut at the side"
        for editor in panel.editors.values():
            for w in (editor, panel.form.labelForField(editor)):
                _reach(scroll, w)
        _reach(scroll, panel.apply_button)


def test_ground_truth_is_shown_on_open(qtbot, make_window, sample_seq):
    from silkvision.capture import open_source

    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=10_000):
        win.open_source(sample_seq)
    with open_source(sample_seq) as src:
        first = src.temporal_roi[0]  # frames before it are all "outside ROI" (flat grey)
        want = src.groundtruth(first)
    gt = win.views["gt"]
    assert win.result is None and gt.array is not None
    np.testing.assert_array_equal(gt.array, want)
    assert gt.title.full_text == f"Ground truth (frame {first})"
    assert "gt" in win.shown and gt.canvas.image is not None
    win.step()
    qtbot.waitUntil(lambda: win.result is not None, timeout=10_000)
    assert gt.title.full_text == "Ground truth" and gt.array is win.result.gt


@pytest.mark.parametrize("scores, overlay", [(True, False), (False, False), (True, True), (False, True)])
def test_no_image_slot_stays_empty(qtbot, make_window, sample_seq, scores, overlay):
    from silkvision.gui.main_window import GRID_SPAN, grid_cells

    win = make_window({"gui": {"show_scores": scores, "show_overlay": overlay}})
    with qtbot.waitSignal(win.worker.opened, timeout=10_000):
        win.open_source(sample_seq)
    _shown_at(qtbot, win, SIZES[0])
    n = len(win.shown)
    assert n == 3 + scores + overlay + 1  # input, two masks, ground truth
    rows: dict[int, int] = {}
    for name in win.shown:
        row, _, _, span = win.grid.getItemPosition(win.grid.indexOf(win.views[name]))
        rows[row] = rows.get(row, 0) + span
        assert win.views[name].isVisible()
    assert set(rows.values()) == {GRID_SPAN}, rows  # every row filled from edge to edge
    assert len(grid_cells(n)) == n


def test_roc_fpr_axis_is_logarithmic_with_a_linear_switch(qtbot, make_window, sample_seq):
    win = make_window(max_frames=12)
    r = open_and_run(qtbot, win, sample_seq, frames=12)
    plot = win.roc_plot
    assert win.log_fpr_check.isChecked() and plot.log_fpr
    fpr = r.roc["silk"].point[0]
    assert plot.points["silk"].getData()[0][0] == pytest.approx(np.log10(fpr))
    win.log_fpr_check.setChecked(False)
    assert not plot.log_fpr and plot.points["silk"].getData()[0][0] == pytest.approx(fpr)
    assert plot.fpr_range()[0] <= 0


def test_object_boxes_are_drawn_on_the_input(qtbot, make_window, sample_seq):
    from silkvision.objects import find_regions

    win = make_window(max_frames=12)
    r = open_and_run(qtbot, win, sample_seq, frames=12)
    assert win.views["input"].array is r.frame
    win.boxes_check.setChecked(True)
    shown = win.views["input"].array
    regions = find_regions(r.masks["silk"], win.config["export"]["min_area"])
    assert regions and shown is not r.frame and shown.shape == r.frame.shape
    green = np.all(shown == (0, 255, 0), axis=2)
    for reg in regions:  # the box's corners are drawn
        assert green[reg.y, reg.x] and green[reg.y + reg.height - 1, reg.x + reg.width - 1]
    boxed = np.zeros(green.shape[0], bool)
    for reg in regions:
        boxed[reg.y : reg.y + reg.height] = True
    assert not green[~boxed].any()  # nothing drawn outside the boxes' rows
    assert win.views["input"].title.full_text.startswith(f"Input: {len(regions)} object")
    win.boxes_check.setChecked(False)
    assert win.views["input"].array is r.frame and win.views["input"].title.full_text == "Input"
