"""Video-file sources (anything OpenCV's FFmpeg back end decodes)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2

from silkvision.capture.checks import check_index
from silkvision.capture.images import IMAGE_EXTENSIONS, not_a_file
from silkvision.capture.opencv import DecoderErrors, open_capture
from silkvision.capture.source import Source
from silkvision.errors import BadFrame, SourceError

__all__ = ["VideoSource"]


#: Codecs (the FOURCC OpenCV reports) whose streams OpenCV seeks inexactly: in an MPEG-1/2 program
#: stream a seek into the first group of pictures lands on a later frame. Such a video seeks by
#: decoding forward (from the start, or from the current frame when the target lies ahead).
SEEK_BY_READING = frozenset({"mpg1", "mpg2", "MPG1", "MPG2", "PIM1", "PIM2", "mpeg", "MPEG"})


def _fourcc(cap) -> str:
    code = int(cap.get(cv2.CAP_PROP_FOURCC)) & 0xFFFFFFFF
    return code.to_bytes(4, "little").decode("latin-1")


class VideoSource(Source):
    """Frames of a video file, numbered 1, 2, ... in decoding order.

    When the container reports a frame count and decoding stops before it (truncated file, or a
    frame that fails to decode), iteration raises :class:`SourceError` saying so instead of ending
    quietly. :meth:`seek` is exact: a rewind opens the file again, and in the MPEG-1/2 streams that
    OpenCV seeks inexactly (:data:`SEEK_BY_READING`) every seek decodes forward to its frame.

    Parameters
    ----------
    path : path
        The video file.
    resize, max_frames, groundtruth
        See :func:`silkvision.capture.open_source`.

    Attributes
    ----------
    report_decoder_errors : bool
        Catch FFmpeg's error messages while each frame is decoded
        (:class:`~silkvision.capture.opencv.DecoderErrors`); the export turns it on. Off, they are
        not printed either.
    decoder_message : str or None
        The first such message of the frame read last (None: none, or not caught): FFmpeg
        concealed damage in that frame.
    """

    kind = "video"
    seekable = True

    def __init__(self, path, *, resize=None, max_frames=None, groundtruth=None):
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"{self.path}: {not_a_file(self.path)}; expected a video file")
        if self.path.suffix.lower() in IMAGE_EXTENSIONS:
            raise SourceError(f"{self.path}: is a single image; expected a video file or a folder of images")
        super().__init__(self.path.stem, resize=resize, max_frames=max_frames, groundtruth=groundtruth)
        self._cap = open_capture(str(self.path), cv2.CAP_FFMPEG)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(
                f"{self.path}: cannot open as a video (corrupt file or unsupported "
                f"format); expected a video file OpenCV/FFmpeg can decode"
            )
        n = self._cap.get(cv2.CAP_PROP_FRAME_COUNT)
        self.reported_frames = int(n) if n and n > 0 and math.isfinite(n) else None
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 and math.isfinite(fps) else None
        w = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        h = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        self._header_size = (w, h) if w > 0 and h > 0 else None
        self.seeks_by_reading = _fourcc(self._cap) in SEEK_BY_READING
        self._pos = 1  # number of the next frame
        self._ended = False
        self.report_decoder_errors = False
        self.decoder_message: str | None = None
        self._decoder: DecoderErrors | None = None

    @property
    def spec(self) -> str:
        return str(self.path)

    @property
    def native_size(self) -> tuple[int, int] | None:
        # the first decoded frame decides; until then the container header's size
        return self._native or self._header_size

    @property
    def frame_size(self) -> tuple[int, int] | None:
        return self.resize if self.resize is not None else self.native_size

    @property
    def frame_count(self) -> int | None:
        n = self.reported_frames
        if self.max_frames is not None:
            return self.max_frames if n is None else min(n, self.max_frames)
        return n

    def seek(self, index: int) -> None:
        with self._io:
            if self._closed:
                raise SourceError(f"{self.spec}: source is closed")
            index = check_index(index)
            last = self.frame_count
            if index < 1 or (last is not None and index > last + 1):
                raise SourceError(
                    f"{self.spec}: there is no frame {index}; expected a frame number in "
                    f"1..{last if last is not None else '?'}"
                )
            if index != self._pos:
                if index == 1 or (self.seeks_by_reading and index < self._pos):
                    # rewind by opening the file again: exact in every container, whereas a seek to
                    # frame 0 of an MPEG-1/2 program stream lands inside its first group of pictures
                    cap = open_capture(str(self.path), cv2.CAP_FFMPEG)
                    if not cap.isOpened():
                        cap.release()
                        raise SourceError(f"{self.spec}: cannot open the video again to rewind it")
                    self._cap.release()
                    self._cap = cap
                    self._pos = 1
                if self.seeks_by_reading:
                    self._read_forward(index)
                elif index != 1 and not self._cap.set(cv2.CAP_PROP_POS_FRAMES, index - 1):
                    raise SourceError(f"{self.spec}: cannot seek to frame {index}")
                self._pos = index
            self._ended = False

    def _read_forward(self, index: int) -> None:
        """Decode (without converting) from the next frame up to frame ``index``."""
        while self._pos < index:
            if not self._cap.grab():
                self._ended = True  # until a seek that succeeds
                raise SourceError(
                    f"{self.spec}: cannot seek to frame {index}: decoding stopped "
                    f"before it; the file is truncated or corrupt"
                )
            self._pos += 1

    def _next(self):
        if self._ended or (self.max_frames is not None and self._pos > self.max_frames):
            raise StopIteration
        self.decoder_message = None
        if self.report_decoder_errors:
            if self._decoder is None:
                self._decoder = DecoderErrors()
            with self._decoder:
                ok, frame = self._cap.read()
            self.decoder_message = self._decoder.message
        else:
            ok, frame = self._cap.read()
        if not ok or frame is None:
            self._ended = True
            n = self.reported_frames
            if n is not None and self._pos <= n:
                raise BadFrame(
                    f"{self.spec}: could not decode frame {self._pos} of the {n} the "
                    f"container reports; the file is truncated or corrupt",
                    self._pos,
                )
            raise StopIteration
        index = self._pos
        self._pos += 1
        return index, frame, f"{self.spec} frame {index}"

    def close(self) -> None:
        with self._io:  # not while another thread is inside a read (OpenCV would crash)
            if not self._closed:
                self._cap.release()
                if self._decoder is not None:
                    self._decoder.close()
            super().close()
