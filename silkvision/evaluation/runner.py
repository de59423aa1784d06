"""Run detectors over sequences with ground truth, or score existing masks, under CDnet rules.

:func:`evaluate_sequence` runs every requested detector over the *whole* sequence (warm-up frames
included, each detector learning from every frame) and scores the evaluated frames;
:func:`score_results` scores masks some tool already wrote (``bin%06d.png``).

Which frames are evaluated
--------------------------
* With a ``temporalROI.txt`` ("first last"): exactly the frames ``first..last``. The range must lie
  inside the sequence's frames and every frame in it must have a ground-truth file; otherwise a
  :class:`~silkvision.errors.DataError` names the problem (no silent shortening).
* Without one: every frame that has a ground-truth file (at least one is required). Sparse ground
  truth (e.g. every 10th frame labelled) is allowed; :func:`sequence_frames` reports which frames
  have none (``silkvision evaluate`` prints it as a one-line note), so a shrunken range is never
  silent.

Sources
-------
``path`` is a CDnet folder (``input/``, ``groundtruth/gt%06d.png``, optional ``ROI.bmp``, optional
``temporalROI.txt``), an image folder or a video file plus ``groundtruth=DIR``. For a video file
without ``groundtruth``, ``<stem>_groundtruth/`` or ``groundtruth/`` beside it is used; then
``temporalROI.txt`` and ``ROI.bmp`` are read from the folder holding the ground-truth folder (the
CDnet layout with the video in place of ``input/``).

Ground truth and ROI must have the frames' size (a clear error otherwise; nothing is resized
unless the source itself was opened with ``resize``, which rescales labels with nearest neighbour).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from silkvision.config import validate
from silkvision.errors import ConfigError, DataError, ExportError, SourceError
from silkvision.evaluation.cdnet import (
    Counts,
    class_counts,
    label_classes,
    mask_foreground,
    metrics,
)
from silkvision.evaluation.light_switch import LightSwitch, apply_light_switches, check_disjoint
from silkvision.evaluation.roc import RocAccumulator
from silkvision.io.manifest import MANIFEST, read_manifest

__all__ = [
    "AlgorithmResult",
    "SequenceResult",
    "SequenceFrames",
    "evaluate_sequence",
    "evaluate_sequences",
    "score_results",
    "open_evaluation_source",
    "evaluated_frames",
    "sequence_frames",
    "groundtruth_name",
    "DEFAULT_ALGORITHMS",
]

DEFAULT_ALGORITHMS = ("silk", "norma", "mog2", "knn")


@dataclass
class AlgorithmResult:
    """Scores of one algorithm (or one folder of result masks) on one sequence.

    Attributes
    ----------
    algorithm : str
        Detector name, or the results folder's name.
    counts : Counts
        Confusion counts of the masks (as exported: after the detector's post-processing -- median
        filter, closing, hole filling), pooled over the evaluated frames.
    frame_indices : ndarray
        Frame numbers of the evaluated frames.
    frame_counts : ndarray
        ``(n_frames, 4)`` int64 per-frame ``tp, fp, fn, tn`` (same order as ``frame_indices``).
    threshold : float or None
        The detector's threshold (scored detectors).
    roc : RocAccumulator or None
        Score histograms (scored detectors only): ROC/PR/AUC of the raw decision ``score < t``.
    median, close : int or None
        Median filter and closing sizes applied to the masks (0: off; None: unknown, e.g. masks of
        a results folder).
    fill_holes : bool or None
        Whether enclosed holes of the masks were filled (None: unknown).
    seconds : float
        Wall time spent in the detector (``apply``), for information.
    """

    algorithm: str
    counts: Counts
    frame_indices: np.ndarray
    frame_counts: np.ndarray
    threshold: float | None = None
    roc: RocAccumulator | None = None
    median: int | None = None
    close: int | None = None
    fill_holes: bool | None = None
    seconds: float = 0.0

    @property
    def metrics(self) -> dict:
        return metrics(self.counts)

    @property
    def auc(self) -> float | None:
        if self.roc is None:
            return None
        try:
            return self.roc.auc()
        except DataError:
            return None

    @property
    def roc_counts(self) -> Counts | None:
        """Counts of the raw ``score < threshold`` decision (the ROC's operating point)."""
        if self.roc is None or self.threshold is None:
            return None
        return self.roc.counts_at(self.threshold)

    @property
    def postprocessing(self) -> str | None:
        """The masks' post-processing in words, e.g. ``"median 5, closing 5, hole filling"``;
        ``"no post-processing"`` when all of it is off; None when unknown (results folders)."""
        if self.median is None and self.close is None and self.fill_holes is None:
            return None
        steps = [
            f"median {self.median}" if self.median else "",
            f"closing {self.close}" if self.close else "",
            "hole filling" if self.fill_holes else "",
        ]
        return ", ".join(s for s in steps if s) or "no post-processing"

    def best_f(self) -> tuple[float, float] | tuple[None, None]:
        """``(threshold, F)`` of the best F-measure over the ROC's thresholds: the raw decision
        ``score < threshold``, before the masks' post-processing (so it may be below the masks'
        F); ``(None, None)`` without scores."""
        if self.roc is None:
            return None, None
        try:
            return self.roc.best_f()
        except DataError:
            return None, None

    def per_frame_f(self) -> np.ndarray:
        """Per-frame F-measure (``nan`` where a frame has no positive and no detection)."""
        tp, fp, fn = (self.frame_counts[:, k].astype(float) for k in range(3))
        denom = 2 * tp + fp + fn
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), np.nan)

    def row(self) -> dict:
        """One JSON-ready row: counts, the seven metrics, ``auc`` and ``threshold``, plus
        ``best_f``/``best_f_threshold`` from the ROC (raw scores, see :meth:`best_f`), the
        post-processing ``median``, ``close`` and ``fill_holes``, and ``frames``."""
        out: dict[str, Any] = self.counts.as_dict()
        out.update(self.metrics)
        out["auc"] = self.auc
        out["threshold"] = self.threshold
        thr, f = self.best_f()
        out["best_f"] = f
        out["best_f_threshold"] = thr
        out["median"] = self.median
        out["close"] = self.close
        out["fill_holes"] = self.fill_holes
        out["frames"] = int(len(self.frame_indices))
        return out


