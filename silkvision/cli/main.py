"""``silkvision`` command line: one sub-command per module in :mod:`silkvision.cli`.

Every sub-command module defines ``add_parser(subparsers)`` and ``run(args) -> int``. User errors
(:class:`silkvision.errors.SilkvisionError`) are printed as one line ``silkvision: error: ...`` with
exit status 2, never as a traceback; Ctrl-C exits with 130 after the command has saved its work, and
SIGTERM the same way with 143 (except ``gui``, whose Qt event loop keeps the default SIGTERM).
OpenCV's own log lines below ERROR (e.g. ``[ WARN:0@1.048] ... PNG input buffer is incomplete``
before our one-line error about that file) are held back while a command runs, unless the user set
``OPENCV_LOG_LEVEL``; FFmpeg's are silenced by :mod:`silkvision.capture`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading

from silkvision import __version__
from silkvision.errors import SilkvisionError, Terminated, may_catch_sigterm, out_of_memory, signal_behind

COMMANDS = ["export", "batch", "evaluate", "gui", "online_bench", "demo", "config"]
#: commands that run no kernel (config) or report in their own window (gui): no compile note
_NO_COMPILE_NOTE = {"config", "gui"}
#: commands whose summary leaves the compilation out of its time and fps (cli/export.py, cli/demo.py)
_FPS_COMMANDS = {"export", "demo"}
COMPILING_NOTE = (
    "silkvision: note: compiling the kernels (first run only: later runs load them from numba's cache) ..."
)


class _VersionAction(argparse.Action):
    """``--version``: silkvision's version, then numba's threading layer and what helps on a busy
    machine with that layer (:mod:`silkvision.jit`); computed only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from silkvision.jit import busy_machine_advice, runtime_summary, threading_layer

        print(f"silkvision {__version__}\n{runtime_summary()}\n{busy_machine_advice(*threading_layer())}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="silkvision",
        description="Background subtraction and online classification with budgeted implicit "
        "online kernel learning (SILK).",
    )
    parser.add_argument(
        "--version",
        action=_VersionAction,
        help="show the version, numba's threading layer and thread count, and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"silkvision.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"silkvision.cli.{name}":
                continue  # sub-command not built yet
            raise
        p = module.add_parser(sub)
        p.set_defaults(_run=module.run)
    return parser


def add_config_arguments(p: argparse.ArgumentParser) -> None:
    """The ``--config FILE`` and ``--set key=value`` options shared by all sub-commands."""
    p.add_argument(
        "--config",
        metavar="FILE",
        action="append",
        default=None,
        help="YAML configuration file (every key: silkvision config); repeatable: the files are merged "
        "in the order given, a later file overriding the keys it sets",
    )
    p.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        dest="overrides",
        help="override one configuration key, e.g. --set detector.silk.tau=0.02 (repeatable)",
    )


def _terminate(signum, frame):
    raise Terminated()


def _opencv_log():
    """A context in which OpenCV's messages below ERROR are held back (see the module docstring);
    a no-op when the user set ``OPENCV_LOG_LEVEL``."""
    if "OPENCV_LOG_LEVEL" in os.environ:
        return contextlib.nullcontext()
    from silkvision.capture.opencv import quiet_opencv

    return quiet_opencv()


@contextlib.contextmanager
def _compile_note(command):
    """On a terminal, say when numba compiles the kernels (a cold cache: the first run after an
    install or upgrade), once, as it starts, and how long it took when the command ends. Like the
    progress bars, these notes are for someone waiting at a terminal: a pipe or a log gets none,
    so the one-line errors and stderr of scripted runs stay as they are."""
    if command in _NO_COMPILE_NOTE or not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        yield
        return
    from silkvision.jit import CompileWatch

    with CompileWatch(announce=lambda: print(COMPILING_NOTE, file=sys.stderr, flush=True)) as watch:
        yield
        if watch.compiled:  # (not after an error, whose line stays the last)
            fps = " (not counted in the time and fps above)" if command in _FPS_COMMANDS else ""
            print(
                f"silkvision: note: compiling the kernels took {watch.seconds:.1f} s{fps}",
                file=sys.stderr,
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # export installs its own SIGINT/SIGTERM handlers (finish the frame, save a checkpoint); a
    # Python handler cannot run inside Qt's event loop, so gui keeps the default SIGTERM
    old = None
    # (and in a multiprocessing child SIGTERM must stop the process: errors.may_catch_sigterm)
    if (
        getattr(args, "command", None) != "gui"
        and threading.current_thread() is threading.main_thread()
        and may_catch_sigterm()
    ):
        old = signal.signal(signal.SIGTERM, _terminate)
    try:
        with _opencv_log(), _compile_note(getattr(args, "command", None)):
            return int(args._run(args) or 0)
    except SilkvisionError as e:
        print(f"silkvision: error: {e}", file=sys.stderr)
        return e.exit_code
    except (KeyboardInterrupt, SystemError) as e:
        sig = signal_behind(e)
        if sig is None:
            raise  # a SystemError that no signal caused is a bug: keep its traceback
        term = isinstance(sig, Terminated)
        print(f"silkvision: {'terminated' if term else 'interrupted'}", file=sys.stderr)
        return 143 if term else 130
    except BrokenPipeError:
        return 0
    except MemoryError as e:  # e.g. a capture.resize whose detector state does not fit
        print(f"silkvision: error: {out_of_memory(e)}", file=sys.stderr)
        return 2
    finally:
        if old is not None:
            signal.signal(signal.SIGTERM, old)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
