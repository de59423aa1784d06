"""The window keeps a consistent state after refusals and source changes (the GUI seen from
outside): refused settings leave the old state and no traceback, stale content is cleared, Record and
the panels show what the worker really does, closing does not wait for a stalled camera."""

from __future__ import annotations

import shutil
import threading
import time

import numpy as np
import pytest

from silkvision.errors import ConfigError, ExportError, SourceError
from silkvision.gui.pipeline import Pipeline

from .gui_helpers import open_and_run


class FakeSource:
    """A small in-memory source: ``n`` grey frames, ground truth for the first ``gt_frames`` only;
    with ``block`` set, reading frame ``block`` waits (like a stalled camera) until ``release`` is
    set or ``timeout`` passes, then raises."""

    kind, name, first_index, seekable = "video", "fake", 1, False
    roi, temporal_roi, frame_size = None, None, (32, 24)

    def __init__(self, n=6, gt_frames=None, block=None, timeout=4.0):
        self.n, self.gt_frames, self.block, self.timeout = n, gt_frames, block, timeout
        self.frame_count = n
        self.has_groundtruth = gt_frames is not None
        self.i = 0
        self.release = threading.Event()
        self.interrupted = False

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        if self.block is not None and self.i >= self.block:
            self.release.wait(self.timeout)
            if self.interrupted:
                raise StopIteration
            raise SourceError("fake: no frame within 4 s (capture.camera_timeout)")
        if self.i > self.n:
            raise StopIteration
        frame = np.full((24, 32, 3), 20, np.uint8)
        frame[8:16, 8 + self.i : 16 + self.i] = 200
        return self.i, frame

    def check_groundtruth(self):  # as Source.check_groundtruth: the masks are the frames' size
        pass

    def groundtruth(self, index):
        if index > self.gt_frames:
            return None
        gt = np.zeros((24, 32), np.uint8)
        gt[8:16, 8 + index : 16 + index] = 255
        return gt

    def close(self):
        self.release.set()

    def interrupt(self):  # as CameraSource.interrupt: a waiting read ends the stream at once
        self.interrupted = True
        self.release.set()


def fake_pipeline(source, second="mog2"):
    return Pipeline({}, second=second, opener=lambda spec, **kw: source)


def no_traceback(capfd):
    err = capfd.readouterr().err
    assert "Traceback" not in err, err


# -- 1. a configuration that cannot be applied leaves the old state --------------------------------
def test_configure_is_all_or_nothing():
    made = []

    def factory(name, config=None, **kw):
        if name == "gsoc":
            raise ConfigError("algorithm 'gsoc' needs opencv-contrib (cv2.bgsegm), which is not installed")
        from silkvision.detector import create_subtractor

        made.append(name)
        return create_subtractor(name, config=config, **kw)

    pipe = Pipeline({}, factory=factory)
    before = dict(pipe.detectors)
    with pytest.raises(ConfigError, match="gsoc"):
        pipe.configure({"detector": {"silk": {"tau": 0.02}}, "gui": {"second_algorithm": "gsoc"}})
    with pytest.raises(ConfigError, match="gsoc"):
        pipe.set_second("gsoc")
    assert pipe.second == "norma" and pipe.detectors == before
    assert (
        pipe.config["gui"]["second_algorithm"] == "norma" and pipe.config["detector"]["silk"]["tau"] != 0.02
    )
    pipe.set_params("norma", {"median": 3})  # still usable: no KeyError


def test_loading_an_unavailable_second_algorithm_is_refused(qtbot, make_window, tmp_path, monkeypatch, capfd):
    import silkvision.detector

    monkeypatch.setattr(
        silkvision.detector, "available_subtractors", lambda: ["silk", "norma", "mog2", "knn"]
    )
    win = make_window()
    path = tmp_path / "gsoc.yaml"
    path.write_text("detector:\n  silk:\n    tau: 0.02\ngui:\n  second_algorithm: gsoc\n")
    assert not win.load_params(path)
    assert "gui.second_algorithm: 'gsoc'" in win.errors[-1] and "gsoc.yaml" in win.errors[-1]
    assert win.config["gui"]["second_algorithm"] == "norma"
    win.apply_params("second", {"median": 3})
    qtbot.waitUntil(lambda: win.detectors["second"].params["median"] == 3, timeout=5000)
    assert win.pipeline.second == "norma" and len(win.errors) == 1
    assert win.pipeline.silk.get_params()["tau"] != 0.02
    no_traceback(capfd)


