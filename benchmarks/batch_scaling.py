"""``silkvision batch`` on a local Dask cluster with 1 and 2 workers: wall time, speed-up, and the
per-task overhead of the scheduler; plus the figures the on-paper estimate needs (mask bytes, the
cost of one atomic mask write). Results and their discussion: ``docs/benchmarks/batch.md``.

Tasks: the six development sequences of ``../shared/data/video`` (highway, office, pedestrians,
traffic, canoe, pets2001_illumination), each listed ``--copies`` times under its own name (so ~30
tasks), each cut to its first ``--max-frames`` frames (``capture.max_frames``, the same for all:
whole sequences would keep the 2-core machine busy for an hour). Every run writes into a fresh
folder, so no task is skipped or resumed.

The workers' CPU seconds over the batch (``getrusage`` in each worker process) tell how many cores
the batch really got: on a machine that others keep busy, a second worker may get no more CPU than
the first had alone, and frames per CPU second is then the figure that carries over to an idle
machine.

Per-task overhead: ``(wall * workers - sum of the tasks' own seconds) / tasks``, i.e. the worker
time per task not spent in the export (submission, scheduling, result transfer, the tail where one
worker waits for the other); and the round trip of an empty task, from ``--empty`` no-op tasks.

Usage::

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/batch_scaling.py --json batch_scaling.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SILKVISION_SHARED_DATA", REPO.parent / "shared" / "data")) / "video"
SEQUENCES = ("highway", "office", "pedestrians", "traffic", "canoe", "pets2001_illumination")


def _noop() -> int:
    return os.getpid()


def _cpu_seconds() -> float:
    """User + system CPU seconds of this (worker) process and its threads so far."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_once(workers: int, jobs, out: Path, cfg: dict, empty: int) -> dict:
    """One batch on a new local cluster of ``workers`` processes; the cluster's start-up is timed
    apart from the batch."""
    from silkvision.batch import check_workers, open_cluster, run_batch

    t0 = time.perf_counter()
    with open_cluster(workers=workers, dashboard_address=None) as cluster:
        check_workers(cluster, out)
        # warm every worker (imports, numba's cache) so that the batch's time is the batch's
        cluster.client.run(_warm)
        started = time.perf_counter() - t0
        cpu0 = cluster.client.run(_cpu_seconds)
        t1 = time.perf_counter()
        res = run_batch(jobs, out, cfg, cluster)
        wall = time.perf_counter() - t1
        cpu1 = cluster.client.run(_cpu_seconds)
        cpu = sum(cpu1[w] - cpu0.get(w, 0.0) for w in cpu1)
        t2 = time.perf_counter()
        futures = [cluster.client.submit(_noop, pure=False) for _ in range(empty)]
        cluster.client.gather(futures)
        empty_wall = time.perf_counter() - t2
    tasks = [r["seconds"] for r in res.records]
    frames = sum(r["processed"] or 0 for r in res.records)
    bad = [r for r in res.records if r["status"] != "done"]
    if bad:
        sys.exit(f"batch_scaling: {bad[0]['name']}: {bad[0]['status']}: {bad[0]['error']}")
    return {
        "workers": workers,
        "tasks": len(tasks),
        "frames": frames,
        "startup_s": started,
        "wall_s": wall,
        "fps": frames / wall,
        "cpu_s": cpu,
        "cores_used": cpu / wall,
        "frames_per_cpu_s": frames / cpu,
        "task_s_sum": sum(tasks),
        "task_s_median": statistics.median(tasks),
        "overhead_per_task_s": (wall * workers - sum(tasks)) / len(tasks),
        "empty_tasks": empty,
        "empty_task_s": empty_wall / empty if empty else None,
    }


def _warm() -> None:
    import numpy as np

    from silkvision.detector import create_subtractor

    create_subtractor("silk").apply(np.zeros((8, 8, 3), np.uint8))


def checkpoint_cost(cfg: dict, frames: int = 5) -> dict:
    """Bytes and save time of the export's checkpoint of the configured detector after ``frames``
    frames of highway (full size), on the benchmark's disk."""
    from silkvision.capture import open_source
    from silkvision.detector import create_subtractor
    from silkvision.io.checkpoint import CHECKPOINT, save_checkpoint

    det = create_subtractor(cfg["detector"]["algorithm"], config=cfg)
    with open_source(DATA / "highway", max_frames=frames) as src:
        for index, frame in src:
            det.apply(frame)
    t = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(5):
            t0 = time.perf_counter()
            save_checkpoint(Path(tmp), det, index, frames, frame)
            t.append(time.perf_counter() - t0)
        size = (Path(tmp) / CHECKPOINT).stat().st_size
    return {
        "checkpoint_bytes": size,
        "checkpoint_save_s_median": statistics.median(t),
        "frame_size": [frame.shape[1], frame.shape[0]],
    }


