"""Leave-one-sequence-out accuracy of SILK configurations, beside MOG2 and KNN (issue 33's measure).

Protocol
--------
* A small grid of candidate SILK configurations (``GRIDS``; each one parameter set and ONE
  threshold, the product's mask chain: 5x5 median, 5x5 closing, hole filling) is run ONCE on each of
  the six development sequences (``SEQUENCES``), from frame 1, scored with the CDnet rules
  (:func:`silkvision.evaluation.confusion_counts`: ROI, temporal ROI, 255 positive, 0/50 negative,
  85/170 ignored, counts pooled per sequence). Counts, F and AUC of every (configuration, sequence)
  pair go to a JSON cache (``--cache``, written atomically after every finished task), so a
  re-run or a larger grid only runs the missing pairs.
* **Leave one out**: for each sequence, the configuration with the best mean F over the OTHER five
  is chosen, and its F on the held-out sequence is reported. The six held-out F and their mean are
  the honest estimate of the default's accuracy on an unseen scene; the in-sample table (every
  configuration's F on every sequence) is printed beside them.
* **AUC** per sequence from the raw per-pixel scores (:class:`silkvision.evaluation.RocAccumulator`;
  the variants report the score their decision thresholds, see ``silk_variants_kernels.py``).
* **Foliage proxy**: the share of pixels in the output mask on ``wallflower_WavingTrees`` frames
  1-241, which hold no foreground (a tree waving in the wind): 0 is perfect.
* **Peers** in the same run: OpenCV MOG2 and KNN (library defaults, shadows off), raw and with the
  same mask chain. GSOC (opencv-contrib) and BGSLibrary's SuBSENSE/PAWCS/PBAS (``pybgs``) are not
  installed here; their figures in ``docs/benchmarks/accuracy.md`` are quoted from issue 33
  (measured elsewhere).

The candidates are ``SilkSubtractor`` parameter sets plus the experimental pixel-level feedback and
neighbour diffusion, the LBSP texture term and the texture-gated shadow test of
``benchmarks/silk_variants_kernels.py`` (keys ``fb_thr``, ``fb_cap``, ``v_inc``, ``v_dec``,
``v_max``, ``diff_every``, ``diff_kappa``, ``tex_w``, ``tex_rel``, ``shadow``, ``sh_lo``, ``sh_hi``,
``sh_chroma``, ``sh_ham``, ``sh_bits``; see ``VARIANT_DEFAULTS``); a configuration without them runs the
product's own kernel path.

Usage::

    NUMBA_NUM_THREADS=1 nice -n 5 .venv/bin/python benchmarks/detector_loo.py --grid base \
        --cache /tmp/loo_cache.json --json /tmp/loo_base.json
    .venv/bin/python benchmarks/detector_loo.py --self-check   # variant kernel == product kernel

One numba thread, one OpenCV thread, two worker processes (``--processes``) by default.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detector_accuracy import load_sequence
from video_data import VIDEO_ROOT, check_sequences

SEQUENCES = ("highway", "office", "pedestrians", "traffic", "canoe", "pets2001_illumination")
FOLIAGE = "wallflower_WavingTrees"
FOLIAGE_FRAMES = 241
#: the synthetic strong-wind scene of ``foliage_stress.py`` (with ``--stress``: a seventh sequence)
STRESS = "foliage_stress"
#: the foliage proxy is also reported over frames FOLIAGE_WARMUP+1..241 only (every detector starts
#: empty, so its first frames are foreground everywhere)
FOLIAGE_WARMUP = 100
VARIANT_KEYS = (
    "fb_thr",
    "fb_cap",
    "v_inc",
    "v_dec",
    "v_max",
    "fb_gate",
    "level_rate",
    "level_gamma",
    "diff_every",
    "diff_kappa",
    "consult",
    "consult_output_only",
    "consult_lo",
    "tex_w",
    "tex_rel",
    "shadow",
    "sh_lo",
    "sh_hi",
    "sh_chroma",
    "sh_ham",
    "sh_bits",
    "fb_sig",
    "w_max",
    "v_zero",
)
VARIANT_DEFAULTS = {
    "fb_thr": 0.0,
    "fb_cap": 0.0,
    "v_inc": 1.0,
    "v_dec": 0.1,
    "v_max": 10.0,
    "fb_gate": 0,
    "level_rate": 0.01,
    "level_gamma": 1.0,
    "diff_every": 0,
    "diff_kappa": 0.0,
    "consult": 0,
    "consult_output_only": 0,
    "consult_lo": 0.0,
    "tex_w": 0.0,
    "tex_rel": 0.3,
    "shadow": 0,
    "sh_lo": 0.5,
    "sh_hi": 0.95,
    "sh_chroma": 10.0,
    "sh_ham": 2,
    "sh_bits": 0,
    "fb_sig": 0.0,
    "w_max": 2.0,
    "v_zero": 0.0,
}
PEERS = ("mog2", "mog2+chain", "knn", "knn+chain")
ROC_HI = 4.0  # scores above land in the top bin (all far above any threshold used)
ROC_BINS = 2048


def _grid_base():
    """The shipped default, its threshold neighbours, and one-idea-at-a-time variants."""
    g = [{}]
    g += [{"threshold": t} for t in (0.35, 0.4, 0.5)]
    g += [{"fb_thr": a} for a in (0.05, 0.2)]
    g += [{"fb_cap": b} for b in (0.05, 0.2)]
    g += [{"fb_thr": 0.05, "fb_cap": 0.05}, {"fb_thr": 0.2, "fb_cap": 0.2}]
    g += [{"diff_every": 16, "diff_kappa": k} for k in (0.078125, 0.25, 1.0)]
    g += [{"diff_every": 4, "diff_kappa": 0.25}]
    return g


def _grid_gated():
    """Feedback gated by the post-processed mask (SuBSENSE counts flicker, not moving objects)."""
    g = [
        {"fb_gate": 1, "fb_thr": a, "fb_cap": b}
        for a, b in ((0.05, 0), (0.2, 0), (0, 0.05), (0, 0.2), (0.05, 0.05), (0.2, 0.2))
    ]
    return g


def _grid_level():
    """Tolerance from the pixel's running background score level (SuBSENSE's D_min idea)."""
    return [
        {"fb_gate": 2, "fb_thr": 1.0, "level_rate": r, "level_gamma": g}
        for r, g in ((0.01, 0.5), (0.01, 1.0), (0.05, 1.0))
    ]


def _grid_raised():
    """A higher global threshold (stable pixels more sensitive) with the tolerance of dynamic pixels
    widened back by the gated blinking or the background level: SuBSENSE's R(x) starts small and
    grows where the background is dynamic."""
    g = []
    for t in (0.5, 0.55):
        g += [{"threshold": t}] if t != 0.5 else []
        g += [{"threshold": t, "fb_gate": 1, "fb_thr": a, "fb_cap": 0} for a in (0.05, 0.2)]
        g += [
            {"threshold": t, "fb_gate": 2, "fb_thr": 1.0, "level_rate": 0.01, "level_gamma": gm}
            for gm in (0.5, 1.0)
        ]
    return g


def _grid_consult():
    """A raw foreground pixel explained by a neighbour's model is background (one hashed neighbour
    per frame, or all eight: the upper bound of the idea)."""
    return [{"consult": n} for n in (1, 8)] + [{"consult": 8, "threshold": 0.5}]


def _grid_consult_output():
    """The consultation changes the output only; the pixel learns from its own decisions (the
    consulted ones let an absorbed object edge spread inwards)."""
    return [{"consult": n, "consult_output_only": 1} for n in (1, 8)]


def _grid_consult_unsure():
    """Output-only consultation for the pixels whose own score is at least half the threshold: a
    pixel whose own model finds the colour plainly new (a car) is not overruled by a neighbour."""
    return [{"consult": n, "consult_output_only": 1, "consult_lo": 0.5} for n in (1, 8)]


def _grid_texture():
    """The LBSP texture term in the kernel, k = k_colour 2^(-tex_w H): weights from one bit in
    sixteen (a whole pattern changed halves the kernel 2^-1) to one bit in two."""
    return [{"tex_w": w} for w in (0.0625, 0.125, 0.25, 0.5)]


def _grid_shadow():
    """The shadow test (darker, same chroma) gated by the texture (at most sh_ham differing bits);
    sh_ham = 16 lets every texture through: the brightness/chroma test alone, for comparison."""
    g = [{"shadow": 1, "sh_ham": h} for h in (1, 3, 16)]
    g += [{"shadow": 2, "sh_ham": 1}]
    g += [{"shadow": 1, "sh_ham": 3, "tex_w": 0.125}]
    # flat patterns excluded (the first five removed dark car roofs on flat asphalt: same empty
    # pattern), a narrower darkening range, and with the lightest texture term
    g += [
        {"shadow": 1, "sh_ham": 1, "sh_bits": 3},
        {"shadow": 1, "sh_ham": 1, "sh_bits": 3, "sh_lo": 0.6, "sh_hi": 0.9},
        {"shadow": 1, "sh_ham": 1, "sh_bits": 3, "tex_w": 0.0625},
    ]
    return g


def _grid_width():
    """A kernel width per pixel, widened where the background flickers: w(x) = min(1 + fb_sig v,
    w_max) with v SuBSENSE's blinking level gated by the post-processed mask (the width analogue
    of SuBSENSE's distance threshold R(x), which grows with v)."""
    g = [{"fb_gate": 1, "fb_sig": a, "w_max": m} for m in (1.5, 2.0) for a in (0.05, 0.1, 0.2)]
    # added after the six above had been seen to cost highway 0.016-0.045 (far, small cars count
    # as flicker): a stricter gate (background in the output of the frame before too), the
    # blinking weighted by SuBSENSE's D_min analogue, and a dead zone for occasional flicker
    g += [{"fb_gate": 3, "fb_sig": a, "w_max": 2.0} for a in (0.05, 0.2)]
    g += [{"fb_gate": 4, "fb_sig": a, "w_max": 2.0} for a in (0.2, 0.5)]
    g += [
        {"fb_gate": 4, "fb_sig": 0.5, "w_max": 2.0, "v_zero": 1.0},
        {"fb_gate": 3, "fb_sig": 0.2, "w_max": 2.0, "v_zero": 2.0},
    ]
    return g