def test_a_shared_mask_key_set_on_either_tab_applies_to_both_detectors():
    """median/close/fill_holes/colour_space are one key each in the configuration: an edit on the
    second tab used to change only that detector, so Save and a recording's config.yaml described
    other masks than those shown."""
    pipe = Pipeline({}, second="norma")
    pipe.set_params("norma", {"median": 0, "fill_holes": False})
    for d in pipe.detectors.values():
        assert d.get_params()["median"] == 0 and d.get_params()["fill_holes"] is False
    assert pipe.config["detector"]["median"] == 0 and pipe.config["detector"]["fill_holes"] is False
    assert pipe.set_params("silk", {"colour_space": "lab"})  # a restart key: both restart
    assert pipe.detectors["norma"].get_params()["colour_space"] == "lab"
    assert pipe.config["detector"]["colour_space"] == "lab"
    pipe = Pipeline({}, second="mog2")  # MOG2 has no colour space
    pipe.set_params("silk", {"colour_space": "gray", "close": 3})
    mog2 = pipe.detectors["mog2"].get_params()
    assert mog2["close"] == 3 and "colour_space" not in mog2
    pipe.set_params("mog2", {"median": 3})
    assert pipe.silk.get_params()["median"] == 3 and pipe.config["detector"]["median"] == 3


def test_saved_parameters_give_back_a_second_tab_edit(qtbot, make_window, tmp_path):
    import yaml

    win = make_window()
    win.apply_params("second", {"median": 0, "close": 0})
    qtbot.waitUntil(lambda: win.detectors["silk"].params["median"] == 0, timeout=5000)
    assert win.detectors["second"].params["close"] == 0
    assert win.panels["silk"].value("median") == 0  # the SILK tab follows
    saved = yaml.safe_load(win.save_params(tmp_path / "p.yaml").read_text())
    assert saved["detector"]["median"] == 0 and saved["detector"]["close"] == 0


def _small_cdnet(root, sample_seq, n=6):
    for sub in ("input", "groundtruth"):
        (root / sub).mkdir(parents=True)
    for i in range(1, n + 1):
        shutil.copy(sample_seq / "input" / f"in{i:06d}.jpg", root / "input")
        shutil.copy(sample_seq / "groundtruth" / f"gt{i:06d}.png", root / "groundtruth")
    shutil.copy(sample_seq / "ROI.bmp", root)
    (root / "temporalROI.txt").write_text(f"1 {n}\n")
    return root


def test_a_roi_of_the_wrong_size_is_refused_when_the_source_opens(tmp_path, sample_seq):
    import cv2

    seq = _small_cdnet(tmp_path / "seq", sample_seq)
    cv2.imwrite(str(seq / "ROI.bmp"), np.full((100, 100), 255, np.uint8))
    pipe = Pipeline({}, second="mog2")
    with pytest.raises(SourceError, match=r"ROI\.bmp: ROI is 100x100 but the frames are 320x240"):
        pipe.open(seq)
    assert pipe.src is None


def test_a_corrupt_ground_truth_mask_leaves_its_frame_out_entirely(tmp_path, sample_seq):
    """It used to be learned by the detectors but never shown, counted or recorded."""
    seq = _small_cdnet(tmp_path / "seq", sample_seq)
    (seq / "groundtruth" / "gt000003.png").write_bytes(b"not a png")
    pipe = Pipeline({}, second="mog2")
    pipe.open(seq)
    assert [pipe.step().index for _ in range(2)] == [1, 2]
    with pytest.raises(SourceError, match=r"gt000003\.png: cannot decode.*frame 3 was left out"):
        pipe.step()
    assert pipe.silk.frames_seen == 2 and pipe.processed == 2  # not learned
    r = pipe.step()
    assert r.index == 4 and r.processed == 3 and pipe.silk.frames_seen == 3


