"""Fixtures of the batch tests: short clips cut from the sample, their serial exports, and one
local Dask cluster of two worker processes shared by the tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import pytest

pytest.importorskip("distributed")

FRAMES = 30  # per clip
#: the configuration of every export here (checkpoints often, so that a kill resumes mid-clip)
CONFIG = {"export": {"checkpoint_every": 10, "scores": True}}


@pytest.fixture(scope="session")
def clips(tmp_path_factory, sample_seq) -> dict[str, Path]:
    """Four 30-frame clips of the sample: three MJPG videos and one image folder."""
    root = tmp_path_factory.mktemp("clips")
    frames = sorted((sample_seq / "input").glob("in*.jpg"))
    out = {}
    for k in range(3):
        path = root / f"clip{k}.avi"
        w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (320, 240))
        for f in frames[k * FRAMES : (k + 1) * FRAMES]:
            w.write(cv2.imread(str(f)))
        w.release()
        out[path.stem] = path
    folder = root / "folder3"
    folder.mkdir()
    for f in frames[3 * FRAMES : 4 * FRAMES]:
        shutil.copy(f, folder / f.name)
    out["folder3"] = folder
    return out


@pytest.fixture(scope="session")
def serial(tmp_path_factory, clips) -> dict[str, Path]:
    """``silkvision export`` of every clip, one after the other in this process."""
    from silkvision.export import export_masks

    root = tmp_path_factory.mktemp("serial")
    out = {}
    for name, path in clips.items():
        res = export_masks(path, root / name, config(), progress=False, log=lambda m: None)
        assert res.complete and res.frames == FRAMES
        out[name] = root / name
    return out


def config() -> dict:
    """:data:`CONFIG` with every default filled in."""
    from silkvision.config import validate

    return validate(CONFIG, "config")


@pytest.fixture(scope="session")
def cluster():
    """A local cluster of two worker processes (no dashboard), shared by the batch tests."""
    from silkvision.batch import open_cluster

    with open_cluster(workers=2, dashboard_address=None) as c:
        yield c


def files(folder: Path) -> dict[str, bytes]:
    """Every file of an output folder by name (content)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
