"""Checks of the files a resume keeps: a mask or scores file is kept only if it is a regular file
(not a symbolic link) that decodes to an array of the frames' size; anything else is written again."""

from __future__ import annotations

from collections.abc import Container
from pathlib import Path

import cv2
import numpy as np

from silkvision.capture import Source, read_image
from silkvision.errors import SourceError
from silkvision.io.checkpoint import describe_error, indices_through
from silkvision.io.npz import load_npz
from silkvision.io.writers import mask_name, scores_name

__all__ = ["mask_problem", "scores_problem", "first_bad_output"]


def _not_a_plain_file(path: Path) -> str | None:
    if path.is_symlink():
        return "is a symbolic link"
    if not path.is_file():
        return "is missing"
    return None


def _size_problem(shape: tuple, size: tuple[int, int] | None) -> str | None:
    """``shape`` (rows, columns) against ``size`` (width, height); None when they agree or ``size``
    is unknown."""
    if size is None or (shape[1], shape[0]) == tuple(size):
        return None
    return f"is {shape[1]}x{shape[0]}, not {size[0]}x{size[1]}"


def mask_problem(path: Path, size: tuple[int, int] | None = None) -> str | None:
    """Why the mask file ``path`` cannot be kept (None when it can).

    Parameters
    ----------
    path : Path
        A ``bin%06d.png`` file.
    size : (width, height), optional
        The size the mask must have; not checked when None.

    Returns
    -------
    str or None
        E.g. ``"is a symbolic link"``, ``"is missing"``, ``"cannot decode (...)"``,
        ``"is 10x10, not 320x240"``.
    """
    problem = _not_a_plain_file(path) or _png_truncated(path)
    if problem:
        return problem
    try:
        m = read_image(path, cv2.IMREAD_UNCHANGED, "a mask image")
    except SourceError as e:
        return _reason(e, path)
    if m.ndim != 2 or m.dtype != np.uint8:
        return f"is not a grey 8-bit image ({m.dtype} {'x'.join(map(str, m.shape))})"
    return _size_problem(m.shape, size)


#: the last 12 bytes of every PNG file: the empty IEND chunk and its CRC
_PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _png_truncated(path: Path) -> str | None:
    """ "is truncated" when the PNG file ``path`` does not end with its IEND chunk (checked before
    decoding, so that libpng does not print its own error for the common case of a cut file)."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - len(_PNG_END)))
            tail = f.read()
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    return None if tail == _PNG_END else "is truncated (no PNG end chunk)"


def scores_problem(path: Path, size: tuple[int, int] | None = None) -> str | None:
    """Why the scores file ``path`` cannot be kept (None when it can): as :func:`mask_problem`, for
    a ``.npz`` file whose member ``scores`` is a float16 array of ``size``."""
    problem = _not_a_plain_file(path)
    if problem:
        return problem
    try:
        scores = load_npz(path)["scores"]
    except Exception as e:  # noqa: BLE001 - truncated/garbled zip or .npy: BadZipFile, ValueError, ...
        return f"cannot be read back ({describe_error(e)})"
    if scores.ndim != 2 or scores.dtype != np.float16:
        return f"is not a float16 HxW array ({scores.dtype} {'x'.join(map(str, scores.shape))})"
    return _size_problem(scores.shape, size)


def _reason(e: SourceError, path: Path) -> str:
    """The middle of ``PATH: REASON; expected ...``."""
    text = str(e)
    prefix = f"{path}: "
    text = text[len(prefix) :] if text.startswith(prefix) else text
    return text.split("; expected", 1)[0]


def first_bad_output(
    out: Path,
    src: Source,
    last: int,
    scores: bool,
    size: tuple[int, int] | None = None,
    skipped: Container[int] = frozenset(),
) -> tuple[str, str] | None:
    """``(file name, problem)`` of the first mask (or, with ``scores``, scores file) of the frames
    of ``src`` up to ``last`` that cannot be kept; None when all can. Frames of ``skipped`` (bad
    frames passed over) have no files.

    Without ``size``, the first mask's size is the one all must have.
    """
    for i in indices_through(src, last):
        if i in skipped:
            continue
        name = mask_name(i)
        problem = mask_problem(out / name, size)
        if problem is None and size is None:
            size = _shape_size(out / name)
        if problem is None and scores:
            name = scores_name(i)
            problem = scores_problem(out / name, size)
        if problem is not None:
            return name, problem
    return None


def _shape_size(path: Path) -> tuple[int, int]:
    m = read_image(path, cv2.IMREAD_UNCHANGED, "a mask image")
    return m.shape[1], m.shape[0]
