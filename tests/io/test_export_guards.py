"""Guards of the resumable export that the other export tests do not reach: empty and write-check
folders (atomic), what the manifest notices and refuses (manifest), and the export engine's own
folder, lock, camera and seek rules (export). Tiny synthetic frames keep every test fast."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from silkvision.capture import Source, open_source
from silkvision.capture.folder import FolderSource
from silkvision.errors import ExportError, ExportMismatchError
from silkvision.export import CHECKPOINT, MANIFEST, export_masks
from silkvision.io.atomic import check_writable_folder, make_output_folder, output_path
from silkvision.io.manifest import compare_manifests, read_manifest, source_fingerprint
from silkvision.io.npz import load_npz

from .fake_detector import FakeDetector, interrupt_after

H, W = 12, 16


def _export(src, out, **kw):
    kw.setdefault("detector", FakeDetector())
    return export_masks(src, out, kw.pop("config", {}), progress=False, log=lambda m: None, **kw)


def _frame(k: int, h: int = H, w: int = W) -> np.ndarray:
    return np.random.default_rng(k).integers(0, 256, (h, w, 3), np.uint8)


@pytest.fixture
def seq(tmp_path) -> Path:
    """A CDnet folder of 6 tiny PNG frames."""
    folder = tmp_path / "seq"
    (folder / "input").mkdir(parents=True)
    for i in range(1, 7):
        assert cv2.imwrite(str(folder / "input" / f"in{i:06d}.png"), _frame(i))
    return folder


def _masks(out: Path) -> list[str]:
    return sorted(p.name for p in out.glob("bin*.png") if p.is_file())


# -- io/atomic.py ----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [output_path, make_output_folder, check_writable_folder])
def test_an_empty_output_folder_name_is_refused_not_taken_as_the_current_folder(tmp_path, monkeypatch, make):
    # `silkvision evaluate --out ""` relies on this check, not on export_masks' own one
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ExportError, match="'': empty output folder name; expected a folder path"):
        make("")
    assert list(tmp_path.iterdir()) == []


def test_the_write_check_leaves_nothing_in_the_output_folder(tmp_path):
    # the probe file is removed again, so the user's --out is left as it was
    out = tmp_path / "new" / "out"
    assert check_writable_folder(out) == out
    assert os.listdir(out) == []
    (out / "mine.txt").write_text("kept")
    check_writable_folder(out)
    assert os.listdir(out) == ["mine.txt"]


# -- io/manifest.py --------------------------------------------------------------------------------
def _fingerprint(folder: Path) -> str:
    with open_source(folder) as src:
        return source_fingerprint(src)


def test_fingerprint_notices_a_change_near_the_end_of_a_frame_file_over_1_mib(tmp_path):
    """The last MiB of a large frame file is read too: a frame file of 1.5 MiB (720x720 BMP) that
    changes in its last bytes, at the same size, is another source."""
    folder = tmp_path / "big"
    folder.mkdir()
    frame = folder / "f1.bmp"
    assert cv2.imwrite(str(frame), np.zeros((720, 720, 3), np.uint8))
    assert 1 << 20 < frame.stat().st_size < 2 << 20
    before = _fingerprint(folder)
    data = bytearray(frame.read_bytes())
    data[-100] ^= 0xFF  # a pixel of the last row (BMP is stored bottom-up)
    frame.write_bytes(bytes(data))
    assert _fingerprint(folder) != before


def test_fingerprint_notices_new_content_in_the_last_frame_at_the_same_size(tmp_path):
    # the first and the last frame file are both read
    folder = tmp_path / "f"
    folder.mkdir()
    for k in (1, 2, 3):
        assert cv2.imwrite(str(folder / f"f{k}.bmp"), _frame(k, 10, 10))
    before, size = _fingerprint(folder), (folder / "f3.bmp").stat().st_size
    assert cv2.imwrite(str(folder / "f3.bmp"), _frame(99, 10, 10))
    assert (folder / "f3.bmp").stat().st_size == size
    assert _fingerprint(folder) != before


_GOOD = {
    "format": 1,
    "status": "complete",
    "source": "/data/seq",
    "source_kind": "cdnet",
    "algorithm": "fake",
    "settings": {"a": 1},
    "frames": 3,
    "first_index": 1,
    "last_index": 3,
}


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("format", 2, '"format" is 2, not 1'),  # a later version's manifest
        ("frames", -3, '"frames": -3 is not an integer >= 0'),
    ],
)
def test_manifest_of_a_later_version_or_with_negative_frames_is_refused(tmp_path, field, value, message):
    (tmp_path / MANIFEST).write_text(json.dumps(_GOOD))
    assert read_manifest(tmp_path) == _GOOD
    (tmp_path / MANIFEST).write_text(json.dumps({**_GOOD, field: value}))
    with pytest.raises(ExportError, match="not a silkvision export manifest this version can read") as e:
        read_manifest(tmp_path)
    assert message in str(e.value)


def test_a_setting_only_the_old_manifest_has_is_a_difference(tmp_path):
    """Settings keys differ across versions: a key the old export recorded and the new run lacks
    is a mismatch ("<unset>"), like a key only the new run has."""
    old = {
        **_GOOD,
        "source_frames": 3,
        "source_fingerprint": None,
        "settings": {"a": 1, "detector.silk.rho": 0.5},
    }
    new = {**old, "settings": {"a": 1}}
    with pytest.raises(ExportMismatchError, match="made with detector.silk.rho=0.5, not <unset>"):
        compare_manifests(tmp_path, old, new)
    with pytest.raises(ExportMismatchError, match="made with detector.silk.rho=<unset>, not 0.5"):
        compare_manifests(tmp_path, new, old)
    compare_manifests(tmp_path, old, dict(old))


# -- silkvision.export -----------------------------------------------------------------------------
def test_output_folder_may_not_be_the_cdnet_sequence_folder_even_with_overwrite(seq):
    # the sequence folder is the parent of the frames' input/ folder
    with pytest.raises(ExportError, match="is the source folder; choose another output folder"):
        _export(seq, seq, overwrite=True)
    assert sorted(p.name for p in seq.iterdir()) == ["input"]


def test_a_second_export_cannot_take_the_lock_of_a_running_one(tmp_path, seq):
    """The running export keeps its ``.export.lock``: a second export of the same folder started
    while the first writes its masks is refused."""
    # the clean-up of a killed run's dot files must spare the lock file
    out = tmp_path / "out"
    second = []
    det = FakeDetector()
    apply = det.apply

    def apply_and_start_another(frame, *a, **k):
        if not second:
            try:
                _export(seq, out, handle_signals=False)
                second.append("started")
            except ExportError as e:
                second.append(str(e))
        return apply(frame, *a, **k)

    det.apply = apply_and_start_another
    assert _export(seq, out, detector=det).complete
    assert second == [
        f"{out}: another silkvision export is writing to this folder; wait for it or choose another --out"
    ]


def test_overwrite_leaves_a_subfolder_named_like_a_mask_alone(tmp_path, seq):
    # only files are ours; a folder bin000099.png/ belongs to the user
    out = tmp_path / "out"
    (out / "bin000099.png").mkdir(parents=True)
    (out / "bin000099.png" / "notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="holds 'bin000099.png', which an export did not write"):
        _export(seq, out)
    res = _export(seq, out, overwrite=True)
    assert res.complete and res.frames == 6
    assert (out / "bin000099.png" / "notes.txt").read_text() == "mine"


def test_a_stray_copy_of_a_mask_does_not_hide_a_removed_mask(tmp_path, seq):
    # "bin000001 copy.png" is not a mask of the complete export
    out = tmp_path / "out"
    assert _export(seq, out).complete
    shutil.copy(out / "bin000001.png", out / "bin000001 copy.png")
    (out / "bin000002.png").unlink()
    with pytest.raises(ExportError, match="complete with 6 frames, but only 5 masks are there"):
        _export(seq, out)


class _Live(Source):
    """An endless non-seekable source of tiny frames (a camera as the export sees it)."""

    kind = "camera"

    def __init__(self):
        super().__init__("live")
        self._n = 0

    def _next(self):
        self._n += 1
        return self._n, _frame(self._n), f"frame {self._n}"


def test_a_camera_export_stopped_by_ctrl_c_is_complete(tmp_path):
    """A camera has no end: Ctrl-C is how its export ends, so it is finished (manifest "complete",
    no checkpoint), not left as an unfinished export that cannot be resumed."""
    out = tmp_path / "cam"
    res = _export(_Live(), out, detector=interrupt_after(FakeDetector(), 3))
    assert res.complete and res.frames == 3 and res.last_index == 3
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["status"] == "complete" and manifest["frames"] == 3
    assert not (out / CHECKPOINT).exists()
    assert _masks(out) == [f"bin{i:06d}.png" for i in (1, 2, 3)]


def test_a_seek_to_another_frame_with_the_same_pixels_is_caught_by_its_number(tmp_path, monkeypatch):
    """In a static scene every frame has the same pixels, so the checkpoint's frame digest matches
    whatever frame a bad container seek lands on; the frame number must be checked too, or the
    frames in between are skipped."""
    folder = tmp_path / "static"
    folder.mkdir()
    for i in range(1, 9):
        assert cv2.imwrite(str(folder / f"in{i:06d}.png"), _frame(0))
    cfg = {"export": {"checkpoint_every": 2}}
    out = tmp_path / "out"
    res = _export(folder, out, config=cfg, detector=interrupt_after(FakeDetector(), 4))
    assert res.interrupted and int(load_npz(out / CHECKPOINT)["_index"]) == 4
    seek = FolderSource.seek
    monkeypatch.setattr(
        FolderSource, "seek", lambda self, i: seek(self, i if i == self.first_index else i + 2)
    )
    notes = []
    res = export_masks(folder, out, cfg, detector=FakeDetector(), progress=False, log=notes.append)
    assert res.complete and res.resumed_from == 4 and res.processed == 4 and res.frames == 8
    assert any("seeking to frame 4 found another frame" in n for n in notes)
    assert _masks(out) == [f"bin{i:06d}.png" for i in range(1, 9)]


# -- a detector passed in ----------------------------------------------------------------------
def test_a_detector_passed_in_is_what_the_folder_records_and_a_changed_one_is_not_already_done(seq, tmp_path):
    """config.yaml and the manifest describe the detector passed in, not the configured one, so a
    second export with other parameters does not find the folder "already complete" and keep the
    first detector's masks."""
    import yaml

    import silkvision as sv

    out = tmp_path / "out"
    first = _export(seq, out, detector=sv.create_subtractor("silk", tau=0.001, warmup=0))
    assert first.complete
    assert yaml.safe_load((out / "config.yaml").read_text())["detector"]["silk"]["tau"] == 0.001
    assert json.loads((out / MANIFEST).read_text())["settings"]["detector.silk.tau"] == 0.001
    other = sv.create_subtractor("silk", tau=0.05, threshold=0.9, warmup=0)
    with pytest.raises(ExportMismatchError, match="detector.silk.tau"):
        _export(seq, out, detector=other)
    redone = _export(seq, out, detector=other, overwrite=True)
    assert redone.processed == 6 and not redone.already_complete


def test_a_detector_passed_in_starts_from_an_empty_model(seq, tmp_path):
    """A detector that has learned frames of another size (or of another clip) exports the same masks
    as a fresh one, instead of failing on the size or carrying its model over."""
    import silkvision as sv

    _export(seq, tmp_path / "fresh", detector=sv.create_subtractor("silk", warmup=0))
    # "seen": it already learned the sequence's first frame, which a fresh model finds novel
    for case, frames in (
        ("other size", [_frame(100 + k, 8, 8) for k in range(5)]),
        ("seen", [_frame(1)] * 5),
    ):
        used = sv.create_subtractor("silk", warmup=0)
        for frame in frames:
            used.apply(frame)
        _export(seq, tmp_path / case, detector=used)
        for name in _masks(tmp_path / "fresh"):
            assert (tmp_path / case / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes(), case
