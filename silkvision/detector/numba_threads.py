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
"""

from __future__ import annotations

import os

__all__ = ["SPIN_COUNT", "limit_omp_spinning"]

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
