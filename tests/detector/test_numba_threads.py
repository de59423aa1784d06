"""The OpenMP spin-count default set before numba's threads start (detector/numba_threads.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from silkvision.detector.numba_threads import SPIN_COUNT, limit_omp_spinning


def test_sets_the_spin_count_only_when_the_user_chose_nothing():
    env = {}
    assert limit_omp_spinning(env) and env == {"GOMP_SPINCOUNT": SPIN_COUNT}
    for chosen in ({"GOMP_SPINCOUNT": "300000"}, {"OMP_WAIT_POLICY": "ACTIVE"}):
        env = dict(chosen)
        assert not limit_omp_spinning(env) and env == chosen


def _spin_count_seen_by_a_fresh_process(extra: dict, module: str = "silkvision.detector.kernels") -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(extra)
    code = f"import os, {module}; print(os.environ.get('GOMP_SPINCOUNT', '-'))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_importing_silkvision_or_the_kernels_sets_it_before_any_parallel_loop():
    assert _spin_count_seen_by_a_fresh_process({}) == SPIN_COUNT
    assert _spin_count_seen_by_a_fresh_process({}, module="silkvision") == SPIN_COUNT
    assert _spin_count_seen_by_a_fresh_process({"OMP_WAIT_POLICY": "PASSIVE"}) == "-"
