"""The main window: image panels, live ROC, parameters, transport controls.

The window only draws and sends requests; capture and detection run in :class:`.worker.Worker` in
its own thread. Public methods (``open_source``, ``play``, ``step``, ``seek``, ``set_threshold``,
``apply_params``, ``save_params``, ``load_params``, ``start_recording``, ``save_snapshot``...) are
what the menus call and what the tests drive.
"""

from __future__ import annotations

import copy
import time
from collections import deque
from pathlib import Path

import numpy as np
from PyQt5.QtCore import QEvent, QSettings, Qt, QTimer, pyqtSignal
from PyQt5.QtWidgets import (
    QAbstractButton,
    QAction,
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from silkvision.capture.images import not_a_file
from silkvision.capture.stream import is_stream_url
from silkvision.config import SCHEMA, load_config, validate, write_config
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import SilkvisionError
from silkvision.gui.pipeline import Pipeline, SourceInfo
from silkvision.gui.widgets import FloatSpinBox, ImageView, ParamPanel, RocPlot
from silkvision.gui.widgets.float_spin import float_range
from silkvision.gui.widgets.image_view import draw_boxes, heat_map, overlay
from silkvision.gui.worker import DetectorInfo, Worker, detector_infos, start_worker

__all__ = ["MainWindow"]

SLIDER_STEPS = 1000
#: Significant digits of a threshold chosen with the slider (0.01095, not 0.010951999999999998)
SLIDER_DIGITS = 4
MAX_RECENT = 10
#: Seconds closing the window waits for the worker; a worker blocked in a camera read is left to
#: finish after the window has gone (``app._teardown`` waits for it before the process ends).
CLOSE_WAIT_S = 1.0
NO_FRAME_YET = "press Play or Step"
#: The window's size when it opens, made smaller to fit the screen's free area: it fits a
#: 1280x800 screen with its title bar and a panel, and the window works down to 1024x768
DEFAULT_SIZE = (1240, 740)
#: Sub-columns of the image grid: a row of 1, 2 or 3 panels shares the whole width (a last row of
#: 2 panels under a row of 3 leaves no empty slot)
GRID_SPAN = 6
VIDEO_FILTER = "Videos (*.mp4 *.avi *.mkv *.mov *.webm *.mpg *.mpeg *.m4v *.wmv);;All files (*)"


class MainWindow(QMainWindow):
    """silkvision's desktop window.

    Parameters
    ----------
    config : dict, optional
        Configuration (validated, merged over the defaults).
    settings : QSettings, optional
        Where the recent-sources list is kept (default: the user's silkvision settings).
    max_frames : int, optional
        Pause after this many frames.
    interactive : bool
        False for headless runs: errors go to the status bar and :attr:`errors` only, no message box.
    pipeline : Pipeline, optional
        The capture/detection model the worker thread drives (default: one built from ``config``;
        tests pass their own).
    """

    request = pyqtSignal(str, object)

    def __init__(
        self,
        config: dict | None = None,
        settings: QSettings | None = None,
        max_frames: int | None = None,
        interactive: bool = True,
        pipeline: Pipeline | None = None,
    ):
        super().__init__()
        self.config = validate(config or {}, "config")
        self.settings = settings if settings is not None else QSettings("silkvision", "silkvision")
        self.interactive = interactive
        self.pipeline = pipeline or Pipeline(self.config)
        self.worker = Worker(self.pipeline, max_frames=max_frames)
        self.detectors: dict[str, DetectorInfo] = detector_infos(self.pipeline)
        self.info: SourceInfo | None = None
        self.result = None  # last FrameResult drawn
        self.shown_index = None  # number of the frame in the input view (None: none shown)
        self.errors: list[str] = []  # every error shown (tests read it)
        self.playing = False
        self.recording = None
        self.drawn = 0
        self._display_fps = 0.0
        self._draw_times: deque[float] = deque()
        self._error_box = None
        self._closing = False
        self._gt_gap_noted = False  # the one-time "no ground truth for frame N" note was shown

        self.setWindowTitle("silkvision")
        self._build_views()
        self._build_controls()
        self._build_side()
        self._build_menus()
        self._layout()
        self._on_detectors(self.detectors)
        self._clear_roc()

        w = self.worker
        w.opened.connect(self._on_opened)
        w.result_ready.connect(self._on_result_ready)
        w.playing_changed.connect(self._on_playing)
        w.detectors_changed.connect(self._on_detectors)
        w.ranges_changed.connect(self._on_ranges)
        w.restarted.connect(self._on_restarted)
        w.configured.connect(self._on_configured)
        w.recording_changed.connect(self._on_recording_changed)
        w.message.connect(lambda m: self.statusBar().showMessage(m, 8000))
        w.error.connect(self._on_worker_error)
        self.worker_thread = start_worker(self.worker, self.request, self)

        self.display_timer = QTimer(self)
        self.display_timer.setInterval(max(1, int(1000 / self.config["gui"]["display_fps"])))
        self.display_timer.timeout.connect(self._draw_latest)
        self.display_timer.start()
        # Space on a focused button, check box or list toggles it, not Play (see eventFilter)
        QApplication.instance().installEventFilter(self)

    # -- construction -------------------------------------------------------------------------------
    def _build_views(self) -> None:
        # every view is a child of the grid's widget from the start: a parentless widget made
        # visible is a top-level window for an instant, which took activation and keyboard focus
        # from the main window the first time the ground truth or overlay panel appeared
        self.grid_widget = QWidget()
        self.grid = QGridLayout(self.grid_widget)
        titles = {
            "input": "Input",
            "silk": "SILK mask",
            "second": "second mask",
            "gt": "Ground truth",
            "scores": "SILK scores (bright = novel)",
            "overlay": "SILK mask on input",
        }
        self.views = {name: ImageView(title, parent=self.grid_widget) for name, title in titles.items()}
        for v in self.views.values():
            v.setFocusPolicy(Qt.ClickFocus)  # a click on a panel takes the keys back from a box
            v.setVisible(False)
            v.set_image(None, "open a source: File > Open")
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(4)

    def _build_controls(self) -> None:
        self.play_button = QPushButton("Play")
        self.play_button.setToolTip("Play / pause (Space)")
        self.play_button.clicked.connect(self.toggle_play)
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip("Process one frame (Right)")
        self.step_button.clicked.connect(self.step)
        self.restart_button = QPushButton("Restart")
        self.restart_button.setToolTip("Back to the first frame with fresh detectors (Home)")
        self.restart_button.clicked.connect(self.restart)
        self.frame_slider = QSlider(Qt.Horizontal)
        self.frame_slider.setEnabled(False)
        # no keyboard focus: Left/Right would seek (restarting the detectors) instead of stepping;
        # keys that still reach it are routed like the window's shortcuts (eventFilter)
        self.frame_slider.setFocusPolicy(Qt.NoFocus)
        self.frame_slider.installEventFilter(self)
        self.frame_slider.setMinimumWidth(80)
        self.frame_slider.setToolTip("Seek: detection restarts from the chosen frame")
        self.frame_slider.sliderReleased.connect(self._on_slider_released)
        self.frame_slider.valueChanged.connect(self._on_frame_slider)
        self.frame_label = QLabel("frame - / -")
        self.frame_label.setMinimumWidth(130)

        self.threshold_slider = QSlider(Qt.Horizontal)
        self.threshold_slider.setRange(0, SLIDER_STEPS)
        self.threshold_slider.valueChanged.connect(self._on_threshold_slider)
        # any threshold the schema allows, also above the score range the slider covers
        self.threshold_spin = FloatSpinBox()
        self.threshold_spin.setRange(*float_range(SCHEMA["detector"]["silk"]["threshold"]))
        self.threshold_spin.setToolTip(
            "SILK's threshold: foreground if score f(x) < threshold; the "
            "slider covers the score range, the box takes any value >= 0"
        )
        self.threshold_spin.valueChanged.connect(self._on_threshold_spin)

        self.boxes_check = QCheckBox("Object boxes")
        self.boxes_check.setToolTip(
            "Draw the boxes of the SILK mask's connected regions on the input "
            "(at least export.min_area pixels; as export --objects lists them)"
        )
        self.boxes_check.toggled.connect(lambda _on: self._redraw_views())

        self.stats_label = QLabel("")
        self.statusBar().addPermanentWidget(self.stats_label)
        self.statusBar().messageChanged.connect(self._on_status_message)

    def _build_side(self) -> None:
        from silkvision.detector import available_subtractors

        self.roc_plot = RocPlot()
        self.second_combo = QComboBox()
        self.second_combo.addItems([a for a in available_subtractors() if a != "silk"])
        self.second_combo.currentTextChanged.connect(self.set_second)
        self.panels = {"silk": ParamPanel("silk"), "second": ParamPanel("second")}
        for p in self.panels.values():
            p.apply_requested.connect(self.apply_params)
            p.error.connect(self.show_error)
        self.tabs = QTabWidget()
        for role, title in (("silk", "SILK"), ("second", "second")):
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(self.panels[role])
            self.tabs.addTab(scroll, title)
        self.reset_roc_button = QPushButton("Clear ROC")
        self.reset_roc_button.setToolTip("Forget the accumulated ROC counts (detectors keep learning)")
        self.reset_roc_button.clicked.connect(lambda: self.request.emit("reset_roc", None))
        self.log_fpr_check = QCheckBox("log FPR")
        self.log_fpr_check.setToolTip(
            "Logarithmic false-positive-rate axis, where the operating points "
            "can be read; off: the whole curve on a linear axis"
        )
        self.log_fpr_check.setChecked(self.roc_plot.log_fpr)
        self.log_fpr_check.toggled.connect(self.roc_plot.set_log_fpr)

    def _build_menus(self) -> None:
        def action(menu, text, slot, shortcut=None, checkable=False, tip=""):
            a = QAction(text, self)
            if shortcut:
                a.setShortcut(shortcut)
            a.setCheckable(checkable)
            a.setStatusTip(tip)
            a.triggered.connect(slot)
            menu.addAction(a)
            return a

        m = self.menuBar().addMenu("&File")
        action(m, "Open &video...", self._ask_video, "Ctrl+O")
        action(m, "Open image &folder / CDnet sequence...", self._ask_folder, "Ctrl+Shift+O")
        self.recent_menu = m.addMenu("Open &recent")
        action(
            m,
            "Open &camera",
            lambda: self.open_source(str(self.camera_spin.value())),
            tip="Open the webcam chosen in the toolbar",
        )
        action(
            m,
            "Open &stream URL...",
            self._ask_stream,
            tip="Open an rtsp://, http:// or https:// stream (it reconnects after a drop)",
        )
        action(
            m,
            "Use &ground truth folder...",
            self._ask_groundtruth,
            tip="Pair a folder of ground-truth images with the current video",
        )
        m.addSeparator()
        action(m, "&Load parameters...", self._ask_load_params, "Ctrl+L")
        action(m, "&Save parameters...", self._ask_save_params, "Ctrl+S")
        m.addSeparator()
        self.record_action = action(
            m,
            "&Record masks...",
            self._toggle_record,
            "Ctrl+R",
            checkable=True,
            tip="Write every mask to a folder (bin%06d.png, as silkvision export)",
        )
        action(m, "Save sna&pshot...", self._ask_snapshot, "Ctrl+P")
        m.addSeparator()
        action(m, "&Quit", self.close, "Ctrl+Q")

        m = self.menuBar().addMenu("&View")
        self.scores_action = action(m, "SILK &score map", self._layout_views, checkable=True)
        self.scores_action.setChecked(self.config["gui"]["show_scores"])
        self.overlay_action = action(m, "Mask &overlay", self._layout_views, checkable=True)
        self.overlay_action.setChecked(self.config["gui"]["show_overlay"])

        m = self.menuBar().addMenu("&Playback")
        action(m, "Play / pause", self.toggle_play, "Space")
        action(m, "Step", self.step, "Right")
        action(m, "Restart", self.restart, "Home")
        self._update_recent_menu()

        tb = self.addToolBar("Source")
        tb.setObjectName("source-toolbar")
        tb.addAction("Open video", self._ask_video)
        tb.addAction("Open folder", self._ask_folder)
        tb.addSeparator()
        tb.addWidget(QLabel(" Camera "))
        self.camera_spin = QSpinBox()
        # reachable with Tab and a click, but not the window's first focus (set on the central
        # widget below): its line edit would take Space, Right and Home
        self.camera_spin.setFocusPolicy(Qt.StrongFocus)
        self.camera_spin.setRange(0, 63)
        self.camera_spin.setToolTip("Webcam index")
        tb.addWidget(self.camera_spin)
        tb.addAction("Open camera", lambda: self.open_source(str(self.camera_spin.value())))
        tb.addSeparator()
        tb.addWidget(QLabel(" Compare with "))
        tb.addWidget(self.second_combo)
        tb.addSeparator()
        tb.addAction(self.scores_action)
        tb.addAction(self.overlay_action)
        tb.addAction(self.record_action)
        tb.addAction("Snapshot", self._ask_snapshot)

    def _layout(self) -> None:
        transport = QHBoxLayout()
        for w in (self.play_button, self.step_button, self.restart_button):
            transport.addWidget(w)
        transport.addWidget(self.frame_slider, 1)
        transport.addWidget(self.frame_label)
        thresh = QHBoxLayout()
        thresh.addWidget(QLabel("SILK threshold"))
        thresh.addWidget(self.threshold_slider, 1)
        thresh.addWidget(self.threshold_spin)
        thresh.addWidget(self.boxes_check)
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.setContentsMargins(4, 4, 4, 4)
        lv.addWidget(self.grid_widget, 1)
        lv.addLayout(transport)
        lv.addLayout(thresh)
        roc = QWidget()
        rv = QVBoxLayout(roc)
        rv.setContentsMargins(4, 4, 4, 0)
        rv.addWidget(self.roc_plot, 1)
        row = QHBoxLayout()
        row.addWidget(self.log_fpr_check)
        row.addStretch(1)
        row.addWidget(self.reset_roc_button)
        rv.addLayout(row)
        # the ROC and the parameters share the right side; the user can move the line between them
        self.right_split = QSplitter(Qt.Vertical)
        self.right_split.setChildrenCollapsible(False)
        self.right_split.addWidget(roc)
        self.right_split.addWidget(self.tabs)
        self.right_split.setStretchFactor(0, 1)
        self.right_split.setStretchFactor(1, 1)
        self._split_set = False  # the ROC/parameters line is placed at the first show
        split = QSplitter(Qt.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(left)
        split.addWidget(self.right_split)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([800, 420])
        self.setCentralWidget(split)
        split.setFocusPolicy(Qt.StrongFocus)  # the keys go to the window's shortcuts at start
        split.setFocus()
        self.resize(*fitting_size(DEFAULT_SIZE))
        self._layout_views()

    def showEvent(self, event) -> None:
        """At the first show, the ROC gets a little more of the right side than the parameters (left
        to the size hints, the plot took two thirds); later the user's own placing is kept."""
        super().showEvent(event)
        if not self._split_set:
            self._split_set = True
            h = max(self.right_split.height(), 2)
            self.right_split.setSizes([h * 55 // 100, h - h * 55 // 100])

    def _layout_views(self) -> None:
        """Place the visible image panels on a grid (3 a row when more than 4, else 2), each row's
        panels sharing its whole width."""
        silk = self.detectors["silk"]
        shown = ["input", "silk", "second"]
        if self.info is not None and self.info.has_groundtruth:
            shown.append("gt")
        if self.scores_action.isChecked() and silk.has_scores:
            shown.append("scores")
        if self.overlay_action.isChecked():
            shown.append("overlay")
        self.shown = shown
        while self.grid.count():
            self.grid.takeAt(0)
        cells = grid_cells(len(shown))
        for i, (row, col, span) in cells.items():
            self.grid.addWidget(self.views[shown[i]], row, col, 1, span)
        for name, view in self.views.items():
            view.setVisible(name in shown)
        # a row's height in proportion to its panels' width (a row of 2 is 1.5 times as tall as a row
        # of 3): the images of every row can then fill their width
        span = {row: sp for row, _, sp in cells.values()}
        for c in range(GRID_SPAN):
            self.grid.setColumnStretch(c, 1)
        for r in range(3):
            self.grid.setRowStretch(r, span.get(r, 0))
        self._redraw_views()

    def _redraw_views(self) -> None:
        """Draw the shown result again (panels or options changed)."""
        if self.result is not None:
            self._draw(self.result, roc=False)

    # -- sources ------------------------------------------------------------------------------------
    def open_source(self, spec, groundtruth=None) -> None:
        """Open a webcam index, video file, image folder or CDnet sequence (in the worker)."""
        self.statusBar().showMessage(f"opening {spec} ...")
        self.request.emit("open", (str(spec), None if groundtruth is None else str(groundtruth)))

    def _ask_video(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open video", self._last_dir(), VIDEO_FILTER)
        if path:
            self.open_source(path)

    def _ask_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Open image folder or CDnet sequence", self._last_dir())
        if path:
            self.open_source(path)

    def _ask_stream(self) -> None:
        url, ok = QInputDialog.getText(self, "Open stream", "rtsp://, http:// or https:// URL:")
        if ok and url.strip():
            self.open_source(url.strip())

    def _ask_groundtruth(self) -> None:
        if self.info is None:
            self.show_error("open a video first, then choose its ground-truth folder")
            return
        path = QFileDialog.getExistingDirectory(self, "Ground-truth folder", self._last_dir())
        if path:
            self.open_source(self.info.spec, groundtruth=path)

    def _last_dir(self) -> str:
        recent = self.recent_sources()
        if not recent or recent[0].isdigit() or is_stream_url(recent[0]):
            return str(Path.home())
        return str(Path(recent[0]).parent)

    def recent_sources(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _remember(self, spec: str) -> None:
        spec = spec if spec.isdigit() or is_stream_url(spec) else str(Path(spec).resolve())
        recent = [spec] + [s for s in self.recent_sources() if s != spec]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.settings.sync()
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for spec in self.recent_sources():
            label = f"camera {spec}" if spec.isdigit() else spec
            self.recent_menu.addAction(label, lambda s=spec: self.open_source(s))
        self.recent_menu.setEnabled(bool(self.recent_sources()))

    # -- playback -----------------------------------------------------------------------------------
    def play(self) -> None:
        self.request.emit("play", None)

    def pause(self) -> None:
        self.request.emit("pause", None)

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def step(self) -> None:
        self.request.emit("step", None)

    def seek(self, index: int) -> None:
        """Continue from frame ``index``; detectors and ROC restart there."""
        self.request.emit("seek", int(index))

    def restart(self) -> None:
        self.request.emit("restart", None)

    def eventFilter(self, obj, event) -> bool:
        """Space on a button or list of this window acts on that widget, not as Play/Pause; keys on
        the frame slider act as the Playback shortcuts (Right = Step, Home = Restart, Space =
        Play/Pause) instead of seeking, and other keys are ignored there."""
        if (
            event.type() == QEvent.ShortcutOverride
            and event.key() == Qt.Key_Space
            and isinstance(obj, (QAbstractButton, QComboBox))
            and obj.window() is self
        ):
            event.accept()  # the widget takes Space: the window-wide Play/Pause shortcut does not
            return True
        if obj is self.frame_slider and event.type() == QEvent.KeyPress:
            action = {Qt.Key_Right: self.step, Qt.Key_Home: self.restart, Qt.Key_Space: self.toggle_play}.get(
                event.key()
            )
            if action is not None:
                action()
            return True
        return super().eventFilter(obj, event)

    def _on_slider_released(self) -> None:
        # a click on the handle, or a drag back to where it was, chose no other frame: no restart
        if self.frame_slider.value() != self.shown_index:
            self.seek(self.frame_slider.value())

    def _on_frame_slider(self, value: int) -> None:
        if not self.frame_slider.isSliderDown():  # keyboard / page clicks; drags seek on release
            self.seek(value)

    # -- detector settings --------------------------------------------------------------------------
    def set_threshold(self, value: float) -> None:
        """Move SILK's threshold: the mask and the ROC operating point follow at once, from the
        last scores (nothing is re-run); later frames use the new threshold."""
        value = float(value)
        silk = self.detectors["silk"]
        if not silk.has_scores:
            return
        silk.threshold = value
        silk.params["threshold"] = value
        self._show_threshold(value)
        self.panels["silk"].set_value("threshold", value)
        self.request.emit("threshold", value)

    def _show_threshold(self, value: float) -> None:
        lo, hi = self.detectors["silk"].score_range
        self.threshold_spin.blockSignals(True)
        self.threshold_slider.blockSignals(True)
        self.threshold_spin.setValue(value)
        pos = 0 if hi <= lo else round(np.sqrt(max(value - lo, 0.0) / (hi - lo)) * SLIDER_STEPS)
        self.threshold_slider.setValue(int(np.clip(pos, 0, SLIDER_STEPS)))
        self.threshold_spin.blockSignals(False)
        self.threshold_slider.blockSignals(False)

    def _on_threshold_slider(self, pos: int) -> None:
        # quadratic scale: fine steps at the low scores where useful thresholds lie; rounded to
        # SLIDER_DIGITS significant digits, so that the boxes show a readable value
        lo, hi = self.detectors["silk"].score_range
        self.set_threshold(float(f"{lo + (hi - lo) * (pos / SLIDER_STEPS) ** 2:.{SLIDER_DIGITS}g}"))

    def _on_threshold_spin(self, value: float) -> None:
        self.set_threshold(value)

    def apply_params(self, role: str, params: dict) -> None:
        """Send live parameter changes to detector ``role`` ("silk" or "second")."""
        self.request.emit("set_params", (role, dict(params)))

    def set_second(self, name: str) -> None:
        """Show ``name`` (norma, mog2, knn...) beside SILK; both detectors and the ROC restart."""
        if name and name != self.detectors["second"].name:
            self.request.emit("second", name)

    def save_params(self, path) -> Path | None:
        """Write the current parameters as a config YAML (``silkvision --config`` reads it); return
        its path, or None after showing the error when it cannot be written."""
        cfg = copy.deepcopy(self.config)
        det = cfg["detector"]
        for role, info in self.detectors.items():
            for k, v in info.params.items():
                if k in SHARED_KEYS:  # the same in both detectors (Pipeline.set_params)
                    det[k] = v
                elif isinstance(det.get(info.name), dict) and k in det[info.name]:
                    det[info.name][k] = v
        cfg["gui"]["second_algorithm"] = self.detectors["second"].name
        cfg["gui"]["show_scores"] = self.scores_action.isChecked()
        cfg["gui"]["show_overlay"] = self.overlay_action.isChecked()
        try:
            cfg = validate(cfg, str(path))
            out = write_config(cfg, path)
        except SilkvisionError as e:
            self.show_error(str(e))
            return None
        except OSError as e:
            self.show_error(f"{path}: cannot write parameters ({e.strerror})")
            return None
        self.config = cfg
        self.statusBar().showMessage(f"parameters saved to {out}", 8000)
        return out

    def load_params(self, path) -> bool:
        """Read parameters from a config YAML; a bad file shows a message naming the file/key."""
        from silkvision.detector import available_subtractors

        try:
            # the window reads the file in its own thread: a named pipe would block it for good
            if Path(path).exists() and not Path(path).is_file():
                raise SilkvisionError(f"{path}: {not_a_file(Path(path))}; expected a YAML config file")
            cfg = load_config(path, use_cwd=False)
            second = cfg["gui"]["second_algorithm"]  # never 'silk': the schema refuses it
            choices = [a for a in available_subtractors() if a != "silk"]
            if second not in choices:
                raise SilkvisionError(
                    f"gui.second_algorithm: {second!r} in {path} is not available on "
                    f"this installation (gsoc and cnt need opencv-contrib); expected "
                    f"{', '.join(choices)}"
                )
        except SilkvisionError as e:
            self.show_error(str(e))
            return False
        # applied in the worker, all or nothing; the window follows on ``configured``
        self.request.emit("configure", (copy.deepcopy(cfg), str(path)))
        self.statusBar().showMessage(f"loading parameters from {path} ...", 8000)
        return True

    def _on_configured(self, cfg: dict) -> None:
        """The worker applied a loaded configuration: the window's own settings follow it."""
        self.config = cfg
        self.scores_action.setChecked(cfg["gui"]["show_scores"])
        self.overlay_action.setChecked(cfg["gui"]["show_overlay"])
        self.display_timer.setInterval(max(1, int(1000 / cfg["gui"]["display_fps"])))
        self._layout_views()

    def _ask_load_params(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Load parameters", "", "YAML (*.yaml *.yml);;All files (*)"
        )
        if path:
            self.load_params(path)

    def _ask_save_params(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save parameters", "silkvision.yaml", "YAML (*.yaml *.yml)"
        )
        if path:
            self.save_params(path)

    # -- recording and snapshots --------------------------------------------------------------------
    def start_recording(self, folder) -> None:
        """Write every processed mask to ``folder/<algorithm>/bin%06d.png`` (+ config.yaml).

        The Record toggle and :attr:`recording` follow what the worker reports: a folder that
        cannot be written shows an error and leaves both off.
        """
        self.recording = Path(folder)
        self.record_action.setChecked(True)
        self.request.emit("record", str(folder))

    def _on_recording_changed(self, folder) -> None:
        self.recording = None if folder is None else Path(folder)
        self.record_action.setChecked(folder is not None)

    def stop_recording(self) -> None:
        self.recording = None
        self.record_action.setChecked(False)
        self.request.emit("record", None)

    def _toggle_record(self, checked: bool) -> None:
        if not checked:
            self.stop_recording()
            return
        folder = QFileDialog.getExistingDirectory(self, "Record masks into folder", self._last_dir())
        if folder:
            self.start_recording(folder)
        else:
            self.record_action.setChecked(False)

    def save_snapshot(self, path) -> bool:
        """Save a PNG of the whole window, atomically. Qt encodes the PNG in memory and Python
        writes the file: Qt's own file names follow the locale, so under ``LC_ALL=C`` it could not
        write a non-ASCII path, and a failed write could leave a partial file."""
        from PyQt5.QtCore import QBuffer, QByteArray, QIODevice

        from silkvision.io.atomic import atomic_write_bytes

        self.draw_now()
        QApplication.sendPostedEvents(None, QEvent.LayoutRequest)  # labels just relabelled take their size
        data = QByteArray()
        buf = QBuffer(data)
        buf.open(QIODevice.WriteOnly)
        why = None if self.grab().save(buf, "PNG") else "Qt could not encode the picture"
        buf.close()
        if why is None:
            try:
                atomic_write_bytes(Path(path), bytes(data))
            except OSError as e:
                why = e.strerror or type(e).__name__
        if why is not None:
            self.show_error(f"{path}: cannot write the snapshot ({why}; check the folder and the .png name)")
        else:
            self.statusBar().showMessage(f"snapshot saved to {path}", 8000)
        return why is None

    def _ask_snapshot(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save snapshot", "silkvision.png", "PNG (*.png)")
        if path:
            self.save_snapshot(path)

    # -- worker signals -----------------------------------------------------------------------------
    def _on_opened(self, info: SourceInfo) -> None:
        self.info = info
        self.result = None
        self.shown_index = None
        self._gt_gap_noted = False
        self._remember(info.spec)
        last = info.last_index
        self.frame_slider.blockSignals(True)
        self.frame_slider.setEnabled(info.seekable and last is not None)
        if last is not None:
            self.frame_slider.setRange(info.first_index, last)
        self.frame_slider.blockSignals(False)
        self._show_slider(None)
        # nothing of the previous source stays on screen under the new title
        for view in self.views.values():
            view.set_image(None, NO_FRAME_YET)
        self._show_first_gt()
        self.frame_label.setText(f"frame - / {last if last is not None else '?'}")
        widest = f"frame {last} / {last}" if last is not None else "frame 000000 / ?"
        self.frame_label.setMinimumWidth(
            max(130, self.frame_label.fontMetrics().horizontalAdvance(widest) + 8)
        )
        self.stats_label.setText("")
        self._draw_times.clear()
        self._display_fps = 0.0
        gt = "with ground truth" if info.has_groundtruth else "no ground truth (no ROC)"
        total = "" if info.frame_count is None else f", {info.frame_count} frames"
        self.setWindowTitle(f"silkvision - {info.name}")
        self.statusBar().showMessage(f"opened {info.kind} {info.name}{total}, {gt}", 8000)
        self._layout_views()
        self._clear_roc()

    def _show_first_gt(self) -> None:
        """Before a frame is processed, the ground-truth panel shows the source's first scored mask
        (:attr:`SourceInfo.first_gt`), its frame in the title."""
        first = None if self.info is None else self.info.first_gt
        if first is None:
            self.views["gt"].set_image(None, "no ground truth")
            self.views["gt"].set_title("Ground truth")
        else:
            self.views["gt"].set_image(first[1])
            self.views["gt"].set_title(f"Ground truth (frame {first[0]})")

    def _on_restarted(self) -> None:
        """The detectors and ROCs restarted (another second algorithm, loaded parameters, a restart
        parameter): while paused no new frame comes, so the old masks, scores and ROC curves must not
        stay on screen as if they belonged to the new detectors."""
        self.result = None
        for key, view in self.views.items():
            if key != "input" and key != "gt":
                view.set_image(None, NO_FRAME_YET)
        self._clear_roc()

    def _clear_roc(self) -> None:
        """Empty ROC plot, its legend naming the detectors (SILK, NORMA...) and saying so when the
        source has no ground truth."""
        note = "" if self._has_groundtruth() else "no ground truth"
        self.roc_plot.clear_views({role: info.name for role, info in self.detectors.items()}, note)
        self.roc_plot.set_title(self._roc_title(None))

    def _has_groundtruth(self) -> bool:
        """False only when the open source has no ground truth (before any source: True)."""
        return self.info is None or self.info.has_groundtruth

    def _roc_title(self, frames: int | None) -> str:
        if not self._has_groundtruth():
            return "ROC: this source has no ground truth"
        return "ROC vs ground truth" + ("" if frames is None else f" ({frames} frames)")

    def _on_playing(self, playing: bool) -> None:
        self.playing = playing
        self.play_button.setText("Pause" if playing else "Play")
        if not playing:
            self.draw_now()

    def _on_detectors(self, infos: dict) -> None:
        self.detectors = infos
        silk, second = infos["silk"], infos["second"]
        self.panels["silk"].set_params(silk.name, silk.params, silk.restart_params)
        self.panels["second"].set_params(second.name, second.params, second.restart_params)
        self.tabs.setTabText(1, second.name.upper())
        self.views["second"].set_title(f"{second.name.upper()} mask")
        self.second_combo.blockSignals(True)
        self.second_combo.setCurrentText(second.name)
        self.second_combo.blockSignals(False)
        if silk.has_scores:
            self._show_threshold(silk.threshold)
        self.threshold_slider.setEnabled(silk.has_scores)
        self.threshold_spin.setEnabled(silk.has_scores)
        self._layout_views()

    def _on_ranges(self, infos: dict) -> None:
        """The detectors restarted (Restart, seek): the threshold slider follows their score range;
        the parameter panels keep what is typed in them."""
        self.detectors = infos
        if infos["silk"].has_scores:
            self._show_threshold(infos["silk"].threshold)

    def _on_result_ready(self) -> None:
        if not self.playing:  # single steps, seeks, threshold moves: draw at once
            self.draw_now()

    # -- drawing ------------------------------------------------------------------------------------
    def _draw_latest(self) -> None:
        r = self.worker.slot.take()
        if r is not None:
            self._draw(r)

    def draw_now(self) -> None:
        """Draw the newest result (if any) and refresh the ROC."""
        r = self.worker.slot.take()
        if r is not None:
            self._draw(r, roc=True)
        elif self.result is not None:
            self._draw_roc(self.result)

    def _draw(self, r, roc: bool | None = None) -> None:
        fresh = r is not self.result and not r.rethreshold
        self.result = r
        self.shown_index = r.index
        second = next((k for k in r.masks if k != "silk"), None)
        self._draw_input(r)
        self.views["silk"].set_image(r.masks["silk"])
        self.views["second"].set_image(r.masks.get(second))
        self.views["gt"].set_title("Ground truth")
        if r.gt is not None:
            self.views["gt"].set_image(r.gt)
        elif self.info is not None and self.info.has_groundtruth:
            self.views["gt"].set_image(None, "no ground truth for this frame")
            if not self._gt_gap_noted and not r.rethreshold:
                self._gt_gap_noted = True
                self.statusBar().showMessage(
                    f"no ground truth for frame {r.index}: its panel is empty "
                    f"and the ROC counts only frames with ground truth",
                    8000,
                )
        if "scores" in self.shown and r.scores is not None:
            # colour scale [lo, 3 x threshold]: the threshold sits at two thirds of the map
            lo, hi = r.score_range
            top = min(hi, lo + 3 * max(self.detectors["silk"].threshold - lo, 1e-6))
            self.views["scores"].set_image(heat_map(r.scores, lo, top))
            self.views["scores"].setToolTip(
                f"SILK scores f(x) shown from {lo:g} (bright, novel) to {top:.3g} (dark) = 3 x threshold"
            )
        if "overlay" in self.shown:
            self.views["overlay"].set_image(overlay(r.frame, r.masks["silk"]))
        if fresh:
            self.drawn += 1
            now = time.perf_counter()
            self._draw_times.append(now)
            while len(self._draw_times) > 2 and now - self._draw_times[0] > 2.0:
                self._draw_times.popleft()  # display rate over the last 2 seconds
            span = self._draw_times[-1] - self._draw_times[0]
            self._display_fps = (len(self._draw_times) - 1) / span if span > 0 else 0.0
        if roc is None:
            roc = r.rethreshold or not self.playing or self.drawn % self.config["gui"]["roc_every"] == 0
        if roc:
            self._draw_roc(r)
        self._show_position(r)

    def _draw_input(self, r) -> None:
        """The input frame, with the boxes of the SILK mask's regions when asked for."""
        view = self.views["input"]
        if not self.boxes_check.isChecked():
            view.set_image(r.frame)
            view.set_title("Input")
            return
        from silkvision.objects import find_regions

        min_area = self.config["export"]["min_area"]
        regions = find_regions(r.masks["silk"], min_area)
        view.set_image(draw_boxes(r.frame, regions))
        view.set_title(f"Input: {len(regions)} object{'s' if len(regions) != 1 else ''}")

    def _draw_roc(self, r) -> None:
        second = next((k for k in r.roc if k != "silk"), None)
        self.roc_plot.set_views(r.roc["silk"], r.roc.get(second))
        self.roc_plot.set_title(self._roc_title(r.roc["silk"].frames))

    def _show_position(self, r) -> None:
        last = self.info.last_index if self.info is not None else None
        self.frame_label.setText(f"frame {r.index} / {last if last is not None else '?'}")
        self._show_slider(r.index)
        fps = "  ".join(f"{k.upper()} {v:.1f} fps" for k, v in r.fps.items())
        self.stats_label.setText(
            f"{fps}  |  display {self._display_fps:.1f} fps  |  "
            f"display skipped {self.worker.slot.skipped}  |  processed {r.processed}"
        )

    def _show_slider(self, index: int | None) -> None:
        """Put the frame slider on frame ``index`` (None: no frame shown, the first) without seeking;
        left alone while the user drags it, or while it is disabled (a camera)."""
        if self.frame_slider.isSliderDown() or not self.frame_slider.isEnabled():
            return
        self.frame_slider.blockSignals(True)
        self.frame_slider.setValue(self.frame_slider.minimum() if index is None else index)
        self.frame_slider.blockSignals(False)

    def _on_status_message(self, message: str) -> None:
        """An error, or a message too long to share the status bar with the rates, needs the whole
        bar: the rates step aside while it is shown."""
        fits = (
            self.statusBar().fontMetrics().horizontalAdvance(message)
            + self.stats_label.sizeHint().width()
            + 40
            <= self.statusBar().width()
        )
        hide = bool(message) and (message.startswith("Error:") or not fits)
        if self.stats_label.isHidden() != hide:
            self.stats_label.setHidden(hide)

    # -- errors and closing -------------------------------------------------------------------------
    def _on_worker_error(self, message: str) -> None:
        """A request or a frame failed (e.g. a seek to a frame that cannot be read): the slider goes
        back to the frame on screen, then the error is shown."""
        self._show_slider(self.shown_index)
        self.show_error(message)

    def show_error(self, message: str) -> None:
        """Show an error without blocking: status bar, plus a non-modal message box when interactive."""
        self.errors.append(message)
        self.statusBar().showMessage(f"Error: {message}", 20000)
        if not self.interactive or self._closing:
            return
        if self._error_box is None:
            self._error_box = QMessageBox(QMessageBox.Warning, "silkvision", "", QMessageBox.Ok, self)
            self._error_box.setWindowModality(Qt.NonModal)
        self._error_box.setText(message)
        self._error_box.show()

    def shutdown(self, timeout_s: float | None = None) -> bool:
        """Stop the worker and wait for its thread to end; True when it ended."""
        self.display_timer.stop()
        QApplication.instance().removeEventFilter(self)
        if not self.worker_thread.isRunning():
            return True
        if timeout_s is None:
            timeout_s = self.config["capture"]["camera_timeout"] + 5.0
        self.request.emit("stop", None)
        self.pipeline.interrupt()  # a worker waiting for a stalled camera sees the stop at once
        return self.worker_thread.wait(int(timeout_s * 1000))

    def closeEvent(self, event) -> None:
        """Close at once: a worker waiting for a stalled camera is interrupted (``Source.interrupt``),
        and the wait for it is at most :data:`CLOSE_WAIT_S`; a worker still busy after that ends in
        the background, and ``app._teardown`` waits for it before the window is deleted."""
        self._closing = True
        self.shutdown(CLOSE_WAIT_S)
        super().closeEvent(event)


def grid_cells(n: int) -> dict[int, tuple[int, int, int]]:
    """Where ``n`` image panels go on the grid of :data:`GRID_SPAN` sub-columns: ``{panel: (row,
    column, span)}``. Up to 4 panels take 2 a row, more take 3; each row's panels share the whole
    width, so that no slot stays empty (5 panels: 3 above, 2 wider below)."""
    cols = 3 if n > 4 else 2
    cells = {}
    for i in range(n):
        row, k = divmod(i, cols)
        in_row = min(cols, n - row * cols)
        span = GRID_SPAN // in_row
        cells[i] = (row, k * span, span)
    return cells


def fitting_size(size: tuple[int, int]) -> tuple[int, int]:
    """``size`` made no larger than the free area of the primary screen (less its title bar and
    frame, about 40 and 10 pixels), so that the window opens whole on a small screen."""
    screen = QApplication.primaryScreen()
    if screen is None:
        return size
    free = screen.availableGeometry()
    return min(size[0], free.width() - 10), min(size[1], free.height() - 40)
