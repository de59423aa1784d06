"""User-facing errors.

Every error a user can cause (bad path, bad config value, corrupt file, lost camera) is raised as a
:class:`SilkvisionError` subclass whose message is ONE line naming the file/key/value and what was
expected. The command line prints ``silkvision: error: <message>`` and exits with status 2; it never
shows a traceback for these.
"""

from __future__ import annotations

import difflib
import sys


def plain(value):
    """``value`` as a one-line message shows it: a NumPy scalar as the Python value it holds (``5.0``,
    not ``np.float64(5.0)``); anything else unchanged."""
    import numpy as np

    return value.item() if isinstance(value, np.generic) else value


class SilkvisionError(Exception):
    """Base class of the errors a user can cause; ``str(err)`` is a one-line message."""

    exit_code = 2


class ConfigError(SilkvisionError, ValueError):
    """A configuration key, type or value is not allowed."""


class SourceError(SilkvisionError):
    """A capture source cannot be opened or read (missing path, corrupt frame, lost camera)."""


class BadFrame(SourceError):
    """One frame cannot be used (it does not decode, or has another size than the others); a
    seekable source can go on from the frame after it (seek there).

    Attributes
    ----------
    index : int
        The frame's number.
    """

    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.index = index


class DataError(SilkvisionError, ValueError):
    """Input data (ground truth, masks, data sets) is inconsistent or malformed."""


class ExportError(SilkvisionError):
    """An export cannot proceed (output folder in use, disk errors)."""


class ExportMismatchError(ExportError):
    """The output folder holds an export made from another source or with other settings."""


class Terminated(KeyboardInterrupt):
    """SIGTERM as an exception (the command line's handler raises it), so that a command stops, and
    keeps its work, the way Ctrl-C stops it."""


def out_of_memory(exc: MemoryError) -> str:
    """The one-line message for a ``MemoryError`` (e.g. a ``capture.resize`` whose detector state
    does not fit: :mod:`silkvision.detector.memory`), for the command line and the GUI."""
    why = str(exc).splitlines()[0] if str(exc).strip() else "MemoryError"
    return f"out of memory ({why}); use smaller frames (capture.resize), or run fewer detectors at once"


def may_catch_sigterm() -> bool:
    """Whether silkvision may turn SIGTERM into a clean stop in this process: not in a
    ``multiprocessing`` child, whose parent's ``Pool.terminate()`` / ``Process.terminate()`` must
    stop it (a worker that caught it and returned normally hung the pool's ``terminate()``)."""
    mp = sys.modules.get("multiprocessing")  # a multiprocessing child has always imported it
    return mp is None or mp.parent_process() is None


def signal_behind(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C (:class:`KeyboardInterrupt`) or SIGTERM (:class:`Terminated`) behind ``exc``, or None.

    The signal may be wrapped: a numba-compiled call that the handler's exception interrupts raises
    a SystemError ("... returned a result with an exception set") whose ``__cause__``/``__context__``
    is that exception, and code may re-raise Ctrl-C as its own KeyboardInterrupt (online-bench's
    partial result). So the chain is followed through SystemErrors and KeyboardInterrupts, a
    Terminated anywhere on it winning; any other exception ends it (a SystemError that no signal
    caused is a bug, not an interruption).
    """
    seen, found = set(), None
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, Terminated):
            return exc
        if isinstance(exc, KeyboardInterrupt):
            found = found or exc
        elif not isinstance(exc, SystemError):
            break
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return found


def misspelt(name: str, names) -> str | None:
    """The one of ``names`` that ``name`` most likely misspells (``treshold`` -> ``threshold``,
    ``c`` -> ``C``), or None. Used to refuse ``det.treshold = 0.1``, which would make a new
    attribute that nothing reads. A name that extends a parameter's name (``thresholds``) or is a
    whole word of it (``classes`` of ``n_classes``) is taken as the user's own attribute; a
    truncated one (``threshol``, ``fill_hole``) is a typo."""
    low = {n.lower(): n for n in names}
    key = name.lower()
    if key in low:
        return low[key] if low[key] != name else None
    found = [
        m
        for m in difflib.get_close_matches(key, list(low), n=3, cutoff=0.8)
        if m not in key and key not in m.split("_")
    ]
    return low[found[0]] if found else None


def parameter_typo(obj, name: str, params) -> str | None:
    """The parameter of ``params`` that setting ``obj.name`` most likely meant, or None: only for a
    new public attribute (not private, not a fitted ``name_``, not one that exists already)."""
    if (
        name.startswith("_")
        or name.endswith("_")
        or name in params
        or name in obj.__dict__
        or hasattr(type(obj), name)
    ):
        return None
    return misspelt(name, params)
