"""Would 16-bit coefficients make SILK faster? An A/B of the row kernel with float32 coefficients
against the same kernel with bfloat16 ones (the upper 16 bits of a float32, rounded to nearest).

SILK's state is 60 B of colours and 80 B of float32 coefficients per pixel (omega = 20); 16-bit
coefficients make it 100 B. If the kernel were bound by the bytes it streams, that would be up to
1.4x. Both variants here are the same serial row kernel (scores, argmin, new coefficient,
insertion: :mod:`silkvision.detector.kernels`), differing only in how a coefficient is loaded and
stored; each runs on its own copy of a warmed-up detector's state. A third copy runs the float32
variant again (A/A): two state copies at different addresses time differently by themselves, and
its ratio shows by how much. Reported: median CPU ms per frame (``time.process_time``: steadier than the wall clock on a
shared machine) over the repeats and the paired ratios.

This is a speed estimate only: bfloat16 keeps 8 significant bits, which changes every coefficient
by up to 0.2% and so scores and masks; the detector does not use it.

Usage::

    .venv/bin/python benchmarks/compact_coefficients.py --sizes 320x240 640x480 1280x720
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numba
import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from video_data import VIDEO_ROOT, check_sequences  # noqa: E402

from silkvision.detector.kernels import _load_features, _scores_and_mask, _slot_exponents, exp2_neg, fma32  # noqa: E402
from silkvision.detector.postprocess import NO_POSTPROCESSING  # noqa: E402
from silkvision.detector.silk import SilkSubtractor  # noqa: E402

_ZERO = np.float32(0.0)
_INF = np.float32(np.inf)


@njit(inline="always")
def _dec_bf16(h):
    return np.uint32(np.uint32(h) << np.uint32(16)).view(np.float32)


@njit(inline="always")
def _enc_bf16(a):
    b = np.float32(a).view(np.uint32)
    return np.uint16((b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16))


@njit(inline="always")
def _same(a):
    return a


def _make_frame(dec, enc):
    @njit
    def frame(
        feat,
        colours,
        alphas,
        since,
        scale,
        inv_scale_new,
        decay,
        rho,
        cap,
        cap_fg,
        threshold,
        hold,
        nl,
        learn,
        scores,
        mask,
        scr_f,
        scr_i,
    ):
        H, W, C = feat.shape
        omega = alphas.shape[1]
        featf = scr_f[0]
        acc, minv, ubuf, mini = featf[3], featf[4], featf[5], scr_i[0]
        for y in range(H):
            _load_features(feat, y, featf, C, W)
            for x in range(W):
                acc[x] = _ZERO
                minv[x] = _INF
                mini[x] = np.uint32(0)
            for j in range(omega):
                _slot_exponents(colours, y, featf, ubuf, nl, C, W, j)
                arow = alphas[y, j]
                j32 = np.uint32(j)
                for x in range(W):
                    a = dec(arow[x])
                    acc[x] = fma32(a, exp2_neg(ubuf[x]), acc[x])
                    m = minv[x]
                    i = mini[x]
                    minv[x] = min(a, m)
                    mini[x] = j32 if a < m else i
            srow = scores[y]
            _scores_and_mask(acc, scale, threshold, srow, mask[y], W)
            sincerow = since[y]
            for x in range(W):
                s = srow[x]
                c = np.int32(sincerow[x])
                c = 0 if s < threshold else min(c + 1, 255)
                sincerow[x] = np.uint8(c)
                cp = cap_fg if c <= hold else cap
                acc[x] = min(max(rho - decay * s, _ZERO), cp) * inv_scale_new
            arows, crows, frow = alphas[y], colours[y], feat[y]
            for x in range(W):
                a = acc[x]
                if a > minv[x]:
                    j = mini[x]
                    arows[j, x] = enc(a)
                    for ch in range(C):
                        crows[j, ch, x] = frow[x, ch]

    return frame


frame_f32 = _make_frame(_same, _same)
frame_bf16 = _make_frame(_dec_bf16, _enc_bf16)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=VIDEO_ROOT / "highway")
    ap.add_argument("--sizes", nargs="+", default=["320x240", "640x480", "1280x720"])
    ap.add_argument("--frames", type=int, default=60, help="frames per timed run")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    check_sequences(args.data.parent, [args.data.name])
    numba.set_num_threads(1)
    cv2.setNumThreads(1)
    files = sorted((args.data / "input").glob("*.jpg"))
    for size in args.sizes:
        wh = tuple(int(v) for v in size.split("x"))
        load = lambda fs: [cv2.resize(cv2.imread(str(f)), wh, interpolation=cv2.INTER_LINEAR) for f in fs]  # noqa: E731
        det = SilkSubtractor(**NO_POSTPROCESSING)
        for f in load(files[:200:4]):
            det.apply(f)
        feats = [det._conv(f).copy() for f in load(files[200 : 200 + args.frames])]
        args_k = det.kernel_args(True)[:10]  # the same scalars every frame; one kernel width
        b = det._alphas.view(np.uint32)
        copies = {
            "f32": (frame_f32, det._colours.copy(), det._alphas.copy()),
            "f32 again (A/A)": (frame_f32, det._colours.copy(), det._alphas.copy()),
            "bf16": (
                frame_bf16,
                det._colours.copy(),
                ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16),
            ),
        }
        since = {k: det._extra["since"].copy() for k in copies}
        sc, mk = np.zeros_like(det._scores), np.zeros_like(det._raw)
        times = {k: [] for k in copies}
        for _ in range(args.repeats + 1):  # the first repeat compiles and is dropped
            for k, (fn, col, alp) in copies.items():
                t = time.process_time()
                for feat in feats:
                    fn(feat, col, alp, since[k], *args_k, sc, mk, det._scr_f, det._scr_i)
                times[k].append((time.process_time() - t) / len(feats) * 1e3)
        med = {k: statistics.median(v[1:]) for k, v in times.items()}
        ratio = lambda k: statistics.median(a / b for a, b in zip(times["f32"][1:], times[k][1:]))  # noqa: E731
        print(
            f"{size}: "
            + ", ".join(f"{k} {v:.2f} ms" for k, v in med.items())
            + f"; f32 / bf16 time (paired median) {ratio('bf16'):.2f}, f32 / f32 again "
            f"{ratio('f32 again (A/A)'):.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
