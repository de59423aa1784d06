"""What the GUI's worker thread does for each frame, without any Qt: read a frame, run SILK and the
second algorithm, accumulate the live ROC against the ground truth, write recorded masks.

Keeping this Qt-free lets the tests check it directly and keeps the worker (:mod:`.worker`) a thin
thread wrapper. It uses the same detector objects (:func:`silkvision.create_subtractor`), capture
(:func:`silkvision.capture.open_source`) and ROC engine (:class:`silkvision.evaluation.RocAccumulator`)
as the command-line tools.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from silkvision.capture.checks import check_index
from silkvision.config import validate
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ConfigError, DataError, SourceError
from silkvision.evaluation.cdnet import label_classes
from silkvision.evaluation.runner import groundtruth_name
from silkvision.gui.recorder import MaskRecorder
from silkvision.io.manifest import source_fingerprint, source_id

__all__ = ["Pipeline", "FrameResult", "RocView", "SourceInfo", "MaskRecorder", "CAPTURE_AT_OPEN"]

#: what Play, Step and Restart say with no source open
NO_SOURCE = "no source is open: open a video, a folder or a camera first"
#: Capture settings a source is opened with: a change applies to the next source opened.
CAPTURE_AT_OPEN = ("resize", "camera_timeout", "reconnect_timeout")


@dataclass
class SourceInfo:
    """What the window needs to know about the open source."""

    spec: str
    kind: str
    name: str
    frame_count: int | None
    first_index: int
    seekable: bool
    has_groundtruth: bool
    temporal_roi: tuple[int, int] | None
    #: (frame, mask) shown in the ground-truth panel before a frame is processed: the first frame
    #: scored (the temporal ROI's first), else the first mask; None without ground truth
    first_gt: tuple[int, np.ndarray] | None = None

    @property
    def last_index(self) -> int | None:
        return None if self.frame_count is None else self.first_index + self.frame_count - 1


@dataclass
class RocView:
    """Snapshot of one algorithm's accumulated ROC (safe to hand to another thread)."""

    name: str
    frames: int = 0  # frames accumulated so far
    fpr: np.ndarray | None = None  # curve (None for detectors without scores)
    tpr: np.ndarray | None = None
    auc: float | None = None
    point: tuple[float, float] | None = None  # (fpr, tpr) at the current threshold
    f_measure: float | None = None  # of the scores at the current threshold (scored detectors)
    mask_f_measure: float | None = None  # of the masks as shown (post-processed), summed so far
    threshold: float | None = None
    exact: bool = True  # False: f_measure and point read from the histogram's bins
    note: str = ""  # why there is no curve/point yet


@dataclass
class FrameResult:
    """Everything drawn for one processed frame. Arrays are copies owned by the result."""

    index: int
    frame: np.ndarray
    masks: dict[str, np.ndarray]
    scores: np.ndarray | None
    score_range: tuple[float, float] | None
    gt: np.ndarray | None
    roc: dict[str, RocView]
    processed: int  # frames processed since the last (re)start
    fps: dict[str, float] = field(default_factory=dict)
    rethreshold: bool = False  # same frame redrawn (new threshold, cleared ROC): no new detection


def _default_opener(spec, **kw):
    from silkvision.capture import open_source

    return open_source(spec, **kw)


def _default_factory(name, config=None, **kw):
    from silkvision.detector import create_subtractor

    return create_subtractor(name, config=config, **kw)


