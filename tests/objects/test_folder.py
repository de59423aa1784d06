"""Object and event files of a folder of masks."""

from __future__ import annotations

import csv
import json

import cv2
import numpy as np
import pytest

from silkvision.errors import DataError
from silkvision.objects import find_regions, write_object_files


def _masks(folder, boxes):
    """bin%06d.png masks of 40x30 with one filled box (x, y, w, h) or none per frame."""
    folder.mkdir(exist_ok=True)
    for index, box in boxes.items():
        m = np.zeros((30, 40), np.uint8)
        if box is not None:
            x, y, w, h = box
            m[y : y + h, x : x + w] = 255
        assert cv2.imwrite(str(folder / f"bin{index:06d}.png"), m)
    return folder


def test_objects_and_events_from_a_folder(tmp_path):
    boxes = {
        1: None,
        2: (1, 1, 4, 4),
        3: (2, 1, 6, 5),
        4: (3, 1, 4, 4),
        5: None,
        6: (0, 0, 2, 2),
        7: None,
        8: (10, 10, 3, 3),
        9: (10, 10, 3, 3),
        10: (11, 10, 3, 3),
    }
    out = _masks(tmp_path / "m", boxes)
    paths = write_object_files(out, objects="csv", events="csv", min_area=5, event_min_frames=2, fps=5.0)
    assert paths == {"objects": out / "objects.csv", "events": out / "events.csv"}
    rows = list(csv.DictReader(paths["objects"].open()))
    # the 2x2 box of frame 6 is below min_area
    assert [int(r["frame"]) for r in rows] == [2, 3, 4, 8, 9, 10]
    r3 = rows[1]
    assert (r3["area"], r3["x"], r3["y"], r3["width"], r3["height"]) == ("30", "2", "1", "6", "5")
    assert (float(r3["cx"]), float(r3["cy"]), float(r3["time"])) == (4.5, 3.0, 0.4)
    events = list(csv.DictReader(paths["events"].open()))
    assert [
        (e["start_frame"], e["end_frame"], e["frames"], e["largest_frame"], e["largest_area"]) for e in events
    ] == [("2", "4", "3", "3", "30"), ("8", "10", "3", "8", "9")]
    assert (float(events[1]["start_time"]), float(events[1]["end_time"])) == (1.4, 1.8)
    # JSON lines: one line per frame with a mask, also without regions
    paths = write_object_files(out, objects="jsonl", events="jsonl", min_area=5, event_min_frames=2)
    lines = [json.loads(ln) for ln in paths["objects"].read_text().splitlines()]
    assert [ln["frame"] for ln in lines] == list(range(1, 11)) and lines[0]["regions"] == []
    assert lines[2]["time"] is None and lines[2]["regions"][0]["area"] == 30
    assert [json.loads(ln)["end_frame"] for ln in paths["events"].read_text().splitlines()] == [4, 10]


def test_frames_without_a_mask_are_skipped(tmp_path):
    out = _masks(tmp_path / "m", {1: (0, 0, 3, 3), 2: (0, 0, 3, 3), 4: (0, 0, 3, 3)})
    paths = write_object_files(out, objects="csv", events="csv", event_min_frames=3)
    assert [r["frame"] for r in csv.DictReader(paths["objects"].open())] == ["1", "2", "4"]
    assert [
        (e["start_frame"], e["end_frame"], e["frames"]) for e in csv.DictReader(paths["events"].open())
    ] == [("1", "4", "3")]


def test_a_bad_mask_is_a_one_line_error_and_nothing_is_written(tmp_path):
    out = _masks(tmp_path / "m", {1: (0, 0, 3, 3)})
    (out / "bin000002.png").write_bytes(b"not a png")
    with pytest.raises(DataError, match=r"bin000002\.png: .*expected a mask PNG") as e:
        write_object_files(out, objects="csv", events="csv")
    assert "\n" not in str(e.value)
    assert not (out / "objects.csv").exists() and not (out / "events.csv").exists()
    with pytest.raises(DataError, match=r"objects format 'xml': expected one of csv, jsonl"):
        write_object_files(out, objects="xml")


