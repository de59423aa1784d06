"""Peak Python-heap allocation of one call (tracemalloc), for the tests that a hot path allocates
nothing frame-sized."""

from __future__ import annotations

import tracemalloc


def peak_allocation(call, tries: int = 3) -> int:
    """Bytes at the peak of what ``call()`` allocated while it ran: the least of ``tries`` calls,
    since tracemalloc also counts what other threads allocate meanwhile (a thread an earlier test
    left running); an allocation of ``call`` itself shows in every try."""
    peaks = []
    for _ in range(tries):
        tracemalloc.start()
        try:
            call()
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return min(peaks)
