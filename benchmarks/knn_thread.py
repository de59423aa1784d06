"""Cost and effect of running OpenCV's KNN on a thread of its own.

KNN draws from OpenCV's per-thread random generator, so each ``OpenCVSubtractor("knn")`` applies on
a worker thread of its own (``silkvision/detector/opencv.py``). This script measures, in one
process on the same frames of the shipped sample clip:

* the time per frame with the worker thread against OpenCV's apply in the calling thread (the
  earlier shared-generator behaviour, by clearing the subtractor's ``_rng_thread``), median of ``--repeats``;
* the F-measure of a KNN evaluated alone and beside a second KNN variant in one
  ``evaluate_sequence`` call (equal with a thread per subtractor; they differ when the generator is
  shared).

Usage: ``NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/knn_thread.py [--frames 200] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2

import silkvision as sv
from silkvision.evaluation import evaluate_sequence


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=200, help="sample frames timed (default 200)")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs of each (default 5)")
    a = ap.parse_args()
    seq = sv.samples.highway()
    frames = [cv2.imread(str(p)) for p in sorted((seq / "input").glob("*.jpg"))[: a.frames]]
    times = {"own thread": [], "calling thread": []}
    for _ in range(a.repeats):
        for name in times:
            det = sv.create_subtractor("knn", median=0)
            if name == "calling thread":
                det._rng_thread = None
            t = time.perf_counter()
            for f in frames:
                det.apply(f)
            times[name].append((time.perf_counter() - t) / len(frames) * 1e3)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"KNN ms/frame over {len(frames)} frames, median of {a.repeats}: own thread "
        f"{med['own thread']:.3f}, calling thread {med['calling thread']:.3f}, ratio "
        f"{med['own thread'] / med['calling thread']:.3f}"
    )
    alone = evaluate_sequence(seq, detectors={"knn": sv.create_subtractor("knn")})
    both = evaluate_sequence(
        seq,
        detectors={
            "knn": sv.create_subtractor("knn"),
            "knn_300": sv.create_subtractor("knn", dist2_threshold=300.0),
        },
    )
    print(
        f"KNN F on the sample: alone {alone.algorithms['knn'].metrics['f_measure']:.5f}, beside a "
        f"second KNN {both.algorithms['knn'].metrics['f_measure']:.5f}"
    )


if __name__ == "__main__":
    main()
