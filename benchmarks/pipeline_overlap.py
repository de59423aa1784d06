"""Whether the pipelined export overlaps decoding and writing with detection, on any machine.

A stand-in detector that sleeps ``--sleep`` ms a frame (using no core) runs ``silkvision export``
of the sample clip resized to ``--size``, serial (``export.pipeline: false``) and pipelined in
turn, in one process. Serial, a frame takes the sleep plus decoding and writing; pipelined, about
the sleep alone when decode and write fit in it. With a real detector the same holds only while a
second core is free (``export_stages.py`` measures that).

Usage::

    .venv/bin/python benchmarks/pipeline_overlap.py --sleep 15 --frames 100 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import silkvision as sv
from silkvision.export import export_masks


class SleepingDetector:
    """A mask from the blue channel after a sleep: a detector whose time needs no core."""

    name = "sleeping"
    has_scores = False

    def __init__(self, seconds: float):
        self.seconds = seconds

    def reset(self) -> None:
        pass

    def get_state(self):
        raise NotImplementedError("no checkpoint")

    def apply(self, frame, learningRate=-1, fgmask=None):  # noqa: N803 - OpenCV's name
        time.sleep(self.seconds)
        mask = fgmask if fgmask is not None else np.empty(frame.shape[:2], np.uint8)
        np.greater(frame[..., 0], 128, out=mask, casting="unsafe")
        mask *= 255
        return mask


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sleep", type=float, default=15.0, help="ms a frame")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--frames", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    cfg = {"capture": {"max_frames": args.frames, "resize": [w, h]}}
    wall: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for pipeline in (r % 2 == 1, r % 2 == 0):
                t0 = time.perf_counter()
                res = export_masks(
                    sv.samples.highway(),
                    Path(tmp) / f"out-{r}-{pipeline}",
                    {**cfg, "export": {"pipeline": pipeline}},
                    detector=SleepingDetector(args.sleep / 1e3),
                    progress=False,
                    log=lambda m: None,
                )
                wall[pipeline].append((time.perf_counter() - t0) / res.frames * 1e3)
    print(
        f"{args.frames} frames of {args.size}, detector sleeping {args.sleep:g} ms, medians of {args.repeats}"
    )
    for pipeline, times in wall.items():
        print(f"{'pipelined' if pipeline else 'serial'}: {statistics.median(times):.1f} wall ms/frame")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
