"""SILK refinements measured on the training sequences only; all but ``morphology`` were NOT shipped.

Each leaves the shipped defaults (section 2 of ``docs/BENCHMARKS.md``) as they are and changes one
thing; the objective is the one the defaults were chosen by (mean CDnet F over the five training
sequences, default threshold, 5x5 median). Highway is read only with ``--sequences highway``, after a
training-chosen setting exists.

``shadow``
    Shadow suppression inside the kernel sum (brightness/chromaticity distortion of Horprasert et
    al., 1999, the test OpenCV's MOG2 uses): with centred YCrCb features x and support vectors b_i,
    r_i = <x, b_i> / |b_i|^2 and cd_i^2 = |x - r_i b_i|^2, the shadow score is
    sum_i alpha_i exp(-cd_i^2 / (2 sigma_c^2)) [lo <= r_i <= 1], and the reported score becomes
    max(score, shadow score): a darker version of a learned colour counts as background. Learning is
    unchanged (the scores that drive the conservative cap are the plain ones). CDnet counts hard
    shadows (label 50) as background, so this can only help where shadows are detected.
``filtered``
    The conservative cap follows the detector's OUTPUT mask (after the median), one frame later, as
    ViBe and SuBSENSE update their models from the post-processed segmentation: after each frame,
    pixels in the filtered mask count as "foreground this frame" for ``hold``.
``learn_threshold``
    The conservative cap (and ``hold``) follows its own threshold theta_c instead of the output
    threshold: a colour scored in [threshold, theta_c) is still learned at the small cap. Meant to stop
    a car colour that is already half-explained from being learned at the full cap.
``forgetting``
    Running-average forgetting early on, as MOG2's learning rate 1/t: the decay of frame t (0-based,
    learned frames) is max(tau, g / (t + 2)), during the warm-up only or until it meets tau. With
    g = 1 the first frames' coefficients shrink like a running mean, so colours learned while the
    model was still empty (passing cars) fade by the end of the warm-up.
``median``
    Larger median windows than the calibration's grid (0, 3, 5): 7, 9, 11 (the box-count median of
    :func:`~silkvision.detector.postprocess.median_mask`, which costs the same at any size).
``morphology``
    CDnet-style post-processing of the output mask after the 5x5 median (SuBSENSE and PAWCS close
    and fill their masks): a closing with a ``k`` x ``k`` ellipse, then holes of at most ``a``
    pixels filled (:func:`skimage.morphology.remove_small_holes`). Aimed at the misses *inside* an
    object whose colour the pixel model already explains. A hole is a background region that does not
    touch the image border; ``a`` = -1 fills every hole. Learning is unchanged (the cap follows the
    raw mask), so one detector run serves the whole grid. SHIPPED as ``detector.close = 5``,
    ``detector.fill_holes = true``: the training optimum of the grids below; here the detector's own
    closing/filling are switched off so that the grid's apply instead.

Usage::

    .venv/bin/python benchmarks/detector_variants.py --variant shadow --json /tmp/shadow.json
    .venv/bin/python benchmarks/detector_variants.py --variant filtered --json /tmp/filtered.json
    .venv/bin/python benchmarks/detector_variants.py --variant learn_threshold --learn-threshold 0.45,0.6,0.8
    .venv/bin/python benchmarks/detector_variants.py --variant forgetting --gain 0.1,0.25,0.5,1
    .venv/bin/python benchmarks/detector_variants.py --variant median
    .venv/bin/python benchmarks/detector_variants.py --variant morphology --close 0,3,5,7,9 --holes 0,64,256,1024,4096,16384,-1
    .venv/bin/python benchmarks/detector_variants.py --variant morphology --close 5 --holes -1 --threshold 0.35,0.4,0.45,0.5,0.55
    .venv/bin/python benchmarks/detector_variants.py --variant morphology --close 3,5,7 --holes -1 --median 0,3,5,7
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detector_accuracy import DEFAULT_ROOT, TUNING, _f, load_sequence  # noqa: E402
from video_data import check_sequences  # noqa: E402

SHADOW_LO = (0.3, 0.5, 0.7, 0.8)  # --lo
SHADOW_SIGMA_C = (1.5, 4.0, 8.0)  # --sigma-c
FILTERED_GRID = [("raw", 1), ("filtered", 1), ("filtered", 2), ("raw", 2)]  # (mode, hold)
LEARN_THRESHOLDS = (0.45, 0.6, 0.8)  # --learn-threshold (0.45 = the shipped threshold)
GAINS = (0.1, 0.25, 0.5, 1.0)  # --gain of the forgetting variant
MEDIAN_SIZES = (0, 3, 5, 7, 9, 11)
CLOSE_SIZES = (0, 3, 5, 7)  # --close of the morphology variant
HOLE_AREAS = (0, 64, 256, 1024, 4096, 16384, -1)  # --holes of the morphology variant
#: the earlier mask chain (5x5 median only), which the variants other than ``morphology`` were
#: measured with; keeping it reproduces their tables in BENCHMARKS section 2
MEDIAN_ONLY = {"close": 0, "fill_holes": False}
_OFF = np.array([0, 128, 128], np.float32)[None, None, :, None]  # YCrCb offsets, (1, 1, 3, 1)


def _shadow_scores(det, frame, grid) -> dict:
    """Shadow score of every pixel under the detector's CURRENT model, for each (lo, sigma_c)."""
    b = det._colours.astype(np.float32) - _OFF  # (H, omega, 3, W)
    a = det._alphas * np.float32(det._scale)  # true coefficients
    x = cv2.cvtColor(frame, cv2.COLOR_BGR2YCrCb).astype(np.float32).transpose(0, 2, 1)[:, None] - _OFF
    bb, xb, xx = (b * b).sum(2), (x * b).sum(2), (x * x).sum(2)
    r = np.where(bb > 0, xb / np.maximum(bb, 1e-6), 0)
    cd2 = np.maximum(xx - r * xb, 0)  # |x - r b|^2
    out = {}
    for lo, sc in grid:
        w = a * np.exp(cd2 * np.float32(-0.5 / sc**2)) * ((r >= lo) & (r <= 1.0))
        out[(lo, sc)] = w.sum(1).astype(np.float32)
    return out


