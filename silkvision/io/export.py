"""Batch export of foreground masks (the engine of ``silkvision export``), resumable.

Output folder layout (CDnet "results" naming)::

    DIR/bin%06d.png        0/255 uint8 mask of input frame %06d (same number as the input frame)
    DIR/scores%06d.npz     optional: member "scores", HxW float16 scores f(x) of that frame
                           (lower = more novel; compressed; SILK/NORMA only)
    DIR/masks.mkv          optional: all masks as a lossless FFV1 grey video (masks.avi with
                           PNG or HuffYUV frames when this OpenCV cannot write FFV1)
    DIR/config.yaml        the effective configuration (export.overwrite written as false)
    DIR/export.json        manifest: source and its fingerprint, algorithm, the settings that shape
                           the output, status
    DIR/checkpoint.npz     only while unfinished: detector state after frame "index"

The files are written by :mod:`silkvision.io.writers` (masks, scores, video),
:mod:`silkvision.io.manifest` (``export.json``) and :mod:`silkvision.io.checkpoint`
(``checkpoint.npz``); this module runs the export.

Every file is written atomically (temporary file + rename), so a killed export leaves only complete
files. Re-running the same export resumes: the manifest must match (otherwise a one-line
:class:`~silkvision.errors.ExportMismatchError` names the first setting that differs, or says that
the source's files changed: see :func:`~silkvision.io.manifest.source_fingerprint`), the detector
is restored from ``checkpoint.npz`` (saved every ``export.checkpoint_every`` frames and on
SIGINT/SIGTERM) and frames after the checkpoint are recomputed and rewritten. Detectors without
``get_state`` (MOG2, KNN) replay from the first frame, keeping masks already written and
re-creating missing ones; so does a resume whose ``checkpoint.npz`` cannot be read or restored, or
whose earlier masks (or scores files) are not all on disk (a note says why). The final folder is
identical, byte for byte, to that of an uninterrupted run -- except ``masks.mkv``, whose Matroska
header carries a random segment UID (its decoded frames are identical).
"""

from __future__ import annotations

import inspect
import itertools
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import cv2
import numpy as np

from silkvision import __version__
from silkvision.capture import Source, open_source, read_image
from silkvision.config import ALGORITHMS, validate, write_config
from silkvision.detector import create_subtractor
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ExportError, SourceError, may_catch_sigterm
from silkvision.io.atomic import make_output_folder, output_path, reported_write_errors
from silkvision.io.checkpoint import (CHECKPOINT, BadCheckpoint, can_checkpoint, describe_error,
                                      frame_digest, indices_through, load_checkpoint, save_checkpoint)
from silkvision.io.manifest import (MANIFEST, build_manifest, compare_manifests, output_settings,
                                    read_manifest, source_fingerprint, write_manifest)
from silkvision.io.paths import resolved
from silkvision.io.writers import (MaskVideoWriter, mask_name, scores_name, write_mask_png,
                                   write_scores_npz)

__all__ = ["export_masks", "ExportResult", "MaskVideoWriter", "write_mask_png", "write_scores_npz",
           "mask_name", "scores_name", "MANIFEST", "CHECKPOINT", "is_export_output",
           "source_fingerprint"]

LOCK = ".export.lock"
_OURS = re.compile(r"^(bin\d+\.png|scores\d+\.npz|config\.yaml|export\.json|checkpoint\.npz|"
                   r"masks\.(mkv|avi)|\.masks\.partial\.(mkv|avi)|\.export\.lock|\..+\.tmp)$")


def is_export_output(name: str) -> bool:
    """Whether a file name is one that an export writes (or leaves behind when killed)."""
    return bool(_OURS.match(name))


