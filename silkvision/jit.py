"""What numba does for silkvision at run time: compiling the kernels (first run only), and which
threading layer runs the parallel ones.

**Compiling.** numba compiles a kernel at its first call and keeps the machine code in its on-disk
cache (:mod:`silkvision._numba_cache`); later processes load it from there in a fraction of the
time. A cold cache (a fresh install, an upgrade, a new ``NUMBA_CACHE_DIR``) costs about ten
seconds of compilation on the first frame of the first export, which a frame rate that includes it
hides. numba fires its ``numba:compile`` event for a real compilation only, never for a cache load,
so :class:`CompileWatch` can say "compiling" exactly when it happens, and time it.

**Threading layer.** numba runs the parallel kernels on one of three layers: ``tbb`` (Intel TBB),
chosen first wherever TBB can be loaded (the ``tbb`` package, or a system ``libtbb.so.12``), then
``omp`` (OpenMP; GNU OpenMP with a pip install on Linux), then ``workqueue`` (numba's own). silkvision's busy-machine setting (``GOMP_SPINCOUNT``, see
:mod:`silkvision.detector.numba_threads`) acts on GNU OpenMP only; :func:`busy_machine_advice`
says what applies to the layer in use, and ``silkvision --version`` prints both.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Literal

__all__ = ["CompileWatch", "threading_layer", "busy_machine_advice", "runtime_summary"]


class CompileWatch:
    """While active (a context manager), the seconds numba spends compiling, and a call of
    ``announce`` at the first compilation.

    Nested compilations (a kernel's callees) count once, within the outermost one. numba compiles
    under one process-wide lock, so compilations never overlap.

    Parameters
    ----------
    announce : callable, optional
        Called with no argument when the first compilation starts (e.g. to print a note).

    Attributes
    ----------
    seconds : float
        Wall time spent compiling while the watch was active.
    compiled : int
        Functions compiled (outermost compilations).
    """

    def __init__(self, announce=None):
        self.announce = announce
        self.seconds = 0.0
        self.compiled = 0
        self._depth = 0
        self._t0 = 0.0
        self._lock = threading.Lock()
        self._listener = None

    def _start(self, event) -> None:
        with self._lock:
            self._depth += 1
            if self._depth > 1:
                return
            self._t0 = time.perf_counter()
            first = self.compiled == 0
            self.compiled += 1
        if first and self.announce is not None:
            self.announce()

    def _end(self, event) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._t0

    def __enter__(self) -> CompileWatch:
        from numba.core import event

        watch = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                watch._start(ev)

            def on_end(self, ev):
                watch._end(ev)

        self._listener = _Listener()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc) -> Literal[False]:
        from numba.core import event

        event.unregister("numba:compile", self._listener)
        self._listener = None
        return False


def threading_layer() -> tuple[str, str | None]:
    """The threading layer numba runs parallel loops on, starting it if no parallel loop ran yet.

    Returns
    -------
    layer : str
        ``"omp"``, ``"tbb"`` or ``"workqueue"``; ``"unknown"`` when numba cannot start one.
    vendor : str or None
        For ``omp``, the OpenMP runtime (``"GNU"``, ``"Intel"``, ``"LLVM"``, ...); else None.
    """
    import numba
    from numba.np.ufunc import parallel

    try:
        parallel._launch_threads()
        layer = numba.threading_layer()
    except (ValueError, ImportError, AttributeError):
        return "unknown", None
    vendor = None
    if layer == "omp":
        from numba.np.ufunc import omppool  # type: ignore[attr-defined]  # compiled, OpenMP builds only

        vendor = getattr(omppool, "openmp_vendor", None)
    return layer, vendor


def busy_machine_advice(layer: str, vendor: str | None, environ=os.environ) -> str:
    """What helps a parallel detector on a machine whose cores other processes keep busy, for the
    threading layer in use (one line).

    With GNU OpenMP, idle threads spin between parallel loops and hold cores others need;
    silkvision caps the spinning (``GOMP_SPINCOUNT=1000``) unless the user chose a wait policy.
    The other layers ignore that variable.
    """
    one = "NUMBA_NUM_THREADS=1 avoids waiting for busy cores altogether"
    if layer == "omp" and (vendor or "GNU") == "GNU":
        from silkvision.detector.numba_threads import SPIN_COUNT

        spin = environ.get("GOMP_SPINCOUNT")
        if "OMP_WAIT_POLICY" in environ:
            how = f"OMP_WAIT_POLICY={environ['OMP_WAIT_POLICY']} (yours)"
        elif spin == SPIN_COUNT:
            how = f"GOMP_SPINCOUNT={SPIN_COUNT} (set by silkvision)"
        elif spin is not None:
            how = f"GOMP_SPINCOUNT={spin} (yours)"
        else:
            how = "GNU OpenMP's default spinning (GOMP_SPINCOUNT not set)"
        return f"busy machines: idle threads wait per {how}; {one}"
    if layer == "omp":
        return (
            f"busy machines: {vendor} OpenMP ignores GOMP_SPINCOUNT; OMP_WAIT_POLICY=passive makes "
            f"idle threads sleep; {one}"
        )
    if layer == "tbb":
        return (
            "busy machines: TBB ignores GOMP_SPINCOUNT; NUMBA_THREADING_LAYER=omp uses GNU "
            f"OpenMP, whose spinning silkvision caps; {one}"
        )
    if layer == "workqueue":
        return f"busy machines: the workqueue layer ignores GOMP_SPINCOUNT; {one}"
    return f"busy machines: {one}"


def runtime_summary() -> str:
    """numba's version, threading layer and thread count, in one line (for ``--version`` and
    benchmark headers)."""
    import numba

    layer, vendor = threading_layer()
    what = f"{layer} ({vendor} OpenMP)" if vendor else layer
    return f"numba {numba.__version__}, threading layer {what}, {numba.get_num_threads()} threads"
