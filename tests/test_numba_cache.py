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
    assert install()  # numba still has the list of locators this relies on
    found = dict(_dispatchers())
    assert len(found) > 50
    for name, disp in found.items():
        locator = disp._cache._impl._locator
        assert type(locator).__name__.startswith("Silkvision"), name
        assert locator.get_source_stamp()[1] == package_digest()


@pytest.mark.slow
def test_an_edited_helper_in_another_file_recompiles_its_callers(tmp_path):
    """A learner's cache used to stay valid after an edit of ``backends/mercer.py`` (numba checks
    the defining file only): the learner kept the old kernel, silently."""
    shutil.copytree(
        PACKAGE, tmp_path / "pkg" / "silkvision", ignore=shutil.ignore_patterns("__pycache__", "gui", "*.so")
    )
    code = (
        "import numpy as np; from silkvision import backends; "
        "c = backends.create('perceptron', sigma=1.0); c.learn_one(np.zeros(3), -1); "
        "print(repr(c.decision_function_one(np.array([0.1, 0.2, 0.3]))))"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "pkg"), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run():
        return subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tmp_path
        ).stdout.strip()

    before = run()
    kernels = tmp_path / "pkg" / "silkvision" / "backends" / "mercer.py"
    text = kernels.read_text()
    assert "np.exp(-s / (2.0 * sigma * sigma))" in text
    kernels.write_text(text.replace("np.exp(-s / (2.0 * sigma * sigma))", "np.exp(-s / (sigma * sigma))"))
    after = run()
    assert float(before) == pytest.approx(-np.exp(-0.14 / 2), rel=1e-12)
    assert float(after) == pytest.approx(-np.exp(-0.14), rel=1e-12)


READ_ONLY = """
import os, tempfile
from numba.core import caching
private = os.path.join(tempfile.gettempdir(), "silkvision-numba-")
real = caching._CacheLocator.ensure_cache_path

def ensure(self):   # every folder but the private temporary one is read-only (as for a non-root user)
    if not self.get_cache_path().startswith(private):
        raise PermissionError(13, "Permission denied", self.get_cache_path())
    return real(self)

caching._CacheLocator.ensure_cache_path = ensure
import numpy as np
from silkvision import backends
c = backends.create("perceptron", sigma=1.0)
c.learn_one(np.zeros(3), -1)
print(c.decision_function_one(np.ones(3)))
"""


@pytest.mark.slow
def test_a_read_only_install_with_a_read_only_home_still_compiles(tmp_path):
    """With the package folder, NUMBA_CACHE_DIR and the home folder all unwritable, numba found no
    locator and every command ended in "RuntimeError: cannot cache function"."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["TMPDIR"] = str(tmp_path)
    run = subprocess.run(
        [sys.executable, "-c", READ_ONLY], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-1500:]
    assert float(run.stdout) == pytest.approx(-np.exp(-1.5), rel=1e-12)
    private = [p for p in tmp_path.iterdir() if p.name.startswith("silkvision-numba-")]
    assert len(private) == 1 and list(private[0].rglob("*.nbi"))
    if hasattr(os, "getuid"):
        assert private[0].stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_a_temporary_cache_folder_others_can_write_to_is_not_used(tmp_path, monkeypatch):
    """numba's cache index is a pickle: a folder others may write to would let them run code."""
    from silkvision import _numba_cache

    monkeypatch.setattr(_numba_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    shared = tmp_path / f"silkvision-numba-{os.getuid()}"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    assert _numba_cache._private_dir() is None
    shared.chmod(0o700)
    assert _numba_cache._private_dir() == str(shared)


def test_whole_line_comments_and_files_without_compiled_code_leave_the_digest_alone(tmp_path, monkeypatch):
    """Any edit of a file that merely mentions njit (the package __init__, this module) recompiled
    every cached function (15 s); so did a comment."""
    from silkvision import _numba_cache

    pkg = tmp_path / "silkvision"
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__", "gui", "*.so"))

    def digest():
        monkeypatch.setattr(_numba_cache, "_ROOT", pkg)
        _numba_cache.package_digest.cache_clear()
        try:
            return _numba_cache.package_digest()
        finally:
            _numba_cache.package_digest.cache_clear()

    before = digest()
    (pkg / "__init__.py").write_text((pkg / "__init__.py").read_text() + "x = 1  # njit\n")
    duol = pkg / "backends" / "duol.py"
    duol.write_text(duol.read_text() + "\n    # a comment\n")
    assert digest() == before
    duol.write_text(duol.read_text() + "Y = 2\n")
    assert digest() != before


def test_every_compiling_module_installs_the_locators_before_its_first_decorator():
    """``import silkvision`` no longer loads numba (0.25 s, every --help paid it); each module that
    compiles imports silkvision._numba_cache first, itself or through its package's __init__."""
    import re

    marker = "import silkvision._numba_cache"
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        first = re.search(r"^[ \t]*@(?:njit|intrinsic|numba\.)", text, re.MULTILINE)
        if first is None:
            continue
        init = path.parent / "__init__.py"
        assert marker in text[: first.start()] or (path.parent != PACKAGE and marker in init.read_text()), (
            path
        )


@pytest.mark.parametrize(
    "module",
    ["silkvision.detector.kernels", "silkvision.detector.mask_kernels", "silkvision.backends.perceptron"],
)
@pytest.mark.slow
def test_a_compiling_module_imported_first_is_stamped(module, tmp_path):
    code = (
        "import importlib, sys, numba; from silkvision._numba_cache import package_digest; "
        f"m = importlib.import_module({module!r}); "
        "ds = [d for d in vars(m).values() if isinstance(d, numba.core.registry.CPUDispatcher)]; "
        "assert ds and all(type(d._cache._impl._locator).__name__.startswith('Silkvision') for d in ds); "
        "print(len(ds))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-1500:]


def test_importing_silkvision_does_not_load_numba():
    run = subprocess.run(
        [sys.executable, "-c", "import sys, silkvision; print('numba' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "False"
