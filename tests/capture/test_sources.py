"""Capture sources: folders, CDnet folders, video files; their one-line SourceErrors."""

from __future__ import annotations

import os
import re
import shutil

import cv2
import numpy as np
import pytest

from silkvision.capture import (
    CdnetSource,
    FolderSource,
    VideoSource,
    open_source,
    read_roi,
    read_temporal_roi,
    source_kind,
)
from silkvision.errors import SourceError


def _frames(n, w=32, h=24, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for _ in range(n)]


def _write_folder(folder, frames, pattern="f{:03d}.png"):
    folder.mkdir(parents=True, exist_ok=True)
    for i, f in enumerate(frames, 1):
        assert cv2.imwrite(str(folder / pattern.format(i)), f)
    return folder


def _write_video(path, frames, fps=10.0):
    h, w = frames[0].shape[:2]
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (w, h))
    assert vw.isOpened()
    for f in frames:
        vw.write(f)
    vw.release()
    return path


def _one_line(err):
    msg = str(err.value)
    assert "\n" not in msg and "Traceback" not in msg
    return msg


# -- folders ---------------------------------------------------------------------------------
def test_folder_yields_exact_png_frames_numbered_by_file_name(tmp_path):
    frames = _frames(5)
    _write_folder(tmp_path / "seq", frames, "img_{:02d}.png")
    with open_source(tmp_path / "seq") as src:
        assert (src.kind, src.name, src.frame_count, src.first_index) == ("folder", "seq", 5, 1)
        assert src.frame_size == (32, 24) and src.seekable and src.fps is None
        got = list(src)
    assert [i for i, _ in got] == [1, 2, 3, 4, 5]
    for (_, f), ref in zip(got, frames):
        assert f.dtype == np.uint8 and f.flags.c_contiguous and np.array_equal(f, ref)


def test_folder_natural_order_and_numbers_from_names(tmp_path):
    folder = tmp_path / "nat"
    folder.mkdir()
    frames = _frames(3)
    for num, f in zip((2, 10, 7), frames):
        cv2.imwrite(str(folder / f"frame{num}.png"), f)
    src = open_source(folder)
    got = list(src)
    assert [i for i, _ in got] == [2, 7, 10]  # numbers from the names, in order
    assert np.array_equal(got[1][1], frames[2])
    # names without numbers: position order
    other = tmp_path / "words"
    other.mkdir()
    for name, f in zip(("b", "a", "c"), frames):
        cv2.imwrite(str(other / f"{name}.png"), f)
    got = list(open_source(other))
    assert [i for i, _ in got] == [1, 2, 3]
    assert np.array_equal(got[0][1], frames[1])  # a.png first


def test_folder_grey_and_16bit_images_become_bgr_uint8(tmp_path):
    folder = tmp_path / "g"
    folder.mkdir()
    grey = np.arange(24 * 32, dtype=np.uint16).reshape(24, 32) * 80
    cv2.imwrite(str(folder / "a1.png"), grey)
    cv2.imwrite(str(folder / "a2.png"), (grey >> 8).astype(np.uint8))
    frames = [f for _, f in open_source(folder)]
    assert all(f.shape == (24, 32, 3) and f.dtype == np.uint8 for f in frames)
    assert np.array_equal(frames[0], frames[1])


def test_seek_read_and_max_frames(tmp_path):
    frames = _frames(6)
    _write_folder(tmp_path / "s", frames)
    src = open_source(tmp_path / "s", max_frames=4)
    assert src.frame_count == 4
    src.seek(3)
    assert [i for i, _ in src] == [3, 4]
    assert np.array_equal(src.read(2), frames[1])
    assert next(src)[0] == 3  # read() leaves the source after the frame it read
    with pytest.raises(SourceError) as e:
        src.read(5)  # cut off by max_frames
    assert "no frame 5" in _one_line(e) and "1..4" in str(e.value)


