"""``silkvision`` command line: one sub-command per module in :mod:`silkvision.cli`.

Every sub-command module defines ``add_parser(subparsers)`` and ``run(args) -> int``. User errors
(:class:`silkvision.errors.SilkvisionError`) are printed as one line ``silkvision: error: ...`` with
exit status 2, never as a traceback; Ctrl-C exits with 130 after the command has saved its work.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from silkvision import __version__
from silkvision.errors import SilkvisionError

COMMANDS = ["export", "evaluate", "gui", "online_bench", "demo"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="silkvision",
        description="Background subtraction and online classification with budgeted implicit "
                    "online kernel learning (SILK).")
    parser.add_argument("--version", action="version", version=f"silkvision {__version__}")
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
    p.add_argument("--config", metavar="FILE", help="YAML configuration file (see config.yaml)")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], dest="overrides",
                   help="override one configuration key, e.g. --set detector.silk.tau=0.02 (repeatable)")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except SilkvisionError as e:
        print(f"silkvision: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("silkvision: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
