"""``silkvision demo``: the main job on the shipped sample clips, detectors side by side.

Exports the foreground masks of every shipped clip (``samples/``: highway, office,
pets2001_illumination; resumable, like ``silkvision export``) with SILK and OpenCV's KNN and MOG2,
all with the same mask post-processing, and prints one table of their CDnet metrics against each
clip's ground truth. The demo's folders are its own scratch space: an earlier demo export made with
other settings (e.g. after the defaults or ``--set`` changed) is replaced, with a one-line note,
instead of refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from silkvision.cli.export import add_overwrite_argument, check_installed, exit_status
from silkvision.cli.main import add_config_arguments

#: The detectors SILK is shown beside when ``--algorithms`` is not given.
BASELINES = ("knn", "mog2")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "demo",
        help="run SILK, KNN and MOG2 on the shipped sample clips and print their F-measures",
        description="Run detectors over the shipped sample clips (highway: traffic; office: a person "
        "who walks in and stands still; pets2001_illumination: clouds change the light), "
        "write their masks to DIR/<clip>/<algorithm>/bin%06d.png and print the CDnet "
        "metrics of each against the clip's ground truth (the frames of its "
        "temporalROI.txt). Every detector gets the same mask post-processing "
        "(detector.median, detector.close, detector.fill_holes). As for evaluate, "
        "capture.resize and capture.max_frames are refused.",
    )
    p.add_argument("--out", "-o", metavar="DIR", default="out/demo", help="output folder (default: out/demo)")
    p.add_argument(
        "--algorithms",
        "-a",
        default=None,
        metavar="LIST",
        help="comma-separated detectors to run, e.g. silk,mog2 (default: config "
        "detector.algorithm, silk unless a config file or --set changes it, then "
        + " and ".join(BASELINES)
        + ")",
    )
    p.add_argument(
        "--samples",
        "-s",
        default=None,
        metavar="LIST",
        help="comma-separated sample clips to run on (default: all of them)",
    )
    add_overwrite_argument(
        p, "redo the demo exports from the first frame instead of resuming or reusing them"
    )
    add_config_arguments(p)
    return p


def _names(value: str, option: str, known) -> list[str]:
    """The comma-separated names of ``value``, each one of ``known`` (ConfigError naming
    ``option`` otherwise)."""
    from silkvision.errors import ConfigError

    names = list(dict.fromkeys(a.strip() for a in value.split(",") if a.strip()))
    if not names:
        raise ConfigError(
            f"{option} {value!r}: no {option.strip('-').rstrip('s')} named; expected "
            f"some of {', '.join(known)}"
        )
    for a in names:
        if a not in known:
            raise ConfigError(f"{option}: {a!r} is unknown; expected one of {', '.join(known)}")
    return names


def run(args: argparse.Namespace) -> int:
    import silkvision as sv
    from silkvision.cli.evaluate import reject_capture_settings
    from silkvision.config import ALGORITHMS
    from silkvision.errors import ConfigError, ExportMismatchError
    from silkvision.evaluation import score_results
    from silkvision.export import export_masks
    from silkvision.jit import CompileWatch

    cfg = sv.load_config(args.config, args.overrides)
    if args.algorithms is None:
        args.algorithms = ",".join([cfg["detector"]["algorithm"], *BASELINES])
    algorithms = _names(args.algorithms, "--algorithms", ALGORITHMS)
    clips = _names(
        args.samples if args.samples is not None else ",".join(sv.samples.CLIPS),
        "--samples",
        sv.samples.CLIPS,
    )
    if args.out == "":
        raise ConfigError("--out '': empty path; expected an output folder")
    for a in algorithms:
        check_installed(a, "--algorithms")
    reject_capture_settings(cfg, args.overrides, "demo", args.config)
    rows = []
    for clip in clips:
        seq = sv.samples.clip(clip)
        for algo in algorithms:
            out = Path(args.out) / clip / algo
            with CompileWatch() as compiling:  # the time and fps leave out compiling (first run only)
                try:
                    result = export_masks(seq, out, cfg, algorithm=algo, overwrite=args.overwrite)
                except ExportMismatchError as e:
                    print(f"note: {str(e).split(';')[0]}; starting that demo export over", file=sys.stderr)
                    result = export_masks(seq, out, cfg, algorithm=algo, overwrite=True)
            result.seconds = max(result.seconds - compiling.seconds, 0.0)
            print(f"{clip}: {result.summary()}", flush=True)
            if result.interrupted:
                return exit_status(result)
            scored = score_results(seq, out, name=algo)
            rows.append((clip, algo, scored))
    print()
    print(_table(rows, cfg["detector"]))
    return 0


def _table(rows: list, det: dict) -> str:
    """The metrics table: one line per clip and detector, then each detector's mean F-measure."""
    chain = (
        f"median {det['median'] or 'off'}, closing {det['close'] or 'off'}, "
        f"holes {'filled' if det['fill_holes'] else 'kept'}"
    )
    width = max(len("clip"), *(len(clip) for clip, _, _ in rows))
    lines = [
        f"CDnet metrics of the sample clips (the same mask chain on every detector: {chain}):",
        f"{'clip':<{width}} {'frames':>7} {'algorithm':<9} {'F-measure':>9} {'recall':>7} "
        f"{'precision':>9} {'PWC':>7}",
    ]
    by_algo: dict[str, list[float]] = {}
    for clip, algo, scored in rows:
        m, idx = scored.metrics, scored.frame_indices
        frames = f"{idx.min()}-{idx.max()}" if len(idx) else "-"
        lines.append(
            f"{clip:<{width}} {frames:>7} {algo:<9} {m['f_measure']:>9.4f} {m['recall']:>7.4f} "
            f"{m['precision']:>9.4f} {m['pwc']:>7.3f}"
        )
        by_algo.setdefault(algo, []).append(m["f_measure"])
    n = len({clip for clip, _, _ in rows})
    if n > 1:
        lines.append(
            f"mean F-measure over the {n} clips: "
            + ", ".join(f"{a} {sum(fs) / len(fs):.4f}" for a, fs in by_algo.items())
        )
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    from silkvision.cli.main import main

    sys.exit(main(["demo", *sys.argv[1:]]))
