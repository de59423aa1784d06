"""The checkpoint ``DIR/checkpoint.npz`` of an unfinished export: the detector state after a frame.

Written every ``export.checkpoint_every`` frames and on SIGINT/SIGTERM; a resume restores the
detector from it when it can be read and fits the export (:func:`load_checkpoint`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from silkvision.capture import Source
from silkvision.capture.folder import FolderSource
from silkvision.errors import ExportError
from silkvision.io.npz import load_npz, save_npz
from silkvision.io.writers import mask_name, scores_name

__all__ = [
    "CHECKPOINT",
    "can_checkpoint",
    "save_checkpoint",
    "load_checkpoint",
    "BadCheckpoint",
    "describe_error",
    "indices_through",
    "frame_digest",
]

CHECKPOINT = "checkpoint.npz"


def _get_state(det) -> dict | None:
    try:
        return det.get_state()
    except NotImplementedError:
        return None


def can_checkpoint(det) -> bool:
    """Whether ``det`` has a state to checkpoint at all (MOG2/KNN do not); a detector whose
    ``get_state`` fails for another reason (no frame seen yet) can checkpoint later."""
    try:
        det.get_state()
    except NotImplementedError:
        return False
    except Exception:  # noqa: BLE001 - e.g. "no frame seen yet": it can checkpoint later
        return True
    return True


def frame_digest(frame: np.ndarray) -> bytes:
    """A 16-byte digest of a frame's size and pixels: a resume checks with it that seeking in the
    source found the checkpoint's frame (some containers, e.g. MPEG-1/2 program streams, seek
    to the wrong frame inside the first group of pictures)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr(frame.shape).encode())
    h.update(np.ascontiguousarray(frame).data)
    return h.digest()


def save_checkpoint(out: Path, det, index: int, frames: int, frame: np.ndarray | None = None) -> bool:
    """Save the state of ``det`` after frame ``index`` (the ``frames``-th of the export; with
    ``frame``, that frame's :func:`frame_digest`) to ``out/checkpoint.npz``; False (nothing
    written) when ``det`` cannot be checkpointed."""
    state = _get_state(det)
    if state is None:
        return False
    arrays = {f"state.{k}": np.asarray(v) for k, v in state.items()}
    # decimal text: frame numbers from time-stamped file names can exceed int64
    arrays["_index"] = np.array(str(int(index)))
    arrays["_frames"] = np.int64(frames)
    if frame is not None:
        arrays["_frame_digest"] = np.frombuffer(frame_digest(frame), np.uint8)
    try:
        save_npz(out / CHECKPOINT, arrays, compress=False)
    except OSError as e:
        raise ExportError(
            f"{out / CHECKPOINT}: cannot write checkpoint ({e.strerror}); free space, "
            f"or run again with --set export.checkpoint_every=0 (a checkpoint only "
            f"when interrupted)"
        ) from None
    return True


class BadCheckpoint(Exception):
    """``checkpoint.npz`` cannot be read, or does not fit this export; the message says why."""


def describe_error(e: BaseException) -> str:
    """The first line of an exception's message (its type name when it has none)."""
    if isinstance(e, KeyError) and e.args:
        return f"missing key {e.args[0]!r}"
    text = str(e).splitlines()[0].strip() if str(e).strip() else ""
    return text or type(e).__name__


def load_checkpoint(
    out: Path, src: Source | None = None, scores: bool = False
) -> tuple[dict, int, int, bytes | None]:
    """``(state, index, frames, digest)`` of ``out/checkpoint.npz``: the detector state after frame
    ``index``, the ``frames``-th frame of the export, and that frame's :func:`frame_digest` (None
    in a checkpoint saved without one). Raises :class:`BadCheckpoint` when the file
    cannot be read, or (given ``src``) names a frame that this source lacks, or one up to it whose
    mask (or, with ``scores``, scores file) is not on disk."""
    path = out / CHECKPOINT
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
        if not magic:
            raise BadCheckpoint("empty file")
        if magic != b"PK\x03\x04":  # every .npz is a zip archive
            raise BadCheckpoint("not a .npz (zip) file")
        z = load_npz(path)
    except OSError as e:
        raise BadCheckpoint(e.strerror or describe_error(e)) from None
    except BadCheckpoint:
        raise
    except Exception as e:  # noqa: BLE001 - truncated/garbled zip or .npy: BadZipFile, ValueError, ...
        raise BadCheckpoint(f"truncated or damaged .npz file: {describe_error(e)}") from None
    ints = {}
    for key in ("_index", "_frames"):
        v = z.pop(key, None)
        if v is None:
            raise BadCheckpoint(f"no {key!r} member")
        text = str(v) if v.shape == () and v.dtype.kind == "U" else ""
        if v.shape != () or not (v.dtype.kind in "iu" or (text.isascii() and text.isdecimal())):
            raise BadCheckpoint(f"{key!r} is {v.dtype} {v.shape}, not an integer")
        ints[key] = int(text or v)
    index, frames = ints["_index"], ints["_frames"]
    stored_digest = z.pop("_frame_digest", None)
    digest = None
    if stored_digest is not None:
        if stored_digest.dtype != np.uint8 or stored_digest.shape != (16,):
            raise BadCheckpoint(
                f"'_frame_digest' is {stored_digest.dtype} {stored_digest.shape}, not 16 bytes"
            )
        digest = stored_digest.tobytes()
    state = {k[len("state.") :]: v for k, v in z.items() if k.startswith("state.")}
    if not state:
        raise BadCheckpoint("no detector state")
    if src is not None:
        problem = _checkpoint_mismatch(out, src, index, frames, scores)
        if problem:
            raise BadCheckpoint(problem)
    return state, index, frames, digest


def _checkpoint_mismatch(out: Path, src: Source, index: int, frames: int, scores: bool = False) -> str | None:
    """Why a checkpoint after frame ``index`` (the ``frames``-th) cannot be the one of this export
    of ``src`` (None when it can): every frame up to it has been exported, so ``index`` is a frame
    of the source at position ``frames`` and the masks (with ``scores``, also the scores files) of
    all frames up to it are on disk -- resuming after a gap would finish an export with a file
    missing, whereas a replay from the first frame re-creates it."""
    indices = getattr(src, "indices", None)  # FolderSource / CdnetSource
    if indices is not None:
        ok = 1 <= frames <= len(indices) and indices[frames - 1] == index
    else:
        n = src.frame_count
        ok = frames >= 1 and index == src.first_index + frames - 1 and (n is None or frames <= n)
    if not ok:
        return f"frame {index} as export frame {frames} does not match {src.spec}"
    names = (mask_name, scores_name) if scores else (mask_name,)
    for i in indices_through(src, index):
        for name in names:
            if not (out / name(i)).is_file():
                return f"{name(i)}, written before it, is missing"
    return None


def indices_through(src: Source, last: int):
    """Numbers of the frames of ``src`` from its first one up to ``last``, in order."""
    if isinstance(src, FolderSource):
        return [i for i in src.indices if i <= last]
    return range(src.first_index, last + 1)