@dataclass
class SequenceResult:
    """Everything measured on one sequence.

    Attributes
    ----------
    name, path, category : str
        The sequence's folder name, its path, and the name of the folder above it (CDnet's
        category).
    first, last : int
        Numbers of the first and last evaluated frames.
    frames : int
        Frames the detectors read (0 when only ``--results`` masks were scored).
    evaluated : ndarray of int
        Numbers of the evaluated frames.
    algorithms : dict
        Name -> :class:`AlgorithmResult`.
    brightness, brightness_indices : ndarray or None
        Mean grey level of every frame the detectors read (after any light switch), and those
        frames' numbers.
    light_switches : tuple of LightSwitch
        The simulated light switches applied.
    """

    name: str
    path: str
    category: str
    first: int
    last: int
    frames: int  # frames the detectors read (0: only --results scored)
    evaluated: np.ndarray
    algorithms: dict = field(default_factory=dict)  # name -> AlgorithmResult
    brightness: np.ndarray | None = None  # mean grey level of every processed frame (after switches)
    brightness_indices: np.ndarray | None = None
    light_switches: tuple = ()


# -- sources -------------------------------------------------------------------------------------


class _Extras:
    """temporalROI / ROI for a video file read from the folder holding its ground truth."""

    def __init__(self, folder: Path | None):
        self.temporal_roi = self.roi = None
        self.files: dict = {}  # file name -> the path it was read from
        if folder is None:
            return
        from silkvision.capture.cdnet import read_roi, read_temporal_roi

        # present (even as a broken link or a FIFO) means meant to count: read, or refused
        if os.path.lexists(folder / "temporalROI.txt"):
            self.temporal_roi = read_temporal_roi(folder / "temporalROI.txt")
            self.files["temporalROI.txt"] = folder / "temporalROI.txt"
        if os.path.lexists(folder / "ROI.bmp"):
            self.roi = read_roi(folder / "ROI.bmp")
            self.files["ROI.bmp"] = folder / "ROI.bmp"


