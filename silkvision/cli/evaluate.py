"""``silkvision evaluate``: CDnet metrics and ROC of detectors (or of existing masks) against ground
truth, side by side.

Examples
--------
::

    silkvision evaluate samples/highway
    silkvision evaluate data/highway data/office --algorithms silk,mog2 --out eval/
    silkvision evaluate data/highway --results other_tool=results/ --json
    silkvision evaluate data/highway --light-switch 900:1000:0.4
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from silkvision.errors import ConfigError, DataError

DEFAULT_OUT = "evaluation_results"


def add_parser(subparsers) -> argparse.ArgumentParser:
    from silkvision.cli.main import add_config_arguments

    p = subparsers.add_parser(
        "evaluate",
        help="CDnet metrics and ROC of detectors against ground truth",
        description="Run detectors over CDnet-layout sequences (all frames, warm-up included) and "
        "score the evaluated frames like the CDnet2014 comparator (ROI, temporalROI, "
        "label 255 positive, 0/50 negative, 85/170 ignored; counts pooled per sequence). "
        "ROC/PR curves come from the detectors' real per-pixel scores. Writes "
        "metrics.json, metrics.csv, PNG figures and the effective config.yaml to --out "
        "(checked to be writable, and not to hold an export, before anything runs; the "
        "ground truth of every evaluated frame is checked first too). F and the other "
        "metrics are those of the masks as exported, after the post-processing "
        "(detector.median, detector.close, detector.fill_holes; the median, close and "
        "fill_holes columns); AUC and best_f come from the raw scores before it: best_f "
        "is the best F-measure over all thresholds of the raw decision score < "
        "threshold, at best_f_threshold (metrics.json and metrics.csv), and can be "
        "below F. A sequence whose evaluated pixels are all ignored (85/170 or outside "
        "the ROI) has empty metrics and is left out of the means, with a warning "
        "(n_sequences says how many went in). The configuration keys capture.resize "
        "and capture.max_frames are refused: the ground truth is scored at its "
        "original size and the evaluated frames are the temporalROI (every frame with "
        "ground truth without one), so neither can apply.",
    )
    p.add_argument(
        "sequences",
        nargs="+",
        metavar="SEQUENCE",
        help="CDnet folder (input/, groundtruth/, optional ROI.bmp, temporalROI.txt), "
        "image folder or video file with ground truth",
    )
    p.add_argument(
        "--algorithms",
        "-a",
        metavar="LIST",
        default=None,
        help="comma-separated detectors (default: silk,norma,mog2,knn; none when only --results is given)",
    )
    p.add_argument(
        "--results",
        metavar="[NAME=]DIR",
        action="append",
        default=[],
        help="score existing bin%%06d.png masks from DIR (one SEQUENCE only) or "
        "DIR/SEQUENCE, DIR/CATEGORY/SEQUENCE, instead of/in addition to running "
        "detectors (scored before any detector runs); repeatable",
    )
    p.add_argument(
        "--groundtruth",
        metavar="DIR",
        default=None,
        help="ground-truth folder (for a video file or image folder; one SEQUENCE only)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        default=DEFAULT_OUT,
        help=f"folder for metrics.json, metrics.csv, config.yaml and figures (default: "
        f"{DEFAULT_OUT}); not a folder holding an export (export.json), whose "
        f"config.yaml would be replaced",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout (nothing else there)")
    p.add_argument(
        "--light-switch",
        metavar="START:END:GAIN",
        action="append",
        default=[],
        dest="light_switch",
        help="multiply the brightness of frames START..END by GAIN before the detectors "
        "see them (ground truth unchanged) and report how fast each recovers; "
        "repeatable, but switches must not overlap or touch (at least one frame "
        "of normal light between them). START must be a frame of the sequence, not "
        "after its last evaluated frame (an error otherwise); an END after the last "
        "frame is "
        "clipped to it, with a note. Refused with --results: those masks were "
        "computed from the unchanged frames, so their recovery figures would be "
        "meaningless and their F not comparable with the switched detectors'; "
        "score them in a separate run without --light-switch",
    )
    p.add_argument(
        "--mask-rule",
        choices=("strict", "cdnet", "half", "nonzero"),
        default="strict",
        help="how --results masks are read: strict = only 0/255 allowed (default), "
        "cdnet = only 255 is foreground, half = >= 128, nonzero = > 0",
    )
    p.add_argument(
        "--fpr-scale",
        choices=("log", "linear", "both"),
        default="both",
        help="ROC figure FPR axis (default: both, two figures)",
    )
    p.add_argument("--no-figures", action="store_true", help="do not write PNG figures")
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar on stderr (there is none when stderr is not a terminal)",
    )
    from silkvision.batch.cluster import add_cluster_arguments

    add_cluster_arguments(p, local_default=False)  # the sequences' detector runs on a Dask cluster
    add_config_arguments(p)
    return p


#: capture keys that cannot apply to a CDnet evaluation -> why (see ``reject_capture_settings``)
_NOT_FOR_EVALUATION = {
    "resize": "the ground truth is scored at its original size",
    "max_frames": "the evaluated frames are the sequence's temporalROI (or every frame with ground truth)",
}


def reject_capture_settings(cfg, overrides, command: str, config) -> None:
    """Raise ConfigError when ``capture.resize`` or ``capture.max_frames`` is set: ``command``
    scores masks against CDnet ground truth, where neither setting can apply (silently ignoring
    them would report metrics of a run the user did not ask for).

    Parameters
    ----------
    cfg : dict
        The configuration :func:`~silkvision.config.load_config` built.
    overrides : list of str
        The ``--set`` items it was built with.
    command : str
        The command, for the message.
    config : path or list of paths or None
        The ``--config`` file(s) it was built with: the message names the file that set the key
        (:func:`~silkvision.config.loader.key_source`).
    """
    from silkvision.config.loader import key_source

    for key, why in _NOT_FOR_EVALUATION.items():
        value = cfg["capture"][key]
        if value is None:
            continue
        name = f"capture.{key}"
        where = key_source(name, config, overrides) or "the defaults"
        hint = "" if where == "--set" else f" (--set {name}=null)"
        raise ConfigError(
            f"{name}: {json.dumps(value)} in {where} cannot apply to {command}: {why}; expected null{hint}"
        )


def check_not_an_export(out: Path) -> None:
    """Refuse an ``--out`` folder that holds an export (its ``export.json``) or a GUI recording
    (``recording.json``): evaluate writes its own ``config.yaml`` there, which would replace the
    record of how the masks were made, and the export or recording could then not be continued in
    that folder.

    Raises
    ------
    DataError
        Naming the folder.
    """
    from silkvision.io.manifest import MANIFEST, RECORDING_FILE

    for name, what in ((MANIFEST, "an export"), (RECORDING_FILE, "a GUI recording")):
        if (Path(out) / name).is_file():
            raise DataError(
                f"--out {out}: holds {what} ({name}), whose config.yaml evaluate would "
                f"replace; expected another output folder for the evaluation"
            )


def _parse_results(items: list[str]) -> list[tuple[str | None, Path]]:
    out = []
    for item in items:
        name, sep, d = item.partition("=")
        if not sep:
            name, d = None, item
        elif not name:
            raise ConfigError(f"--results {item!r}: empty NAME; expected [NAME=]DIR")
        path = Path(d)
        if not path.is_dir():
            raise DataError(f"--results {d}: folder not found; expected a folder of bin%06d.png masks")
        out.append((name, path))
    return out


def _unique(name: str, seen: set) -> str:
    n, k = name, 2
    while n in seen:
        n, k = f"{name}-{k}", k + 1
    seen.add(n)
    return n


def run(args) -> int:
    from tqdm import tqdm

    from silkvision.config import load_config, write_config
    from silkvision.evaluation.light_switch import LightSwitch, check_disjoint, fit_switches, recovery_report
    from silkvision.evaluation.report import build_report, format_table, write_csv, write_json
    from silkvision.evaluation.runner import (
        DEFAULT_ALGORITHMS,
        evaluate_sequences,
        score_results,
        sequence_frames,
    )
    from silkvision.io.atomic import check_writable_folder, reported_write_errors

    for s in args.sequences:
        if s == "":  # Path("") would be the current folder
            raise DataError("SEQUENCE '': empty path; expected a CDnet sequence folder or a video file")
    if args.out == "":
        raise ConfigError("--out '': empty path; expected an output folder")
    cfg = load_config(args.config, args.overrides)
    reject_capture_settings(cfg, args.overrides, "evaluate", args.config)
    ev = cfg["evaluation"]
    results_dirs = _parse_results(args.results)
    if args.algorithms is None:
        algorithms = [] if results_dirs else list(DEFAULT_ALGORITHMS)
    else:
        algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
        if not algorithms and not results_dirs:
            raise ConfigError(f"--algorithms {args.algorithms!r}: no algorithm named")
    from silkvision.config import ALGORITHMS

    for a in algorithms:
        if a not in ALGORITHMS:
            raise ConfigError(f"--algorithms: {a!r} is unknown; expected some of {', '.join(ALGORITHMS)}")
    if not args.no_figures:  # before any work: the figures are written last
        from silkvision.extras import require

        require("figures", "writing evaluate's figures", "or pass --no-figures")
    if args.groundtruth is not None and len(args.sequences) > 1:
        raise ConfigError("--groundtruth: only with a single SEQUENCE")
    switches = tuple(LightSwitch.parse(s) for s in args.light_switch)
    check_disjoint(switches)
    if switches and results_dirs:
        raise ConfigError(
            f"--light-switch {args.light_switch[0]!r} cannot be combined with --results "
            f"{args.results[0]!r}: those masks were computed from the unchanged frames, so "
            f"their recovery figures would be meaningless; expected --results in a "
            f"separate run without --light-switch"
        )
    if switches and not algorithms:
        raise ConfigError("--light-switch: needs detectors to run (--algorithms)")
    for s in args.sequences:
        if not Path(s).exists():
            raise DataError(f"{s}: not found; expected a CDnet sequence folder or a video file")
    check_not_an_export(Path(args.out))
    # like export: a bar on a terminal, nothing in a pipe or a log file
    progress = not args.no_progress and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    # every sequence's frames and ground truth, and the switches against them, before anything runs
    notes, frames, fitted = [], [], []
    for s in args.sequences:
        sf = sequence_frames(s, args.groundtruth, check_groundtruth=True, progress=progress)
        gt_note = sf.ground_truth_note()
        if gt_note:
            notes.append(gt_note)
        notes += _files_read_note(s, sf)
        fit, sw_notes = fit_switches(switches, sf.where, sf.first, sf.last, sf.evaluated)
        notes += sw_notes
        frames.append(sf)
        fitted.append(fit)
    # before any detector runs: an unwritable --out must not cost the whole computation
    out = check_writable_folder(args.out, DataError)
    for n in notes:
        print(f"silkvision: note: {n}", file=sys.stderr)
    # the --results masks are scored before any detector runs too (reading PNGs is cheap next to
    # detection): a missing, wrong-sized or ill-valued mask is an error before any work is lost
    if len(args.sequences) > 1:
        for (_, d), item in zip(results_dirs, args.results):
            if any(d.glob("bin*.*")):
                raise ConfigError(
                    f"--results {item}: holds bin* masks itself, so every one of the "
                    f"{len(args.sequences)} sequences would be scored against the same "
                    f"masks; expected DIR/SEQUENCE (or DIR/CATEGORY/SEQUENCE) folders"
                )
    scored = []
    for seq, sf in zip(args.sequences, frames):
        for _, d in results_dirs:
            other = _exported_from_elsewhere(d, seq, sf)
            if other:
                print(f"silkvision: warning: {other}", file=sys.stderr)
        scored.append(
            [
                score_results(
                    seq, d, groundtruth=args.groundtruth, rule=args.mask_rule, name=name, progress=progress
                )
                for name, d in results_dirs
            ]
        )

    seen = {"mean"}  # the overall mean's row in the table and metrics.csv: a sequence "mean" becomes "mean-2"
    results, light, warnings = [], {}, []
    outer = tqdm(
        list(zip(args.sequences, frames, fitted, scored)),
        desc="sequences",
        unit="seq",
        file=sys.stderr,
        disable=not progress,
        position=0,
        dynamic_ncols=True,
    )
    stack = contextlib.ExitStack()
    try:
        client = _cluster_client(args, stack) if algorithms else None
        runs = (
            evaluate_sequences(
                args.sequences,
                algorithms,
                cfg,
                groundtruth=args.groundtruth,
                light_switches=fitted,
                progress=progress and client is None,
                client=client,
            )
            if algorithms
            else None
        )
        for seq, sf, seq_switches, seq_scored in outer:
            outer.set_postfix_str(Path(seq).name)
            r = next(runs) if runs is not None else None
            for ar in seq_scored:
                if r is None:
                    r = _empty_sequence(seq, sf, ar)
                r.algorithms[_unique(ar.algorithm, set(r.algorithms))] = ar
            r.name = _unique(r.name, seen)
            results.append(r)
            if r.algorithms and all(ar.counts.total == 0 for ar in r.algorithms.values()):
                warnings.append(_no_pixel_warning(sf, r))
            if seq_switches:
                light[r.name] = {
                    a: recovery_report(
                        ar.frame_indices,
                        ar.frame_counts,
                        seq_switches,
                        window=ev["light_switch_window"],
                        tolerance=ev["recovery_tolerance"],
                        smoothing=ev["recovery_smoothing"],
                        last_frame=r.last,
                    )
                    for a, ar in r.algorithms.items()
                }
    finally:
        outer.close()
        stack.close()
    for w in warnings:
        print(f"silkvision: warning: {w}", file=sys.stderr)

    report = build_report(results, light or None)
    written = []
    for name, write in (("metrics.json", write_json), ("metrics.csv", write_csv)):
        with reported_write_errors(out / name, DataError):
            written.append(write(report, out / name))
    with reported_write_errors(out / "config.yaml", DataError):
        written.append(write_config(cfg, out / "config.yaml"))
    if not args.no_figures:
        written += _figures(results, out, args.fpr_scale)

    if args.json:
        print(json.dumps(report))
    else:
        print(format_table(report))
        if light:
            print()
            print(_format_light(light, ev))
        print()
        for w in written:
            print(f"wrote {w}")
    return 0


def _files_read_note(seq, sf) -> list[str]:
    """A note naming the ``temporalROI.txt`` and ``ROI.bmp`` read from outside the SEQUENCE folder
    (for a video file or image folder: the folder holding its ground truth), which would otherwise
    decide the evaluated frames and pixels unseen."""
    inside = Path(seq).resolve()
    what = {"temporalROI.txt": "the evaluated frames", "ROI.bmp": "the evaluated pixels"}
    outside = [
        f"{what[name]} from {path}"
        for name, path in sf.files.items()
        if Path(path).resolve().parent != inside
    ]
    if not outside:
        return []
    return [f"{sf.where}: {' and '.join(outside)} (the folder holding the ground truth)"]


def _cluster_client(args, stack: contextlib.ExitStack):
    """The Dask client of ``--scheduler``/``--workers`` (closed with ``stack``), or None."""
    from silkvision.batch.cluster import cluster_wanted, open_cluster

    if not cluster_wanted(args):
        return None
    cluster = stack.enter_context(open_cluster(args.scheduler, args.workers))
    print(f"silkvision: running the sequences on the {cluster.description}", file=sys.stderr)
    return cluster.client


def _exported_from_elsewhere(results_dir: Path, seq, sf) -> str | None:
    """A warning when the masks found for ``seq`` sit beside an ``export.json`` or a GUI
    recording's ``recording.json`` that names another source (compared by name: the data may have
    moved since); None otherwise."""
    from silkvision.errors import ExportError
    from silkvision.evaluation.runner import _category, find_result_masks
    from silkvision.io.manifest import MANIFEST, RECORDING_FILE, read_manifest, read_recording

    folder = find_result_masks(results_dir, sf.name, _category(Path(seq)))
    try:
        source, named, how = read_manifest(folder).get("source"), MANIFEST, "exported"
    except ExportError:  # not an export, or an unreadable manifest: perhaps a GUI recording
        source, named, how = read_recording(folder).get("spec"), RECORDING_FILE, "recorded"
    if not isinstance(source, str) or Path(source).name == Path(seq).name:
        return None
    return (
        f"{folder}: its {named} says these masks were {how} from {source}, not from "
        f"{seq}; scoring them anyway"
    )


def _empty_sequence(seq, sf, ar):
    from silkvision.evaluation.runner import SequenceResult, _category

    return SequenceResult(
        name=sf.name,
        path=str(seq),
        category=_category(Path(seq)),
        first=int(ar.frame_indices[0]),
        last=int(ar.frame_indices[-1]),
        frames=0,
        evaluated=ar.frame_indices,
    )


def _no_pixel_warning(sf, r) -> str:
    """One line for a sequence whose evaluated frames hold no scored pixel (all ground truth 85/170
    or outside the ROI): its metrics are all undefined, and it is left out of the means (over the
    other sequences, see :mod:`silkvision.evaluation.report`)."""
    n = len(r.evaluated)
    return (
        f"{sf.where}: no pixel was evaluated: every ground-truth pixel of its {n} evaluated "
        f"frame{'s' if n != 1 else ''} ({r.first}..{r.last}) is outside the ROI or labelled 85/170 "
        f"(ignored), so its metrics are empty ('-', null in JSON) and it is left out of the "
        f"category and overall means (see n_sequences and left_out in metrics.json)"
    )


def _figures(results, out: Path, scale: str) -> list[Path]:
    from silkvision.evaluation.light_switch import switch_events
    from silkvision.evaluation.plots import plot_per_frame_f, plot_pr, plot_roc, save_figure
    from silkvision.io.atomic import reported_write_errors

    written = []

    def save(fig, path: Path) -> None:
        with reported_write_errors(path, DataError):
            written.append(save_figure(fig, path))

    used: set = set()
    for r in results:  # names that clean up alike ("x y", "x_y") get figures of their own
        safe = _unique("".join(c if c.isalnum() or c in "-_." else "_" for c in r.name), used)
        if scale in ("log", "both"):
            save(plot_roc(r, log_fpr=True), out / f"roc_{safe}.png")
        if scale in ("linear", "both"):
            save(plot_roc(r, log_fpr=False), out / f"roc_{safe}_linear.png")
        save(plot_pr(r), out / f"pr_{safe}.png")
        events = switch_events(r.light_switches, r.last) if r.light_switches else None
        save(plot_per_frame_f(r, events=events, smooth=5), out / f"f_per_frame_{safe}.png")
    return written


def _format_light(light: dict, ev: dict) -> str:
    w = ev["light_switch_window"]
    lines = [
        f"light switches: F before = F over the (up to) {w} evaluated frames before the switch, "
        f"F after = over the (up to) {w} frames after the event, until the next event; recovery "
        f"= frames until the {ev['recovery_smoothing']}-frame mean per-frame F is within "
        f"{ev['recovery_tolerance']} of its mean before the switch (f_reference in metrics.json, "
        f"not F before, which pools the counts)"
    ]
    head = ("sequence", "algorithm", "frame", "event", "F before", "F after", "recovery")
    rows = [head]
    for seq, algos in light.items():
        for a, events in algos.items():
            for e in events:
                rec = e["recovery_frames"]
                rows.append(
                    (
                        seq,
                        a,
                        str(e["frame"]),
                        e["event"],
                        "-" if e["f_before"] is None else f"{e['f_before']:.4f}",
                        "-" if e["f_after"] is None else f"{e['f_after']:.4f}",
                        "-"
                        if e["f_reference"] is None
                        else f">{e['searched_frames']}"
                        if rec is None
                        else str(rec),
                    )
                )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    return "\n".join(lines)
