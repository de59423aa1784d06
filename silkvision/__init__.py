"""silkvision: video background subtraction and online classification with budgeted implicit
online kernel learning (SILK, Cheng et al., NIPS 2006) and related online kernel learners.

>>> import silkvision as sv
>>> det = sv.create_subtractor("silk")
>>> mask = det.apply(frame)          # doctest: +SKIP
"""

__version__ = "0.1.0"

# numba is imported by the modules that compile (detector.kernels, detector.mask_kernels, backends),
# each of which installs the package's cache locators first (silkvision/_numba_cache.py)
# before anything can load GNU OpenMP: cap its spin-waiting (see silkvision/detector/numba_threads.py)
import silkvision.detector.numba_threads  # noqa: E402,F401
from silkvision import samples  # noqa: E402
from silkvision.config import load_config  # noqa: E402
from silkvision.detector import available_subtractors, create_subtractor  # noqa: E402
from silkvision.errors import SilkvisionError  # noqa: E402


def __getattr__(name):  # lazy sub-packages: heavy imports only when used
    import importlib

    if name in ("backends", "capture", "evaluation", "io"):
        return importlib.import_module(f"silkvision.{name}")
    raise AttributeError(f"module 'silkvision' has no attribute {name!r}")


__all__ = [
    "create_subtractor",
    "available_subtractors",
    "load_config",
    "samples",
    "SilkvisionError",
    "__version__",
]
