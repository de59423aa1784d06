"""How long numba's OpenMP threads busy-wait between parallel loops (set before they start).

Every frame, :func:`~silkvision.detector.kernels.silk_frame` forks numba's threads over the rows
and joins them. With numba's ``omp`` threading layer (the one a pip install gets on Linux), GNU
OpenMP lets an idle thread spin for 300,000 rounds before it sleeps. On idle cores that saves a
wake-up per frame. When other processes keep the cores busy, though, a spinning thread holds a core
that another thread needs to reach the join. On this 2-core machine, with two CPU-bound processes
beside it, the default SILK ``apply`` on 2 threads then ran at 124 frames/s (median of 3 rounds)
instead of 452 with a spin count of 1,000 (514 on one thread). On idle cores the settings gave
the same rate within noise (``benchmarks/thread_contention.py``, BENCHMARKS section 1).

So, on import, silkvision sets ``GOMP_SPINCOUNT=1000`` unless the user already chose a wait policy
(``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` in the environment). GNU OpenMP reads the variable when
it is loaded, i.e. at the first parallel loop of the process, so the setting takes effect only if
no library has loaded it before silkvision is imported. Other OpenMP runtimes (LLVM's on macOS,
Microsoft's on Windows) and numba's ``workqueue`` and ``tbb`` layers ignore it.

**Forked processes.** GNU OpenMP cannot be used in a process forked after it started its threads:
numba then kills the child with SIGTERM at its first parallel loop ("fork() called from a process
already using GNU OpenMP, this is unsafe"), and a ``multiprocessing.Pool`` whose worker died that
way waits for ever. So a child forked after numba's ``omp`` layer started runs the detectors'
serial kernels (``*_serial`` in :mod:`~silkvision.detector.kernels`, the same results on one
thread): :func:`parallel_allowed` says which. Processes started by ``spawn`` or ``forkserver``,
and children of a parent that never ran a parallel loop, keep the parallel kernels.

**Threads.** numba's ``workqueue`` layer (what numba falls back to where neither OpenMP nor TBB
is installed, e.g. a plain macOS install) aborts the process when two threads start parallel
loops at once. :func:`run_kernel` therefore runs the parallel kernels one at a time until the
layer is known to be ``omp`` or ``tbb``, which allow concurrent loops.
"""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["SPIN_COUNT", "limit_omp_spinning", "parallel_allowed", "run_kernel"]

#: GNU OpenMP's spin count used unless the user set one (its own default is 300,000)
SPIN_COUNT = "1000"


def limit_omp_spinning(environ=os.environ) -> bool:
    """Set ``GOMP_SPINCOUNT`` to :data:`SPIN_COUNT` in ``environ`` unless ``GOMP_SPINCOUNT`` or
    ``OMP_WAIT_POLICY`` is already there. Returns True if it set it."""
    if "GOMP_SPINCOUNT" in environ or "OMP_WAIT_POLICY" in environ:
        return False
    environ["GOMP_SPINCOUNT"] = SPIN_COUNT
    return True


limit_omp_spinning()


_forked_after_omp = False
_concurrent_ok = False  # the threading layer allows parallel loops from several threads
_one_at_a_time = threading.Lock()


def _after_fork_in_child() -> None:
    global _forked_after_omp, _one_at_a_time
    _one_at_a_time = threading.Lock()  # another thread of the parent may have held it
    layer = sys.modules.get("numba.np.ufunc.parallel")
    if layer is not None and layer._is_initialized and layer._threading_layer == "omp":
        pool = sys.modules.get("numba.np.ufunc.omppool")
        # Intel's and LLVM's OpenMP runtimes survive a fork; GNU's does not
        _forked_after_omp = getattr(pool, "openmp_vendor", "GNU") == "GNU"


def parallel_allowed() -> bool:
    """Whether numba's parallel loops may run in this process: False in a child forked after the
    ``omp`` threading layer started its threads (module notes)."""
    return not _forked_after_omp


def run_kernel(parallel_kernel, serial_kernel, *args):
    """Call ``parallel_kernel(*args)``, or ``serial_kernel(*args)`` (the same results) where parallel
    loops cannot run (:func:`parallel_allowed`); parallel calls run one at a time until the
    threading layer is known to allow concurrent ones (module notes)."""
    global _concurrent_ok
    if _forked_after_omp:
        return serial_kernel(*args)
    if _concurrent_ok:
        return parallel_kernel(*args)
    with _one_at_a_time:
        out = parallel_kernel(*args)
    layer = sys.modules.get("numba.np.ufunc.parallel")
    _concurrent_ok = layer is not None and layer._threading_layer in ("omp", "tbb")
    return out


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
