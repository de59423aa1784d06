"""Paths given by users: ``~user`` expanded and symbolic links resolved with one-line errors.

Python raises ``RuntimeError`` for an unknown ``~user`` and, before 3.13, for a symbolic link loop
met by ``Path.resolve()``; neither is an ``OSError``, so without these helpers both ended in a
traceback.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from silkvision.errors import SilkvisionError, SourceError

__all__ = ["expand_user", "resolved", "link_problem"]


def expand_user(path, error: type[SilkvisionError] = SourceError) -> Path:
    """``Path(path).expanduser()``; ``error`` naming the path for an unknown ``~user``."""
    try:
        return Path(os.fspath(path)).expanduser()
    except RuntimeError:
        user = str(os.fspath(path)).split(os.sep, 1)[0]
        raise error(f"{path}: cannot expand {user!r}: no such user; expected a path") from None


def resolved(path, error: type[SilkvisionError] = SourceError) -> Path:
    """``Path(path).resolve()``; ``error`` naming the path for a symbolic link loop."""
    try:
        return Path(path).resolve()
    except (RuntimeError, OSError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else "symbolic link loop"
        raise error(f"{path}: cannot resolve ({why})") from None


def link_problem(path) -> str | None:
    """``"is a broken symbolic link to TARGET"`` or ``"is in a symbolic link loop"`` when ``path`` is a
    link that leads nowhere, else None."""
    p = Path(path)
    if not os.path.lexists(p) or p.exists():
        return None
    try:
        p.stat()
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "is in a symbolic link loop"
    if p.is_symlink():
        return f"is a broken symbolic link to {os.readlink(p)}"
    return None
