"""Peak Python-heap allocation of one call (tracemalloc), for the tests that a hot path allocates
nothing frame-sized."""

from __future__ import annotations

import tracemalloc


def peak_allocation(call) -> int:
    """Bytes at the peak of what ``call()`` allocated while it ran."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
