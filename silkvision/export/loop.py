"""The frame loop of an export: each frame through the detector, its files written, the checkpoint
saved every ``export.checkpoint_every`` frames; and the positioning of a resumed run."""

from __future__ import annotations

import bisect
import inspect
import itertools
import queue
import sys
import time
from collections.abc import Container
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture import Source, read_image
from silkvision.capture.opencv import STDERR_LOCK
from silkvision.errors import BadFrame, ExportError, SourceError
from silkvision.export.notes import note_dropped, note_padding, note_resize
from silkvision.export.pipeline import DEPTH, FileWriter, FrameReader, LockedStream
from silkvision.export.prefix import SourcePrefix
from silkvision.export.result import ExportResult
from silkvision.export.verify import mask_problem, scores_problem
from silkvision.io.checkpoint import CHECKPOINT, frame_digest, indices_through, save_checkpoint
from silkvision.io.manifest import write_manifest
from silkvision.io.writers import MaskVideoWriter, mask_name, scores_name, write_mask_png, write_scores_npz

__all__ = ["FrameLoop"]


class FrameLoop:
    """Runs a detector over a source's frames and writes each frame's mask (scores, video frame).

    Parameters
    ----------
    src : Source
        The open source, positioned at the first frame to process (or with that frame passed to
        :meth:`run` as ``pending``).
    det : BackgroundSubtractor
        The detector, fresh or restored from the checkpoint of frame ``resume_index``.
    out : Path
        The output folder.
    scores, video : bool
        Write scores files; write the mask video.
    keep_existing : bool
        Keep the files already on disk instead of writing them again (a replay).
    checkpoint_every : int
        Save the checkpoint every this many frames of the export (0: never; a seekable source only).
    resume_index : int or None
        The frame the detector state is of (a resume from a checkpoint); None: from the first frame.
    frames_before : int
        Frames of the export up to and including ``resume_index`` (skipped ones not counted).
    skip : bool
        Go on past a frame that cannot be used (``capture.on_bad_frame: skip``), writing no file
        for it; otherwise such a frame stops the export with an error.
    skipped : list of dict, optional
        The frames skipped up to ``resume_index``: ``{"frame": index, "reason": message}``.
    damaged : list of dict, optional
        The frames up to ``resume_index`` that decoded with errors: ``{"frame": index,
        "message": FFmpeg's first message}``.
    pipeline : bool
        Decode the next frames (of a file or folder) and write the files of the last ones on
        threads of their own while the detector runs (:mod:`~silkvision.export.pipeline`); the files, their order and
        the checkpoints are those of the serial loop.

    Attributes
    ----------
    frames, processed : int
        Frames of the export so far; frames run through the detector by this run.
    skipped : list of dict
        The frames skipped so far, in order.
    damaged : list of dict
        The frames exported so far that decoded with errors (FFmpeg concealed the damage), in
        order.
    manifest : dict or None
        The running manifest; once set, it is written again with each frame skipped and, for an
        image folder, with each checkpoint (:mod:`~silkvision.export.prefix`).
    first_index, last_index : int or None
        Numbers of the first and last frame exported so far.
    checkpointed : int or None
        The frame the checkpoint on disk was saved after, when it was saved in this run or resumed.
    exhausted : bool
        Every frame of the source was exported.
    writer : MaskVideoWriter or None
    seconds : float
        Wall time of :meth:`run`.
    """

    def __init__(
        self,
        src: Source,
        det,
        out: Path,
        *,
        scores: bool,
        video: bool,
        keep_existing: bool,
        checkpoint_every: int,
        resume_index: int | None = None,
        frames_before: int = 0,
        skip: bool = False,
        skipped=(),
        damaged=(),
        pipeline: bool = False,
    ):
        self.src, self.det, self.out = src, det, out
        self.scores, self.video, self.keep_existing = scores, video, keep_existing
        self.every = checkpoint_every
        self.skip = skip
        self.pipeline = pipeline
        self._files: FileWriter | None = None  # the writer thread while a pipelined run() runs
        self._failed: BaseException | None = None  # the writer thread's error
        self.skipped = [dict(s) for s in skipped]
        self.damaged = [dict(d) for d in damaged]
        self._messages: dict[int, str] = {}  # decoder messages of frames read, not yet exported
        self.manifest: dict | None = None
        self.frames = frames_before
        self.processed = 0
        self.first_index = None
        self.prefix = SourcePrefix(src)  # of the frames read, for the running manifest
        self._through: dict | None = None
        if resume_index is not None:
            gone = self.skipped_indices
            self.first_index = next(i for i in indices_through(src, resume_index) if i not in gone)
            for i in indices_through(src, resume_index):
                self.prefix.add(i)
        self._folded = len(self.skipped)  # skipped frames counted in prefix and position
        self.last_index = resume_index
        self.last_frame = None  # the frame of last_index, for the checkpoint's digest
        self.checkpointed = resume_index
        self.exhausted = False
        self.writer: MaskVideoWriter | None = None
        self.seconds = 0.0
        self._res: ExportResult | None = None  # where run() notes files written again
        self._log = None
        self._bar = None

    @property
    def skipped_indices(self) -> set[int]:
        return {s["frame"] for s in self.skipped}

    @property
    def position(self) -> int:
        """Frames of the source up to the last one exported, skipped ones included (a
        checkpoint's ``frames``). A bad frame read after it (looking for the end at a stop) is
        not counted: the checkpoint is of the last frame exported."""
        return self.frames + self._folded

    def with_skips(self, manifest: dict) -> dict:
        """``manifest`` with the frames skipped and those damaged so far (unchanged when none
        were)."""
        if self.skipped:
            manifest = {**manifest, "skipped": list(self.skipped)}
        if self.damaged:
            manifest = {**manifest, "damaged": list(self.damaged)}
        return manifest

    def _write_running_manifest(self) -> None:
        """Write the running manifest: the frames skipped so far and, for an image folder, the
        digest of its files up to the checkpoint (:mod:`~silkvision.export.prefix`)."""
        if self.manifest is None:
            return
        m = self.with_skips(self.manifest)
        if self._through is not None:
            m = {**m, "source_through": self._through}
        write_manifest(self.out, m)

    # -- reading -------------------------------------------------------------------------------
    def first_frame(self):
        """Rewind a seekable source and read its first usable frame: ``(index, frame)``, or None
        when it has none."""
        if self.src.seekable:
            self.src.seek(self.src.first_index)
        return next(self._usable(self.src), None)

    def _usable(self, frames):
        """The ``(index, frame)`` of ``frames`` that can be used. A :class:`BadFrame` is skipped
        (and recorded) with ``skip``, else raised with advice that works when followed."""
        while True:
            try:
                item = next(frames)
                message = getattr(frames, "decoder_message", None)
                if message:
                    self._messages[item[0]] = message
                yield item
            except StopIteration:
                return
            except BadFrame as e:
                if not self.skip:
                    how = (
                        "add --set capture.on_bad_frame=skip to go on past it"
                        if self.src.seekable
                        else "add --set capture.on_bad_frame=skip --overwrite to start again and "
                        "go on past such frames"
                    )
                    raise BadFrame(f"{e}; {how}", e.index) from None
                self.skipped.append({"frame": e.index, "reason": str(e)})
                if frames is self.src:  # (a FrameReader has seeked past it on its thread)
                    self._seek_past(e)
                if self._bar is not None:
                    self._bar.update(1)
                self._write_running_manifest()

    def _seek_past(self, e: BadFrame) -> None:
        if self.src.seekable:  # a video's reader stops at a frame it cannot decode
            self.src.seek(_index_after(self.src, e.index))

    # -- a resumed run -----------------------------------------------------------------------
    def resume_after(self, index: int, digest: bytes | None, res: ExportResult, log) -> None:
        """Position the source after the checkpoint's frame ``index`` and, with a video, write the
        masks up to it from their files into a new one."""
        seek_after(self.src, index, digest, self.out, res, log)
        if self.video:  # rebuild the video's first part from the masks on disk
            size = self.src.frame_size
            assert size is not None  # seek_after has read a frame
            self.writer = MaskVideoWriter(self.out, size, self.src.fps or 25.0)
            note_padding(self.writer, res, log)
            feed_video_from_disk(self.out, self.src, self.writer, index, self.skipped_indices)

    # -- the loop ------------------------------------------------------------------------------
    def run(self, pending, stop, res: ExportResult, log, progress: bool | None) -> None:
        """Process frames until the source ends or ``stop.set`` (checked after each frame).

        ``pending`` is a first ``(index, frame)`` read already, or None. On a
        :class:`~silkvision.errors.SourceError` the checkpoint is saved after the last frame
        exported (so a fixed source resumes there) and the error is raised again. Pipelined, it
        returns (or raises) once every file of the frames exported is written.
        """
        src, det, out = self.src, self.det, self.out
        if self.pipeline:  # a reader thread may have sent stderr to a file for FFmpeg's messages
            log = _locked(log)
        self._res, self._log = res, log
        use_bar = sys.stderr.isatty() if progress is None else bool(progress)
        bar = None
        if use_bar:
            from tqdm import tqdm

            bar = tqdm(
                total=src.frame_count,
                initial=self.position,
                unit="frame",
                file=LockedStream(STDERR_LOCK) if self.pipeline else sys.stderr,
                desc=src.name,
                dynamic_ncols=True,
                leave=False,
                # on a terminal: no bar for a short run, and a first-run compile note gets a line
                # of its own; a bar asked for explicitly draws at once
                delay=0.5 if progress is None else 0,
            )
        self._bar = bar
        t0 = time.perf_counter()
        # mask (and scores) buffers made once for the whole export (no allocation per frame): one
        # when the detector takes one and the files are written at once, a few handed round the
        # writer thread when pipelined
        takes_fgmask = "fgmask" in inspect.signature(det.apply).parameters
        free: queue.Queue = queue.Queue()
        for _ in range(DEPTH + 2 if self.pipeline else 1):
            free.put([None, None])
        reader = None
        resize_noted = False
        try:
            if self.pipeline and src.seekable:  # a camera or stream has its own capture thread
                # and keeps only its latest frame: reading ahead would only make frames stale
                reader = FrameReader(src, skip=self.skip, on_bad=self._seek_past)
            if self.pipeline:
                self._files = FileWriter(
                    lambda index, mask, scores, _buf: self._write(index, mask, scores),
                    lambda job: free.put(job[-1]),
                )
            stream = self._usable(reader if reader is not None else src)
            if pending is not None:
                stream = itertools.chain((pending,), stream)
            for index, frame in stream:
                if not resize_noted:
                    resize_noted = True
                    note_resize(src, res, log)
                if self.video and self.writer is None:
                    self.writer = MaskVideoWriter(out, (frame.shape[1], frame.shape[0]), src.fps or 25.0)
                    note_padding(self.writer, res, log)
                buf = free.get()  # pipelined: waits while every buffer is queued for writing
                if takes_fgmask:
                    if buf[0] is None or buf[0].shape != frame.shape[:2]:
                        buf[0] = np.empty(frame.shape[:2], np.uint8)
                    mask = det.apply(frame, fgmask=buf[0])
                else:
                    mask = det.apply(frame)
                if self._files is None:
                    self._write(index, mask, det.scores if self.scores else None)
                    free.put(buf)
                else:
                    scores = _kept(buf, 1, det.scores) if self.scores else None
                    self._files.put(index, _kept(buf, 0, mask), scores, buf)
                while self._folded < len(self.skipped):  # the bad frames read before this one
                    self.prefix.add(self.skipped[self._folded]["frame"])
                    self._folded += 1
                self.prefix.add(index)
                if self._messages:
                    self._note_damage(index)
                self.frames += 1
                self.processed += 1
                self.first_index = index if self.first_index is None else self.first_index
                self.last_index, self.last_frame = index, frame
                if bar is not None:
                    bar.update(1)
                if stop.set:
                    self.exhausted = src.seekable and _at_end(stream)
                    break
                if self.every and src.seekable and self.frames % self.every == 0:
                    self._checkpoint(index, frame)
            else:
                self.exhausted = True
            self._close_pipeline()
        except SourceError:
            # the detector is consistent up to last_index: keep that so a fixed source resumes,
            # once the files up to it are written
            self._close_pipeline(check=False)
            if src.seekable and self._failed is None:
                self.save_checkpoint()
            note_dropped(src, res, log)
            self.abandon_video()
            if self._failed is not None:
                raise self._failed from None
            raise
        except BaseException:
            self._close_pipeline(check=False)
            self.abandon_video()
            raise
        finally:
            if reader is not None:
                reader.close()
            if bar is not None:
                bar.close()
            self._bar = None
        self.seconds = time.perf_counter() - t0

    def _close_pipeline(self, *, check: bool = True) -> None:
        """Write the files still queued and end the writer thread; with ``check``, raise its
        error (the same one-line error the serial loop raises)."""
        files, self._files = self._files, None
        if files is None:
            return
        files.close(check=False)
        self._failed = files.error
        if check and files.error is not None:
            raise files.error

    def _note_damage(self, index: int) -> None:
        """List frame ``index``, just exported, when it decoded with errors; the running manifest
        says so before any checkpoint after it, so that a resume lists it too."""
        message = self._messages.pop(index, None)
        if message is not None:
            self.damaged.append({"frame": index, "message": message})
            self._write_running_manifest()

    def _write(self, index: int, mask: np.ndarray, scores: np.ndarray | None) -> None:
        """Write the files of frame ``index`` (in a replay, those not on disk yet or damaged)."""
        size = (mask.shape[1], mask.shape[0])
        mask_path = self.out / mask_name(index)
        if not (self.keep_existing and self._keep(mask_path, mask_problem(mask_path, size))):
            write_mask_png(mask_path, mask)
        if scores is not None:  # (given when self.scores)
            sp = self.out / scores_name(index)
            if not (self.keep_existing and self._keep(sp, scores_problem(sp, size))):
                write_scores_npz(sp, scores)
        if self.writer is not None:
            self.writer.write(mask)

    def _keep(self, path: Path, problem: str | None) -> bool:
        """Whether a replay keeps the file ``path`` found with ``problem`` (None: intact); a
        damaged one is noted and written again."""
        if problem is None:
            return True
        if problem != "is missing" and self._res is not None:
            self._res.note(f"{path}: {problem}; written again", self._log)
        return False

    def save_checkpoint(self) -> bool:
        """Save the checkpoint after the last frame exported unless it is saved already; whether
        the checkpoint on disk is of that frame."""
        if self.last_index is None:
            return False
        if self.last_index == self.checkpointed:
            return True
        return self._checkpoint(self.last_index, self.last_frame)

    def _checkpoint(self, index: int, frame) -> bool:
        """Save the checkpoint after frame ``index`` (False: the detector has no state), once
        the files up to it are written: a resume rewrites only the frames after it."""
        if self._files is not None:
            self._files.drain()
        if not save_checkpoint(self.out, self.det, index, self.position, frame):
            return False
        self.checkpointed = index
        digest = self.prefix.digest
        if digest is not None:
            self._through = {"frame": index, "digest": digest}
            self._write_running_manifest()
        return True

    def abandon_video(self) -> None:
        """Drop the unfinished video (a resume rebuilds it from the masks on disk)."""
        if self.writer is not None:
            self.writer.abandon()


