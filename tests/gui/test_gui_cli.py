"""``silkvision gui``: the headless screenshot mode and its errors (run as a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys

import cv2


def silkvision(*args, timeout=120):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    return subprocess.run([sys.executable, "-m", "silkvision.cli", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=timeout)


def error_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("silkvision: error:")]


def test_screenshot_headless(tmp_path, sample_seq):
    out = tmp_path / "shot.png"
    p = silkvision("gui", sample_seq, "--start", 99, "--frames", 6, "--screenshot", out,
                   "--size", "1100x720", "--second", "mog2")
    assert p.returncode == 0, p.stderr
    assert "frame 104" in p.stdout and "Traceback" not in p.stderr
    img = cv2.imread(str(out))
    assert img.shape == (720, 1100, 3) and img.std() > 10  # a real picture, not a blank grab


def test_errors_exit_2_with_one_line(tmp_path):
    p = silkvision("gui", tmp_path / "missing.mp4", "--frames", 3, "--screenshot", tmp_path / "x.png")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert len(error_lines(p.stderr)) == 1 and "missing.mp4" in error_lines(p.stderr)[0]
    assert not (tmp_path / "x.png").exists()
    p = silkvision("gui", "--screenshot", tmp_path / "x.png")
    assert p.returncode == 2 and "needs a SOURCE" in p.stderr
    p = silkvision("gui", tmp_path, "--screenshot", tmp_path / "x.jpg")
    assert p.returncode == 2 and ".png" in p.stderr


def test_no_qt_import_for_help():
    code = ("import sys; from silkvision.cli.main import build_parser; build_parser(); "
            "assert 'PyQt5' not in sys.modules, 'Qt imported by the parser'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
