"""``silkvision config``: print the configuration, every key with its help and allowed values.

Without options it prints the built-in defaults as the repository's ``config.yaml`` holds them (an
installed wheel has no source tree to read that file from); with ``--config`` / ``--set`` (and a
``./config.yaml`` in the working folder) it prints the configuration the other commands would use,
so ``silkvision config --set detector.silk.tau=0.02 > my.yaml`` starts a file of one's own.
"""

from __future__ import annotations

import argparse

from silkvision.cli.main import add_config_arguments


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "config",
        help="print the effective configuration with every key's help and allowed values",
        description="Print the configuration as YAML, every key commented with its help and its "
        "allowed values: the built-in defaults, merged with ./config.yaml, --config "
        "files and --set overrides as every command merges them (precedence: defaults "
        "< ./config.yaml < --config < --set).",
    )
    add_config_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    from silkvision.config import load_config, render_commented

    print(render_commented(load_config(args.config, args.overrides)), end="")
    return 0
