"""Capture sources: cameras, network streams, video files, image folders and CDnet sequence
folders behind one interface yielding ``(index, frame_bgr_uint8)``.

>>> from silkvision.capture import open_source
>>> with open_source(sv.samples.highway(), max_frames=10) as src:     # doctest: +SKIP
...     for index, frame in src:
...         mask = det.apply(frame)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from silkvision.capture.camera import CameraSource
from silkvision.capture.cdnet import CdnetSource, read_roi, read_temporal_roi
from silkvision.capture.folder import FolderSource
from silkvision.capture.groundtruth import GroundTruth
from silkvision.capture.images import IMAGE_EXTENSIONS, read_image
from silkvision.capture.source import Source
from silkvision.capture.stream import StreamSource, is_stream_url
from silkvision.capture.video import VideoSource
from silkvision.errors import SourceError
from silkvision.io.paths import expand_user, link_problem

__all__ = [
    "open_source",
    "Source",
    "CameraSource",
    "StreamSource",
    "VideoSource",
    "FolderSource",
    "CdnetSource",
    "GroundTruth",
    "IMAGE_EXTENSIONS",
    "read_image",
    "read_roi",
    "read_temporal_roi",
    "source_kind",
    "is_stream_url",
]


def _camera_index(spec) -> int | None:
    if isinstance(spec, (bool, np.bool_)):
        return None
    if isinstance(spec, (int, np.integer)):
        return int(spec)
    if isinstance(spec, str) and spec.strip().isdecimal():
        return int(spec.strip())
    return None


def _path_hint(spec) -> str:
    """``"(to read the folder 0, write ./0)"`` when the camera-index text ``spec`` also names a file
    or folder in the working directory (a digit string is always read as a camera index)."""
    if not isinstance(spec, str):
        return ""
    try:
        p = Path(spec)
        if not p.exists():
            return ""
        what = "folder" if p.is_dir() else "file"
    except OSError:
        return ""
    return f"(to read the {what} {spec}, write ./{spec})"


def source_kind(spec) -> str:
    """``"camera"``, ``"stream"``, ``"cdnet"``, ``"folder"`` or ``"video"``: what :func:`open_source`
    would open (without opening it; the path is not checked)."""
    if _camera_index(spec) is not None:
        return "camera"
    if is_stream_url(spec):
        return "stream"
    p = expand_user(spec)
    if p.is_dir():
        return "cdnet" if (p / "input").is_dir() else "folder"
    return "video"


def _sample_hint(path: Path) -> str:
    """Where the shipped sample is, for a ``samples/NAME`` that is not here (the README's examples
    run from a checkout; an installed wheel keeps the sample under ``<prefix>/share``)."""
    if len(path.parts) < 2 or path.parts[-2] != "samples":
        return ""
    from silkvision.samples import samples_dir

    try:
        shipped = samples_dir() / path.name
    except SourceError:
        return ""
    return f" (the shipped sample {path.name} is {shipped})" if shipped.is_dir() else ""


def open_source(
    spec,
    camera_timeout: float = 5.0,
    resize=None,
    max_frames=None,
    groundtruth=None,
    reconnect_timeout: float = 30.0,
) -> Source:
    """Open a capture source.

    Parameters
    ----------
    spec : int, str or path
        An int or a digit string: a camera index (``0``). An ``rtsp://``, ``http://`` or
        ``https://`` URL: a network stream (:class:`StreamSource`). A folder with an ``input/``
        sub-folder: a CDnet sequence. Another folder: its images, in natural name order. A file: a
        video.
    camera_timeout : float
        Seconds to wait for a camera or stream to open and for each of its frames (config
        ``capture.camera_timeout``).
    resize : (width, height), optional
        Resize every frame with ``cv2.INTER_AREA`` (ground truth and ROI with nearest neighbour);
        integers in 1..16384 (:data:`silkvision.config.schema.MAX_FRAME_SIDE`, as config
        ``capture.resize``); ValueError otherwise.
    max_frames : int, optional
        Use only the first ``max_frames`` frames (config ``capture.max_frames``).
    groundtruth : path, optional
        A folder of ground-truth masks (``gt%06d.png`` or any numbered/sorted images) paired with
        the frames by number, e.g. beside a video file. CDnet folders use their ``groundtruth/``.
    reconnect_timeout : float
        Seconds a stream keeps reconnecting after it dropped (config
        ``capture.reconnect_timeout``; 0: a drop ends it).

    Returns
    -------
    Source
        Iterate it for ``(index, frame)``; use it as a context manager to close it.

    Raises
    ------
    SourceError
        One line naming the path/camera and what was expected.
    """
    cam = _camera_index(spec)
    if cam is not None:
        try:
            return CameraSource(
                cam,
                camera_timeout=camera_timeout,
                resize=resize,
                max_frames=max_frames,
                groundtruth=groundtruth,
            )
        except SourceError as e:
            hint = _path_hint(spec)
            if hint:
                raise SourceError(f"{e} {hint}") from None
            raise
    if is_stream_url(spec):
        return StreamSource(
            spec,
            camera_timeout=camera_timeout,
            reconnect_timeout=reconnect_timeout,
            resize=resize,
            max_frames=max_frames,
            groundtruth=groundtruth,
        )
    if not isinstance(spec, (str, os.PathLike)):
        raise ValueError(f"spec: {spec!r} is not a path or a camera index")
    if not str(spec).strip():  # Path("") is the current folder: never what was meant
        raise SourceError(
            f"{str(spec)!r}: empty path; expected a video file, an image folder, a CDnet "
            f"sequence folder or a camera index"
        )
    path = expand_user(spec)
    if not path.exists():
        why = link_problem(path) or "no such file or folder"
        raise SourceError(
            f"{path}: {why}; expected a video file, an image folder, "
            f"a CDnet sequence folder or a camera index{_sample_hint(path)}"
        )
    if path.is_dir():
        cls = CdnetSource if (path / "input").is_dir() else FolderSource
        return cls(path, resize=resize, max_frames=max_frames, groundtruth=groundtruth)
    return VideoSource(path, resize=resize, max_frames=max_frames, groundtruth=groundtruth)
