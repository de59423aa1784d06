"""Where the time of ``silkvision export`` goes, per stage, for an HD video: decode, detect, write.

Makes an MPEG-4 file of highway frames upscaled to ``--size`` (or takes ``--video``), then, in one
process with numba and OpenCV on ``--threads`` threads:

* **decode**: the frames read through :func:`silkvision.capture.open_source`, as export reads them;
* **detect**: ``det.apply(frame, fgmask=...)`` on the preloaded frames, for SILK (default
  configuration) and MOG2;
* **write**: :func:`silkvision.io.writers.write_mask_png` of each mask (PNG encoding and the atomic
  write);
* **export**: the whole ``silkvision export`` of the file (its Python entry point, ``--overwrite``
  into one folder), once to warm up, then timed, serial (``export.pipeline=false``) and pipelined
  (decode and write on threads of their own, ``export.pipeline=true``) in turn.

Each stage runs ``--repeats`` times in turn; the table gives the median CPU and wall ms per frame
(CPU time: ``time.process_time``, all threads of the process). On a shared machine read the CPU
column; the wall column shows waiting for a core. The pipeline moves decode and write off the
detector's thread: its gain is in the wall column, at most decode + write per frame, and only with
a second core free.

Usage::

    .venv/bin/python benchmarks/export_stages.py --size 1280x720 --frames 150
    .venv/bin/python benchmarks/export_stages.py --size 1920x1080 --frames 60 --detectors silk
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402

import silkvision as sv  # noqa: E402
from silkvision.capture import open_source  # noqa: E402
from silkvision.io.writers import mask_name, write_mask_png  # noqa: E402


def make_video(data: Path, path: Path, size: tuple[int, int], n: int) -> None:
    files = sorted((data / "input").glob("*.jpg"))[:n]
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, size)
    if not w.isOpened():
        sys.exit(f"export_stages: cannot write {path} with OpenCV's mp4v codec")
    for f in files:
        w.write(cv2.resize(cv2.imread(str(f)), size, interpolation=cv2.INTER_LINEAR))
    w.release()


def timed(fn) -> tuple[float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - t0


def run_export(video: Path, out: Path, algorithm: str, pipeline: bool = True) -> None:
    from silkvision.cli.main import main as cli_main

    rc = cli_main(
        ["export", str(video), "--out", str(out), "--algorithm", algorithm, "--overwrite"]
        + ["--set", f"export.pipeline={str(pipeline).lower()}"]
    )
    if rc not in (0, None):
        sys.exit(f"export_stages: silkvision export exited with {rc}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT / "highway")
    ap.add_argument("--video", type=Path, help="use this video instead of making one")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--detectors", nargs="+", default=["silk", "mog2"])
    ap.add_argument("--export-only", action="store_true", help="time only the whole exports")
    args = ap.parse_args(argv)
    numba.set_num_threads(args.threads)
    cv2.setNumThreads(args.threads)
    size = tuple(int(v) for v in args.size.split("x"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        video = args.video
        if video is None:
            check_sequences(args.data.parent, [args.data.name])
            video = tmp / "clip.mp4"
            make_video(args.data, video, size, args.frames)

        def decode():
            with open_source(str(video)) as src:
                frames[:] = [f for _, f in src]

        frames: list = []
        decode()
        n = len(frames)
        rows: dict[str, list] = {"decode": []}
        masks = {}
        for name in args.detectors:
            det = sv.create_subtractor(name)
            for f in frames[:20]:
                det.apply(f)
            buf = np.empty(frames[0].shape[:2], np.uint8)
            masks[name] = [det.apply(f, fgmask=buf).copy() for f in frames[20:40]]
            rows[f"detect {name}"] = []
            rows[f"write {name}"] = []
            rows[f"export {name} serial"] = []
            rows[f"export {name} pipelined"] = []
            run_export(video, tmp / f"warm-{name}", name)
        if args.export_only:
            rows = {k: v for k, v in rows.items() if k.startswith("export")}
        for r in range(args.repeats):
            for name in args.detectors:
                for pipeline in (r % 2 == 0, r % 2 == 1):  # in turn, the first one alternating
                    how = "pipelined" if pipeline else "serial"
                    rows[f"export {name} {how}"].append(
                        timed(lambda: run_export(video, tmp / f"out-{name}", name, pipeline))
                    )
            if args.export_only:
                continue
            rows["decode"].append(timed(decode))
            for name in args.detectors:
                det = sv.create_subtractor(name)
                buf = np.empty(frames[0].shape[:2], np.uint8)
                rows[f"detect {name}"].append(timed(lambda: [det.apply(f, fgmask=buf) for f in frames]))
                ms = masks[name]
                rows[f"write {name}"].append(
                    timed(
                        lambda: (
                            [write_mask_png(tmp / "w" / mask_name(i), ms[i % len(ms)]) for i in range(n)]
                            if (tmp / "w").mkdir(exist_ok=True) is None
                            else None
                        )
                    )
                )
        print(
            f"{video.name}: {n} frames of {frames[0].shape[1]}x{frames[0].shape[0]}, "
            f"{args.threads} thread(s), medians of {args.repeats}"
        )
        print("| stage | CPU ms/frame | wall ms/frame | wall fps |")
        print("|---|---|---|---|")
        for k, v in rows.items():
            cpu = statistics.median(c for c, _ in v) / n * 1e3
            wall = statistics.median(w for _, w in v) / n * 1e3
            print(f"| {k} | {cpu:.2f} | {wall:.2f} | {1e3 / wall:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
