"""The optional parts of silkvision and the packages each needs (``pyproject.toml``'s extras).

``pip install silkvision`` is headless: export, evaluate without figures, online-bench and the
Python API. A command that needs an extra that is not installed stops with one line naming the
pip command, before it does any work:

>>> from silkvision.extras import EXTRAS
>>> EXTRAS["gui"]
('PyQt5', 'pyqtgraph')
"""

from __future__ import annotations

import importlib.util

from silkvision.errors import SilkvisionError

__all__ = ["EXTRAS", "MissingExtraError", "missing", "require"]

#: extra -> the modules it installs (keep in step with ``[project.optional-dependencies]``)
EXTRAS = {
    "gui": ("PyQt5", "pyqtgraph"),
    "figures": ("matplotlib",),
    "cluster": ("dask", "distributed"),
}


class MissingExtraError(SilkvisionError, ImportError):
    """A feature needs an optional extra that is not installed."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (empty when it is installed)."""
    out = []
    for name in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, a broken package
            found = False
        if not found:
            out.append(name)
    return out


def require(extra: str, what: str, alternative: str = "") -> None:
    """Raise :class:`MissingExtraError` when ``extra`` is not fully installed.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS`.
    what : str
        What needs it, as the message starts: ``"the GUI"``, ``"writing evaluate's figures"``.
    alternative : str, optional
        A way to go on without it, appended to the message (``"or pass --no-figures"``).
    """
    lacking = missing(extra)
    if lacking:
        tail = f", {alternative}" if alternative else ""
        raise MissingExtraError(
            f"{what} needs {' and '.join(lacking)}, not installed here; install "
            f'with: pip install "silkvision[{extra}]"{tail}'
        )