@dataclass
class ExportResult:
    """What :func:`export_masks` did.

    Attributes
    ----------
    out_dir : Path
    frames : int
        Frames in the output folder when the run ended.
    processed : int
        Frames run through the detector by this run.
    seconds, fps : float
        Wall time of this run and ``processed / seconds``.
    first_index, last_index : int or None
        Numbers of the first and last mask written so far.
    resumed_from : int or None
        Last frame of the checkpoint this run resumed from (0: resumed without checkpoint, replayed
        from the first frame); None for a fresh export.
    interrupted : bool
        Stopped by SIGINT/SIGTERM; the checkpoint was saved (re-run to resume).
    signal : int or None
        The signal number that stopped it.
    complete : bool
        The export is finished (``export.json`` says "complete").
    video : Path or None
    notes : list of str
        Messages shown to the user (resume, no checkpoint, ...).
    """

    out_dir: Path
    frames: int = 0
    processed: int = 0
    seconds: float = 0.0
    first_index: int | None = None
    last_index: int | None = None
    resumed_from: int | None = None
    interrupted: bool = False
    signal: int | None = None
    complete: bool = False
    already_complete: bool = False
    video: Path | None = None
    algorithm: str = ""
    notes: list = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.processed / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        """The final one-line summary."""
        if self.already_complete:
            return (f"{self.out_dir}: already holds the complete export ({self.frames} frames); "
                    f"nothing to do (use --overwrite to redo it)")
        verb = "interrupted after" if self.interrupted else "exported"
        resumed = ""
        if self.resumed_from is not None:
            resumed = (f", resumed after frame {self.resumed_from}" if self.resumed_from
                       else ", replayed from the first frame")
        return (f"{verb} {self.frames} frames ({self.processed} processed{resumed}) in "
                f"{self.seconds:.1f} s ({self.fps:.1f} fps) with {self.algorithm} to {self.out_dir}")


