"""Motion events: runs of frames with foreground regions, fed one frame at a time."""

from __future__ import annotations

from dataclasses import dataclass

from silkvision.objects.regions import Region

__all__ = ["Event", "EventTracker"]


@dataclass(frozen=True)
class Event:
    """Activity over consecutive frames.

    Attributes
    ----------
    start_frame, end_frame : int
        First and last frame with a region (inclusive).
    start_time, end_time : float or None
        Their times in seconds from the first frame of the source (None: frame rate unknown).
    frames : int
        Frames of the event seen (fewer than ``end_frame - start_frame + 1`` where frames without
        a mask were skipped).
    largest_frame : int
        Frame of the largest region of the event (the first such frame on a tie).
    largest : Region
        That region.
    """

    start_frame: int
    end_frame: int
    start_time: float | None
    end_time: float | None
    frames: int
    largest_frame: int
    largest: Region


class EventTracker:
    """Turn per-frame regions into motion events.

    A frame is active when it has at least one region. An event is a run of active frames; the
    first inactive frame ends it, and a run shorter than ``min_frames`` is dropped (a flicker).
    Frames never fed (no mask written for them) neither extend nor end a run.

    Parameters
    ----------
    min_frames : int
        Shortest run of active frames reported as an event.
    fps : float, optional
        Frame rate, for the event times; None: times are None.
    first_index : int
        Number of the source's first frame (time 0).
    """

    def __init__(self, min_frames: int = 1, fps: float | None = None, first_index: int = 1):
        if min_frames < 1:
            raise ValueError(f"min_frames: {min_frames!r}; expected an integer >= 1")
        self.min_frames = int(min_frames)
        self.fps = fps
        self.first_index = first_index
        self._run: dict | None = None  # the open run: start, end, frames, largest frame/region

    def time(self, index: int) -> float | None:
        """Seconds from the first frame to frame ``index``; None without a frame rate."""
        return None if not self.fps else (index - self.first_index) / self.fps

    def update(self, index: int, regions: list[Region]) -> Event | None:
        """Feed frame ``index`` and its regions; returns the event this frame ended, if any."""
        if not regions:
            return self.finish()
        big = max(regions, key=lambda r: r.area)  # max keeps the first on a tie
        run = self._run
        if run is None:
            self._run = {"start": index, "end": index, "frames": 1, "at": index, "largest": big}
            return None
        run["end"] = index
        run["frames"] += 1
        if big.area > run["largest"].area:
            run["at"], run["largest"] = index, big
        return None

    def finish(self) -> Event | None:
        """End the open run (the source ended); returns it as an event when it is long enough."""
        run, self._run = self._run, None
        if run is None or run["frames"] < self.min_frames:
            return None
        return Event(
            run["start"],
            run["end"],
            self.time(run["start"]),
            self.time(run["end"]),
            run["frames"],
            run["at"],
            run["largest"],
        )
