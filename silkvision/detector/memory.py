"""How much memory a detector may take: an up-front check before a large state is allocated.

NumPy's ``np.zeros`` of a large array succeeds on Linux even when the memory is not there (the pages
are only reserved when they are first written), so a frame size whose state does not fit would not
raise ``MemoryError``: the process would grow frame after frame until the kernel kills it, with no
message. :func:`check_fits` compares the bytes a state needs with the memory available now and
raises ``MemoryError`` with a one-line reason instead.
"""

from __future__ import annotations

import os

__all__ = ["available_memory", "check_fits"]


def _meminfo_available() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes (Linux), else None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_headroom() -> int | None:
    """Bytes left under a cgroup v2 memory limit (containers), else None (no limit, or not cgroup v2)."""
    try:
        with open("/sys/fs/cgroup/memory.max", encoding="ascii") as f:
            limit = f.read().strip()
        if limit == "max":
            return None
        with open("/sys/fs/cgroup/memory.current", encoding="ascii") as f:
            used = int(f.read().strip())
        return max(int(limit) - used, 0)
    except (OSError, ValueError):
        return None


def available_memory() -> int | None:
    """Bytes of memory this process can still take without swapping, or None where unknown.

    Linux: ``MemAvailable`` (``/proc/meminfo``), lowered to what a cgroup v2 limit leaves; other
    systems: the free physical pages where ``os.sysconf`` reports them (else None: no check).
    """
    found = [v for v in (_meminfo_available(), _cgroup_headroom()) if v is not None]
    if not found:
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            return None
    return min(found)


def _gib(n: float) -> str:
    return f"{n / 2 ** 30:.1f} GiB" if n >= 2 ** 30 else f"{n / 2 ** 20:.0f} MiB"


def check_fits(need: int, what: str) -> None:
    """Raise ``MemoryError`` if ``need`` bytes (for ``what``, e.g. "the silk state of a 1920x1080
    frame") exceed the memory available now; do nothing where that is unknown.
    """
    avail = available_memory()
    if avail is not None and need > avail:
        raise MemoryError(f"{what} needs {_gib(need)}, but only {_gib(avail)} of memory is available")
