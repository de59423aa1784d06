"""A strong-wind foliage scene made from Wallflower's WavingTrees, to measure absorption of swaying
leaves: the error class on which the detector collapsed on CDnet's dynamicBackground tree scene,
which is not in the shared data.

How the scene is made (fixed before any detector ran on it; deterministic, seed 0):

* background: WavingTrees frames 1-241 (no foreground), played forwards then backwards to
  ``--frames`` frames;
* wind: every frame is resampled (``cv2.remap``, bilinear, reflected border) through a smooth
  random displacement field: white noise per pixel and axis, Gaussian-blurred (sigma 4 px), scaled
  to ``--amplitude`` px of standard deviation, and correlated in time (``d_t = 0.5 d_{t-1} +
  0.87 n_t``). Flat sky and wall are unchanged by it; the leaves, branches and edges move by a
  few pixels every frame, so a pixel sees several different colours in turn;
* a walking person: the hand-segmented person of frame 248 (its ground-truth mask), scaled to half
  size, crosses the frame left to right and back at 2 px a frame from frame ``--frames // 2`` on.
  The person is pasted after the wind (it does not sway); its mask is the ground truth.

Reported per detector (the mask chain is SILK's default: median 5, closing 5, hole filling):
the share of pixels marked foreground in the frames of the second half outside the person's mask
(``fg share``, lower is better: leaves absorbed) and the F-measure of the second half against the
pasted person (``F``). SILK's default and variants through ``silkvision``; MOG2 and KNN from
OpenCV; with ``--peers`` (run in the peers venv, see ``peer_detectors.py``) SuBSENSE, PAWCS, PBAS.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/foliage_stress.py --amplitude 3
    ../peers-venv/bin/python benchmarks/foliage_stress.py --amplitude 3 --only subsense pawcs
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from video_data import VIDEO_ROOT  # noqa: E402

SEQ = "wallflower_WavingTrees"
EMPTY_LAST = 241
GT_FRAME = 248


def load_trees(root: Path) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Empty frames 1-241, frame 248 and its person mask (one line when the data is missing)."""
    d = root / SEQ
    if not d.is_dir():
        sys.exit(f"{d}: not found; expected the shared data's {SEQ} sequence")
    frames = [cv2.imread(str(d / "input" / f"in{i:06d}.jpg")) for i in range(1, EMPTY_LAST + 1)]
    person = cv2.imread(str(d / "input" / f"in{GT_FRAME:06d}.jpg"))
    gt = cv2.imread(str(d / "groundtruth" / f"gt{GT_FRAME:06d}.png"), cv2.IMREAD_GRAYSCALE)
    return frames, person, gt


