"""``OUT/batch.json`` and ``OUT/batch.csv``: one row per source (status, frames, fps, seconds,
worker, error line), written atomically while the batch runs, and the summary shown at its end.

Statuses: ``done`` (exported by this run, fresh or resumed), ``skipped`` (already complete),
``failed`` (``error`` says why), ``unfinished`` (the batch was interrupted first: running the same
command again resumes it), ``pending`` (not finished yet: only in a report written while the batch
runs).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from silkvision import __version__
from silkvision.batch.task import FIELDS
from silkvision.errors import ExportError
from silkvision.io.atomic import atomic_write_text, reported_write_errors

__all__ = ["write_report", "summary", "REPORT_JSON", "REPORT_CSV", "STATUSES"]

REPORT_JSON = "batch.json"
REPORT_CSV = "batch.csv"
STATUSES = ("done", "skipped", "failed", "unfinished", "pending")


def counts(records: list[dict]) -> dict:
    """Sources per status (every status of :data:`STATUSES`, zeros included)."""
    out = dict.fromkeys(STATUSES, 0)
    for r in records:
        out[r["status"]] += 1
    return out


def write_report(out: Path, records: list[dict], *, seconds: float, where: str) -> list[Path]:
    """Write ``batch.json`` and ``batch.csv`` into ``out`` (atomically) and return their paths.

    Parameters
    ----------
    out : Path
        The batch's output folder.
    records : list of dict
        One :func:`~silkvision.batch.task.record` per source, in the order of the sources.
    seconds : float
        Wall time of the batch so far.
    where : str
        Where it ran (``"local cluster of 2 worker processes"``, ``"scheduler tcp://..."``).
    """
    doc = {
        "silkvision": __version__,
        "ran_on": where,
        "seconds": round(seconds, 3),
        "counts": counts(records),
        "frames": sum(r["frames"] or 0 for r in records),
        "sources": records,
    }
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in records:
        w.writerow({k: "" if r.get(k) is None else r[k] for k in FIELDS})
    written = []
    for name, text in ((REPORT_JSON, json.dumps(doc, indent=2) + "\n"), (REPORT_CSV, buf.getvalue())):
        with reported_write_errors(out / name, ExportError):
            written.append(atomic_write_text(out / name, text))
    return written


def summary(records: list[dict], seconds: float, where: str, *, limit: int = 12) -> str:
    """The summary of a batch for the terminal: one line of counts and throughput, then up to
    ``limit`` sources that failed or are unfinished, one line each."""
    c = counts(records)
    frames = sum(r["processed"] or 0 for r in records if r["status"] == "done")
    rate = f", {frames / seconds:.1f} frames/s" if seconds > 0 and frames else ""
    parts = [f"{c[s]} {s}" for s in STATUSES if c[s]]
    lines = [
        f"batch of {len(records)} source{'s' if len(records) != 1 else ''} on {where}: "
        f"{', '.join(parts)}; {frames} frames processed in {seconds:.1f} s{rate}"
    ]
    bad = [r for r in records if r["status"] in ("failed", "unfinished", "pending")]
    width = max((len(r["name"] or r["source"]) for r in bad[:limit]), default=0)
    for r in bad[:limit]:
        lines.append(f"  {(r['name'] or r['source']).ljust(width)}  {r['status']}: {r['error'] or ''}")
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more (see {REPORT_JSON})")
    return "\n".join(lines)
