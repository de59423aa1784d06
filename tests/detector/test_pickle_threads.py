"""Pickled SILK/NORMA detectors work in a process with more numba threads than the one that made them.

The kernels index their per-thread scratch by ``numba.get_thread_id()`` without bounds checks, so
scratch sized for 1 thread used by 4 wrote past its end (a segfault or corrupt scores).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

_COMMON = """
import pickle, sys
import numpy as np
import silkvision as sv

rng = np.random.default_rng(3)
base = rng.integers(0, 256, (64, 80, 3), dtype=np.uint8)
frames = [np.clip(base.astype(int) + rng.integers(-9, 10, base.shape), 0, 255).astype(np.uint8)
          for _ in range(8)]
frames[-1][20:40, 30:50] = 255 - frames[-1][20:40, 30:50]
"""

_DUMP = (
    _COMMON
    + """
det = sv.create_subtractor(sys.argv[2])
for f in frames[:4]:
    det.apply(f)
with open(sys.argv[1], "wb") as fh:
    pickle.dump(det, fh)
"""
)

_LOAD = (
    _COMMON
    + """
import numba
assert numba.config.NUMBA_NUM_THREADS == 4
with open(sys.argv[1], "rb") as fh:
    det = pickle.load(fh)
fresh = sv.create_subtractor(sys.argv[2])
for f in frames:
    want = fresh.apply(f)
for f in frames[4:]:
    got = det.apply(f)
assert np.array_equal(got, want), "masks differ"
assert np.array_equal(det.scores, fresh.scores), "scores differ"
print("OK")
"""
)


def _run(code: str, threads: int, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("algo", ["silk", "norma"])
@pytest.mark.slow
def test_pickle_from_one_thread_loads_in_four(tmp_path, algo):
    path = str(tmp_path / "det.pkl")
    dump = _run(_DUMP, 1, path, algo)
    assert dump.returncode == 0, dump.stderr
    load = _run(_LOAD, 4, path, algo)
    assert load.returncode == 0 and "OK" in load.stdout, (load.returncode, load.stderr[-2000:])


def test_pickle_does_not_carry_scratch(rng):
    import pickle

    import numpy as np

    import silkvision as sv

    det = sv.create_subtractor("silk")
    det.apply(rng.integers(0, 256, (8, 12, 3), dtype=np.uint8))
    state = det.__getstate__()
    assert state["_scr_f"] is None and state["_scr_i"] is None
    back = pickle.loads(pickle.dumps(det))
    assert back._scr_f is not None and back._scr_f.shape == det._scr_f.shape
