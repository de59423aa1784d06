"""Detector throughput: SILK (and truncated NORMA) ``det.apply`` vs OpenCV MOG2, same process.

Frames are decoded and held in memory before timing; every detector is warmed up (numba JIT,
first 50 frames) before it is timed. Each repeat runs every detector over the same frames (by
default the whole highway sequence, 1700 frames), in turn (interleaved, so a noisy neighbour on
the shared machine hits all of them alike); the table reports the median frames/second over the
repeats and the ratio to MOG2's median.

Two clocks: wall-clock fps, and for single-thread runs also CPU-time fps (``time.process_time``:
all CPU time of the process, so helper threads would be counted). On a shared, loaded machine the
wall clock includes time the process waited for a core; CPU time does not, and is the steadier
comparison. Threads are set explicitly: ``numba.set_num_threads(n)`` and ``cv2.setNumThreads(n)``.

Usage::

    .venv/bin/python benchmarks/detector_speed.py                       # 320x240 and 640x480, 1 and 2 threads
    .venv/bin/python benchmarks/detector_speed.py --frames 300 --repeats 7 --threads 1
    .venv/bin/python benchmarks/detector_speed.py --sizes 640x480 1280x720 1920x1080 --threads 1 \
        --detectors silk silk+post mog2 mog2+post
    .venv/bin/python benchmarks/detector_speed.py --sizes 640x480 --threads 1 \
        --detectors silk silk:omega=10 silk:omega=5 mog2     # what a slot of the buffer costs

Needs ``highway`` of the shared video data (``$SILKVISION_VIDEO_DATA``, else ``../shared/data/video``),
or ``--data DIR`` with a CDnet-layout ``input/`` folder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import cv2
import numba
import numpy as np

from silkvision.jit import runtime_summary as threading_layer_line

sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402

from silkvision.detector.norma import NormaSubtractor
from silkvision.detector.postprocess import NO_POSTPROCESSING
from silkvision.detector.silk import SilkSubtractor

DEFAULT_DATA = VIDEO_ROOT / "highway"


def load_frames(folder: Path, n: int, size: tuple[int, int] | None) -> list[np.ndarray]:
    files = sorted((folder / "input").glob("*.jpg"))[:n]
    if not files:
        sys.exit(f"detector_speed: no input/*.jpg under {folder}")
    frames = [cv2.imread(str(f)) for f in files]
    if size is not None:
        frames = [cv2.resize(f, size, interpolation=cv2.INTER_LINEAR) for f in frames]
    return frames


class _MOG2:
    """Plain OpenCV MOG2 (no silkvision wrapper), shadows off, raw mask (no median)."""

    name = "mog2"

    def __init__(self):
        self.m = cv2.createBackgroundSubtractorMOG2(detectShadows=False)
        self.out = None

    def apply(self, frame, fgmask=None):
        self.out = self.m.apply(frame, self.out)
        return self.out


class _MOG2Shadows(_MOG2):
    """OpenCV MOG2 exactly as ``cv2.createBackgroundSubtractorMOG2()`` makes it (shadow detection on)."""

    name = "mog2-shadows"

    def __init__(self):
        self.m = cv2.createBackgroundSubtractorMOG2()
        self.out = None


class _MOG2Post(_MOG2):
    """The same MOG2, then SILK's default mask chain (median, closing, hole filling): like for like."""

    name = "mog2+post"

    def __init__(self):
        super().__init__()
        self.post = SilkSubtractor().mask_filter
        self.final = None

    def apply(self, frame, fgmask=None):
        raw = super().apply(frame)
        if self.final is None:
            self.final = np.empty_like(raw)
        return self.post(raw, out=self.final)


def make_detectors(which: list[str]):
    dets = {}
    for w in which:
        if w == "silk":  # SILK with its defaults (omega 20), post-processing off: same output as MOG2
            dets["silk"] = SilkSubtractor(**NO_POSTPROCESSING)
        elif w == "silk+median":  # the 5x5 median alone (no closing, no hole filling)
            dets["silk+median"] = SilkSubtractor(close=0, fill_holes=False)
        elif w == "silk+post":  # SILK exactly as configured by default (median, closing, hole filling)
            dets["silk+post"] = SilkSubtractor()
        elif w == "silk+post:one-width":  # the same with one kernel width everywhere (width_gain 0)
            dets[w] = SilkSubtractor(width_gain=0.0)
        elif w == "silk+post:texture":  # the same with the texture term and the shadow test (opt-in)
            dets[w] = SilkSubtractor(texture_weight=0.0625, shadow=True)
        elif w == "silk+post:5x5":  # the same with 5x5 mask windows at every frame size
            dets[w] = SilkSubtractor(filter_width=0)
        elif w == "norma":
            dets["norma"] = NormaSubtractor(**NO_POSTPROCESSING)
        elif w == "mog2":
            dets["mog2"] = _MOG2()
        elif w == "mog2+post":
            dets["mog2+post"] = _MOG2Post()
        elif w == "mog2-shadows":  # OpenCV's own defaults (detectShadows=True); "mog2" has them off
            dets["mog2-shadows"] = _MOG2Shadows()
        elif w.startswith("silk:omega="):  # the kernel alone with another buffer size: the cost of a slot
            dets[w] = SilkSubtractor(omega=int(w.split("=", 1)[1]), **NO_POSTPROCESSING)
        else:
            raise SystemExit(f"unknown detector {w!r}")
    return dets


def time_run(det, frames, out) -> tuple[float, float]:
    """(wall-clock fps, CPU-time fps) of one pass of ``det.apply`` over ``frames``."""
    c0, t0 = time.process_time(), time.perf_counter()
    if isinstance(det, _MOG2):
        for f in frames:
            det.apply(f)
    else:
        for f in frames:
            det.apply(f, fgmask=out)
    t1, c1 = time.perf_counter(), time.process_time()
    return len(frames) / (t1 - t0), len(frames) / max(c1 - c0, 1e-9)


