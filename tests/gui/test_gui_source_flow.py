"""What the window says and does around the source: another source opened while recording, frames
that cannot be read, ground truth of the wrong size, the end of the source, capture settings
loaded from a file, and the ROC legend's names."""

from __future__ import annotations

import pytest

from .gui_helpers import write_frames, write_video


def opened(qtbot, win, spec, groundtruth=None):
    with qtbot.waitSignal(win.worker.opened, timeout=10_000):
        win.open_source(spec, groundtruth)


def shown(qtbot, win, index):
    """Wait until frame ``index`` is drawn."""
    qtbot.waitUntil(lambda: win.result is not None and win.result.index == index, timeout=10_000)


def status(win) -> str:
    return win.statusBar().currentMessage()


def legend(win) -> list[str]:
    return [win.roc_plot.legend.getLabel(c).text for c in win.roc_plot.curves.values()]


# -- another source stops the recording ---------------------------------------------------------------
def test_opening_another_source_stops_the_recording(qtbot, make_window, tmp_path):
    first = write_frames(tmp_path / "a", 4, seed=1)
    second = write_frames(tmp_path / "b", 4, seed=2)
    win = make_window()
    opened(qtbot, win, first)
    win.start_recording(tmp_path / "rec")
    for i in (1, 2, 3):
        win.step()
        shown(qtbot, win, i)
    rec = tmp_path / "rec"
    written = {p: p.stat().st_mtime_ns for p in rec.rglob("*.png")}
    opened(qtbot, win, second)
    qtbot.waitUntil(lambda: "recording stopped" in status(win), timeout=5000)
    assert f"6 masks in {tmp_path / 'rec'}" in status(win) and "opened b" in status(win)
    assert win.recording is None and not win.record_action.isChecked() and win.pipeline.recorder is None
    for i in (1, 2, 3):
        win.step()
        shown(qtbot, win, i)
    # the first source's masks are kept: none rewritten, none added
    assert {p: p.stat().st_mtime_ns for p in rec.rglob("*.png")} == written


# -- a seek to a frame that cannot be read -----------------------------------------------------------
def test_a_seek_to_an_unreadable_frame_clears_the_views_and_says_what_to_do(qtbot, make_window, tmp_path):
    video = write_video(tmp_path / "cut.avi", 60, keep=1 / 3)  # reports 60 frames, about 10 readable
    win = make_window()
    opened(qtbot, win, video)
    for i in (1, 2, 3):
        win.step()
        shown(qtbot, win, i)
    win.frame_slider.setValue(45)  # a click on the slider's groove seeks
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert "could not decode frame 45" in win.errors[0]
    assert "seek before frame 45 or press Restart" in win.errors[0]
    # no mask, score map or ROC of the discarded detectors; the slider is back on the frame shown
    assert all(win.views[k].array is None for k in ("silk", "second", "scores"))
    assert win.frame_slider.value() == 3 and win.frame_label.text() == "frame 3 / 60"
    # Play and Step say why nothing happens
    win.play()
    qtbot.waitUntil(lambda: len(win.errors) == 2, timeout=5000)
    assert win.errors[1].startswith("cannot go on: ") and "seek before frame 45" in win.errors[1]
    assert not win.playing
    win.step()
    qtbot.waitUntil(lambda: len(win.errors) == 3, timeout=5000)
    win.restart()
    shown(qtbot, win, 1)


def test_the_hint_after_seeks_in_a_truncated_video_names_its_first_bad_frame(tmp_path):
    """After a seek past the damage the hint named the frame just sought ("seek before frame 50",
    then 48, ...), so the user had to walk down one frame at a time."""
    from silkvision.errors import SourceError
    from silkvision.gui.pipeline import Pipeline

    video = write_video(tmp_path / "cut.avi", 60, keep=1 / 3)
    pipe = Pipeline({}, second="mog2")
    pipe.open(video)
    bad = None
    while bad is None:
        try:
            pipe.step()
        except SourceError:
            bad = pipe._next_index
    for target in (bad + 10, bad + 3):
        pipe.seek(target)
        with pytest.raises(SourceError, match=f"seek before frame {bad} or press Restart"):
            pipe.step()


# -- a corrupt image in a folder ---------------------------------------------------------------------
def test_a_corrupt_image_says_to_seek_past_it(qtbot, make_window, tmp_path):
    folder = write_frames(tmp_path / "seq", 8)
    (folder / "in000005.png").write_bytes(b"not an image at all")
    win = make_window()
    opened(qtbot, win, folder)
    win.seek(4)
    shown(qtbot, win, 4)
    win.step()
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert "in000005.png: cannot decode" in win.errors[0]
    assert win.errors[0].endswith("seek past this frame to go on, or press Restart")
    win.seek(6)
    shown(qtbot, win, 6)


# -- ground truth of the wrong size ------------------------------------------------------------------
def test_ground_truth_of_the_wrong_size_is_refused_when_the_source_opens(qtbot, make_window, tmp_path):
    video = write_video(tmp_path / "clip.avi", 6)
    small = write_frames(tmp_path / "gt_small", 6, size=(16, 12), pattern="gt{:06d}.png")
    right = write_frames(tmp_path / "gt", 6, pattern="gt{:06d}.png")
    win = make_window()
    win.open_source(video, small)
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=5000)
    assert "gt000001.png: ground truth is 16x12 but the frames are 32x24" in win.errors[0]
    assert win.info is None and win.pipeline.src is None  # nothing was opened, no frame used up
    opened(qtbot, win, video, right)
    assert win.info.has_groundtruth and "with ground truth" in status(win)


