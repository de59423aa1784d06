"""The worker: capture and detection in a QThread, results handed to the window by signal.

The window talks to the worker only through one queued signal, ``request(name, argument)``, and the
worker answers with signals. Each frame is detected exactly once (the worker never skips a frame);
the newest result waits in a :class:`LatestSlot` that the display takes at its own pace, counting
the frames it never drew (``LatestSlot.skipped``) instead of dropping them silently.
"""

from __future__ import annotations

import sys
import threading
import traceback
from dataclasses import dataclass

from PyQt5.QtCore import QObject, QThread, QTimer, pyqtSignal, pyqtSlot

from silkvision.errors import SilkvisionError
from silkvision.gui.pipeline import FrameResult, Pipeline

__all__ = ["Worker", "LatestSlot", "DetectorInfo", "start_worker"]


class LatestSlot:
    """Thread-safe box holding the newest :class:`FrameResult` not yet drawn."""

    def __init__(self):
        self._lock = threading.Lock()
        self._item: FrameResult | None = None
        self.skipped = 0      # processed frames replaced before the display took them

    def put(self, item: FrameResult) -> None:
        with self._lock:
            if self._item is not None and self._item.index != item.index:
                self.skipped += 1
            self._item = item

    def take(self) -> FrameResult | None:
        with self._lock:
            item, self._item = self._item, None
            return item


@dataclass
class DetectorInfo:
    """Snapshot of a detector's settings for the parameter panel (no live object crosses threads)."""

    name: str
    params: dict
    restart_params: frozenset
    has_scores: bool
    score_range: tuple[float, float] | None
    threshold: float | None


def detector_infos(pipeline: Pipeline) -> dict[str, DetectorInfo]:
    out = {}
    for role, det in (("silk", pipeline.silk), ("second", pipeline.detectors[pipeline.second])):
        out[role] = DetectorInfo(det.name, dict(det.get_params()), frozenset(det.RESTART_PARAMS),
                                 bool(det.has_scores),
                                 tuple(det.score_range) if det.has_scores else None,
                                 float(det.threshold) if det.has_scores else None)
    return out


