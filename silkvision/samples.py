"""Sample data shipped with silkvision (in the spirit of ``skimage.data``).

>>> import silkvision as sv
>>> seq = sv.samples.highway()     # Path of a CDnet-layout folder (input/, groundtruth/, ...)
"""

from __future__ import annotations

from pathlib import Path

from silkvision.errors import SourceError

__all__ = ["samples_dir", "highway"]


def samples_dir() -> Path:
    """Folder holding the shipped samples (``samples/`` at the top of the source tree)."""
    here = Path(__file__).resolve().parent
    for cand in (here.parent / "samples", here / "_samples"):
        if cand.is_dir():
            return cand
    raise SourceError(f"samples folder not found next to {here}; reinstall silkvision from its source tree")


def highway() -> Path:
    """CDnet-layout clip cut from CDnet2014 baseline/highway (400 frames, 320x240, with ground
    truth, ``temporalROI.txt`` and ``ROI.bmp``). See ``samples/README.md`` for its provenance."""
    p = samples_dir() / "highway"
    if not (p / "input").is_dir():
        raise SourceError(f"{p}: sample clip is missing its input/ folder")
    return p