def open_evaluation_source(path, groundtruth=None, *, files: dict | None = None, **kwargs):
    """Open ``path`` with :func:`silkvision.capture.open_source`, finding the ground truth of a video
    file beside it (see the module docstring). Returns ``(source, temporal_roi, roi_or_None)``.
    A ``files`` dict receives the paths that ``temporalROI.txt`` and ``ROI.bmp`` were read from
    (keyed by those names), for messages."""
    from silkvision.capture import open_source

    p = Path(path)
    extras = _Extras(None)
    if p.is_file():
        if groundtruth is None:
            for cand in (p.with_name(p.stem + "_groundtruth"), p.parent / "groundtruth"):
                if cand.is_dir():
                    groundtruth = cand
                    break
        if groundtruth is not None:
            extras = _Extras(Path(groundtruth).resolve().parent)
    src = open_source(str(p), groundtruth=groundtruth, **kwargs)
    if not src.has_groundtruth:
        raise DataError(
            f"{path}: no ground truth; expected a groundtruth/ folder of gt%06d.png "
            f"(or pass --groundtruth DIR)"
        )
    troi = src.temporal_roi if src.temporal_roi is not None else extras.temporal_roi
    roi = src.roi if src.roi is not None else extras.roi
    if files is not None:
        own = Path(src.spec)  # a CDnet folder's own files come first
        files.update(
            {
                name: own / name
                for name, v in (("temporalROI.txt", src.temporal_roi), ("ROI.bmp", src.roi))
                if v is not None
            }
        )
        files.update({k: v for k, v in extras.files.items() if k not in files})
    return src, troi, roi


def _frame_numbers(src) -> list[int] | None:
    idx = getattr(src, "indices", None)
    if idx is not None:
        return list(idx)
    n = src.frame_count
    if n is None:
        return None
    return list(range(src.first_index, src.first_index + n))


def evaluated_frames(src, temporal_roi, temporal_roi_file=None) -> list[int]:
    """Frame numbers to score (see the module docstring); raises DataError when inconsistent,
    naming ``temporal_roi_file`` (the file the range was read from) when given."""
    frames = _frame_numbers(src)
    where = getattr(src, "spec", src.name)
    read_from = "" if temporal_roi_file is None else f" (read from {temporal_roi_file})"
    if temporal_roi is not None:
        first, last = temporal_roi
        if frames is not None:
            if not frames:
                raise DataError(f"{where}: no frames")
            if first < frames[0] or last > frames[-1]:
                raise DataError(
                    f"{where}: temporalROI {first} {last}{read_from} is outside the frames "
                    f"{frames[0]}..{frames[-1]}; expected a range inside them"
                )
            have = set(frames)
            missing = [i for i in range(first, last + 1) if i not in have]
            if missing:
                raise DataError(
                    f"{where}: frame {missing[0]} is missing inside temporalROI {first} "
                    f"{last}{read_from} ({len(missing)} missing); expected every frame of the "
                    f"range"
                )
        wanted = list(range(first, last + 1))
    else:
        if frames is None:
            raise DataError(
                f"{where}: frame count unknown and no temporalROI.txt; expected a "
                f"temporalROI.txt naming the evaluated frames"
            )
        wanted = [i for i in frames if _has_gt(src, i)]
    if temporal_roi is not None:
        missing = [i for i in wanted if not _has_gt(src, i)]
        if missing:
            n = len(missing)
            raise DataError(
                f"{where}: ground truth of frame {missing[0]} is missing inside temporalROI "
                f"{temporal_roi[0]} {temporal_roi[1]}{read_from} ({n} frame{'s' if n != 1 else ''} "
                f"without ground truth); expected a gt%06d.png for every evaluated frame"
            )
    if not wanted:
        raise DataError(f"{where}: no frame with ground truth to evaluate")
    return wanted