class Worker(QObject):
    """Runs a :class:`Pipeline` in its own thread.

    Parameters
    ----------
    pipeline : Pipeline
    max_frames : int, optional
        Pause once after this many frames (``silkvision gui --frames N``); Play then continues.
    """

    opened = pyqtSignal(object)            # SourceInfo
    result_ready = pyqtSignal()            # a FrameResult waits in .slot
    playing_changed = pyqtSignal(bool)
    detectors_changed = pyqtSignal(object)  # {"silk": DetectorInfo, "second": DetectorInfo}
    message = pyqtSignal(str)
    error = pyqtSignal(str)
    ended = pyqtSignal(int)                # end of source or max_frames reached: frames processed
    stopped = pyqtSignal()

    def __init__(self, pipeline: Pipeline, max_frames: int | None = None):
        super().__init__()
        self.pipeline = pipeline
        self.max_frames = max_frames
        self.slot = LatestSlot()
        self.playing = False
        self._timer: QTimer | None = None

    @pyqtSlot()
    def setup(self) -> None:
        """Create the frame timer in the worker's own thread (connected to ``QThread.started``)."""
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)

    # -- requests (run in the worker thread) -------------------------------------------------------
    @pyqtSlot(str, object)
    def handle(self, request: str, arg) -> None:
        """Dispatch one request from the window; user errors become an ``error`` signal."""
        try:
            getattr(self, "_do_" + request)(arg)
        except SilkvisionError as e:
            self._set_playing(False)
            self.error.emit(str(e))
        except Exception as e:  # keep the application alive; the traceback goes to stderr
            traceback.print_exc(file=sys.stderr)
            self._set_playing(False)
            self.error.emit(f"{request}: {type(e).__name__}: {e}")

    def _do_open(self, arg) -> None:
        spec, groundtruth = arg
        self._set_playing(False)
        info = self.pipeline.open(spec, groundtruth=groundtruth)
        self.opened.emit(info)
        self.detectors_changed.emit(detector_infos(self.pipeline))

    def _do_play(self, _=None) -> None:
        if self.pipeline.src is None:
            raise SilkvisionError("no source is open: open a video, a folder or a camera first")
        self._set_playing(True)

    def _do_pause(self, _=None) -> None:
        self._set_playing(False)

    def _do_step(self, _=None) -> None:
        self._set_playing(False)
        self._process_one()

    def _do_seek(self, index) -> None:
        self.pipeline.seek(int(index))
        self.message.emit(f"detectors and ROC restarted at frame {int(index)}")
        self._process_one()

    def _do_restart(self, _=None) -> None:
        self.pipeline.restart()
        self.message.emit("restarted from the first frame")
        self._process_one()

    def _do_set_params(self, arg) -> None:
        role, params = arg
        name = "silk" if role == "silk" else self.pipeline.second
        restarted = self.pipeline.set_params(name, params)
        self.detectors_changed.emit(detector_infos(self.pipeline))
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        if restarted:
            self.message.emit(f"{name}: {shown} applied; detectors and ROC restarted (restart parameter)")
        else:
            self.message.emit(f"{name}: {shown} applied")
        self._publish_last()

    def _do_threshold(self, value) -> None:
        if self.pipeline.rethreshold(float(value)) is not None:
            self._publish_last()

    def _do_second(self, name) -> None:
        self.pipeline.set_second(name)
        self.detectors_changed.emit(detector_infos(self.pipeline))
        self.message.emit(f"second algorithm: {name}; detectors and ROC restarted")

    def _do_configure(self, config) -> None:
        self.pipeline.configure(config)
        self.detectors_changed.emit(detector_infos(self.pipeline))

    def _do_reset_roc(self, _=None) -> None:
        self.pipeline.reset_roc()
        self.message.emit("ROC cleared")

    def _do_record(self, folder) -> None:
        if folder is None:
            rec = self.pipeline.stop_recording()
            if rec is not None:
                self.message.emit(f"recording stopped: {rec.written} masks in {rec.folder}")
        else:
            rec = self.pipeline.start_recording(folder)
            self.message.emit(f"recording masks to {rec.folder}")

    def _do_stop(self, _=None) -> None:
        """Stop processing, close the source and end the thread's event loop."""
        if self._timer is not None:
            self._timer.stop()
        self.playing = False
        try:
            self.pipeline.close()
        finally:
            self.stopped.emit()
            QThread.currentThread().quit()

    # -- processing --------------------------------------------------------------------------------
    def _set_playing(self, playing: bool) -> None:
        if playing == self.playing:
            return
        self.playing = playing
        if playing:
            self._timer.start()
        else:
            self._timer.stop()
        self.playing_changed.emit(playing)

    @pyqtSlot()
    def _tick(self) -> None:
        try:
            self._process_one()
        except SilkvisionError as e:
            self._set_playing(False)
            self.error.emit(str(e))
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            self._set_playing(False)
            self.error.emit(f"{type(e).__name__}: {e}")

    def _process_one(self) -> None:
        result = self.pipeline.step()
        if result is None:
            self._set_playing(False)
            self.ended.emit(self.pipeline.processed)
            return
        self.slot.put(result)
        self.result_ready.emit()
        if self.max_frames is not None and self.pipeline.processed >= self.max_frames:
            self.max_frames = None  # pause once; Play continues from there
            self._set_playing(False)
            self.ended.emit(self.pipeline.processed)

    def _publish_last(self) -> None:
        if self.pipeline.last is not None:
            self.slot.put(self.pipeline.last)
            self.result_ready.emit()


def start_worker(worker: Worker, request, parent: QObject | None = None) -> QThread:
    """Move ``worker`` to a new QThread, connect the ``request`` signal to it and start it.

    Connections are made after the move so that every request runs in the worker's thread.
    """
    thread = QThread(parent)
    thread.setObjectName("silkvision-worker")
    worker.moveToThread(thread)
    thread.started.connect(worker.setup)
    request.connect(worker.handle)
    thread.start()
    return thread
