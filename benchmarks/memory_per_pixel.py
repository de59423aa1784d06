"""Memory per pixel of each detector at one frame size (the README's "High-resolution input").

SILK and NORMA: the arrays they allocate (``nbytes_for``, exact, and ``state_nbytes``). MOG2 and KNN
(OpenCV's, whose model silkvision cannot see): the growth of this process's resident memory while a
second detector learns ``--frames`` random frames, after a first one has warmed up OpenCV. Each
detector runs in its own fresh process.

    .venv/bin/python benchmarks/memory_per_pixel.py --size 1920x1080 --frames 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys
import numpy as np
from silkvision.detector import create_subtractor

name, W, H, frames = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

rng = np.random.default_rng(0)
frame = rng.integers(0, 255, (H, W, 3), np.uint8)
create_subtractor(name).apply(frame)             # warm-up: libraries, kernels, first buffers
before = rss()
det = create_subtractor(name)
for _ in range(frames):
    det.apply(rng.integers(0, 255, (H, W, 3), np.uint8))
out = {"rss_growth_per_px": (rss() - before) / (W * H)}
if hasattr(det, "nbytes_for"):
    out["nbytes_for_per_px"] = det.nbytes_for(H, W) / (W * H)
    out["state_per_px"] = det.state_nbytes / (W * H)
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT (default 1920x1080)")
    ap.add_argument("--frames", type=int, default=5, help="frames learned by the measured detector")
    ap.add_argument("--algorithms", default="silk,norma,mog2,knn")
    args = ap.parse_args()
    W, H = (int(v) for v in args.size.lower().split("x"))
    print(f"{W}x{H}, {args.frames} frames; bytes per pixel")
    print(f"{'algorithm':10s} {'RSS growth':>11s} {'nbytes_for':>11s} {'state':>7s}")
    for name in args.algorithms.split(","):
        res = json.loads(
            subprocess.run(
                [sys.executable, "-c", CHILD, name, str(W), str(H), str(args.frames)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        nb, st = (res.get(k) for k in ("nbytes_for_per_px", "state_per_px"))
        nb, st = ("-" if v is None else f"{v:.1f}" for v in (nb, st))
        print(f"{name:10s} {res['rss_growth_per_px']:11.1f} {nb:>11s} {st:>7s}")


if __name__ == "__main__":
    main()