def format_frames(numbers: Sequence[int], limit: int = 6) -> str:
    """Frame numbers as short ranges: ``[6, 9, 11, 12, 13]`` -> ``"6, 9, 11..13"`` (at most
    ``limit`` ranges, then ``", ..."``)."""
    runs: list[list[int]] = []
    for i in sorted(numbers):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    parts = [str(a) if a == b else f"{a}..{b}" for a, b in runs[:limit]]
    return ", ".join(parts) + (", ..." if len(runs) > limit else "")


@dataclass
class SequenceFrames:
    """Which frames of a sequence exist and which are evaluated (see :func:`sequence_frames`).

    Attributes
    ----------
    name : str
        The source's name (the sequence name in reports).
    where : str
        The source's path, for messages.
    first, last : int or None
        First and last frame number of the sequence; None when unknown (some video files).
    evaluated : list of int
        The evaluated frame numbers (:func:`evaluated_frames`).
    temporal_roi : (int, int) or None
    without_gt : list of int
        Without a temporalROI: the sequence's frames that have no ground truth and are therefore
        not evaluated (empty with a temporalROI, where a missing one is an error).
    files : dict
        ``"temporalROI.txt"`` and ``"ROI.bmp"`` -> the path each was read from, when read.
    """

    name: str
    where: str
    first: int | None
    last: int | None
    evaluated: list
    temporal_roi: tuple | None = None
    without_gt: list = field(default_factory=list)
    files: dict = field(default_factory=dict)

    def ground_truth_note(self) -> str | None:
        """One line saying how many frames are evaluated and which have no ground truth, when some
        frames of a sequence without temporalROI have none (None otherwise)."""
        if not self.without_gt:
            return None
        n_all = len(self.evaluated) + len(self.without_gt)
        many = len(self.without_gt) > 1
        return (
            f"{self.where}: ground truth for {len(self.evaluated)} of {n_all} frames and no "
            f"temporalROI.txt; evaluating those {len(self.evaluated)} only (frame"
            f"{'s' if many else ''} {format_frames(self.without_gt)} {'have' if many else 'has'} "
            f"none)"
        )


def sequence_frames(
    path, groundtruth=None, *, check_groundtruth: bool = False, progress: bool = False
) -> SequenceFrames:
    """Open a sequence (as :func:`evaluate_sequence` does) and list its frames, without running
    any detector; raises the same :class:`~silkvision.errors.DataError` for inconsistent ground truth
    (so that a command can check every sequence before the first detector runs).

    Parameters
    ----------
    path, groundtruth
        As for :func:`evaluate_sequence`.
    check_groundtruth : bool
        Also read the ground truth of every evaluated frame and check it (a decodable 8-bit image of
        the frames' size with only CDnet labels), so that a bad file stops the run before any
        detector did work, its path named. Reading costs about 1 ms per 320x240 frame.
    progress : bool
        Show a progress bar on stderr while checking the ground truth.
    """
    files: dict = {}
    src, troi, _ = open_evaluation_source(path, groundtruth, files=files)
    with src:
        wanted = evaluated_frames(src, troi, files.get("temporalROI.txt"))
        if check_groundtruth:
            _check_groundtruth(src, wanted, progress)
        frames = _frame_numbers(src)
        without = []
        if troi is None and frames is not None:
            have = set(wanted)
            without = [i for i in frames if i not in have]
        return SequenceFrames(
            name=src.name,
            where=src.spec,
            first=frames[0] if frames else None,
            last=frames[-1] if frames else None,
            evaluated=wanted,
            temporal_roi=troi,
            without_gt=without,
            files=files,
        )


