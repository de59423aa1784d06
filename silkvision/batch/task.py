"""The work of one source, run on a Dask worker: the resumable export of :mod:`silkvision.export`.

:func:`export_job` never raises for a source that cannot be exported (missing, corrupt, refused
output folder): it returns a record whose ``status`` is ``"failed"`` and whose ``error`` is the
one-line message, so one bad source fails alone. A worker that dies mid-export (killed, out of
memory) is Dask's business: it runs the task again on another worker, and the export resumes from
its checkpoint in the shared output folder.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

from silkvision.errors import SilkvisionError, out_of_memory
from silkvision.export import export_masks  # the one place the batch reaches the export engine
from silkvision.io.manifest import MANIFEST

__all__ = ["export_job", "PROGRESS_TOPIC", "record"]

#: Dask event topic of the per-source progress (frames written so far)
PROGRESS_TOPIC = "silkvision-batch-progress"

#: record fields, in the order of ``batch.csv``
FIELDS = (
    "name",
    "source",
    "status",
    "frames",
    "processed",
    "fps",
    "seconds",
    "worker",
    "resumed_from",
    "error",
    "out",
)


def record(name: str, source: str, out: str | None, status: str, **values) -> dict:
    """One row of ``batch.json``: every field of :data:`FIELDS` (None where unknown)."""
    row = dict.fromkeys(FIELDS)
    row.update(name=name, source=source, out=out, status=status, **values)
    return row


def _worker():
    """The Dask worker running this task, or None outside one."""
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):
        return None


def _masks_written(out: Path) -> int:
    try:
        with os.scandir(out) as it:
            return sum(1 for e in it if e.name.startswith("bin") and e.name.endswith(".png"))
    except OSError:
        return 0


class _ProgressReporter:
    """Sends ``{"name", "frames", "total"}`` to the client every ``interval`` seconds, as a Dask
    event (:data:`PROGRESS_TOPIC`): the masks in the output folder, and the source's frame count
    from the export's manifest once it is written."""

    def __init__(self, worker, name: str, out: Path, interval: float):
        self.worker, self.name, self.out, self.interval = worker, name, out, interval
        self.total = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"progress {name}", daemon=True)

    def __enter__(self):
        if self.worker is not None and self.interval > 0:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if self.total is None:
                try:
                    self.total = json.loads((self.out / MANIFEST).read_text()).get("source_frames")
                except (OSError, ValueError, AttributeError):
                    pass
            self.worker.log_event(
                PROGRESS_TOPIC, {"name": self.name, "frames": _masks_written(self.out), "total": self.total}
            )


def _error_line(exc: BaseException) -> str:
    if isinstance(exc, SilkvisionError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return out_of_memory(exc)
    text = str(exc).strip().splitlines()
    return f"unexpected {type(exc).__name__}" + (f": {text[0]}" if text else "")


def export_job(
    source: str,
    name: str,
    out,
    config: dict,
    options: dict | None = None,
    *,
    interval: float = 1.0,
    export=None,
) -> dict:
    """Export one source into ``out`` as ``silkvision export`` does; the task of a batch.

    Parameters
    ----------
    source : str
        What :func:`~silkvision.export.export_masks` opens.
    name : str
        The source's name in the batch (its output folder's name).
    out : path
        Its output folder.
    config : dict
        The configuration (loaded on the client: workers read no ``config.yaml`` of their own).
    options : dict, optional
        ``algorithm``, ``scores``, ``video``, ``overwrite`` overrides of ``export_masks``.
    interval : float
        Seconds between progress events (0: none).
    export : callable, optional
        Called instead of ``export_masks`` with the same arguments (tests).

    Returns
    -------
    dict
        A :func:`record`: status ``"done"``, ``"skipped"`` (already complete) or ``"failed"``,
        plus ``notes``, the export's messages (resumed after frame N, ...).
    """
    t0 = time.perf_counter()
    worker = _worker()
    where = worker.address if worker is not None else f"{socket.gethostname()}:{os.getpid()}"
    out = Path(out)
    notes: list[str] = []
    try:
        with _ProgressReporter(worker, name, out, interval):
            res = (export or export_masks)(
                source, out, config, progress=False, log=notes.append, handle_signals=False, **(options or {})
            )
    except Exception as e:  # noqa: BLE001 - one bad source must not stop the batch
        return record(
            name,
            source,
            str(out),
            "failed",
            worker=where,
            error=_error_line(e),
            seconds=round(time.perf_counter() - t0, 3),
            notes=notes,
        )
    status = "skipped" if res.already_complete else "done" if res.complete else "failed"
    return record(
        name,
        source,
        str(out),
        status,
        frames=res.frames,
        processed=res.processed,
        fps=round(res.fps, 2),
        seconds=round(time.perf_counter() - t0, 3),
        worker=where,
        resumed_from=res.resumed_from,
        error=None if res.complete else (notes[-1] if notes else "export did not finish"),
        notes=notes,
    )
