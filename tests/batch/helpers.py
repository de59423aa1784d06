"""Task stand-ins for the batch tests, imported by the Dask workers (by reference, so they live in
a module, not in a test file)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from silkvision.export import export_masks


def export_killing_worker(source, out, config, **kw):
    """``export_masks``, except that the first attempt at the source whose output folder is named
    in ``KILL_NAME``'s file beside the output folders kills its own worker process (SIGKILL) right
    after writing the mask named there: deterministic, no timing involved."""
    out = Path(out)
    plan = out.parent / ".kill-plan"
    flag = out.parent / ".killed"
    if plan.is_file() and not flag.exists():
        name, mask = plan.read_text().split()
        if out.name == name:
            import silkvision.io.writers as writers

            write = writers.atomic_write_bytes

            def write_then_die(path, data):
                done = write(path, data)
                if Path(path).name == mask:
                    flag.write_text(str(os.getpid()))
                    os.kill(os.getpid(), signal.SIGKILL)
                return done

            writers.atomic_write_bytes = write_then_die  # this worker process only: it dies
    return export_masks(source, out, config, **kw)


def export_job_stalling(source, name, out, config, options=None, *, export=None, **kw):
    """The batch's task, except that the source whose output folder is named in ``.stall-plan``
    beside the output folders stops for good right after writing the mask named there (its worker
    thread waits for an event that never comes): an export that is certainly unfinished when the
    client is interrupted, however fast the machine."""
    from silkvision.batch.task import export_job

    plan = Path(out).parent / ".stall-plan"
    if plan.is_file():
        stall, mask = plan.read_text().split()
        if name == stall:
            export = _stalling_export(mask)
    return export_job(source, name, out, config, options, export=export, **kw)


def _stalling_export(mask: str):
    def export(source, out, config, **kw):
        import threading

        import silkvision.io.writers as writers

        write = writers.atomic_write_bytes

        def write_then_stall(path, data):
            done = write(path, data)
            if Path(path).name == mask:
                threading.Event().wait()  # until the worker process is stopped
            return done

        writers.atomic_write_bytes = write_then_stall  # this worker process only: it is stopped
        return export_masks(source, out, config, **kw)

    return export
