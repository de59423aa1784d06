"""What a run does with the folder it finds: start afresh, find it done, resume from the checkpoint,
or replay from the first frame keeping the masks already written.

:func:`plan_resume` decides it from the manifest, the checkpoint and the files on disk, and writes
nothing: the engine carries the plan out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from silkvision.capture import Source
from silkvision.errors import ExportError
from silkvision.export.folder import count_outputs
from silkvision.export.verify import first_bad_output
from silkvision.io.checkpoint import CHECKPOINT, BadCheckpoint, load_checkpoint
from silkvision.io.manifest import compare_manifests

__all__ = ["ResumePlan", "plan_resume", "replay_plan"]

FRESH, DONE, CHECKPOINT_RESUME, REPLAY = "fresh", "done", "checkpoint", "replay"


@dataclass(frozen=True)
class ResumePlan:
    """How a run continues the export in its folder.

    Attributes
    ----------
    action : str
        ``"fresh"`` (nothing to keep), ``"done"`` (the export is complete), ``"checkpoint"``
        (restore ``state`` and go on after frame ``resume_index``) or ``"replay"`` (run the
        detector from the first frame, keeping the files already written).
    resume_index : int or None
        The checkpoint's frame (``"checkpoint"`` only).
    frames_before : int
        Frames of the export up to and including ``resume_index``.
    digest : bytes or None
        :func:`~silkvision.io.checkpoint.frame_digest` of the checkpoint's frame, when saved.
    state : dict or None
        The detector state to restore (``"checkpoint"`` only).
    note : str or None
        What the user is told about the resume.
    """

    action: str
    resume_index: int | None = None
    frames_before: int = 0
    digest: bytes | None = None
    state: dict | None = field(default=None, repr=False, compare=False)
    note: str | None = None

    @property
    def keep_existing(self) -> bool:
        """Files already on disk are kept rather than written again (a replay)."""
        return self.action == REPLAY

    @property
    def resumed_from(self) -> int | None:
        """:attr:`ExportResult.resumed_from <silkvision.export.ExportResult>`: the checkpoint's
        frame, 0 for a replay, None otherwise."""
        if self.action == CHECKPOINT_RESUME:
            return self.resume_index
        return 0 if self.action == REPLAY else None


def replay_plan(out: Path, why: str) -> ResumePlan:
    """The replay that follows a checkpoint that cannot be used for reason ``why``."""
    n = count_outputs(out)
    return ResumePlan(REPLAY, note=f"{out / CHECKPOINT}: cannot be used ({why}); replaying from the "
                                   f"first frame, keeping the {n} mask{'' if n == 1 else 's'} already "
                                   f"written")


def plan_resume(out: Path, old: Mapping | None, new: Mapping, src: Source, *, scores: bool,
                algorithm: str, checkpointable: bool,
                size: tuple[int, int] | None = None) -> ResumePlan:
    """Decide how this run continues the export in ``out``.

    Parameters
    ----------
    out : Path
        The output folder.
    old : mapping or None
        The manifest found there (None: a fresh export).
    new : mapping
        The manifest of this run (:func:`~silkvision.io.manifest.build_manifest`).
    src : Source
        The open source.
    scores : bool
        Scores files are written (they must be on disk too).
    algorithm : str
        The detector's name (for the notes).
    checkpointable : bool
        The detector has a state to checkpoint (:func:`~silkvision.io.checkpoint.can_checkpoint`).
    size : (width, height), optional
        The masks' size when known before a frame is read; otherwise the first mask's size is the
        one the others kept must have.

    Returns
    -------
    ResumePlan

    Raises
    ------
    ExportMismatchError
        ``old`` is an export with other settings or of another source.
    ExportError
        A complete export has lost files, or an unfinished one of a camera cannot be resumed.
    """
    if old is None:
        return ResumePlan(FRESH)
    compare_manifests(out, old, new)
    if old.get("status") == "complete":
        _check_complete_files(out, old, scores)
        return ResumePlan(DONE)
    if not src.seekable:
        raise ExportError(f"{out}: holds an unfinished export of {src.name}, which cannot be "
                          f"resumed (a live camera); add --overwrite to start over")
    if (out / CHECKPOINT).is_file():
        try:
            state, index, frames, digest = load_checkpoint(out, src, scores=scores)
        except BadCheckpoint as e:
            return replay_plan(out, str(e))
        # a checkpoint vouches for the files before it only if they can still be read back: a
        # truncated mask or a link in its place would otherwise end in a "complete" export
        bad = first_bad_output(out, src, index, scores, size)
        if bad is not None:
            return replay_plan(out, f"{bad[0]}, written before it, {bad[1]}")
        return ResumePlan(CHECKPOINT_RESUME, resume_index=index, frames_before=frames, digest=digest,
                          state=state, note=f"resuming {out} after frame {index} (checkpoint)")
    why = f"{algorithm} cannot be checkpointed" if not checkpointable else "no checkpoint was saved yet"
    return ResumePlan(REPLAY, note=f"resuming {out}: {why}, so frames are replayed from the first "
                                   f"one; masks already written are kept")


def _check_complete_files(out: Path, manifest: Mapping, want_scores: bool) -> None:
    """A folder whose manifest says "complete" must still hold every mask (and scores file)."""
    kinds = [("bin", ".png", "masks")] + ([("scores", ".npz", "scores files")] if want_scores else [])
    for prefix, ext, what in kinds:
        n = count_outputs(out, prefix, ext)
        if n < manifest["frames"]:
            raise ExportError(f"{out}: export.json says the export is complete with {manifest['frames']} "
                              f"frames, but only {n} {what} are there (files were removed?); use "
                              f"--overwrite to redo it")
