"""CDnet F-measure of SILK (one fixed parameter set: the built-in defaults) vs NORMA, MOG2 and KNN.

Every sequence of ``../shared/data/video/`` is run through every detector once, from its first
frame; frames inside ``temporalROI.txt`` are scored against the ground truth with the CDnet rules
(pixels inside ``ROI.bmp`` if present; label 255 positive, 0 and 50 negative, 85 and 170 ignored;
counts pooled per sequence; F = 2 P R / (P + R)) via :func:`silkvision.evaluation.confusion_counts`.

Detectors (all with the built-in defaults of ``silkvision/config/schema.py``):

* ``silk``: SILK as configured by default (chosen by ``benchmarks/calibrate_defaults.py`` on
  office, pedestrians, traffic, canoe and pets2001_illumination ONLY (highway held out); those are marked "tuning" in the table);
* ``silk-median``: the same run's raw mask (score < threshold) after the median filter only (no
  closing, no hole filling: the earlier 5x5-median-only chain);
* ``silk-raw``: the same run's raw mask without any post-processing;
* ``silk-plain``: SILK without the soft conservative update (same other parameters);
* ``norma``: truncated NORMA (bare f score, its own defaults, same post-processing as SILK);
* ``mog2``, ``knn``: OpenCV defaults, shadows off, raw masks; ``mog2+post``, ``knn+post``:
  the same masks after the same post-processing as SILK (median, closing, hole filling).

Usage::

    .venv/bin/python benchmarks/detector_accuracy.py                  # all sequences, markdown table
    .venv/bin/python benchmarks/detector_accuracy.py --sequences highway --json out.json

Single-threaded (numba and OpenCV) and two worker processes (one sequence each) by default.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402

DEFAULT_ROOT = VIDEO_ROOT
SEQUENCES = ("highway", "office", "pedestrians", "traffic", "canoe", "pets2001_illumination")
TUNING = ("office", "pedestrians", "traffic", "canoe", "pets2001_illumination")
DETECTORS = ("silk", "silk-median", "silk-raw", "silk-plain", "norma", "mog2", "mog2+post", "knn", "knn+post")


@dataclass
class Sequence:
    """A CDnet-layout sequence held in memory."""

    name: str
    frames: list = field(repr=False)  # BGR uint8, frame i+1 at index i
    first: int  # temporal ROI, 1-based inclusive
    last: int
    roi: np.ndarray | None = field(repr=False, default=None)
    gt: dict = field(repr=False, default_factory=dict)  # frame number -> uint8 labels

    @property
    def shape(self):
        return self.frames[0].shape[:2]


def load_sequence(path: Path, max_frames: int | None = None, load_gt: bool = True) -> Sequence:
    """Read input/in%06d.jpg, temporalROI.txt, ROI.bmp and the ground truth of the evaluated frames."""
    files = sorted((path / "input").glob("in*.jpg"))
    if not files:
        raise FileNotFoundError(f"{path}: no input/in*.jpg")
    if max_frames:
        files = files[:max_frames]
    frames = [cv2.imread(str(f), cv2.IMREAD_COLOR) for f in files]
    first, last = (int(v) for v in (path / "temporalROI.txt").read_text().split()[:2])
    last = min(last, len(frames))
    roi = None
    if (path / "ROI.bmp").exists():
        r = cv2.imread(str(path / "ROI.bmp"), cv2.IMREAD_GRAYSCALE)
        if r is not None and r.shape == frames[0].shape[:2]:
            roi = r > 0
    gt = {}
    if load_gt:
        for i in range(first, last + 1):
            g = cv2.imread(str(path / "groundtruth" / f"gt{i:06d}.png"), cv2.IMREAD_GRAYSCALE)
            if g is not None:
                gt[i] = g
    return Sequence(path.name, frames, first, last, roi, gt)


def _f(c) -> float:
    from silkvision.evaluation import metrics

    return metrics(c)["f_measure"]


def run_sequence(seq: Sequence, detectors=DETECTORS, threads: int = 1) -> dict:
    """F-measure (and counts) of every detector on one sequence."""
    import numba

    import silkvision as sv
    from silkvision.detector.postprocess import NO_POSTPROCESSING, median_mask
    from silkvision.evaluation import Counts, confusion_counts

    numba.set_num_threads(threads)
    cv2.setNumThreads(threads)
    post = sv.create_subtractor("silk").mask_filter  # the shipped chain, applied to MOG2/KNN
    runs = {}
    if any(d.startswith("silk") and d != "silk-plain" for d in detectors):
        runs["silk"] = sv.create_subtractor("silk")
    if "silk-plain" in detectors:
        runs["silk-plain"] = sv.create_subtractor("silk", conservative=False)
    if "norma" in detectors:
        runs["norma"] = sv.create_subtractor("norma")
    if any(d.startswith("mog2") for d in detectors):
        runs["mog2"] = sv.create_subtractor("mog2", detect_shadows=False, **NO_POSTPROCESSING)
    if any(d.startswith("knn") for d in detectors):
        runs["knn"] = sv.create_subtractor("knn", detect_shadows=False, **NO_POSTPROCESSING)
    counts = {d: Counts(0, 0, 0, 0) for d in detectors}
    seconds = {k: 0.0 for k in runs}
    for i, frame in enumerate(seq.frames, start=1):
        gt = seq.gt.get(i) if seq.first <= i <= seq.last else None
        for k, det in runs.items():
            t0 = time.process_time()
            mask = det.apply(frame)
            seconds[k] += time.process_time() - t0
            if gt is None:
                continue
            if k == "silk":
                if "silk" in counts:
                    counts["silk"] = counts["silk"] + confusion_counts(mask, gt, seq.roi)
                raw = det._raw  # the kernel's mask (score < threshold) before the chain
                if "silk-raw" in counts:
                    counts["silk-raw"] = counts["silk-raw"] + confusion_counts(raw, gt, seq.roi)
                if "silk-median" in counts:
                    m = median_mask(raw, post.median)
                    counts["silk-median"] = counts["silk-median"] + confusion_counts(m, gt, seq.roi)
            elif k in ("mog2", "knn"):
                if k in counts:
                    counts[k] = counts[k] + confusion_counts(mask, gt, seq.roi)
                if k + "+post" in counts:
                    counts[k + "+post"] = counts[k + "+post"] + confusion_counts(post(mask), gt, seq.roi)
            elif k in counts:
                counts[k] = counts[k] + confusion_counts(mask, gt, seq.roi)
    return {
        "sequence": seq.name,
        "frames": len(seq.frames),
        "evaluated": [seq.first, seq.last],
        "f_measure": {d: _f(c) for d, c in counts.items()},
        "counts": {d: [c.tp, c.fp, c.fn, c.tn] for d, c in counts.items()},
        "cpu_seconds": seconds,
    }


def _worker(args):
    root, name, detectors, max_frames = args
    seq = load_sequence(Path(root) / name, max_frames)
    return run_sequence(seq, detectors)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    ap.add_argument("--sequences", nargs="+", default=list(SEQUENCES))
    ap.add_argument("--detectors", nargs="+", default=list(DETECTORS))
    ap.add_argument("--max-frames", type=int, default=None, help="debug: only the first N frames")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    check_sequences(args.root, args.sequences)

    import silkvision as sv

    silk = sv.create_subtractor("silk").get_params()
    norma = sv.create_subtractor("norma").get_params()
    print("SILK parameters:", silk)
    print("NORMA parameters:", norma, flush=True)
    tasks = [(str(args.root), s, tuple(args.detectors), args.max_frames) for s in args.sequences]
    t0 = time.time()
    if args.processes > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(min(args.processes, len(tasks))) as pool:
            results = pool.map(_worker, tasks, chunksize=1)
    else:
        results = [_worker(t) for t in tasks]
    print(f"({time.time() - t0:.0f} s wall)\n")
    dets = args.detectors
    print("| sequence | used for tuning | " + " | ".join(dets) + " |")
    print("|---|---|" + "---|" * len(dets))
    for r in results:
        tag = "yes" if r["sequence"] in TUNING else "no"
        print(f"| {r['sequence']} | {tag} | " + " | ".join(f"{r['f_measure'][d]:.3f}" for d in dets) + " |")
    held = [r for r in results if r["sequence"] not in TUNING]
    if held:
        print(
            "| mean of sequences not used for tuning | | "
            + " | ".join(f"{np.mean([r['f_measure'][d] for r in held]):.3f}" for d in dets)
            + " |"
        )
    print(
        f"| mean of all {len(results)} | | "
        + " | ".join(f"{np.mean([r['f_measure'][d] for r in results]):.3f}" for d in dets)
        + " |"
    )
    if args.json:
        args.json.write_text(json.dumps({"silk": silk, "norma": norma, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")
    raise SystemExit(main())
