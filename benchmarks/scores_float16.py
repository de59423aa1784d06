"""What the float16 scores files of ``export --scores`` lose (the README's figures).

Runs the default SILK detector over the shipped sample and, on its evaluated frames (100-400),
compares the detector's own float32 decision ``score < threshold`` with the same decision taken on
the scores rounded to float16, as a ``scores%06d.npz`` file holds them: read back in float32 (as
the README says to) and compared in float16 (NumPy then rounds the threshold too). It also gives
the AUC of both against the sample's ground truth, on the same ROC bins.

    .venv/bin/python benchmarks/scores_float16.py
"""

from __future__ import annotations

import argparse

import numpy as np

import silkvision as sv
from silkvision.capture import open_source
from silkvision.evaluation.roc import RocAccumulator


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threshold", type=float, default=None, help="default: the detector's own")
    args = ap.parse_args(argv)
    det = sv.create_subtractor("silk")
    thr = det.threshold if args.threshold is None else args.threshold
    roc32 = RocAccumulator(*det.score_range, thresholds=(thr,))
    roc16 = RocAccumulator(*det.score_range, thresholds=(thr,))
    n32 = n16 = frames = near = 0
    with open_source(sv.samples.highway()) as src:
        first, last = src.temporal_roi
        for index, frame in src:
            det.apply(frame)
            if not first <= index <= last:
                continue
            s = det.scores
            h = s.astype(np.float16)
            own = s < thr
            moved = own != (h.astype(np.float32) < thr)
            n32 += int(moved.sum())
            n16 += int((own != (h < np.float16(thr))).sum())
            near = max(near, float(np.abs(s[moved] - thr).max(initial=0)))
            frames += 1
            gt = src.groundtruth(index)
            if gt is not None:
                roc32.update(s, gt, src.roi)
                roc16.update(h.astype(np.float32), gt, src.roi)
    print(f"{frames} evaluated frames, threshold {thr}")
    print(f"pixels whose decision differs, float16 read back as float32: {n32} (all within {near:.2g} of it)")
    print(f"pixels whose decision differs, compared in float16:          {n16}")
    if roc32.frames:
        print(f"AUC float32 {roc32.auc():.9f}, from float16 {roc16.auc():.9f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
