"""``silkvision batch``: export many recordings at once, one resumable export per source, on a Dask
cluster (local by default)."""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Export the masks of every SOURCE, each into DIR/<name>/ exactly as 'silkvision export SOURCE --out
DIR/<name>' would, as one task per source on a Dask cluster: a local one of --workers processes
(default: one per core), or an existing one given by --scheduler (its workers started with 'dask
worker'). DIR must be a path that every worker sees (a shared file system); this is checked before
any work is sent.

SOURCE is a video file, an image folder, a CDnet sequence folder, a glob pattern (quote it:
'archive/**/*.mp4'), @LIST (a file naming one SOURCE a line), or a folder searched for videos and
sequences. <name> is the file's stem or the folder's name; equal names get their parent folders'
names in front (cam1_0800, cam2_0800).

A worker that dies mid-export is replaced by Dask and the export resumes from its checkpoint; a
missing or corrupt source fails alone. Interrupted (Ctrl-C)? Run the same command again: finished
sources are skipped, the others resume. DIR/batch.json and DIR/batch.csv list every source's
status, frames, fps, seconds, worker and error; the exit status is 1 when a source failed."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    from silkvision.batch.cluster import add_cluster_arguments
    from silkvision.cli.export import add_overwrite_argument
    from silkvision.cli.main import add_config_arguments
    from silkvision.config import ALGORITHMS

    p = subparsers.add_parser(
        "batch",
        help="export many videos/sequences on a Dask cluster (resumable)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="video file, image folder, CDnet sequence, folder of them, glob, or @LIST",
    )
    p.add_argument(
        "--out",
        "-o",
        metavar="DIR",
        required=True,
        help="output folder (one sub-folder per source), shared by every worker",
    )
    p.add_argument(
        "--algorithm", "-a", choices=ALGORITHMS, help="detector (default: config detector.algorithm)"
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
    add_overwrite_argument(p, "redo earlier exports and write into folders with other files")
    add_cluster_arguments(p, local_default=True)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (there is none when stderr is not a terminal); a line per "
        "finished source instead",
    )
    add_config_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    from silkvision.batch import check_workers, expand_sources, open_cluster, run_batch
    from silkvision.batch.report import summary
    from silkvision.cli.export import load_export_config
    from silkvision.errors import ConfigError, ExportError
    from silkvision.io.atomic import check_writable_folder

    if args.out == "":
        raise ConfigError("--out '': empty path; expected an output folder")
    cfg = load_export_config(args)
    out = check_writable_folder(args.out, ExportError).absolute()
    jobs = expand_sources(args.sources, out)
    options = {
        k: v
        for k, v in (
            ("algorithm", args.algorithm),
            ("scores", args.scores),
            ("video", args.video),
            ("overwrite", args.overwrite),
        )
        if v is not None
    }
    progress = not args.no_progress and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()

    def note(msg: str) -> None:
        print(f"silkvision: {msg}", file=sys.stderr, flush=True)

    with open_cluster(args.scheduler, args.workers) as cluster:
        n = check_workers(cluster, out)
        dash = cluster.dashboard
        note(
            f"{len(jobs)} source{'s' if len(jobs) != 1 else ''} on the {cluster.description}"
            + ("" if n or args.scheduler is None else " (no worker connected yet: the tasks wait for one)")
            + (
                f"; Dask dashboard {dash}"
                if dash
                else "; no Dask dashboard (it needs bokeh on the scheduler)"
            )
        )
        result = run_batch(jobs, out, cfg, cluster, options=options, progress=progress, log=note)
    print(summary(result.records, result.seconds, result.where), flush=True)
    for path in result.reports:
        print(f"wrote {path}")
    return 1 if result.failed else 0


if __name__ == "__main__":  # pragma: no cover
    from silkvision.cli.main import main

    sys.exit(main(["batch", *sys.argv[1:]]))
