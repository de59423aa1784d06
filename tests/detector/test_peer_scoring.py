"""The peer benchmark's scoring helpers (``benchmarks/peer_detectors.py``) on a synthetic sequence.

The peers themselves (pybgs, opencv-contrib) live in a separate venv; these tests use a fake
detector that replays known masks, so they need neither.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from silkvision.detector.postprocess import MaskFilter
from silkvision.evaluation import confusion_counts

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
peers = pytest.importorskip("peer_detectors")
accuracy = pytest.importorskip("detector_accuracy")


def _sequence(n=12, h=20, w=24, first=4, last=10, seed=5):
    rng = np.random.default_rng(seed)
    frames = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(n)]
    gt = {}
    for i in range(1, n + 1):  # ground truth outside the temporal ROI too, as in CDnet
        g = np.zeros((h, w), np.uint8)
        g[5:12, 6:15] = 255
        g[0, :] = 170  # ignored
        g[1, :] = 50  # shadow: negative
        gt[i] = g
    roi = np.ones((h, w), bool)
    roi[:, -3:] = False
    return accuracy.Sequence("synthetic", frames, first, last, roi, gt)


def _replay(masks):
    it = iter(masks)
    return lambda frame: next(it)


def test_counts_are_the_scorers_on_the_evaluated_frames_only():
    seq = _sequence()
    rng = np.random.default_rng(9)
    # library-like masks with values other than 0/255: >= 128 counts as foreground
    masks = [rng.choice(np.array([0, 100, 128, 200, 255], np.uint8), seq.shape) for _ in seq.frames]
    chain = MaskFilter(median=5, close=5, fill_holes=True)
    res = peers.score_sequence(_replay(masks), seq, chain)
    raw_ref = [np.where(m >= 128, 255, 0).astype(np.uint8) for m in masks]
    want_raw = sum(
        confusion_counts(raw_ref[i - 1], seq.gt[i], seq.roi) for i in range(seq.first, seq.last + 1)
    )
    want_chain = sum(
        confusion_counts(chain(raw_ref[i - 1]), seq.gt[i], seq.roi) for i in range(seq.first, seq.last + 1)
    )
    assert res["counts"]["raw"] == [want_raw.tp, want_raw.fp, want_raw.fn, want_raw.tn]
    assert res["counts"]["chain"] == [want_chain.tp, want_chain.fp, want_chain.fn, want_chain.tn]
    assert res["counts"]["raw"] != res["counts"]["chain"]
    assert res["frames"] == len(seq.frames) and res["evaluated"] == [seq.first, seq.last]


def test_perfect_mask_scores_one_and_the_empty_mask_zero():
    seq = _sequence()
    perfect = [np.where(seq.gt[i] == 255, 255, 0).astype(np.uint8) for i in range(1, len(seq.frames) + 1)]
    res = peers.score_sequence(_replay(perfect), seq, MaskFilter())
    assert res["f_measure"] == {"raw": 1.0, "chain": 1.0}
    empty = [np.zeros(seq.shape, np.uint8)] * len(seq.frames)
    assert peers.score_sequence(_replay(empty), seq, MaskFilter())["f_measure"]["raw"] == 0.0


def test_foreground_share_over_all_frames_and_after_warm_up():
    h, w = 10, 10
    masks = [np.zeros((h, w), np.uint8) for _ in range(4)]
    masks[0][:] = 255  # the first frame all foreground (empty model)
    masks[2][:5, :2] = 255  # 10 of 100 pixels later
    frames = [np.zeros((h, w, 3), np.uint8)] * 4
    res = peers.foreground_share(_replay(masks), frames, MaskFilter(), warmup=2)
    assert res["share"]["raw"]["all"] == pytest.approx((1.0 + 0.1) / 4)
    assert res["share"]["raw"]["after_warmup"] == pytest.approx(0.1 / 2)


def test_a_colour_mask_is_refused_with_the_detector_named():
    seq = _sequence()
    masks = [np.zeros(seq.shape + (3,), np.uint8)] * len(seq.frames)
    with pytest.raises(ValueError, match="gsoc on synthetic: mask is uint8"):
        peers.score_sequence(_replay(masks), seq, MaskFilter(), name="gsoc on synthetic")


def test_results_are_written_atomically_and_resumed(tmp_path):
    path = tmp_path / "peers.json"
    assert peers.load_results(path) == {"results": {}}
    data = {"results": {"gsoc/highway": {"f_measure": {"raw": 0.5, "chain": 0.6}}}}
    peers.save_results(path, data)
    assert peers.load_results(path) == data
    assert [p.name for p in tmp_path.iterdir()] == ["peers.json"]
    text = peers.table(peers.load_results(path), ["gsoc"], ["highway", "office"])
    assert "| highway | 0.500 | 0.600 |" in text and "| office | – | – |" in text
    path.write_text("{not json")
    with pytest.raises(SystemExit, match="peers.json: cannot read it as JSON"):
        peers.load_results(path)


def _pybgs_tree(root: Path) -> Path:
    lib = root / "bgslibrary" / "algorithms"
    for f in (
        "LBSP/LBSP.cpp",
        "PBAS/PBAS.cpp",
        "SuBSENSE.cpp",
        "PAWCS.cpp",
        "LOBSTER.cpp",
        "PixelBasedAdaptiveSegmenter.cpp",
        "ViBe.cpp",
        "KDE/KDE.cpp",
        "T2F/MRF.c",
        "algorithms.cpp",
    ):
        (lib / f).parent.mkdir(parents=True, exist_ok=True)
        (lib / f).write_text("// source\n")
    (root / "bgslibrary" / "tools").mkdir()
    (root / "bgslibrary" / "tools" / "FuzzyUtils.cpp").write_text("// tool\n")
    names = ("ViBe", "PixelBasedAdaptiveSegmenter", "SuBSENSE", "LOBSTER", "PAWCS")
    (lib / "algorithms.h").write_text(
        "#pragma once\n"
        + "".join(f'#include "{n}.h"\n' for n in names)
        + '#include "KDE.h" // Only for OpenCV 2\nusing namespace x;\n'
    )
    module = root / "wrapper" / "python" / "bgslibrary_module.cpp"
    module.parent.mkdir(parents=True)
    module.write_text(
        "PYBIND11_MODULE(pybgs, m)\n{\n"
        + "".join(
            f'  py::class_<{n}>(m, "{n}")\n    .def(py::init<>())\n    .def("apply", &{n}::apply)\n    ;\n\n'
            for n in names
        )
        + "}\n"
    )
    return root


def test_trim_pybgs_keeps_the_four_peers_only(tmp_path):
    root = _pybgs_tree(tmp_path)
    assert peers.trim_pybgs(root) == 6
    lib = root / "bgslibrary"
    left = sorted(p.relative_to(lib).as_posix() for p in lib.rglob("*.c*"))
    assert left == [
        "algorithms/LBSP/LBSP.cpp",
        "algorithms/LOBSTER.cpp",
        "algorithms/PAWCS.cpp",
        "algorithms/PBAS/PBAS.cpp",
        "algorithms/PixelBasedAdaptiveSegmenter.cpp",
        "algorithms/SuBSENSE.cpp",
    ]
    header = (lib / "algorithms" / "algorithms.h").read_text()
    assert "ViBe" not in header and "KDE" not in header and '#include "PAWCS.h"' in header
    assert "using namespace x;" in header
    module = (root / "wrapper" / "python" / "bgslibrary_module.cpp").read_text()
    assert "ViBe" not in module and module.count("py::class_<") == 4 and module.rstrip().endswith("}")


def test_trim_pybgs_refuses_a_tree_that_is_not_pybgs(tmp_path):
    with pytest.raises(SystemExit, match="not an unpacked pybgs source tree"):
        peers.trim_pybgs(tmp_path)


def test_seeding_c_rand_repeats_its_draws():
    import ctypes

    libc = ctypes.CDLL(None)
    peers.seed_libc_rand(7)
    first = [libc.rand() for _ in range(4)]
    libc.rand()
    peers.seed_libc_rand(7)
    assert [libc.rand() for _ in range(4)] == first
