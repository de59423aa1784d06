"""``export_masks``: one export run, from opening the source to the finished folder.

The run takes the folder's lock (:mod:`~silkvision.export.folder`), decides what to keep
(:mod:`~silkvision.export.plan`), runs the frames (:mod:`~silkvision.export.loop`) and ends it
(:mod:`~silkvision.export.finish`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from silkvision.capture import Source, open_source
from silkvision.config import ALGORITHMS, validate, write_config
from silkvision.config.schema import SCHEMA
from silkvision.detector import create_subtractor
from silkvision.detector.factory import SHARED_KEYS
from silkvision.errors import ExportError, SourceError
from silkvision.export.finish import StopFlag, finish
from silkvision.export.folder import FolderLock, prepare_folder
from silkvision.export.loop import FrameLoop
from silkvision.export.notes import note_dropped
from silkvision.export.plan import DONE, ResumePlan, plan_resume, replay_plan
from silkvision.export.result import ExportResult
from silkvision.io.atomic import make_output_folder, output_path, reported_write_errors
from silkvision.io.checkpoint import CHECKPOINT, can_checkpoint, describe_error
from silkvision.io.manifest import build_manifest, output_settings, write_manifest
from silkvision.io.paths import resolved

__all__ = ["export_masks"]


def export_masks(
    source,
    out_dir,
    config: Mapping | None = None,
    *,
    algorithm: str | None = None,
    scores: bool | None = None,
    video: bool | None = None,
    overwrite: bool | None = None,
    detector=None,
    progress: bool | None = None,
    log: Callable[[str], None] | None = None,
    handle_signals: bool = True,
) -> ExportResult:
    """Run a background subtractor over a source and write its masks (resumable, see
    :mod:`silkvision.export`).

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
    out = output_path(out_dir, ExportError)  # refused before the source is opened

    own_source = not isinstance(source, Source)
    if own_source:
        cap = cfg["capture"]
        src = open_source(
            source,
            camera_timeout=cap["camera_timeout"],
            resize=cap["resize"],
            max_frames=cap["max_frames"],
            reconnect_timeout=cap["reconnect_timeout"],
        )
    else:
        src = source
    tell = src.on_status is None  # a stream's drop and return are logged as they happen
    if tell:
        src.on_status = log
    # a video's frames that FFmpeg decodes with errors are listed (only the export asks for it)
    report = getattr(src, "report_decoder_errors", None) is False
    if report:
        src.report_decoder_errors = True  # type: ignore[attr-defined]
    try:
        return _export(src, out, cfg, detector, progress, log, handle_signals)
    finally:
        if tell:
            src.on_status = None
        if report:
            src.report_decoder_errors = False  # type: ignore[attr-defined]
        if own_source:
            src.close()


def _export(src: Source, out: Path, cfg: dict, det, progress, log, handle_signals) -> ExportResult:
    if src.kind in ("folder", "cdnet"):
        folder = resolved(src.folder, ExportError)  # type: ignore[attr-defined]
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
    with FolderLock(out):
        return _export_locked(src, out, cfg, det, res, progress, log, handle_signals, given)


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


