"""export_masks: an open source that was read from is exported whole; a source without frames
leaves no "running" manifest; a configuration holding NumPy scalars can be exported."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from silkvision.capture import Source, open_source
from silkvision.errors import SourceError
from silkvision.export import MANIFEST, export_masks

from .export_files import files_of
from .fake_detector import FakeDetector

N = 8


def _masks(folder):
    return sorted(p.name for p in folder.glob("bin*.png"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory, sample_seq):
    out = tmp_path_factory.mktemp("lifecycle") / "ref"
    res = export_masks(
        sample_seq, out, {"capture": {"max_frames": N}}, detector=FakeDetector(), progress=False
    )
    assert res.complete and res.frames == N
    return out


@pytest.mark.parametrize("read_before", [1, N])  # part of the source, or all of it
def test_open_folder_source_that_was_read_from_is_exported_from_its_first_frame(
    tmp_path, sample_seq, reference, read_before
):
    with open_source(sample_seq, max_frames=N) as src:
        for _ in range(read_before):
            next(src)
        res = export_masks(
            src, tmp_path / "o", {"capture": {"max_frames": N}}, detector=FakeDetector(), progress=False
        )
    assert res.complete and res.frames == N and res.first_index == 1 and res.last_index == N
    assert files_of(tmp_path / "o") == files_of(reference)


def test_open_video_source_that_was_read_to_its_end_is_exported_whole(tmp_path):
    video = tmp_path / "v.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 24))
    assert w.isOpened()
    rng = np.random.default_rng(0)
    for _ in range(6):
        w.write(rng.integers(0, 256, (24, 32, 3), np.uint8))
    w.release()
    fresh = export_masks(video, tmp_path / "fresh", detector=FakeDetector(), progress=False)
    with open_source(video) as src:
        assert len(list(src)) == 6
        res = export_masks(src, tmp_path / "o", detector=FakeDetector(), progress=False)
    assert res.complete and res.frames == fresh.frames == 6
    assert files_of(tmp_path / "o") == files_of(tmp_path / "fresh")


class _NoFrames(Source):
    """A non-seekable source that ends before its first frame (like a camera that stops)."""

    kind = "video"

    def __init__(self, path):
        super().__init__("nothing")
        self._path = path

    @property
    def spec(self) -> str:
        return str(self._path)

    def _next(self):
        raise StopIteration


def test_a_source_without_frames_leaves_no_running_manifest(tmp_path):
    out = tmp_path / "o"
    with pytest.raises(SourceError, match="no frames to export"):
        export_masks(_NoFrames(tmp_path / "x.avi"), out, detector=FakeDetector(), progress=False)
    assert not (out / MANIFEST).exists() and not (out / "config.yaml").exists()
    assert [p.name for p in out.iterdir()] == []


def test_config_with_numpy_scalars_is_exported_and_resumable(tmp_path, sample_seq):
    cfg = {
        "capture": {"max_frames": np.int64(3), "resize": (np.int64(64), 48)},
        "detector": {"silk": {"tau": np.float64(1e-3)}},
    }
    res = export_masks(sample_seq, tmp_path / "o", cfg, progress=False)
    assert res.complete and _masks(tmp_path / "o") == [f"bin{i:06d}.png" for i in (1, 2, 3)]
    manifest = json.loads((tmp_path / "o" / MANIFEST).read_text())
    assert manifest["status"] == "complete" and manifest["settings"]["detector.silk.tau"] == 1e-3
    assert "tau: 0.001" in (tmp_path / "o" / "config.yaml").read_text()
    again = export_masks(sample_seq, tmp_path / "o", cfg, progress=False)  # same settings: done
    assert again.already_complete
