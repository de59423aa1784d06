"""Every numba function of the package (detector kernels and backends) is compiled with
``cache=True`` (project rule), the ``inline="always"`` helpers included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import silkvision
import silkvision.detector as det_pkg

_DIR = Path(det_pkg.__file__).parent
_PACKAGE = Path(silkvision.__file__).parent


def _njit_decorators(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                call = dec if isinstance(dec, ast.Call) else None
                fn = call.func if call else dec
                if (isinstance(fn, ast.Name) and fn.id in ("njit", "jit")) or (
                    isinstance(fn, ast.Attribute) and fn.attr in ("njit", "jit")
                ):
                    yield node.name, call


@pytest.mark.parametrize("path", sorted(_PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(_PACKAGE)))
def test_every_njit_has_cache_true(path):
    missing = [
        name
        for name, call in _njit_decorators(path)
        if call is None
        or not any(
            k.arg == "cache" and isinstance(k.value, ast.Constant) and k.value.value is True
            for k in call.keywords
        )
    ]
    assert missing == [], f"{path.name}: njit without cache=True: {missing}"


def test_the_backends_are_scanned():
    assert len(list(_njit_decorators(_PACKAGE / "backends" / "duol.py"))) >= 8


def test_the_inline_helpers_are_seen():
    names = {n for p in ("kernels.py", "mask_kernels.py") for n, _ in _njit_decorators(_DIR / p)}
    assert {
        "exp2_neg",
        "_load_features",
        "_slot_exponents",
        "_slot_sums",
        "_slot_sums_min",
        "_max5",
        "_min5",
    } <= names
