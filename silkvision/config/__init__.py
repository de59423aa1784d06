"""Configuration: built-in defaults, validation, and the ``config.yaml`` file format."""

from silkvision.config.loader import (
    DEFAULT_CONFIG_NAME,
    defaults,
    dump_config,
    get,
    load_config,
    parse_set,
    render_commented,
    validate,
    write_config,
)
from silkvision.config.schema import ALGORITHMS, COLOUR_SPACES, SCHEMA

__all__ = [
    "load_config",
    "defaults",
    "validate",
    "parse_set",
    "render_commented",
    "dump_config",
    "write_config",
    "get",
    "SCHEMA",
    "ALGORITHMS",
    "COLOUR_SPACES",
    "DEFAULT_CONFIG_NAME",
]
