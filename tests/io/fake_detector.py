"""A small deterministic, checkpointable detector for export tests (imported by the tests and by the
subprocess helper ``run_export_with_fake.py``)."""

from __future__ import annotations

import os
import signal
import time

import numpy as np


class FakeDetector:
    """Running-mean background on grey levels; scores = -|frame - background| (lower = novel)."""

    name = "fake"
    has_scores = True
    threshold = -20.0

    def __init__(self, sleep: float = 0.0, checkpointable: bool = True):
        self.sleep = sleep
        self.checkpointable = checkpointable
        self.reset()

    def reset(self):
        self.bg = None
        self.frames_seen = 0
        self._scores = None

    @property
    def scores(self):
        return self._scores

    def apply(self, frame, learningRate=-1, fgmask=None):
        g = frame.astype(np.float32).mean(axis=2)
        if self.bg is None:
            self.bg = g.copy()
        self._scores = -np.abs(g - self.bg)
        self.bg += np.float32(0.05) * (g - self.bg)
        self.frames_seen += 1
        if self.sleep:
            time.sleep(self.sleep)
        return np.where(self._scores < self.threshold, 255, 0).astype(np.uint8)

    def get_state(self):
        if not self.checkpointable:
            raise NotImplementedError("fake: no checkpoint")
        return {"bg": self.bg.copy(), "frames_seen": np.int64(self.frames_seen)}

    def set_state(self, state):
        if not self.checkpointable:
            raise NotImplementedError("fake: no checkpoint")
        self.bg = np.array(state["bg"], np.float32)
        self.frames_seen = int(state["frames_seen"])


def interrupt_after(det: FakeDetector, frames: int) -> FakeDetector:
    """``det``, made to send this process SIGINT (as Ctrl-C does) once it has seen ``frames`` frames."""
    apply = det.apply

    def apply_then_interrupt(frame, *a, **k):
        mask = apply(frame, *a, **k)
        if det.frames_seen == frames:
            os.kill(os.getpid(), signal.SIGINT)
        return mask

    det.apply = apply_then_interrupt
    return det


def from_env() -> FakeDetector:
    return FakeDetector(
        sleep=float(os.environ.get("FAKE_SLEEP", "0")),
        checkpointable=os.environ.get("FAKE_CHECKPOINT", "1") == "1",
    )
