"""Where the per-pixel kernel width spends its time: the share of rows that take the per-pixel
width path (a pixel of the row blinks past ``width_dead_zone``) and the time of the feedback step
(:func:`silkvision.detector.kernels.silk_feedback`) per frame, after SILK's default has learned
``--frames`` frames of a sequence (1 thread).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/width_feedback_cost.py --frames 400
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from video_data import VIDEO_ROOT, check_sequences  # noqa: E402


def main(argv=None) -> int:
    from silkvision.detector import kernels as K
    from silkvision.detector.silk import BLINK_DEC, BLINK_INC, BLINK_MAX, SilkSubtractor

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT / "highway")
    ap.add_argument("--frames", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=200, help="timed calls of the feedback step")
    args = ap.parse_args(argv)
    check_sequences(args.data.parent, [args.data.name])
    numba.set_num_threads(1)
    cv2.setNumThreads(1)
    det = SilkSubtractor()
    wide = []
    for f in sorted((args.data / "input").glob("*.jpg"))[: args.frames]:
        det.apply(cv2.imread(str(f)))
        rows = (det._extra["blink"] > np.float32(det.get_params()["width_dead_zone"])).any(axis=1)
        wide.append(rows.mean())
    e = det._extra
    out = det.mask_filter(det._raw)
    state = [e["prev_raw"].copy(), e["prev_out"].copy(), e["blink"].copy()]
    times = []
    for _ in range(args.repeats + 1):  # the first call may load the compiled kernel
        t = time.perf_counter()
        K.silk_feedback(det._raw, out, *state, BLINK_INC, BLINK_DEC, BLINK_MAX)
        times.append((time.perf_counter() - t) * 1e6)
    H, W = det._raw.shape
    late = wide[len(wide) // 2 :]
    print(f"{args.data.name}, {W}x{H}, {len(wide)} frames learned, 1 thread")
    print(
        f"rows on the per-pixel width path: {100 * statistics.mean(late):.0f} % (mean over the second half)"
    )
    print(f"feedback step: {statistics.median(times[1:]):.1f} us a frame (median of {args.repeats})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
