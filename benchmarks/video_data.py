"""Where the benchmark scripts find the CDnet-layout video sequences of the shared data.

``$SILKVISION_VIDEO_DATA`` if set (the ``video/`` folder of the shared data), else
``../shared/data/video`` beside the checkout; each script's ``--root``/``--data`` overrides both.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

VIDEO_ENV = "SILKVISION_VIDEO_DATA"
VIDEO_ROOT = Path(
    os.environ.get(VIDEO_ENV) or Path(__file__).resolve().parents[1].parent / "shared" / "data" / "video"
)


def check_sequences(root: Path, names) -> None:
    """Exit with one line, before any work or worker process starts, when a sequence is missing
    (a worker that exits on it would leave a process pool waiting for ever)."""
    for name in names:
        folder = Path(root) / name
        if not (folder / "input").is_dir():
            sys.exit(
                f"{folder}: no CDnet sequence there (no input/ folder); pass --root/--data DIR or "
                f"set {VIDEO_ENV} to the video/ folder of the shared data"
            )
