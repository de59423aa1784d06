"""The worker: capture and detection in a QThread, results handed to the window by signal.

The window talks to the worker only through one queued signal, ``request(name, argument)``, and the
worker answers with signals. Each frame is detected exactly once (the worker never skips a frame);
the newest result waits in a :class:`LatestSlot` that the display takes at its own pace, counting
the frames it never drew (``LatestSlot.skipped``) instead of dropping them silently.
"""

from __future__ import annotations

import copy
import sys
import threading
import traceback
from dataclasses import dataclass

from PyQt5.QtCore import QObject, QThread, QTimer, pyqtSignal, pyqtSlot

from silkvision.errors import SilkvisionError, out_of_memory
from silkvision.gui.pipeline import NO_SOURCE, FrameResult, Pipeline

__all__ = ["Worker", "LatestSlot", "DetectorInfo", "start_worker"]


class LatestSlot:
    """Thread-safe box holding the newest :class:`FrameResult` not yet drawn."""

    def __init__(self):
        self._lock = threading.Lock()
        self._item: FrameResult | None = None
        self.skipped = 0  # processed frames replaced before the display took them

    def put(self, item: FrameResult) -> None:
        with self._lock:
            if self._item is not None and self._item.index != item.index:
                self.skipped += 1
            self._item = item

    def take(self) -> FrameResult | None:
        with self._lock:
            item, self._item = self._item, None
            return item

    def reset(self) -> None:
        """Drop the waiting result and restart the skipped count (new source, restart, seek)."""
        with self._lock:
            self._item = None
            self.skipped = 0


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
        out[role] = DetectorInfo(
            det.name,
            dict(det.get_params()),
            frozenset(det.RESTART_PARAMS),
            bool(det.has_scores),
            tuple(det.score_range) if det.has_scores else None,
            float(det.threshold) if det.has_scores else None,
        )
    return out


