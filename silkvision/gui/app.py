"""QApplication set-up and the entry point behind ``silkvision gui``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from silkvision.errors import SilkvisionError

__all__ = ["make_app", "run_gui", "main", "check_window_size"]


#: Qt platforms that need no display
_NO_DISPLAY = ("offscreen", "minimal")


def _check_packages() -> None:
    """One line naming what to install when the GUI's packages are missing (a traceback before)."""
    from silkvision.extras import require

    require("gui", "the GUI")


def _check_display(headless: bool) -> None:
    """Avoid Qt aborting the process (SIGABRT, "Reinstalling the application may fix this") when
    it cannot use the display: headless runs always go offscreen; otherwise a display that is not
    set, or that Qt cannot open (a stale DISPLAY, missing xcb libraries, a ``QT_QPA_PLATFORM``
    whose platform cannot start), is a one-line error."""
    _check_packages()
    if headless:  # --screenshot always draws offscreen, whatever the environment names
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    platform = os.environ.get("QT_QPA_PLATFORM")
    if platform:
        why = None if platform in _NO_DISPLAY else _qt_cannot_start()
        if why:
            raise SilkvisionError(
                f"cannot start Qt's platform {platform!r} (QT_QPA_PLATFORM) ({why}); "
                f"unset QT_QPA_PLATFORM or name one that works here, or use "
                f"--screenshot PNG for a headless run"
            )
        return
    if sys.platform in ("win32", "darwin"):
        return
    shown = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if not shown:
        raise SilkvisionError(
            "no display found (DISPLAY is not set); run on a desktop, or use "
            "--screenshot PNG for a headless run"
        )
    why = _qt_cannot_start()
    if why:
        raise SilkvisionError(
            f"cannot use the display {shown!r} ({why}); check DISPLAY, or use "
            f"--screenshot PNG for a headless run"
        )


def _qt_cannot_start() -> str | None:
    """Start a QApplication in a child process (Qt aborts a process whose platform plugin fails,
    which no handler can catch); None when it starts, else Qt's first line about why."""
    import subprocess

    code = "import sys; from PyQt5.QtWidgets import QApplication; QApplication(sys.argv[:1])"
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "Qt did not start within 60 s"
    if p.returncode == 0:
        return None
    lines = [ln.strip() for ln in p.stderr.splitlines() if ln.strip()]
    if lines and lines[0].startswith("Traceback"):  # a Python error: its last line says which
        return lines[-1]
    return lines[0] if lines else f"Qt exited with status {p.returncode}"


# Qt 5 cannot allocate an image of more than 2 GiB (its byte count is an int); the window's
# backing store and the --screenshot grab take 4 bytes a device pixel, and painting a window whose
# image could not be allocated crashes (SIGSEGV). ``silkvision gui --size`` allows at most 16384
# pixels a side (1 GiB at one device pixel a pixel); check_window_size also counts the device
# pixels of a high-DPI screen.
MAX_IMAGE_BYTES = 2**31 - 1

# Harmless Qt warnings that would break the one-line error promise of headless runs: the offscreen
# platform's unsupported window features, and the runtime folder that QStandardPaths replaces.
_QUIET_QT_MESSAGES = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support setParent!",
    "QStandardPaths: XDG_RUNTIME_DIR not set",
)


def _qt_message(_mode, _context, message: str) -> None:
    if not message.startswith(_QUIET_QT_MESSAGES):
        sys.stderr.write(message + "\n")


def check_window_size(size: tuple[int, int], device_pixel_ratio: float = 1.0) -> None:
    """Raise :class:`SilkvisionError` when a ``size`` window cannot be drawn: Qt cannot allocate
    the image behind it (more than 2 GiB) and would crash instead of failing."""
    w, h = size
    dw, dh = int(round(w * device_pixel_ratio)), int(round(h * device_pixel_ratio))
    if dw * dh * 4 > MAX_IMAGE_BYTES:
        raise SilkvisionError(
            f"--size {w}x{h}: too large to draw ({dw}x{dh} device pixels need "
            f"{dw * dh * 4 / 2**30:.1f} GiB; Qt allows 2 GiB); use a smaller --size"
        )