def _gap_folder(tmp_path):
    """Frames numbered 1, 2, 3 and 7 (4..6 missing), each frame a flat image of value 10 x number."""
    folder = tmp_path / "gap"
    folder.mkdir()
    for i in (1, 2, 3, 7):
        assert cv2.imwrite(str(folder / f"in{i:06d}.png"), np.full((4, 4, 3), 10 * i, np.uint8))
    return folder


def test_folder_missing_frame_number_is_an_error_not_the_next_frame(tmp_path):
    """Frame 5 of a folder numbered 1, 2, 3, 7 does not exist: read and seek must say so, not land on
    frame 7 (the README: frames are never silently renumbered)."""
    src = FolderSource(_gap_folder(tmp_path))
    for call in (src.read, src.seek):
        with pytest.raises(SourceError) as e:
            call(5)
        assert "there is no frame 5" in _one_line(e) and "1..7" in str(e.value)
    assert src.read(7)[0, 0, 0] == 70 and src.read(3)[0, 0, 0] == 30


def test_folder_seek_to_the_last_frame_and_just_past_it(tmp_path):
    """``seek(last)`` must still give the last frame, and ``seek(last + 1)`` (just past the end, the
    same contract as a video's) ends the iteration; ``seek(last + 2)`` is an error."""
    src = FolderSource(_gap_folder(tmp_path))
    last = src.indices[-1]
    src.seek(last)
    i, f = next(src)
    assert i == last == 7 and f[0, 0, 0] == 70
    src.seek(1)
    src.seek(last + 1)
    assert list(src) == []
    with pytest.raises(SourceError, match="no frame 9"):
        src.seek(last + 2)


def test_resize_uses_inter_area(tmp_path):
    frames = _frames(2, 64, 48)
    _write_folder(tmp_path / "r", frames)
    src = open_source(tmp_path / "r", resize=(20, 10))
    assert src.frame_size == (20, 10) and src.native_size == (64, 48)
    _, f = next(src)
    assert np.array_equal(f, cv2.resize(frames[0], (20, 10), interpolation=cv2.INTER_AREA))
    with pytest.raises(ValueError, match="resize"):
        open_source(tmp_path / "r", resize=(0, 10))
    with pytest.raises(ValueError, match="max_frames"):
        open_source(tmp_path / "r", max_frames=0)


def test_missing_path_empty_folder_and_single_image(tmp_path):
    with pytest.raises(SourceError) as e:
        open_source(tmp_path / "nope")
    assert "nope: no such file or folder" in _one_line(e)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError) as e:
        open_source(tmp_path / "empty")
    assert "empty: no images" in _one_line(e)
    cv2.imwrite(str(tmp_path / "one.png"), _frames(1)[0])
    with pytest.raises(SourceError) as e:
        open_source(tmp_path / "one.png")
    assert "single image" in _one_line(e)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_named_pipe_is_refused_as_not_a_regular_file(tmp_path):
    """A FIFO exists, but opening it would block: refused at once, saying what it is."""
    fifo = tmp_path / "pipe.avi"
    os.mkfifo(fifo)
    for opener in (open_source, VideoSource):
        with pytest.raises(SourceError) as e:
            opener(fifo)
        assert _one_line(e) == f"{fifo}: is a named pipe (FIFO), not a regular file; expected a video file"


def test_non_image_file_is_named_but_clutter_is_ignored(tmp_path):
    folder = _write_folder(tmp_path / "mixed", _frames(2))
    (folder / "Thumbs.db").write_bytes(b"x")
    (folder / ".DS_Store").write_bytes(b"x")
    (folder / "sub").mkdir()
    assert open_source(folder).frame_count == 2
    (folder / "notes.txt").write_text("hello")
    with pytest.raises(SourceError) as e:
        open_source(folder)
    assert "notes.txt: not an image file" in _one_line(e)