class _Roc:
    """Live ROC of one detector: a RocAccumulator of its raw scores when it has scores, and for
    every detector the summed confusion counts of the masks as shown (after post-processing), so
    that the F-measures of a scored and an unscored detector can be compared."""

    def __init__(self, det, bins: int):
        from silkvision.evaluation import Counts

        self.det = det
        self.frames = 0
        self.acc = None
        self.counts = Counts(0, 0, 0, 0)
        if det.has_scores:
            from silkvision.evaluation import RocAccumulator

            lo, hi = det.score_range
            self.acc = RocAccumulator(lo, hi, bins=bins, thresholds=(det.threshold,))

    def update(self, mask, gt, roi) -> None:
        from silkvision.evaluation import confusion_counts

        if self.acc is not None:
            self.acc.update(self.det.scores, gt, roi)
        self.counts = self.counts + confusion_counts(mask, gt, roi)
        self.frames += 1

    def view(self, has_groundtruth: bool = True) -> RocView:
        """The accumulated ROC; ``has_groundtruth`` False: the source has none (said in the note)."""
        from silkvision.evaluation import metrics

        v = RocView(self.det.name, frames=self.frames)
        if self.frames == 0:
            v.note = "no frame with ground truth yet" if has_groundtruth else "no ground truth"
            return v
        shown = metrics(self.counts)
        if np.isfinite(shown["f_measure"]):
            v.mask_f_measure = float(shown["f_measure"])
        if self.acc is not None:
            if self.acc.positives == 0 or self.acc.negatives == 0:
                v.note = (
                    "no foreground in the ground truth yet"
                    if self.acc.positives == 0
                    else "no background in the ground truth yet"
                )
                return v  # ROC undefined until both classes were seen
            fpr, tpr, _ = self.acc.curve()
            v.fpr, v.tpr = np.asarray(fpr, float), np.asarray(tpr, float)
            v.auc = float(self.acc.auc())
            v.threshold = float(self.det.threshold)
            m = metrics(self.acc.counts_at(v.threshold))
            v.exact = self.acc.is_exact(v.threshold)  # a threshold moved since the last restart
            v.f_measure = None if not np.isfinite(m["f_measure"]) else float(m["f_measure"])
        else:
            m = shown
        if np.isfinite(m["fpr"]) and np.isfinite(m["recall"]):
            v.point = (float(m["fpr"]), float(m["recall"]))
        else:
            v.note = "no foreground in the ground truth yet"
        return v


@contextlib.contextmanager
def _as_config_error(prefix: str = ""):
    """A detector's own range check (a ``ValueError``) is a user error: re-raise it as the
    :class:`ConfigError` the window shows (a ConfigError passes unchanged)."""
    try:
        yield
    except ConfigError:
        raise
    except ValueError as e:
        raise ConfigError(f"{prefix}{e}") from None