def _kept(buf: list, i: int, a: np.ndarray) -> np.ndarray:
    """``a`` in the buffer ``buf[i]``, made once, that stays unchanged until the writer thread
    has written it (the detector's own buffers change with the next frame)."""
    if a is buf[i]:
        return a
    if buf[i] is None or buf[i].shape != a.shape or buf[i].dtype != a.dtype:
        buf[i] = np.empty_like(a)
    np.copyto(buf[i], a)
    return buf[i]


def _locked(log):
    """``log``, writing while no reader thread collects FFmpeg's messages from stderr."""

    def locked_log(msg: str) -> None:
        with STDERR_LOCK:
            log(msg)

    return locked_log


def _at_end(stream) -> bool:
    """Whether a file or folder's frame ``stream`` has no frame left (it reads the next one, if
    any: only for a stop, so a signal during the last frame does not leave an export unfinished)."""
    try:
        next(stream)
    except StopIteration:
        return True
    except SourceError:  # an unreadable next frame: there is more to export once it is fixed
        return False
    return False


def seek_after(src: Source, index: int, digest: bytes | None, out: Path, res: ExportResult, log) -> None:
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
    res.note(
        f"{src.spec}: seeking to frame {index} found another frame; reading forward from the "
        f"first frame instead",
        log,
    )
    src.seek(src.first_index)
    for i, frame in _past_bad_frames(src):
        if i >= index:
            if i == index and frame_digest(frame) == digest:
                return
            break
    raise ExportError(
        f"{out / CHECKPOINT}: frame {index} of {src.spec} is not the frame this "
        f"checkpoint was saved after (has the source changed?); add --overwrite to start over"
    )


