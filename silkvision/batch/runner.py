"""Run a batch: one Dask task per source (:func:`~silkvision.batch.task.export_job`), results
collected as they finish into ``batch.json``/``batch.csv``, one progress bar over the batch."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from silkvision.batch.cluster import Cluster
from silkvision.batch.report import REPORT_JSON, write_report
from silkvision.batch.sources import Job
from silkvision.batch.task import PROGRESS_TOPIC, export_job, record
from silkvision.errors import ExportError
from silkvision.io.atomic import make_output_folder

__all__ = ["BatchResult", "run_batch"]

#: seconds between two rewrites of the report while the batch runs (and at its end, always)
REPORT_EVERY = 5.0


@dataclass
class BatchResult:
    """What :func:`run_batch` did: one record per source (see :mod:`silkvision.batch.report`)."""

    records: list
    seconds: float
    where: str
    reports: list

    @property
    def failed(self) -> list:
        return [r for r in self.records if r["status"] == "failed"]


class _Bar:
    """One tqdm bar over the batch: frames written (from the workers' progress events and the
    finished tasks), with videos finished / total and failures in its postfix."""

    def __init__(self, names: list[str], enabled: bool):
        from tqdm import tqdm

        self.lock = threading.Lock()
        self.frames = dict.fromkeys(names, 0)
        self.totals: dict = {}
        self.videos = len(names)
        self.finished = self.failed = 0
        self.bar = tqdm(
            total=None,
            unit="frame",
            file=sys.stderr,
            disable=not enabled,
            dynamic_ncols=True,
            desc="batch",
            leave=True,
        )
        self._post()

    def _post(self) -> None:
        total = sum(self.totals.values()) if len(self.totals) == self.videos else None
        if total is not None and total != self.bar.total:
            self.bar.total = total
        self.bar.set_postfix_str(
            f"videos {self.finished}/{self.videos}" + (f", {self.failed} failed" if self.failed else ""),
            refresh=False,
        )
        self.bar.n = sum(self.frames.values())
        self.bar.refresh()

    def event(self, event) -> None:
        """A progress event (the handler of :data:`PROGRESS_TOPIC`, on the client's event thread)."""
        _, msg = event
        with self.lock:
            if msg.get("name") in self.frames:
                self.frames[msg["name"]] = int(msg.get("frames") or 0)
                if msg.get("total"):
                    self.totals[msg["name"]] = int(msg["total"])
                self._post()

    def done(self, rec: dict) -> None:
        with self.lock:
            self.finished += 1
            self.failed += rec["status"] == "failed"
            if rec["name"] in self.frames:
                self.frames[rec["name"]] = rec["frames"] or 0
                self.totals[rec["name"]] = rec["frames"] or 0
            self._post()

    def close(self) -> None:
        self.bar.close()


def _lost(job: Job, out: Path, exc: BaseException) -> dict:
    """The record of a task that raised on the cluster (its export never raises): the worker died
    too often (Dask's KilledWorker), or the task could not be run at all."""
    name = type(exc).__name__
    if name == "KilledWorker":
        why = (
            "the workers running it died too often (Dask's KilledWorker: out of memory, or "
            "killed); its checkpoint is kept, run the batch again to resume"
        )
    else:
        text = str(exc).strip().splitlines()
        why = f"{name}: {text[0]}" if text else name
    return record(job.name, job.source, str(out / job.name), "failed", error=why)


def run_batch(
    jobs: list[Job],
    out,
    config: dict,
    cluster: Cluster,
    *,
    options: dict | None = None,
    progress: bool = False,
    log: Callable[[str], None] | None = None,
    interval: float = 1.0,
    export=None,
) -> BatchResult:
    """Export every job's source into ``out/<name>`` on the cluster.

    Parameters
    ----------
    jobs : list of Job
        From :func:`~silkvision.batch.sources.expand_sources`; a job with an ``error`` is recorded
        as failed without running.
    out : path
        The batch's output folder (shared by the workers: see
        :func:`~silkvision.batch.cluster.check_workers`).
    config : dict
        The configuration every export uses.
    cluster : Cluster
    options : dict, optional
        ``algorithm``, ``scores``, ``video``, ``overwrite`` for every export.
    progress : bool
        One progress bar on stderr.
    log : callable, optional
        Receives a line per finished source when there is no bar (default: none).
    interval : float
        Seconds between the workers' progress events.
    export : callable, optional
        Run instead of ``export_masks`` on the workers (tests).

    Returns
    -------
    BatchResult

    Raises
    ------
    KeyboardInterrupt
        Re-raised after the report is written, its sources not finished marked "unfinished" and
        the tasks cancelled (Ctrl-C, or SIGTERM as the command line turns it into one).
    """
    out = make_output_folder(out, ExportError).absolute()
    client = cluster.client
    t0 = time.perf_counter()
    records = [
        record(
            j.name,
            j.source,
            str(out / j.name) if j.name else None,
            "failed" if j.error else "pending",
            error=j.error,
        )
        for j in jobs
    ]
    index = {j.name: i for i, j in enumerate(jobs) if j.error is None}
    reports: list = []

    def report() -> None:
        reports[:] = write_report(out, records, seconds=time.perf_counter() - t0, where=cluster.description)

    report()
    bar = _Bar([j.name for j in jobs if j.error is None], progress)
    client.subscribe_topic(PROGRESS_TOPIC, bar.event)
    futures = {}
    try:
        from distributed import as_completed

        for j in jobs:
            if j.error is None:
                fut = client.submit(
                    export_job,
                    j.source,
                    j.name,
                    str(out / j.name),
                    config,
                    options,
                    interval=interval,
                    export=export,
                    pure=False,
                    key=f"export-{j.name}-{time.time_ns()}",
                )
                futures[fut] = j
        last = time.monotonic()
        for fut in as_completed(list(futures), loop=client.loop):
            j = futures[fut]
            try:
                rec = fut.result()
            except Exception as e:  # noqa: BLE001 - the worker died too often, or the task could not run
                rec = _lost(j, out, e)
            records[index[j.name]] = rec
            bar.done(rec)
            if not progress and log is not None:
                log(_line(rec))
            if time.monotonic() - last > REPORT_EVERY:
                report()
                last = time.monotonic()
    except BaseException as e:
        left = 0
        for i, r in enumerate(records):
            if r["status"] == "pending":
                left += 1
                records[i] = {
                    **r,
                    "status": "unfinished",
                    "error": "the batch was interrupted first; run the same command again to resume",
                }
        client.cancel(list(futures))
        if log is not None and isinstance(e, KeyboardInterrupt):
            log(
                f"interrupted with {left} of {len(records)} sources unfinished (listed in "
                f"{out / REPORT_JSON}); run the same command again to resume them"
            )
        raise
    finally:
        bar.close()
        try:
            client.unsubscribe_topic(PROGRESS_TOPIC)
        except Exception:  # noqa: BLE001 - the client may be closing
            pass
        report()
    return BatchResult(records, time.perf_counter() - t0, cluster.description, reports)


def _line(rec: dict) -> str:
    """One line about a finished source, for logs (no progress bar)."""
    if rec["status"] == "failed":
        return f"{rec['name'] or rec['source']}: failed: {rec['error']}"
    if rec["status"] == "skipped":
        return f"{rec['name']}: skipped, already complete ({rec['frames']} frames)"
    resumed = "" if rec["resumed_from"] is None else f", resumed after frame {rec['resumed_from']}"
    return (
        f"{rec['name']}: done, {rec['frames']} frames ({rec['processed']} processed{resumed}) at "
        f"{rec['fps']:.1f} fps on {rec['worker']}"
    )