def _check_groundtruth(src, frames: Sequence[int], progress: bool) -> None:
    """Read and check the ground truth of ``frames`` (see :func:`sequence_frames`)."""
    bar = _progress(len(frames), f"{src.name} ground truth", progress, position=0)
    try:
        for index in frames:
            label_classes(_read_gt(src, index, src.spec), name=groundtruth_name(src, index))
            bar.update(1)
    finally:
        bar.close()


def _has_gt(src, index: int) -> bool:
    """Whether frame ``index`` has a ground-truth file (without decoding it when the source can
    tell; otherwise by reading it)."""
    if hasattr(src, "groundtruth_path"):
        return src.groundtruth_path(index) is not None
    return src.groundtruth(index) is not None


def groundtruth_name(src, index: int) -> str:
    """The ground-truth file of frame ``index`` for messages (``.../groundtruth/gt000150.png``), or
    ``"ground truth of frame 150"`` when the source does not tell."""
    path = src.groundtruth_path(index) if hasattr(src, "groundtruth_path") else None
    return str(path) if path is not None else f"ground truth of frame {index}"


def _read_gt(src, index: int, where: str) -> np.ndarray:
    gt = src.groundtruth(index)
    if gt is None:
        raise DataError(
            f"{where}: ground truth of frame {index} is missing; expected a gt%06d.png "
            f"for every evaluated frame"
        )
    return gt


def _category(path: Path) -> str:
    """CDnet layout dataset/CATEGORY/VIDEO: the parent folder's name."""
    return path.resolve().parent.name or "all"


# -- running detectors ---------------------------------------------------------------------------


def _make_detector(name: str, cfg: dict):
    from silkvision.detector import create_subtractor

    return create_subtractor(name, config=cfg)


def _progress(total: int, desc: str, enabled: bool, position: int = 1):
    from tqdm import tqdm

    tty = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    return tqdm(
        total=total,
        desc=desc,
        unit="frame",
        file=sys.stderr,
        disable=not enabled,
        leave=False,
        position=position,
        dynamic_ncols=True,
        mininterval=0.1 if tty else 5.0,
    )


