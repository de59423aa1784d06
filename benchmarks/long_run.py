"""A long export: the shipped sample clip looped to ``--frames`` frames through ``export``, with the
process's resident memory (RSS), open file descriptors and frame rate sampled as it runs.

It looks for what a short run cannot show: memory or descriptors that grow with the number of
frames (a leak per frame or per checkpoint), and a frame rate that falls as the output folder
fills. The loop is a seekable source, so the export saves its checkpoint every
``export.checkpoint_every`` frames as for a video file. Not part of the test suite (it runs for
hours at 1,000,000 frames); the figures are in ``docs/benchmarks/long_run.md``.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/long_run.py --frames 1000000 --out /tmp/long_run \\
        --json /tmp/long_run.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

import silkvision as sv
from silkvision.capture import Source, open_source
from silkvision.config import load_config
from silkvision.export import export_masks


class LoopSource(Source):
    """The frames of a clip (held in memory) repeated to ``total`` frames, numbered 1..total; with
    ``deadline`` (a ``time.monotonic()`` value) the stream ends early once it has passed."""

    kind = "loop"
    seekable = True

    def __init__(self, frames: list[np.ndarray], total: int, name: str, deadline: float | None = None):
        super().__init__(f"{name}-loop")
        self._frames = frames
        self._total = total
        self._pos = 1
        self.deadline = deadline
        self.ended_early = False
        self.fps = 25.0

    @property
    def frame_count(self) -> int:
        return self._total

    @property
    def position(self) -> int:
        """Number of the next frame (read from the sampling thread)."""
        return self._pos

    def seek(self, index: int) -> None:
        self._pos = int(index)

    def _next(self):
        i = self._pos
        if i > self._total:
            raise StopIteration
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.ended_early = True
            raise StopIteration
        self._pos = i + 1
        return i, self._frames[(i - 1) % len(self._frames)], f"{self.name} frame {i}"


def _rss_mib() -> float:
    """Resident memory of this process now (MiB), from /proc (Linux)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


class Sampler(threading.Thread):
    """Every ``every`` seconds: elapsed time, frames exported, RSS, open descriptors, frame rate."""

    def __init__(self, src: LoopSource, every: float):
        super().__init__(daemon=True, name="long-run-sampler")
        self.src, self.every = src, every
        self.samples: list[dict] = []
        self._halt = threading.Event()
        self._t0 = time.perf_counter()

    def sample(self) -> dict:
        t = time.perf_counter() - self._t0
        frames = self.src.position - 1
        prev = self.samples[-1] if self.samples else {"seconds": 0.0, "frames": 0}
        dt = t - prev["seconds"]
        s = {
            "seconds": round(t, 2),
            "frames": frames,
            "rss_mib": round(_rss_mib(), 1),
            "fds": _open_fds(),
            "fps": round((frames - prev["frames"]) / dt, 1) if dt > 0 else None,
        }
        self.samples.append(s)
        return s

    def run(self) -> None:
        while not self._halt.wait(self.every):
            s = self.sample()
            print(
                f"{s['seconds']:9.0f} s {s['frames']:9d} frames  RSS {s['rss_mib']:7.1f} MiB  "
                f"fds {s['fds']:3d}  {s['fps']} fps",
                file=sys.stderr,
                flush=True,
            )

    def stop(self) -> None:
        self._halt.set()
        self.join()
        self.sample()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1_000_000, help="frames to export (default 1e6)")
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: a temporary folder, removed at the end)",
    )
    ap.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    ap.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="configuration override, as for silkvision export",
    )
    ap.add_argument("--json", type=Path, default=None, help="write the samples and summary here")
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="end the looped stream after this long (a shorter run than --frames when "
        "time forbids; the summary says how many frames were done)",
    )
    args = ap.parse_args(argv)
    if args.frames < 1:
        ap.error(f"--frames: {args.frames} is not allowed; expected an integer >= 1")
    cfg = load_config(overrides=args.overrides, use_cwd=False)
    with open_source(sv.samples.highway()) as clip:
        frames = [np.array(f) for _, f in clip]
    deadline = None if args.max_seconds is None else time.monotonic() + args.max_seconds
    src = LoopSource(frames, args.frames, "highway", deadline)
    out = args.out or Path(tempfile.mkdtemp(prefix="silkvision-long-run-"))
    sampler = Sampler(src, args.every)
    sampler.sample()  # the baseline: clip in memory, nothing exported yet
    sampler.start()
    try:
        res = export_masks(src, out, cfg, overwrite=True, progress=False)
    finally:
        sampler.stop()
        if args.out is None:
            shutil.rmtree(out, ignore_errors=True)
    s = sampler.samples
    steady = s[len(s) // 10 :] if len(s) >= 10 else s  # after the first tenth: JIT and warm-up done
    rates = [x["fps"] for x in steady if x["fps"] is not None]
    summary = {
        "frames": res.frames,
        "seconds": round(res.seconds, 1),
        "fps": round(res.fps, 1),
        "clip_frames": len(frames),
        "frame_size": list(frames[0].shape[1::-1]),
        "algorithm": res.algorithm,
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
        "rss_mib_first": s[0]["rss_mib"],
        "rss_mib_steady_first": steady[0]["rss_mib"],
        "rss_mib_last": s[-1]["rss_mib"],
        "rss_mib_max": max(x["rss_mib"] for x in s),
        "maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "fds_min": min(x["fds"] for x in s),
        "fds_max": max(x["fds"] for x in s),
        "fps_median": float(np.median(rates)) if rates else None,
        "fps_first_steady": rates[0] if rates else None,
        "fps_last": rates[-1] if rates else None,
        "overrides": args.overrides,
        "complete": res.complete,
        "interrupted": res.interrupted,
        "ended_early": src.ended_early,
        "frames_asked": args.frames,
    }
    print(json.dumps(summary, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps({"summary": summary, "samples": s}, indent=1) + "\n")
    return 0 if res.complete or res.interrupted else 1


if __name__ == "__main__":
    raise SystemExit(main())
