"""What an export did: :class:`ExportResult` and its one-line summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ExportResult"]


@dataclass
class ExportResult:
    """What :func:`~silkvision.export.export_masks` did.

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
    skipped : list of int
        Numbers of the bad frames skipped (``capture.on_bad_frame: skip``); no mask was written
        for them.
    damaged : list of int
        Numbers of the frames exported that FFmpeg decoded with errors (it concealed the damage);
        ``export.json`` lists its messages.
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
    skipped: list = field(default_factory=list)
    damaged: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.processed / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        """The final one-line summary."""
        if self.already_complete:
            return (
                f"{self.out_dir}: already holds the complete export ({self.frames} frames); "
                f"nothing to do (use --overwrite to redo it)"
            )
        verb = "interrupted after" if self.interrupted else "exported"
        resumed = ""
        if self.resumed_from is not None:
            resumed = (
                f", resumed after frame {self.resumed_from}"
                if self.resumed_from
                else ", replayed from the first frame"
            )
        if self.skipped:
            n = len(self.skipped)
            resumed += f", {n} bad frame{'s' if n != 1 else ''} skipped"
        return (
            f"{verb} {self.frames} frames ({self.processed} processed{resumed}) in "
            f"{self.seconds:.1f} s ({self.fps:.1f} fps) with {self.algorithm} to {self.out_dir}"
        )

    def note(self, message: str, log) -> None:
        """Keep ``message`` among the notes and show it."""
        self.notes.append(message)
        log(message)