def _morphology(mask, close, holes):
    """Closing with a close x close ellipse, then enclosed holes of <= holes pixels filled.

    A hole is a background component that does not touch the image border; ``holes`` 0 leaves them,
    -1 fills every hole (:func:`scipy.ndimage.binary_fill_holes`).
    """
    if close:
        mask = cv2.morphologyEx(
            mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close))
        )
    if holes:
        from scipy.ndimage import binary_fill_holes

        filled = binary_fill_holes(mask > 0)
        if holes > 0:
            from skimage.morphology import remove_small_objects

            filled &= ~remove_small_objects(filled & (mask == 0), max_size=holes)
        mask = filled.view(np.uint8) * np.uint8(255)
    return mask


def _variant_detector(learn_threshold=None, gain=0.0, scope="warmup"):
    """A SilkSubtractor with the learn_threshold / forgetting change (None / 0: the shipped one)."""
    from silkvision.detector.silk import SilkSubtractor

    class Variant(SilkSubtractor):
        def _decay(self):
            tau = self._p["tau"]
            if gain and not (scope == "warmup" and self._frames >= self._p["warmup"]):
                tau = max(tau, gain / (self._frames + 2))
            return 1.0 - tau

        def kernel_args(self, learn):
            args = super().kernel_args(learn)
            if learn_threshold is None:
                return args
            # the kernel's threshold then drives only the cap; _run redoes the mask
            return args[:6] + (np.float32(learn_threshold),) + args[7:]

        def _run(self, feat, learn):
            super()._run(feat, learn)
            if learn_threshold is not None:
                np.copyto(
                    self._raw, (self._scores < np.float32(self.threshold)).view(np.uint8) * np.uint8(255)
                )

    return Variant(**MEDIAN_ONLY)


