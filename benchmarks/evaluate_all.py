"""CDnet tables, ROC figures and the light-switch experiment over ``../shared/data/video``.

Produces what ``docs/BENCHMARKS.md`` sections 3 and 4 show::

    .venv/bin/python benchmarks/evaluate_all.py --threads 1 --docs docs --out /tmp/evaluate_all

* every sequence of the data folder with SILK, NORMA, MOG2, KNN (and GSOC/CNT when this OpenCV has
  them): the whole sequence is run (warm-up included), the temporalROI scored CDnet-style; markdown
  tables of F-measure, PWC, AUC (and recall/precision) on stdout, ``metrics.json``/``.csv`` in --out;
* ``docs/roc_highway.png`` (log FPR, like the SILK paper's Fig. 2 left) and ``docs/pr_highway.png``;
* the simulated light switch on highway (``--switch``, default 1000:1100:0.4), recovery table and
  ``docs/light_switch_highway.png``; the real illumination clip ``pets2001_illumination`` without
  simulation: ``docs/f_per_frame_pets2001_illumination.png``.

The detectors use the built-in default configuration (nothing tuned here). numba threads are set
explicitly (``--threads``); the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ENV, VIDEO_ROOT, check_sequences  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

# CDnet2014 categories of the shared sequences (their README.txt); pets2001_illumination is not a
# CDnet sequence and stands in its own category. The overall mean is CDnet's: mean over categories
# of the mean over each category's sequences.
CATEGORIES = {
    "highway": "baseline",
    "office": "baseline",
    "pedestrians": "baseline",
    "traffic": "cameraJitter",
    "canoe": "dynamicBackground",
    "pets2001_illumination": "illumination (PETS2001)",
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data",
        default=str(VIDEO_ROOT),
        help="the video/ folder of the shared data "
        "(default: $SILKVISION_VIDEO_DATA, else ../shared/data/video)",
    )
    ap.add_argument("--sequences", default=None, help="comma list (default: every folder)")
    ap.add_argument("--algorithms", default="silk,norma,mog2,knn")
    ap.add_argument("--threads", type=int, default=1, help="numba threads")
    ap.add_argument("--out", default="/tmp/evaluate_all", help="metrics.json/csv and all figures")
    ap.add_argument("--docs", default=None, help="also copy the documented figures here (docs/)")
    ap.add_argument("--switch", default="1000:1100:0.4", help="light switch on highway")
    ap.add_argument("--no-light-switch", action="store_true")
    ap.add_argument("--set", action="append", default=[], dest="overrides", metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    names = [n.strip() for n in (args.sequences or "").split(",") if n.strip()]
    if args.sequences is not None and not names:
        sys.exit(f"--sequences {args.sequences!r}: no sequence named")
    if names:
        check_sequences(args.data, names)
    elif not any((p / "input").is_dir() for p in Path(args.data).glob("*")):
        sys.exit(f"{args.data}: no CDnet sequence there; pass --data DIR or set {VIDEO_ENV}")

    import numba

    numba.set_num_threads(args.threads)
    import cv2

    cv2.setNumThreads(args.threads)
    import silkvision as sv
    from silkvision.detector.opencv import opencv_available
    from silkvision.evaluation import evaluate_sequence
    from silkvision.evaluation.light_switch import LightSwitch, recovery_report, switch_events
    from silkvision.evaluation.plots import plot_per_frame_f, plot_pr, plot_roc, save_figure
    from silkvision.evaluation.report import build_report, format_markdown, write_csv, write_json

    cfg = sv.load_config(None, args.overrides, use_cwd=False)
    ev = cfg["evaluation"]
    data = Path(args.data)
    seqs = sorted(p for p in data.iterdir() if (p / "input").is_dir())
    if args.sequences:
        wanted = names
        seqs = [p for p in seqs if p.name in wanted]
    algos = [a for a in args.algorithms.split(",") if a]
    extra = [a for a in ("gsoc", "cnt") if opencv_available(a)]
    algos += [a for a in extra if a not in algos]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    docs = Path(args.docs) if args.docs else None
    if docs is not None:
        docs.mkdir(parents=True, exist_ok=True)
    print(
        f"# algorithms: {', '.join(algos)}; GSOC/CNT available: {bool(extra)}; numba threads {args.threads}",
        file=sys.stderr,
    )

    results, timing = [], {}
    for seq in seqs:
        t0 = time.perf_counter()
        r = evaluate_sequence(seq, algos, cfg, progress=True)
        r.category = CATEGORIES.get(r.name, r.name)
        timing[r.name] = {
            "wall_s": time.perf_counter() - t0,
            "frames": r.frames,
            **{a: ar.seconds for a, ar in r.algorithms.items()},
        }
        results.append(r)
        save_figure(plot_roc(r, log_fpr=True), out / f"roc_{r.name}.png")
        save_figure(plot_roc(r, log_fpr=False), out / f"roc_{r.name}_linear.png")
        save_figure(plot_pr(r), out / f"pr_{r.name}.png")
        save_figure(plot_per_frame_f(r, smooth=5), out / f"f_per_frame_{r.name}.png")
        print(
            f"# {r.name}: {r.frames} frames in {timing[r.name]['wall_s']:.0f} s "
            + ", ".join(f"{a} {ar.seconds:.0f} s" for a, ar in r.algorithms.items()),
            file=sys.stderr,
        )
        if docs is not None and r.name == "highway":
            save_figure(plot_roc(r, log_fpr=True), docs / "roc_highway.png")
            save_figure(plot_pr(r), docs / "pr_highway.png")
        if docs is not None and r.name == "pets2001_illumination":
            save_figure(plot_per_frame_f(r, smooth=5), docs / "f_per_frame_pets2001_illumination.png")

    report = build_report(results)
    write_json(report, out / "metrics.json")
    write_csv(report, out / "metrics.csv")
    (out / "timing.json").write_text(json.dumps(timing, indent=2))

    print("## F-measure, PWC, AUC (per sequence; mean = CDnet overall mean over categories)\n")
    print(format_markdown(report, keys=("f_measure", "pwc", "auc")))
    print("\n## Recall / precision / best-F (ROC) / threshold\n")
    print(format_markdown(report, keys=("recall", "precision", "best_f")))

    if not args.no_light_switch and any(r.name == "highway" for r in results):
        hw = next(s for s in seqs if s.name == "highway")
        sw = LightSwitch.parse(args.switch)
        r = evaluate_sequence(hw, algos, cfg, light_switches=[sw], progress=True)
        events = switch_events([sw], r.last)
        light = {
            a: recovery_report(
                ar.frame_indices,
                ar.frame_counts,
                [sw],
                window=ev["light_switch_window"],
                tolerance=ev["recovery_tolerance"],
                smoothing=ev["recovery_smoothing"],
                last_frame=r.last,
            )
            for a, ar in r.algorithms.items()
        }
        (out / "light_switch_highway.json").write_text(json.dumps(light, indent=2))
        fig = plot_per_frame_f(
            r, events=events, smooth=5, title=f"highway, light switch {sw} (frames x {sw.gain:g})"
        )
        save_figure(fig, out / "light_switch_highway.png")
        if docs is not None:
            fig = plot_per_frame_f(
                r, events=events, smooth=5, title=f"highway, light switch {sw} (frames x {sw.gain:g})"
            )
            save_figure(fig, docs / "light_switch_highway.png")
        print(
            f"\n## Light switch {sw} on highway (window {ev['light_switch_window']}, tolerance "
            f"{ev['recovery_tolerance']}, smoothing {ev['recovery_smoothing']})\n"
        )
        print("| algorithm | event (frame) | F before | F after | recovery (frames) | F whole run |")
        print("|---|---|---|---|---|---|")
        for a, evs in light.items():
            whole = r.algorithms[a].metrics["f_measure"]
            for e in evs:
                rec = e["recovery_frames"]
                rec = f"> {e['searched_frames']}" if rec is None else str(rec)
                fb = "-" if e["f_before"] is None else f"{e['f_before']:.4f}"
                fa = "-" if e["f_after"] is None else f"{e['f_after']:.4f}"
                print(f"| {a} | {e['event']} ({e['frame']}) | {fb} | {fa} | {rec} | {whole:.4f} |")
    pets = [r for r in results if r.name == "pets2001_illumination"]
    if pets:  # real illumination change, no simulation: first vs second half of the evaluated frames
        import numpy as np

        from silkvision.evaluation.cdnet import Counts, metrics

        r = pets[0]
        idx = r.evaluated
        mid = idx[len(idx) // 2]
        bidx = np.asarray(r.brightness_indices)
        halves = [(idx[0], mid - 1), (mid, idx[-1])]
        print("\n## pets2001_illumination: pooled F over each half of the evaluated frames\n")
        print("| algorithm | " + " | ".join(f"F frames {a}-{b}" for a, b in halves) + " |")
        print("|---|" + "---|" * len(halves))
        for a, ar in r.algorithms.items():
            fs = []
            for lo, hi in halves:
                sel = (ar.frame_indices >= lo) & (ar.frame_indices <= hi)
                fs.append(metrics(Counts.from_array(ar.frame_counts[sel].sum(axis=0)))["f_measure"])
            print(f"| {a} | " + " | ".join(f"{f:.4f}" for f in fs) + " |")
        print(
            "| mean grey level | "
            + " | ".join(f"{np.mean(r.brightness[(bidx >= lo) & (bidx <= hi)]):.1f}" for lo, hi in halves)
            + " |"
        )
    print(f"\n## Timing (s, 2 shared cores, numba threads {args.threads})\n")
    for name, t in timing.items():
        print(
            f"- {name}: {t['frames']} frames, wall {t['wall_s']:.0f} s; "
            + ", ".join(f"{a} {t[a]:.0f} s" for a in algos if a in t)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
