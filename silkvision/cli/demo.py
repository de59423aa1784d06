"""``silkvision demo``: the main job on the shipped sample clip.

Exports the foreground masks of ``samples/highway`` (resumable, like ``silkvision export``) and
prints the CDnet metrics of those masks against the clip's ground truth. The demo's folders are its
own scratch space: an earlier demo export made with other settings (e.g. after the defaults or
``--set`` changed) is replaced, with a one-line note, instead of refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from silkvision.cli.export import add_overwrite_argument, check_installed, exit_status
from silkvision.cli.main import add_config_arguments


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "demo", help="export masks for the shipped sample clip and print its F-measure",
        description="Run a detector over the shipped sample clip (samples/highway, 400 frames of "
                    "CDnet highway), write its masks to DIR/<algorithm>/bin%06d.png and print the "
                    "CDnet metrics against the clip's ground truth (frames 100-400). As for "
                    "evaluate, capture.resize and capture.max_frames are refused (the ground "
                    "truth is scored at its size, over frames 100-400).")
    p.add_argument("--out", "-o", metavar="DIR", default="out/demo",
                   help="output folder (default: out/demo)")
    p.add_argument("--algorithms", "-a", default=None, metavar="LIST",
                   help="comma-separated detectors to run, e.g. silk,mog2 (default: config "
                        "detector.algorithm, silk unless a config file or --set changes it)")
    add_overwrite_argument(p, "redo the demo exports from the first frame instead of resuming or "
                              "reusing them")
    add_config_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    import silkvision as sv
    from silkvision.cli.evaluate import reject_capture_settings
    from silkvision.config import ALGORITHMS
    from silkvision.errors import ConfigError, ExportMismatchError
    from silkvision.evaluation import score_results
    from silkvision.export import export_masks

    cfg = sv.load_config(args.config, args.overrides)
    if args.algorithms is None:
        args.algorithms = cfg["detector"]["algorithm"]
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    if not algorithms:
        raise ConfigError(f"--algorithms {args.algorithms!r}: no algorithm named; expected some of "
                          f"{', '.join(ALGORITHMS)}")
    for a in algorithms:
        if a not in ALGORITHMS:
            raise ConfigError(f"--algorithms: {a!r} is unknown; expected one of {', '.join(ALGORITHMS)}")
    if args.out == "":
        raise ConfigError("--out '': empty path; expected an output folder")
    for a in algorithms:
        check_installed(a, "--algorithms")
    reject_capture_settings(cfg, args.overrides, "demo", args.config)
    seq = sv.samples.highway()
    rows = []
    for algo in algorithms:
        out = Path(args.out) / algo
        try:
            result = export_masks(seq, out, cfg, algorithm=algo, overwrite=args.overwrite)
        except ExportMismatchError as e:
            print(f"note: {str(e).split(';')[0]}; starting that demo export over", file=sys.stderr)
            result = export_masks(seq, out, cfg, algorithm=algo, overwrite=True)
        print(result.summary(), flush=True)
        if result.interrupted:
            return exit_status(result)
        scored = score_results(seq, out, name=algo)
        rows.append((algo, scored.metrics))
    print()
    print(f"CDnet metrics on {seq.name} (frames 100-400 of the sample clip):")
    print(f"{'algorithm':<10} {'F-measure':>9} {'recall':>7} {'precision':>9} {'PWC':>7}")
    for algo, m in rows:
        print(f"{algo:<10} {m['f_measure']:>9.4f} {m['recall']:>7.4f} {m['precision']:>9.4f} {m['pwc']:>7.3f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    from silkvision.cli.main import main

    sys.exit(main(["demo", *sys.argv[1:]]))