GRIDS = {
    "base": _grid_base,
    "gated": _grid_gated,
    "level": _grid_level,
    "raised": _grid_raised,
    "consult": _grid_consult,
    "consult_output": _grid_consult_output,
    "consult_unsure": _grid_consult_unsure,
    "texture": _grid_texture,
    "shadow": _grid_shadow,
    "width": _grid_width,
    "default": lambda: [{}],
}


def config_key(cfg: dict) -> str:
    """Stable name of a configuration (sorted JSON of its overrides)."""
    return json.dumps(cfg, sort_keys=True) if cfg else "{}"


def cache_key(seq: str, cfg: dict) -> str:
    return seq + "|" + config_key(cfg)


def _variant_class():
    import silk_variants_kernels as vk

    from silkvision.detector.silk import SilkSubtractor

    class VariantSilk(SilkSubtractor):
        """SILK through the experimental kernel (``silk_variants_kernels.variant_frame``)."""

        def __init__(self, variant: dict, **params):
            self._var = {**VARIANT_DEFAULTS, **variant}
            if self._var["consult"] and self._var["shadow"]:
                raise ValueError("consult and shadow: both use the output buffer; set one of them")
            if self._var["shadow"] not in (0, 1, 2):
                raise ValueError(f"shadow: {self._var['shadow']!r}; expected 0, 1 (output only) or 2")
            # the ideas below were measured against SILK with one kernel width everywhere
            params.setdefault("width_gain", 0.0)
            params.setdefault("texture_weight", 0.0)  # the variant kernel has its own texture and shadow
            params.setdefault("shadow", False)
            super().__init__(**params)

        def _extra_state_shapes(self, H, W):
            return {
                "since": ((H, W), np.uint8, 255),
                "blink": ((H, W), np.float32, 0.0),
                "level": ((H, W), np.float32, 1.0),
                # this frame's LBSP and each support vector's (``silk_variants_kernels.lbsp``)
                "tex": ((H, W), np.uint16, 0),
                "svtex": ((H, self._p["omega"], W), np.uint16, 0),
            }

        def _apply_out(self, frame, learningRate, fgmask):
            # the output: the consulted or shadow-tested decisions when only the output follows them
            if self._var["consult_output_only"] or self._var["shadow"] == 1:
                super().apply(frame, learningRate)
                return self._post(self._own, out=fgmask)
            return super().apply(frame, learningRate, fgmask)

        def apply(self, frame, learningRate=-1, fgmask=None):
            if not self._var["fb_gate"]:
                return self._apply_out(frame, learningRate, fgmask)
            # gated blinking (SuBSENSE): a flip of the raw decision counts only where the
            # post-processed mask is background, i.e. isolated flicker, not a moving object's edge
            prev = None if self._raw is None else self._raw.copy()
            out = self._apply_out(frame, learningRate, fgmask)
            if self._var["fb_gate"] == 2 and learningRate != 0:
                # D_min-like level (SuBSENSE): running mean of the pixel's background score,
                # min(s, rho) / rho, over frames its output is background; tolerance 1 / level^gamma
                var, v, m = self._var, self._extra["blink"], self._extra["level"]
                s = self._scores / (np.float32(1) + np.float32(var["fb_thr"]) * v)
                target = np.minimum(s / np.float32(self._p["rho"]), np.float32(1))
                bg = out == 0
                m[bg] += np.float32(var["level_rate"]) * (target[bg] - m[bg])
                np.maximum(m, np.float32(1e-3), out=m)
                widen = m ** np.float32(-var["level_gamma"])
                np.copyto(v, np.minimum((widen - 1) / np.float32(var["fb_thr"]), np.float32(var["v_max"])))
                return out
            if prev is not None and learningRate != 0:
                v, var = self._extra["blink"], self._var
                flick = (self._raw != prev) & (out == 0)
                if self._var["fb_gate"] == 4:
                    # SuBSENSE's D_min: how poorly the model explains the pixel while it is
                    # background; the width grows with v only where that stays high
                    m = self._extra["level"]
                    target = np.minimum(self._scores / np.float32(self._p["rho"]), np.float32(1))
                    bg = out == 0
                    m[bg] += np.float32(var["level_rate"]) * (target[bg] - m[bg])
                if self._var["fb_gate"] in (3, 4):
                    # stricter: background in the output of the frame before as well, so the
                    # frames where an object enters or leaves the pixel do not count
                    prev_out = getattr(self, "_prev_out", None)
                    if prev_out is not None:
                        flick &= prev_out == 0
                    self._prev_out = out.copy()
                np.copyto(
                    v,
                    np.where(
                        flick,
                        np.minimum(v + np.float32(var["v_inc"]), np.float32(var["v_max"])),
                        np.maximum(v - np.float32(var["v_dec"]), np.float32(0)),
                    ),
                )
            return out

        def _run(self, feat, learn):
            v = self._var
            args = self.kernel_args(learn)[:10]  # the variant kernel has its own width map
            p = self._p
            diff_cap = np.float32(self._decay() * v["diff_kappa"] * p["C"])
            inc, dec = (0.0, 0.0) if v["fb_gate"] else (v["v_inc"], v["v_dec"])
            tex = self._extra["tex"]
            if v["tex_w"] > 0 or v["shadow"]:
                vk.lbsp(feat, np.float32(v["tex_rel"]), tex)
            vk.variant_frame(
                feat,
                self._colours,
                self._alphas,
                self._extra["since"],
                self._extra["blink"],
                *args,
                self._scores,
                self._raw,
                self._scr_f,
                self._scr_i,
                np.float32(v["fb_thr"]),
                np.float32(v["fb_cap"]),
                np.float32(inc),
                np.float32(dec),
                np.float32(v["v_max"]),
                np.int64(v["diff_every"]),
                diff_cap,
                np.int64(self._frames),
                np.int64(v["consult"]),
                self._own_buffer(feat),
                np.float32(v["consult_lo"] * p["threshold"]),
                self._extra["svtex"],
                tex,
                np.float32(v["tex_w"]),
                np.int64(v["shadow"]),
                np.float32(v["sh_lo"]),
                np.float32(v["sh_hi"]),
                np.float32(v["sh_chroma"] ** 2),
                np.int32(v["sh_ham"]),
                np.int32(v["sh_bits"]),
                self._own_buffer(feat),  # the shadow test's output (shadow = 1)
                self._width_map(feat),
            )
            if learn:
                self._scale *= self._decay()

        def _width_map(self, feat):
            # per-pixel kernel exponent scale nl / w(x)^2, w = min(1 + fb_sig v, w_max): a pixel
            # whose background keeps flickering gets a wider kernel (SuBSENSE's R(x) grows with v)
            v = self._var
            if not v["fb_sig"]:
                return np.zeros((0, 0), np.float32)
            from silkvision.detector.kernels import kernel_log2_scale

            drive = self._extra["blink"]
            if v["fb_gate"] == 4:
                drive = drive * (np.float32(1) - self._extra["level"])
            if v["v_zero"]:
                # a dead zone: the occasional flicker of a small, far object does not widen
                drive = np.maximum(drive - np.float32(v["v_zero"]), np.float32(0))
            w = np.minimum(np.float32(1) + np.float32(v["fb_sig"]) * drive, np.float32(v["w_max"]))
            return (kernel_log2_scale(self._p["sigma"]) / (w * w)).astype(np.float32)

        def _own_buffer(self, feat):
            # the consulted decisions when only the output follows them (the raw mask keeps the
            # pixel's own); (0, 0) when learning follows the consulted decisions too
            own = self._var["consult_output_only"] or self._var["shadow"] == 1
            shape = feat.shape[:2] if own else (0, 0)
            buf = getattr(self, "_own", None)
            if buf is None or buf.shape != shape:
                buf = self._own = np.zeros(shape, np.uint8)
            return buf

        def _score_bound(self):
            return super()._score_bound() * (1.0 + self._var["fb_thr"] * self._var["v_max"])

    return VariantSilk


