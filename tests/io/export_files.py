"""What an export folder holds, for the tests that compare two exports."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file directly in ``folder``, by name, with its bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def video_frames(path: Path) -> list[np.ndarray]:
    """The decoded frames of a mask video (first channel)."""
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f[..., 0].copy())
    cap.release()
    return frames
