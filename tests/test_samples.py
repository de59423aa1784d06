"""The shipped sample clips: found in a source tree and after a wheel install, and packaged whole."""

import re
import sys
from pathlib import Path

import pytest

import silkvision as sv
import silkvision.samples as samples
from silkvision.errors import SourceError

ROOT = Path(__file__).resolve().parents[1]


# name: (frames, width x height, evaluated range, ground-truth labels in the evaluated range)
CLIPS = {
    "highway": (400, (320, 240), (100, 400), {0, 50, 85, 170, 255}),
    "office": (400, (360, 240), (80, 400), {0, 85, 170, 255}),
    "pets2001_illumination": (201, (320, 240), (57, 201), {0, 255}),
}


def test_highway_is_a_cdnet_folder():
    p = sv.samples.highway()
    assert len(list((p / "input").glob("in*.jpg"))) == 400
    assert len(list((p / "groundtruth").glob("gt*.png"))) == 400
    assert (p / "temporalROI.txt").read_text().split() == ["100", "400"]


def test_the_clips_are_three_kinds_of_scene_with_a_loader_each():
    assert sv.samples.CLIPS == tuple(CLIPS) == tuple(sv.samples.SCENES)
    for name in CLIPS:
        assert getattr(sv.samples, name)() == sv.samples.clip(name) == ROOT / "samples" / name


@pytest.mark.parametrize("name", list(CLIPS))
def test_each_clip_is_a_small_cdnet_folder_with_ground_truth(name):
    """Contiguous inputs and ground truth of one size, a temporalROI inside the clip, warm-up frames
    labelled 85 (not evaluated), every evaluated frame labelled, and a few MB in all."""
    import cv2
    import numpy as np

    n, (w, h), (first, last), labels = CLIPS[name]
    p = sv.samples.clip(name)
    inputs = sorted((p / "input").glob("in*.jpg"))
    gts = sorted((p / "groundtruth").glob("gt*.png"))
    assert [q.name for q in inputs] == [f"in{i:06d}.jpg" for i in range(1, n + 1)]
    assert [q.name for q in gts] == [f"gt{i:06d}.png" for i in range(1, n + 1)]
    assert (p / "temporalROI.txt").read_text().split() == [str(first), str(last)]
    for q in (inputs[0], inputs[-1]):
        assert cv2.imread(str(q)).shape == (h, w, 3)
    seen = set()
    for i, q in enumerate(gts, start=1):
        gt = cv2.imread(str(q), cv2.IMREAD_GRAYSCALE)
        assert gt.shape == (h, w) and gt.dtype == np.uint8, q
        if i < first:
            assert (gt == 85).all(), f"{q}: a warm-up frame must be all 85"
        else:
            seen |= set(np.unique(gt).tolist())
    assert seen <= labels and 255 in seen
    assert sum(q.stat().st_size for q in p.rglob("*") if q.is_file()) < 6.5 * 2**20


def test_an_unknown_clip_is_one_clear_error():
    with pytest.raises(
        SourceError,
        match="^sample 'lobby' is unknown; expected one of highway, office, pets2001_illumination$",
    ):
        sv.samples.clip("lobby")


def _fake_share(tmp_path: Path) -> Path:
    share = tmp_path / "share" / "silkvision" / "samples"
    (share / "highway" / "input").mkdir(parents=True)
    return share


def test_wheel_location_used_without_a_source_tree(tmp_path, monkeypatch):
    share = _fake_share(tmp_path)
    monkeypatch.setattr(samples, "_SOURCE_SAMPLES", tmp_path / "no-source-tree")
    monkeypatch.setattr(samples.sysconfig, "get_path", lambda name, *a, **k: str(tmp_path))
    assert samples.samples_dir() == share
    assert samples.highway() == share / "highway"


def test_source_tree_wins_over_installed_copy(tmp_path, monkeypatch):
    _fake_share(tmp_path)
    monkeypatch.setattr(samples.sysconfig, "get_path", lambda name, *a, **k: str(tmp_path))
    assert samples.samples_dir() == ROOT / "samples"


def test_missing_everywhere_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(samples, "_SOURCE_SAMPLES", tmp_path / "a")
    monkeypatch.setattr(samples.sysconfig, "get_path", lambda name, *a, **k: str(tmp_path / "b"))
    monkeypatch.setattr(samples.sys, "prefix", str(tmp_path / "c"))
    monkeypatch.setattr(samples.site, "USER_BASE", str(tmp_path / "d"))
    with pytest.raises(SourceError, match="sample clip not found") as e:
        samples.samples_dir()
    assert "\n" not in str(e.value) and str(tmp_path / "a") in str(e.value)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is Python >= 3.11")
def test_wheel_data_files_cover_every_sample_file():
    """Every file under samples/ is named by a [tool.setuptools.data-files] glob, at the same
    relative place under share/silkvision/samples, so a wheel carries the whole clip."""
    import tomllib

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    data_files = dict(cfg["tool"]["setuptools"]["data-files"])
    assert data_files.pop("share/silkvision") == ["config.yaml"]  # the reference configuration
    packaged = set()
    for dest, globs in data_files.items():
        assert dest.startswith("share/silkvision/samples"), dest
        for g in globs:
            hits = list(ROOT.glob(g))
            assert hits, f"data-files glob {g!r} matches nothing"
            for h in hits:
                rel_dir = h.parent.relative_to(ROOT / "samples").as_posix()
                assert dest == "share/silkvision/samples" + ("" if rel_dir == "." else "/" + rel_dir), (
                    g,
                    dest,
                )
                packaged.add(h.relative_to(ROOT).as_posix())
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "samples").rglob("*") if p.is_file()}
    assert shipped == packaged


def test_a_missing_samples_path_names_where_the_shipped_sample_is(tmp_path, monkeypatch):
    """The README's examples say samples/highway, which exists only in a checkout: from an installed
    wheel the error gave no hint that the clip is under <prefix>/share/silkvision/samples."""
    from silkvision.capture import open_source
    from silkvision.errors import SourceError
    from silkvision.samples import highway

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError, match=f"the shipped sample highway is {re.escape(str(highway()))}\\)$"):
        open_source("samples/highway")
    with pytest.raises(SourceError, match="camera index$"):
        open_source("elsewhere/highway")
