"""Where the default SILK detector goes wrong on one CDnet sequence (a diagnosis, not a score).

For the frames inside ``temporalROI.txt`` (and ``ROI.bmp``) it reports, for the shipped defaults:

* false positives by ground-truth label (0 background, 50 hard shadow);
* missed foreground pixels (label 255) whose raw score is already >= the threshold (the model
  explains the colour) vs those lost only to the median filter, and how far the former are from the
  pixel's background colour (8-bit YCrCb distance to the per-pixel median of label-0 frames, every
  5th scored frame);
* the miss rate per block of 100 scored frames;
* with ``--miss-map PNG``, the per-pixel miss rate as an image (white = always missed).

Usage::

    .venv/bin/python benchmarks/detector_errors.py --sequence highway     # ~1 min on 2 cores
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detector_accuracy import DEFAULT_ROOT, load_sequence  # noqa: E402
from video_data import check_sequences  # noqa: E402

BANDS = (0, 8, 16, 24, 40, np.inf)  # distance bands of the explained misses


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sequence", default="highway")
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    ap.add_argument("--miss-map", type=Path, help="write the per-pixel miss rate here (PNG)")
    ap.add_argument(
        "--post",
        choices=("shipped", "median"),
        default="shipped",
        help="mask chain: the shipped one, or the 5x5 median only (the earlier chain, "
        "which the highway diagnosis in BENCHMARKS section 2 used)",
    )
    args = ap.parse_args(argv)
    import silkvision as sv

    check_sequences(args.root, [args.sequence])
    seq = load_sequence(args.root / args.sequence)
    roi = np.ones(seq.shape, bool) if seq.roi is None else seq.roi > 0
    scored = range(seq.first, seq.last + 1)
    ycc = lambda i: cv2.cvtColor(seq.frames[i - 1], cv2.COLOR_BGR2YCrCb).astype(np.float32)  # noqa: E731
    with np.errstate(invalid="ignore"):  # pixels never labelled background stay NaN
        bg = np.nanmedian(
            np.stack([np.where((seq.gt[i] == 0)[..., None], ycc(i), np.nan) for i in scored[::5]]), axis=0
        )
    det = sv.create_subtractor("silk", **({"close": 0, "fill_holes": False} if args.post == "median" else {}))
    thr = np.float32(det.threshold)
    fp = {0: 0, 50: 0}
    explained, lost_to_median, dist, blocks = 0, 0, [], []
    n_miss, n_pos = np.zeros(seq.shape), np.zeros(seq.shape)
    for i, frame in enumerate(seq.frames, start=1):
        mask = det.apply(frame)
        if i not in seq.gt or i < seq.first or i > seq.last:
            continue
        gt = seq.gt[i]
        for lab in fp:
            fp[lab] += int(np.count_nonzero((gt == lab) & roi & (mask > 0)))
        pos = (gt == 255) & roi
        miss = pos & (mask == 0)
        n_miss += miss
        n_pos += pos
        high = miss & (det.scores >= thr)
        explained += int(high.sum())
        lost_to_median += int((miss & ~high).sum())
        dist.append(np.sqrt(((ycc(i) - bg) ** 2).sum(-1))[high])
        blocks.append((i, int(miss.sum()), int(pos.sum())))
    dist = np.concatenate(dist)
    print(f"{args.sequence}: default SILK, frames {seq.first}-{seq.last}")
    print(f"false positives: label 50 (shadow) {fp[50]}, label 0 {fp[0]}")
    print(
        f"misses: {explained + lost_to_median} ({explained} with score >= {thr:g}, "
        f"{lost_to_median} below it but removed by the mask post-processing)"
    )
    for lo, hi in zip(BANDS[:-1], BANDS[1:]):
        print(
            f"  explained misses at YCrCb distance [{lo}, {hi}) from the background colour: "
            f"{int(((dist >= lo) & (dist < hi)).sum())}"
        )
    print(f"  (no background colour known: {int(np.isnan(dist).sum())})")
    b = np.array(blocks)
    for k in range(0, len(b), 100):
        part = b[k : k + 100]
        print(
            f"  miss rate, frames {part[0, 0]}-{part[-1, 0]}: {part[:, 1].sum() / max(1, part[:, 2].sum()):.3f}"
        )
    if args.miss_map:
        rate = n_miss / np.maximum(n_pos, 1)
        cv2.imwrite(str(args.miss_map), (rate * 255).astype(np.uint8))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