class Pipeline:
    """Source + SILK + a second algorithm + live ROCs + optional recording.

    Parameters
    ----------
    config : dict
        A (partial) configuration; validated and merged over the defaults.
    second : str, optional
        The algorithm shown beside SILK; default ``config["gui"]["second_algorithm"]``.
    opener, factory : callable, optional
        ``open_source`` and ``create_subtractor`` replacements (tests).
    """

    def __init__(
        self,
        config: dict | None = None,
        second: str | None = None,
        opener: Callable | None = None,
        factory: Callable | None = None,
    ):
        self.config = validate(config or {}, "config")
        self.opener = opener or _default_opener
        self.factory = factory or _default_factory
        self.second = second or self.config["gui"]["second_algorithm"]  # 'silk': _make_detectors refuses it
        self.config["gui"]["second_algorithm"] = self.second
        self.src = None
        self.info: SourceInfo | None = None
        self.capture_used: dict = {}  # the capture settings the open source was opened with
        self.at_end = False  # the source ended (a step returned None)
        self.unreadable: str | None = None  # why the next frame cannot be read (a read failed)
        self._next_index: int | None = None  # number of the frame the next read should give
        self._first_bad: int | None = None  # lowest frame of the open video that failed to decode
        self.recorder: MaskRecorder | None = None
        self.processed = 0
        self.last: FrameResult | None = None
        self._it = None
        self._fps: dict[str, float] = {}
        self._dt: dict[str, float] = {}
        self.detectors: dict[str, Any] = {}
        self._build_detectors()

    # -- set-up -------------------------------------------------------------------------------
    def _make_detectors(self, config: dict, second: str) -> dict[str, Any]:
        """New SILK and ``second`` detectors for ``config``; nothing of the pipeline changes.

        Raises
        ------
        ConfigError
            ``second`` is SILK itself or is not available on this installation (gsoc/cnt without
            opencv-contrib), or a detector refuses a value.
        """
        if second == "silk":
            raise ConfigError(
                "gui.second_algorithm: 'silk' is already shown; expected norma, mog2, knn, gsoc or cnt"
            )
        with _as_config_error():
            return {"silk": self.factory("silk", config=config), second: self.factory(second, config=config)}

    def _build_detectors(self) -> None:
        self._use_detectors(self._make_detectors(self.config, self.second))

    def _use_detectors(self, detectors: dict[str, Any]) -> None:
        self.detectors = detectors
        self._reset_state()
        self._write_configs(list(self.detectors))  # a new second algorithm: a folder to claim

    def _write_configs(self, names: list[str]) -> None:
        """Rewrite the recording's ``config.yaml`` of ``names``; an error (the folder of a new
        algorithm holds other files, disk full) stops the recording before it is raised."""
        if self.recorder is None:
            return
        try:
            for name in names:
                self.recorder.write_config(name, self.config)
        except Exception:
            self.recorder = None
            raise

    def _fresh_rocs(self) -> dict:
        """An empty live ROC per detector, at its current threshold."""
        bins = self.config["evaluation"]["bins"]
        return {name: _Roc(det, bins) for name, det in self.detectors.items()}

    def _reset_state(self) -> None:
        for det in self.detectors.values():
            det.reset()
        self.rocs = self._fresh_rocs()
        self.processed = 0
        self.last = None
        self._fps = {}
        self._dt: dict[str, float] = {}

    @property
    def silk(self):
        return self.detectors["silk"]

    def open(self, spec, groundtruth=None) -> SourceInfo:
        """Open a source (closing the previous one) and reset the detectors and ROCs.

        Raises
        ------
        SourceError
            The source cannot be opened, or its ground truth is not the size of its frames (the
            first ground-truth mask is checked now); the previous source stays open.
        DataError
            The first ground-truth mask holds values that are not CDnet labels (lossy JPEG ground
            truth); the previous source stays open.
        """
        cap = self.config["capture"]
        resize = tuple(cap["resize"]) if cap["resize"] else None
        src = self.opener(
            spec,
            camera_timeout=cap["camera_timeout"],
            resize=resize,
            groundtruth=groundtruth,
            reconnect_timeout=cap["reconnect_timeout"],
        )
        first = None
        if src.has_groundtruth:
            try:
                first = src.check_groundtruth()
                if first is not None:  # lossy (JPEG) ground truth: refused now, not at each frame
                    label_classes(first[1], name=groundtruth_name(src, first[0]))
            except Exception:
                src.close()
                raise
            first = self._first_scored_gt(src, first)
        self.close()
        self.src = src
        self._opened_at = (
            datetime.now().astimezone().isoformat(timespec="milliseconds")
        )  # see _source_identity
        self.capture_used = {k: cap[k] for k in CAPTURE_AT_OPEN}
        self.at_end, self.unreadable, self._next_index = False, None, src.first_index
        self._first_bad = None
        self._it = iter(src)
        self.info = SourceInfo(
            spec=str(spec),
            kind=src.kind,
            name=src.name,
            frame_count=src.frame_count,
            first_index=src.first_index,
            seekable=src.seekable,
            has_groundtruth=src.has_groundtruth,
            temporal_roi=src.temporal_roi,
            first_gt=first,
        )
        self._reset_state()
        return self.info

    @staticmethod
    def _first_scored_gt(src, first):
        """The ground truth to show on open: the temporal ROI's first mask (a CDnet sequence's
        masks before it are all "outside ROI", a flat grey), else ``first``; ``first`` also when
        that mask cannot be read (the error comes when its frame is processed)."""
        troi = src.temporal_roi
        if troi is None or first is None or troi[0] == first[0]:
            return first
        try:
            gt = src.groundtruth(troi[0])
        except (SourceError, DataError):
            return first
        return first if gt is None else (troi[0], np.array(gt, copy=True))

    def close(self) -> None:
        if self.src is not None:
            src, self.src, self._it = self.src, None, None
            src.close()

    def interrupt(self) -> None:
        """Thread-safe: end a read that waits for a camera frame (see ``Source.interrupt``), so
        that a stop request queued behind it is handled at once."""
        src = self.src
        if src is not None:
            src.interrupt()

    # -- processing ---------------------------------------------------------------------------
    def _scored_frame(self, index: int) -> bool:
        if self.src is None or not self.src.has_groundtruth:
            return False
        troi = self.src.temporal_roi
        return troi is None or troi[0] <= index <= troi[1]

    def step(self) -> FrameResult | None:
        """Process the next frame; ``None`` at the end of the source (then :attr:`at_end`).

        Raises
        ------
        SourceError
            The source is closed, or reading failed (corrupt file, truncated video, camera lost);
            the message ends with the way forward (seek past the frame, before it in a video, or
            Restart). A video cannot be read after a failed frame: each later step says so
            (``cannot go on: ...``) until a seek or Restart.
        """
        if self.src is None:
            raise SourceError(NO_SOURCE)
        try:
            index, frame = next(self._it)
        except StopIteration:
            if self.unreadable is not None:  # a video stops for good after a failed read
                raise SourceError(f"cannot go on: {self.unreadable}") from None
            self.at_end = True
            return None
        except SourceError as e:
            if self.info.kind == "video":  # the first frame that failed, also after seeks past it
                self._first_bad = min(self._next_index, self._first_bad or self._next_index)
            self.unreadable = f"{e}; {self._way_forward()}"
            raise SourceError(self.unreadable) from None
        self.unreadable, self._next_index = None, index + 1
        frame = np.array(frame, copy=True)
        # the ground truth is read before the detectors learn the frame: a mask that cannot be read
        # leaves the frame out altogether (it used to be learned, but not shown, counted or recorded)
        gt = roi = None
        if self.src.has_groundtruth:
            try:
                gt = self.src.groundtruth(index)
                scored = gt is not None and self._scored_frame(index)
                roi = self.src.roi if scored else None
                if scored:
                    label_classes(gt, roi, name=groundtruth_name(self.src, index))
            except (SourceError, DataError) as e:
                raise SourceError(
                    f"{e}; frame {index} was left out (not learned or shown): Step and "
                    f"Play go on with the next frame"
                ) from None
        masks, times = {}, {}
        for name, det in self.detectors.items():
            t0 = time.perf_counter()
            masks[name] = det.apply(frame)
            times[name] = time.perf_counter() - t0
        if gt is not None and self._scored_frame(index):
            for name, roc in self.rocs.items():
                roc.update(masks[name], gt, roi)
        silk = self.silk
        scores = silk.scores.copy() if silk.has_scores else None
        self.processed += 1
        if self.processed > 1:  # the first frame after a (re)start is a warm-up (JIT, allocation)
            for name, dt in times.items():  # rate from a moving average of the detection time
                old = self._dt.get(name)
                self._dt[name] = dt if old is None else 0.9 * old + 0.1 * dt
                self._fps[name] = 1.0 / max(self._dt[name], 1e-9)
        self.last = FrameResult(
            index=index,
            frame=frame,
            masks=masks,
            scores=scores,
            score_range=tuple(silk.score_range) if silk.has_scores else None,
            gt=gt,
            roc=self.roc_views(),
            processed=self.processed,
            fps=dict(self._fps),
        )
        # written last: a failed write (disk full) leaves the frame fully processed and shown
        # (learned, counted in the ROC, in ``last``), only the recording stops
        self._record(masks, index)
        return self.last

    def _way_forward(self) -> str:
        """What the user can do after the next frame of the open source could not be read."""
        if not self.src.seekable:
            return f"open the {self.info.kind} again"
        if self.info.kind == "video":  # decoding does not go on after a failed frame
            return f"seek before frame {self._first_bad} or press Restart"
        return "seek past this frame to go on, or press Restart"

    def end_message(self) -> str:
        """The status line at the end of the source: where it ended and what Play does now."""
        where = "" if self.last is None else f" after frame {self.last.index}"
        again = (
            "Play starts again from the first frame"
            if self.src is not None and self.src.seekable
            else f"open the {self.info.kind} again to go on"
        )
        return f"end of {self.info.name}{where} ({self.processed} frames processed); {again}"

    def _record(self, masks: dict[str, np.ndarray], index: int) -> None:
        """Write ``masks`` when recording; a failed write (disk full, folder gone) stops the
        recording before the error is raised, so that it is not retried every frame."""
        if self.recorder is None:
            return
        try:
            if self.recorder.source is None:  # started before a source (or a camera's first frame)
                self.recorder.bind(self._source_identity())
            for name, m in masks.items():
                self.recorder.write(name, index, m)
        except Exception:
            self.recorder = None
            raise

    def roc_views(self) -> dict[str, RocView]:
        has_gt = self.src is None or self.src.has_groundtruth
        return {name: roc.view(has_gt) for name, roc in self.rocs.items()}

    def rethreshold(self, threshold: float) -> FrameResult | None:
        """Set SILK's threshold and redo the last frame's SILK mask from its stored scores (no
        detection is re-run). Returns the updated result (``None`` if no frame yet)."""
        self.silk.set_params(threshold=float(threshold))
        self._store_params("silk", {"threshold": self.silk.threshold})  # kept when detectors are rebuilt
        self._write_configs(["silk"])  # config.yaml: the settings of the masks written from now on
        if all(r.frames == 0 for r in self.rocs.values()):
            # nothing accumulated yet: the ROCs start at the new threshold, so that its F is exact
            self.rocs = self._fresh_rocs()
        last = self.last
        if last is None or last.scores is None:
            return None
        mask = self.silk.mask_from_scores(last.scores, float(threshold))
        self._record({"silk": mask}, last.index)
        self.last = FrameResult(
            index=last.index,
            frame=last.frame,
            masks={**last.masks, "silk": mask},
            scores=last.scores,
            score_range=last.score_range,
            gt=last.gt,
            roc=self.roc_views(),
            processed=last.processed,
            fps=last.fps,
            rethreshold=True,
        )
        return self.last

    # -- control ------------------------------------------------------------------------------
    def seek(self, index: int) -> None:
        """Continue from frame ``index`` with fresh detectors and ROCs (no frame is counted twice).
        ``index`` must be an integer (``ValueError`` otherwise, as for the sources)."""
        index = check_index(index)
        if self.src is None:
            raise SourceError(NO_SOURCE)
        if not self.src.seekable:
            raise SourceError(f"{self.info.spec}: a {self.info.kind} cannot seek")
        first, last = self.info.first_index, self.info.last_index
        if last is not None and index == last + 1:  # sources allow it (iteration ends); a user means a frame
            raise SourceError(
                f"{getattr(self.src, 'spec', self.info.spec)}: there is no frame {index}; "
                f"expected a frame number in {first}..{last}"
            )
        self.src.seek(index)
        self.at_end, self.unreadable, self._next_index = False, None, index
        self._reset_state()

    def restart(self) -> None:
        """Back to the first frame (seekable sources) with fresh detectors and ROCs."""
        if self.src is not None and self.src.seekable:
            self.seek(self.src.first_index)
        else:
            self._reset_state()

    def set_params(self, name: str, params: dict) -> bool:
        """Live parameter change of detector ``name`` ("silk" or the second algorithm's name).

        Returns True when a restart parameter changed; then both detectors and both ROCs restart
        so that the curves keep comparing the same frames.

        The mask keys shared by all detectors in the configuration (``median``, ``close``,
        ``fill_holes``, ``colour_space``: one ``detector.median`` etc.) apply to every detector that
        has them, whichever tab set them, so that Save parameters and a recording's
        ``config.yaml`` describe the masks shown.
        """
        det = self.detectors[name]
        changes = [(name, det, params)]
        shared = {k: v for k, v in params.items() if k in SHARED_KEYS}
        for other, d in self.detectors.items():
            own = {k: v for k, v in shared.items() if k in d.get_params()} if other != name else {}
            if own:
                changes.append((other, d, own))
        restart = False
        for _, d, p in changes:
            current = d.get_params()
            restart = restart or any(k in d.RESTART_PARAMS and current.get(k) != v for k, v in p.items())
        with _as_config_error(f"{name}: "):
            det.set_params(**params)  # checks every value before changing any
        for other, d, p in changes[1:]:  # the same shared values, already accepted above
            d.set_params(**p)
        for n, d, _ in changes:
            self._store_params(n, d.get_params())
        self._write_configs([n for n, _, _ in changes])
        if restart:
            self._reset_state()
        elif "threshold" in params and name == "silk" and self.last is not None:
            self.rethreshold(params["threshold"])
        return restart

    def _store_params(self, name: str, params: dict) -> None:
        det_cfg = self.config["detector"]
        section = det_cfg.get(name)
        for k, v in params.items():
            if isinstance(section, dict) and k in section:
                section[k] = v
            elif k in SHARED_KEYS:
                det_cfg[k] = v

    def set_second(self, name: str) -> None:
        """Replace the second algorithm; both detectors and ROCs restart.

        Raises
        ------
        ConfigError
            ``name`` is SILK or not available; the pipeline is left as it was.
        ExportError
            A recording is running and ``name``'s folder in it may not be written (it holds other
            files): the new detectors are in use, and the recording has stopped.
        """
        detectors = self._make_detectors(self.config, name)
        self.second = name
        self.config["gui"]["second_algorithm"] = name
        self._use_detectors(detectors)

    def configure(self, config: dict) -> list[str]:
        """Use a new configuration (e.g. loaded from YAML): new detectors, fresh ROCs.

        All or nothing: the new detectors are built before anything is replaced, so a
        :class:`ConfigError` (bad value, unavailable second algorithm) leaves the pipeline as it was.

        Returns
        -------
        list of str
            The capture keys (``capture.resize``...) that differ from those the open source was
            opened with: they apply to the next source opened.
        """
        new = validate(config, "config")
        second = new["gui"]["second_algorithm"]
        detectors = self._make_detectors(new, second)
        self.config, self.second = new, second
        self._use_detectors(detectors)
        if self.src is None:
            return []
        return [f"capture.{k}" for k in CAPTURE_AT_OPEN if new["capture"][k] != self.capture_used[k]]

    def reset_roc(self) -> FrameResult | None:
        """Forget the accumulated ROC counts (the detectors keep learning).

        Returns the last result with the cleared ROC views, so that a paused display can redraw at
        once (``None`` if no frame yet).
        """
        self.rocs = self._fresh_rocs()
        if self.last is None:
            return None
        self.last = dataclasses.replace(self.last, roc=self.roc_views(), rethreshold=True)
        return self.last

    def _source_identity(self) -> dict | None:
        """What a recording folder's ``recording.json`` says of the open source (None: none open).
        A file or folder by its resolved path, however it was typed, and the fingerprint of its
        files (:func:`~silkvision.io.manifest.source_fingerprint`); a camera by its opening too: its
        frame numbers start again at each opening."""
        if self.src is None or self.src.frame_size is None:
            return None
        spec = source_id(self.src) if hasattr(self.src, "spec") else self.info.spec  # custom sources
        ident = {"spec": spec, "kind": self.info.kind, "size": list(self.src.frame_size)}
        if self.src.seekable:  # a file or folder: another clip at the same path is another source
            ident["fingerprint"] = source_fingerprint(self.src)
        else:
            ident["opened"] = self._opened_at
        return ident

    def start_recording(self, folder: str | Path) -> MaskRecorder:
        """Record every mask shown from now on into ``folder`` (:mod:`silkvision.gui.recorder`).

        Raises
        ------
        ExportError
            ``folder/<algorithm>`` holds an export, a recording of another source or other files,
            or cannot be written (one line naming it); nothing is recorded then.
        """
        rec = MaskRecorder(folder, self._source_identity())
        for name in self.detectors:
            rec.write_config(name, self.config)
        self.recorder = rec
        return rec

    def stop_recording(self) -> MaskRecorder | None:
        rec, self.recorder = self.recorder, None
        return rec