def make_detector(cfg: dict):
    """A SILK detector for a configuration: the product's class unless variant keys are set."""
    import silkvision as sv

    # the product's ``shadow`` (true/false) shares its name with the variants' (0, 1 or 2)
    variant = {k: cfg[k] for k in VARIANT_KEYS if k in cfg and not isinstance(cfg[k], bool)}
    params = {k: v for k, v in cfg.items() if k not in variant}
    if not any(
        variant.get(k, 0) for k in ("fb_thr", "fb_cap", "fb_sig", "diff_every", "consult", "tex_w", "shadow")
    ):
        return sv.create_subtractor("silk", **params)
    return _variant_class()(variant, **params)


def run_task(root: str, seq_name: str, cfgs: list, peers: bool) -> dict:
    """Run every configuration (and the peers) on one sequence in lockstep; results per cache key."""
    import numba

    import silkvision as sv
    from silkvision.detector.postprocess import NO_POSTPROCESSING
    from silkvision.evaluation import Counts, RocAccumulator, confusion_counts, metrics
    from silkvision.evaluation.cdnet import label_classes

    numba.set_num_threads(1)
    cv2.setNumThreads(1)
    if seq_name == STRESS:
        import foliage_stress

        out = {}
        for c in cfgs:
            r = foliage_stress.measure(config_key(c) if c else "silk", Path(root), 1200, 3.0)
            out[cache_key(STRESS, c)] = {
                "f_measure": r["f_measure"]["chain"],
                "fg_share": r["fg_share"]["chain"],
                "auc": None,
                "cpu_seconds": r["cpu_seconds"],
                "frames": r["frames"],
            }
        return out
    foliage = seq_name == FOLIAGE
    seq = load_sequence(Path(root) / seq_name, FOLIAGE_FRAMES if foliage else None, load_gt=not foliage)
    runs = {config_key(c): make_detector(c) for c in cfgs}
    chain = sv.create_subtractor("silk").mask_filter
    if peers:
        runs["mog2"] = sv.create_subtractor("mog2", detect_shadows=False, **NO_POSTPROCESSING)
        runs["knn"] = sv.create_subtractor("knn", detect_shadows=False, **NO_POSTPROCESSING)
    counts = {k: Counts(0, 0, 0, 0) for k in runs}
    counts.update({k + "+chain": Counts(0, 0, 0, 0) for k in ("mog2", "knn") if k in runs})
    rocs = {k: RocAccumulator(0.0, ROC_HI, ROC_BINS) for k in runs if k not in ("mog2", "knn")}
    fg_px = {k: 0 for k in counts}
    fg_late = {k: 0 for k in counts}
    n_px = n_late = 0
    seconds = {k: 0.0 for k in runs}
    for i, frame in enumerate(seq.frames, start=1):
        gt = None if foliage else (seq.gt.get(i) if seq.first <= i <= seq.last else None)
        classes = label_classes(gt, seq.roi) if gt is not None else None
        if foliage:
            n_px += frame.shape[0] * frame.shape[1]
            n_late += frame.shape[0] * frame.shape[1] if i > FOLIAGE_WARMUP else 0
        for k, det in runs.items():
            t0 = time.process_time()
            mask = det.apply(frame)
            seconds[k] += time.process_time() - t0
            outs = [(k, mask)]
            if k in ("mog2", "knn"):
                outs.append((k + "+chain", chain(mask)))
            for name, m in outs:
                if foliage:
                    fg_px[name] += int(np.count_nonzero(m))
                    fg_late[name] += int(np.count_nonzero(m)) if i > FOLIAGE_WARMUP else 0
                elif gt is not None:
                    counts[name] = counts[name] + confusion_counts(m, gt, seq.roi)
            if gt is not None and k in rocs:
                rocs[k].update(det.scores, gt, classes=classes)
    out = {}
    for name, c in counts.items():
        base = name.split("+")[0]
        if foliage:
            res = {
                "foliage_fg_share": fg_px[name] / max(n_px, 1),
                "foliage_fg_share_late": fg_late[name] / max(n_late, 1),
            }
        else:
            m = metrics(c)
            res = {
                "counts": [c.tp, c.fp, c.fn, c.tn],
                "f_measure": m["f_measure"],
                "recall": m["recall"],
                "precision": m["precision"],
                "auc": rocs[base].auc() if base in rocs else None,
            }
        res["cpu_seconds"] = seconds[base]
        res["frames"] = len(seq.frames)
        out[
            cache_key(seq_name, {"peer": name} if name.split("+")[0] in ("mog2", "knn") else json.loads(name))
        ] = res
    return out


