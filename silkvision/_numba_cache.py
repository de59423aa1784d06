"""numba's on-disk cache (``cache=True``), keyed on the whole package's compiled sources.

numba decides whether a cached machine-code file is still valid from the source of the file that
defines the function only. Our learners call ``@njit`` helpers of other files (``kernel_eval`` in
``backends/mercer.py``, the support-vector helpers in ``backends/_support.py``), and numba compiles
those helpers *into* the caller: after an edit of ``mercer.py`` (a ``git pull`` on an editable
install), ``perceptron.py``'s unchanged cache would keep the old kernel and give wrong results
without any error.

:func:`install` therefore puts locators in front of numba's own for the functions of this package.
They keep numba's cache folders (``NUMBA_CACHE_DIR``, ``__pycache__`` or the user-wide one) but
stamp every cached function with a digest of all the package's files that hold compiled code, so
that a change to any of them recompiles every cached function of the package on first use. When
none of those folders can be written (a read-only install, run by a user whose home is read-only
too), a private folder in the temporary directory is the last resort, where numba alone would
refuse to compile.
Importing this module installs them; every module with ``@njit(cache=True)`` functions imports it
first (the backends through their package), so ``import silkvision`` alone does not load numba.
This relies on ``numba.core.caching.CacheImpl._locator_classes`` (numba's internal list of
locators); :func:`install` returns False when numba no longer has it, and
``tests/test_numba_cache.py`` fails then.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from functools import cache
from pathlib import Path

__all__ = ["install", "package_digest"]

_ROOT = Path(__file__).resolve().parent


#: a file holds compiled code when a line starts with one of these decorators
_COMPILED = re.compile(rb"^[ \t]*@(?:njit|intrinsic|numba\.)", re.MULTILINE)
#: blank lines and whole-line comments, which an edit may change without recompiling anything
_COMMENT_LINE = re.compile(rb"^[ \t]*(?:#[^\n]*)?\n", re.MULTILINE)


@cache
def package_digest() -> str:
    """SHA-256 of every ``.py`` file of the package that defines compiled code (an ``@njit``,
    ``@intrinsic`` or ``@numba.*`` decorator), less its blank lines and whole-line comments; read once
    per process."""
    h = hashlib.sha256()
    for path in sorted(_ROOT.rglob("*.py")):
        data = path.read_bytes()
        if _COMPILED.search(data):
            h.update(str(path.relative_to(_ROOT)).encode() + b"\0" + _COMMENT_LINE.sub(b"", data) + b"\0")
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


def _private_dir() -> str | None:
    """``<temp>/silkvision-numba-<user>``, made if need be, if only this user can write to it (the
    cache index is a pickle: a folder others can write to would let them run code); else None."""
    try:
        uid = os.getuid()
    except AttributeError:  # Windows: the temp folder is per user already
        uid = None
    path = os.path.join(tempfile.gettempdir(), f"silkvision-numba-{uid if uid is not None else 'user'}")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return None
    if uid is not None and (
        st.st_uid != uid or st.st_mode & 0o022 or not os.path.isdir(path) or os.path.islink(path)
    ):
        return None
    return path


def _temp_locator(base):
    """The last resort, after numba's own locators (``NUMBA_CACHE_DIR``, ``__pycache__``, the
    user-wide folder) all found no writable folder (a read-only install run by a user whose home
    is read-only too): :func:`_private_dir`. Without it numba refuses to compile the function."""

    class TempDirCacheLocator(base):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(_private_dir() or "", self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if _private_dir() is None:
                return None
            return super().from_function(py_func, py_file)

    return TempDirCacheLocator


def install() -> bool:
    """Put the package locators first in numba's list (once); False if numba has no such list."""
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # type: ignore[attr-defined]  # public since numba 0.61
        classes = impl._locator_classes

        def base(name):
            return getattr(caching, name, None) or getattr(caching, "_" + name)

        bases = [base("UserProvidedCacheLocator"), base("InTreeCacheLocator"), base("UserWideCacheLocator")]
    except (ImportError, AttributeError):
        return False
    if any(getattr(c, "__name__", "").startswith("Silkvision") for c in classes):
        return True
    ours = [_package_locator(b) for b in bases]
    ours.append(_package_locator(_temp_locator(bases[1])))  # after every other folder
    classes[:0] = ours
    return True


install()  # on import: a module that compiles imports this module before its first @njit(cache=True)
