"""The registry lists every learner defined in ``silkvision/backends`` (none can silently drop out).

The generic suite (``test_estimators.py``) is parametrised over :func:`available`, so a learner that
is missing from the registry is also missing from every generic test. The names are read from the
source files (``@register("name", ...)`` decorators, found with :mod:`ast`), independently of the
registry's hand-written module list.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import silkvision.backends as backends
from silkvision.backends import available, create, registry

BACKEND_DIR = Path(backends.__file__).resolve().parent


def _registered_in_source() -> dict[str, list[str]]:
    """``{module name: [registered names]}`` for every ``silkvision/backends/*.py`` with a ``@register``."""
    found: dict[str, list[str]] = {}
    for path in sorted(BACKEND_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for dec in node.decorator_list:
                if not (
                    isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name) and dec.func.id == "register"
                ):
                    continue
                first = dec.args[0] if dec.args else None
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                    f"{path.name}:{dec.lineno}: register() needs a literal name for this test to see it"
                )
                found.setdefault(path.stem, []).append(first.value)
    return found


def test_the_scan_finds_the_learners():
    """Guard against a vacuous scan: the source holds the known families and no name twice."""
    found = _registered_in_source()
    names = [n for ns in found.values() for n in ns]
    assert len(names) == len(set(names)), "a name is registered twice"
    assert {"perceptron", "pa1", "duol", "mduol_iter", "silk_multi", "online_svm_r", "silk_novelty"} <= set(
        names
    )
    assert len(names) >= 29


def test_available_equals_the_registered_names_in_the_source():
    names = {n for ns in _registered_in_source().values() for n in ns}
    assert set(available()) == names


def test_every_registering_module_is_listed():
    modules = set(_registered_in_source())
    missing = modules - set(registry._MODULES)
    assert not missing, f"modules with @register not in registry._MODULES: {sorted(missing)}"
    stale = set(registry._MODULES) - modules
    assert not stale, f"registry._MODULES lists modules that register nothing: {sorted(stale)}"


def test_a_listed_module_that_does_not_import_raises(monkeypatch):
    monkeypatch.setattr(registry, "_MODULES", [*registry._MODULES, "no_such_backend_module"])
    with pytest.raises(ModuleNotFoundError, match="no_such_backend_module"):
        available()
    with pytest.raises(ModuleNotFoundError):
        create("perceptron")


def test_every_name_creates_its_class():
    for name in available():
        est = create(name)
        assert type(est).registry_name == name
