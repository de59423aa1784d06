"""The output folder's lock: one export per folder, and no link followed."""

from __future__ import annotations

import os

import pytest

from silkvision.errors import ExportError
from silkvision.export import export_masks
from silkvision.export.folder import LOCK, FolderLock

from ..io.fake_detector import FakeDetector


@pytest.mark.parametrize("target", ["absent", "existing"])
def test_a_link_planted_at_the_lock_is_not_followed(tmp_path, sample_seq, target):
    pytest.importorskip("fcntl")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    if target == "existing":
        victim.write_bytes(b"keep me")
    (out / LOCK).symlink_to(victim)
    with pytest.raises(ExportError) as e:
        export_masks(
            sample_seq,
            out,
            {"capture": {"max_frames": 2}},
            detector=FakeDetector(),
            progress=False,
            log=lambda m: None,
        )
    msg = str(e.value)
    assert "\n" not in msg
    assert msg == (
        f"{out / LOCK}: is a symbolic link, not the lock file of an export; remove it and run again"
    )
    if target == "existing":
        assert victim.read_bytes() == b"keep me"
    else:
        assert not os.path.lexists(victim)  # the link's target was not created
    assert (out / LOCK).is_symlink() and not list(out.glob("bin*.png"))
    # the hint, followed literally, works
    (out / LOCK).unlink()
    assert export_masks(
        sample_seq,
        out,
        {"capture": {"max_frames": 2}},
        detector=FakeDetector(),
        progress=False,
        log=lambda m: None,
    ).complete


def test_the_lock_is_exclusive_and_removed_on_release(tmp_path):
    pytest.importorskip("fcntl")
    a = FolderLock(tmp_path)
    with a:
        assert (tmp_path / LOCK).is_file() and not (tmp_path / LOCK).is_symlink()
        with pytest.raises(ExportError, match="another silkvision export is writing to this folder"):
            FolderLock(tmp_path).acquire()
    assert not (tmp_path / LOCK).exists()


def test_a_link_planted_at_the_partial_video_is_removed_not_followed(tmp_path, sample_seq):
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.mkv"
    (out / ".masks.partial.mkv").symlink_to(victim)
    res = export_masks(
        sample_seq,
        out,
        {"capture": {"max_frames": 2}},
        detector=FakeDetector(),
        video=True,
        progress=False,
        log=lambda m: None,
    )
    assert res.complete and res.video is not None and res.video.is_file()
    assert not os.path.lexists(victim)
    assert not os.path.lexists(out / ".masks.partial.mkv")
