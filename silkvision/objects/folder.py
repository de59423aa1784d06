"""Object and event files of a folder of masks (an export's ``bin%06d.png``), computed after the
masks were written: the same masks give the same files, also after a resumed export."""

from __future__ import annotations

import re
from pathlib import Path

import cv2

from silkvision.capture.images import read_image
from silkvision.errors import DataError, SourceError
from silkvision.objects.events import EventTracker
from silkvision.objects.regions import find_regions
from silkvision.objects.writers import FORMATS, write_events, write_objects

__all__ = ["FORMATS", "mask_files", "object_files", "write_object_files"]

_MASK = re.compile(r"^bin(\d+)\.png$")


def mask_files(folder) -> list[tuple[int, Path]]:
    """``(frame, path)`` of every ``bin%06d.png`` in ``folder``, in frame order."""
    folder = Path(folder)
    found = []
    for p in folder.iterdir():
        m = _MASK.match(p.name)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found)


def object_files(folder, objects: str | None, events: str | None) -> dict[str, Path]:
    """The files :func:`write_object_files` writes: ``{"objects": DIR/objects.csv, ...}``."""
    folder = Path(folder)
    out = {}
    if objects:
        out["objects"] = folder / f"objects.{objects}"
    if events:
        out["events"] = folder / f"events.{events}"
    return out


def write_object_files(
    folder,
    *,
    objects: str | None = "csv",
    events: str | None = None,
    min_area: int = 1,
    event_min_frames: int = 1,
    fps: float | None = None,
    first_index: int = 1,
) -> dict[str, Path]:
    """Write ``objects.<fmt>`` and/or ``events.<fmt>`` into ``folder`` from its masks.

    Parameters
    ----------
    folder : path
        Folder of ``bin%06d.png`` masks; frames without a mask are skipped.
    objects, events : {"csv", "jsonl"} or None
        Format of each file; None: that file is not written.
    min_area : int
        Smallest region, in pixels, listed and counted as activity.
    event_min_frames : int
        Shortest event, in frames with regions.
    fps : float, optional
        Frame rate of the source, for the times (None: left empty).
    first_index : int
        Number of the source's first frame (time 0).

    Returns
    -------
    dict
        The paths written, by kind ("objects", "events").

    Raises
    ------
    DataError
        A mask cannot be read, or is not a single-channel image (the message names the file).
    """
    for what, fmt in (("objects", objects), ("events", events)):
        if fmt is not None and fmt not in FORMATS:
            raise DataError(f"{what} format {fmt!r}: expected one of {', '.join(FORMATS)}")
    tracker = EventTracker(event_min_frames, fps=fps, first_index=first_index)
    frames, found = [], []
    for index, path in mask_files(folder):
        try:
            mask = read_image(path, cv2.IMREAD_UNCHANGED, "a mask PNG (bin%06d.png)")
        except SourceError as e:
            raise DataError(str(e)) from None
        if mask.ndim != 2:
            raise DataError(f"{path}: mask with {mask.shape[2]} channels; expected a grey 0/255 mask")
        regions = find_regions(mask, min_area)
        frames.append((index, tracker.time(index), regions))
        event = tracker.update(index, regions)
        if event is not None:
            found.append(event)
    last = tracker.finish()
    if last is not None:
        found.append(last)
    paths = object_files(folder, objects, events)
    if objects:
        write_objects(paths["objects"], frames, objects)
    if events:
        write_events(paths["events"], found, events)
    return paths