def _teardown(app, win) -> None:
    """Destroy the window now, while Python and the QApplication are whole.

    Left to the garbage collector, the window used to die at interpreter exit with Qt work still
    pending: the queued worker signals and the layout request of the ROC legend posted by its last
    relabelling. Destroying the ViewBox then resized the stale legend, whose geometryChanged slot
    (pyqtgraph's GraphicsWidgetAnchor) read the ViewBox being deleted: a RuntimeError traceback
    after the error line. So: stop the worker, deliver the pending events (the legend takes its
    final size), unhook the legend anchor, and delete the window explicitly.
    """
    from PyQt5 import sip

    if not win.shutdown():
        return  # the worker is stuck in a read: deleting its running QThread would abort
    app.processEvents()
    win.roc_plot.release()
    sip.delete(win)


def make_app():
    """The running QApplication, or a new one named silkvision."""
    from PyQt5.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "silkvision"])
        app.setApplicationName("silkvision")
        app.setOrganizationName("silkvision")
    return app


def run_gui(
    config: dict,
    source=None,
    groundtruth=None,
    start: int | None = None,
    frames: int | None = None,
    screenshot: str | os.PathLike | None = None,
    size: tuple[int, int] | None = None,
) -> int:
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
    size : (int, int), optional
        Window size (default: :data:`~silkvision.gui.main_window.DEFAULT_SIZE`, made smaller to fit
        the screen); :class:`SilkvisionError` when Qt could not draw a window that large.
    """
    _check_display(headless=screenshot is not None)
    if screenshot is not None and source is None:
        raise SilkvisionError("--screenshot needs a SOURCE to process")
    if size is not None:
        check_window_size(size)
    from PyQt5.QtCore import qInstallMessageHandler

    qInstallMessageHandler(_qt_message)
    try:
        return _run(config, source, groundtruth, start, frames, screenshot, size)
    finally:
        qInstallMessageHandler(None)


def _run(config, source, groundtruth, start, frames, screenshot, size) -> int:
    app = make_app()
    screen = app.primaryScreen()
    from silkvision.gui.main_window import DEFAULT_SIZE, MainWindow, fitting_size

    if size is None:  # the window's own default; a size asked for is the picture's size, not fitted
        size = fitting_size(DEFAULT_SIZE) if screenshot is None else DEFAULT_SIZE
    check_window_size(size, screen.devicePixelRatio() if screen is not None else 1.0)

    frames = frames if frames is not None else config["capture"]["max_frames"]
    win = MainWindow(config, max_frames=frames, interactive=screenshot is None)
    win.resize(*size)
    win.show()
    status = {"code": 0, "done": False}

    def size_note() -> None:
        got = (win.width(), win.height())
        if got != tuple(size):  # the panels, the ROC plot and the toolbar need a minimum size
            print(
                f"silkvision: note: the window needs at least {win.minimumSizeHint().width()}x"
                f"{win.minimumSizeHint().height()}; it is {got[0]}x{got[1]}, not {size[0]}x{size[1]}",
                file=sys.stderr,
            )

    if screenshot is not None:

        def finish(code: int = 0) -> None:
            if status["done"]:
                return
            status["done"] = True
            status["code"] = code
            if code == 0:
                win.draw_now()
                app.processEvents()
                size_note()  # the size the picture gets (a source's labels can widen it)
                if win.save_snapshot(screenshot):
                    print(
                        f"silkvision: screenshot of frame {win.result.index if win.result else '-'} "
                        f"written to {Path(screenshot)}"
                    )
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
            win.seek(start)  # processes frame `start`, the first of `frames`
        # with --frames 1 that frame is all: a Play queued behind it would run on past the pause
        if (screenshot is not None or frames is not None) and not (start is not None and frames == 1):
            win.play()
    code = app.exec_()
    _teardown(app, win)
    return status["code"] if screenshot is not None else int(code)


def main(argv: list[str] | None = None) -> int:
    """``python -m silkvision.gui [SOURCE]``: same as ``silkvision gui``."""
    from silkvision.cli.main import main as cli_main

    return cli_main(["gui", *(sys.argv[1:] if argv is None else argv)])
