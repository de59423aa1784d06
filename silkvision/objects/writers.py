"""Object and event files as CSV or JSON lines, written atomically (a reader never sees half a
file, and a failed write leaves the previous file as it was)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from silkvision.config.schema import OBJECT_FORMATS as FORMATS
from silkvision.io.atomic import atomic_write_text
from silkvision.objects.events import Event
from silkvision.objects.regions import Region

__all__ = ["EVENT_COLUMNS", "FORMATS", "OBJECT_COLUMNS", "write_events", "write_objects"]

OBJECT_COLUMNS = ("frame", "time", "region", "area", "x", "y", "width", "height", "cx", "cy")
EVENT_COLUMNS = (
    "event",
    "start_frame",
    "end_frame",
    "start_time",
    "end_time",
    "frames",
    "largest_frame",
    "largest_area",
    "largest_x",
    "largest_y",
    "largest_width",
    "largest_height",
)


def _time(t: float | None) -> float | None:
    return None if t is None else round(t, 6)


def _region(r: Region) -> dict:
    d = asdict(r)
    d["cx"], d["cy"] = round(r.cx, 3), round(r.cy, 3)
    return d


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")


def _csv(rows: Iterable[dict], columns: tuple) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, columns, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: "" if v is None else v for k, v in row.items()})
    return buf.getvalue()


def write_objects(path, frames: Iterable[tuple[int, float | None, list[Region]]], fmt: str) -> Path:
    """Write the regions of each frame.

    Parameters
    ----------
    path : path
    frames : iterable of (frame, time, regions)
        In frame order; time in seconds or None.
    fmt : {"csv", "jsonl"}
        CSV: one row per region (:data:`OBJECT_COLUMNS`; ``region`` counts from 1 in each frame; an
        empty time where the frame rate is unknown). JSON lines: one line per frame,
        ``{"frame", "time", "regions": [{"area", "x", "y", "width", "height", "cx", "cy"}]}``, also
        for a frame without regions.
    """
    _check(fmt)
    if fmt == "jsonl":
        text = "".join(
            json.dumps({"frame": i, "time": _time(t), "regions": [_region(r) for r in regions]}) + "\n"
            for i, t, regions in frames
        )
    else:
        text = _csv(
            (
                {"frame": i, "time": _time(t), "region": k, **_region(r)}
                for i, t, regions in frames
                for k, r in enumerate(regions, 1)
            ),
            OBJECT_COLUMNS,
        )
    return atomic_write_text(Path(path), text)


def _event_row(k: int, e: Event) -> dict:
    r = e.largest
    return {
        "event": k,
        "start_frame": e.start_frame,
        "end_frame": e.end_frame,
        "start_time": _time(e.start_time),
        "end_time": _time(e.end_time),
        "frames": e.frames,
        "largest_frame": e.largest_frame,
        "largest_area": r.area,
        "largest_x": r.x,
        "largest_y": r.y,
        "largest_width": r.width,
        "largest_height": r.height,
    }


def write_events(path, events: Iterable[Event], fmt: str) -> Path:
    """Write motion events, one row (CSV, :data:`EVENT_COLUMNS`) or line (JSON lines, the same
    keys) per event; ``event`` counts from 1."""
    _check(fmt)
    rows = (_event_row(k, e) for k, e in enumerate(events, 1))
    if fmt == "jsonl":
        text = "".join(json.dumps(row) + "\n" for row in rows)
    else:
        text = _csv(rows, EVENT_COLUMNS)
    return atomic_write_text(Path(path), text)
