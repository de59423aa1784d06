"""SOURCE arguments expanded into jobs: folders searched, globs, @LIST, and unique output names."""

from __future__ import annotations

from pathlib import Path

import pytest

from silkvision.batch.sources import expand_sources
from silkvision.errors import ConfigError


def _touch(path: Path, data: bytes = b"x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _names(jobs) -> dict[str, str]:
    return {
        j.name: Path(j.source).relative_to(Path(j.source).anchor).as_posix().split("/", 3)[-1] for j in jobs
    }


def test_a_folder_is_searched_for_videos_image_folders_and_sequences(tmp_path):
    _touch(tmp_path / "a" / "cam1" / "0800.mp4")
    _touch(tmp_path / "a" / "cam1" / "notes.txt")  # not a video: not searched for
    _touch(tmp_path / "a" / "cam2" / "0800.MP4")
    _touch(tmp_path / "a" / "seq" / "input" / "in000001.jpg")  # a CDnet sequence: one source
    _touch(tmp_path / "a" / "seq" / "input" / "in000002.jpg")
    _touch(tmp_path / "a" / "frames" / "f1.png")  # an image folder: one source
    _touch(tmp_path / "a" / ".hidden" / "x.mp4")
    jobs = expand_sources([str(tmp_path / "a")])
    assert [(j.name, Path(j.source).relative_to(tmp_path).as_posix()) for j in jobs] == [
        ("cam1_0800", "a/cam1/0800.mp4"),
        ("cam2_0800", "a/cam2/0800.MP4"),
        ("frames", "a/frames"),
        ("seq", "a/seq"),
    ]
    assert all(j.error is None for j in jobs)


def test_names_equal_deep_down_get_enough_parents_and_same_stems_a_number(tmp_path):
    a = _touch(tmp_path / "x" / "day1" / "cam" / "v.mp4")
    b = _touch(tmp_path / "y" / "day1" / "cam" / "v.mp4")
    c = _touch(tmp_path / "x" / "day1" / "cam" / "v.avi")
    jobs = expand_sources([str(c), str(a), str(b)])
    assert [j.name for j in jobs] == ["x_day1_cam_v", "x_day1_cam_v-2", "y_day1_cam_v"]
    assert [j.name for j in expand_sources([str(c), str(a), str(b)])] == [j.name for j in jobs]


def test_globs_lists_duplicates_and_missing_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _touch(tmp_path / "v" / "b.avi")
    _touch(tmp_path / "v" / "a.avi")
    (tmp_path / "list.txt").write_text("# recordings\n\nv/a.avi\n  v/*.avi  \nmissing.mp4\n")
    jobs = expand_sources(["@list.txt", "v/a.avi", "nope/*.mp4"])
    assert [(j.source, j.name, j.error) for j in jobs] == [
        ("v/a.avi", "a", None),
        ("v/b.avi", "b", None),
        ("missing.mp4", "missing", None),  # found missing by its own task, on the cluster
        ("nope/*.mp4", "", "nope/*.mp4: no file or folder matches this pattern"),
    ]


@pytest.mark.parametrize(
    "items, message",
    [
        (["0"], "SOURCE '0': a camera index; batch exports recordings"),
        ([""], "SOURCE '': empty path"),
        (["@absent.txt"], "@absent.txt: cannot read the list absent.txt (No such file or directory)"),
        ([], "SOURCE: none given"),
    ],
)
def test_bad_sources_are_one_line_errors(tmp_path, monkeypatch, items, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as e:
        expand_sources(items)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


def test_a_file_named_like_a_camera_index_is_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _touch(tmp_path / "0")
    assert [(j.source, j.name) for j in expand_sources(["0"])] == [("./0", "0")]


def test_a_folder_without_sources_is_a_failed_job(tmp_path):
    (tmp_path / "empty").mkdir()
    (job,) = expand_sources([str(tmp_path / "empty")])
    assert job.error == f"{tmp_path / 'empty'}: holds no video file, image folder or CDnet sequence"


def test_nothing_inside_the_output_folder_is_a_source(tmp_path):
    _touch(tmp_path / "archive" / "cam1.mp4")
    _touch(tmp_path / "archive" / "masks" / "cam1" / "bin000001.png")  # an earlier run's masks
    _touch(tmp_path / "archive" / "masks" / "old.mp4")
    jobs = expand_sources(
        [str(tmp_path / "archive"), str(tmp_path / "archive" / "masks" / "old.mp4")],
        out=tmp_path / "archive" / "masks",
    )
    assert [j.name for j in jobs] == ["cam1"]
    assert [j.name for j in expand_sources([str(tmp_path / "archive")])] == [
        "archive_cam1",
        "masks_cam1",
        "old",
    ]
