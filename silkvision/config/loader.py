"""Load, merge, validate and write configurations.

Precedence (lowest first): built-in defaults (:mod:`silkvision.config.schema`) < ``./config.yaml``
in the working directory (if present) < ``--config FILE`` < ``--set key=value`` overrides.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

from silkvision.errors import ConfigError
from silkvision.config.schema import SCHEMA, Param

__all__ = ["defaults", "load_config", "validate", "parse_set", "dump_config", "write_config",
           "get", "DEFAULT_CONFIG_NAME", "render_commented"]

DEFAULT_CONFIG_NAME = "config.yaml"


def _defaults(node) -> dict:
    return {k: (_defaults(v) if isinstance(v, dict) else copy.deepcopy(v.default))
            for k, v in node.items()}


def defaults() -> dict:
    """Return a fresh nested dict of the built-in defaults."""
    return _defaults(SCHEMA)


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return {"float": "a number", "int": "an integer", "bool": "true or false",
            "str": "a string", "list": "a list"}.get(t.__name__, t.__name__)


def _check_value(key: str, value: Any, spec: Param, source: str) -> Any:
    where = f" in {source}" if source else ""
    if value is None:
        if spec.nullable:
            return None
        raise ConfigError(f"{key}: null{where} is not allowed; expected {spec.allowed}")
    t = spec.type
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    ok_type = isinstance(value, t) and not (t in (int, float) and isinstance(value, bool))
    if not ok_type:
        raise ConfigError(f"{key}: {value!r}{where} has the wrong type; expected {spec.allowed}")
    if spec.check is not None and not spec.check(value):
        raise ConfigError(f"{key}: {value!r}{where} is out of range; expected {spec.allowed}")
    return value


def _merge(base: dict, update: Mapping, schema: dict, prefix: str, source: str) -> None:
    if not isinstance(update, Mapping):
        raise ConfigError(f"{prefix or 'config'}: expected a mapping{' in ' + source if source else ''}, "
                          f"got {type(update).__name__}")
    for k, v in update.items():
        key = f"{prefix}.{k}" if prefix else str(k)
        if k not in schema:
            allowed = ", ".join(sorted(map(str, schema)))
            raise ConfigError(f"{key}: unknown key{' in ' + source if source else ''}; allowed: {allowed}")
        spec = schema[k]
        if isinstance(spec, dict):
            _merge(base[k], v if v is not None else {}, spec, key, source)
        else:
            base[k] = _check_value(key, v, spec, source)


def validate(config: Mapping, source: str = "") -> dict:
    """Validate a (possibly partial) nested config and return it merged over the defaults."""
    out = defaults()
    _merge(out, config, SCHEMA, "", source)
    return out


def _read_yaml(path: Path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file ({e.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        loc = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "invalid YAML"
        raise ConfigError(f"{path}: invalid YAML{loc}: {problem}") from None
    return {} if data is None else data


def _lookup_spec(dotted: str):
    node: Any = SCHEMA
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"{dotted}: unknown key in --set")
        node = node[part]
    return node


def parse_set(item: str) -> tuple[str, Any]:
    """Parse one ``key=value`` override; the value is read as YAML (``0.5``, ``true``, ``[640, 480]``)."""
    if "=" not in item:
        raise ConfigError(f"--set {item!r}: expected key=value, e.g. detector.silk.tau=0.02")
    key, raw = item.split("=", 1)
    key = key.strip()
    spec = _lookup_spec(key)
    if isinstance(spec, dict):
        raise ConfigError(f"{key}: is a section, not a key; set one of its keys, e.g. {key}.{next(iter(spec))}=...")
    try:
        value = yaml.safe_load(raw) if raw.strip() != "" else None
    except yaml.YAMLError:
        value = raw
    if spec.type is str and not isinstance(value, str) and value is not None:
        value = raw.strip()
    return key, value


def _nest(key: str, value: Any) -> dict:
    out: dict = {}
    node = out
    parts = key.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value
    return out


def load_config(path: str | os.PathLike | None = None, overrides: Iterable[str] = (),
                use_cwd: bool = True) -> dict:
    """Build the effective configuration.

    Parameters
    ----------
    path : path-like, optional
        A YAML file given with ``--config``.
    overrides : iterable of str
        ``key=value`` strings from ``--set``, applied last.
    use_cwd : bool
        Read ``./config.yaml`` (if it exists) between the defaults and ``path``.

    Returns
    -------
    dict
        The full, validated, nested configuration.

    Raises
    ------
    ConfigError
        One line naming the file, key and value, and what is allowed.
    """
    cfg = defaults()
    cwd_file = Path.cwd() / DEFAULT_CONFIG_NAME
    if use_cwd and cwd_file.is_file() and (path is None or Path(path).resolve() != cwd_file.resolve()):
        _merge(cfg, _read_yaml(cwd_file), SCHEMA, "", str(cwd_file))
    if path is not None:
        _merge(cfg, _read_yaml(Path(path)), SCHEMA, "", str(path))
    for item in overrides:
        key, value = parse_set(item)
        _merge(cfg, _nest(key, value), SCHEMA, "", "--set")
    return cfg


def get(config: Mapping, dotted: str) -> Any:
    """Return ``config['a']['b']`` for ``dotted='a.b'``."""
    node: Any = config
    for part in dotted.split("."):
        node = node[part]
    return node


def dump_config(config: Mapping) -> str:
    """YAML text of a configuration (keys in schema order)."""
    return yaml.safe_dump(dict(config), sort_keys=False, default_flow_style=False)


def write_config(config: Mapping, path: str | os.PathLike) -> Path:
    """Write the effective configuration atomically to ``path``."""
    from silkvision.io.atomic import atomic_write_text

    return atomic_write_text(Path(path), "# effective silkvision configuration\n" + dump_config(config))


def render_commented(config: Mapping | None = None) -> str:
    """YAML text of ``config`` (default: the built-in defaults) with every key's help and allowed
    values as comments; this is how the top-level ``config.yaml`` is produced."""
    config = defaults() if config is None else config
    lines = ["# silkvision configuration: every key, its default and what it may be.",
             "# Precedence: built-in defaults < ./config.yaml < --config FILE < --set key=value.", ""]

    def walk(node: Mapping, schema: Mapping, indent: int) -> None:
        pad = "  " * indent
        for k, spec in schema.items():
            if isinstance(spec, dict):
                lines.append(f"{pad}{k}:")
                walk(node[k], spec, indent + 1)
                if indent == 0:
                    lines.append("")
            else:
                value = yaml.safe_dump(node[k], default_flow_style=True).strip()
                if value.endswith("\n..."):
                    value = value[:-4].strip()
                value = value.removesuffix("...").strip()
                note = f"{spec.help}; " if spec.help else ""
                lines.append(f"{pad}{k}: {value}  # {note}{spec.allowed}")

    walk(config, SCHEMA, 0)
    return "\n".join(lines).rstrip() + "\n"