def make_scene(frames, person, gt, total: int, amplitude: float, seed: int = 0, scale: float = 1.0):
    """Yield ``(frame, truth)``: the windy background with the walking person pasted in; ``truth``
    is the person's 0/255 mask (all 0 before ``total // 2``)."""
    rng = np.random.default_rng(seed)
    H, W = frames[0].shape[:2]
    ys, xs = np.nonzero(gt > 127)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    patch = cv2.resize(person[y0:y1, x0:x1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    pmask = cv2.resize(gt[y0:y1, x0:x1], None, fx=0.5, fy=0.5, interpolation=cv2.INTER_NEAREST) > 127
    ph, pw = pmask.shape
    py = H - ph - 4
    gx, gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    field = np.zeros((2, H, W), np.float32)
    period = list(range(EMPTY_LAST)) + list(range(EMPTY_LAST - 2, 0, -1))
    span = W - pw
    for t in range(total):
        noise = rng.standard_normal((2, H, W)).astype(np.float32)
        for a in range(2):
            noise[a] = cv2.GaussianBlur(noise[a], (0, 0), 4.0)
            noise[a] *= amplitude / max(float(noise[a].std()), 1e-6)
        field = 0.5 * field + np.float32(np.sqrt(0.75)) * noise
        bg = frames[period[t % len(period)]]
        frame = cv2.remap(bg, gx + field[0], gy + field[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        truth = np.zeros((H, W), np.uint8)
        if t >= total // 2:
            step = 2 * (t - total // 2)
            px = step % (2 * span)
            px = px if px < span else 2 * span - px
            region = frame[py : py + ph, px : px + pw]
            region[pmask] = patch[pmask]
            truth[py : py + ph, px : px + pw][pmask] = 255
        if scale != 1.0:
            frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
            truth = cv2.resize(truth, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
        yield frame, truth


def detector(name: str):
    """``apply(frame) -> (raw mask, post-processed mask or None)`` for ``name``: ``silk``, a JSON
    configuration of ``detector_loo.py`` (``'{"sigma": 12}'``), mog2, knn or a pybgs peer."""
    if name == "silk" or name.startswith("{"):
        from detector_loo import make_detector

        det = make_detector(json.loads(name) if name.startswith("{") else {})

        def apply_silk(frame):
            post = det.apply(frame)
            return det._raw, post

        return apply_silk
    if name in ("mog2", "knn"):
        det = cv2.createBackgroundSubtractorMOG2() if name == "mog2" else cv2.createBackgroundSubtractorKNN()
        det.setDetectShadows(False)
    else:
        from peer_detectors import PEERS, make_peer

        if name not in PEERS:
            sys.exit(
                f"--only: unknown detector {name!r}; expected silk, a JSON configuration, mog2, knn or one of {', '.join(PEERS)}"
            )
        det = make_peer(name)
    return lambda frame: (det.apply(frame), None)


def measure(name: str, root: Path, total: int, amplitude: float, scale: float = 1.0) -> dict:
    from silkvision.detector.postprocess import MaskFilter
    from silkvision.evaluation import Counts, confusion_counts, metrics

    frames, person, gt = load_trees(root)
    apply = detector(name)
    chain = MaskFilter(median=5, close=5, fill_holes=True)
    out = None
    fg = {"raw": 0, "chain": 0}
    bg_pixels = 0
    counts = {"raw": Counts(0, 0, 0, 0), "chain": Counts(0, 0, 0, 0)}
    t0 = time.process_time()
    for t, (frame, truth) in enumerate(make_scene(frames, person, gt, total, amplitude, scale=scale)):
        raw, post = apply(frame)
        raw = (raw > 127).astype(np.uint8) * 255
        if t < total // 2:
            continue
        if out is None:
            out = np.empty(raw.shape, np.uint8)
        post = chain(raw, out=out) if post is None else post
        outside = truth == 0
        bg_pixels += int(outside.sum())
        for k, m in (("raw", raw), ("chain", post)):
            fg[k] += int((m[outside] > 0).sum())
            counts[k] = counts[k] + confusion_counts(m, truth, None, name=name)
    return {
        "detector": name,
        "amplitude": amplitude,
        "scale": scale,
        "frames": total,
        "fg_share": {k: fg[k] / bg_pixels for k in fg},
        "f_measure": {k: metrics(c)["f_measure"] for k, c in counts.items()},
        "cpu_seconds": round(time.process_time() - t0, 1),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT)
    ap.add_argument("--frames", type=int, default=1200)
    ap.add_argument("--amplitude", type=float, default=3.0, help="wind: displacement std in pixels")
    ap.add_argument("--scale", type=float, default=1.0, help="resize the scene by this factor (3: 480x360)")
    ap.add_argument("--only", nargs="+", default=["silk", "mog2", "knn"])
    ap.add_argument("--json", type=Path, default=None, help="append the results (JSON lines) here")
    args = ap.parse_args(argv)
    print("| detector | wind (px) | fg share raw | fg share chain | F raw | F chain |")
    print("|---|---|---|---|---|---|")
    for name in args.only:
        r = measure(name, args.data, args.frames, args.amplitude, args.scale)
        print(
            f"| {name} | {args.amplitude:g} | {100 * r['fg_share']['raw']:.2f} % | "
            f"{100 * r['fg_share']['chain']:.2f} % | {r['f_measure']['raw']:.3f} | {r['f_measure']['chain']:.3f} |",
            flush=True,
        )
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
