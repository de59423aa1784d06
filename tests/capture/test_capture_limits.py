"""The resize bound shared with the config, and FFmpeg's log lines kept off the console."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import cv2
import numpy as np
import pytest

from silkvision.capture import open_source
from silkvision.capture.checks import MAX_FRAME_SIDE, check_resize
from silkvision.config import validate
from silkvision.config.schema import SCHEMA
from silkvision.errors import ConfigError


def _folder(tmp_path):
    d = tmp_path / "f"
    d.mkdir()
    cv2.imwrite(str(d / "f1.png"), np.zeros((24, 32, 3), np.uint8))
    return d


@pytest.mark.parametrize("resize", [(100000, 100000), (MAX_FRAME_SIDE + 1, 10), (10, MAX_FRAME_SIDE + 1)])
def test_resize_beyond_the_config_bound_is_refused_before_reading(tmp_path, resize):
    with pytest.raises(
        ValueError,
        match=rf"^resize: .*expected None or \(width, height\) with integers "
        rf"in 1\.\.{MAX_FRAME_SIDE}$",
    ):
        open_source(_folder(tmp_path), resize=resize)
    with pytest.raises(ConfigError, match=f"1..{MAX_FRAME_SIDE}"):
        validate({"capture": {"resize": list(resize)}})


def test_resize_bound_is_the_one_of_the_config():
    assert MAX_FRAME_SIDE == 16384
    assert f"1..{MAX_FRAME_SIDE}" in SCHEMA["capture"]["resize"].allowed
    assert check_resize((MAX_FRAME_SIDE, np.int64(1))) == (MAX_FRAME_SIDE, 1)
    with pytest.raises(ValueError):
        check_resize((np.bool_(True), 5))


_READ_AFTER_WRITER = textwrap.dedent("""
    import sys
    import silkvision.capture as capture
    import cv2
    # a VideoWriter first: OpenCV initialises FFmpeg (and reads its log level) here
    w = cv2.VideoWriter(sys.argv[2], cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"FFV1"), 25.0, (32, 24), False)
    w.release()
    with capture.open_source(sys.argv[1]) as src:
        for _ in src:
            pass
""")


def _damaged_mpeg4(tmp_path):
    path = tmp_path / "v.mp4"
    rng = np.random.default_rng(0)
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 25.0, (32, 24))
    if not w.isOpened():
        pytest.skip("this OpenCV cannot write MPEG-4 part 2")
    for _ in range(30):
        w.write(rng.integers(0, 256, (24, 32, 3), np.uint8))
    w.release()
    data = bytearray(path.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 200] = bytes(200)  # damage the middle frames
    path.write_bytes(bytes(data))
    return path


def _stderr_of_reading(tmp_path, video, **env_extra) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCV_FFMPEG_LOGLEVEL", "OPENCV_LOG_LEVEL")}
    env.update(env_extra)
    r = subprocess.run(
        [sys.executable, "-c", _READ_AFTER_WRITER, str(video), str(tmp_path / "w.mkv")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return r.stdout + r.stderr


@pytest.mark.slow
def test_ffmpeg_messages_are_silenced_even_after_a_video_writer(tmp_path):
    video = _damaged_mpeg4(tmp_path)
    # control: with the user's own level (16 = errors) FFmpeg does complain about this file
    loud = _stderr_of_reading(tmp_path, video, OPENCV_FFMPEG_LOGLEVEL="16")
    if "FFMPEG" not in loud and "mpeg4" not in loud:
        pytest.skip("this FFmpeg decodes the damaged file without messages")
    assert _stderr_of_reading(tmp_path, video) == ""