def bench(frames, threads: int, repeats: int, which: list[str]) -> dict:
    numba.set_num_threads(threads)
    cv2.setNumThreads(threads)
    dets = make_detectors(which)
    h, w = frames[0].shape[:2]
    out = np.empty((h, w), np.uint8)
    for det in dets.values():  # JIT compile (cached) + fill the models
        for f in frames[:50]:
            det.apply(f) if isinstance(det, _MOG2) else det.apply(f, fgmask=out)
    fps = {k: [] for k in dets}
    cpu = {k: [] for k in dets}
    for _ in range(repeats):
        for k, det in dets.items():
            f_wall, f_cpu = time_run(det, frames, out)
            fps[k].append(f_wall)
            cpu[k].append(f_cpu)
    res = {
        "threads": threads,
        "size": f"{w}x{h}",
        "frames": len(frames),
        "repeats": repeats,
        "median_fps": {k: statistics.median(v) for k, v in fps.items()},
        "median_cpu_fps": {k: statistics.median(v) for k, v in cpu.items()},
        "all_fps": fps,
        "all_cpu_fps": cpu,
    }
    if "mog2" in dets:
        # the same repeat of two detectors ran back to back: their ratio cancels slow drifts of the
        # machine's load, so the median of these paired ratios is the figure to read
        res["paired_ratio_to_mog2"] = {
            k: {
                "median": statistics.median(a / b for a, b in zip(v, fps["mog2"])),
                "min": min(a / b for a, b in zip(v, fps["mog2"])),
                "max": max(a / b for a, b in zip(v, fps["mog2"])),
            }
            for k, v in fps.items()
            if k != "mog2"
        }
    if "silk+post" in dets and "mog2+post" in dets:
        r = [a / b for a, b in zip(fps["silk+post"], fps["mog2+post"])]
        res["paired_ratio_post"] = {"median": statistics.median(r), "min": min(r), "max": max(r)}
    if "silk" in dets:
        res["silk_state_bytes_per_pixel"] = dets["silk"].state_nbytes / (h * w)
    if "norma" in dets:
        res["norma_state_bytes_per_pixel"] = dets["norma"].state_nbytes / (h * w)
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--frames", type=int, default=1700, help="frames per timed run (native size)")
    ap.add_argument("--frames-large", type=int, default=300, help="frames per timed run (640x480)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--sizes", nargs="+", default=["native", "640x480"])
    ap.add_argument(
        "--detectors", nargs="+", default=["silk", "silk+median", "silk+post", "norma", "mog2", "mog2+post"]
    )
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    check_sequences(args.data.parent, [args.data.name])

    results = []
    for size in args.sizes:
        wh = None if size == "native" else tuple(int(v) for v in size.split("x"))
        frames = load_frames(args.data, args.frames if wh is None else args.frames_large, wh)
        for t in args.threads:
            r = bench(frames, t, args.repeats, args.detectors)
            results.append(r)
            base, cbase = r["median_fps"].get("mog2"), r["median_cpu_fps"].get("mog2")
            line = ", ".join(
                f"{k} {v:.0f} wall / {r['median_cpu_fps'][k]:.0f} cpu fps"
                + (
                    f" ({v / base:.2f}x / {r['median_cpu_fps'][k] / cbase:.2f}x MOG2)"
                    if base and k != "mog2"
                    else ""
                )
                for k, v in r["median_fps"].items()
            )
            print(f"{r['size']} threads={t}: {line}", flush=True)
    print()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores visible, load average "
        f"{os.getloadavg()[0]:.1f} at the end; {threading_layer_line()}, OpenCV {cv2.__version__}; "
        f"medians of {args.repeats} repeats"
    )
    print()
    names = args.detectors
    print("| frame size | threads | clock | " + " | ".join(f"{n} fps" for n in names) + " | SILK / MOG2 |")
    print("|---|---|---|" + "---|" * len(names) + "---|")
    for r in results:
        for clock, key in (("wall", "median_fps"), ("CPU", "median_cpu_fps")):
            if clock == "CPU" and r["threads"] != 1:
                continue  # CPU time of several threads is not a throughput
            m = r[key]
            ratio = f"{m['silk'] / m['mog2']:.2f}" if "silk" in m and "mog2" in m else "-"
            print(
                f"| {r['size']} | {r['threads']} | {clock} | "
                + " | ".join(f"{m[n]:.0f}" for n in names)
                + f" | {ratio} |"
            )
    for r in results:
        if "paired_ratio_to_mog2" in r:
            print(
                f"{r['size']} threads={r['threads']}: paired per-repeat ratio to MOG2 (median [min, max]): "
                + ", ".join(
                    f"{k} {v['median']:.2f} [{v['min']:.2f}, {v['max']:.2f}]"
                    for k, v in r["paired_ratio_to_mog2"].items()
                )
            )
    for r in results:
        if "paired_ratio_post" in r:
            v = r["paired_ratio_post"]
            print(
                f"{r['size']} threads={r['threads']}: like for like, silk+post / mog2+post (paired): "
                f"{v['median']:.2f} [{v['min']:.2f}, {v['max']:.2f}]"
            )
    for r in results[:1]:
        if "silk_state_bytes_per_pixel" in r:
            print(
                f"\nSILK state: {r['silk_state_bytes_per_pixel']:.0f} bytes/pixel"
                + (
                    f"; NORMA: {r['norma_state_bytes_per_pixel']:.0f} bytes/pixel"
                    if "norma_state_bytes_per_pixel" in r
                    else ""
                )
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
