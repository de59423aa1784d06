"""SILK configurations on development sequences upscaled to about 720x540: what the per-pixel
kernel width and the size of the mask chain's windows do on larger frames, where a 5x5 median
removes less of the flicker and noise than at 320x240.

Frames are resized with ``INTER_LINEAR``, ground truth and ROI with ``INTER_NEAREST``; CDnet rules
over the sequence's temporal ROI; every configuration (``--configs``: a JSON list of SILK
overrides, ``{}`` = the default) in lockstep in one process.

    NUMBA_NUM_THREADS=2 .venv/bin/python benchmarks/upscaled_sequences.py traffic highway --factor 2.25
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent))

from detector_accuracy import load_sequence  # noqa: E402
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402


def score(name: str, root: Path, factor: float, configs: list[dict]) -> dict:
    from silkvision.detector.silk import SilkSubtractor
    from silkvision.evaluation import Counts, confusion_counts, metrics

    seq = load_sequence(root / name)
    dets = [SilkSubtractor(**c) for c in configs]
    counts = [Counts(0, 0, 0, 0) for _ in dets]

    def up(a, interp):
        return cv2.resize(a, None, fx=factor, fy=factor, interpolation=interp)

    roi = None if seq.roi is None else up(seq.roi, cv2.INTER_NEAREST)
    size = None
    for i, frame in enumerate(seq.frames, start=1):
        big = up(frame, cv2.INTER_LINEAR)
        size = big.shape[1::-1]
        gt = seq.gt.get(i) if seq.first <= i <= seq.last else None
        gt = None if gt is None else up(gt, cv2.INTER_NEAREST)
        for k, det in enumerate(dets):
            mask = det.apply(big)
            if gt is not None:
                counts[k] = counts[k] + confusion_counts(mask, gt, roi)
    return {"size": size, "f": [metrics(c)["f_measure"] for c in counts]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sequences", nargs="+")
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT)
    ap.add_argument("--factor", type=float, default=2.25, help="resize factor (2.25: 320x240 -> 720x540)")
    ap.add_argument(
        "--configs",
        default='[{}, {"width_gain": 0.0}]',
        help="JSON list of SILK overrides; {} is the default",
    )
    ap.add_argument("--json", type=Path, default=None, help="append the results (JSON lines) here")
    args = ap.parse_args(argv)
    try:
        configs = json.loads(args.configs)
        assert isinstance(configs, list) and all(isinstance(c, dict) for c in configs)
    except (ValueError, AssertionError):
        sys.exit(f"--configs: {args.configs!r} is not a JSON list of objects")
    check_sequences(args.data, args.sequences)
    names = [json.dumps(c, sort_keys=True) for c in configs]
    print("| sequence | size | " + " | ".join(f"`{n}`" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    for name in args.sequences:
        r = score(name, args.data, args.factor, configs)
        cells = " | ".join(f"{f:.4f}" for f in r["f"])
        print(f"| {name} | {r['size'][0]}x{r['size'][1]} | {cells} |", flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(
                    json.dumps({"sequence": name, "factor": args.factor, "f": dict(zip(names, r["f"]))})
                    + "\n"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