def _task(args):
    return run_task(*args)


def load_cache(path: Path | None) -> dict:
    if path is None or not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        sys.exit(f"{path}: not a JSON cache of detector_loo.py ({exc}); remove it or pass another --cache")


def save_json(path: Path, data) -> None:
    """Atomic write: a temporary file in the same folder, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)


def _cached(cache: dict, seq: str, cfg: dict) -> bool:
    r = cache.get(cache_key(seq, cfg))
    return r is not None and (seq != FOLIAGE or "foliage_fg_share_late" in r)


def leave_one_out(table: dict, cfg_keys: list, seqs: list) -> dict:
    """For each held-out sequence: the configuration with the best mean F over the others."""
    res = {}
    for held in seqs:
        others = [s for s in seqs if s != held]
        best = max(cfg_keys, key=lambda k: (np.mean([table[k][s] for s in others]), -cfg_keys.index(k)))
        res[held] = {
            "config": best,
            "train_mean": float(np.mean([table[best][s] for s in others])),
            "held_out_f": table[best][held],
        }
    return res


#: the product's texture term and shadow test (``texture_weight``, ``shadow``), with its default width,
#: as the variant configuration that they reproduce
PRODUCT_TEXTURE = {"texture_weight": 0.0625, "shadow": True}
PRODUCT_TEXTURE_AS_VARIANT = {
    "fb_gate": 3,
    "fb_sig": 0.2,
    "w_max": 2.0,
    "v_zero": 2.0,
    "tex_w": 0.0625,
    "shadow": 1,
    "sh_ham": 1,
    "sh_bits": 3,
}


def self_check(root: Path, frames: int = 120) -> int:
    """Two checks, bit for bit. (1) The variant kernel with every idea off equals the product's
    kernel with one kernel width, no texture and no shadow test. (2) The product with
    :data:`PRODUCT_TEXTURE` equals :data:`PRODUCT_TEXTURE_AS_VARIANT`: the same masks and state
    (the product's scores differ where the shadow test holds: it raises them to the threshold)."""
    import silkvision as sv

    seq = load_sequence(root / "highway", frames, load_gt=False)
    base = {"width_gain": 0.0, "texture_weight": 0.0, "shadow": False}
    pairs = (
        ("variant base", sv.create_subtractor("silk", **base), _variant_class()({}), True),
        (
            "texture",
            sv.create_subtractor("silk", **PRODUCT_TEXTURE),
            _variant_class()(PRODUCT_TEXTURE_AS_VARIANT),
            False,
        ),
    )
    for name, a, b, same_scores in pairs:
        for i, f in enumerate(seq.frames):
            ma, mb = a.apply(f), b.apply(f)
            if not np.array_equal(ma, mb) or (same_scores and not np.array_equal(a.scores, b.scores)):
                print(f"self-check {name} FAILED at frame {i}: masks or scores differ")
                return 1
        ok = np.array_equal(a._alphas, b._alphas) and np.array_equal(a._colours, b._colours)
        print(f"self-check {name}:", "ok: identical masks and state" if ok else "FAILED: state differs")
        if not ok:
            return 1
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=VIDEO_ROOT)
    ap.add_argument("--grid", default="base", help="named grid(s), comma-separated: " + ", ".join(GRIDS))
    ap.add_argument("--configs", help="JSON list of extra configurations (override dicts)")
    ap.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "silkvision_loo.json")
    ap.add_argument("--json", type=Path, help="write the report's numbers here")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--chunk", type=int, default=6, help="configurations per worker task")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--self-check", action="store_true")
    ap.add_argument(
        "--stress",
        action="store_true",
        help="add foliage_stress.py's strong-wind scene (F of its walking person) as a seventh sequence",
    )
    args = ap.parse_args(argv)
    if args.self_check:
        check_sequences(args.root, ["pedestrians"])
        return self_check(args.root)
    cfgs = [{}]  # the shipped default is always a candidate
    families = {}
    for name in args.grid.split(","):
        if name not in GRIDS:
            sys.exit(f"--grid: {name!r} is not a grid; expected one of {', '.join(GRIDS)} (comma-separated)")
        families[name] = GRIDS[name]()
        cfgs += [c for c in families[name] if c not in cfgs]
    if args.configs:
        try:
            extra = json.loads(args.configs)
        except ValueError as exc:
            sys.exit(f"--configs: not JSON ({exc}); expected a list of objects")
        if not (isinstance(extra, list) and all(isinstance(c, dict) for c in extra)):
            sys.exit("--configs: expected a JSON list of objects, e.g. '[{\"threshold\": 0.4}]'")
        cfgs += [c for c in extra if c not in cfgs]
    for c in cfgs:
        try:
            make_detector(c)  # bad keys/values fail here, before any work starts
        except (TypeError, ValueError) as exc:
            sys.exit(f"configuration {config_key(c)}: {exc}")
    seqs = list(SEQUENCES) + [FOLIAGE]
    check_sequences(args.root, seqs)
    if args.stress:
        seqs.append(STRESS)
    cache = load_cache(args.cache)
    tasks = []
    for s in seqs:
        todo = [c for c in cfgs if not _cached(cache, s, c)]
        peers = not args.no_peers and s != STRESS and not _cached(cache, s, {"peer": "mog2"})
        for i in range(0, max(len(todo), 1), args.chunk):
            part = todo[i : i + args.chunk]
            if part or peers:
                tasks.append((str(args.root), s, part, peers))
                peers = False
    # big sequences first, so the two workers finish together
    order = {
        "office": 0,
        "highway": 1,
        "traffic": 2,
        "canoe": 3,
        "pedestrians": 4,
        "pets2001_illumination": 5,
        FOLIAGE: 6,
    }
    tasks.sort(key=lambda t: order.get(t[1], 9))
    t0 = time.time()
    print(f"{len(cfgs)} configurations, {len(tasks)} tasks to run", flush=True)
    if tasks:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(min(args.processes, len(tasks))) as pool:
            for res in pool.imap_unordered(_task, tasks):
                cache.update(res)
                save_json(args.cache, cache)
                print(
                    f"  {next(iter(res)).split('|')[0]}: {len(res)} results ({time.time() - t0:.0f} s)",
                    flush=True,
                )
    report(cfgs, cache, args, families)
    return 0


