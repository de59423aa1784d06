"""Byte-reproducible ``.npz`` files, written atomically.

``numpy.savez`` stamps every member with the current time, so two runs that compute the same
arrays write different bytes. :func:`save_npz` writes the same format (``numpy.load`` reads it) with
a fixed member timestamp, so identical arrays give identical files -- which lets a resumed export be
checked byte for byte against an uninterrupted one.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from silkvision.io.atomic import atomic_write_with

__all__ = ["save_npz", "npz_bytes", "load_npz"]

_EPOCH = (1980, 1, 1, 0, 0, 0)


def _write_npz(f, arrays: Mapping[str, np.ndarray], compress: bool) -> None:
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(
        f, "w", compression=method, compresslevel=6 if compress else None, allowZip64=True
    ) as zf:
        for name, arr in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            with zf.open(info, "w", force_zip64=True) as member:  # streamed: no in-memory copy
                np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=False)


def npz_bytes(arrays: Mapping[str, np.ndarray], compress: bool = True) -> bytes:
    """The bytes of an ``.npz`` archive holding ``arrays`` (deterministic for equal inputs)."""
    buf = io.BytesIO()
    _write_npz(buf, arrays, compress)
    return buf.getvalue()


def save_npz(path, arrays: Mapping[str, np.ndarray], compress: bool = True) -> Path:
    """Write ``arrays`` to ``path`` as an ``.npz`` archive, atomically and reproducibly.

    ``compress=False`` stores the arrays uncompressed (fast; used for detector checkpoints).
    """

    def _w(tmp: str) -> None:
        with open(tmp, "wb") as f:
            _write_npz(f, arrays, compress)

    return atomic_write_with(Path(path), _w)


def load_npz(path) -> dict[str, np.ndarray]:
    """All arrays of an ``.npz`` file as a dict (no pickles)."""
    with np.load(Path(path), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}