def _lossy(path):
    import cv2

    gt = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    gt[:40, :40] = np.arange(1600, dtype=np.uint8).reshape(40, 40) % 7 + 1  # as JPEG ringing would
    cv2.imwrite(str(path), gt)


def test_lossy_ground_truth_is_refused_at_open_or_leaves_its_frame_out(tmp_path, sample_seq):
    """A JPEG-saved ground truth was accepted at open; then every frame was learned and then
    failed with "ground truth: labels ..." naming no file."""
    from silkvision.errors import DataError

    seq = _small_cdnet(tmp_path / "seq", sample_seq)
    _lossy(seq / "groundtruth" / "gt000001.png")
    pipe = Pipeline({}, second="mog2")
    with pytest.raises(DataError, match=r"gt000001\.png: labels 1, 2, 3, .* are not CDnet labels"):
        pipe.open(seq)
    assert pipe.src is None
    seq2 = _small_cdnet(tmp_path / "seq2", sample_seq)
    _lossy(seq2 / "groundtruth" / "gt000003.png")
    pipe.open(seq2)
    assert [pipe.step().index for _ in range(2)] == [1, 2]
    with pytest.raises(
        SourceError,
        match=r"gt000003\.png: labels 1, .* are not CDnet labels.*frame 3 was "
        r"left out \(not learned or shown\)",
    ):
        pipe.step()
    assert pipe.silk.frames_seen == 2 and pipe.processed == 2
    assert pipe.step().index == 4


# -- 2. NORMA's eta * lambda >= 1 is refused by the config layer, everywhere ----------------------
def test_norma_eta_lambda_product_is_refused_in_the_panel_the_worker_and_yaml(
    qtbot, make_window, tmp_path, capfd
):
    win = make_window()
    panel = win.panels["second"]
    panel.editors["eta"].setValue(50.0)
    assert panel.apply() == {}
    assert "detector.norma.eta" in win.errors[-1] and "detector.norma.lambda" in win.errors[-1]
    assert panel.value("eta") == 0.1 and panel.changed() == {}  # the panel shows the live value again
    # sent past the panel: the worker refuses it with the user's key name, no traceback
    win.apply_params("second", {"lambda": 19.0})
    qtbot.waitUntil(lambda: len(win.errors) == 2, timeout=5000)
    assert "lambda" in win.errors[-1] and "lam:" not in win.errors[-1]
    assert win.pipeline.detectors["norma"].get_params()["lambda"] == 0.1
    assert win.panels["second"].value("lambda") == 0.1
    path = tmp_path / "product.yaml"
    path.write_text("detector:\n  norma:\n    eta: 1000000.0\n")
    assert not win.load_params(path)
    assert "detector.norma.eta, detector.norma.lambda" in win.errors[-1] and "product.yaml" in win.errors[-1]
    assert win.config["detector"]["norma"]["eta"] == 0.1
    no_traceback(capfd)


# -- 3. Record into a folder that cannot be written ------------------------------------------------
def test_record_into_an_unwritable_folder_leaves_record_off(qtbot, make_window, tmp_path):
    win = make_window()
    (tmp_path / "file.txt").write_text("not a folder")
    win.start_recording(tmp_path / "file.txt" / "rec")
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    qtbot.waitUntil(lambda: not win.record_action.isChecked(), timeout=5000)
    assert "cannot create the recording folder" in win.errors[0]
    assert win.recording is None and win.pipeline.recorder is None


def test_record_chosen_before_any_source_records_the_first_one(qtbot, make_window, tmp_path, sample_seq):
    """Opening *another* source stops a recording; the first source opened is recorded (the
    recording used to be switched off silently)."""
    win = make_window()
    win.start_recording(tmp_path / "rec")
    qtbot.waitUntil(lambda: win.pipeline.recorder is not None, timeout=5000)
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.step()
    qtbot.waitUntil(lambda: (tmp_path / "rec" / "silk" / "bin000001.png").exists(), timeout=5000)
    assert win.record_action.isChecked() and win.pipeline.recorder is not None


