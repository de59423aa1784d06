"""numba's cache keyed on all of the package's compiled sources (silkvision/_numba_cache.py)."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import silkvision
from silkvision._numba_cache import install, package_digest

PACKAGE = Path(silkvision.__file__).parent


def _dispatchers():
    for path in sorted(PACKAGE.rglob("*.py")):
        if "gui" in path.parts or b"njit" not in path.read_bytes():
            continue
        mod = importlib.import_module(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        for name, obj in vars(mod).items():
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.__module__ == mod.__name__:
                yield f"{mod.__name__}.{name}", obj


def test_every_cached_function_of_the_package_uses_the_package_stamp():
    assert install()          # numba still has the list of locators this relies on
    found = dict(_dispatchers())
    assert len(found) > 50
    for name, disp in found.items():
        locator = disp._cache._impl._locator
        assert type(locator).__name__.startswith("Silkvision"), name
        assert locator.get_source_stamp()[1] == package_digest()


def test_an_edited_helper_in_another_file_recompiles_its_callers(tmp_path):
    """A learner's cache used to stay valid after an edit of ``backends/kernels.py`` (numba checks
    the defining file only): the learner kept the old kernel, silently."""
    shutil.copytree(PACKAGE, tmp_path / "pkg" / "silkvision",
                    ignore=shutil.ignore_patterns("__pycache__", "gui", "*.so"))
    code = ("import numpy as np; from silkvision import backends; "
            "c = backends.create('perceptron', sigma=1.0); c.learn_one(np.zeros(3), -1); "
            "print(repr(c.decision_function_one(np.array([0.1, 0.2, 0.3]))))")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "pkg"), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run():
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              check=True, cwd=tmp_path).stdout.strip()

    before = run()
    kernels = tmp_path / "pkg" / "silkvision" / "backends" / "kernels.py"
    text = kernels.read_text()
    assert "np.exp(-s / (2.0 * sigma * sigma))" in text
    kernels.write_text(text.replace("np.exp(-s / (2.0 * sigma * sigma))", "np.exp(-s / (sigma * sigma))"))
    after = run()
    assert float(before) == pytest.approx(-np.exp(-0.14 / 2), rel=1e-12)
    assert float(after) == pytest.approx(-np.exp(-0.14), rel=1e-12)
