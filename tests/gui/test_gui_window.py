"""The main window driven with pytest-qt (offscreen): live ROC, threshold slider, parameters, errors,
recording, closing."""

from __future__ import annotations

import sys

import cv2
import numpy as np
import pytest

from silkvision.config import load_config
from silkvision.errors import SourceError
from silkvision.gui.pipeline import Pipeline

from .gui_helpers import FRAMES, START, binary, fpr_tpr, open_and_run, reference_run


@pytest.mark.slow
def test_live_roc_matches_evaluation_engine(qtbot, make_window, sample_seq):
    win = make_window(max_frames=FRAMES)
    r = open_and_run(qtbot, win, sample_seq)
    assert r.index == START + FRAMES - 1
    ref = reference_run(sample_seq, second="norma")
    assert r.roc["silk"].auc == pytest.approx(ref.roc.auc(), abs=1e-12)
    assert r.roc["norma"].auc == pytest.approx(ref.roc2.auc(), abs=1e-12)
    assert r.roc["silk"].point == pytest.approx(fpr_tpr(ref.roc.counts_at(ref.silk.threshold)))
    # the plot shows both curves and the operating points
    x, y = win.roc_plot.curves["silk"].getData()
    assert len(x) > 100 and np.all(np.diff(x) >= 0)
    assert len(win.roc_plot.curves["second"].getData()[0]) > 100
    assert win.roc_plot.points["silk"].xData[0] == pytest.approx(
        r.roc["silk"].point[0]
    )  # as given, not log10
    label = win.roc_plot.legend.getLabel(win.roc_plot.curves["silk"]).text
    assert "AUC" in label and "F scores" in label and "F mask" in label
    # every frame was either drawn or counted as skipped by the display
    assert win.drawn + win.worker.slot.skipped == FRAMES
    assert "fps" in win.stats_label.text() and f"frame {r.index} / 400" == win.frame_label.text()
    assert win.views["gt"].array is r.gt and win.views["silk"].array is r.masks["silk"]
    assert win.views["scores"].array.shape == (*r.scores.shape, 3)


@pytest.mark.parametrize("size", [(1024, 768), (800, 600)])
def test_the_roc_plot_and_its_legend_fit_a_small_window(qtbot, make_window, sample_seq, size):
    """At 1024x768 the one-line legend (364 px) was wider than the plot (351 px) and was cut, as
    were the title and the x-axis at 800x600."""
    win = make_window(max_frames=3)
    open_and_run(qtbot, win, sample_seq, frames=3)
    win.show()
    win.resize(*size)
    qtbot.waitUntil(lambda: win.width() <= max(size[0], win.minimumSizeHint().width()), timeout=5000)
    qtbot.wait(50)
    plot = win.roc_plot
    item = plot.getPlotItem()
    assert item.geometry().width() <= plot.viewport().width() + 1  # nothing cropped
    assert plot.legend.boundingRect().width() < item.vb.width()  # the legend fits the axes
    # a small screen can show it (850: the frame label is sized for the source's last frame, so
    # that it is never cut; with the sample that takes about 15 px more than the current frame)
    assert win.minimumSizeHint().width() <= 850


def test_threshold_slider_moves_mask_and_operating_point(qtbot, make_window, sample_seq):
    win = make_window(max_frames=12)
    before = open_and_run(qtbot, win, sample_seq, frames=12)
    seen = win.pipeline.silk.frames_seen
    win.threshold_slider.setValue(win.threshold_slider.value() + 150)
    t = win.detectors["silk"].threshold
    assert t > 0.36 and win.threshold_spin.value() == pytest.approx(t, abs=1e-4)
    qtbot.waitUntil(lambda: win.result.rethreshold and win.pipeline.silk.threshold == t, timeout=5000)
    after = win.result
    assert after.index == before.index and win.pipeline.silk.frames_seen == seen  # nothing re-run
    assert (after.masks["silk"] > 0).sum() > (before.masks["silk"] > 0).sum()
    np.testing.assert_array_equal(after.masks["silk"], win.pipeline.silk.mask_from_scores(before.scores, t))
    assert after.roc["silk"].point[1] >= before.roc["silk"].point[1]
    assert after.roc["silk"].point != before.roc["silk"].point
    assert win.views["silk"].array is after.masks["silk"]
    assert win.panels["silk"].value("threshold") == pytest.approx(t, abs=1e-4)
    # the legend says that the new threshold's F is read from the histogram's bins
    win.draw_now()
    label = win.roc_plot.legend.getLabel(win.roc_plot.curves["silk"]).text
    assert "F scores ≈" in label and before.roc["silk"].exact and not after.roc["silk"].exact


