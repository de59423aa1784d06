"""GUI test fixtures: windows with throw-away settings (helpers live in gui_helpers.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("PyQt5")
pytest.importorskip("pytestqt")


@pytest.fixture(autouse=True)
def _own_qt_settings(tmp_path_factory, monkeypatch):
    """Qt's default settings file (recent sources...) in a throw-away folder: GUI runs in a
    subprocess used to fill the developer's own ~/.config/silkvision with pytest's paths."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


@pytest.fixture
def make_window(qtbot, tmp_path):
    """Factory of MainWindows (offscreen, non-interactive, settings in tmp_path); closed at teardown."""
    from PyQt5.QtCore import QSettings

    from silkvision.gui.main_window import MainWindow

    windows = []

    def make(config=None, max_frames=None, **kw):
        settings = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
        win = MainWindow(config, settings=settings, max_frames=max_frames, interactive=False, **kw)
        qtbot.addWidget(win)
        windows.append(win)
        return win

    yield make
    for win in windows:
        assert win.shutdown(10), "worker thread did not stop"
