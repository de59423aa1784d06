"""DecoderErrors: what is written on stderr (fd 2) during the block is caught, its first line kept
without FFmpeg's address, and fd 2 and FFmpeg's log level are restored after it."""

from __future__ import annotations

import os
import sys

import pytest

from silkvision.capture.opencv import DecoderErrors, _avutil, decoder_message

needs_avutil = pytest.mark.skipif(_avutil() is None, reason="FFmpeg's libavutil not found in this process")


def test_first_line_without_the_address():
    assert (
        decoder_message(b"[mjpeg @ 0x55d1c0a8b2c0] error y=3 x=1\n[mjpeg @ 0x5] bad vlc\n")
        == "mjpeg: error y=3 x=1"
    )
    assert decoder_message(b"\n  \nplain text\n") == "plain text"
    assert decoder_message(b"[h264 @ 0xABCdef] \xff broken\n") == "h264: \ufffd broken"
    assert decoder_message(b"") is None and decoder_message(b"\n \n") is None


@needs_avutil
def test_the_block_catches_fd2_and_restores_it_and_the_level():
    lib = _avutil()
    before_level = lib.av_log_get_level()
    before_fd = os.fstat(2)
    errs = DecoderErrors()
    try:
        for text in (b"[mjpeg @ 0x1234] error count: 7\nmore\n", b""):
            with errs:
                assert lib.av_log_get_level() >= 16
                os.write(2, text)
            assert errs.message == ("mjpeg: error count: 7" if text else None)  # nothing left over
            after = os.fstat(2)
            assert (after.st_dev, after.st_ino) == (before_fd.st_dev, before_fd.st_ino)
            assert lib.av_log_get_level() == before_level
        with pytest.raises(RuntimeError), errs:  # restored when the read raises, too
            raise RuntimeError
        after = os.fstat(2)
        assert (after.st_dev, after.st_ino) == (before_fd.st_dev, before_fd.st_ino)
    finally:
        errs.close()
    sys.stderr.write("")  # Python's stderr still works
