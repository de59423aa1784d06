"""How much memory a detector may take: an up-front check before a large state is allocated.

NumPy's ``np.zeros`` of a large array succeeds on Linux even when the memory is not there (the pages
are only reserved when they are first written), so a frame size whose state does not fit would not
raise ``MemoryError``: the process would grow frame after frame until the kernel kills it, with no
message. :func:`check_fits` compares the bytes a state needs with the memory available now and
raises ``MemoryError`` with a one-line reason instead.

The estimate is deliberately generous, so that it refuses only what cannot fit: the system's
``MemAvailable``, lowered to what the memory limits of this process's cgroups leave (v1 or v2, every
level of the hierarchy), where the page cache they hold counts as free, since the kernel reclaims it.
Setting the environment variable ``SILKVISION_MEMORY_CHECK=0`` turns the check off.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["available_memory", "check_fits"]

_CGROUP_ROOT = Path("/sys/fs/cgroup")
_NO_LIMIT = 2**60  # cgroup v1 reports "no limit" as a huge number (about 2^63)


def _read_text(path: str | Path) -> str | None:
    """The text of a small system file, or None when it cannot be read."""
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except (OSError, ValueError):
        return None


def _field(text: str | None, name: str) -> int | None:
    """The integer after ``name`` on its line of a ``key value`` file (meminfo, memory.stat)."""
    for line in (text or "").splitlines():
        parts = line.replace(":", " ").split()
        if len(parts) >= 2 and parts[0] == name:
            try:
                return int(parts[1])
            except ValueError:
                return None
    return None


def _int(text: str | None) -> int | None:
    try:
        return int(text.strip()) if text is not None else None
    except ValueError:
        return None


def _meminfo_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (Linux), else None."""
    kb = _field(_read_text("/proc/meminfo"), "MemAvailable")
    return None if kb is None else kb * 1024


def _cgroup_dirs() -> list[Path]:
    """The memory-cgroup folders of this process and of their ancestors, innermost first."""
    dirs = []
    for line in (_read_text("/proc/self/cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # cgroup v2: "0::/path"
            base = _CGROUP_ROOT
        elif "memory" in controllers.split(","):  # cgroup v1: "4:memory:/path"
            base = _CGROUP_ROOT / "memory"
        else:
            continue
        d = base / path.strip().lstrip("/")
        while True:
            dirs.append(d)
            if d == base:
                break
            d = d.parent
    return dirs


def _cgroup_headroom() -> int | None:
    """The least memory left under the limits of this process's cgroups (page cache counted as
    free), or None where no limit is set or none can be read."""
    room = None
    for d in _cgroup_dirs():
        stat = _read_text(d / "memory.stat")
        v2_max = _read_text(d / "memory.max")
        if v2_max is not None:  # v2 ("max": no limit)
            limit = _int(v2_max)
            used = _int(_read_text(d / "memory.current"))
            cache = _field(stat, "inactive_file") or 0
        else:  # v1
            limit = _int(_read_text(d / "memory.limit_in_bytes"))
            used = _int(_read_text(d / "memory.usage_in_bytes"))
            cache = _field(stat, "total_inactive_file") or _field(stat, "inactive_file") or 0
        if limit is None or used is None or limit >= _NO_LIMIT:
            continue
        left = max(limit - max(used - cache, 0), 0)
        room = left if room is None else min(room, left)
    return room


def available_memory() -> int | None:
    """Bytes of memory this process can still take without swapping, or None where unknown.

    Linux: ``MemAvailable`` (``/proc/meminfo``), lowered to what the limits of this process's
    cgroups leave; other systems: the free physical pages where ``os.sysconf`` reports them, else
    None (no check).
    """
    found = [v for v in (_meminfo_available(), _cgroup_headroom()) if v is not None]
    if not found:
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            return None
    return min(found)


def _size(n: float) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


def check_fits(need: int, what: str) -> None:
    """Raise ``MemoryError`` if ``need`` bytes (for ``what``, e.g. "the silk state of a 1920x1080
    frame") exceed the memory available now; do nothing where that is unknown, or when the
    environment variable ``SILKVISION_MEMORY_CHECK`` is ``0``.
    """
    if os.environ.get("SILKVISION_MEMORY_CHECK", "").strip() == "0":
        return
    avail = available_memory()
    if avail is not None and need > avail:
        raise MemoryError(
            f"{what} needs {_size(need)}, but only {_size(avail)} of memory is available "
            f"(SILKVISION_MEMORY_CHECK=0 skips this check)"
        )
