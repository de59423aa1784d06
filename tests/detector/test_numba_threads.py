"""The OpenMP spin-count default set before numba's threads start (detector/numba_threads.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.slow
def test_importing_silkvision_or_the_kernels_sets_it_before_any_parallel_loop():
    assert _spin_count_seen_by_a_fresh_process({}) == SPIN_COUNT
    assert _spin_count_seen_by_a_fresh_process({}, module="silkvision") == SPIN_COUNT
    assert _spin_count_seen_by_a_fresh_process({"OMP_WAIT_POLICY": "PASSIVE"}) == "-"


# -- processes forked after numba's OpenMP threads started -----------------------------------------

import textwrap  # noqa: E402

import numpy as np  # noqa: E402

import silkvision as sv  # noqa: E402
import silkvision.detector.numba_threads as nt  # noqa: E402
import silkvision.detector.pixel as pixel_module  # noqa: E402


def _frames(n=40):
    from silkvision.capture import open_source

    with open_source(sv.samples.highway()) as src:
        return [f for _, f in zip(range(n), (frame for _, frame in src))]


@pytest.mark.parametrize("algorithm", ["silk", "norma"])
@pytest.mark.slow
def test_the_serial_kernels_give_the_parallel_kernels_results(algorithm, monkeypatch):
    # renormalise every few frames too, so that its serial twin runs
    monkeypatch.setattr(pixel_module, "RENORM_BELOW", 0.99)
    frames = _frames()
    par = sv.create_subtractor(algorithm, median=0, close=0, fill_holes=False)
    ser = sv.create_subtractor(algorithm, median=0, close=0, fill_holes=False)
    for i, f in enumerate(frames):
        m_par = par.apply(f, learningRate=0 if i % 9 == 5 else -1).copy()
        monkeypatch.setattr(nt, "_forked_after_omp", True)
        assert not nt.parallel_allowed()
        m_ser = ser.apply(f, learningRate=0 if i % 9 == 5 else -1).copy()
        monkeypatch.setattr(nt, "_forked_after_omp", False)
        np.testing.assert_array_equal(ser.scores, par.scores, err_msg=f"scores, frame {i}")
        np.testing.assert_array_equal(m_ser, m_par, err_msg=f"mask, frame {i}")
    a, b = par.get_state(), ser.get_state()
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]), err_msg=k)


_FORK_SCRIPT = textwrap.dedent("""
    import multiprocessing as mp, sys
    import numba
    import silkvision as sv
    from silkvision.capture import open_source

    with open_source(sv.samples.highway()) as src:
        frames = [f for _, f in zip(range(30), (frame for _, frame in src))]

    def run(algorithm):
        det = sv.create_subtractor(algorithm)
        for f in frames:
            det.apply(f)
        return float(det.scores.sum())

    if __name__ == "__main__":
        algorithm = sys.argv[1]
        here = run(algorithm)                       # the parent starts numba's threads
        layer = numba.threading_layer()
        with mp.get_context("fork").Pool(2) as pool:
            there = pool.map(run, [algorithm, algorithm])
        print(layer, here == there[0] == there[1])
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("algorithm", ["silk", "norma"])
@pytest.mark.slow
def test_a_pool_forked_after_the_parent_ran_a_detector_finishes_with_the_same_results(algorithm, tmp_path):
    # with GNU OpenMP, numba killed such a child at its first parallel loop and Pool.map hung
    script = tmp_path / "fork_pool.py"
    script.write_text(_FORK_SCRIPT)
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    done = subprocess.run(
        [sys.executable, str(script), algorithm], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    layer, same = done.stdout.split()
    assert same == "True", done.stdout
    if layer != "omp":  # (the case this test is about; others were fork-safe before the fix too)
        pytest.skip(f"numba's threading layer here is {layer}, not omp")


_THREADS_SCRIPT = textwrap.dedent("""
    import threading
    import numpy as np
    import silkvision as sv
    from silkvision.capture import open_source

    with open_source(sv.samples.highway()) as src:
        frames = [f for _, f in zip(range(30), (frame for _, frame in src))]

    def run(algorithm, out, key):
        det = sv.create_subtractor(algorithm)
        for f in frames:
            det.apply(f)
        out[key] = det.scores.copy()

    alone, together = {}, {}
    for a in ("silk", "norma"):
        run(a, alone, a)
    threads = [threading.Thread(target=run, args=(a, together, (a, i)))
               for i in range(2) for a in ("silk", "norma")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(all(np.array_equal(v, alone[k[0]]) for k, v in together.items()), len(together))
""")


@pytest.mark.parametrize("layer", ["workqueue", "default"])
@pytest.mark.slow
def test_detectors_in_several_threads_under_any_threading_layer(layer, tmp_path):
    # numba's workqueue layer (no OpenMP/TBB, e.g. macOS) aborted on concurrent parallel loops
    script = tmp_path / "threads.py"
    script.write_text(_THREADS_SCRIPT)
    env = dict(os.environ, NUMBA_NUM_THREADS="2", NUMBA_THREADING_LAYER=layer)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "4"]
