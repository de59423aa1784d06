"""The first run's compilation is announced and left out of the export's fps; ``--version`` names
numba's threading layer, with the busy-machine advice that fits it (silkvision/jit.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from silkvision.cli.main import COMPILING_NOTE
from silkvision.jit import CompileWatch, busy_machine_advice, runtime_summary, threading_layer

REPO = Path(__file__).resolve().parents[1]


def test_compile_watch_announces_once_and_times_only_compilation():
    calls = []

    @numba.njit
    def fresh(x):   # never compiled before, not cached
        return x + 1

    with CompileWatch(announce=lambda: calls.append(1)) as w:
        assert fresh(1) == 2
        after_first = w.seconds
        assert fresh(2) == 3          # compiled already: no event
        fresh(np.float64(1.5))        # a new signature compiles again, without a second announcement
    assert calls == [1] and w.compiled == 2
    assert 0 < after_first < w.seconds
    with CompileWatch(announce=lambda: calls.append(2)) as w2:
        fresh(3)
    assert calls == [1] and w2.compiled == 0 and w2.seconds == 0.0


def _run(args, cache: Path, **env):
    e = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_NUM_THREADS": "1", **env}
    e["PYTHONPATH"] = os.pathsep.join([str(REPO), e.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "silkvision", *args], capture_output=True, text=True,
                          env=e, timeout=600, cwd=REPO)


@pytest.mark.slow
def test_a_cold_cache_is_announced_and_left_out_of_the_fps(tmp_path, sample_seq):
    args = ["export", str(sample_seq), "--set", "capture.max_frames=5"]
    p = _run([*args, "--out", str(tmp_path / "a")], tmp_path / "cache")
    assert p.returncode == 0, p.stderr
    err = p.stderr.splitlines()
    assert err[0] == COMPILING_NOTE
    took = float(re.fullmatch(r"silkvision: note: compiling the kernels took ([\d.]+) s \(not counted "
                              r"in the time and fps above\)", err[-1]).group(1))
    seconds = float(re.search(r" in ([\d.]+) s \(", p.stdout).group(1))
    assert took > 0.5 and seconds < took      # 5 frames take well under the compilation's time
    # the kernels are cached now: no note
    p = _run([*args, "--out", str(tmp_path / "b")], tmp_path / "cache")
    assert p.returncode == 0, p.stderr
    assert "compiling" not in p.stderr


def test_version_names_the_threading_layer():
    p = _run(["--version"], Path(os.environ.get("NUMBA_CACHE_DIR", "/nonexistent")))
    lines = p.stdout.splitlines()
    layer, vendor = threading_layer()
    assert lines[1].startswith(f"numba {numba.__version__}, threading layer {layer}")
    assert lines[2].startswith("busy machines: ")


def test_version_follows_the_layer_numba_is_told_to_use(tmp_path):
    p = _run(["--version"], tmp_path, NUMBA_THREADING_LAYER="workqueue")
    assert p.returncode == 0, p.stderr
    assert ", threading layer workqueue, " in p.stdout
    assert "the workqueue layer ignores GOMP_SPINCOUNT" in p.stdout


def test_runtime_summary_is_one_line():
    s = runtime_summary()
    assert "\n" not in s and s.startswith(f"numba {numba.__version__}, threading layer ")


@pytest.mark.parametrize("layer, vendor, env, says", [
    ("omp", "GNU", {"GOMP_SPINCOUNT": "1000"}, "GOMP_SPINCOUNT=1000 (set by silkvision)"),
    ("omp", "GNU", {"GOMP_SPINCOUNT": "5"}, "GOMP_SPINCOUNT=5 (yours)"),
    ("omp", "GNU", {"OMP_WAIT_POLICY": "passive"}, "OMP_WAIT_POLICY=passive (yours)"),
    ("omp", "Intel", {"GOMP_SPINCOUNT": "1000"}, "Intel OpenMP ignores GOMP_SPINCOUNT"),
    ("tbb", None, {"GOMP_SPINCOUNT": "1000"}, "TBB ignores GOMP_SPINCOUNT; NUMBA_THREADING_LAYER=omp"),
    ("workqueue", None, {}, "the workqueue layer ignores GOMP_SPINCOUNT"),
])
def test_busy_machine_advice_fits_the_layer(layer, vendor, env, says):
    advice = busy_machine_advice(layer, vendor, env)
    assert says in advice and "NUMBA_NUM_THREADS=1" in advice and "\n" not in advice
