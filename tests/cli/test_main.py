import subprocess
import sys

import pytest

import silkvision as sv
from silkvision.cli.main import main
from silkvision.errors import ConfigError


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
    assert "usage:" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["silkvision", "silkvision.cli"])
@pytest.mark.slow
def test_version_runs_as_a_module(module):
    out = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.splitlines()[0] == f"silkvision {sv.__version__}"


def test_error_path_prints_one_line(monkeypatch, capsys):
    import argparse

    def fake_parser():
        p = argparse.ArgumentParser(prog="silkvision")
        p.set_defaults(_run=lambda a: (_ for _ in ()).throw(ConfigError("x.y: 3 is out of range")))
        return p

    monkeypatch.setattr("silkvision.cli.main.build_parser", fake_parser)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err == "silkvision: error: x.y: 3 is out of range\n"


def _raises(exc_factory):
    import argparse

    def fake_parser():
        p = argparse.ArgumentParser(prog="silkvision")
        p.set_defaults(_run=lambda a: (_ for _ in ()).throw(exc_factory()), command="export")
        return p

    return fake_parser


def _numba_style(inner):
    """What a numba-compiled call raises when a signal handler's exception interrupts it."""
    try:
        raise inner
    except BaseException:
        try:
            raise SystemError("CPUDispatcher(<function f>) returned a result with an exception set")
        except SystemError as e:
            return e


@pytest.mark.parametrize(
    "make, code, word",
    [
        (lambda: KeyboardInterrupt(), 130, "interrupted"),
        (lambda: _numba_style(KeyboardInterrupt()), 130, "interrupted"),
        (lambda: __import__("silkvision.cli.main", fromlist=["Terminated"]).Terminated(), 143, "terminated"),
        (
            lambda: _numba_style(__import__("silkvision.cli.main", fromlist=["Terminated"]).Terminated()),
            143,
            "terminated",
        ),
    ],
)
def test_ctrl_c_and_sigterm_are_one_line_even_from_numba(monkeypatch, capsys, make, code, word):
    monkeypatch.setattr("silkvision.cli.main.build_parser", _raises(make))
    assert main([]) == code
    assert capsys.readouterr().err == f"silkvision: {word}\n"


def test_out_of_memory_is_one_line(monkeypatch, capsys):
    """numpy's MemoryError for a detector state that does not fit (capture.resize 8000x8000)."""
    monkeypatch.setattr(
        "silkvision.cli.main.build_parser",
        _raises(lambda: MemoryError("Unable to allocate 4.77 GiB for an array with shape (8000, 20, 8000)")),
    )
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "silkvision: error: out of memory (Unable to allocate 4.77 GiB"
    )
    assert "capture.resize" in err


def test_a_systemerror_no_signal_caused_keeps_its_traceback(monkeypatch):
    monkeypatch.setattr("silkvision.cli.main.build_parser", _raises(lambda: SystemError("a real bug")))
    with pytest.raises(SystemError, match="a real bug"):
        main([])


def test_sigterm_handler_is_installed_and_restored(monkeypatch):
    import signal

    seen = []
    monkeypatch.setattr(
        "silkvision.cli.main.build_parser",
        _raises(lambda: seen.append(signal.getsignal(signal.SIGTERM)) or KeyboardInterrupt()),
    )
    before = signal.getsignal(signal.SIGTERM)
    main([])
    from silkvision.cli.main import _terminate

    assert seen == [_terminate] and signal.getsignal(signal.SIGTERM) is before


def test_sample_clip_is_shipped_in_cdnet_layout(sample_seq):
    assert len(list((sample_seq / "input").glob("in*.jpg"))) == 400
    assert len(list((sample_seq / "groundtruth").glob("gt*.png"))) == 400
    assert (sample_seq / "temporalROI.txt").read_text().split() == ["100", "400"]
    assert (sample_seq / "ROI.bmp").is_file()


def _records(seen, value=0):
    import argparse

    def fake_parser():
        p = argparse.ArgumentParser(prog="silkvision")
        p.set_defaults(_run=lambda a: seen.append(__import__("cv2").utils.logging.getLogLevel()) or value)
        return p

    return fake_parser


def test_opencv_warnings_are_held_back_while_a_command_runs(monkeypatch):
    import cv2

    log = cv2.utils.logging
    seen = []
    monkeypatch.setattr("silkvision.cli.main.build_parser", _records(seen))
    monkeypatch.delenv("OPENCV_LOG_LEVEL", raising=False)
    before = log.getLogLevel()
    try:
        log.setLogLevel(log.LOG_LEVEL_WARNING)
        assert main([]) == 0
        assert seen == [log.LOG_LEVEL_ERROR] and log.getLogLevel() == log.LOG_LEVEL_WARNING
        # a level the user chose with OPENCV_LOG_LEVEL is left alone
        monkeypatch.setenv("OPENCV_LOG_LEVEL", "INFO")
        log.setLogLevel(log.LOG_LEVEL_INFO)
        assert main([]) == 0
        assert seen[-1] == log.LOG_LEVEL_INFO
    finally:
        log.setLogLevel(before)


def test_config_may_be_given_several_times_and_is_kept_in_order():
    from silkvision.cli.main import build_parser

    args = build_parser().parse_args(["evaluate", "seq", "--config", "a.yaml", "--config", "b.yaml"])
    assert args.config == ["a.yaml", "b.yaml"]
    assert build_parser().parse_args(["evaluate", "seq"]).config is None


def test_every_command_that_runs_algorithms_takes_a_for_short():
    """-a worked for export and demo only; evaluate and online-bench answered with the top-level
    usage ("unrecognized arguments: -a")."""
    from silkvision.cli.main import build_parser

    parser = build_parser()
    for argv, dest, value in (
        (["export", "v.mp4", "--out", "o", "-a", "mog2"], "algorithm", "mog2"),
        (["demo", "-a", "silk,mog2"], "algorithms", "silk,mog2"),
        (["evaluate", "seq", "-a", "silk,knn"], "algorithms", "silk,knn"),
        (["online-bench", "--dataset", "f.libsvm", "-a", "pa1"], "algorithms", "pa1"),
    ):
        assert getattr(parser.parse_args(argv), dest) == value, argv