def test_parameter_edits_reach_the_detector(qtbot, make_window, sample_seq):
    from PyQt5.QtCore import Qt

    win = make_window(max_frames=6)
    open_and_run(qtbot, win, sample_seq, frames=6)
    panel = win.panels["silk"]
    panel.editors["tau"].setValue(0.02)
    panel.editors["conservative"].setChecked(False)
    qtbot.mouseClick(panel.apply_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: win.pipeline.silk.get_params()["tau"] == 0.02, timeout=5000)
    assert win.pipeline.silk.get_params()["conservative"] is False
    assert win.pipeline.processed == 6  # live change: no restart
    # a restart parameter restarts the detectors (and says so)
    panel = win.panels["silk"]
    panel.editors["omega"].setValue(10)
    panel.apply()
    # the new omega and the reset counters land in two steps of the worker: wait for all of them
    qtbot.waitUntil(
        lambda: (
            win.pipeline.silk.get_params()["omega"] == 10
            and win.pipeline.processed == 0
            and win.pipeline.silk.frames_seen == 0
        ),
        timeout=5000,
    )
    assert panel.form.labelForField(panel.editors["omega"]).text() == "omega *"
    assert "restarts the detector" in panel.form.labelForField(panel.editors["omega"]).toolTip()
    # the second algorithm's panel
    win.panels["second"].editors["eta"].setValue(0.2)
    win.panels["second"].apply()
    qtbot.waitUntil(lambda: win.pipeline.detectors["norma"].get_params()["eta"] == 0.2, timeout=5000)
    # a refused value combination gets a message naming the keys, and nothing changes
    before = win.pipeline.detectors["norma"].get_params()
    win.panels["second"].editors["eta"].setValue(5.0)
    win.panels["second"].editors["lambda"].setValue(0.5)
    assert win.panels["second"].apply() == {}
    assert "detector.norma.eta" in win.errors[-1]
    assert win.pipeline.detectors["norma"].get_params() == before


def test_second_algorithm_choice(qtbot, make_window, sample_seq):
    win = make_window(max_frames=8)
    with qtbot.waitSignal(win.worker.detectors_changed, timeout=5000):
        win.second_combo.setCurrentText("mog2")
    assert win.detectors["second"].name == "mog2" and win.views["second"].title.full_text == "MOG2 mask"
    r = open_and_run(qtbot, win, sample_seq, start=100, frames=8)
    assert "mog2" in r.masks and r.roc["mog2"].fpr is None and r.roc["mog2"].point is not None
    assert len(win.roc_plot.curves["second"].getData()[0] or []) == 0
    assert len(win.roc_plot.points["second"].getData()[0]) == 1


def test_bad_sources_show_a_message_and_the_app_keeps_running(qtbot, make_window, sample_seq, tmp_path):
    win = make_window(max_frames=3)
    missing = tmp_path / "missing.mp4"
    win.open_source(missing)
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert str(missing) in win.errors[0] and "\n" not in win.errors[0]
    corrupt = tmp_path / "corrupt.avi"
    corrupt.write_bytes(b"not a video" * 100)
    win.open_source(corrupt)
    qtbot.waitUntil(lambda: len(win.errors) == 2, timeout=5000)
    assert "corrupt.avi" in win.errors[1]
    win.play()  # nothing open: a message, no crash
    qtbot.waitUntil(lambda: len(win.errors) == 3, timeout=5000)
    assert "no source" in win.errors[2]
    assert "Error" in win.statusBar().currentMessage()
    open_and_run(qtbot, win, sample_seq, start=1, frames=3)  # still works


def test_missing_camera_gives_a_clear_message(qtbot, make_window):
    win = make_window(config={"capture": {"camera_timeout": 1.0}})
    win.open_source("9")
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=10_000)
    assert "camera 9" in win.errors[0]


