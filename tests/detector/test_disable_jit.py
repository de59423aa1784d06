"""Under ``NUMBA_DISABLE_JIT=1`` (numba's debugging switch: every kernel runs as plain Python) the
detectors give the compiled kernels' scores and masks. The LLVM fma intrinsic cannot run uncompiled,
so every SILK/NORMA frame used to end in a NotImplementedError traceback."""

import os
import subprocess
import sys

import numpy as np
import pytest

import silkvision as sv

SCRIPT = """
import sys, numpy as np, silkvision as sv
from silkvision.detector import kernels
assert kernels.fma32 is kernels._fma32_python
frames = np.random.default_rng(0).integers(0, 255, (4, 12, 16, 3), dtype=np.uint8)
out = {}
for name in ("silk", "norma"):
    det = sv.create_subtractor(name)
    for f in frames:
        mask = det.apply(f)
    out[name + "_scores"], out[name + "_mask"] = det.scores.copy(), mask.copy()
np.savez(sys.argv[1], **out)
"""


@pytest.mark.slow
def test_detectors_run_uncompiled_with_the_compiled_results(tmp_path):
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    path = tmp_path / "nojit.npz"
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path)], env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-2000:]
    got = np.load(path)
    frames = np.random.default_rng(0).integers(0, 255, (4, 12, 16, 3), dtype=np.uint8)
    for name in ("silk", "norma"):
        det = sv.create_subtractor(name)
        for f in frames:
            mask = det.apply(f)
        assert np.array_equal(got[name + "_scores"], det.scores), name
        assert np.array_equal(got[name + "_mask"], mask), name