def run(task):
    """Pooled CDnet confusion counts {configuration: Counts} of one variant on one sequence."""
    import numba

    from silkvision.detector.postprocess import NO_POSTPROCESSING, median_mask
    from silkvision.detector.silk import SilkSubtractor
    from silkvision.evaluation import Counts, confusion_counts

    numba.set_num_threads(1)
    cv2.setNumThreads(1)
    variant, root, name, grid = task
    seq = load_sequence(Path(root) / name)
    counts = {}

    def add(key, mask, gt):
        counts[key] = counts.get(key, Counts()) + confusion_counts(mask, gt, seq.roi)

    if variant == "shadow":
        det = SilkSubtractor(**MEDIAN_ONLY)
        assert det.colour_space == "ycrcb", "the shadow test is written for YCrCb features"
        thr = np.float32(det.threshold)
        for i, frame in enumerate(seq.frames, start=1):
            gt = seq.gt.get(i)
            sh = _shadow_scores(det, frame, grid) if gt is not None else None
            mask = det.apply(frame)
            if gt is None:
                continue
            add("defaults", mask, gt)
            for key, s in sh.items():
                raw = (np.maximum(det.scores, s) < thr).view(np.uint8) * np.uint8(255)
                add(key, median_mask(raw, det.median), gt)
    elif variant in ("learn_threshold", "forgetting"):
        for v in grid:
            if variant == "learn_threshold":
                key, det = ("learn_threshold", v), _variant_detector(learn_threshold=v)
            else:
                key, det = ("gain",) + v, _variant_detector(gain=v[0], scope=v[1])
            for i, frame in enumerate(seq.frames, start=1):
                mask = det.apply(frame)
                if i in seq.gt:
                    add(key, mask, seq.gt[i])
    elif variant == "median":
        det = SilkSubtractor(**NO_POSTPROCESSING)
        for i, frame in enumerate(seq.frames, start=1):
            raw = det.apply(frame)
            if i in seq.gt:
                for m in grid:
                    add(("median", m), median_mask(raw, m), seq.gt[i])
    elif variant == "morphology":
        for thr in sorted({g[2] for g in grid}, key=lambda t: -1.0 if t is None else t):
            # the detector's own closing/filling off: the grid's follow its median-filtered mask
            det = SilkSubtractor(**NO_POSTPROCESSING, **({} if thr is None else {"threshold": thr}))
            for i, frame in enumerate(seq.frames, start=1):
                raw = det.apply(frame)
                if i in seq.gt:
                    for k, a, t, m in grid:
                        if t == thr:
                            key = (
                                ("close", k, "holes", a)
                                + (() if t is None else ("threshold", t))
                                + (() if m == 5 else ("median", m))
                            )
                            add(key, _morphology(median_mask(raw, m), k, a), seq.gt[i])
    else:
        for mode, hold in FILTERED_GRID:
            det = SilkSubtractor(hold=hold, **MEDIAN_ONLY)
            for i, frame in enumerate(seq.frames, start=1):
                mask = det.apply(frame)
                if mode == "filtered":
                    det._extra["since"][mask == 255] = 0  # the kernel's "frames since foreground"
                gt = seq.gt.get(i)
                if gt is not None:
                    add((mode, hold), mask, gt)
    return name, counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--variant",
        choices=("shadow", "filtered", "learn_threshold", "forgetting", "median", "morphology"),
        required=True,
    )
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--lo", default=",".join(map(str, SHADOW_LO)), help="shadow: lowest brightness ratios")
    ap.add_argument(
        "--sigma-c",
        default=",".join(map(str, SHADOW_SIGMA_C)),
        help="shadow: kernel widths of the chromaticity distortion (8-bit units)",
    )
    ap.add_argument(
        "--learn-threshold",
        default=",".join(map(str, LEARN_THRESHOLDS)),
        help="learn_threshold: thresholds of the conservative cap",
    )
    ap.add_argument("--gain", default=",".join(map(str, GAINS)), help="forgetting: gains g")
    ap.add_argument("--scope", default="warmup,always", help="forgetting: 'warmup' and/or 'always'")
    ap.add_argument("--close", default=",".join(map(str, CLOSE_SIZES)), help="morphology: closing sizes")
    ap.add_argument(
        "--holes", default=",".join(map(str, HOLE_AREAS)), help="morphology: largest holes filled"
    )
    ap.add_argument("--median", default="5", help="morphology: median sizes before the closing")
    ap.add_argument(
        "--threshold",
        default="default",
        help="morphology: detector thresholds ('default' = the shipped one; each is a run)",
    )
    ap.add_argument(
        "--sequences",
        default=",".join(TUNING),
        help="comma-separated sequences (default: the five training sequences)",
    )
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.sequences.split(",") if n.strip()]
    check_sequences(args.root, names)
    grid = {
        "shadow": [(float(lo), float(sc)) for lo in args.lo.split(",") for sc in args.sigma_c.split(",")],
        "learn_threshold": [float(v) for v in args.learn_threshold.split(",")],
        "forgetting": [(float(g), sc) for sc in args.scope.split(",") for g in args.gain.split(",")],
        "median": list(MEDIAN_SIZES),
        "morphology": [
            (int(k), int(a), None if t == "default" else float(t), int(m))
            for k in args.close.split(",")
            for a in args.holes.split(",")
            for t in args.threshold.split(",")
            for m in args.median.split(",")
        ],
    }.get(args.variant)
    t0 = time.time()
    tasks = [(args.variant, str(args.root), n, grid) for n in names]
    with mp.get_context("fork").Pool(args.processes) as pool:
        res = dict(pool.map(run, tasks, chunksize=1))
    table = {}
    for name, counts in res.items():
        for key, c in counts.items():
            table.setdefault(str(key), {})[name] = _f(c)
    print("| configuration | mean F | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for key, per in table.items():
        print(
            f"| {key} | {np.mean([per[n] for n in names]):.4f} | "
            + " | ".join(f"{per[n]:.4f}" for n in names)
            + " |"
        )
    print(f"({time.time() - t0:.0f} s wall)")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
