"""How many support vectors a SILK pixel must sum before the rest cannot change its mask or model.

The bound behind an "early exit" kernel. Every term alpha_i k(x_i, x) is >= 0, so once a pixel's
partial sum s reaches ``max(threshold, (rho - alpha_min) / (1 - tau))`` it is background and its new
coefficient ``clip(rho - (1 - tau) s, 0, cap)`` is not above its lowest one (no insertion): the
remaining slots cannot change the mask or the state. This script runs the default detector over a
sequence, then for some frames reports the fractions of pixels scored foreground, with a new
coefficient of 0 and that insert one (computed with the larger cap), and counts, per pixel, the
slots summed until that point is reached:

* ``alpha order``: slots sorted by coefficient, largest first (the order a kernel can keep, since
  with the global decay scale the order only changes at an insertion);
* ``oracle order``: slots sorted by this frame's terms alpha_i k(x_i, x), largest first (no kernel
  can know it beforehand: the lower bound for any fixed order);
* ``blocks of B``: the alpha order, where a block of B neighbouring pixels (a vector of lanes) stops
  only when all of its pixels are done, i.e. the maximum over the block.

Usage::

    .venv/bin/python benchmarks/early_exit_bound.py                      # highway, native size
    .venv/bin/python benchmarks/early_exit_bound.py --size 640x480 --warmup 300
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402

from silkvision.detector.reference import exp2_neg_reference  # noqa: E402
from silkvision.detector.silk import SilkSubtractor  # noqa: E402

BLOCKS = (4, 8, 16, 32, 64)


def slots_needed(det: SilkSubtractor, feat: np.ndarray) -> dict[str, float]:
    """Mean number of slots summed per pixel (and per block) before nothing can change."""
    scale, inv_new, decay, rho, cap, _cap_fg, thr, _hold, nl, _learn = det.kernel_args(True)[:10]
    alphas, colours = det._alphas, det._colours  # (H, om, W), (H, om, C, W)
    H, om, W = alphas.shape
    f = feat.astype(np.float32).transpose(0, 2, 1)[:, None]  # (H, 1, C, W)
    d2 = ((colours.astype(np.float32) - f) ** 2).sum(axis=2)  # (H, om, W)
    terms = alphas * exp2_neg_reference((d2 * nl).astype(np.float32))
    amin = alphas.min(axis=1)

    def needed(order):
        s = np.cumsum(np.take_along_axis(terms, order, axis=1), axis=1) * scale
        a = np.minimum(np.maximum(rho - decay * s, 0), cap) * inv_new
        done = (s >= thr) & (a <= amin[:, None])
        return np.where(done.any(axis=1), done.argmax(axis=1) + 1, om)  # (H, W)

    s_all = terms.sum(axis=1) * scale
    a_all = np.minimum(np.maximum(rho - decay * s_all, 0), cap) * inv_new
    by_alpha = needed(np.argsort(-alphas, axis=1, kind="stable"))
    out = {
        "foreground": float((s_all < thr).mean()),
        "a = 0": float((a_all == 0).mean()),
        "insertion": float((a_all > amin).mean()),
        "alpha order": float(by_alpha.mean()),
        "oracle order": float(needed(np.argsort(-terms, axis=1)).mean()),
    }
    for B in BLOCKS:
        Wb = W // B * B
        out[f"blocks of {B}"] = float(by_alpha[:, :Wb].reshape(H, Wb // B, B).max(axis=2).mean())
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT / "highway")
    ap.add_argument("--size", default="native", help="WxH to resize to, or native")
    ap.add_argument("--warmup", type=int, default=600, help="frames learned before counting")
    ap.add_argument("--frames", type=int, default=10, help="frames counted (learned as well)")
    args = ap.parse_args(argv)
    check_sequences(args.data.parent, [args.data.name])
    files = sorted((args.data / "input").glob("*.jpg"))[: args.warmup + args.frames]
    size = None if args.size == "native" else tuple(int(v) for v in args.size.split("x"))
    det = SilkSubtractor(width_gain=0.0)  # the model this analysis was made for: one kernel width
    rows = []
    for i, path in enumerate(files):
        frame = cv2.imread(str(path))
        if size is not None:
            frame = cv2.resize(frame, size, interpolation=cv2.INTER_LINEAR)
        if i >= args.warmup:
            rows.append(slots_needed(det, det._conv(frame)))
        det.apply(frame)
    omega = det.get_params()["omega"]
    print(
        f"{args.data.name} {args.size}, after {args.warmup} frames, mean over {len(rows)} frames; "
        f"omega = {omega}"
    )
    for key in rows[0]:
        v = float(np.mean([r[key] for r in rows]))
        if key in ("foreground", "a = 0", "insertion"):  # fractions of the pixels
            print(f"  {key:>13}: {v:.1%} of the pixels (with the larger cap)")
        else:
            print(f"  {key:>13}: {v:5.2f} slots ({v / omega:.0%} of the state read)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
