"""The frame loop of an export: each frame through the detector, its files written, the checkpoint
saved every ``export.checkpoint_every`` frames; and the positioning of a resumed run."""

from __future__ import annotations

import inspect
import itertools
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture import Source, read_image
from silkvision.errors import ExportError, SourceError
from silkvision.export.notes import note_dropped, note_padding, note_resize
from silkvision.export.result import ExportResult
from silkvision.export.verify import mask_problem, scores_problem
from silkvision.io.checkpoint import CHECKPOINT, frame_digest, indices_through, save_checkpoint
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
        Frames of the export up to and including ``resume_index``.

    Attributes
    ----------
    frames, processed : int
        Frames of the export so far; frames run through the detector by this run.
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

    def __init__(self, src: Source, det, out: Path, *, scores: bool, video: bool, keep_existing: bool,
                 checkpoint_every: int, resume_index: int | None = None, frames_before: int = 0):
        self.src, self.det, self.out = src, det, out
        self.scores, self.video, self.keep_existing = scores, video, keep_existing
        self.every = checkpoint_every
        self.frames = frames_before
        self.processed = 0
        self.first_index = None if resume_index is None else src.first_index
        self.last_index = resume_index
        self.last_frame = None     # the frame of last_index, for the checkpoint's digest
        self.checkpointed = resume_index
        self.exhausted = False
        self.writer: MaskVideoWriter | None = None
        self.seconds = 0.0
        self._res: ExportResult | None = None   # where run() notes files written again
        self._log = None

    # -- a resumed run -----------------------------------------------------------------------
    def resume_after(self, index: int, digest: bytes | None, res: ExportResult, log) -> None:
        """Position the source after the checkpoint's frame ``index`` and, with a video, write the
        masks up to it from their files into a new one."""
        seek_after(self.src, index, digest, self.out, res, log)
        if self.video:  # rebuild the video's first part from the masks on disk
            self.writer = MaskVideoWriter(self.out, self.src.frame_size, self.src.fps or 25.0)
            note_padding(self.writer, res, log)
            feed_video_from_disk(self.out, self.src, self.writer, index)

    # -- the loop ------------------------------------------------------------------------------
    def run(self, pending, stop, res: ExportResult, log, progress: bool | None) -> None:
        """Process frames until the source ends or ``stop.set`` (checked after each frame).

        ``pending`` is a first ``(index, frame)`` read already, or None. On a
        :class:`~silkvision.errors.SourceError` the checkpoint is saved after the last frame
        exported (so a fixed source resumes there) and the error is raised again.
        """
        src, det, out = self.src, self.det, self.out
        self._res, self._log = res, log
        use_bar = sys.stderr.isatty() if progress is None else bool(progress)
        bar = None
        if use_bar:
            from tqdm import tqdm
            bar = tqdm(total=src.frame_count, initial=self.frames, unit="frame", file=sys.stderr,
                       desc=src.name, dynamic_ncols=True, leave=False)
        t0 = time.perf_counter()
        # one mask buffer for the whole export (no allocation per frame) when the detector takes one
        takes_fgmask = "fgmask" in inspect.signature(det.apply).parameters
        mask_buf = None
        resize_noted = False
        try:
            stream = src if pending is None else itertools.chain((pending,), src)
            for index, frame in stream:
                if not resize_noted:
                    resize_noted = True
                    note_resize(src, res, log)
                if self.video and self.writer is None:
                    self.writer = MaskVideoWriter(out, (frame.shape[1], frame.shape[0]), src.fps or 25.0)
                    note_padding(self.writer, res, log)
                if takes_fgmask:
                    if mask_buf is None or mask_buf.shape != frame.shape[:2]:
                        mask_buf = np.empty(frame.shape[:2], np.uint8)
                    mask = det.apply(frame, fgmask=mask_buf)
                else:
                    mask = det.apply(frame)
                self._write(index, mask)
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
                    if save_checkpoint(out, det, index, self.frames, frame):
                        self.checkpointed = index
            else:
                self.exhausted = True
        except SourceError:
            # the detector is consistent up to last_index: keep that so a fixed source resumes
            if src.seekable:
                self.save_checkpoint()
            note_dropped(src, res, log)
            self.abandon_video()
            raise
        except BaseException:
            self.abandon_video()
            raise
        finally:
            if bar is not None:
                bar.close()
        self.seconds = time.perf_counter() - t0

    def _write(self, index: int, mask: np.ndarray) -> None:
        """Write the files of frame ``index`` (in a replay, those not on disk yet or damaged)."""
        size = (mask.shape[1], mask.shape[0])
        mask_path = self.out / mask_name(index)
        if not (self.keep_existing and self._keep(mask_path, mask_problem(mask_path, size))):
            write_mask_png(mask_path, mask)
        if self.scores:
            sp = self.out / scores_name(index)
            if not (self.keep_existing and self._keep(sp, scores_problem(sp, size))):
                write_scores_npz(sp, self.det.scores)
        if self.writer is not None:
            self.writer.write(mask)

    def _keep(self, path: Path, problem: str | None) -> bool:
        """Whether a replay keeps the file ``path`` found with ``problem`` (None: intact); a
        damaged one is noted and written again."""
        if problem is None:
            return True
        if problem != "is missing":
            self._res.note(f"{path}: {problem}; written again", self._log)
        return False

    def save_checkpoint(self) -> bool:
        """Save the checkpoint after the last frame exported unless it is saved already; whether
        the checkpoint on disk is of that frame."""
        if self.last_index is None:
            return False
        if self.last_index == self.checkpointed:
            return True
        if save_checkpoint(self.out, self.det, self.last_index, self.frames, self.last_frame):
            self.checkpointed = self.last_index
            return True
        return False

    def abandon_video(self) -> None:
        """Drop the unfinished video (a resume rebuilds it from the masks on disk)."""
        if self.writer is not None:
            self.writer.abandon()


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
    res.note(f"{src.spec}: seeking to frame {index} found another frame; reading forward from the "
             f"first frame instead", log)
    src.seek(src.first_index)
    for i, frame in src:
        if i >= index:
            if i == index and frame_digest(frame) == digest:
                return
            break
    raise ExportError(f"{out / CHECKPOINT}: frame {index} of {src.spec} is not the frame this "
                      f"checkpoint was saved after (has the source changed?); add --overwrite to start over")


def feed_video_from_disk(out: Path, src: Source, writer: MaskVideoWriter, last: int) -> None:
    """Write the masks ``first_index .. last`` from their PNG files into the video."""
    for i in indices_through(src, last):
        path = out / mask_name(i)
        try:
            m = read_image(path, cv2.IMREAD_GRAYSCALE, "a mask image")
        except SourceError:
            raise ExportError(f"{path}: missing or unreadable while rebuilding the mask video; "
                              f"use --overwrite to start over") from None
        writer.write(m)