def test_a_failed_mask_write_stops_the_recording(tmp_path):
    pipe = fake_pipeline(FakeSource(n=4))
    pipe.open("fake")
    pipe.start_recording(tmp_path / "rec")
    pipe.step()
    shutil.rmtree(tmp_path / "rec" / "silk")
    (tmp_path / "rec" / "silk").write_text("now a file")  # the folder went away (disk, user)
    with pytest.raises(ExportError):
        pipe.step()
    assert pipe.recorder is None
    # the frame whose write failed was still fully processed: counted and kept as the last result
    assert pipe.processed == 2 and pipe.last.index == 2
    assert pipe.step().index == 3  # no retry of the write every frame


# -- 4. the slider's threshold survives "Compare with" ---------------------------------------------
def test_threshold_set_with_the_slider_survives_compare_with(qtbot, make_window):
    win = make_window()
    win.set_threshold(0.7)
    qtbot.waitUntil(lambda: win.pipeline.silk.threshold == 0.7, timeout=5000)
    assert win.pipeline.config["detector"]["silk"]["threshold"] == 0.7
    with qtbot.waitSignal(win.worker.detectors_changed, timeout=5000):
        win.second_combo.setCurrentText("mog2")
    assert win.pipeline.second == "mog2" and win.pipeline.silk.threshold == 0.7
    assert win.detectors["silk"].threshold == 0.7 and win.threshold_spin.value() == 0.7


# -- 5. Clear ROC while paused redraws at once -----------------------------------------------------
def test_clear_roc_while_paused_redraws_at_once(qtbot, make_window, sample_seq):
    win = make_window(max_frames=8)
    open_and_run(qtbot, win, sample_seq, start=100, frames=8)
    assert len(win.roc_plot.curves["silk"].getData()[0]) > 0
    win.reset_roc_button.click()
    qtbot.waitUntil(lambda: win.result.roc["silk"].frames == 0, timeout=5000)
    x, _ = win.roc_plot.curves["silk"].getData()
    assert x is None or len(x) == 0
    assert "(0 frames)" in win.roc_plot.getPlotItem().titleLabel.text
    label = win.roc_plot.legend.getLabel(win.roc_plot.curves["silk"]).text
    assert "AUC" not in label and "no frame with ground truth yet" in label
    assert win.result.index == 107  # nothing re-run


# -- 6. opening another source clears the old content ----------------------------------------------
def test_opening_another_source_clears_the_views(qtbot, make_window, sample_seq):
    from silkvision.capture import open_source

    def opener(spec, **kw):  # "fake" opens, but its first frame cannot be read
        return FakeSource(n=6, block=1, timeout=0.0) if spec == "fake" else open_source(spec, **kw)

    win = make_window(max_frames=4, pipeline=Pipeline({}, opener=opener))
    open_and_run(qtbot, win, sample_seq, start=100, frames=4)
    assert "AUC" in win.roc_plot.legend.getLabel(win.roc_plot.curves["silk"]).text
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source("fake")
    assert win.windowTitle() == "silkvision - fake"
    assert all(v.array is None for v in win.views.values())
    assert win.frame_label.text() == "frame - / 6" and win.stats_label.text() == ""
    label = win.roc_plot.legend.getLabel(win.roc_plot.curves["silk"]).text
    assert "AUC" not in label and "frames)" not in win.roc_plot.getPlotItem().titleLabel.text
    x, _ = win.roc_plot.curves["silk"].getData()
    assert x is None or len(x) == 0
    win.step()  # the first frame fails: the title and the (empty) views still agree
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert "fake: no frame" in win.errors[0]
    assert win.windowTitle() == "silkvision - fake" and win.views["input"].array is None


# -- 7. the ground truth runs out --------------------------------------------------------------------
def test_frames_after_the_ground_truth_show_an_empty_gt_panel(qtbot, make_window):
    win = make_window(pipeline=fake_pipeline(FakeSource(n=6, gt_frames=2)))
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source("fake")
    for i in (1, 2):
        win.step()
        qtbot.waitUntil(lambda: win.result is not None and win.result.index == i, timeout=5000)
    assert win.views["gt"].array is win.result.gt
    win.step()
    qtbot.waitUntil(lambda: win.result.index == 3, timeout=5000)
    assert win.views["gt"].array is None
    assert "no ground truth for this frame" == win.views["gt"].canvas.placeholder
    assert "no ground truth for frame 3" in win.statusBar().currentMessage()
    win.statusBar().clearMessage()
    win.step()
    qtbot.waitUntil(lambda: win.result.index == 4, timeout=5000)
    assert win.statusBar().currentMessage() == ""  # said once per source


