"""Small hand-made sequences and a fake scored detector for the evaluation tests."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

H, W = 12, 16


class FakeScored:
    """A minimal scored detector honouring the detector contract: score = -|frame - running mean|
    (grey), lower = more novel; ``apply`` returns ``mask_from_scores(scores)``."""

    name = "fake"
    has_scores = True

    def __init__(self, threshold: float = -20.0, median: int = 0, alpha: float = 0.2):
        self.threshold = float(threshold)
        self.median = median
        self.alpha = alpha
        self.score_range = (-255.0, 0.0)
        self.reset()

    def reset(self):
        self._mean = None
        self._scores = None
        self.frames_seen = 0

    @property
    def scores(self):
        return self._scores

    def mask_from_scores(self, scores, threshold=None, out=None):
        from silkvision.detector.postprocess import median_mask

        t = self.threshold if threshold is None else threshold
        raw = ((scores < t) * 255).astype(np.uint8)
        return median_mask(raw, self.median, out=out)

    def apply(self, frame, learningRate=-1, fgmask=None):
        g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
        if self._mean is None:
            self._mean = g.copy()
        self._scores = -np.abs(g - self._mean).astype(np.float32)
        self._mean += self.alpha * (g - self._mean)
        self.frames_seen += 1
        return self.mask_from_scores(self._scores, out=fgmask)

    def get_params(self):
        return {"median": self.median, "threshold": self.threshold}


def square_frame(i: int, h: int = H, w: int = W) -> tuple[np.ndarray, np.ndarray]:
    """Frame ``i`` (BGR) of a bright 4x4 square moving right over a textured background, and its
    CDnet ground truth: 255 on the square, 50 (shadow) under it, 170 on its right edge column,
    85 on the top row, 0 elsewhere."""
    rng = np.random.default_rng(1000 + i)
    bg = (60 + 10 * np.sin(np.arange(w)[None, :] / 3.0) + rng.integers(0, 3, (h, w))).astype(np.uint8)
    img = bg.copy()
    gt = np.zeros((h, w), np.uint8)
    x = 1 + (i % (w - 5))
    img[4:8, x : x + 4] = 220
    gt[4:8, x : x + 3] = 255
    gt[4:8, x + 3] = 170
    gt[8, x : x + 4] = 50
    gt[0, :] = 85
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), gt


def make_sequence(
    root: Path,
    n: int = 30,
    temporal=(10, 25),
    roi: np.ndarray | None = None,
    gt_frames=None,
    gt_shape=None,
    name: str = "tiny",
) -> Path:
    """Write a CDnet-layout sequence ``root/name`` (PNG inputs: lossless)."""
    seq = root / name
    (seq / "input").mkdir(parents=True)
    (seq / "groundtruth").mkdir()
    for i in range(1, n + 1):
        img, gt = square_frame(i)
        cv2.imwrite(str(seq / "input" / f"in{i:06d}.png"), img)
        if gt_frames is None or i in gt_frames:
            if gt_shape is not None:
                gt = cv2.resize(gt, gt_shape[::-1], interpolation=cv2.INTER_NEAREST)
            cv2.imwrite(str(seq / "groundtruth" / f"gt{i:06d}.png"), gt)
    if temporal is not None:
        (seq / "temporalROI.txt").write_text(f"{temporal[0]} {temporal[1]}\n")
    if roi is not None:
        cv2.imwrite(str(seq / "ROI.bmp"), roi.astype(np.uint8) * 255)
    return seq


@pytest.fixture
def tiny_seq(tmp_path) -> Path:
    roi = np.ones((H, W), bool)
    roi[:, :2] = False
    return make_sequence(tmp_path, roi=roi)
