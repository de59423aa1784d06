"""``silkvision export``: write the foreground masks of a source as ``bin%06d.png`` (resumable)."""

from __future__ import annotations

import argparse
import sys

from silkvision.cli.main import add_config_arguments
from silkvision.config import ALGORITHMS

DESCRIPTION = """\
Run a background subtractor over SOURCE and write one mask per frame, DIR/bin%06d.png (0/255,
numbered like the input frame), plus DIR/config.yaml (effective configuration) and DIR/export.json
(manifest). Optional: --scores writes DIR/scores%06d.npz (member "scores": float16 HxW scores,
compressed; SILK/NORMA only), --video writes DIR/masks.mkv (lossless FFV1), --objects and --events
write DIR/objects.csv (the foreground regions of every mask) and DIR/events.csv (motion events), or
.jsonl, from the masks once the export is complete.

SOURCE is a video file, a folder of images, a CDnet sequence folder (with input/), or a camera
index (0).

Interrupted exports resume: re-run the same command. The detector state is checkpointed every
export.checkpoint_every frames and on Ctrl-C/SIGTERM; MOG2/KNN cannot be checkpointed and replay from
the first frame, keeping the masks already written (and re-creating missing ones). A folder holding
other files, or an export with other settings or of a source whose files changed since (names, sizes,
or the content of the first or last one), is refused unless --overwrite is given. --overwrite acts on one run only:
DIR/config.yaml records export.overwrite as false, so it can be reused as --config safely."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "export",
        help="write the masks of a video/folder/camera (resumable)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "source",
        metavar="SOURCE",
        help="video file, image folder, CDnet sequence folder, camera index, or rtsp/http(s) stream URL",
    )
    p.add_argument("--out", "-o", metavar="DIR", required=True, help="output folder")
    p.add_argument(
        "--algorithm",
        "-a",
        choices=ALGORITHMS,
        help="detector (default: config detector.algorithm; gsoc and cnt need opencv-contrib)",
    )
    p.add_argument(
        "--scores",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also write per-frame scores as float16 .npz (config export.scores)",
    )
    p.add_argument(
        "--video",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also write a lossless mask video masks.mkv (config export.video)",
    )
    add_overwrite_argument(p, "replace an earlier export and write into a folder with other files")
    add_object_arguments(p)
    add_config_arguments(p)
    return p


def _at_least_one(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an integer >= 1")
    return v


def add_object_arguments(p: argparse.ArgumentParser) -> None:
    """``--objects``, ``--events``, ``--min-area`` and ``--event-min-frames`` (object-level output,
    written from the masks once the export is complete; see docs/commands/export-objects.md)."""
    from silkvision.config.schema import OBJECT_FORMATS

    p.add_argument(
        "--objects",
        nargs="?",
        const="csv",
        choices=OBJECT_FORMATS,
        default=None,
        help="also write the foreground regions of every mask (bounding box, area, "
        "centroid) to DIR/objects.csv or .jsonl (default csv; config export.objects)",
    )
    p.add_argument(
        "--events",
        nargs="?",
        const="csv",
        choices=OBJECT_FORMATS,
        default=None,
        help="also write motion events (start/end frame and time, largest region) to "
        "DIR/events.csv or .jsonl (default csv; config export.events)",
    )
    p.add_argument(
        "--min-area",
        type=_at_least_one,
        metavar="N",
        help="smallest region in pixels for --objects and --events (config export.min_area)",
    )
    p.add_argument(
        "--event-min-frames",
        type=_at_least_one,
        metavar="N",
        help="shortest event, in frames with regions (config export.event_min_frames)",
    )


def write_objects_after(source, result, cfg: dict, args: argparse.Namespace) -> str | None:
    """Write the object and event files of a complete export from its masks; the line to print,
    or None when none was asked for or the export is not complete yet (a resume writes them)."""
    from silkvision.objects import write_object_files

    ex = cfg["export"]
    objects = args.objects or ex["objects"]
    events = args.events or ex["events"]
    if not (objects or events) or not result.complete:
        return None
    fps, first = None, 1
    if not str(source).isdigit():  # a camera is not opened again: its events have no times
        from silkvision.capture import open_source

        with open_source(source) as src:
            fps, first = src.fps, src.first_index
    paths = write_object_files(
        result.out_dir,
        objects=objects,
        events=events,
        min_area=args.min_area or ex["min_area"],
        event_min_frames=args.event_min_frames or ex["event_min_frames"],
        fps=fps,
        first_index=first,
    )
    return "wrote " + ", ".join(str(p) for p in paths.values())


def add_overwrite_argument(p: argparse.ArgumentParser, what: str) -> None:
    """The ``--overwrite`` flag of the commands that export masks (``export``, ``demo``).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser.
    what : str
        What the flag does for that command (its help, before the config key).
    """
    p.add_argument("--overwrite", action="store_true", default=None, help=f"{what} (config export.overwrite)")


def check_installed(algorithm: str, given_by: str) -> None:
    """A one-line ConfigError naming where ``algorithm`` was chosen (``given_by``: an option, or a
    key and the file that set it) when this installation lacks it (GSOC/CNT need opencv-contrib)."""
    from silkvision.detector.factory import available_subtractors
    from silkvision.errors import ConfigError

    have = available_subtractors()
    if algorithm not in have:
        raise ConfigError(
            f"{given_by}: {algorithm!r} needs opencv-contrib (cv2.bgsegm), which is not "
            f"installed; expected one of {', '.join(have)}"
        )


def load_export_config(args: argparse.Namespace) -> dict:
    """The configuration of ``--config``/``--set`` (``export``, ``batch``), its detector (or
    ``--algorithm``) checked to be installed (:func:`check_installed`)."""
    import silkvision as sv

    cfg = sv.load_config(args.config, args.overrides)
    if args.algorithm:
        check_installed(args.algorithm, "--algorithm")
    else:
        from silkvision.config.loader import key_source

        where = key_source("detector.algorithm", args.config, args.overrides) or "the defaults"
        check_installed(cfg["detector"]["algorithm"], f"detector.algorithm in {where}")
    return cfg


def exit_status(result) -> int:
    """The exit status of a command that ran :func:`~silkvision.export.export_masks`.

    Parameters
    ----------
    result : ExportResult

    Returns
    -------
    int
        0, or for an export stopped by a signal 128 + its number, as a shell reports a killed
        command: 130 for Ctrl-C, 143 for SIGTERM.
    """
    return 128 + (result.signal or 2) if result.interrupted else 0


def run(args: argparse.Namespace) -> int:
    from silkvision.errors import ConfigError
    from silkvision.export import export_masks

    if args.source == "":  # Path("") would be the current folder
        raise ConfigError(
            "SOURCE '': empty path; expected a video file, an image folder, a CDnet "
            "sequence folder or a camera index"
        )
    if args.out == "":
        raise ConfigError("--out '': empty path; expected an output folder")
    cfg = load_export_config(args)
    from silkvision.jit import CompileWatch

    with CompileWatch() as compiling:  # the time and fps leave out compiling (first run only)
        result = export_masks(
            args.source,
            args.out,
            cfg,
            algorithm=args.algorithm,
            scores=args.scores,
            video=args.video,
            overwrite=args.overwrite,
        )
    result.seconds = max(result.seconds - compiling.seconds, 0.0)
    print(result.summary(), flush=True)
    line = write_objects_after(args.source, result, cfg, args)
    if line:
        print(line, flush=True)
    return exit_status(result)


if __name__ == "__main__":  # pragma: no cover
    from silkvision.cli.main import main

    sys.exit(main(["export", *sys.argv[1:]]))
