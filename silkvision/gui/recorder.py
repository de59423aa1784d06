"""The GUI's mask recording: the masks being shown, written as ``silkvision export`` lays them out.

``FOLDER/<algorithm>/bin%06d.png`` (0/255, numbered like the input, written atomically), the
settings of the last mask written in ``FOLDER/<algorithm>/config.yaml``, and
``FOLDER/<algorithm>/recording.json``, which names the source recorded.

A recording never mixes sources or overwrites other files: the first time it touches
``FOLDER/<algorithm>`` the folder must be empty (or missing), or hold a recording of the same source
(the same file or folder, by its resolved path and the fingerprint of its files, at the same frame
size; for a camera, the same opening of it), which the recording then continues, replacing masks of
the frames recorded again. A folder holding an export (``export.json``), a recording of another
source or any other file is refused with :class:`~silkvision.errors.ExportError` naming what
differs. ``config.yaml`` is written once the source is known, with ``recording.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from silkvision.errors import ExportError
from silkvision.io.manifest import RECORDING_FILE, read_json

__all__ = ["MaskRecorder", "RECORDING_FILE"]


class MaskRecorder:
    """Write the masks being shown to ``folder/<algorithm>/`` (module docstring).

    Parameters
    ----------
    folder : path
        The recording folder; one sub-folder per algorithm.
    source : dict, optional
        What identifies the source (``spec``, ``kind``, ``size`` and the files' ``fingerprint``, or
        for a camera when it was opened); set by the pipeline when the source is known (:meth:`bind`).
    """

    def __init__(self, folder: str | Path, source: dict | None = None):
        self.folder = Path(folder)
        self.source = source
        self._files: set[tuple[str, int]] = set()  # a mask written again (threshold, seek back) counts once
        self._claimed: set[str] = set()  # algorithm folders checked (and described) by this recorder
        self._pending: dict[str, dict] = {}  # config.yaml to write once the source is known

    @property
    def written(self) -> int:
        """Number of mask files written (each file once, however often it was rewritten)."""
        return len(self._files)

    def bind(self, source: dict) -> None:
        """Set the source recorded (a recording started before any source was open)."""
        self.source = source
        for algorithm in sorted(self._claimed):  # claimed empty: only this recording wrote there
            self._describe(algorithm)
        for algorithm, cfg in self._pending.items():
            self._write_config(algorithm, cfg)
        self._pending.clear()

    # -- the folder rule ---------------------------------------------------------------------
    def _claim(self, algorithm: str) -> Path:
        out = self.folder / algorithm
        if algorithm in self._claimed:
            return out
        self._check(algorithm, out)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ExportError(f"{out}: cannot create the recording folder ({e.strerror})") from None
        self._claimed.add(algorithm)
        self._describe(algorithm)
        return out

    def _check(self, algorithm: str, out: Path) -> None:
        """ExportError naming what ``out`` holds unless this recording may write there."""
        try:
            names = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        except OSError as e:
            raise ExportError(f"{out}: cannot read the recording folder ({e.strerror})") from None
        if out.exists() and not out.is_dir():
            raise ExportError(f"{out}: is a file; expected a folder to record {algorithm} masks into")
        if not names:
            return
        advice = "record into an empty folder, or into one recorded from this source"
        if "export.json" in names:
            raise ExportError(f"{out}: holds a silkvision export (export.json); {advice}")
        if RECORDING_FILE in names:
            other = read_json(out / RECORDING_FILE)
            if self.source is not None and other == self.source:
                return
            raise ExportError(f"{out}: holds {_recording_of(other, self.source)}; {advice}")
        raise ExportError(f"{out}: holds {names[0]}, which no recording of this source wrote; {advice}")

    def _describe(self, algorithm: str) -> None:
        """Write ``recording.json`` of a folder just claimed, or of every claimed folder when the
        source becomes known (:meth:`bind`); nothing before that."""
        if self.source is None:
            return
        from silkvision.io.atomic import atomic_write_text, reported_write_errors

        path = self.folder / algorithm / RECORDING_FILE
        with reported_write_errors(path):
            atomic_write_text(path, json.dumps(self.source, indent=1) + "\n")

    # -- writing -----------------------------------------------------------------------------
    def write_config(self, algorithm: str, config: dict) -> None:
        """Write ``config.yaml`` (the settings of the masks written from now on); before the
        source is known, with ``recording.json`` when it is (:meth:`bind`)."""
        self._claim(algorithm)
        cfg = {**config, "detector": {**config["detector"], "algorithm": algorithm}}
        if self.source is None:  # written with recording.json: a folder never holds it alone
            self._pending[algorithm] = cfg
        else:
            self._write_config(algorithm, cfg)

    def _write_config(self, algorithm: str, cfg: dict) -> None:
        from silkvision.config import write_config

        write_config(cfg, self.folder / algorithm / "config.yaml")

    def write(self, algorithm: str, index: int, mask: np.ndarray) -> Path:
        from silkvision.io.writers import mask_name, write_mask_png

        out = self._claim(algorithm)
        path = write_mask_png(out / mask_name(index), mask)
        self._files.add((algorithm, index))
        return path


#: the parts of a source's identity, and what a difference in each means
_DIFFERENCES = (
    ("kind", "read as another kind of source"),
    ("size", "at another frame size"),
    ("fingerprint", "whose files have changed since"),
    ("opened", "from another opening of the camera"),
)


def _recording_of(other, source: dict | None) -> str:
    """What a ``recording.json`` that does not match ``source`` describes, naming the difference."""
    spec = other.get("spec") if isinstance(other, dict) else None
    if not isinstance(spec, str):
        return f"an unreadable {RECORDING_FILE}"
    if source is None or spec != source.get("spec"):
        return f"a recording of {spec}"
    for key, what in _DIFFERENCES:
        if other.get(key) != source.get(key):
            return f"a recording of {spec} {what}"
    return f"a recording of {spec} with other keys in its {RECORDING_FILE} ({', '.join(sorted(other))})"
