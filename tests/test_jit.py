"""The first run's compilation is announced and left out of the export's fps; ``--version`` names
numba's threading layer, with the busy-machine advice that fits it (silkvision/jit.py)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import silkvision
from silkvision.cli.main import COMPILING_NOTE
from silkvision.jit import CompileWatch, busy_machine_advice, runtime_summary

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _numba_threads_as_running(monkeypatch):
    """Some of these tests compile in this process, and numba re-reads its environment when it
    compiles: a NUMBA_NUM_THREADS another test left in the environment, different from the
    running thread count, would make it refuse to compile."""
    import numba

    monkeypatch.setenv("NUMBA_NUM_THREADS", str(numba.config.NUMBA_NUM_THREADS))


def test_compile_watch_announces_once_and_times_only_compilation():
    calls = []

    @numba.njit
    def fresh(x):  # never compiled before, not cached
        return x + 1

    with CompileWatch(announce=lambda: calls.append(1)) as w:
        assert fresh(1) == 2
        after_first = w.seconds
        assert fresh(2) == 3  # compiled already: no event
        fresh(np.float64(1.5))  # a new signature compiles again, without a second announcement
    assert calls == [1] and w.compiled == 2
    assert 0 < after_first < w.seconds
    with CompileWatch(announce=lambda: calls.append(2)) as w2:
        fresh(3)
    assert calls == [1] and w2.compiled == 0 and w2.seconds == 0.0


def _run(args, cache: Path, tty: bool = False, **env):
    """``silkvision ARGS`` in a child with its own numba cache; with ``tty``, its stderr is a
    pseudo-terminal (the compile notes are for a terminal only)."""
    e = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_NUM_THREADS": "1", **env}
    e["PYTHONPATH"] = os.pathsep.join([str(REPO), e.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "silkvision", *args]
    if not tty:
        return subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=600, cwd=REPO)
    import pty

    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, text=True, env=e, cwd=REPO)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out = p.stdout.read()
    p.wait(timeout=600)
    return subprocess.CompletedProcess(
        cmd, p.returncode, out, b"".join(chunks).decode().replace("\r\n", "\n")
    )


@pytest.mark.slow
def test_a_cold_cache_is_announced_and_left_out_of_the_fps(tmp_path, sample_seq):
    args = ["export", str(sample_seq), "--set", "capture.max_frames=5"]
    p = _run([*args, "--out", str(tmp_path / "a")], tmp_path / "cache", tty=True)
    assert p.returncode == 0, p.stderr
    err = p.stderr.splitlines()
    assert err[0] == COMPILING_NOTE
    took = float(
        re.fullmatch(
            r"silkvision: note: compiling the kernels took ([\d.]+) s \(not counted "
            r"in the time and fps above\)",
            err[-1],
        ).group(1)
    )
    seconds = float(re.search(r" in ([\d.]+) s \(", p.stdout).group(1))
    assert took > 0.5 and seconds < took  # 5 frames take well under the compilation's time
    # the kernels are cached now: no note, on a terminal or not
    for tty, out in ((True, "b"), (False, "c")):
        p = _run([*args, "--out", str(tmp_path / out)], tmp_path / "cache", tty=tty)
        assert p.returncode == 0, p.stderr
        assert "compiling" not in p.stderr


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_compile_notes_are_for_a_terminal_only(monkeypatch, terminal):
    """Scripts and logs keep their stderr (one-line errors); someone waiting at a terminal is told."""
    from silkvision.cli.main import _compile_note

    err = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)

    @numba.njit
    def fresh(x):
        return x * 2

    with _compile_note("export"):
        fresh(2)
    lines = err.getvalue().splitlines()
    if terminal:
        assert lines[0] == COMPILING_NOTE and lines[1].startswith(
            "silkvision: note: compiling the kernels took "
        )
        assert len(lines) == 2
    else:
        assert lines == []


def test_no_closing_note_after_an_error(monkeypatch):
    from silkvision.cli.main import _compile_note

    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)

    @numba.njit
    def fresh(x):
        return x - 1

    with pytest.raises(ValueError), _compile_note("export"):
        fresh(1)
        raise ValueError("x")
    assert err.getvalue().splitlines() == [COMPILING_NOTE]


def test_version_names_the_threading_layer(tmp_path):
    """The layer a fresh process picks (numba prefers TBB where libtbb is installed, then OpenMP)
    and the advice for that layer."""
    p = _run(["--version"], tmp_path)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f"silkvision {silkvision.__version__}"
    m = re.fullmatch(
        rf"numba {re.escape(numba.__version__)}, threading layer (omp|tbb|workqueue)"
        r"(?: \((\w+) OpenMP\))?, \d+ threads",
        lines[1],
    )
    assert m, lines[1]
    layer, vendor = m.groups()
    assert (vendor is not None) == (layer == "omp")
    assert lines[2] == busy_machine_advice(layer, vendor, os.environ)
    assert len(lines) == 3


def test_version_follows_the_layer_numba_is_told_to_use(tmp_path):
    p = _run(["--version"], tmp_path, NUMBA_THREADING_LAYER="workqueue")
    assert p.returncode == 0, p.stderr
    assert ", threading layer workqueue, " in p.stdout
    assert "the workqueue layer ignores GOMP_SPINCOUNT" in p.stdout


def test_runtime_summary_is_one_line():
    s = runtime_summary()
    assert "\n" not in s and s.startswith(f"numba {numba.__version__}, threading layer ")


@pytest.mark.parametrize(
    "layer, vendor, env, says",
    [
        ("omp", "GNU", {"GOMP_SPINCOUNT": "1000"}, "GOMP_SPINCOUNT=1000 (set by silkvision)"),
        ("omp", "GNU", {"GOMP_SPINCOUNT": "5"}, "GOMP_SPINCOUNT=5 (yours)"),
        ("omp", "GNU", {"OMP_WAIT_POLICY": "passive"}, "OMP_WAIT_POLICY=passive (yours)"),
        ("omp", "Intel", {"GOMP_SPINCOUNT": "1000"}, "Intel OpenMP ignores GOMP_SPINCOUNT"),
        ("tbb", None, {"GOMP_SPINCOUNT": "1000"}, "TBB ignores GOMP_SPINCOUNT; NUMBA_THREADING_LAYER=omp"),
        ("workqueue", None, {}, "the workqueue layer ignores GOMP_SPINCOUNT"),
    ],
)
def test_busy_machine_advice_fits_the_layer(layer, vendor, env, says):
    advice = busy_machine_advice(layer, vendor, env)
    assert says in advice and "NUMBA_NUM_THREADS=1" in advice and "\n" not in advice
