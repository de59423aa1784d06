"""SILK with and without its per-pixel kernel width on development sequences upscaled to about
720x540: does the width change what it does on larger frames, where the 5x5 median removes less
of the flicker?

Frames are resized with ``INTER_LINEAR``, ground truth and ROI with ``INTER_NEAREST``; CDnet rules
over the sequence's temporal ROI; both detectors in lockstep in one process.

    NUMBA_NUM_THREADS=2 .venv/bin/python benchmarks/upscaled_sequences.py traffic highway --factor 2.25
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from detector_accuracy import load_sequence  # noqa: E402
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402


def score(name: str, root: Path, factor: float) -> dict:
    from silkvision.detector.silk import SilkSubtractor
    from silkvision.evaluation import Counts, confusion_counts, metrics

    seq = load_sequence(root / name)
    dets = {"width": SilkSubtractor(), "one width": SilkSubtractor(width_gain=0.0)}
    counts = {k: Counts(0, 0, 0, 0) for k in dets}

    def up(a, interp):
        return cv2.resize(a, None, fx=factor, fy=factor, interpolation=interp)

    roi = None if seq.roi is None else up(seq.roi, cv2.INTER_NEAREST)
    size = None
    for i, frame in enumerate(seq.frames, start=1):
        big = up(frame, cv2.INTER_LINEAR)
        size = big.shape[1::-1]
        gt = seq.gt.get(i) if seq.first <= i <= seq.last else None
        gt = None if gt is None else up(gt, cv2.INTER_NEAREST)
        for k, det in dets.items():
            mask = det.apply(big)
            if gt is not None:
                counts[k] = counts[k] + confusion_counts(mask, gt, roi)
    return {"size": size, **{k: metrics(c)["f_measure"] for k, c in counts.items()}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sequences", nargs="+")
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT)
    ap.add_argument("--factor", type=float, default=2.25, help="resize factor (2.25: 320x240 -> 720x540)")
    args = ap.parse_args(argv)
    check_sequences(args.data, args.sequences)
    print("| sequence | size | F, width (default) | F, one width |")
    print("|---|---|---|---|")
    for name in args.sequences:
        r = score(name, args.data, args.factor)
        print(
            f"| {name} | {r['size'][0]}x{r['size'][1]} | {r['width']:.4f} | {r['one width']:.4f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