def _export_locked(
    src: Source,
    out: Path,
    cfg: dict,
    det,
    res: ExportResult,
    progress,
    log,
    handle_signals: bool,
    given: bool,
) -> ExportResult:
    algorithm = res.algorithm
    asked_scores = bool(cfg["export"]["scores"])
    want_scores = asked_scores and det.has_scores  # scores files written (MOG2/KNN have none)
    overwrite = bool(cfg["export"]["overwrite"])
    old = prepare_folder(out, overwrite)
    new = build_manifest(src, algorithm, output_settings(cfg, algorithm), "running")
    skip = cfg["capture"]["on_bad_frame"] == "skip"
    plan = plan_resume(
        out,
        old,
        new,
        src,
        scores=want_scores,
        algorithm=algorithm,
        checkpointable=old is not None and can_checkpoint(det),
        size=src.frame_size,
        skip=skip,
    )
    if plan.action == DONE:
        assert old is not None  # only a manifest found says the export is done
        (out / CHECKPOINT).unlink(missing_ok=True)
        res.frames, res.complete, res.already_complete = old["frames"], True, True
        res.first_index, res.last_index = old.get("first_index"), old.get("last_index")
        res.skipped = sorted(s["frame"] for s in old.get("skipped", []))
        res.damaged = sorted(d["frame"] for d in old.get("damaged", []))
        return res
    if plan.state is not None:
        plan = _restore(det, plan, out, algorithm)
    for name in plan.remove:  # files of frames the source no longer has
        (out / name).unlink(missing_ok=True)
    res.resumed_from = plan.resumed_from
    if plan.note:
        res.note(plan.note, log)

    # A fresh export (or a replay) starts at the first frame of the source, also when an open source
    # given by the caller was read from already: the manifest names the whole source, and a resume
    # counts export frame k as the source's k-th frame. The first frame is read before anything is
    # written, so a source without frames leaves no "running" manifest behind.
    loop = FrameLoop(
        src,
        det,
        out,
        scores=want_scores,
        video=bool(cfg["export"]["video"]),
        keep_existing=plan.keep_existing,
        checkpoint_every=int(cfg["export"]["checkpoint_every"]),
        resume_index=plan.resume_index,
        frames_before=plan.frames_before,
        skip=skip,
        skipped=plan.skipped,
        damaged=plan.damaged,
        pipeline=bool(cfg["export"]["pipeline"]),
    )
    pending = None
    if plan.resume_index is None:
        pending = loop.first_frame()
        if pending is None:
            note_dropped(src, res, log)
            raise SourceError(f"{src.spec}: no frames to export{_all_skipped(loop)}")
    if pending is not None and hasattr(det, "check_memory"):  # before anything is written
        det.check_memory(*pending[1].shape[:2])
    if pending is not None and given:
        det.reset()  # from an empty model, as evaluate_sequence; a resume has set its checkpoint
    write_manifest(out, loop.with_skips(new))
    loop.manifest = new
    with reported_write_errors(out / "config.yaml"):
        write_config(_effective_config(cfg), out / "config.yaml")
    if asked_scores and not want_scores:
        log(f"{algorithm} has no per-pixel scores: no scores files are written")

    if plan.resume_index is not None:
        loop.resume_after(plan.resume_index, plan.digest, res, log)
    with StopFlag(handle_signals) as stop:
        loop.run(pending, stop, res, log, progress)
    return finish(loop, stop, src, out, new, res, log, overwrite=overwrite, algorithm=algorithm)


def _all_skipped(loop: FrameLoop) -> str:
    if not loop.skipped:
        return ""
    n = len(loop.skipped)
    return (
        f": {'its' if n == 1 else 'all'} {n} frame{'s were' if n != 1 else ' was'} skipped as "
        f"bad (the first: {loop.skipped[0]['reason']})"
    )


def _restore(det, plan: ResumePlan, out: Path, algorithm: str) -> ResumePlan:
    """Set the checkpoint's state on ``det``; a state that does not fit turns the plan into a
    replay from a reset detector."""
    try:
        det.set_state(plan.state)
    except MemoryError:  # a good checkpoint, too large for the memory available now
        raise
    except Exception as e:  # noqa: BLE001 - garbled arrays: ValueError, TypeError, ...
        reset = getattr(det, "reset", None)
        if not callable(reset) or plan.source_changed:  # no fresh detector, or nothing to replay
            raise ExportError(
                f"{out / CHECKPOINT}: cannot restore the {algorithm} "
                f"detector ({describe_error(e)}); use --overwrite to "
                f"start over"
            ) from None
        reset()
        return replay_plan(out, f"cannot restore the {algorithm} detector: {describe_error(e)}")
    return plan


def _effective_config(cfg: Mapping) -> dict:
    """``cfg`` as written to ``DIR/config.yaml``: ``export.overwrite`` and ``export.pipeline`` are
    how one run works, not settings of the output. ``overwrite`` is written as false (reusing the
    file as ``--config`` must not silently replace another export) and ``pipeline`` as its default,
    so that a pipelined and a serial export of the same source write the same folder, byte for
    byte."""
    pipeline = SCHEMA["export"]["pipeline"].default
    return {**cfg, "export": {**cfg["export"], "overwrite": False, "pipeline": pipeline}}
