"""Where a batch runs: a Dask cluster, local or existing (``--workers N`` / ``--scheduler ADDR``).

Dask does the scheduling, the retries after a worker died and the transport; this module only opens
the client and checks, before any work is sent, that every worker sees the output folder and runs
the same silkvision.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silkvision.errors import ConfigError, SilkvisionError

__all__ = ["Cluster", "open_cluster", "check_workers", "add_cluster_arguments", "cluster_wanted"]


class ClusterError(SilkvisionError):
    """The Dask cluster cannot be reached or its workers cannot do the work."""


def add_cluster_arguments(p: argparse.ArgumentParser, local_default: bool) -> None:
    """The ``--scheduler`` and ``--workers`` options (``batch``, ``evaluate``).

    Parameters
    ----------
    p : argparse.ArgumentParser
    local_default : bool
        Whether the command runs on a local cluster when neither option is given (``batch``) or
        in its own process (``evaluate``).
    """
    where = (
        "default: a local Dask cluster"
        if local_default
        else "default: in this process, one sequence after the other"
    )
    p.add_argument(
        "--workers",
        metavar="N",
        type=int,
        default=None,
        help=f"run on a local Dask cluster of N worker processes ({where}"
        f"{'' if not local_default else ' of one worker per core'})",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run on an existing Dask cluster, e.g. tcp://HOST:8786 (workers started "
        "with 'dask worker'; they must see the same paths)",
    )


def cluster_wanted(args) -> bool:
    """Whether a command that runs in its own process by default was asked for a cluster."""
    return args.scheduler is not None or args.workers is not None


@dataclass
class Cluster:
    """An open Dask client and what the tasks need to know of its workers.

    Attributes
    ----------
    client : distributed.Client
    description : str
        ``"local cluster of 2 worker processes"`` or ``"scheduler tcp://..."``.
    """

    client: Any
    description: str

    @property
    def dashboard(self) -> str | None:
        """The address of Dask's dashboard, or None when the scheduler serves none (it needs
        ``bokeh``)."""
        try:
            served = self.client.run_on_scheduler(_serves_dashboard)
        except Exception:  # noqa: BLE001 - only for a message
            return None
        return self.client.dashboard_link if served else None


def _serves_dashboard(dask_scheduler=None) -> bool:
    """On the scheduler: whether its dashboard is up (its HTTP server runs without ``bokeh`` but
    then shows only a request to install it)."""
    import importlib.util

    services = getattr(dask_scheduler, "services", {}) or {}
    return "dashboard" in services and importlib.util.find_spec("bokeh") is not None


def _check_address(scheduler: str) -> None:
    """A ConfigError for a scheduler address Dask cannot parse (before a Client is made: one made
    from a bad address lingers and delays the exit)."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.registry import get_backend

    try:
        if not scheduler.strip():
            raise ValueError("empty address")
        scheme, location = parse_address(scheduler)
        get_backend(scheme)  # a scheme Dask knows
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except ValueError as e:
        raise ConfigError(
            f"--scheduler {scheduler!r}: {e}; expected an address such as tcp://HOST:8786"
        ) from None


def _cores() -> int:
    """The cores this process may run on (a Slurm job's or a container's share, not the host's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _need_distributed():
    """The ``distributed`` module, or the one-line error that names the ``cluster`` extra."""
    from silkvision.extras import require

    require("cluster", "running on a Dask cluster (batch, evaluate --workers/--scheduler)")
    import distributed

    return distributed


@contextlib.contextmanager
def open_cluster(
    scheduler: str | None = None, workers: int | None = None, *, dashboard_address: str = ":8787"
) -> Iterator[Cluster]:
    """A :class:`Cluster` on ``scheduler``, or on a new local cluster of ``workers`` processes
    (default: one per core) that is shut down on exit.

    Raises
    ------
    ConfigError
        Both options, a ``workers`` below 1, or Dask not installed.
    ClusterError
        The scheduler cannot be reached.
    """
    if scheduler is not None and workers is not None:
        raise ConfigError(
            f"--workers {workers} and --scheduler {scheduler}: choose one (--workers "
            f"starts a local cluster; the workers of --scheduler's cluster are its own)"
        )
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers {workers}: expected an integer >= 1")
    distributed = _need_distributed()
    if scheduler is not None:
        _check_address(scheduler)
        try:
            client = distributed.Client(scheduler, timeout="20s", set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise ClusterError(
                f"--scheduler {scheduler}: cannot connect ({str(e).splitlines()[0]}); "
                f"expected the address of a running 'dask scheduler'"
            ) from None
        try:
            yield Cluster(client, f"scheduler {scheduler}")
        finally:
            client.close()
        return
    cores = _cores()
    n = workers or cores
    # the cores shared among the worker processes: numba's threads of each (unless the user chose)
    env = {} if "NUMBA_NUM_THREADS" in os.environ else {"NUMBA_NUM_THREADS": str(max(1, cores // n))}
    cluster = distributed.LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        dashboard_address=dashboard_address,
        silence_logs=logging.ERROR,
        env=env,
    )
    try:
        client = distributed.Client(cluster, set_as_default=False)
        try:
            yield Cluster(client, f"local cluster of {n} worker process{'es' if n > 1 else ''}")
        finally:
            client.close()
    finally:
        cluster.close()


def _worker_check(folder: str, name: str, token: str) -> tuple[bool, str]:
    """On a worker: ``(True, silkvision version)`` when it reads ``token`` in ``folder/name`` and
    can write in ``folder``; ``(False, why not)`` otherwise."""
    import tempfile

    import silkvision

    path = Path(folder) / name
    try:
        if path.read_text() != token:
            return False, f"{path} holds other content there (another folder of the same name?)"
    except OSError as e:
        return False, f"cannot read {path} ({e.strerror}): the folder is not shared with this worker"
    try:
        fd, tmp = tempfile.mkstemp(prefix=".silkvision-write-check.", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        return False, f"cannot write in {folder} ({e.strerror})"
    return True, silkvision.__version__


def check_workers(cluster: Cluster, folder: Path) -> int:
    """Check every worker now connected: it sees ``folder`` (created if needed; a file written here
    is read there), can write in it, and runs the same silkvision version as this process.

    Returns
    -------
    int
        The number of workers checked (0: none connected yet; the tasks wait for them).

    Raises
    ------
    ClusterError
        Naming the first worker that fails and why.
    """
    import silkvision
    from silkvision.errors import ExportError
    from silkvision.io.atomic import atomic_write_text, make_output_folder

    folder = make_output_folder(folder, ExportError)
    name = f".silkvision-batch-check.{uuid.uuid4().hex}"
    token = uuid.uuid4().hex
    path = Path(folder) / name
    atomic_write_text(path, token)
    try:
        answers = cluster.client.run(_worker_check, str(Path(folder).absolute()), name, token)
    finally:
        path.unlink(missing_ok=True)
    for worker, (ok, answer) in sorted(answers.items()):
        if not ok or answer != silkvision.__version__:
            why = answer if not ok else f"it runs silkvision {answer}, this client {silkvision.__version__}"
            raise ClusterError(
                f"worker {worker}: {why}; expected every worker to share the output "
                f"folder {folder} (same path) and to run the same silkvision"
            )
    return len(answers)