def test_truncated_jpeg_and_corrupt_png_are_named(tmp_path):
    folder = _write_folder(tmp_path / "t", _frames(3), "in{:06d}.jpg")
    data = (folder / "in000002.jpg").read_bytes()
    (folder / "in000002.jpg").write_bytes(data[: len(data) // 2])  # libjpeg would pad it grey
    src = open_source(folder)
    assert next(src)[0] == 1
    with pytest.raises(SourceError) as e:
        next(src)
    assert "in000002.jpg: truncated JPEG" in _one_line(e)
    bad = _write_folder(tmp_path / "p", _frames(2))
    (bad / "f002.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 40)
    src = open_source(bad)
    next(src)
    with pytest.raises(SourceError) as e:
        next(src)
    assert "f002.png: cannot decode" in _one_line(e)
    (bad / "f001.png").write_bytes(b"")
    with pytest.raises(SourceError) as e:
        open_source(bad)  # the first frame is read when the folder opens
    assert "f001.png: empty file" in _one_line(e)


def test_changing_frame_size_names_frame_and_both_sizes(tmp_path):
    folder = _write_folder(tmp_path / "z", _frames(2))
    cv2.imwrite(str(folder / "f003.png"), _frames(1, 40, 30)[0])
    src = open_source(folder, resize=(16, 12))  # still an error: the stored frames disagree
    next(src), next(src)
    with pytest.raises(SourceError) as e:
        next(src)
    msg = _one_line(e)
    assert "f003.png" in msg and "40x30" in msg and "32x24" in msg and "f001.png" in msg


# -- CDnet -----------------------------------------------------------------------------------
def test_cdnet_sample(sample_seq):
    with open_source(sample_seq, max_frames=3) as src:
        assert isinstance(src, CdnetSource) and src.kind == "cdnet" and src.name == "highway"
        assert src.frame_size == (320, 240) and src.frame_count == 3
        assert src.temporal_roi == (100, 400)
        assert src.roi.dtype == bool and src.roi.shape == (240, 320) and src.roi.all()
        assert src.has_groundtruth
        idx, frame = next(src)
        ref = cv2.imread(str(sample_seq / "input" / "in000001.jpg"))
        assert idx == 1 and np.array_equal(frame, ref)
        gt = src.groundtruth(1)
        assert gt.shape == (240, 320) and gt.dtype == np.uint8 and set(np.unique(gt)) <= {0, 50, 85, 170, 255}
        assert np.array_equal(
            src.groundtruth(300), cv2.imread(str(sample_seq / "groundtruth" / "gt000300.png"))[..., 0]
        )
    assert source_kind(sample_seq) == "cdnet" and source_kind("0") == "camera"
    assert source_kind(np.int64(0)) == "camera" and source_kind(" 1 ") == "camera"


def test_a_unicode_digit_is_a_path_not_a_camera(tmp_path, monkeypatch):
    """'²'.isdigit() is True but int('²') fails: such a name is a path (it was a raw ValueError)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError, match="²: no such file or folder"):
        open_source("²")
    (tmp_path / "²").mkdir()
    cv2.imwrite(str(tmp_path / "²" / "a1.png"), np.zeros((4, 4, 3), np.uint8))
    assert source_kind("²") == "folder"


def test_cdnet_numbering_resize_and_bad_temporal_roi(tmp_path, sample_seq):
    seq = tmp_path / "seq"
    (seq / "input").mkdir(parents=True)
    (seq / "groundtruth").mkdir()
    for n in (5, 6, 7):
        shutil.copy(sample_seq / "input" / f"in{n + 200:06d}.jpg", seq / "input" / f"in{n:06d}.jpg")
        shutil.copy(
            sample_seq / "groundtruth" / f"gt{n + 200:06d}.png", seq / "groundtruth" / f"gt{n:06d}.png"
        )
    roi = np.zeros((240, 320), np.uint8)
    roi[:, :160] = 255
    cv2.imwrite(str(seq / "ROI.bmp"), roi)
    (seq / "temporalROI.txt").write_text("6 7\n")
    src = open_source(seq, resize=(160, 120))
    assert src.first_index == 5 and [i for i, _ in src] == [5, 6, 7]
    assert src.temporal_roi == (6, 7)
    assert src.roi.shape == (120, 160) and src.roi[:, :80].all() and not src.roi[:, 80:].any()
    gt = src.groundtruth(6)
    full = cv2.imread(str(seq / "groundtruth" / "gt000006.png"), cv2.IMREAD_GRAYSCALE)
    assert np.array_equal(gt, cv2.resize(full, (160, 120), interpolation=cv2.INTER_NEAREST))
    assert src.groundtruth(99) is None
    (seq / "temporalROI.txt").write_text("six seven")
    with pytest.raises(SourceError) as e:
        _ = open_source(seq).temporal_roi
    assert "temporalROI.txt" in _one_line(e) and "two integers" in str(e.value)
    assert read_temporal_roi(sample_seq / "temporalROI.txt") == (100, 400)
    assert read_roi(sample_seq / "ROI.bmp").all()


# -- video -----------------------------------------------------------------------------------
def test_video_file_frames_fps_count_seek_and_groundtruth(tmp_path):
    frames = [np.full((24, 32, 3), 10 * i, np.uint8) for i in range(8)]
    path = _write_video(tmp_path / "clip.avi", frames, fps=12.0)
    gt = _write_folder(tmp_path / "gt", [np.full((24, 32), 255, np.uint8)] * 8, "gt{:06d}.png")
    with open_source(path, groundtruth=gt) as src:
        assert isinstance(src, VideoSource)
        assert (src.kind, src.name, src.frame_count, src.fps, src.frame_size) == (
            "video",
            "clip",
            8,
            12.0,
            (32, 24),
        )
        got = list(src)
        assert [i for i, _ in got] == list(range(1, 9))
        for (_, f), ref in zip(got, frames):  # MJPG is lossy: close, not equal
            assert f.shape == (24, 32, 3) and abs(int(f.mean()) - int(ref.mean())) <= 2
        src.seek(5)
        i, f = next(src)
        assert i == 5 and abs(int(f.mean()) - 40) <= 2
        assert src.has_groundtruth and src.groundtruth(3).shape == (24, 32)
    assert open_source(path, max_frames=3).frame_count == 3
    assert len(list(open_source(path, max_frames=3))) == 3


def _mpeg1_noise(path, n: int, size: tuple[int, int]):
    """An MPEG-1 program stream of ``n`` frames of seeded noise (skips where OpenCV cannot write one)."""
    rng = np.random.default_rng(0)
    vw = cv2.VideoWriter(str(path), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"PIM1"), 25, size)
    if not vw.isOpened():
        pytest.skip("this OpenCV build cannot write MPEG-1")
    for _ in range(n):
        vw.write(rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8))
    vw.release()
    return path


def test_rewinding_an_mpeg_program_stream_gives_its_first_frames_again(tmp_path):
    """A seek to frame 0 of an MPEG-1 .mpg lands inside its first group of pictures (on frame 14
    here); rewinding opens the file again, so a restart or a resume reads the same frames."""
    path = _mpeg1_noise(tmp_path / "clip.mpg", 30, (64, 48))
    with open_source(path) as src:
        first = [next(src) for _ in range(10)]
        src.seek(1)
        again = [next(src) for _ in range(10)]
    assert [i for i, _ in again] == [i for i, _ in first] == list(range(1, 11))
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(first, again))


def test_every_seek_in_an_mpeg_program_stream_finds_its_frame(tmp_path):
    """OpenCV's seek into the first group of pictures of an MPEG-1 .mpg lands on a later frame (a
    seek to frame 2 gives frame 3 here): such a video seeks by decoding forward, so every seek,
    backwards or forwards, gives the frame a sequential read gives."""
    path = _mpeg1_noise(tmp_path / "clip.mpg", 40, (320, 240))
    with open_source(path) as src:
        assert src.seeks_by_reading
        frames = dict(src)
        for k in (5, 13, 2, 30, 14, 3, 40):
            src.seek(k)
            i, f = next(src)
            assert i == k and np.array_equal(f, frames[k]), k
        with pytest.raises(SourceError, match=r"clip\.mpg: there is no frame 42"):
            src.seek(42)
    with open_source(_write_video(tmp_path / "v.avi", _frames(5, 32, 24))) as src:
        assert not src.seeks_by_reading  # other codecs keep OpenCV's (exact) seek
    with open_source(
        path
    ) as src:  # a decoder that stops before the frame sought: an error, then a rewind works
        real, src._cap = (
            src._cap,
            type("Stopped", (), {"grab": lambda self: False, "release": lambda self: None})(),
        )
        with pytest.raises(
            SourceError, match=r"clip\.mpg: cannot seek to frame 5: decoding stopped before it"
        ):
            src.seek(5)
        src._cap = real
        src.seek(1)
        i, f = next(src)
        assert i == 1 and np.array_equal(f, frames[1])


def test_truncated_video_says_it_stopped_early(tmp_path):
    frames = _frames(30, 64, 48)
    path = _write_video(tmp_path / "full.avi", frames)
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: int(len(data) * 0.5)])
    src = open_source(cut)
    assert src.frame_count == 30  # the AVI header still says 30
    with pytest.raises(SourceError) as e:
        for _ in src:
            pass
    msg = _one_line(e)
    assert "cut.avi" in msg and "of the 30 the container reports" in msg


def test_video_missing_only_its_last_frame_says_so(tmp_path):
    """The file cut at the last frame's ``00dc`` chunk still reports 5 frames: frames 1..4 come out,
    then frame 5 must be an error, not a quiet end (the off-by-one case of the test above)."""
    path = _write_video(tmp_path / "v.avi", [np.full((24, 32, 3), 40 * i, np.uint8) for i in range(5)])
    data = path.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: data.rfind(b"00dc", 0, data.find(b"idx1"))])  # the 5th frame's chunk
    src = open_source(cut)
    assert src.reported_frames == 5
    got = []
    with pytest.raises(SourceError) as e:
        for i, _ in src:
            got.append(i)
    assert got == [1, 2, 3, 4]
    assert "could not decode frame 5 of the 5 the container reports" in _one_line(e)
    assert _one_line(e).endswith("; the file is truncated or corrupt")


def test_video_seek_just_past_the_end_ends_the_iteration(tmp_path):
    """Like a folder, ``seek(frame_count + 1)`` is accepted and the iteration then yields nothing;
    ``seek(frame_count + 2)`` is an error naming the frame."""
    src = open_source(_write_video(tmp_path / "v.avi", _frames(5)))
    assert isinstance(src, VideoSource) and src.frame_count == 5
    src.seek(src.frame_count + 1)
    assert list(src) == []
    with pytest.raises(SourceError, match="there is no frame 7"):
        src.seek(src.frame_count + 2)


def test_garbage_video_cannot_be_opened(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all" * 10)
    with pytest.raises(SourceError) as e:
        open_source(bad)
    assert "bad.mp4: cannot open as a video" in _one_line(e)


def test_groundtruth_folder_must_exist_and_match_size(tmp_path):
    path = _write_video(tmp_path / "v.avi", _frames(3))
    with pytest.raises(SourceError) as e:
        open_source(path, groundtruth=tmp_path / "missing")
    assert "ground-truth folder not found" in _one_line(e)
    with pytest.raises(SourceError) as e:  # a file given as the folder
        open_source(path, groundtruth=path)
    assert f"{path}: is a file, not a folder; expected a folder of gt%06d.png masks" in _one_line(e)
    gt = _write_folder(tmp_path / "gt", [np.zeros((10, 10), np.uint8)] * 3, "gt{:06d}.png")
    src = open_source(path, groundtruth=gt)
    with pytest.raises(SourceError) as e:
        src.groundtruth(1)
    assert "gt000001.png" in _one_line(e) and "10x10" in str(e.value) and "32x24" in str(e.value)


def test_check_groundtruth_refuses_the_wrong_size_before_any_frame_is_read(tmp_path):
    """The first mask (here gt000003: the folder starts at frame 3) is checked at once, for a
    video (header size) and for a folder (first image); a right-sized folder passes."""
    video = _write_video(tmp_path / "v.avi", _frames(4))
    folder = _write_folder(tmp_path / "f", _frames(4))
    small = tmp_path / "small"
    small.mkdir()
    for n in (3, 4):
        cv2.imwrite(str(small / f"gt{n:06d}.png"), np.zeros((10, 12), np.uint8))
    right = _write_folder(tmp_path / "gt", [np.zeros((24, 32), np.uint8)] * 4, "gt{:06d}.png")
    for spec in (video, folder):
        src = open_source(spec, groundtruth=small)
        with pytest.raises(SourceError) as e:
            src.check_groundtruth()
        assert "gt000003.png: ground truth is 12x10 but the frames are 32x24" in _one_line(e)
        assert src.native_size == (32, 24)
        open_source(spec, groundtruth=right).check_groundtruth()
        open_source(spec).check_groundtruth()  # no ground truth: nothing to check


def test_closed_source_refuses_reads(tmp_path):
    src = FolderSource(_write_folder(tmp_path / "c", _frames(2)))
    src.close()
    with pytest.raises(SourceError, match="closed"):
        next(src)


def test_temporal_roi_saved_with_a_bom_is_read(tmp_path):
    from silkvision.capture import read_temporal_roi

    p = tmp_path / "temporalROI.txt"
    p.write_bytes(b"\xef\xbb\xbf100 400\r\n")  # as Windows Notepad saves it
    assert read_temporal_roi(p) == (100, 400)


def test_a_corrupt_bmp_is_one_line_without_opencv_error_lines(tmp_path, capfd, monkeypatch):
    from silkvision.capture import read_image

    monkeypatch.delenv("OPENCV_LOG_LEVEL", raising=False)
    p = tmp_path / "ROI.bmp"
    p.write_bytes(b"BMgarbage")
    with pytest.raises(SourceError, match=r"ROI\.bmp: cannot decode"):
        read_image(p, what="an ROI mask image")
    assert "ERROR" not in capfd.readouterr().err


def test_only_integers_are_frame_numbers(tmp_path, sample_seq):
    """A bool, 100.9 or "a" used to be frame 1, frame 100 or a bare int() error."""
    folder = tmp_path / "f"
    folder.mkdir()
    for i in (1, 2):
        cv2.imwrite(str(folder / f"in{i:06d}.png"), np.zeros((4, 4, 3), np.uint8))
    video = tmp_path / "v.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (8, 8))
    for _ in range(3):
        w.write(np.zeros((8, 8, 3), np.uint8))
    w.release()
    for spec in (folder, video, sample_seq):
        with open_source(spec) as src:
            for bad in (True, np.bool_(False), 1.0, 100.9, np.float64(5.0), "a", None):
                shown = bad.item() if isinstance(bad, np.generic) else bad  # plain values, not np reprs
                for method in ("seek", "read", "groundtruth", "groundtruth_path"):
                    with pytest.raises(
                        ValueError,
                        match=f"^index: {re.escape(repr(shown))} is not a frame number; expected an integer$",
                    ):
                        getattr(src, method)(bad)
            assert src.groundtruth_path(np.int64(2)) == src.groundtruth_path(2)


# -- one source, several threads ----------------------------------------------------------------

_CLOSE_WHILE_READING = """
import sys, threading, time
from silkvision.capture import open_source
src = open_source(sys.argv[1]); errors = []
def reader():
    try:
        while True:
            for _ in src:
                pass
            src.seek(1)
    except Exception as e:
        errors.append(str(e))
t = threading.Thread(target=reader); t.start()
time.sleep(0.3); src.close(); t.join()
print(errors)
"""


@pytest.mark.parametrize("fourcc, ext", [("FFV1", ".mkv"), ("MJPG", ".avi")])
@pytest.mark.slow
def test_a_video_closed_by_another_thread_during_a_read_ends_the_read_cleanly(tmp_path, fourcc, ext):
    """The GUI's Stop pattern. Releasing OpenCV's capture during a read aborted or crashed the
    interpreter (or said the file was corrupt); close() now waits for the read in progress."""
    import subprocess
    import sys

    path = tmp_path / f"v{ext}"
    frames = _frames(150, 160, 120)
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), 25.0, (160, 120))
    if not vw.isOpened():
        pytest.skip(f"this OpenCV cannot write {fourcc}")
    for f in frames:
        vw.write(f)
    vw.release()
    script = tmp_path / "close_while_reading.py"
    script.write_text(_CLOSE_WHILE_READING)
    done = subprocess.run(
        [sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"['{path}: source is closed']"


_SHARE = """
import sys, threading
from silkvision.capture import open_source
got = []
with open_source(sys.argv[1]) as src:
    def take():
        for index, _ in src:
            got.append(index)
    threads = [threading.Thread(target=take) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print(sorted(got) == list(range(1, 61)), len(got))
"""


@pytest.mark.parametrize("kind", ["folder", "video"])
def test_two_threads_sharing_a_source_get_each_frame_once(tmp_path, kind):
    """Frames were handed out twice or skipped (folder), or OpenCV crashed (video); in a child
    process, so that a crash cannot take the test run with it."""
    import subprocess
    import sys

    frames = _frames(60)
    path = (
        _write_folder(tmp_path / "f", frames)
        if kind == "folder"
        else _write_video(tmp_path / "v.avi", frames)
    )
    script = tmp_path / "share.py"
    script.write_text(_SHARE)
    done = subprocess.run(
        [sys.executable, str(script), str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "60"]


def test_a_folder_source_pickles_and_copies_with_a_lock_of_its_own(tmp_path):
    import copy
    import pickle

    src = open_source(_write_folder(tmp_path / "f", _frames(5)))
    next(src)
    for twin in (pickle.loads(pickle.dumps(src)), copy.deepcopy(src)):
        assert next(twin)[0] == 2 and twin._io is not src._io
    assert next(src)[0] == 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_child_forked_while_another_thread_reads_can_use_the_source(tmp_path):
    """The child inherits the source's lock as the parent's reader thread held it; it is renewed
    after a fork (else the child waited for ever)."""
    import subprocess
    import sys

    folder = _write_folder(tmp_path / "f", _frames(40))
    script = tmp_path / "fork.py"
    script.write_text(f"""
import os, threading, time
from silkvision.capture import open_source
src = open_source({str(folder)!r}); stop = False
def reader():
    while not stop:
        for _ in src:
            pass
        src.seek(1)
t = threading.Thread(target=reader); t.start(); time.sleep(0.2)
hung = 0
for _ in range(5):
    pid = os.fork()
    if pid == 0:
        src.seek(5); next(src); os._exit(0)
    deadline = time.time() + 10
    while not os.waitpid(pid, os.WNOHANG)[0]:
        if time.time() > deadline:
            hung += 1; os.kill(pid, 9); os.waitpid(pid, 0); break
        time.sleep(0.02)
stop = True; t.join()
print(hung)
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "0"


def test_an_empty_path_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch):
    cv2.imwrite(str(tmp_path / "f1.png"), np.zeros((4, 4, 3), np.uint8))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError, match=r"^'': empty path; expected a video file"):
        open_source("")
