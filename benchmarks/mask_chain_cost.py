"""What the mask chain costs per frame at one frame size, with 5x5 windows and with the windows
``detector.filter_width`` gives that size: the whole chain (median, closing, hole filling) and its two windowed steps, on SILK's raw masks of
highway frames resized to ``--size`` (1 thread, medians over the frames, all in one process).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/mask_chain_cost.py --size 1280x720
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
    from silkvision.detector.postprocess import (
        MaskFilter,
        close_mask,
        closing_footprint,
        median_mask,
    )
    from silkvision.detector.silk import SilkSubtractor

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT / "highway")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--frames", type=int, default=60, help="masks timed (after 200 frames learned)")
    args = ap.parse_args(argv)
    check_sequences(args.data.parent, [args.data.name])
    numba.set_num_threads(1)
    cv2.setNumThreads(1)
    W, H = (int(v) for v in args.size.split("x"))
    files = sorted((args.data / "input").glob("*.jpg"))[: 200 + args.frames]
    det = SilkSubtractor()
    masks = []
    for i, f in enumerate(files):
        det.apply(cv2.resize(cv2.imread(str(f)), (W, H), interpolation=cv2.INTER_LINEAR))
        if i >= 200:
            masks.append(det._raw.copy())
    m, c = det.mask_filter.sizes_for(W)
    out = np.empty((H, W), np.uint8)
    box = np.zeros((H, W), np.uint16)
    footprint = closing_footprint(c)
    steps = {
        "chain, 5x5 (fused)": MaskFilter(5, 5, True),
        f"chain, {m}x{m} / {c}x{c} (default at this width)": MaskFilter(5, 5, True, filter_width=320),
        f"median {m}": lambda r, out: median_mask(r, m, out=out, work=box),
        f"closing {c}": lambda r, out: close_mask(r, c, out=out, footprint=footprint),
    }
    times = {k: [] for k in steps}
    for r in masks:  # every step on the same mask, in turn
        for k, fn in steps.items():
            t = time.perf_counter()
            fn(r, out=out)
            times[k].append((time.perf_counter() - t) * 1e3)
    print(f"{W}x{H}, {len(masks)} SILK masks of {args.data.name}, 1 thread, medians (ms a frame)")
    print("| step | ms |\n|---|---|")
    for k, v in times.items():
        print(f"| {k} | {statistics.median(v[1:]):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
