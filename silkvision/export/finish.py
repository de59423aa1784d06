"""The end of an export run: stopping on SIGINT/SIGTERM, saving the checkpoint of an interrupted
run, and finishing a complete one (video, manifest "complete", checkpoint removed)."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

from silkvision import __version__
from silkvision.capture import Source
from silkvision.errors import SourceError, may_catch_sigterm
from silkvision.export.loop import FrameLoop
from silkvision.export.notes import note_dropped
from silkvision.export.plan import frame_list
from silkvision.export.result import ExportResult
from silkvision.io.checkpoint import CHECKPOINT
from silkvision.io.manifest import write_manifest

__all__ = ["StopFlag", "finish"]

SIGNAL_NAMES: dict[int | None, str] = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


class StopFlag:
    """SIGINT/SIGTERM set a flag (the loop stops after the current frame); a second signal raises
    KeyboardInterrupt at once. A signal the process inherited as ignored (a background ``cmd &``
    ignores SIGINT) stays ignored. In a ``multiprocessing`` child (a Pool worker) SIGTERM is left
    alone: ``Pool.terminate()`` and ``Process.terminate()`` stop the process with it, and a
    worker that caught it and returned normally hung the pool's ``terminate()`` for ever."""

    def __init__(self, enabled: bool):
        self.signum: int | None = None
        self._old: dict = {}
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


def finish(
    loop: FrameLoop,
    stop: StopFlag,
    src: Source,
    out: Path,
    manifest: dict,
    res: ExportResult,
    log,
    *,
    overwrite: bool,
    algorithm: str,
) -> ExportResult:
    """Conclude a run whose frame loop has returned.

    A seekable source stopped by a signal before its end is left resumable (checkpoint saved,
    video dropped, ``res.interrupted``); otherwise the video is finished, the manifest ``manifest``
    is written as "complete" and the checkpoint removed.

    Raises
    ------
    SourceError
        No frame was exported.
    ExportError
        The video or the manifest cannot be written.
    """
    res.seconds, res.processed, res.signal = loop.seconds, loop.processed, stop.signum
    res.frames, res.first_index, res.last_index = loop.frames, loop.first_index, loop.last_index
    res.skipped = sorted(loop.skipped_indices)
    res.damaged = [d["frame"] for d in loop.damaged]
    if stop.set and src.seekable and not loop.exhausted:
        _interrupted(loop, res, log, overwrite=overwrite, algorithm=algorithm)
        return res

    res.interrupted = (
        stop.set and not loop.exhausted
    )  # a camera export stopped by Ctrl-C is finished normally
    if stop.set and loop.exhausted:
        res.note(
            f"{SIGNAL_NAMES.get(stop.signum, 'a signal')} came after the last frame "
            f"was exported: the export was finished",
            log,
        )
    note_dropped(src, res, log)
    if loop.frames == 0:
        loop.abandon_video()
        raise SourceError(f"{src.spec}: no frames to export")
    if loop.writer is not None:
        res.video = loop.writer.finish()
    gaps = getattr(src, "gaps", None)  # a stream's reconnections: the frame numbers skipped
    if gaps:
        res.note(
            f"the stream dropped {len(gaps)} time{'s' if len(gaps) != 1 else ''}; the frames "
            f"lost are missing from the numbering (export.json lists the gaps)",
            log,
        )
    write_manifest(
        out,
        loop.with_skips(
            {
                **manifest,
                "status": "complete",
                "frames": loop.frames,
                "first_index": loop.first_index,
                "last_index": loop.last_index,
                "video": res.video.name if res.video else None,
                "scores": loop.scores,
                "silkvision": __version__,
                **({"gaps": list(gaps)} if gaps is not None else {}),
            }
        ),
    )
    (out / CHECKPOINT).unlink(missing_ok=True)
    res.complete = True
    if loop.skipped:
        n = len(loop.skipped)
        res.note(
            f"skipped {n} bad frame{'s' if n != 1 else ''} (capture.on_bad_frame=skip; no mask "
            f"written, reasons in {out / 'export.json'}): {frame_list(loop.skipped)}",
            log,
        )
    if loop.damaged:
        n = len(loop.damaged)
        res.note(
            f"{n} frame{'s' if n != 1 else ''} decoded with errors (FFmpeg concealed the "
            f"damage; export.json lists them): {frame_list(loop.damaged)}",
            log,
        )
    return res


def _interrupted(loop: FrameLoop, res: ExportResult, log, *, overwrite: bool, algorithm: str) -> None:
    """Leave an interrupted export resumable: the video dropped, the checkpoint saved."""
    res.interrupted = True
    loop.abandon_video()
    saved = loop.save_checkpoint()
    last = loop.last_index
    if last is None:
        res.notes.append("interrupted before the first frame was exported")
    elif saved:
        again = "the same command again without --overwrite" if overwrite else "the same command again"
        res.notes.append(f"interrupted after frame {last}; checkpoint saved; run {again} to resume")
    else:
        res.notes.append(
            f"interrupted after frame {last}; {algorithm} cannot be "
            f"checkpointed, so running the same command again replays from the "
            f"first frame (masks already written are kept)"
        )
    log(res.notes[-1])
