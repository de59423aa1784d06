"""SILK's default ``apply`` on 2 numba threads, on idle cores and beside CPU-bound processes.

numba's ``omp`` threading layer (GNU OpenMP) lets idle threads busy-wait between parallel loops.
This script measures what that costs when the cores are busy: every (load, setting) cell runs in a
fresh process (OpenMP reads its settings when it is loaded), interleaved over ``--rounds`` rounds:

* ``openmp-default``: ``GOMP_SPINCOUNT=300000``, GNU OpenMP's own default;
* ``silkvision``: no setting, so silkvision's import sets ``GOMP_SPINCOUNT=1000``
  (:mod:`silkvision.detector.numba_threads`);
* ``passive``: ``OMP_WAIT_POLICY=PASSIVE`` (threads sleep at once);
* ``1-thread``: numba and OpenCV on one thread.

"busy" runs ``--busy`` processes of ``while True: pass`` beside the measurement. Each cell reports
the median frames/s of SILK (default configuration, full mask chain) and of raw OpenCV MOG2
(``detectShadows=False``, OpenCV on the same number of threads), timed alternately in the same
process. Run it on an otherwise idle machine.

Usage::

    .venv/bin/python benchmarks/thread_contention.py --rounds 3 --json /tmp/contention.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SETTINGS = {
    "openmp-default": ({"GOMP_SPINCOUNT": "300000"}, 2),
    "silkvision": ({}, 2),
    "passive": ({"OMP_WAIT_POLICY": "PASSIVE"}, 2),
    "1-thread": ({}, 1),
}


def child(frames: int, repeats: int, threads: int) -> dict:
    """Median fps of SILK's and MOG2's ``apply`` in this process."""
    import cv2
    import numba
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from detector_speed import DEFAULT_DATA, load_frames

    from silkvision.detector.silk import SilkSubtractor

    numba.set_num_threads(threads)
    cv2.setNumThreads(threads)
    fr = load_frames(DEFAULT_DATA, frames + 50, None)
    silk = SilkSubtractor()
    mog2 = cv2.createBackgroundSubtractorMOG2(detectShadows=False)
    out = np.empty(fr[0].shape[:2], np.uint8)
    for f in fr[:50]:
        silk.apply(f, fgmask=out)
        mog2.apply(f)
    fps = {"silk": [], "mog2": []}
    for _ in range(repeats):
        t = time.perf_counter()
        for f in fr[50:]:
            silk.apply(f, fgmask=out)
        fps["silk"].append(frames / (time.perf_counter() - t))
        t = time.perf_counter()
        for f in fr[50:]:
            mog2.apply(f)
        fps["mog2"].append(frames / (time.perf_counter() - t))
    from silkvision.jit import threading_layer

    layer, vendor = threading_layer()  # GOMP_SPINCOUNT acts on the omp layer with GNU OpenMP only
    return {
        **{k: statistics.median(v) for k, v in fps.items()},
        "layer": f"{layer} ({vendor})" if vendor else layer,
    }


def run_cell(setting: str, frames: int, repeats: int) -> dict:
    extra, threads = SETTINGS[setting]
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(extra)
    cmd = [
        sys.executable,
        __file__,
        "--child",
        "--frames",
        str(frames),
        "--repeats",
        str(repeats),
        "--threads",
        str(threads),
    ]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"thread_contention: {setting} failed: {res.stderr.strip().splitlines()[-1:]}")
    return json.loads(res.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=350)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--busy", type=int, default=2, help="CPU-bound processes in the 'busy' phase")
    ap.add_argument("--threads", type=int, default=2, help=argparse.SUPPRESS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if a.child:
        print(json.dumps(child(a.frames, a.repeats, a.threads)))
        return 0
    cells = {(load, s): [] for load in ("idle", "busy") for s in SETTINGS}
    for r in range(a.rounds):
        for load in ("idle", "busy"):
            hogs = [
                subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(a.busy if load == "busy" else 0)
            ]
            try:
                time.sleep(1.0 if hogs else 0.0)
                for s in SETTINGS:
                    cells[(load, s)].append(run_cell(s, a.frames, a.repeats))
                    print(
                        f"round {r + 1} {load:4s} {s:15s} silk {cells[(load, s)][-1]['silk']:6.0f} fps, "
                        f"mog2 {cells[(load, s)][-1]['mog2']:6.0f} fps",
                        flush=True,
                    )
            finally:
                for h in hogs:
                    h.kill()
                    h.wait()
    layers = sorted({c["layer"] for v in cells.values() for c in v})
    print(
        f"\nmachine: {os.cpu_count()} cores visible; numba threading layer {', '.join(layers)}; medians "
        f"over {a.rounds} rounds ({a.busy} busy processes in 'busy')\n"
    )
    print("| load | setting | silk fps | mog2 fps | silk / mog2 |")
    print("|---|---|---|---|---|")
    table = []
    for (load, s), v in cells.items():
        silk = statistics.median(c["silk"] for c in v)
        mog2 = statistics.median(c["mog2"] for c in v)
        table.append({"load": load, "setting": s, "silk_fps": silk, "mog2_fps": mog2, "rounds": v})
        print(f"| {load} | {s} | {silk:.0f} | {mog2:.0f} | {silk / mog2:.2f} |")
    if a.json:
        a.json.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
