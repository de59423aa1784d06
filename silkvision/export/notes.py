"""One-line notes an export shows about its source and outputs (kept in ``ExportResult.notes``)."""

from __future__ import annotations

from silkvision.capture import Source
from silkvision.export.result import ExportResult
from silkvision.io.writers import MaskVideoWriter

__all__ = ["note_resize", "note_padding", "note_dropped"]


def note_resize(src: Source, res: ExportResult, log) -> None:
    """With ``capture.resize``: say that the masks have the processed size, and warn when the resize
    changes the frames' aspect ratio (e.g. a portrait clip given a landscape size)."""
    native, size = src.native_size, src.resize
    if size is None or native is None or size == native:
        return
    note = f"masks are {size[0]}x{size[1]} (capture.resize); the source's frames are {native[0]}x{native[1]}"
    a_native, a_size = native[0] / native[1], size[0] / size[1]
    if abs(a_size / a_native - 1.0) > 0.01:
        note += f", so the resize changes the aspect ratio from {a_native:.2f} to {a_size:.2f} (width/height)"
    res.note(note, log)


def note_padding(writer: MaskVideoWriter, res: ExportResult, log) -> None:
    """Say that the mask video is padded to an even size, when it is."""
    if writer.padded:
        (w, h), (vw, vh) = writer.size, writer.video_size
        res.note(
            f"{writer.path.name} is {vw}x{vh}: the {w}x{h} masks are padded with background to an "
            f"even size, which OpenCV's video writer needs (its top-left {w}x{h} are the masks)",
            log,
        )


def note_dropped(src: Source, res: ExportResult, log) -> None:
    """Tell the user how many camera (or stream) frames arrived while the detector was busy (not
    exported)."""
    dropped = getattr(src, "dropped", 0)
    if dropped:
        res.note(
            f"{dropped} {src.kind} frame{'s' if dropped != 1 else ''} arrived while the "
            f"detector was busy and {'were' if dropped != 1 else 'was'} not exported (the "
            f"{src.kind} runs faster than the detector)",
            log,
        )