# -- the end of the source ---------------------------------------------------------------------------
def test_the_end_of_the_source_is_said_and_play_starts_again(qtbot, make_window, tmp_path):
    folder = write_frames(tmp_path / "short", 4)
    win = make_window()
    opened(qtbot, win, folder)
    with qtbot.waitSignal(win.worker.ended, timeout=10_000):
        win.play()
    qtbot.waitUntil(lambda: status(win).startswith("end of short"), timeout=5000)
    assert status(win) == (
        "end of short after frame 4 (4 frames processed); Play starts again from the first frame"
    )
    drawn = win.drawn
    with qtbot.waitSignal(win.worker.ended, timeout=10_000):
        win.play()
    qtbot.waitUntil(lambda: not win.playing, timeout=5000)
    win.draw_now()
    assert win.drawn > drawn and win.result.index == 4 and win.pipeline.processed == 4
    assert win.errors == []


# -- capture settings loaded from a file -------------------------------------------------------------
def test_loaded_capture_settings_say_when_they_apply(qtbot, make_window, tmp_path):
    folder = write_frames(tmp_path / "seq", 8)
    path = tmp_path / "capture.yaml"
    path.write_text("capture:\n  resize: [16, 12]\n  max_frames: 2\n")
    win = make_window()
    opened(qtbot, win, folder)
    assert win.load_params(path)
    qtbot.waitUntil(lambda: "parameters loaded from" in status(win), timeout=5000)
    assert "capture.resize applies to the next source opened" in status(win)
    assert "playing pauses after 2 frames (capture.max_frames)" in status(win)
    with qtbot.waitSignal(win.worker.ended, timeout=10_000):
        win.play()
    qtbot.waitUntil(lambda: not win.playing, timeout=5000)
    assert win.pipeline.processed == 2 and win.result.frame.shape == (24, 32, 3)
    assert status(win).startswith("paused after 2 frames")
    opened(qtbot, win, folder)
    win.step()
    shown(qtbot, win, 1)
    assert win.result.frame.shape == (12, 16, 3)


# -- the ROC legend ----------------------------------------------------------------------------------
def test_the_roc_legend_names_the_algorithms_and_says_when_there_is_no_ground_truth(
    qtbot, make_window, tmp_path, sample_seq
):
    win = make_window()
    assert legend(win) == ["SILK", "NORMA"]
    opened(qtbot, win, write_frames(tmp_path / "seq", 3))
    assert legend(win) == ["SILK<br>(no ground truth)", "NORMA<br>(no ground truth)"]
    assert "no ground truth" in win.roc_plot.getPlotItem().titleLabel.text
    win.step()
    shown(qtbot, win, 1)
    assert legend(win) == ["SILK<br>(no ground truth)", "NORMA<br>(no ground truth)"]
    with qtbot.waitSignal(win.worker.restarted, timeout=5000):  # the legend is redrawn on restarted,
        win.second_combo.setCurrentText("mog2")  # sent after detectors_changed
    assert legend(win) == ["SILK<br>(no ground truth)", "MOG2<br>(no ground truth)"]
    opened(qtbot, win, sample_seq)
    assert legend(win) == ["SILK", "MOG2"]


@pytest.mark.parametrize("frames, index, plays", [(1, 99, 0), (3, 101, 1)])
def test_start_and_frames_process_exactly_those_frames(
    qtbot, tmp_path, monkeypatch, capsys, sample_seq, frames, index, plays
):
    """``gui SRC --start S --frames N --screenshot``: the seek processes frame S, the first of the N.
    With N = 1 a Play queued behind the seek used to run on past the pause, so the screenshot showed
    S, S+1 or a later frame, whichever the worker had reached."""
    from PyQt5.QtCore import QSettings

    import silkvision.gui.main_window as mw
    from silkvision.config import load_config
    from silkvision.gui.app import _run

    played = []

    class Window(mw.MainWindow):
        def __init__(self, config, **kw):
            super().__init__(config, settings=QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat), **kw)

        def play(self):
            played.append(True)
            super().play()

    monkeypatch.setattr(mw, "MainWindow", Window)
    shot = tmp_path / "shot.png"
    assert _run(load_config(), str(sample_seq), None, 99, frames, shot, (640, 480)) == 0
    assert f"screenshot of frame {index} " in capsys.readouterr().out
    assert len(played) == plays and shot.is_file()


# -- high resolution: frames whose detector state does not fit -----------------------------------------
def test_a_state_that_does_not_fit_is_a_message_not_a_traceback(
    qtbot, make_window, tmp_path, monkeypatch, capsys
):
    from silkvision.detector import memory

    frames = write_frames(tmp_path / "a", 3, seed=1)
    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    win = make_window()
    win.open_source(frames)
    win.step()
    qtbot.waitUntil(lambda: len(win.errors) >= 1, timeout=10_000)
    assert win.errors[0].startswith("out of memory (the silk state of a ")
    assert "use smaller frames (capture.resize)" in win.errors[0]
    assert "Traceback" not in capsys.readouterr().err