def mask_costs(out: Path) -> dict:
    """Bytes of a mask PNG and of the lossless mask video per frame, and the time of one atomic
    mask write (temporary file, fsync, rename) on the benchmark's disk."""
    import cv2
    import numpy as np

    from silkvision.io.writers import write_mask_png

    pngs = list(out.glob("*/bin*.png"))
    videos = list(out.glob("*/masks.*"))
    per_frame_video = None
    if videos:
        frames = sum(json.loads((v.parent / "export.json").read_text())["frames"] for v in videos)
        per_frame_video = sum(v.stat().st_size for v in videos) / frames
    mask = cv2.imread(str(pngs[0]), cv2.IMREAD_GRAYSCALE)
    t = []
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        for k in range(200):
            t0 = time.perf_counter()
            write_mask_png(Path(tmp) / f"bin{k:06d}.png", np.ascontiguousarray(mask))
            t.append(time.perf_counter() - t0)
    return {
        "png_bytes_mean": sum(p.stat().st_size for p in pngs) / len(pngs),
        "pngs": len(pngs),
        "video_bytes_per_frame": per_frame_video,
        "mask_size": list(mask.shape[::-1]),
        "png_write_s_median": statistics.median(t),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=5, help="tasks per sequence (default 5: 30 tasks)")
    ap.add_argument("--max-frames", type=int, default=200, help="frames per task (default 200)")
    ap.add_argument("--workers", default="1,2", help="worker counts to run (default 1,2)")
    ap.add_argument("--algorithm", default="silk")
    ap.add_argument("--empty", type=int, default=200, help="no-op tasks for the round trip (default 200)")
    ap.add_argument("--out", type=Path, default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--json", type=Path, default=None, help="write the results here")
    ap.add_argument(
        "--costs-only",
        action="store_true",
        help="only the write costs: one batch with the last --workers count, then the "
        "mask and checkpoint figures",
    )
    a = ap.parse_args(argv)
    missing = [s for s in SEQUENCES if not (DATA / s).is_dir()]
    if missing:
        sys.exit(f"batch_scaling: {DATA / missing[0]}: not found; expected the shared data set")
    from silkvision.batch.sources import Job
    from silkvision.config import validate

    cfg = validate(
        {
            "detector": {"algorithm": a.algorithm},
            "capture": {"max_frames": a.max_frames},
            "export": {"video": True},
        },
        "config",
    )
    jobs = [Job(str(DATA / s), f"{s}-{k + 1}") for k in range(a.copies) for s in SEQUENCES]
    scratch = Path(tempfile.mkdtemp(prefix="batch_scaling.", dir=a.out))
    runs = []
    try:
        counts = [int(x) for x in a.workers.split(",")]
        for w in counts[-1:] if a.costs_only else counts:
            out = scratch / f"w{w}"
            r = run_once(w, jobs, out, cfg, a.empty)
            runs.append(r)
            print(
                f"{w} worker(s): {r['tasks']} tasks, {r['frames']} frames in {r['wall_s']:.1f} s "
                f"({r['fps']:.1f} frames/s; cluster start {r['startup_s']:.1f} s); workers' CPU "
                f"{r['cpu_s']:.1f} s = {r['cores_used']:.2f} cores, {r['frames_per_cpu_s']:.1f} "
                f"frames per CPU second; task median "
                f"{r['task_s_median']:.2f} s; overhead {r['overhead_per_task_s'] * 1000:.0f} ms/task; "
                f"empty task {r['empty_task_s'] * 1000:.1f} ms",
                flush=True,
            )
        base = runs[0]
        for r in runs:
            r["speedup"] = base["wall_s"] / r["wall_s"]
            print(f"{r['workers']} worker(s): speed-up {r['speedup']:.2f}x over {base['workers']}")
        costs = {**mask_costs(scratch / f"w{runs[-1]['workers']}"), **checkpoint_cost(cfg)}
        print(
            f"mask PNG {costs['png_bytes_mean']:.0f} B, mask video {costs['video_bytes_per_frame']:.0f} "
            f"B/frame at {costs['mask_size'][0]}x{costs['mask_size'][1]}; one atomic PNG write "
            f"{costs['png_write_s_median'] * 1000:.2f} ms (median); checkpoint "
            f"{costs['checkpoint_bytes'] / 1e6:.1f} MB, saved in {costs['checkpoint_save_s_median']:.3f} s "
            f"(median)"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if a.json:
        a.json.write_text(
            json.dumps(
                {
                    "runs": runs,
                    "masks": costs,
                    "cpus": os.cpu_count(),
                    "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
                    "max_frames": a.max_frames,
                    "copies": a.copies,
                    "algorithm": a.algorithm,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
