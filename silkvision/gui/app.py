"""QApplication set-up and the entry point behind ``silkvision gui``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from silkvision.errors import SilkvisionError

__all__ = ["make_app", "run_gui", "main"]


def _check_display(headless: bool) -> None:
    """Avoid Qt aborting the process when there is no display: go offscreen for headless runs,
    otherwise say what to do."""
    if os.environ.get("QT_QPA_PLATFORM") or sys.platform in ("win32", "darwin"):
        return
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return
    if headless:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    raise SilkvisionError("no display found (DISPLAY is not set); run on a desktop, or use "
                          "--screenshot PNG for a headless run")


def make_app():
    """The running QApplication, or a new one named silkvision."""
    from PyQt5.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "silkvision"])
        app.setApplicationName("silkvision")
        app.setOrganizationName("silkvision")
    return app


def run_gui(config: dict, source=None, groundtruth=None, start: int | None = None,
            frames: int | None = None, screenshot: str | os.PathLike | None = None,
            size: tuple[int, int] = (1420, 820)) -> int:
    """Open the window (and ``source``); with ``screenshot``, run headless: process ``frames``
    frames (or the whole source), save a PNG of the window and return 0 (2 on an error).

    Parameters
    ----------
    config : dict
        Effective configuration.
    source : str, optional
        Webcam index, video file, image folder or CDnet sequence folder.
    groundtruth : path, optional
        Folder of ground-truth images paired with a video by frame number.
    start : int, optional
        First frame to process (seekable sources).
    frames : int, optional
        Pause (headless: finish) after this many frames.
    screenshot : path, optional
        Headless run writing a PNG of the window.
    """
    _check_display(headless=screenshot is not None)
    if screenshot is not None and source is None:
        raise SilkvisionError("--screenshot needs a SOURCE to process")
    app = make_app()
    from silkvision.gui.main_window import MainWindow

    frames = frames if frames is not None else config["capture"]["max_frames"]
    win = MainWindow(config, max_frames=frames, interactive=screenshot is None)
    win.resize(*size)
    win.show()
    status = {"code": 0, "done": False}

    if screenshot is not None:
        def finish(code: int = 0) -> None:
            if status["done"]:
                return
            status["done"] = True
            status["code"] = code
            if code == 0:
                win.draw_now()
                app.processEvents()
                if win.save_snapshot(screenshot):
                    print(f"silkvision: screenshot of frame {win.result.index if win.result else '-'} "
                          f"written to {Path(screenshot)}")
                else:
                    print(f"silkvision: error: {win.errors[-1]}", file=sys.stderr)
                    status["code"] = 2
            win.close()
            app.exit(status["code"])

        def fail(message: str) -> None:
            if status["done"]:
                return
            print(f"silkvision: error: {message}", file=sys.stderr)
            finish(2)

        win.worker.ended.connect(lambda _n: finish(0))
        win.worker.error.connect(fail)

    if source is not None:
        win.open_source(source, groundtruth)
        if start is not None:
            win.seek(start)
        if screenshot is not None or frames is not None:
            win.play()
    code = app.exec_()
    if win.worker_thread.isRunning():
        win.shutdown()
    return status["code"] if screenshot is not None else int(code)


def main(argv: list[str] | None = None) -> int:
    """``python -m silkvision.gui [SOURCE]``: same as ``silkvision gui``."""
    from silkvision.cli.main import main as cli_main

    return cli_main(["gui", *(sys.argv[1:] if argv is None else argv)])
