"""Checks of the arguments every capture source takes: ``resize``, ``max_frames`` and frame numbers."""

from __future__ import annotations

import numpy as np

from silkvision.config.schema import MAX_FRAME_SIDE
from silkvision.errors import plain

__all__ = ["check_resize", "check_max_frames", "check_index", "MAX_FRAME_SIDE"]


def check_resize(resize) -> tuple[int, int] | None:
    """Validate ``resize`` (None or ``(width, height)``, integers in 1..:data:`MAX_FRAME_SIDE`, the
    bound of the ``capture.resize`` config key) and return it as a tuple of ints."""
    if resize is None:
        return None
    try:
        w, h = resize
        ok = all(
            isinstance(v, (int, np.integer))
            and not isinstance(v, (bool, np.bool_))
            and 0 < v <= MAX_FRAME_SIDE
            for v in (w, h)
        )
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(
            f"resize: {resize!r} is not allowed; expected None or (width, height) "
            f"with integers in 1..{MAX_FRAME_SIDE}"
        )
    return int(w), int(h)


def check_max_frames(max_frames) -> int | None:
    """Validate ``max_frames`` (None or an int >= 1)."""
    if max_frames is None:
        return None
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) or max_frames < 1:
        raise ValueError(f"max_frames: {max_frames!r} is not allowed; expected None or an integer >= 1")
    return int(max_frames)


def check_index(index) -> int:
    """A frame number as an ``int``: ``ValueError`` naming ``index`` for anything that is not an
    integer (``100.9`` used to read frame 100, ``True`` frame 1)."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"index: {plain(index)!r} is not a frame number; expected an integer")
    return int(index)
