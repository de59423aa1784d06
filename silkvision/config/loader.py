"""Load, merge, validate and write configurations.

Precedence (lowest first): built-in defaults (:mod:`silkvision.config.schema`) < ``./config.yaml``
in the working directory (if present) < ``--config FILE`` (when given several times, each file in
the order given, a later one overriding an earlier one) < ``--set key=value`` overrides.
"""

from __future__ import annotations

import copy
import math
import os
import re
import reprlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from silkvision.config.schema import SCHEMA, Param
from silkvision.errors import ConfigError

__all__ = [
    "defaults",
    "load_config",
    "validate",
    "parse_set",
    "dump_config",
    "write_config",
    "get",
    "DEFAULT_CONFIG_NAME",
    "render_commented",
    "key_source",
    "MAX_EXPANDED_VALUES",
    "parse_value",
]

DEFAULT_CONFIG_NAME = "config.yaml"


class ConfigLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` for configuration text (files and ``--set`` values).

    Two differences from the plain YAML 1.1 loader:

    * numbers in scientific notation without a decimal point or without an exponent sign
      (``5e-4``, ``1E3``, ``1.5e3``) are floats, as in YAML 1.2; plain PyYAML reads them as strings;
    * a key given twice in one mapping is an error (``yaml.constructor.ConstructorError`` naming the
      key and both lines) instead of the last one silently winning;
    * lists and mappings nested more than :data:`MAX_NESTING` levels deep are an error
      (:class:`_NestingError`) instead of exhausting Python's recursion while the text is read;
    * aliases (``*name``) may copy a few settings (``norma: {<<: *silk_kernel}``), but an alias to
      the node it is in, or aliases that expand the document to more than
      :data:`MAX_EXPANDED_VALUES` values (a "billion laughs" file: a few hundred bytes that expand
      to billions of values), are an error (:class:`_AliasError`) raised while the file is read,
      before anything is built from it.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self._expanded = 0  # values in the document so far, aliases expanded
        self._sizes: dict = {}  # id(node) -> its size with aliases expanded
        self._depth = 0  # nesting of the node being composed


#: Most values (scalars, lists and mappings) a configuration document may hold once its aliases are
#: expanded; the whole schema has fewer than 100 keys.
MAX_EXPANDED_VALUES = 10_000


class _AliasError(yaml.composer.ComposerError):
    """An alias (``anchor``, at ``problem_mark``) that refers to the node it is in (``recursive``),
    or with which the document grows beyond :data:`MAX_EXPANDED_VALUES` values."""

    problem_mark: yaml.Mark  # always given (yaml's base class allows None)

    def __init__(self, anchor: str, recursive: bool, mark):
        super().__init__(None, None, f"refused alias *{anchor}", mark)
        self.anchor = anchor
        self.recursive = recursive

    def describe(self, where: str) -> str:
        """What is wrong, for a message; ``where`` is what holds the alias (``"the file"``)."""
        if self.recursive:
            return f"alias *{_short(self.anchor)} refers to the node it is in (a recursive structure)"
        return f"alias *{_short(self.anchor)} expands {where} to more than {MAX_EXPANDED_VALUES} values"


#: Deepest nesting of lists and mappings a configuration document may have: the schema nests three
#: levels and a value one more. The YAML composer recurses once per level, so a few hundred
#: brackets (``[[[...]]]``) would otherwise end in a RecursionError.
MAX_NESTING = 32


class _NestingError(yaml.composer.ComposerError):
    """Lists or mappings nested more than :data:`MAX_NESTING` levels deep (at ``problem_mark``)."""

    problem_mark: yaml.Mark  # always given (yaml's base class allows None)

    def __init__(self, mark):
        super().__init__(None, None, f"nested more than {MAX_NESTING} levels deep", mark)

    def describe(self) -> str:
        return f"lists or mappings nested more than {MAX_NESTING} levels deep"


def _expanded_size(node, sizes: dict) -> int:
    """Number of values in ``node`` with its aliases expanded (memoised in ``sizes`` by node id, so
    this is linear in the number of distinct nodes even when the expansion is huge)."""
    size = sizes.get(id(node))
    if size is None:
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        size = 1 + sum(_expanded_size(c, sizes) for c in children)
        sizes[id(node)] = size
    return size


def _compose_node(self, parent, index):
    if not self.check_event(yaml.AliasEvent):
        self._expanded += 1
        if self._depth >= MAX_NESTING:
            raise _NestingError(self.peek_event().start_mark)
        self._depth += 1
        try:
            return yaml.SafeLoader.compose_node(self, parent, index)
        finally:
            self._depth -= 1
    event = self.peek_event()
    node = self.anchors.get(event.anchor)
    if node is not None:  # (an undefined alias: the base class reports it)
        if node.end_mark is None:  # still being composed: the alias is inside its own anchor
            raise _AliasError(event.anchor, True, event.start_mark)
        self._expanded += _expanded_size(node, self._sizes)
        if self._expanded > MAX_EXPANDED_VALUES:
            raise _AliasError(event.anchor, False, event.start_mark)
    return yaml.SafeLoader.compose_node(self, parent, index)


# YAML 1.2 floats that YAML 1.1 does not know: an exponent after a mantissa without a decimal point,
# or an exponent without a sign. The YAML 1.1 float resolver (checked first) keeps the other forms.
_SCI_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$")
ConfigLoader.add_implicit_resolver("tag:yaml.org,2002:float", _SCI_FLOAT, list("-+0123456789."))


class _DuplicateKeyError(yaml.constructor.ConstructorError):
    """A key appears twice in one YAML mapping (``key``; ``first_line`` is 1-based)."""

    problem_mark: yaml.Mark  # always given (yaml's base class allows None)

    def __init__(self, key, first_line: int, mark):
        super().__init__(None, None, f"duplicate key {_show(key)} (first given at line {first_line})", mark)
        self.key = key
        self.first_line = first_line


def _construct_mapping(self, node, deep=False):
    if isinstance(node, yaml.MappingNode):
        seen: dict = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # unhashable: the base class reports it
                continue
            if first is not key_node:
                raise _DuplicateKeyError(key, first.start_mark.line + 1, key_node.start_mark)
    return yaml.SafeLoader.construct_mapping(self, node, deep=deep)


class _LongIntError(yaml.constructor.ConstructorError):
    """An integer literal with more digits than Python converts (``sys.get_int_max_str_digits``)."""

    def __init__(self, digits: int, mark):
        super().__init__(None, None, f"integer with {digits} digits is too long", mark)
        self.digits = digits


class _NumberFormError(yaml.constructor.ConstructorError):
    """A number in one of YAML 1.1's other forms (``0x10``, ``0o17``, ``0b101``, ``1:30``), which
    would silently be read as 16, 15, 5 and 90 (``1_000`` is 1000, as in Python)."""

    problem_mark: yaml.Mark  # always given (yaml's base class allows None)

    def __init__(self, text: str, mark):
        super().__init__(None, None, f"{_show(text)} is not a plain decimal number", mark)
        self.text = text

    advice = "write it in decimal, e.g. 16, 0.5 or 1e-3"


_DECIMAL_INT = re.compile(r"[-+]?[0-9][0-9_]*")


def _construct_int(self, node):
    # decimal digits only (grouped with _ as Python allows); a leading zero does not make it octal
    # (010 is 10, as in YAML 1.2 and Python's int())
    if not _DECIMAL_INT.fullmatch(node.value):
        raise _NumberFormError(node.value, node.start_mark)
    try:
        return int(node.value.replace("_", ""), 10)
    except ValueError:
        raise _LongIntError(sum(c.isdigit() for c in node.value), node.start_mark) from None


def _construct_float(self, node):
    if ":" in node.value:  # 1:30.5, sexagesimal
        raise _NumberFormError(node.value, node.start_mark)
    return yaml.SafeLoader.construct_yaml_float(self, node)


ConfigLoader.construct_mapping = _construct_mapping  # type: ignore[method-assign]
ConfigLoader.compose_node = _compose_node  # type: ignore[method-assign]
ConfigLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
ConfigLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def _load_yaml(text: str) -> Any:
    """Parse configuration YAML text with :class:`ConfigLoader`."""
    return yaml.load(text, Loader=ConfigLoader)


# repr() with bounded work and length: a value from a file or --set may be huge (a long string, a
# long or deeply nested list); only its beginning is shown, so only that much is formatted
_BOUNDED_REPR = reprlib.Repr()
_BOUNDED_REPR.maxlevel = 4
_BOUNDED_REPR.maxlist = _BOUNDED_REPR.maxtuple = _BOUNDED_REPR.maxdict = _BOUNDED_REPR.maxset = 20
_BOUNDED_REPR.maxstring = _BOUNDED_REPR.maxother = _BOUNDED_REPR.maxlong = 200


def _short(text: str) -> str:
    """``text`` for a one-line message: its first 50 characters and ``"... (shortened)"`` when it
    is longer than 60."""
    return text if len(text) <= 60 else text[:50] + "... (shortened)"


def _show(value: Any) -> str:
    """``repr(value)`` for a one-line message, shortened when very long (without formatting the
    whole of a huge value first); true, false and null in YAML's spelling, as they were typed."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    try:
        text = _BOUNDED_REPR.repr(value)
    except ValueError:  # an int too long to print
        return "a very large integer"
    return _short(text)


def _defaults(node) -> dict:
    return {k: (_defaults(v) if isinstance(v, dict) else copy.deepcopy(v.default)) for k, v in node.items()}


def defaults() -> dict:
    """Return a fresh nested dict of the built-in defaults."""
    return _defaults(SCHEMA)


# largest integer a key accepts, whatever its own range says: the values end up in C ints
_INT_MAX = 2**31 - 1


def _finite_allowed(allowed: str) -> str:
    """``'a number > 0'`` -> ``'a finite number > 0'`` (for the message on inf/nan)."""
    return re.sub(r"\ba number\b", "a finite number", allowed, count=1)


def _plain(value: Any) -> Any:
    """NumPy scalars as the Python ``bool``/``int``/``float``/``str`` they hold, a tuple as a list
    (items converted too); anything else unchanged.

    What :func:`validate` returns is then plain Python, which the YAML writer can dump; the type
    checks that follow still tell a bool from a number (``np.bool_`` becomes ``bool``).
    """
    if isinstance(value, (np.bool_, np.integer, np.floating, np.str_)):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _check_value(key: str, value: Any, spec: Param, source: str) -> Any:
    where = f" in {source}" if source else ""
    if value is None:
        if spec.nullable:
            return None
        raise ConfigError(f"{key}: null{where} is not allowed; expected {spec.allowed}")
    try:
        value = _plain(value)
    except RecursionError:  # a value built in Python (validate) is not bounded by MAX_NESTING
        raise ConfigError(f"{key}: a list nested too deeply{where}; expected {spec.allowed}") from None
    t = spec.type
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:  # beyond the float range
            raise ConfigError(
                f"{key}: {_show(value)}{where} is out of range; expected {_finite_allowed(spec.allowed)}"
            ) from None
    ok_type = isinstance(value, t) and not (t in (int, float) and isinstance(value, bool))
    if not ok_type:
        raise ConfigError(f"{key}: {_show(value)}{where} has the wrong type; expected {spec.allowed}")
    if isinstance(value, int) and t is int and abs(value) > _INT_MAX:  # OpenCV/Qt take C ints
        raise ConfigError(
            f"{key}: {_show(value)}{where} is out of range; expected {spec.allowed} (at most {_INT_MAX})"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(
            f"{key}: {value!r}{where} is out of range; expected {_finite_allowed(spec.allowed)}"
        )
    if spec.check is not None and not spec.check(value):
        what = "is not valid" if isinstance(value, (list, tuple)) else "is out of range"  # e.g. [640]
        raise ConfigError(f"{key}: {_show(value)}{where} {what}; expected {spec.allowed}")
    return value


def _merge(base: dict, update: Mapping, schema: dict, prefix: str, source: str) -> None:
    if not isinstance(update, Mapping):
        raise ConfigError(
            f"{prefix or 'config'}: expected a mapping{' in ' + source if source else ''}, "
            f"got {type(update).__name__}"
        )
    for k, v in update.items():
        key = f"{prefix}.{_short(str(k))}" if prefix else _short(str(k))
        if k not in schema:
            allowed = ", ".join(sorted(map(str, schema)))
            raise ConfigError(f"{key}: unknown key{' in ' + source if source else ''}; allowed: {allowed}")
        spec = schema[k]
        if isinstance(spec, dict):
            _merge(base[k], v if v is not None else {}, spec, key, source)
        else:
            base[k] = _check_value(key, v, spec, source)


def _check_cross(config: Mapping, source: str) -> None:
    """Rules that tie several keys together (each key alone already passed its own check).

    Raises
    ------
    ConfigError
        NORMA's ``eta * lambda`` is not < 1: old terms would not decay (the factor 1 - eta lambda
        would be <= 0). The message names both keys.
    """
    norma = config["detector"]["norma"]
    eta, lam = norma["eta"], norma["lambda"]
    if eta * lam >= 1.0:
        where = f" in {source}" if source else ""
        raise ConfigError(
            f"detector.norma.eta, detector.norma.lambda: eta * lambda = {eta * lam:g}{where} "
            f"is out of range (eta={_show(eta)}, lambda={_show(lam)}); expected "
            f"eta * lambda < 1"
        )


def validate(config: Mapping, source: str = "", cross: bool = True) -> dict:
    """Validate a (possibly partial) nested config and return it merged over the defaults.

    NumPy scalars (``np.float64(0.02)``, ``np.int64(5)``, ``np.bool_(True)``) are accepted as the
    Python value they hold and tuples as lists; the result holds only plain Python values. A bool
    (Python or NumPy) is still refused where a number is expected. Rules between keys (NORMA's
    ``eta * lambda < 1``) are checked on the merged result unless ``cross`` is False (for a caller
    that merges more values before it checks them, as :func:`~silkvision.create_subtractor` does
    with its keyword overrides).
    """
    out = defaults()
    _merge(out, config, SCHEMA, "", source)
    if cross:
        _check_cross(out, source)
    return out


#: the largest config file read (a config is a few kB; this stops /dev/zero or a wrong huge file)
MAX_CONFIG_BYTES = 4 * 2**20


def _read_yaml(path: Path) -> dict:
    try:
        with open(path, "rb") as f:  # a pipe works too: --config <(...)
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path}: is larger than {MAX_CONFIG_BYTES // 2**20} MiB; expected a YAML "
                f"config file of a few kB"
            )
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: cannot read config file (not UTF-8 text)") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read config file ({e.strerror or e})") from None
    try:
        data = _load_yaml(text)
    except yaml.reader.ReaderError as e:  # a control character such as NUL
        pos = e.position
        line = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        raise ConfigError(
            f"{path}: invalid YAML at line {line}, column {column}: "
            f"unacceptable character #x{e.character:04x} ({e.reason})"
        ) from None
    except _DuplicateKeyError as e:
        mark = e.problem_mark
        raise ConfigError(
            f"{path}: duplicate key {_show(e.key)} at line {mark.line + 1}, column {mark.column + 1} "
            f"(first given at line {e.first_line})"
        ) from None
    except _AliasError as e:
        mark = e.problem_mark
        raise ConfigError(
            f"{path}: {e.describe('the file')} (line {mark.line + 1}, column "
            f"{mark.column + 1}); expected aliases (*name) that copy a few settings, "
            f"or none"
        ) from None
    except _NestingError as e:
        mark = e.problem_mark
        raise ConfigError(
            f"{path}: {e.describe()} at line {mark.line + 1}, column {mark.column + 1}; "
            f"expected a config of mappings and short lists"
        ) from None
    except _NumberFormError as e:
        mark = e.problem_mark
        raise ConfigError(
            f"{path}: {_show(e.text)} at line {mark.line + 1}, column {mark.column + 1} "
            f"is not a plain decimal number; {e.advice}"
        ) from None
    except yaml.YAMLError as e:
        at = getattr(e, "problem_mark", None)
        loc = f" at line {at.line + 1}, column {at.column + 1}" if at else ""
        problem = " ".join(str(getattr(e, "problem", None) or "invalid YAML").split())
        raise ConfigError(f"{path}: invalid YAML{loc}: {problem}") from None
    return {} if data is None else data


def _lookup_spec(dotted: str):
    node: Any = SCHEMA
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            allowed = f"; allowed: {', '.join(sorted(map(str, node)))}" if isinstance(node, dict) else ""
            raise ConfigError(f"{_short(dotted)}: unknown key in --set{allowed}")
        node = node[part]
    return node


def parse_set(item: str) -> tuple[str, Any]:
    """Parse one ``key=value`` override; the value is read as YAML (``0.5``, ``true``, ``[640, 480]``)."""
    if "=" not in item:
        raise ConfigError(f"--set {_show(item)}: expected key=value, e.g. detector.silk.tau=0.02")
    key, raw = item.split("=", 1)
    key = key.strip()
    if not key:
        raise ConfigError(f"--set {_show(item)}: empty key; expected key=value, e.g. detector.silk.tau=0.02")
    spec = _lookup_spec(key)
    if isinstance(spec, dict):
        raise ConfigError(
            f"{key}: is a section, not a key; set one of its keys, e.g. {key}.{next(iter(spec))}=..."
        )
    text = spec.type is str
    value = parse_value(raw, key, f"expected {spec.allowed}", text_ok=text) if raw.strip() != "" else None
    if text and not isinstance(value, str) and value is not None:
        value = raw.strip()
    return key, value


def parse_value(raw: str, what: str, expected: str = "", text_ok: bool = False) -> Any:
    """One command-line value read as configuration YAML (:class:`ConfigLoader`): ``0.5``, ``1e-3``,
    ``010`` (10), ``true``, ``null``, ``[640, 480]``; text YAML cannot read stays the text.

    Used by ``--set`` of every command (:func:`parse_set`, and ``online-bench``'s learner
    parameters), so that all read a value the same way.

    Raises
    ------
    ConfigError
        Naming ``what`` (and ending with ``expected``): aliases that expand too far, and unless
        ``text_ok`` (the value may be any text: it is then returned as given) a number in another
        form than decimal (``0x10``, ``1:30``) or an integer too long to convert.
    """
    end = f"; {expected}" if expected else ""
    try:
        return _load_yaml(raw)
    except _AliasError as e:
        raise ConfigError(f"{what}: {e.describe('the value')} in --set{end}") from None
    except _NestingError as e:
        raise ConfigError(f"{what}: {e.describe()} in --set{end}") from None
    except _NumberFormError as e:
        if text_ok:
            return raw.strip()
        raise ConfigError(
            f"{what}: {_show(e.text)} in --set is not a plain decimal number; {e.advice}"
        ) from None
    except _LongIntError as e:
        if text_ok:
            return raw.strip()
        raise ConfigError(
            f"{what}: an integer with {e.digits} digits in --set is out of range{end}"
        ) from None
    except yaml.YAMLError:
        return raw


def _nest(key: str, value: Any) -> dict:
    out: dict = {}
    node = out
    parts = key.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value
    return out


def _config_files(path, use_cwd: bool) -> list[Path]:
    """The configuration files to read, lowest precedence first: ``./config.yaml`` (when
    ``use_cwd``, it exists and it is not also given in ``path``), then the file(s) of ``path`` (None,
    one path, or a sequence of paths) in the order given."""
    if path is None:
        given = []
    elif isinstance(path, (str, os.PathLike)):
        given = [Path(path)]
    else:
        given = [Path(p) for p in path]
    cwd_file = Path.cwd() / DEFAULT_CONFIG_NAME
    if use_cwd and cwd_file.is_file() and all(p.resolve() != cwd_file.resolve() for p in given):
        return [cwd_file, *given]
    return given


def load_config(
    path: str | os.PathLike | Iterable[str | os.PathLike] | None = None,
    overrides: Iterable[str] = (),
    use_cwd: bool = True,
) -> dict:
    """Build the effective configuration.

    Parameters
    ----------
    path : path-like or sequence of path-like, optional
        The YAML file(s) given with ``--config``; several are merged in the order given, a later
        file overriding the keys it sets.
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
    sources = []
    for file in _config_files(path, use_cwd):
        _merge(cfg, _read_yaml(file), SCHEMA, "", str(file))
        sources.append(str(file))
    overrides = list(overrides)
    for item in overrides:
        key, value = parse_set(item)
        _merge(cfg, _nest(key, value), SCHEMA, "", "--set")
    if overrides:
        sources.append("--set")
    _check_cross(cfg, " + ".join(sources))
    return cfg


_MISSING = object()  # (a key a file does not set; None is a value)


def key_source(
    dotted: str,
    path: str | os.PathLike | Iterable[str | os.PathLike] | None = None,
    overrides: Iterable[str] = (),
    use_cwd: bool = True,
) -> str:
    """Where the value of ``dotted`` (``"capture.resize"``) in :func:`load_config`'s result came
    from: ``"--set"``, the path of the configuration file that set it last, or ``""`` (the built-in
    default). For messages about a valid value that a command cannot use; call it with
    :func:`load_config`'s arguments, after it succeeded (the files are read again).
    """
    if any(parse_set(item)[0] == dotted for item in overrides):
        return "--set"
    for file in reversed(_config_files(path, use_cwd)):
        node: Any = _read_yaml(file)
        for part in dotted.split("."):
            node = node.get(part, _MISSING) if isinstance(node, Mapping) else _MISSING
        if node is not _MISSING:
            return str(file)
    return ""


def get(config: Mapping, dotted: str) -> Any:
    """Return ``config['a']['b']`` for ``dotted='a.b'``."""
    node: Any = config
    for part in dotted.split("."):
        node = node[part]
    return node


def _plain_tree(node: Any) -> Any:
    """A nested mapping as plain dicts with :func:`_plain` values (what ``yaml.safe_dump`` can write)."""
    if isinstance(node, Mapping):
        return {k: _plain_tree(v) for k, v in node.items()}
    return _plain(node)


def dump_config(config: Mapping) -> str:
    """YAML text of a configuration (keys in schema order); NumPy scalars are written as the
    numbers they hold and tuples as lists."""
    return yaml.safe_dump(_plain_tree(config), sort_keys=False, default_flow_style=False)


def write_config(config: Mapping, path: str | os.PathLike) -> Path:
    """Write the effective configuration atomically to ``path``."""
    from silkvision.io.atomic import atomic_write_text

    return atomic_write_text(Path(path), "# effective silkvision configuration\n" + dump_config(config))


def render_commented(config: Mapping | None = None) -> str:
    """YAML text of ``config`` (default: the built-in defaults) with every key's help and allowed
    values as comments; this is how the top-level ``config.yaml`` is produced."""
    config = defaults() if config is None else config
    lines = [
        "# silkvision configuration: every key, its default and what it may be.",
        "# Precedence: built-in defaults < ./config.yaml < --config FILE < --set key=value.",
        "",
    ]

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