class Worker(QObject):
    """Runs a :class:`Pipeline` in its own thread.

    Parameters
    ----------
    pipeline : Pipeline
    max_frames : int, optional
        Pause once after this many frames (``silkvision gui --frames N``); Play then continues.
    """

    opened = pyqtSignal(object)  # SourceInfo
    result_ready = pyqtSignal()  # a FrameResult waits in .slot
    playing_changed = pyqtSignal(bool)
    detectors_changed = pyqtSignal(object)  # {"silk": DetectorInfo, "second": DetectorInfo}
    ranges_changed = pyqtSignal(object)  # the same, after a restart: only the score ranges changed
    configured = pyqtSignal(object)  # the pipeline's new config after a successful "configure"
    recording_changed = pyqtSignal(object)  # folder (str) being recorded to, or None
    message = pyqtSignal(str)
    error = pyqtSignal(str)
    restarted = pyqtSignal()  # detectors and ROC restarted without a new frame drawn
    ended = pyqtSignal(int)  # end of source or max_frames reached: frames processed
    stopped = pyqtSignal()

    def __init__(self, pipeline: Pipeline, max_frames: int | None = None):
        super().__init__()
        self.pipeline = pipeline
        self.max_frames = max_frames
        self.slot = LatestSlot()
        self.playing = False
        self._timer: QTimer | None = None
        self._recording: str | None = None  # what the window was last told (recording_changed)

    @pyqtSlot()
    def setup(self) -> None:
        """Create the frame timer in the worker's own thread (connected to ``QThread.started``)."""
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)

    # -- requests (run in the worker thread) -------------------------------------------------------
    @pyqtSlot(str, object)
    def handle(self, request: str, arg) -> None:
        """Dispatch one request from the window; user errors become an ``error`` signal.

        After a refused settings request the window is sent the live detector settings again, so
        that its panels and "Compare with" list show what the detectors really use.
        """
        try:
            getattr(self, "_do_" + request)(arg)
        except SilkvisionError as e:
            self._failed(request, str(e))
        except MemoryError as e:  # e.g. frames whose detector state does not fit (detector.memory)
            self._failed(request, out_of_memory(e))
        except Exception as e:  # keep the application alive; the traceback goes to stderr
            traceback.print_exc(file=sys.stderr)
            self._failed(request, f"{request}: {type(e).__name__}: {e}")

    def _failed(self, request: str, message: str) -> None:
        self._set_playing(False)
        if request in ("set_params", "second", "configure") and self.pipeline.detectors:
            self.detectors_changed.emit(detector_infos(self.pipeline))
        self._report_recording()
        self.error.emit(message)

    def _report_recording(self, always: bool = False) -> None:
        """Tell the window when recording started or stopped (also when it failed); ``always``
        answers a record request even when nothing changed (the window's toggle moved first)."""
        rec = self.pipeline.recorder
        folder = None if rec is None else str(rec.folder)
        if always or folder != self._recording:
            self._recording = folder
            self.recording_changed.emit(folder)

    def _do_open(self, arg) -> None:
        """Open a source; a recording of another source stops (its masks would be numbered like
        the new source's and overwrite the ones written). One started before any source was open
        records this one."""
        spec, groundtruth = arg
        self._set_playing(False)
        had_source = self.pipeline.src is not None
        info = self.pipeline.open(spec, groundtruth=groundtruth)
        self.pipeline.src.on_status = self.message.emit  # a stream's drop and return, as they happen
        self.slot.reset()
        self.opened.emit(info)
        self.detectors_changed.emit(detector_infos(self.pipeline))
        rec = self.pipeline.stop_recording() if had_source else None
        if rec is not None:
            self._report_recording()
            self.message.emit(
                f"opened {info.name}; recording stopped: {rec.written} masks in "
                f"{rec.folder} (Record again to record this source)"
            )

    def _do_play(self, _=None) -> None:
        """Play; at the end of a file or folder, Play starts again from the first frame."""
        if self.pipeline.src is None:
            raise SilkvisionError(NO_SOURCE)
        if self.pipeline.at_end and self.pipeline.src.seekable:
            self._do_restart()
        self._set_playing(True)

    def _do_pause(self, _=None) -> None:
        self._set_playing(False)

    def _do_step(self, _=None) -> None:
        self._set_playing(False)
        self._process_one()

    def _do_seek(self, index) -> None:
        self.pipeline.seek(int(index))
        self._first_frame(f"detectors and ROC restarted at frame {int(index)}")

    def _do_restart(self, _=None) -> None:
        self.pipeline.restart()
        self._first_frame("restarted from the first frame")

    def _first_frame(self, message: str) -> None:
        """Process the first frame after a seek or restart, then say ``message``. When that frame
        cannot be read, the window is told to clear what the old detectors drew (``restarted``)
        before the error is shown."""
        self.slot.reset()
        # the detectors restarted: their score range (the threshold slider's) is that of the C in
        # use now, no longer the largest C used before (not detectors_changed: that rebuilds the
        # parameter panels, which would drop a value typed but not yet applied)
        self.ranges_changed.emit(detector_infos(self.pipeline))
        try:
            self._process_one()
        except SilkvisionError:
            self.restarted.emit()
            raise
        self.message.emit(message)

    def _do_set_params(self, arg) -> None:
        role, params = arg
        name = "silk" if role == "silk" else self.pipeline.second
        restarted = self.pipeline.set_params(name, params)
        if restarted:
            self.slot.reset()  # no result of the old detectors may be drawn after this
        self.detectors_changed.emit(detector_infos(self.pipeline))
        if restarted:
            self.restarted.emit()
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
        self.slot.reset()  # no result of the old detectors may be drawn after this
        self.detectors_changed.emit(detector_infos(self.pipeline))
        self.restarted.emit()
        self.message.emit(f"second algorithm: {name}; detectors and ROC restarted")

    def _do_configure(self, arg) -> None:
        """Use a loaded configuration. Capture settings that a source is opened with apply to the
        next source opened (said in the message); ``capture.max_frames`` pauses playing after that
        many frames, as ``--frames`` does."""
        config, source = arg
        later = self.pipeline.configure(config)  # all or nothing
        self.slot.reset()  # no result of the old detectors may be drawn after this
        max_frames = self.pipeline.config["capture"]["max_frames"]
        if max_frames is not None:
            self.max_frames = max_frames
        self.detectors_changed.emit(detector_infos(self.pipeline))
        self.restarted.emit()
        self.configured.emit(copy.deepcopy(self.pipeline.config))
        notes = [f"parameters loaded from {source}; detectors restarted"]
        if max_frames is not None:
            notes.append(f"playing pauses after {max_frames} frames (capture.max_frames)")
        if later:
            notes.append(
                f"{' and '.join(later)} appl{'ies' if len(later) == 1 else 'y'} to the next source opened"
            )
        self.message.emit("; ".join(notes))

    def _do_reset_roc(self, _=None) -> None:
        self.pipeline.reset_roc()
        self.message.emit("ROC cleared")
        self._publish_last()  # a paused display redraws the empty ROC at once

    def _do_record(self, folder) -> None:
        try:
            if folder is None:
                rec = self.pipeline.stop_recording()
                if rec is not None:
                    self.message.emit(f"recording stopped: {rec.written} masks in {rec.folder}")
            else:
                rec = self.pipeline.start_recording(folder)
                self.message.emit(f"recording masks to {rec.folder}")
        finally:
            self._report_recording(always=True)

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
            self._failed("tick", str(e))
        except MemoryError as e:
            self._failed("tick", out_of_memory(e))
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            self._failed("tick", f"{type(e).__name__}: {e}")

    def _process_one(self) -> None:
        result = self.pipeline.step()
        if result is None:
            self._set_playing(False)
            self.message.emit(self.pipeline.end_message())
            self.ended.emit(self.pipeline.processed)
            return
        self.slot.put(result)
        self.result_ready.emit()
        if self.max_frames is not None and self.pipeline.processed >= self.max_frames:
            self.max_frames = None  # pause once; Play continues from there
            self._set_playing(False)
            self.message.emit(f"paused after {self.pipeline.processed} frames; Play goes on")
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