class LostCamera:
    """A camera that delivers three frames, then stops."""

    kind, name, frame_count, first_index, seekable = "camera", "camera0", None, 1, False
    has_groundtruth, roi, temporal_roi = False, None, None

    def __init__(self):
        self.i = 0
        self.closed = False

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        if self.i > 3:
            raise SourceError(
                "camera 0: no frame within 5.0 s; expected a camera that keeps delivering frames"
            )
        return self.i, np.full((24, 32, 3), 10 * self.i, np.uint8)

    def close(self):
        self.closed = True


def test_camera_lost_mid_stream(qtbot, make_window, sample_seq):
    cams = []

    def opener(spec, **kw):
        if spec == "0":
            cams.append(LostCamera())
            return cams[-1]
        from silkvision.capture import open_source

        return open_source(spec, **kw)

    win = make_window(pipeline=Pipeline({}, second="mog2", opener=opener))
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source("0")
    assert not win.frame_slider.isEnabled()
    win.play()
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert "camera 0" in win.errors[0] and not win.playing
    assert win.result.index == 3 and win.worker_thread.isRunning()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    assert cams[0].closed


def test_save_and_load_parameters(qtbot, make_window, tmp_path):
    win = make_window()
    win.apply_params("silk", {"tau": 0.03})
    qtbot.waitUntil(lambda: win.detectors["silk"].params["tau"] == 0.03, timeout=5000)
    path = win.save_params(tmp_path / "params.yaml")
    cfg = load_config(path, use_cwd=False)
    assert cfg["detector"]["silk"]["tau"] == 0.03 and cfg["gui"]["second_algorithm"] == "norma"
    (tmp_path / "other.yaml").write_text(
        "detector:\n  silk:\n    tau: 0.05\n    omega: 12\ngui:\n  second_algorithm: knn\n"
    )
    assert win.load_params(tmp_path / "other.yaml")
    qtbot.waitUntil(lambda: win.detectors["second"].name == "knn", timeout=5000)
    assert win.pipeline.silk.get_params()["tau"] == 0.05 and win.pipeline.silk.get_params()["omega"] == 12
    assert win.panels["silk"].value("omega") == 12 and win.second_combo.currentText() == "knn"
    # bad files: a message naming the file (and the key), nothing changes
    bad = tmp_path / "bad.yaml"
    bad.write_text("detector: [unclosed\n")
    assert not win.load_params(bad)
    assert "bad.yaml" in win.errors[-1] and "YAML" in win.errors[-1]
    bad.write_text("detector:\n  silk:\n    tau: 2\n")
    assert not win.load_params(bad)
    assert "detector.silk.tau" in win.errors[-1]
    assert win.detectors["silk"].params["tau"] == 0.05