def test_panels_never_show_as_windows_of_their_own(qtbot, make_window):
    """The ground-truth (and overlay) panel used to be shown before it had a parent: for an instant
    a top-level window, which took activation and keyboard focus from the main window."""
    from PyQt5.QtCore import QEvent, QObject

    win = make_window(pipeline=fake_pipeline(FakeSource(n=6, gt_frames=2)))
    win.show()
    shown_as_window = []

    class Spy(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Show and obj.isWindow():
                shown_as_window.append(obj)
            return False

    spy = Spy()
    for v in win.views.values():
        v.installEventFilter(spy)
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source("fake")
    qtbot.waitUntil(lambda: win.views["gt"].isVisible(), timeout=5000)
    win.overlay_action.trigger()
    win.scores_action.trigger()
    assert win.views["overlay"].isVisible() and not shown_as_window


# -- 8. closing while the source is stalled ----------------------------------------------------------
def test_closing_does_not_wait_for_a_stalled_read(qtbot, make_window):
    src = FakeSource(n=100, block=3, timeout=20.0)
    win = make_window(pipeline=fake_pipeline(src))
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source("fake")
    win.play()
    qtbot.waitUntil(lambda: src.i >= 3, timeout=5000)
    t0 = time.perf_counter()
    win.close()
    assert not win.isVisible() and src.interrupted
    # the read was interrupted, so the worker ends now, not when the 20 s camera timeout runs out
    assert win.worker_thread.wait(3000) and time.perf_counter() - t0 < 5.0


# -- 9. the parameter panel: schema ranges, live values after a refusal ------------------------------
def test_panel_spin_boxes_take_their_range_from_the_schema(make_window):
    """The schema's range, without a cap where the schema has none (sigma, warmup)."""
    from silkvision.config.schema import MAX_THRESHOLD
    from silkvision.gui.widgets.float_spin import HUGE

    win = make_window()
    silk, norma = win.panels["silk"].editors, win.panels["second"].editors
    assert (silk["omega"].minimum(), silk["omega"].maximum()) == (1, 255)
    assert (silk["kappa"].minimum(), silk["kappa"].maximum()) == (0.0, 1.0)
    assert (silk["median"].minimum(), silk["median"].maximum()) == (0, 15)
    assert (silk["hold"].minimum(), silk["hold"].maximum()) == (0, 100)
    assert (norma["nu"].minimum(), norma["nu"].maximum()) == (0.0, 1.0)
    assert (silk["threshold"].minimum(), silk["threshold"].maximum()) == (0.0, MAX_THRESHOLD)
    assert silk["sigma"].maximum() == HUGE and silk["warmup"].maximum() == 2**31 - 1


def test_panel_spin_boxes_offer_no_value_the_schema_refuses(qtbot, make_window):
    """Open ends (tau > 0, tau < 1: the next value inside), closed ends (sigma, C, rho and eta
    >= 1e-6) and the filter sizes (0 or odd 3..15) are kept out of the spin boxes, not only refused
    on Apply."""
    from PyQt5.QtCore import Qt

    win = make_window()
    silk, norma = win.panels["silk"].editors, win.panels["second"].editors
    assert silk["C"].minimum() == 1e-6 and silk["rho"].minimum() == 1e-6
    assert (silk["tau"].minimum(), silk["tau"].maximum()) == (1e-300, 0.9999999999999999)
    assert (silk["global_change"].minimum(), silk["global_change"].maximum()) == (1e-300, 1.0)
    assert silk["sigma"].minimum() == 1e-6 and norma["eta"].minimum() == 1e-6
    median = silk["median"]
    median.setValue(0)
    seen = [median.value()]
    for _ in range(10):
        median.stepBy(1)
        seen.append(median.value())
    assert seen == [0, 3, 5, 7, 9, 11, 13, 15, 15, 15, 15]
    median.stepBy(-7)
    assert median.value() == 0
    median.stepBy(1)
    assert median.value() == 3
    # typed: "11" is taken; "1" may still become 11/13/15 and is corrected to 0 when editing ends;
    # "4" and "2" can become no allowed size, so the key press is refused
    for text, shown in (("11", 11), ("1", 0), ("7", 7), ("4", 7), ("2", 7)):
        median.selectAll()
        qtbot.keyClicks(median, text)
        qtbot.keyClick(median, Qt.Key_Enter)
        median.clearFocus()
        median.editingFinished.emit()
        assert median.value() == shown, text
    # every value the filter-size boxes can be given shows as an allowed size (set_value uses setValue)
    for key in ("median", "close"):
        w = silk[key]
        for v in range(-2, 20):
            w.setValue(v)
            assert w.value() in (0, 3, 5, 7, 9, 11, 13, 15), (key, v)
        w.setValue(4)
        assert w.value() == 3 and silk[key] is w


def test_a_live_value_finer_than_four_decimals_is_kept(make_window):
    """tau = 1e-9 is allowed; the spin box must show it as it is, not clamp it to its rounded range
    (Apply of another key would then send the clamped value)."""
    win = make_window()
    panel = win.panels["silk"]
    params = dict(win.pipeline.silk.get_params(), tau=1e-9)
    panel.set_params("silk", params)
    assert panel.value("tau") == 1e-9 and panel.changed() == {}


def test_a_refused_value_is_not_left_in_the_panel(qtbot, make_window):
    win = make_window()
    norma = win.panels["second"]
    norma.editors["eta"].setValue(5.0)  # each value allowed, their product eta * lambda >= 1 is not
    norma.editors["lambda"].setValue(0.5)
    assert norma.apply() == {} and "eta * lambda" in win.errors[-1].replace("\u00b7", "*")
    assert norma.value("eta") == 0.1 and norma.changed() == {}
    panel = win.panels["silk"]
    panel.editors["sigma"].setValue(9.0)  # a later valid change goes through
    assert panel.apply() == {"sigma": 9.0}
    qtbot.waitUntil(lambda: win.pipeline.silk.get_params()["sigma"] == 9.0, timeout=5000)


# -- 10. keys on the frame slider step instead of seeking --------------------------------------------
def test_right_key_on_the_frame_slider_steps(qtbot, make_window, sample_seq):
    from PyQt5.QtCore import Qt

    win = make_window()
    assert win.frame_slider.focusPolicy() == Qt.NoFocus
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.seek(100)
    qtbot.waitUntil(lambda: win.result is not None and win.result.index == 100, timeout=10_000)
    qtbot.keyClick(win.frame_slider, Qt.Key_Right)
    qtbot.waitUntil(lambda: win.result.index == 101, timeout=5000)
    assert win.result.processed == 2  # a step, not a seek (which restarts the detectors)


def test_a_click_on_the_frame_slider_handle_does_not_restart(qtbot, make_window, sample_seq):
    """Pressing and releasing the handle where it is chose no other frame: it used to seek there,
    throwing away the detectors' learning and the ROC."""
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.seek(100)
    qtbot.waitUntil(lambda: win.result is not None and win.result.index == 100, timeout=10_000)
    win.step()
    qtbot.waitUntil(lambda: win.result.index == 101, timeout=5000)
    win.draw_now()
    assert win.frame_slider.value() == 101 and win.result.processed == 2
    win.frame_slider.sliderReleased.emit()  # as a click on the handle
    win.step()
    qtbot.waitUntil(lambda: win.result.index == 102, timeout=5000)
    assert win.result.processed == 3  # still the same run: no restart
    win.frame_slider.setSliderDown(True)
    win.frame_slider.setValue(50)  # a drag to another frame seeks on release
    win.frame_slider.setSliderDown(False)
    win.frame_slider.sliderReleased.emit()
    qtbot.waitUntil(lambda: win.result.index == 50, timeout=5000)
    assert win.result.processed == 1


# -- 11. seeking one past the end ------------------------------------------------------------------
def test_seek_one_past_the_last_frame_is_an_error(qtbot, make_window, sample_seq):
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.seek(401)
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert "there is no frame 401; expected a frame number in 1..400" in win.errors[0]
    assert win.result is None


# -- 12. cosmetics: skipped counter, status bar room for errors, slider width ------------------------
def test_skipped_counter_resets_and_errors_get_the_status_bar(qtbot, make_window, sample_seq):
    win = make_window()
    win.resize(1420, 820)  # the default size: what fits beside the rates depends on it
    win.show()
    qtbot.waitExposed(win)
    win.worker.slot.skipped = 7
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    assert win.worker.slot.skipped == 0
    win.step()
    qtbot.waitUntil(lambda: win.result is not None, timeout=10_000)
    assert "display skipped 0" in win.stats_label.text()
    win.show_error("something went wrong")
    assert win.stats_label.isHidden()
    win.statusBar().showMessage("fine")
    assert not win.stats_label.isHidden()
    # a long note (e.g. the end of the ground truth) is not cut off behind the rates either
    win.statusBar().showMessage("no ground truth for frame 24: " + "its panel is empty " * 30)
    assert win.stats_label.isHidden()
    win.statusBar().clearMessage()
    assert not win.stats_label.isHidden()
    assert win.frame_slider.minimumWidth() >= 80


def test_switching_the_second_algorithm_while_paused_clears_the_old_views(qtbot, make_window, sample_seq):
    """The detectors and ROCs restart: the old masks and curves must not stay on screen as if they
    were the new detectors'."""
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.seek(250)  # inside the sample's temporalROI, so the ROC counts these frames
    qtbot.waitUntil(lambda: win.result is not None and win.result.index == 250, timeout=10_000)
    win.step()
    qtbot.waitUntil(lambda: win.result.index == 251, timeout=10_000)
    qtbot.waitUntil(lambda: win.roc_plot.curves["silk"].getData()[0] is not None, timeout=5000)
    old = win.detectors["second"].name
    new = "mog2" if old != "mog2" else "knn"
    with qtbot.waitSignal(win.worker.restarted, timeout=5000):
        win.second_combo.setCurrentText(new)
    qtbot.waitUntil(lambda: win.detectors["second"].name == new, timeout=5000)
    assert win.result is None
    assert win.roc_plot.curves["silk"].getData()[0] is None
    label = win.roc_plot.legend.getLabel(win.roc_plot.curves["second"]).text
    assert label.strip() == new.upper()
    assert win.views["silk"].array is None and win.views["second"].array is None


def test_a_switch_drops_a_result_of_the_old_detectors_waiting_for_display(qtbot, make_window, sample_seq):
    """A result computed before a switch must not be drawn after it (the views were just cleared)."""
    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.step()
    qtbot.waitUntil(lambda: win.result is not None, timeout=10_000)
    win.worker.slot.put(win.result)  # as if the display had not taken it yet
    new = "mog2" if win.detectors["second"].name != "mog2" else "knn"
    with qtbot.waitSignal(win.worker.restarted, timeout=5000):
        win.second_combo.setCurrentText(new)
    assert win.worker.slot.take() is None


def test_space_on_a_focused_check_box_toggles_it_instead_of_playing(qtbot, make_window, sample_seq):
    from PyQt5.QtCore import Qt

    win = make_window()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    win.show()
    qtbot.waitExposed(win)
    cb = win.panels["silk"].editors["conservative"]
    cb.setFocus()
    before = cb.isChecked()
    qtbot.keyClick(cb, Qt.Key_Space)
    qtbot.wait(200)
    assert cb.isChecked() != before and not win.playing
    win.frame_slider.setFocus()  # elsewhere Space is still Play/Pause
    qtbot.keyClick(win, Qt.Key_Space)
    qtbot.waitUntil(lambda: win.playing, timeout=5000)
    win.pause()


# --- parameter files, playback keys, typed values across Restart and seek ---------------------------


def _open_and_step(qtbot, win, source):
    """Open ``source`` and process its first frame."""
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(source)
    win.step()
    qtbot.waitUntil(lambda: win.result is not None, timeout=10_000)


def test_loading_parameters_from_a_named_pipe_is_refused_not_a_hang(make_window, tmp_path):
    import errno
    import os
    import threading
    import time

    fifo = tmp_path / "params.fifo"
    os.mkfifo(fifo)

    def late_writer():  # so that a regression blocks for 3 s and then fails, instead of hanging
        end = time.monotonic() + 6
        while time.monotonic() < end:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO:  # ENXIO: no reader yet
                    return
                time.sleep(3 if time.monotonic() + 3 < end else 0.1)
                continue
            os.write(fd, b"detector:\n  silk:\n    tau: 0.02\n")
            os.close(fd)
            return

    threading.Thread(target=late_writer, daemon=True).start()
    win = make_window()
    t = time.monotonic()
    assert not win.load_params(fifo)  # used to block the window's thread for good
    assert time.monotonic() - t < 2
    assert (
        win.errors[-1] == f"{fifo}: is a named pipe (FIFO), not a regular file; expected a YAML config file"
    )


def test_the_playback_keys_work_as_soon_as_the_window_opens(qtbot, make_window, sample_seq):
    """The toolbar's camera box took the first focus and swallowed Space/Right/Home."""
    from PyQt5.QtCore import Qt
    from PyQt5.QtWidgets import QApplication

    win = make_window()
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    with qtbot.waitSignal(win.worker.opened, timeout=5000):
        win.open_source(sample_seq)
    assert QApplication.focusWidget() is not win.camera_spin
    qtbot.keyClick(QApplication.focusWidget() or win, Qt.Key_Right)
    qtbot.waitUntil(lambda: win.result is not None and win.result.index == 1, timeout=10_000)
    win.camera_spin.setFocus()  # a click on a panel takes the keys back from the box
    qtbot.mouseClick(win.views["input"].canvas, Qt.LeftButton)
    assert QApplication.focusWidget() is win.views["input"]
    qtbot.keyClick(win.views["input"], Qt.Key_Right)
    qtbot.waitUntil(lambda: win.result.index == 2, timeout=5000)


def test_restart_gives_the_threshold_slider_the_current_score_range(qtbot, make_window, sample_seq):
    win = make_window()
    _open_and_step(qtbot, win, sample_seq)
    hi0 = win.detectors["silk"].score_range[1]
    win.apply_params("silk", {"C": 2.0})
    qtbot.waitUntil(lambda: win.detectors["silk"].score_range[1] > hi0, timeout=5000)
    win.apply_params("silk", {"C": 0.4})
    qtbot.waitUntil(lambda: win.detectors["silk"].params["C"] == 0.4, timeout=5000)
    assert win.detectors["silk"].score_range[1] > hi0  # the largest C since the last restart
    win.restart()
    qtbot.waitUntil(lambda: win.detectors["silk"].score_range[1] == pytest.approx(hi0), timeout=5000)


@pytest.mark.parametrize("how", ["restart", "seek"])
def test_restart_and_seek_keep_a_value_typed_but_not_applied(qtbot, make_window, sample_seq, how):
    """The slider-range refresh on Restart used to rebuild the panels and drop the typed value."""
    win = make_window()
    _open_and_step(qtbot, win, sample_seq)
    editor = win.panels["silk"].editors["C"]
    editor.setValue(0.8)
    with qtbot.waitSignal(win.worker.ranges_changed, timeout=10_000):
        win.restart() if how == "restart" else win.seek(3)
    qtbot.wait(50)
    assert win.panels["silk"].editors["C"] is editor and win.panels["silk"].changed() == {"C": 0.8}


def test_a_redundant_announcement_keeps_typed_values_but_an_answered_apply_shows_the_worker(make_window):
    """After an open the worker announces the same detectors again: the panel keeps its editors
    (a focused check box was deleted under a key press). After an Apply, its answer is shown even
    when it equals the old values (a refusal)."""
    win = make_window()
    panel = win.panels["silk"]
    algo, params, restart = panel.algorithm, dict(panel.params), panel.restart_params
    editor = panel.editors["C"]
    editor.setValue(0.8)
    panel.set_params(algo, params, restart)  # the same values again
    assert panel.editors["C"] is editor and panel.changed() == {"C": 0.8}
    panel._applying = True  # as after apply(): the worker refused it
    panel.set_params(algo, params, restart)
    assert panel.changed() == {} and panel.editors["C"] is not editor
