"""What a run does with the folder it finds: start afresh, find it done, resume from the checkpoint,
or replay from the first frame keeping the masks already written.

:func:`plan_resume` decides it from the manifest, the checkpoint and the files on disk, and writes
nothing: the engine carries the plan out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from silkvision.capture import Source
from silkvision.errors import ExportError, ExportMismatchError
from silkvision.export.folder import count_outputs
from silkvision.export.prefix import prefix_digest
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
    skipped : tuple of dict
        The bad frames skipped up to ``resume_index`` (``capture.on_bad_frame: skip``), as
        ``export.json`` lists them.
    damaged : tuple of dict
        The frames up to ``resume_index`` that decoded with errors, as ``export.json`` lists them.
    remove : tuple of str
        Files of frames after ``resume_index`` that the source no longer has, to delete.
    source_changed : bool
        The source (an image folder) changed after ``resume_index``: only this checkpoint can
        resume the export, not a replay.
    """

    action: str
    resume_index: int | None = None
    frames_before: int = 0
    digest: bytes | None = None
    state: dict | None = field(default=None, repr=False, compare=False)
    note: str | None = None
    skipped: tuple = ()
    damaged: tuple = ()
    remove: tuple = ()
    source_changed: bool = False

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
    return ResumePlan(
        REPLAY,
        note=f"{out / CHECKPOINT}: cannot be used ({why}); replaying from the "
        f"first frame, keeping the {n} mask{'' if n == 1 else 's'} already "
        f"written",
    )


