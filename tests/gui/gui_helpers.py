"""GUI test helpers: drive a window, and a reference run of the same detectors fed straight into
the evaluation engine (no GUI, no thread)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import silkvision as sv
from silkvision.capture import open_source
from silkvision.evaluation import Counts, RocAccumulator, confusion_counts

START = 95  # the sample's temporal ROI starts at frame 100: frames 95.. give a few unscored frames
FRAMES = 30  # frames 95..124: 25 of them scored


def open_and_run(qtbot, win, source, start=START, frames=FRAMES):
    """Open ``source``, seek to ``start`` and play until the window's max_frames; draw the last."""
    with qtbot.waitSignal(win.worker.opened, timeout=10_000):
        win.open_source(source)
    with qtbot.waitSignal(win.worker.ended, timeout=60_000):
        win.seek(start)
        win.play()
    win.draw_now()
    assert win.result is not None and win.result.processed == frames
    return win.result


@dataclass
class Reference:
    silk: object
    second: object
    roc: RocAccumulator
    roc2: RocAccumulator | None
    counts2: Counts  # of the second detector's masks as returned by apply (post-processed)
    last_index: int
    counts: Counts = Counts(0, 0, 0, 0)  # of SILK's masks as returned by apply


def reference_run(source, second="norma", start=START, frames=FRAMES, config=None) -> Reference:
    """The same detectors and frames, fed directly to RocAccumulator under CDnet rules."""
    silk = sv.create_subtractor("silk", config=config)
    det2 = sv.create_subtractor(second, config=config)
    bins = 4096
    roc = RocAccumulator(*silk.score_range, bins=bins, thresholds=(silk.threshold,))
    roc2 = (
        RocAccumulator(*det2.score_range, bins=bins, thresholds=(det2.threshold,))
        if det2.has_scores
        else None
    )
    counts = counts2 = Counts(0, 0, 0, 0)
    with open_source(source) as src:
        src.seek(start)
        first, last = src.temporal_roi
        for k, (index, frame) in enumerate(src):
            if k == frames:
                break
            mask = silk.apply(frame)
            mask2 = det2.apply(frame)
            if first <= index <= last:
                gt = src.groundtruth(index)
                roc.update(silk.scores, gt, src.roi)
                if roc2 is not None:
                    roc2.update(det2.scores, gt, src.roi)
                counts = counts + confusion_counts(mask, gt, src.roi)
                counts2 = counts2 + confusion_counts(mask2, gt, src.roi)
            last_index = index
    return Reference(silk, det2, roc, roc2, counts2, last_index, counts)


def fpr_tpr(c: Counts) -> tuple[float, float]:
    return c.fp / (c.fp + c.tn), c.tp / (c.tp + c.fn)


def binary(mask) -> bool:
    return set(np.unique(mask)) <= {0, 255}


def type_into(qtbot, box, text: str) -> str:
    """Type ``text`` key by key over a spin box's whole text, then press Enter (keys the box refuses
    are dropped, as for a user); returns the text shown before Enter."""
    from PyQt5.QtCore import Qt

    edit = box.lineEdit()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    shown = edit.text()
    qtbot.keyClick(edit, Qt.Key_Return)
    return shown


def write_frames(folder, n: int, size=(32, 24), seed: int = 0, pattern: str = "in{:06d}.png"):
    """``n`` noise frames of ``size`` (width, height) in ``folder``, numbered from 1; with a
    ``gt...`` pattern, ground-truth masks of random CDnet labels."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for i in range(1, n + 1):
        if pattern.startswith("gt"):
            img = rng.choice(np.array([0, 50, 85, 170, 255], np.uint8), (size[1], size[0]))
        else:
            img = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
        assert cv2.imwrite(str(folder / pattern.format(i)), img)
    return folder


def write_video(path, n: int, size=(32, 24), keep: float = 1.0):
    """An MJPG video of ``n`` noise frames; ``keep`` < 1 cuts the file to that fraction of its bytes,
    so that the container still reports ``n`` frames but the later ones cannot be decoded."""
    import cv2

    rng = np.random.default_rng(1)
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, size)
    assert vw.isOpened()
    for _ in range(n):
        vw.write(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8))
    vw.release()
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path
