"""numba's on-disk cache (``cache=True``), keyed on the whole package's compiled sources.

numba decides whether a cached machine-code file is still valid from the source of the file that
defines the function only. Our learners call ``@njit`` helpers of other files (``kernel_eval`` in
``backends/kernels.py``, the support-vector helpers in ``backends/_support.py``), and numba compiles
those helpers *into* the caller: after an edit of ``kernels.py`` (a ``git pull`` on an editable
install), ``perceptron.py``'s unchanged cache would keep the old kernel and give wrong results
without any error.

:func:`install` therefore puts locators in front of numba's own for the functions of this package.
They keep numba's cache folders (``NUMBA_CACHE_DIR``, ``__pycache__`` or the user-wide one) but
stamp every cached function with a digest of all the package's files that hold compiled code, so
that a change to any of them recompiles every cached function of the package on first use.
This relies on ``numba.core.caching.CacheImpl._locator_classes`` (numba's internal list of
locators); :func:`install` returns False when numba no longer has it, and
``tests/test_numba_cache.py`` fails then.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

__all__ = ["install", "package_digest"]

_ROOT = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def package_digest() -> str:
    """SHA-256 of every ``.py`` file of the package that holds ``njit`` code (read once per process)."""
    h = hashlib.sha256()
    for path in sorted(_ROOT.rglob("*.py")):
        data = path.read_bytes()
        if b"njit" in data or b"intrinsic" in data:
            h.update(str(path.relative_to(_ROOT)).encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _ours(py_file) -> bool:
    try:
        return Path(py_file).resolve().is_relative_to(_ROOT)
    except (OSError, ValueError):
        return False


def _package_locator(base):
    """``base`` (one of numba's locator classes) for this package's functions only, stamped with
    :func:`package_digest` as well as the defining file."""

    class PackageLocator(base):
        def get_source_stamp(self):
            return (super().get_source_stamp(), package_digest())

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _ours(py_file):
                return None
            return super().from_function(py_func, py_file)

    PackageLocator.__name__ = PackageLocator.__qualname__ = "Silkvision" + base.__name__
    return PackageLocator


def install() -> bool:
    """Put the package locators first in numba's list (once); False if numba has no such list."""
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl   # public since numba 0.61
        classes = impl._locator_classes

        def base(name):
            return getattr(caching, name, None) or getattr(caching, "_" + name)

        bases = [base("UserProvidedCacheLocator"), base("InTreeCacheLocator"), base("UserWideCacheLocator")]
    except (ImportError, AttributeError):
        return False
    if any(getattr(c, "__name__", "").startswith("Silkvision") for c in classes):
        return True
    classes[:0] = [_package_locator(b) for b in bases]
    return True