def evaluate_sequence(
    path,
    algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
    config: Mapping | None = None,
    *,
    groundtruth=None,
    light_switches: Iterable[LightSwitch] = (),
    detectors: Mapping[str, Any] | None = None,
    progress: bool = False,
    name: str | None = None,
) -> SequenceResult:
    """Run detectors over a sequence and score them against its ground truth.

    Parameters
    ----------
    path : path-like
        Sequence (see the module docstring).
    algorithms : sequence of str
        Detector names for :func:`silkvision.create_subtractor`, each at most once (a name listed
        twice is a :class:`~silkvision.errors.ConfigError`).
    config : mapping, optional
        Configuration (detector parameters, ``evaluation.bins``); defaults when omitted. The
        ``capture`` keys are not applied: the frames are scored at the ground truth's size over
        the evaluated range (``silkvision evaluate`` refuses ``capture.resize`` and
        ``capture.max_frames`` rather than ignore them).
    groundtruth : path-like, optional
        Ground-truth folder (video files, image folders).
    light_switches : iterable of LightSwitch
        Brightness changes applied to the frames before the detectors see them (the ground truth is
        unchanged); overlapping or touching switches are a :class:`~silkvision.errors.ConfigError`
        (:func:`~silkvision.evaluation.light_switch.check_disjoint`).
    detectors : mapping, optional
        Ready detector objects by name (instead of creating ``algorithms`` from the config). Each is
        reset first: the evaluation measures a detector that starts from an empty model on the
        sequence's first frame, as the CDnet protocol does, so a model learned before is discarded.
    progress : bool
        Show a progress bar on stderr.
    name : str, optional
        Sequence name (default: the source's name).

    Returns
    -------
    SequenceResult
    """
    cfg = validate(config or {}, "config")
    if detectors is None:
        algorithms = list(algorithms)
        twice = [a for i, a in enumerate(algorithms) if a in algorithms[:i]]
        if twice:
            raise ConfigError(
                f"algorithms: {twice[0]!r} is listed twice in {algorithms!r}; expected each algorithm once"
            )
    bins = cfg["evaluation"]["bins"]
    switches = tuple(light_switches)
    check_disjoint(switches)
    files: dict = {}
    src, troi, roi = open_evaluation_source(path, groundtruth, files=files)
    with src:
        where = src.spec
        wanted = evaluated_frames(src, troi, files.get("temporalROI.txt"))
        wanted_set = set(wanted)
        if detectors is None:
            detectors = {a: _make_detector(a, cfg) for a in algorithms}
        dets = dict(detectors)
        state = {}
        for a, det in dets.items():
            det.reset()
            roc = None
            if getattr(det, "has_scores", False):
                lo, hi = det.score_range
                roc = RocAccumulator(lo, hi, bins=bins, thresholds=(det.threshold,))
            state[a] = {
                "det": det,
                "roc": roc,
                "counts": np.zeros((len(wanted), 4), np.int64),
                "seconds": 0.0,
            }
        frames_all = _frame_numbers(src)
        total = len(frames_all) if frames_all is not None else 0
        brightness, b_idx = [], []
        k = 0  # position in wanted
        n_frames = 0
        last_index = None
        bar = _progress(total, src.name, progress)
        frame = None  # the last frame read (its width sizes the mask chain in the report)
        try:
            for index, frame in src:
                n_frames += 1
                last_index = index
                frame = apply_light_switches(frame, index, switches)
                brightness.append(float(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).mean()))
                b_idx.append(index)
                scored = index in wanted_set
                cls = None
                if scored:
                    gt = _read_gt(src, index, where)
                    if gt.shape != frame.shape[:2]:
                        raise DataError(
                            f"{where}: ground truth of frame {index} is {gt.shape[1]}x"
                            f"{gt.shape[0]} but the frame is {frame.shape[1]}x"
                            f"{frame.shape[0]}; expected the same size"
                        )
                    if roi is not None and roi.shape != gt.shape:
                        raise DataError(
                            f"{files.get('ROI.bmp', where)}: ROI is {roi.shape[1]}x{roi.shape[0]} but the frames "
                            f"are {frame.shape[1]}x{frame.shape[0]}; expected the same size"
                        )
                    cls = label_classes(gt, roi, name=groundtruth_name(src, index))
                for a, st in state.items():
                    det = st["det"]
                    t0 = time.perf_counter()
                    mask = det.apply(frame)
                    st["seconds"] += time.perf_counter() - t0
                    if scored:
                        assert cls is not None  # set above for every scored frame
                        fg = mask_foreground(mask, "strict", name=f"{a} mask of frame {index}")
                        st["counts"][k] = class_counts(cls, fg)  # tp fp fn tn
                        if st["roc"] is not None:
                            st["roc"].update(det.scores, None, classes=cls)
                if scored:
                    k += 1
                bar.update(1)
        finally:
            bar.close()
        if k != len(wanted):
            missing = wanted[k] if k < len(wanted) else None
            raise DataError(
                f"{where}: the sequence ended at frame {last_index} before evaluated frame "
                f"{missing}; expected frames up to {wanted[-1]}"
            )
        seq_name = name or src.name
        result = SequenceResult(
            name=seq_name,
            path=str(path),
            category=_category(Path(path)),
            first=wanted[0],
            last=wanted[-1],
            frames=n_frames,
            evaluated=np.asarray(wanted),
            brightness=np.asarray(brightness),
            brightness_indices=np.asarray(b_idx),
            light_switches=switches,
        )
        for a, st in state.items():
            det = st["det"]
            fc = st["counts"]
            result.algorithms[a] = AlgorithmResult(
                algorithm=a,
                counts=Counts.from_array(fc.sum(axis=0)),
                frame_indices=np.asarray(wanted),
                frame_counts=fc,
                threshold=float(det.threshold) if st["roc"] is not None else None,
                roc=st["roc"],
                seconds=st["seconds"],
                **_postprocessing_of(det, None if frame is None else frame.shape[1]),
            )
    return result


