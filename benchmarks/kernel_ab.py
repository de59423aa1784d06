"""Lockstep A/B of the per-pixel kernels: an earlier revision's ``detector/kernels.py`` against the
working tree's, on ONE detector.

Both kernel modules drive the same detector object, in alternating blocks of frames (the order
flips every repeat), so they update the same state arrays. Timing two detector objects instead
is biased: the same code measured 0.78-0.91x against itself in such an A/A run, depending only on
where each object's 30 MB of state landed in memory. The kernels give bit-identical results
(checked at the end), so which one ran a block does not change the next block's input.

The report is the median fps of each side and the paired ratio (new / old, per repeat): its median
and range. ``--aa`` compares the old revision with itself to show the harness's own spread.

Usage::

    .venv/bin/python benchmarks/kernel_ab.py --rev f32b7a7 --threads 1 --repeats 21
    .venv/bin/python benchmarks/kernel_ab.py --rev f32b7a7 --threads 2 --detector norma
    .venv/bin/python benchmarks/kernel_ab.py --rev f32b7a7 --aa

Needs git (to read the old file) and ``../shared/data/video/highway`` (or ``--data DIR`` with a
CDnet-layout ``input/`` folder).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numba
import numpy as np

import silkvision as sv
import silkvision.detector.norma as norma_module
import silkvision.detector.pixel as pixel_module
import silkvision.detector.silk as silk_module
from silkvision.detector import kernels as current

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ROOT  # noqa: E402

DEFAULT_DATA = VIDEO_ROOT / "highway"


def load_old_kernels(rev: str, tag: str):
    """Import ``silkvision/detector/kernels.py`` of ``rev`` as a module of its own (a file in a
    per-revision temporary folder, so numba caches its compiled code there)."""
    src = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{rev}:silkvision/detector/kernels.py"],
        capture_output=True,
        text=True,
    )
    if src.returncode != 0:
        sys.exit(f"kernel_ab: cannot read kernels.py at {rev!r}: {src.stderr.strip()}")
    folder = Path(tempfile.gettempdir()) / "silkvision-kernel-ab" / rev
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"kernels_{tag}.py"
    if not path.exists() or path.read_text() != src.stdout:
        path.write_text(src.stdout)
    spec = importlib.util.spec_from_file_location(f"kernels_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache refers to the module by name
    spec.loader.exec_module(module)
    for name in ("silk_frame", "norma_frame", "renormalise"):  # revisions before the serial twins
        if not hasattr(module, name + "_serial"):
            setattr(module, name + "_serial", getattr(module, name))
    return module


def _use(module) -> None:
    """Make the detectors call ``module``'s kernels (silk.py, norma.py and their base in pixel.py
    each import them)."""
    silk_module._k = module
    norma_module._k = module
    pixel_module._k = module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", required=True, help="git revision whose kernels.py is the baseline")
    ap.add_argument("--aa", action="store_true", help="compare the baseline with itself")
    ap.add_argument("--detector", choices=("silk", "norma"), default="silk")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--block", type=int, default=100, help="frames per timed block")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = ap.parse_args(argv)

    files = sorted((args.data / "input").glob("*.jpg"))[:600]
    if len(files) < args.block + 20:
        sys.exit(f"kernel_ab: need at least {args.block + 20} frames under {args.data}/input")
    frames = [cv2.imread(str(f)) for f in files]
    numba.set_num_threads(args.threads)
    old = load_old_kernels(args.rev, "a")
    new = load_old_kernels(args.rev, "b") if args.aa else current
    sides = {"old": old, "new": new}
    # the kernels alone: no mask post-processing (it is not in kernels.py)
    det = sv.create_subtractor(args.detector, median=0, close=0, fill_holes=False)
    for module in sides.values():  # compile / load, and warm up
        _use(module)
        for f in frames[:20]:
            det.apply(f)
    fps = {"old": [], "new": []}
    start = 20
    try:
        for rep in range(args.repeats):
            for side in ("old", "new") if rep % 2 == 0 else ("new", "old"):
                _use(sides[side])
                if start + args.block > len(frames):
                    start = 20
                block = frames[start : start + args.block]
                start += args.block
                t = time.perf_counter()
                for f in block:
                    det.apply(f)
                fps[side].append(len(block) / (time.perf_counter() - t))
        # the same results: one more frame through each side from copies of the same state
        state = det.get_state()
        out = {}
        for side, module in sides.items():
            _use(module)
            det.set_state(state)
            det.apply(frames[-1])
            out[side] = (det.scores.copy(), det.get_state())
    finally:
        _use(current)
    same = np.array_equal(out["old"][0], out["new"][0]) and all(
        np.array_equal(np.asarray(out["old"][1][k]), np.asarray(out["new"][1][k])) for k in out["old"][1]
    )
    ratio = np.array(fps["new"]) / np.array(fps["old"])
    label = f"{args.rev} vs itself" if args.aa else f"{args.rev} -> working tree"
    print(
        f"{args.detector}, {args.threads} thread(s), {args.repeats} repeats of {args.block} frames, {label}"
    )
    print(
        f"  old {np.median(fps['old']):.0f} fps, new {np.median(fps['new']):.0f} fps; paired new/old "
        f"median {np.median(ratio):.3f} [{ratio.min():.3f}, {ratio.max():.3f}]; same results: {same}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
