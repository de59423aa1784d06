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
compressed; SILK/NORMA only), --video writes DIR/masks.mkv (lossless FFV1).

SOURCE is a video file, a folder of images, a CDnet sequence folder (with input/), or a camera
index (0).

Interrupted exports resume: re-run the same command. The detector state is checkpointed every
export.checkpoint_every frames and on Ctrl-C/SIGTERM; MOG2/KNN cannot be checkpointed and replay from
the first frame, keeping the masks already written (and re-creating missing ones). A folder holding
other files, or an export with other settings or of a source whose files changed since (names, sizes,
or the content of the first or last one), is refused unless --overwrite is given. --overwrite acts on one run only:
DIR/config.yaml records export.overwrite as false, so it can be reused as --config safely."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("export", help="write the masks of a video/folder/camera (resumable)",
                              description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", metavar="SOURCE",
                   help="video file, image folder, CDnet sequence folder, or camera index")
    p.add_argument("--out", "-o", metavar="DIR", required=True, help="output folder")
    p.add_argument("--algorithm", "-a", choices=ALGORITHMS,
                   help="detector (default: config detector.algorithm; gsoc and cnt need "
                        "opencv-contrib)")
    p.add_argument("--scores", action=argparse.BooleanOptionalAction, default=None,
                   help="also write per-frame scores as float16 .npz (config export.scores)")
    p.add_argument("--video", action=argparse.BooleanOptionalAction, default=None,
                   help="also write a lossless mask video masks.mkv (config export.video)")
    add_overwrite_argument(p, "replace an earlier export and write into a folder with other files")
    add_config_arguments(p)
    return p


def add_overwrite_argument(p: argparse.ArgumentParser, what: str) -> None:
    """The ``--overwrite`` flag of the commands that export masks (``export``, ``demo``).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The sub-command's parser.
    what : str
        What the flag does for that command (its help, before the config key).
    """
    p.add_argument("--overwrite", action="store_true", default=None,
                   help=f"{what} (config export.overwrite)")


def check_installed(algorithm: str, given_by: str) -> None:
    """A one-line ConfigError naming where ``algorithm`` was chosen (``given_by``: an option, or a
    key and the file that set it) when this installation lacks it (GSOC/CNT need opencv-contrib)."""
    from silkvision.detector.factory import available_subtractors
    from silkvision.errors import ConfigError

    have = available_subtractors()
    if algorithm not in have:
        raise ConfigError(f"{given_by}: {algorithm!r} needs opencv-contrib (cv2.bgsegm), which is not "
                          f"installed; expected one of {', '.join(have)}")


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
        raise ConfigError("SOURCE '': empty path; expected a video file, an image folder, a CDnet "
                          "sequence folder or a camera index")
    if args.out == "":
        raise ConfigError("--out '': empty path; expected an output folder")
    cfg = load_export_config(args)
    result = export_masks(args.source, args.out, cfg, algorithm=args.algorithm, scores=args.scores,
                          video=args.video, overwrite=args.overwrite)
    print(result.summary(), flush=True)
    return exit_status(result)


if __name__ == "__main__":  # pragma: no cover
    from silkvision.cli.main import main

    sys.exit(main(["export", *sys.argv[1:]]))