class _FolderLock:
    """An exclusive ``flock`` on ``DIR/.export.lock`` so two exports cannot write one folder (the
    kernel drops it when the process dies, even by SIGKILL). No-op where fcntl is missing.

    The file is removed when the lock is released. An export that opened it just before that
    removal could then lock the removed file while a third one locks a new one; so a lock only
    counts when the file locked is still the one at ``DIR/.export.lock``, else it is taken again.
    """

    def __init__(self, out: Path):
        self.path = out / LOCK
        self._f = None

    def acquire(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return
        while True:
            try:
                f = open(self.path, "a+")
            except OSError as e:
                raise ExportError(f"{self.path.parent}: cannot create the lock file ({e.strerror})") from None
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                raise ExportError(f"{self.path.parent}: another silkvision export is writing to this "
                                  f"folder; wait for it or choose another --out") from None
            if self._still_there(f):
                self._f = f
                return
            f.close()  # locked a file its holder removed on release: take the lock of the new one

    def _still_there(self, f) -> bool:
        try:
            return os.path.samestat(os.fstat(f.fileno()), os.stat(self.path))
        except OSError:
            return False

    def release(self) -> None:
        if self._f is not None:
            self.path.unlink(missing_ok=True)
            self._f.close()
            self._f = None


def _prepare_folder(out: Path, overwrite: bool) -> dict | None:
    """Create/check the output folder. Returns the manifest of an export to resume, else None."""
    try:
        names = sorted(os.listdir(out))
    except OSError as e:
        raise ExportError(f"{out}: cannot create or list the output folder ({e.strerror})") from None
    ours = [n for n in names if is_export_output(n) and (out / n).is_file()]
    foreign = [n for n in names if n not in ours and not n.startswith(".")]
    for n in ours:  # temporary files of a killed run (we hold the folder's lock)
        if n.startswith(".") and n != LOCK:
            (out / n).unlink(missing_ok=True)
    ours = [n for n in ours if not n.startswith(".")]
    if overwrite:
        for n in ours:
            (out / n).unlink(missing_ok=True)
        return None
    if foreign and MANIFEST not in ours:  # beside an export of ours, its manifest decides
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        raise ExportError(f"{out}: output folder holds {foreign[0]!r}{more}, which an export did not "
                          f"write; choose an empty folder or add --overwrite")
    if MANIFEST in ours:
        return read_manifest(out)
    if ours:
        raise ExportError(f"{out}: holds {ours[0]!r} but no {MANIFEST}, so it is not a resumable "
                          f"export; choose an empty folder or add --overwrite")
    return None


class _StopFlag:
    """SIGINT/SIGTERM set a flag (the loop stops after the current frame); a second signal raises
    KeyboardInterrupt at once. A signal the process inherited as ignored (a background ``cmd &``
    ignores SIGINT) stays ignored. In a ``multiprocessing`` child (a Pool worker) SIGTERM is left
    alone: ``Pool.terminate()`` and ``Process.terminate()`` stop the process with it, and a
    worker that caught it and returned normally hung the pool's ``terminate()`` for ever."""

    def __init__(self, enabled: bool):
        self.signum = None
        self._old = {}
        self.enabled = enabled and threading.current_thread() is threading.main_thread()

    def _handler(self, signum, frame):
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum

    def __enter__(self):
        if self.enabled:
            caught = (signal.SIGINT, signal.SIGTERM) if may_catch_sigterm() else (signal.SIGINT,)
            for s in caught:
                if signal.getsignal(s) is not signal.SIG_IGN:
                    self._old[s] = signal.signal(s, self._handler)
        return self

    def __exit__(self, *exc):
        for s, h in self._old.items():
            signal.signal(s, h)

    @property
    def set(self) -> bool:
        return self.signum is not None


def _count_outputs(out: Path, prefix: str = "bin", ext: str = ".png") -> int:
    """Number of ``PREFIX<digits>EXT`` files in ``out`` (masks by default, or scores files)."""
    return sum(1 for p in out.glob(f"{prefix}[0-9]*{ext}") if p.stem[len(prefix):].isdecimal() and p.is_file())


def export_masks(source, out_dir, config: Mapping | None = None, *, algorithm: str | None = None,
                 scores: bool | None = None, video: bool | None = None,
                 overwrite: bool | None = None, detector=None, progress: bool | None = None,
                 log: Callable[[str], None] | None = None,
                 handle_signals: bool = True) -> ExportResult:
    """Run a background subtractor over a source and write its masks (resumable, see module doc).

    Parameters
    ----------
    source : int, str, path or Source
        What :func:`silkvision.capture.open_source` opens (with the ``capture`` config keys), or an
        already open source (not closed here). A seekable source is exported from its first frame
        even if it was read from before (it is rewound); a camera from its next frame.
    out_dir : path
        Output folder (created). It must be empty, hold an unfinished export with the same settings
        (resumed), or ``overwrite`` must be set (our old files are deleted, others left alone).
    config : mapping, optional
        Configuration (as from :func:`silkvision.load_config`); default: built-in defaults.
    algorithm, scores, video, overwrite : optional
        Override ``detector.algorithm``, ``export.scores``, ``export.video``, ``export.overwrite``.
    detector : BackgroundSubtractor, optional
        Use this detector instead of creating one from the configuration. It is reset (the export
        starts from an empty model, as :func:`~silkvision.evaluation.evaluate_sequence`), and the
        parameters of silkvision's own detectors are what ``config.yaml`` and the manifest record,
        so a later export into the same folder with other parameters is refused (or, with
        ``overwrite``, redone), not taken as done.
    progress : bool, optional
        Show a tqdm progress bar on stderr; default: when stderr is a terminal.
    log : callable, optional
        Receives one-line notes (default: print to stderr).
    handle_signals : bool
        Catch SIGINT/SIGTERM (main thread only): finish the current frame, save the checkpoint and
        return with ``interrupted=True``. In a ``multiprocessing`` child only SIGINT is caught, so
        that ``Pool.terminate()`` / ``Process.terminate()`` still stop it.

    Returns
    -------
    ExportResult
    """
    cfg = validate(config or {}, "config")
    if algorithm is not None:
        cfg["detector"]["algorithm"] = algorithm
    for key, value in (("scores", scores), ("video", video), ("overwrite", overwrite)):
        if value is not None:
            cfg["export"][key] = bool(value)
    cfg = validate(cfg, "export_masks")  # checks the overrides too
    if log is None:
        def log(msg: str) -> None:
            print(f"silkvision: {msg}", file=sys.stderr, flush=True)
    if str(out_dir) == "":  # Path("") is the current folder: never meant as an output folder
        raise ExportError("output folder '': empty path; expected a folder path")
    out = output_path(out_dir, ExportError)   # refused before the source is opened

    own_source = not isinstance(source, Source)
    if own_source:
        cap = cfg["capture"]
        src = open_source(source, camera_timeout=cap["camera_timeout"], resize=cap["resize"],
                          max_frames=cap["max_frames"])
    else:
        src = source
    try:
        return _export(src, out, cfg, detector, progress, log, handle_signals)
    finally:
        if own_source:
            src.close()


def _export(src: Source, out: Path, cfg: dict, det, progress, log, handle_signals) -> ExportResult:
    if src.kind in ("folder", "cdnet"):
        folder = resolved(src.folder, ExportError)
        if resolved(out, ExportError) in (folder, folder.parent if src.kind == "cdnet" else folder):
            raise ExportError(f"{out}: is the source folder; choose another output folder")
    given = det is not None
    if det is None:
        det = create_subtractor(cfg["detector"]["algorithm"], config=cfg)
    algorithm = det.name
    if algorithm in ALGORITHMS:  # (a custom detector object keeps the configured name)
        cfg["detector"]["algorithm"] = algorithm
        if given:
            _record_params(cfg, det)
    res = ExportResult(out_dir=out, algorithm=algorithm)

    make_output_folder(out, ExportError)
    lock = _FolderLock(out)
    lock.acquire()
    try:
        return _export_locked(src, out, cfg, det, algorithm, res, progress, log, handle_signals, given)
    finally:
        lock.release()


def _record_params(cfg: dict, det) -> None:
    """Put the parameters of a detector passed in into ``cfg``, whose ``config.yaml`` and manifest
    must describe the detector that made the masks (they described the configured one, and a second
    export with other parameters then found the folder "already complete")."""
    section = cfg["detector"].setdefault(det.name, {})
    for key, value in det.get_params().items():
        if key in SHARED_KEYS:
            cfg["detector"][key] = value
        elif key in section:
            section[key] = value


def _export_locked(src, out, cfg, det, algorithm, res, progress, log, handle_signals, given) -> ExportResult:
    asked_scores = bool(cfg["export"]["scores"])
    want_scores = asked_scores and det.has_scores   # scores files written (MOG2/KNN have none)
    want_video = bool(cfg["export"]["video"])
    every = int(cfg["export"]["checkpoint_every"])
    settings = output_settings(cfg, algorithm)
    old = _prepare_folder(out, bool(cfg["export"]["overwrite"]))
    new = build_manifest(src, algorithm, settings, "running")
    resume_index = None   # frames up to here are done (from the checkpoint)
    digest = None         # of the checkpoint's frame (None in a checkpoint saved without one)
    keep_existing = False  # replay without rewriting existing files
    frames_before = 0
    if old is not None:
        compare_manifests(out, old, new)
        if old.get("status") == "complete":
            _check_complete_files(out, old, want_scores)
            (out / CHECKPOINT).unlink(missing_ok=True)
            res.frames, res.complete, res.already_complete = old["frames"], True, True
            res.first_index, res.last_index = old.get("first_index"), old.get("last_index")
            return res
        if not src.seekable:
            raise ExportError(f"{out}: holds an unfinished export of {src.name}, which cannot be "
                              f"resumed (a live camera); add --overwrite to start over")
        bad = None  # why checkpoint.npz cannot be used: then replay, keeping the masks
        if (out / CHECKPOINT).is_file():
            try:
                state, resume_index, frames_before, digest = load_checkpoint(
                    out, src, scores=want_scores)
            except BadCheckpoint as e:
                bad = str(e)
            else:
                try:
                    det.set_state(state)
                except MemoryError:  # a good checkpoint, too large for the memory available now
                    raise
                except Exception as e:  # noqa: BLE001 - garbled arrays: ValueError, TypeError, ...
                    reset = getattr(det, "reset", None)
                    if not callable(reset):  # half-restored and cannot be made fresh again
                        raise ExportError(f"{out / CHECKPOINT}: cannot restore the {algorithm} "
                                          f"detector ({describe_error(e)}); use --overwrite to "
                                          f"start over") from None
                    reset()
                    bad = f"cannot restore the {algorithm} detector: {describe_error(e)}"
                    resume_index, frames_before = None, 0
        if resume_index is not None:
            res.resumed_from = resume_index
            res.notes.append(f"resuming {out} after frame {resume_index} (checkpoint)")
        elif bad is not None:
            keep_existing = True
            res.resumed_from = 0
            n = _count_outputs(out)
            res.notes.append(f"{out / CHECKPOINT}: cannot be used ({bad}); replaying from the "
                             f"first frame, keeping the {n} mask{'' if n == 1 else 's'} already written")
        else:
            keep_existing = True
            res.resumed_from = 0
            why = (f"{algorithm} cannot be checkpointed" if not can_checkpoint(det)
                   else "no checkpoint was saved yet")
            res.notes.append(f"resuming {out}: {why}, so frames are replayed from the first one; "
                             f"masks already written are kept")
        for n in res.notes:
            log(n)
    # A fresh export (or a replay) starts at the first frame of the source, also when an open source
    # given by the caller was read from already: the manifest names the whole source, and a resume
    # counts export frame k as the source's k-th frame. The first frame is read before anything is
    # written, so a source without frames leaves no "running" manifest behind.
    pending = None
    if resume_index is None:
        if src.seekable:
            src.seek(src.first_index)
        try:
            pending = next(src)
        except StopIteration:
            _note_dropped(src, res, log)
            raise SourceError(f"{src.spec}: no frames to export") from None
    if pending is not None and hasattr(det, "check_memory"):  # before anything is written
        det.check_memory(*pending[1].shape[:2])
    if pending is not None and given:
        det.reset()   # from an empty model, as evaluate_sequence; a resume has set its checkpoint
    write_manifest(out, new)
    with reported_write_errors(out / "config.yaml"):
        write_config(_effective_config(cfg), out / "config.yaml")
    if asked_scores and not want_scores:
        log(f"{algorithm} has no per-pixel scores: no scores files are written")

    # the video is opened at the first decoded frame (its real size; a header may disagree)
    writer = None
    if resume_index is not None:
        _seek_after(src, resume_index, digest, out, res, log)
        if want_video:  # rebuild the video's first part from the masks on disk
            writer = MaskVideoWriter(out, src.frame_size, src.fps or 25.0)
            _note_padding(writer, res, log)
            _feed_video_from_disk(out, src, writer, resume_index)

    frames = frames_before
    first_index = None if resume_index is None else src.first_index
    last_index = resume_index
    last_frame = None     # the frame of last_index, for the checkpoint's digest
    checkpointed = resume_index
    use_bar = sys.stderr.isatty() if progress is None else bool(progress)
    bar = None
    if use_bar:
        from tqdm import tqdm
        bar = tqdm(total=src.frame_count, initial=frames_before, unit="frame", file=sys.stderr,
                   desc=src.name, dynamic_ncols=True, leave=False)
    t0 = time.perf_counter()
    # one mask buffer for the whole export (no allocation per frame) when the detector takes one
    takes_fgmask = "fgmask" in inspect.signature(det.apply).parameters
    mask_buf = None
    exhausted = False     # every frame of the source was exported (a signal then stops nothing)
    resize_noted = False
    with _StopFlag(handle_signals) as stop:
        try:
            stream = src if pending is None else itertools.chain((pending,), src)
            for index, frame in stream:
                if not resize_noted:
                    resize_noted = True
                    _note_resize(src, res, log)
                if want_video and writer is None:
                    writer = MaskVideoWriter(out, (frame.shape[1], frame.shape[0]), src.fps or 25.0)
                    _note_padding(writer, res, log)
                if takes_fgmask:
                    if mask_buf is None or mask_buf.shape != frame.shape[:2]:
                        mask_buf = np.empty(frame.shape[:2], np.uint8)
                    mask = det.apply(frame, fgmask=mask_buf)
                else:
                    mask = det.apply(frame)
                mask_path = out / mask_name(index)
                if not (keep_existing and mask_path.is_file()):
                    write_mask_png(mask_path, mask)
                if want_scores:
                    sp = out / scores_name(index)
                    if not (keep_existing and sp.is_file()):
                        write_scores_npz(sp, det.scores)
                if writer is not None:
                    writer.write(mask)
                frames += 1
                res.processed += 1
                first_index = index if first_index is None else first_index
                last_index, last_frame = index, frame
                if bar is not None:
                    bar.update(1)
                if stop.set:
                    exhausted = src.seekable and _at_end(stream)
                    break
                if every and src.seekable and frames % every == 0:
                    if save_checkpoint(out, det, index, frames, frame):
                        checkpointed = index
            else:
                exhausted = True
        except SourceError:
            # the detector is consistent up to last_index: keep that so a fixed source resumes
            if src.seekable and last_index is not None and last_index != checkpointed:
                save_checkpoint(out, det, last_index, frames, last_frame)
            _note_dropped(src, res, log)
            if writer is not None:
                writer.abandon()
            raise
        except BaseException:
            if writer is not None:
                writer.abandon()
            raise
        finally:
            if bar is not None:
                bar.close()
    res.seconds = time.perf_counter() - t0
    res.signal = stop.signum
    res.frames, res.first_index, res.last_index = frames, first_index, last_index

    if stop.set and src.seekable and not exhausted:
        res.interrupted = True
        if writer is not None:
            writer.abandon()
        saved = last_index is not None and (last_index == checkpointed or
                                            save_checkpoint(out, det, last_index, frames, last_frame))
        if last_index is None:
            res.notes.append("interrupted before the first frame was exported")
        elif saved:
            again = ("the same command again without --overwrite" if cfg["export"]["overwrite"]
                     else "the same command again")
            res.notes.append(f"interrupted after frame {last_index}; checkpoint saved; run {again} "
                             f"to resume")
        else:
            res.notes.append(f"interrupted after frame {last_index}; {algorithm} cannot be "
                             f"checkpointed, so running the same command again replays from the "
                             f"first frame (masks already written are kept)")
        log(res.notes[-1])
        return res

    res.interrupted = stop.set and not exhausted  # a camera export stopped by Ctrl-C is finished normally
    if stop.set and exhausted:
        res.notes.append(f"{_SIGNAL_NAMES.get(stop.signum, 'a signal')} came after the last frame "
                         f"was exported: the export was finished")
        log(res.notes[-1])
    _note_dropped(src, res, log)
    if frames == 0:
        if writer is not None:
            writer.abandon()
        raise SourceError(f"{src.spec}: no frames to export")
    if writer is not None:
        res.video = writer.finish()
    write_manifest(out, {**new, "status": "complete", "frames": frames, "first_index": first_index,
                         "last_index": last_index, "video": res.video.name if res.video else None,
                         "scores": want_scores, "silkvision": __version__})
    (out / CHECKPOINT).unlink(missing_ok=True)
    res.complete = True
    return res


_SIGNAL_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


def _at_end(stream) -> bool:
    """Whether a file or folder's frame ``stream`` has no frame left (it reads the next one, if
    any: only for a stop, so a signal during the last frame does not leave an export unfinished)."""
    try:
        next(stream)
    except StopIteration:
        return True
    except SourceError:   # an unreadable next frame: there is more to export once it is fixed
        return False
    return False


def _effective_config(cfg: Mapping) -> dict:
    """``cfg`` as written to ``DIR/config.yaml``: ``export.overwrite`` is what one run does, not a
    setting of the output, so it is written as false -- reusing the file as ``--config`` must not
    silently replace another export."""
    return {**cfg, "export": {**cfg["export"], "overwrite": False}}


def _check_complete_files(out: Path, manifest: Mapping, want_scores: bool) -> None:
    """A folder whose manifest says "complete" must still hold every mask (and scores file)."""
    kinds = [("bin", ".png", "masks")] + ([("scores", ".npz", "scores files")] if want_scores else [])
    for prefix, ext, what in kinds:
        n = _count_outputs(out, prefix, ext)
        if n < manifest["frames"]:
            raise ExportError(f"{out}: export.json says the export is complete with {manifest['frames']} "
                              f"frames, but only {n} {what} are there (files were removed?); use "
                              f"--overwrite to redo it")


def _note_resize(src: Source, res: ExportResult, log) -> None:
    """With ``capture.resize``: say that the masks have the processed size, and warn when the resize
    changes the frames' aspect ratio (e.g. a portrait clip given a landscape size)."""
    native, size = src.native_size, src.resize
    if size is None or native is None or size == native:
        return
    note = (f"masks are {size[0]}x{size[1]} (capture.resize); the source's frames are "
            f"{native[0]}x{native[1]}")
    a_native, a_size = native[0] / native[1], size[0] / size[1]
    if abs(a_size / a_native - 1.0) > 0.01:
        note += (f", so the resize changes the aspect ratio from {a_native:.2f} to {a_size:.2f} "
                 f"(width/height)")
    res.notes.append(note)
    log(note)


def _note_padding(writer: MaskVideoWriter, res: ExportResult, log) -> None:
    if writer.padded:
        (w, h), (vw, vh) = writer.size, writer.video_size
        note = (f"{writer.path.name} is {vw}x{vh}: the {w}x{h} masks are padded with background to an "
                f"even size, which OpenCV's video writer needs (its top-left {w}x{h} are the masks)")
        res.notes.append(note)
        log(note)


def _seek_after(src: Source, index: int, digest: bytes | None, out: Path, res: ExportResult, log) -> None:
    """Position ``src`` just after frame ``index``, the checkpoint's frame.

    A container seek is checked against the checkpoint's :func:`frame_digest`: some (MPEG-1/2
    program streams) land on another frame, which would label every later mask wrongly. Then the
    source is read forward from its first frame instead, which is exact.
    """
    src.seek(index)
    try:
        got = next(src)
    except StopIteration:
        got = None
    if digest is None or (got is not None and got[0] == index and frame_digest(got[1]) == digest):
        return
    note = (f"{src.spec}: seeking to frame {index} found another frame; reading forward from the "
            f"first frame instead")
    res.notes.append(note)
    log(note)
    src.seek(src.first_index)
    for i, frame in src:
        if i >= index:
            if i == index and frame_digest(frame) == digest:
                return
            break
    raise ExportError(f"{out / CHECKPOINT}: frame {index} of {src.spec} is not the frame this "
                      f"checkpoint was saved after (has the source changed?); add --overwrite to start over")


def _note_dropped(src: Source, res: ExportResult, log) -> None:
    """Tell the user how many camera frames arrived while the detector was busy (not exported)."""
    dropped = getattr(src, "dropped", 0)
    if dropped:
        res.notes.append(f"{dropped} camera frame{'s' if dropped != 1 else ''} arrived while the "
                         f"detector was busy and {'were' if dropped != 1 else 'was'} not exported (the "
                         f"camera runs faster than the detector)")
        log(res.notes[-1])


def _feed_video_from_disk(out: Path, src: Source, writer: MaskVideoWriter, last: int) -> None:
    """Write the masks ``first_index .. last`` from their PNG files into the video."""
    for i in indices_through(src, last):
        path = out / mask_name(i)
        try:
            m = read_image(path, cv2.IMREAD_GRAYSCALE, "a mask image")
        except SourceError:
            raise ExportError(f"{path}: missing or unreadable while rebuilding the mask video; "
                              f"use --overwrite to start over") from None
        writer.write(m)
