"""``silkvision gui``: the headless screenshot mode and its errors (run as a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys

import cv2
import numpy as np
import pytest


def silkvision(*args, timeout=120, **extra_env):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", "silkvision.cli", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def error_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("silkvision: error:")]


@pytest.mark.slow
def test_screenshot_headless(tmp_path, sample_seq):
    out = tmp_path / "shot.png"
    p = silkvision(
        "gui",
        sample_seq,
        "--start",
        99,
        "--frames",
        6,
        "--screenshot",
        out,
        "--size",
        "1100x720",
        "--second",
        "mog2",
    )
    assert p.returncode == 0, p.stderr
    assert "frame 104" in p.stdout and "Traceback" not in p.stderr
    img = cv2.imread(str(out))
    assert img.shape == (720, 1100, 3) and img.std() > 10  # a real picture, not a blank grab
    assert "note" not in p.stderr


@pytest.mark.slow
def test_a_size_below_the_window_minimum_is_said(tmp_path, sample_seq):
    """--size 500x300 is below the window's minimum: the PNG is larger, and the run says so."""
    out = tmp_path / "small.png"
    p = silkvision("gui", sample_seq, "--frames", 2, "--screenshot", out, "--size", "500x300")
    assert p.returncode == 0, p.stderr
    h, w = cv2.imread(str(out)).shape[:2]
    assert (w, h) != (500, 300)
    assert f"silkvision: note: the window needs at least {w}x{h}; it is {w}x{h}, not 500x300" in p.stderr


@pytest.mark.slow
def test_errors_exit_2_with_one_line(tmp_path):
    p = silkvision("gui", tmp_path / "missing.mp4", "--frames", 3, "--screenshot", tmp_path / "x.png")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(error_lines(p.stderr)) == 1 and "missing.mp4" in error_lines(p.stderr)[0]
    assert not (tmp_path / "x.png").exists()
    p = silkvision("gui", "--screenshot", tmp_path / "x.png")
    assert p.returncode == 2 and "needs a SOURCE" in p.stderr
    p = silkvision("gui", tmp_path, "--screenshot", tmp_path / "x.jpg")
    assert p.returncode == 2 and ".png" in p.stderr


@pytest.mark.slow
def test_a_display_qt_cannot_use_is_one_line_not_an_abort(tmp_path, sample_seq):
    """A stale DISPLAY (no X server at :97 here) made Qt abort the process (exit 134) with its
    "Reinstalling the application may fix this" text; --screenshot does not need a display at all."""
    p = silkvision("gui", sample_seq, "--frames", 2, DISPLAY=":97")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert error_lines(p.stderr) == [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert error_lines(p.stderr)[0].startswith("silkvision: error: cannot use the display ':97' (")
    out = tmp_path / "shot.png"
    p = silkvision("gui", sample_seq, "--frames", 2, "--screenshot", out, DISPLAY=":97")
    assert p.returncode == 0, p.stderr
    assert cv2.imread(str(out)) is not None


@pytest.mark.slow
def test_a_qt_platform_that_cannot_start_is_one_line_not_an_abort(tmp_path, sample_seq):
    """QT_QPA_PLATFORM=wayland (exported by a desktop session, then used over SSH) skipped every
    check: Qt aborted the process (exit 134), --screenshot included."""
    p = silkvision("gui", sample_seq, "--frames", 2, QT_QPA_PLATFORM="wayland")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert error_lines(p.stderr) == [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert error_lines(p.stderr)[0].startswith(
        "silkvision: error: cannot start Qt's platform 'wayland' (QT_QPA_PLATFORM) ("
    )
    out = tmp_path / "shot.png"
    p = silkvision("gui", sample_seq, "--frames", 2, "--screenshot", out, QT_QPA_PLATFORM="wayland")
    assert p.returncode == 0, p.stderr
    assert cv2.imread(str(out)) is not None


@pytest.mark.parametrize("missing", [("pyqtgraph",), ("PyQt5", "pyqtgraph")])
def test_missing_gui_packages_are_named_in_one_line(monkeypatch, missing):
    """Without PyQt5 or pyqtgraph the GUI ended in a ModuleNotFoundError traceback (or blamed the
    display, quoting the probe's "Traceback" line)."""
    import importlib.util

    from silkvision.errors import SilkvisionError
    from silkvision.gui import app

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a)
    )
    with pytest.raises(
        SilkvisionError,
        match=f"^the GUI needs {' and '.join(missing)}, not installed here; "
        'install with: pip install "silkvision\\[gui\\]"$',
    ):
        app._check_display(headless=True)


def test_no_qt_import_for_help():
    code = (
        "import sys; from silkvision.cli.main import build_parser; build_parser(); "
        "assert 'PyQt5' not in sys.modules, 'Qt imported by the parser'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_size_bounds(capsys):
    """--size is bounded (a 100000x100000 window used to segfault); no Qt needed."""
    from silkvision.cli.gui import MAX_WINDOW_SIDE
    from silkvision.cli.main import build_parser
    from silkvision.errors import SilkvisionError
    from silkvision.gui.app import check_window_size

    parser = build_parser()
    assert parser.parse_args(["gui", "--size", f"{MAX_WINDOW_SIDE}x{MAX_WINDOW_SIDE}"]).size == (16384, 16384)
    assert parser.parse_args(["gui", "--size", "200x200"]).size == (200, 200)
    for bad in ("100000x100000", "16385x820", "1420x16385", "199x820", "0x0", "abc", "1x2x3"):
        with pytest.raises(SystemExit) as exc:
            parser.parse_args(["gui", "--size", bad])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and f"argument --size: {bad!r}" in err.splitlines()[-1]
    check_window_size((MAX_WINDOW_SIDE, MAX_WINDOW_SIDE))  # 1 GiB: fine
    with pytest.raises(SilkvisionError, match="too large"):
        check_window_size((MAX_WINDOW_SIDE, MAX_WINDOW_SIDE), 2.0)  # 4 GiB of device pixels


def test_size_too_large_exits_2(tmp_path):
    p = silkvision(
        "gui", tmp_path, "--size", "100000x100000", "--frames", 2, "--screenshot", tmp_path / "x.png"
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "each side from 200 to 16384" in p.stderr.splitlines()[-1]


@pytest.mark.slow
def test_error_exit_has_no_teardown_traceback(tmp_path):
    """An error ends a headless run with exactly one stderr line. A window left to be torn down at
    interpreter exit, with a stale ROC legend, can print a pyqtgraph ``RuntimeError: wrapped C/C++
    object of type ViewBox has been deleted`` traceback after it, in some runs only."""
    rng = np.random.default_rng(0)
    folder = tmp_path / "mixed"
    folder.mkdir()
    for i, (h, w) in enumerate([(120, 160)] * 3 + [(240, 320)] * 2, start=1):
        cv2.imwrite(str(folder / f"in{i:06d}.png"), rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    for _ in range(6):  # the traceback is intermittent: several runs make a miss unlikely
        p = silkvision("gui", folder, "--frames", 5, "--screenshot", tmp_path / "x.png", timeout=60)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("silkvision: error:"), p.stderr
        assert "in000004.png: frame size 320x240 differs" in lines[0]
        assert not (tmp_path / "x.png").exists()
