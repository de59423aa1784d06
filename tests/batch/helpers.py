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

            writers.atomic_write_bytes = write_then_die   # this worker process only: it dies
    return export_masks(source, out, config, **kw)
