"""Simulated light switches (the SILK paper's illumination experiment, NIPS 2006 Sec. 4, Fig. 2
right) and how fast each detector recovers from them.

A light switch ``START:END:GAIN`` multiplies the brightness of frames ``START..END`` (inclusive,
frame numbers) by ``GAIN`` (``cv2.convertScaleAbs``: rounded, saturated to 0..255) before the
detectors see them; the ground truth is unchanged. Switches must not overlap or touch
(:func:`check_disjoint`): the light has to come back for at least one frame before the next
switch, otherwise the events and the "F before" of the later switch would be measured inside the
earlier switch.

Switches and the sequence
-------------------------
:func:`fit_switches` checks switches against a sequence before anything runs: a switch that starts
outside the sequence's frames, or after its last evaluated frame (it would change no scored frame),
is an error. One that ends after the last frame is clipped to it, with a note; one that ends after
the last evaluated frame gets a note too: in both cases there is no restore event
(:func:`switch_events` drops a restore after the last evaluated frame). One that starts before the
first evaluated frame (during the warm-up) is run, with a note that no recovery can be measured
(there is no evaluated frame before it).

Events and measures
-------------------
Each switch makes two *events*: at frame ``START`` the light changes to ``GAIN`` ("switch"), and at
frame ``END + 1`` it comes back ("restore", when that frame exists). Both events of a switch are
compared with the undisturbed light *before the switch*: with ``W = evaluation.light_switch_window``,
``tol = evaluation.recovery_tolerance`` and ``R = evaluation.recovery_smoothing``, on the evaluated
frames only (temporalROI with ground truth):

``f_before``
    F-measure of the confusion counts pooled over frames ``START-W .. START-1`` (the same for both
    events of a switch); when an earlier switch ends less than ``W`` frames before, the window
    starts after it (``END_prev + 1``), so that it holds normal light only;
``f_after``
    F-measure of the counts pooled over frames ``s .. s+W-1`` after the event at frame ``s`` (CDnet
    pooling, like the tables), and not past the next event: the "after" of a switch shorter than
    ``W`` holds only its switched frames, not those after the light came back;
``f_reference``
    mean per-frame F-measure over the same frames as ``f_before`` (the "value before the switch";
    frames whose F is undefined -- no ground-truth foreground and no detection -- are left out of
    every mean);
``recovery_frames``
    the smallest ``k >= 0`` such that the mean per-frame F-measure over frames ``s+k .. s+k+R-1``
    is at least ``f_reference - tol``; searched until the next event (or the last evaluated frame),
    windows reaching past it are not used. ``None`` means not recovered in that span
    (``searched_frames`` long). ``R = 1`` is the literal per-frame criterion; the default ``R``
    averages a few frames so that one lucky frame does not count as recovery. Being *better* than
    before counts as recovered (the tolerance is one-sided).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from silkvision.errors import ConfigError
from silkvision.evaluation.cdnet import Counts, metrics

__all__ = [
    "LightSwitch",
    "apply_light_switches",
    "switch_events",
    "recovery_report",
    "fit_switches",
    "check_disjoint",
]

_SPEC = re.compile(r"^\s*(\d+)\s*:\s*(\d+)\s*:\s*([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*$")


@dataclass(frozen=True)
class LightSwitch:
    """Frames ``start..end`` (inclusive) get their brightness multiplied by ``gain``."""

    start: int
    end: int
    gain: float

    def __post_init__(self):
        if not (isinstance(self.start, (int, np.integer)) and self.start >= 1):
            raise ValueError(f"start: {self.start!r} must be an integer >= 1")
        if not (isinstance(self.end, (int, np.integer)) and self.end >= self.start):
            raise ValueError(f"end: {self.end!r} must be an integer >= start ({self.start})")
        if not (math.isfinite(self.gain) and self.gain > 0):
            raise ValueError(f"gain: {self.gain!r} must be a number > 0")

    @classmethod
    def parse(cls, text: str) -> LightSwitch:
        """Parse ``"START:END:GAIN"`` (e.g. ``"900:1000:0.4"``); raises ConfigError."""
        m = _SPEC.match(str(text))
        if m is None:
            raise ConfigError(f"--light-switch {text!r}: expected START:END:GAIN, e.g. 900:1000:0.4")
        start, end, gain = int(m.group(1)), int(m.group(2)), float(m.group(3))
        try:
            return cls(start, end, gain)
        except ValueError as e:
            raise ConfigError(f"--light-switch {text!r}: {e}") from None

    def __str__(self) -> str:
        return f"{self.start}:{self.end}:{self.gain:g}"


def check_disjoint(switches: Iterable[LightSwitch]) -> None:
    """Check that no two switches overlap or touch.

    Two switches that share a frame would multiply their gains, and a switch that starts right
    after another ends (``END + 1``) would put its "switch" event on the earlier one's "restore"
    event; either way the later switch's "F before" would be measured under the earlier switch's
    light, which makes its figures meaningless.

    Raises
    ------
    ConfigError
        Naming both switches and the frames they share (or where they touch).
    """
    ordered = sorted(switches, key=lambda s: (s.start, s.end))
    for a, b in zip(ordered, ordered[1:]):
        if b.start <= a.end:
            verb = "overlap"
            how = "given twice" if a == b else f"frames {b.start}..{min(a.end, b.end)} are in both"
        elif b.start == a.end + 1:
            verb = "touch"
            how = f"{b} starts on frame {b.start}, where the light of {a} comes back"
        else:
            continue
        raise ConfigError(
            f"--light-switch {str(a)!r} and {str(b)!r} {verb} ({how}); expected "
            f"switches with at least one frame of normal light between them"
        )


def apply_light_switches(frame: np.ndarray, index: int, switches: Sequence[LightSwitch]) -> np.ndarray:
    """``frame`` with the brightness of the switches covering frame ``index`` applied (a new array
    when changed, else ``frame`` itself)."""
    gain = 1.0
    for s in switches:
        if s.start <= index <= s.end:
            gain *= s.gain
    if gain == 1.0:
        return frame
    return cv2.convertScaleAbs(frame, alpha=gain)


def switch_events(switches: Iterable[LightSwitch], last_frame: int | None = None) -> list[dict]:
    """Sorted events ``{"frame", "event", "gain", "switch", "start"}``: ``"switch"`` at ``start``
    and ``"restore"`` at ``end + 1`` (dropped when after ``last_frame``); ``start`` is the first
    frame of the switch the event belongs to."""
    ev = []
    for s in switches:
        ev.append(
            {
                "frame": int(s.start),
                "event": "switch",
                "gain": float(s.gain),
                "switch": str(s),
                "start": int(s.start),
            }
        )
        if last_frame is None or s.end + 1 <= last_frame:
            ev.append(
                {
                    "frame": int(s.end + 1),
                    "event": "restore",
                    "gain": 1.0 / float(s.gain),
                    "switch": str(s),
                    "start": int(s.start),
                }
            )
    return sorted(ev, key=lambda e: (e["frame"], e["event"] == "switch"))


def fit_switches(
    switches: Sequence[LightSwitch],
    sequence: str,
    first: int | None,
    last: int | None,
    evaluated: Sequence[int],
) -> tuple[tuple[LightSwitch, ...], list[str]]:
    """Check light switches against a sequence's frames (see the module docstring).

    Parameters
    ----------
    switches : sequence of LightSwitch
    sequence : str
        The sequence's name or path, for messages.
    first, last : int or None
        First and last frame number of the sequence (None: unknown, e.g. some video files).
    evaluated : sequence of int
        The evaluated frame numbers (increasing, not empty).

    Returns
    -------
    (switches, notes)
        The switches with ``end`` clipped to ``last``, and one-line notes for the user.

    Raises
    ------
    ConfigError
        A switch that starts before the first frame, after the last frame or after the last
        evaluated frame; the message names the switch and the sequence's frame range.
    """
    ev0, ev1 = int(evaluated[0]), int(evaluated[-1])
    span = (
        "frame count unknown" if first is None else f"frames {first}..{last}"
    ) + f", evaluated {ev0}..{ev1}"
    lo = ev0 if first is None else int(first)
    expected = f"expected START in {lo}..{ev1}"
    fitted, notes = [], []
    for s in switches:
        if first is not None and s.start < first:
            raise ConfigError(
                f"--light-switch {str(s)!r}: starts at frame {s.start}, before the first frame "
                f"{first} of {sequence} ({span}); {expected}"
            )
        if last is not None and s.start > last:
            raise ConfigError(
                f"--light-switch {str(s)!r}: starts at frame {s.start}, after the last frame {last} "
                f"of {sequence} ({span}); {expected}"
            )
        if s.start > ev1:
            raise ConfigError(
                f"--light-switch {str(s)!r}: starts at frame {s.start}, after the last evaluated "
                f"frame {ev1} of {sequence} ({span}), so it would change no scored frame; "
                f"{expected}"
            )
        if s.start < ev0:
            notes.append(
                f"--light-switch {str(s)!r}: starts at frame {s.start}, before the first evaluated frame "
                f"{ev0} of {sequence} ({span}): there is no F before it, so no recovery is "
                f"measured"
            )
        if last is not None and s.end > last:
            clipped = LightSwitch(s.start, int(last), s.gain)
            notes.append(
                f"--light-switch {str(s)!r}: ends after the last frame {last} of {sequence}; taken as "
                f"{clipped} (the light is not restored: no restore event)"
            )
            s = clipped
        elif s.end > ev1:
            notes.append(
                f"--light-switch {str(s)!r}: ends at frame {s.end}, after the last evaluated frame "
                f"{ev1} of {sequence} ({span}): the light comes back on frames that are not "
                f"scored, so there is no restore event"
            )
        fitted.append(s)
    return tuple(fitted), notes


def _pooled_f(frame_counts: np.ndarray, sel: np.ndarray) -> float | None:
    if not sel.any():
        return None
    f = metrics(Counts.from_array(frame_counts[sel].sum(axis=0)))["f_measure"]
    return None if math.isnan(f) else float(f)


def _mean(values: np.ndarray) -> float | None:
    v = values[np.isfinite(values)]
    return float(v.mean()) if v.size else None


def recovery_report(
    frame_indices: np.ndarray,
    frame_counts: np.ndarray,
    switches: Sequence[LightSwitch],
    *,
    window: int = 100,
    tolerance: float = 0.05,
    smoothing: int = 10,
    last_frame: int | None = None,
) -> list[dict]:
    """Per-event F-measures before/after and recovery time (see the module docstring).

    Parameters
    ----------
    frame_indices : ndarray
        Evaluated frame numbers (increasing).
    frame_counts : ndarray
        ``(n, 4)`` per-frame ``tp, fp, fn, tn`` of those frames.
    switches : sequence of LightSwitch
    window, tolerance, smoothing : int, float, int
        ``W``, ``tol`` and ``R`` of the module docstring.
    last_frame : int, optional
        Last frame of the sequence (a restore event after it is dropped).

    Returns
    -------
    list of dict
        One per event: ``frame, event, gain, switch, f_before, f_after, f_reference,
        recovery_frames`` (``None`` where undefined / not recovered) and ``searched_frames`` (the
        span in which recovery was looked for).
    """
    if window < 1:
        raise ValueError(f"window: {window!r} must be >= 1")
    if not 0 < tolerance < 1:
        raise ValueError(f"tolerance: {tolerance!r} must be in (0, 1)")
    if smoothing < 1:
        raise ValueError(f"smoothing: {smoothing!r} must be >= 1")
    idx = np.asarray(frame_indices)
    fc = np.asarray(frame_counts)
    tp, fp, fn = (fc[:, k].astype(float) for k in range(3))
    denom = 2 * tp + fp + fn
    per_f = np.full(len(idx), np.nan)
    np.divide(2 * tp, denom, out=per_f, where=denom > 0)
    events = switch_events(switches, last_frame)
    ends = [sw.end for sw in switches]
    last_eval = int(idx[-1]) if len(idx) else 0
    out = []
    for j, e in enumerate(events):
        s = e["frame"]
        # normal light only: not back into an earlier switch that ended less than W frames before
        lo = max([e["start"] - window] + [end + 1 for end in ends if end < e["start"]])
        before = (idx >= lo) & (idx < e["start"])
        stop = events[j + 1]["frame"] - 1 if j + 1 < len(events) else last_eval
        stop = min(stop, last_eval)
        after = (idx >= s) & (idx < s + window) & (idx <= stop)  # this event's light only
        ref = _mean(per_f[before])
        rec = None
        if ref is not None:
            for k in range(0, max(stop - s - smoothing + 2, 0)):
                sel = (idx >= s + k) & (idx < s + k + smoothing)
                m = _mean(per_f[sel])
                if m is not None and m >= ref - tolerance:
                    rec = k
                    break
        out.append(
            {
                **e,
                "f_before": _pooled_f(fc, before),
                "f_after": _pooled_f(fc, after),
                "f_reference": ref,
                "recovery_frames": rec,
                "searched_frames": max(stop - s + 1, 0),
            }
        )
    return out