def report(cfgs: list, cache: dict, args, families: dict | None = None) -> None:
    keys = [config_key(c) for c in cfgs]
    seqs = list(SEQUENCES) + ([STRESS] if getattr(args, "stress", False) else [])
    table = {k: {s: cache[s + "|" + k]["f_measure"] for s in seqs} for k in keys}
    auc = {k: {s: cache[s + "|" + k]["auc"] for s in SEQUENCES} for k in keys}
    fol = {k: cache[FOLIAGE + "|" + k]["foliage_fg_share"] for k in keys}
    late = {k: cache[FOLIAGE + "|" + k]["foliage_fg_share_late"] for k in keys}
    short = {s: s[:8] for s in seqs}
    print(
        "\nIn-sample F (chain: 5x5 median, closing, hole filling); AUC of the raw scores; foliage = "
        "share of pixels foreground on WavingTrees frames 1-241 (and 101-241)\n"
    )
    print(
        "| configuration | "
        + " | ".join(short[s] for s in seqs)
        + " | mean F | mean AUC | foliage 1-241 | foliage 101-241 |"
    )
    print("|---|" + "---|" * (len(seqs) + 4))
    for k in keys:
        print(
            f"| `{k}` | "
            + " | ".join(f"{table[k][s]:.3f}" for s in seqs)
            + f" | {np.mean(list(table[k].values())):.4f} | {np.mean(list(auc[k].values())):.4f}"
            f" | {100 * fol[k]:.2f}% | {100 * late[k]:.2f}% |"
        )
    peer_rows = {}
    if all(cache_key(s, {"peer": p}) in cache for s in list(SEQUENCES) + [FOLIAGE] for p in PEERS):
        for p in PEERS:
            f = {s: cache[cache_key(s, {"peer": p})]["f_measure"] for s in SEQUENCES}
            fl = cache[cache_key(FOLIAGE, {"peer": p})]["foliage_fg_share"]
            fll = cache[cache_key(FOLIAGE, {"peer": p})]["foliage_fg_share_late"]
            peer_rows[p] = {"f": f, "foliage": fl, "foliage_late": fll}
            print(
                f"| {p} | "
                + " | ".join(f"{f[s]:.3f}" if s in f else "-" for s in seqs)
                + f" | {np.mean(list(f.values())):.4f} | - | {100 * fl:.2f}% | {100 * fll:.2f}% |"
            )
    loo = leave_one_out(table, keys, seqs)
    print("\nLeave one sequence out (configuration chosen by its mean F on the others)\n")
    print("| held out | chosen configuration | mean F on the others | held-out F | held-out AUC |")
    print("|---|---|---|---|---|")
    for s in seqs:
        r = loo[s]
        print(
            f"| {s} | `{r['config']}` | {r['train_mean']:.4f} | **{r['held_out_f']:.3f}** | "
            f"{auc[r['config']].get(s) or float('nan'):.4f} |"
        )
    mean_loo = float(np.mean([loo[s]["held_out_f"] for s in seqs]))
    print(f"| **mean** | | | **{mean_loo:.4f}** | |")
    fam_loo = {}
    if families and len(families) > 1:
        # each idea on its own: the shipped default plus that grid, chosen the same way
        print("\nLeave one out per grid (the shipped default `{}` plus that grid's candidates)\n")
        print("| grid | " + " | ".join(short[s] for s in seqs) + " | mean held-out F |")
        print("|---|" + "---|" * (len(seqs) + 1))
        for name, fam in families.items():
            fk = list(dict.fromkeys(["{}"] + [config_key(c) for c in fam]))
            r = leave_one_out(table, fk, seqs)
            fam_loo[name] = {s: r[s]["held_out_f"] for s in seqs}
            print(
                f"| {name} | "
                + " | ".join(f"{r[s]['held_out_f']:.3f}" for s in seqs)
                + f" | {np.mean(list(fam_loo[name].values())):.4f} |"
            )
    best_all = max(keys, key=lambda k: np.mean(list(table[k].values())))
    print(
        f"\nBest mean F over all sequences (the rule for a default): `{best_all}` "
        f"{np.mean(list(table[best_all].values())):.4f}"
    )
    if args.json:
        save_json(
            args.json,
            {
                "configs": keys,
                "f": table,
                "auc": auc,
                "foliage": fol,
                "foliage_late": late,
                "peers": peer_rows,
                "loo": loo,
                "loo_mean": mean_loo,
                "loo_per_grid": fam_loo,
                "best_all": best_all,
            },
        )


if __name__ == "__main__":
    raise SystemExit(main())