def test_sample_objects_are_the_regions_of_its_masks(tmp_path, sample_seq, monkeypatch, capsys):
    """``export --objects --events`` on the shipped sample: each row is a region of its mask, and a
    second run on the complete export writes the same files."""
    from silkvision.cli.main import main

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    args = [
        "export",
        str(sample_seq),
        "--out",
        str(out),
        "--set",
        "capture.max_frames=30",
        "--objects",
        "--events",
        "--min-area",
        "15",
        "--event-min-frames",
        "3",
    ]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == f"wrote {out / 'objects.csv'}, {out / 'events.csv'}"
    rows = list(csv.DictReader((out / "objects.csv").open()))
    assert len({r["frame"] for r in rows}) > 10
    for index in (5, 30):
        mask = cv2.imread(str(out / f"bin{index:06d}.png"), cv2.IMREAD_GRAYSCALE)
        want = [(r.area, r.x, r.y) for r in find_regions(mask, 15)]
        assert (
            want
            and [(int(r["area"]), int(r["x"]), int(r["y"])) for r in rows if r["frame"] == str(index)] == want
        )
    events = list(csv.DictReader((out / "events.csv").open()))
    assert events and all(int(e["frames"]) >= 3 for e in events)
    before = {n: (out / n).read_bytes() for n in ("objects.csv", "events.csv")}
    (out / "objects.csv").unlink()
    assert main(args) == 0
    assert {n: (out / n).read_bytes() for n in before} == before


@pytest.mark.parametrize(
    "bad, message",
    [
        (["--min-area", "0"], "argument --min-area: '0': expected an integer >= 1"),
        (["--objects", "xml"], "argument --objects: invalid choice: 'xml'"),
        (["--set", "export.events=xml"], "export.events"),
    ],
)
def test_bad_object_options_are_one_line_errors(tmp_path, sample_seq, capsys, bad, message):
    from silkvision.cli.main import main

    with pytest.raises(SystemExit) as e:
        rc = main(["export", str(sample_seq), "--out", str(tmp_path / "o"), *bad])
        raise SystemExit(rc)
    assert e.value.code not in (0, None)
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]
    assert not (tmp_path / "o").exists()


def test_an_unfinished_export_gets_no_object_files(tmp_path):
    """An interrupted export writes no object or event file: its resume writes them from all masks."""
    import argparse
    from types import SimpleNamespace

    import silkvision as sv
    from silkvision.cli.export import write_objects_after

    out = _masks(tmp_path / "m", {1: (0, 0, 3, 3)})
    args = argparse.Namespace(objects="csv", events="csv", min_area=None, event_min_frames=None)
    cfg = sv.load_config(use_cwd=False)
    assert write_objects_after(str(out), SimpleNamespace(out_dir=out, complete=False), cfg, args) is None
    assert sorted(p.name for p in out.iterdir()) == ["bin000001.png"]
    line = write_objects_after(str(out), SimpleNamespace(out_dir=out, complete=True), cfg, args)
    assert line == f"wrote {out / 'objects.csv'}, {out / 'events.csv'}"


def test_event_times_come_from_the_video_frame_rate(tmp_path, monkeypatch, capsys):
    """A square moves across frames 21-30 of a 10 fps video: one event, from 2.0 s."""
    from silkvision.cli.main import main

    monkeypatch.chdir(tmp_path)
    video = tmp_path / "square.avi"
    vw = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert vw.isOpened()
    for i in range(1, 41):
        frame = np.full((48, 64, 3), 40, np.uint8)
        if 21 <= i <= 30:
            x = 4 * (i - 21)
            frame[10:30, x : x + 20] = 255
        vw.write(frame)
    vw.release()
    out = tmp_path / "out"
    assert (
        main(
            [
                "export",
                str(video),
                "--out",
                str(out),
                "-a",
                "mog2",
                "--events",
                "--objects",
                "jsonl",
                "--event-min-frames",
                "3",
                "--set",
                "detector.median=0",
            ]
        )
        == 0
    )
    events = list(csv.DictReader((out / "events.csv").open()))
    assert len(events) == 1, events
    e = events[0]
    assert int(e["start_frame"]) == 21 and int(e["end_frame"]) >= 29
    assert float(e["start_time"]) == pytest.approx(2.0)
    assert float(e["end_time"]) == pytest.approx((int(e["end_frame"]) - 1) / 10)
    lines = [json.loads(ln) for ln in (out / "objects.jsonl").read_text().splitlines()]
    assert len(lines) == 40 and lines[20]["time"] == pytest.approx(2.0)
    assert lines[20]["regions"][0]["width"] >= 15