def test_record_masks_and_snapshot(qtbot, make_window, sample_seq, tmp_path):
    from PyQt5.QtGui import QImage

    win = make_window(max_frames=3)
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.start_recording(tmp_path / "rec")
    with qtbot.waitSignal(win.worker.ended, timeout=30_000):
        win.seek(200)
        win.play()
    win.draw_now()
    silk_dir = tmp_path / "rec" / "silk"
    assert sorted(p.name for p in silk_dir.glob("bin*.png")) == [
        "bin000200.png",
        "bin000201.png",
        "bin000202.png",
    ]
    assert (tmp_path / "rec" / "norma" / "bin000202.png").is_file()
    saved = cv2.imread(str(silk_dir / "bin000202.png"), cv2.IMREAD_UNCHANGED)
    assert binary(saved)
    np.testing.assert_array_equal(saved, win.result.masks["silk"])
    assert load_config(silk_dir / "config.yaml", use_cwd=False)["detector"]["algorithm"] == "silk"
    # the threshold slider rewrites the shown frame's recorded mask
    win.set_threshold(1.0)
    qtbot.waitUntil(lambda: win.result.rethreshold, timeout=5000)
    qtbot.waitUntil(
        lambda: np.array_equal(
            cv2.imread(str(silk_dir / "bin000202.png"), cv2.IMREAD_UNCHANGED), win.result.masks["silk"]
        ),
        timeout=5000,
    )
    win.stop_recording()
    snap = tmp_path / "snap.png"
    assert win.save_snapshot(snap)
    img = QImage(str(snap))
    assert img.width() == win.width() and img.height() == win.height()
    assert not win.save_snapshot(tmp_path / "no-such-folder" / "x.png")
    assert "no-such-folder" in win.errors[-1] and "No such file or directory" in win.errors[-1]
    if sys.platform != "win32":  # Qt named files by the locale: a name that is not UTF-8 failed
        import os

        odd = tmp_path / os.fsdecode(b"snap\xe9.png")
        assert win.save_snapshot(odd)
        assert os.fsencode(odd.name) in os.listdir(os.fsencode(tmp_path))
        shot = cv2.imdecode(np.frombuffer(odd.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
        assert shot.shape == (win.height(), win.width(), 3)
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_step_seek_restart_and_recent_list(qtbot, make_window, sample_seq):
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    assert win.frame_slider.isEnabled() and win.frame_slider.maximum() == 400
    assert win.recent_sources()[0] == str(sample_seq.resolve())
    assert win.recent_menu.actions()[0].text() == str(sample_seq.resolve())
    win.step()
    qtbot.waitUntil(lambda: win.result is not None and win.result.index == 1, timeout=10_000)
    win.step()
    qtbot.waitUntil(lambda: win.result.index == 2, timeout=5000)
    win.seek(150)
    qtbot.waitUntil(lambda: win.result.index == 150, timeout=5000)
    assert win.result.processed == 1 and win.frame_slider.value() == 150
    win.restart()
    qtbot.waitUntil(lambda: win.result.index == 1, timeout=5000)
    assert win.result.processed == 1


def test_closing_stops_the_worker(qtbot, make_window, sample_seq):
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.play()
    qtbot.waitUntil(lambda: win.result is not None and win.result.processed >= 3, timeout=10_000)
    src = win.pipeline.src
    win.close()
    assert win.worker_thread.isFinished()
    assert win.pipeline.src is None and src._closed
    assert not win.display_timer.isActive()


@pytest.mark.parametrize("show_overlay", [True, False])
def test_view_toggles(qtbot, make_window, show_overlay):
    win = make_window(config={"gui": {"show_overlay": show_overlay, "show_scores": False}})
    assert ("overlay" in win.shown) is show_overlay and "scores" not in win.shown
    win.scores_action.trigger()
    assert "scores" in win.shown


def test_frames_limit_pauses_once_then_play_continues(qtbot, make_window, sample_seq):
    win = make_window(max_frames=2)
    open_and_run(qtbot, win, sample_seq, start=100, frames=2)
    assert not win.playing
    win.play()
    qtbot.waitUntil(lambda: win.result is not None and win.result.processed >= 4, timeout=10_000)
    win.pause()
    qtbot.waitUntil(lambda: not win.playing, timeout=5000)
    indices = win.result.index, win.result.processed
    assert indices[0] == 100 + indices[1] - 1  # consecutive: no frame skipped or repeated


def test_parameter_editors_hold_the_defaults_exactly(qtbot, make_window, sample_seq):
    """A spin box with too few decimals would round tau = 0.000503 to 0.0005 and apply that."""
    win = make_window(max_frames=2)
    open_and_run(qtbot, win, sample_seq, frames=2)
    panel = win.panels["silk"]
    params = win.pipeline.silk.get_params()
    for key in ("tau", "kappa", "warmup_kappa", "C", "sigma", "threshold"):
        assert panel.value(key) == params[key], key
    assert panel.changed() == {}
    panel.editors["omega"].setValue(params["omega"])
    assert panel.changed() == {}


def test_float_text_is_the_shortest_exact_text():
    from silkvision.gui.widgets.float_spin import float_text

    cases = {
        0.45: "0.45",
        0.000503: "0.000503",
        8.0: "8",
        2e6: "2000000",
        5e-5: "5e-5",
        1e-16: "1e-16",
        1e300: "1e300",
        0.010951999999999998: "0.010951999999999998",
        0.0: "0",
    }
    for value, text in cases.items():
        assert float_text(value) == text and float(text) == value
