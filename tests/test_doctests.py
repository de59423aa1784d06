"""The examples in the docstrings run and print what they show (``python -m doctest`` per module)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import silkvision


def _modules() -> list[str]:
    names = [
        m.name
        for m in pkgutil.walk_packages(silkvision.__path__, "silkvision.")
        if ".gui" not in m.name and not m.name.endswith("__main__")
    ]
    with_examples = []
    for name in names:
        module = importlib.import_module(name)
        if any(t.examples for t in doctest.DocTestFinder().find(module, name)):
            with_examples.append(name)
    return with_examples


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(importlib.import_module(name), optionflags=flags, verbose=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed (report above)"