def evaluate_sequences(
    paths: Sequence,
    algorithms: Sequence[str],
    config: Mapping | None = None,
    *,
    groundtruth=None,
    light_switches: Sequence | None = None,
    progress: bool = False,
    client=None,
) -> Iterator[SequenceResult]:
    """:func:`evaluate_sequence` of every path, yielded in the order of ``paths``.

    Without ``client`` the sequences run one after the other in this process. With a Dask
    ``distributed.Client`` they are all submitted at once and run on its cluster's workers (which
    must see the same paths); each sequence's work is independent of the others', so the results
    are the same, bit for bit. A sequence that fails raises its error here, in order, and the
    sequences not yet collected are cancelled.

    Parameters
    ----------
    paths : sequence of path-like
    algorithms, config, groundtruth
        As for :func:`evaluate_sequence`.
    light_switches : sequence, optional
        The switches of each path (default: none).
    progress : bool
        Progress bars (in this process only: none for work on a cluster).
    client : distributed.Client, optional
    """
    switches = list(light_switches) if light_switches is not None else [()] * len(paths)
    if client is None:
        for path, sw in zip(paths, switches):
            yield evaluate_sequence(
                path, algorithms, config, groundtruth=groundtruth, light_switches=sw, progress=progress
            )
        return
    futures = [
        client.submit(
            evaluate_sequence,
            path,
            list(algorithms),
            config,
            groundtruth=groundtruth,
            light_switches=sw,
            pure=False,
            key=f"evaluate-{Path(path).name}-{k}-{time.time_ns()}",
        )
        for k, (path, sw) in enumerate(zip(paths, switches))
    ]
    try:
        for f in futures:
            yield f.result()
    finally:
        client.cancel(futures)


def _postprocessing_of(det, width: int | None = None) -> dict:
    """``{"median", "close", "fill_holes"}`` of a detector (from ``get_params``, else its
    attributes); None for what it does not tell. With ``width``, the median and closing windows
    its mask chain used on frames that wide (``detector.filter_width`` scales them)."""
    try:
        params = det.get_params()
    except Exception:  # noqa: BLE001 - optional information
        params = {}
    out = {}
    for key, kind in (("median", int), ("close", int), ("fill_holes", bool)):
        value = params.get(key, getattr(det, key, None))
        out[key] = None if value is None else kind(value)
    sizes_for = getattr(getattr(det, "mask_filter", None), "sizes_for", None)
    if width is not None and callable(sizes_for):
        out["median"], out["close"] = sizes_for(int(width))
    return out


# -- scoring existing masks ----------------------------------------------------------------------


def find_result_masks(results_dir, seq_name: str, category: str | None = None) -> Path:
    """The folder of ``bin%06d.png`` for a sequence: ``DIR`` itself when it holds ``bin*`` files,
    else ``DIR/SEQ`` or ``DIR/CATEGORY/SEQ`` (the CDnet results layout). (``silkvision evaluate``
    refuses a DIR of the first kind for several sequences.)"""
    d = Path(results_dir)
    if not d.is_dir():
        raise DataError(f"{d}: results folder not found; expected a folder of bin%06d.png masks")
    if any(d.glob("bin*.*")):
        return d
    for cand in ([d / category / seq_name] if category else []) + [d / seq_name, *d.glob(f"*/{seq_name}")]:
        if cand.is_dir():
            return cand
    raise DataError(
        f"{d}: no bin%06d.png masks in it, nor in {d / seq_name}; expected the masks of sequence {seq_name}"
    )