def _index_after(src: Source, index: int) -> int:
    """The number of the frame after frame ``index`` (one past the last frame after the last)."""
    indices = getattr(src, "indices", None)  # FolderSource / CdnetSource: numbers from file names
    if indices is None:
        return index + 1
    k = bisect.bisect_right(indices, index)
    return indices[k] if k < len(indices) else indices[-1] + 1


def _past_bad_frames(src: Source):
    """The frames of ``src`` that can be read, passing over the bad ones (a resume knows them)."""
    while True:
        try:
            yield next(src)
        except StopIteration:
            return
        except BadFrame as e:
            src.seek(_index_after(src, e.index))


def feed_video_from_disk(
    out: Path, src: Source, writer: MaskVideoWriter, last: int, skipped: Container[int] = frozenset()
) -> None:
    """Write the masks ``first_index .. last`` (but those of ``skipped`` frames, which have none)
    from their PNG files into the video."""
    for i in indices_through(src, last):
        if i in skipped:
            continue
        path = out / mask_name(i)
        try:
            m = read_image(path, cv2.IMREAD_GRAYSCALE, "a mask image")
        except SourceError:
            raise ExportError(
                f"{path}: missing or unreadable while rebuilding the mask video; "
                f"use --overwrite to start over"
            ) from None
        writer.write(m)