def plan_resume(
    out: Path,
    old: dict | None,
    new: dict,
    src: Source,
    *,
    scores: bool,
    algorithm: str,
    checkpointable: bool,
    size: tuple[int, int] | None = None,
    skip: bool = False,
) -> ResumePlan:
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
    skip : bool
        This run skips bad frames (``capture.on_bad_frame: skip``). An export that skipped frames
        is only resumed (or found complete) by such a run.

    Returns
    -------
    ResumePlan

    Raises
    ------
    ExportMismatchError
        ``old`` is an export with other settings or of another source.
        Or it skipped bad frames and this run would not. An unfinished export of an image
        folder whose files changed only after its checkpoint is resumed from that checkpoint.
    ExportError
        A complete export has lost files, or an unfinished one of a camera cannot be resumed.
    """
    if old is None:
        return ResumePlan(FRESH)
    changed = _compare(out, old, new, src)
    skipped = old.get("skipped") or []
    if skipped and not skip:
        running = old.get("status") != "complete"
        raise ExportMismatchError(
            f"{out}: holds an export that skipped bad frames ({frame_list(skipped)}) with "
            f"capture.on_bad_frame=skip; add --set capture.on_bad_frame=skip to "
            f"{'resume' if running else 'keep'} it, or --overwrite to start over"
        )
    if old.get("status") == "complete":
        _check_complete_files(out, old, scores)
        return ResumePlan(DONE)
    if not src.seekable:
        raise ExportError(
            f"{out}: holds an unfinished export of {src.name}, which cannot be "
            "resumed (a live camera or stream); add --overwrite to start over"
        )
    if (out / CHECKPOINT).is_file():
        try:
            state, index, position, digest = load_checkpoint(out)
        except BadCheckpoint as e:
            return _replay(out, str(e), changed)
        problem = _position_problem(src, index, position)
        if problem:
            return _replay(out, problem, changed)
        before = tuple(s for s in skipped if s["frame"] <= index)
        # a checkpoint vouches for the files before it only if they can still be read back: a
        # truncated mask or a link in its place would otherwise end in a "complete" export
        bad = first_bad_output(out, src, index, scores, size, {s["frame"] for s in before})
        if bad is not None:
            return _replay(out, f"{bad[0]}, written before it, {bad[1]}", changed)
        note = f"resuming {out} after frame {index} (checkpoint)"
        remove: tuple = ()
        if changed is not None:
            if index != old["source_through"]["frame"]:
                raise changed
            note += (
                f"; {new['source']} changed after that frame, and the frames after it are "
                f"exported as they are now"
            )
            remove = _gone_after(out, src, index)
        return ResumePlan(
            CHECKPOINT_RESUME,
            resume_index=index,
            frames_before=position - len(before),
            digest=digest,
            state=state,
            skipped=before,
            note=note,
            remove=remove,
            source_changed=changed is not None,
            damaged=tuple(d for d in old.get("damaged") or [] if d["frame"] <= index),
        )
    if changed is not None:
        raise changed
    why = f"{algorithm} cannot be checkpointed" if not checkpointable else "no checkpoint was saved yet"
    return ResumePlan(
        REPLAY,
        note=f"resuming {out}: {why}, so frames are replayed from the first "
        f"one; masks already written are kept",
    )


def _compare(out: Path, old: dict, new: dict, src: Source) -> ExportMismatchError | None:
    """:func:`~silkvision.io.manifest.compare_manifests`, but for an unfinished export of an image
    folder whose files changed only after the checkpoint that the manifest's ``source_through``
    names: the error is then returned, to be raised unless the run resumes from that checkpoint."""
    try:
        compare_manifests(out, old, new)
        return None
    except ExportMismatchError as e:
        mismatch = e
    through = old.get("source_through")
    if old.get("status") == "complete" or through is None:
        raise mismatch
    # another difference (settings, source path) is the error to report
    compare_manifests(
        out,
        old,
        {
            **new,
            "source_frames": old.get("source_frames"),
            "source_fingerprint": old.get("source_fingerprint"),
        },
    )
    if prefix_digest(src, through["frame"]) != through["digest"]:
        raise mismatch
    return mismatch


def _replay(out: Path, why: str, changed: ExportMismatchError | None) -> ResumePlan:
    """The replay after an unusable checkpoint; not possible once the source changed (a replay
    keeps the files already written, of frames that may be gone or different now)."""
    if changed is not None:
        raise changed
    return replay_plan(out, why)


_NUMBERED = re.compile(r"^(?:bin(\d+)\.png|scores(\d+)\.npz)$")


def _gone_after(out: Path, src: Source, index: int) -> tuple[str, ...]:
    """Names of the masks and scores files in ``out`` of frames after ``index`` that ``src`` no
    longer has."""
    have = set(getattr(src, "indices", ()))
    gone = []
    for name in sorted(os.listdir(out)):
        m = _NUMBERED.match(name)
        if m:
            i = int(m.group(1) or m.group(2))
            if i > index and i not in have:
                gone.append(name)
    return tuple(gone)


def _position_problem(src: Source, index: int, position: int) -> str | None:
    """Why a checkpoint after frame ``index``, the ``position``-th frame read, cannot be one of
    ``src`` (None when it can)."""
    indices = getattr(src, "indices", None)  # FolderSource / CdnetSource
    if indices is not None:
        ok = 1 <= position <= len(indices) and indices[position - 1] == index
    else:
        n = src.frame_count
        ok = position >= 1 and index == src.first_index + position - 1 and (n is None or position <= n)
    return None if ok else f"frame {index} as export frame {position} does not match {src.spec}"


def frame_list(skipped) -> str:
    """``"248, 300-302"``: the frame numbers of ``skipped`` entries, runs of consecutive numbers
    joined."""
    runs: list[list[int]] = []
    for i in sorted(s["frame"] for s in skipped):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _check_complete_files(out: Path, manifest: Mapping, want_scores: bool) -> None:
    """A folder whose manifest says "complete" must still hold every mask (and scores file)."""
    kinds = [("bin", ".png", "masks")] + ([("scores", ".npz", "scores files")] if want_scores else [])
    for prefix, ext, what in kinds:
        n = count_outputs(out, prefix, ext)
        if n < manifest["frames"]:
            raise ExportError(
                f"{out}: export.json says the export is complete with {manifest['frames']} "
                f"frames, but only {n} {what} are there (files were removed?); use "
                f"--overwrite to redo it"
            )