def _read_mask(folder: Path, index: int) -> tuple[np.ndarray, Path]:
    from silkvision.capture.images import read_image

    for ext in (".png", ".bmp", ".jpg", ".tif"):
        p = folder / f"bin{index:06d}{ext}"
        if p.is_file():
            try:
                img = read_image(p, cv2.IMREAD_UNCHANGED, "a mask image")
            except SourceError as e:
                raise DataError(str(e)) from None
            return img, p
    raise DataError(
        f"{folder}: mask bin{index:06d}.png of evaluated frame {index} is missing; "
        f"expected a mask for every evaluated frame"
    )


def _resize_hint(folder: Path) -> str:
    """Why a silkvision export's masks can have another size than the ground truth: the
    ``capture.resize`` its ``export.json`` records (empty for any other folder)."""
    if not (folder / MANIFEST).is_file():
        return ""
    try:
        settings = read_manifest(folder).get("settings")
    except ExportError:  # an unreadable manifest: no hint
        return ""
    size = settings.get("capture.resize") if isinstance(settings, dict) else None
    if not size:
        return ""
    return (
        f" (its export.json says it was exported with capture.resize={size}; export again "
        f"without capture.resize to score it against full-size ground truth)"
    )


def score_results(
    path,
    results_dir,
    *,
    groundtruth=None,
    rule: str = "strict",
    name: str | None = None,
    progress: bool = False,
) -> AlgorithmResult:
    """Score existing masks ``bin%06d.png`` (any tool's output) against a sequence's ground truth.

    Parameters
    ----------
    path : path-like
        The sequence (for its ground truth, ROI and temporalROI).
    results_dir : path-like
        Folder of masks (see :func:`find_result_masks`).
    groundtruth : path-like, optional
        Ground-truth folder (video files, image folders).
    rule : str
        Mask rule (see :mod:`silkvision.evaluation.cdnet`): ``"strict"`` (0/255 only),
        ``"cdnet"`` (255 only is foreground), ``"half"`` (>= 128), ``"nonzero"``.
    name : str, optional
        Algorithm name in the results (default: the results folder's name).
    progress : bool
        Show a progress bar on stderr.

    Returns
    -------
    AlgorithmResult
        Without ROC (masks carry no scores).
    """
    files: dict = {}
    src, troi, roi = open_evaluation_source(path, groundtruth, files=files)
    with src:
        wanted = evaluated_frames(src, troi, files.get("temporalROI.txt"))
        folder = find_result_masks(results_dir, src.name, _category(Path(path)))
        counts = np.zeros((len(wanted), 4), np.int64)
        size = src.frame_size
        bar = _progress(len(wanted), f"{src.name} [{Path(results_dir).name}]", progress)
        try:
            for k, index in enumerate(wanted):
                gt = _read_gt(src, index, src.spec)
                mask, mpath = _read_mask(folder, index)
                if size is not None and gt.shape != (size[1], size[0]):
                    raise DataError(
                        f"{src.spec}: ground truth of frame {index} is {gt.shape[1]}x"
                        f"{gt.shape[0]} but the frames are {size[0]}x{size[1]}"
                    )
                fg = mask_foreground(mask, rule, name=str(mpath))
                if fg.shape != gt.shape:
                    raise DataError(
                        f"{mpath}: mask is {fg.shape[1]}x{fg.shape[0]} but the ground truth "
                        f"is {gt.shape[1]}x{gt.shape[0]}; expected the same size"
                        f"{_resize_hint(folder)}"
                    )
                cls = label_classes(gt, roi, name=groundtruth_name(src, index))
                counts[k] = class_counts(cls, fg)
                bar.update(1)
        finally:
            bar.close()
    algo = name or Path(results_dir).resolve().name
    return AlgorithmResult(
        algorithm=algo,
        counts=Counts.from_array(counts.sum(axis=0)),
        frame_indices=np.asarray(wanted),
        frame_counts=counts,
    )
