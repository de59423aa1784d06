"""Where the texture term and the shadow test spend their time: ``det.apply`` per frame of SILK's
default, with the texture term alone, the shadow test alone and both, run in turn in one process
on the same preloaded frames (1 thread), and the LBSP pass on its own. ``--learn N`` first
learns N frames untimed (the warm-up, when most pixels are foreground and the shadow test runs on
them, is then left out).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/texture_cost.py --frames 300 --repeats 9
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/texture_cost.py --learn 300 --frames 300 --repeats 9
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

CONFIGS = {
    "default": {},
    "texture": {"texture_weight": 0.0625},
    "shadow": {"shadow": True},
    "texture+shadow": {"texture_weight": 0.0625, "shadow": True},
}


def main(argv=None) -> int:
    from silkvision.detector import kernels as K
    from silkvision.detector.silk import SilkSubtractor

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT / "highway")
    ap.add_argument("--frames", type=int, default=300, help="timed frames per run")
    ap.add_argument("--learn", type=int, default=0, help="frames learned untimed before them")
    ap.add_argument("--repeats", type=int, default=5, help="runs of every configuration, in turn")
    args = ap.parse_args(argv)
    check_sequences(args.data.parent, [args.data.name])
    numba.set_num_threads(1)
    cv2.setNumThreads(1)
    files = sorted((args.data / "input").glob("*.jpg"))[: args.learn + args.frames]
    frames = [cv2.imread(str(f)) for f in files]
    first, frames = frames[: args.learn], frames[args.learn :]
    for kw in CONFIGS.values():  # compile (or load) every kernel first
        SilkSubtractor(**kw).apply(frames[0])
    ms: dict[str, list[float]] = {name: [] for name in CONFIGS}
    for _ in range(args.repeats):
        for name, kw in CONFIGS.items():
            det = SilkSubtractor(**kw)
            for f in first:
                det.apply(f)
            t = time.perf_counter()
            for f in frames:
                det.apply(f)
            ms[name].append((time.perf_counter() - t) / len(frames) * 1e3)
    feat = det._conv(frames[-1])
    H, W = feat.shape[:2]
    lum, tex = np.zeros((2, H, W), np.uint8), np.zeros((H, W), np.uint16)
    lbsp = []
    for _ in range(201):
        t = time.perf_counter()
        K.lbsp_frame(feat, lum, tex)
        lbsp.append((time.perf_counter() - t) * 1e3)
    base = statistics.median(ms["default"])
    span = f"frames {args.learn + 1}-{args.learn + len(frames)}"
    print(f"{args.data.name}, {W}x{H}, {span}, 1 thread, medians of {args.repeats} runs")
    for name, v in ms.items():
        m = statistics.median(v)
        print(f"{name:15s} {m:6.3f} ms a frame  (+{m - base:.3f} ms, {m / base:.2f}x the default)")
    print(f"LBSP pass       {statistics.median(lbsp[1:]):6.3f} ms a frame (median of 200 calls)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
