"""CDnet F-measure of the peer detectors of issue 33: SuBSENSE, PAWCS, PBAS, LOBSTER and GSOC.

Every peer runs with its library defaults on each of the six development sequences of
``../shared/data/video/`` from frame 1; frames inside ``temporalROI.txt`` are scored with the CDnet
rules by :func:`silkvision.evaluation.confusion_counts` (the scorer of
``benchmarks/detector_accuracy.py``), counts pooled per sequence. Two masks per peer:

* ``raw``: the library's own mask;
* ``chain``: that mask after silkvision's default mask chain
  (:class:`silkvision.detector.postprocess.MaskFilter` as the default SILK subtractor has it:
  5x5 median, 5x5 closing, hole filling), the chain ``detector_accuracy.py`` applies to MOG2 and KNN.

Plus the share of pixels marked foreground on ``wallflower_WavingTrees`` frames 1-241 (a tree in
the wind, no foreground in those frames), and over frames 101-241 only, since every model starts
empty. MOG2, KNN and SILK itself are in ``detector_accuracy.py`` and ``detector_loo.py``.

Peers (library defaults, nothing set):

* ``subsense``, ``pawcs``, ``pbas``, ``lobster``: BGSLibrary's ``pybgs`` (``SuBSENSE``, ``PAWCS``,
  ``PixelBasedAdaptiveSegmenter``, ``LOBSTER``). BGSLibrary reads and writes
  ``./config/<name>.xml`` relative to the working directory; each one is created in a fresh empty
  temporary directory, so no stale file changes its defaults and nothing is written here.
* ``gsoc``: ``cv2.bgsegm.createBackgroundSubtractorGSOC()`` from ``opencv-contrib-python-headless``.

Library masks are binarised at 128 (they are 0/255 already; this only guards the scorer's strict
0/255 rule).

Environment
-----------
Neither library is, or may become, a dependency of silkvision: opencv-contrib would replace the
project venv's ``cv2`` and pybgs builds from source. The script runs in a separate venv, built with::

    python3 -m venv ../peers-venv
    ../peers-venv/bin/pip install opencv-contrib-python-headless numpy numba PyYAML \\
        scikit-image tqdm setuptools wheel
    ../peers-venv/bin/pip install -e . --no-deps          # this checkout: the project's scorer
    apt-get update && apt-get install -y libopencv-dev cmake  # pybgs links the system OpenCV
    ../peers-venv/bin/pip download pybgs==3.3.1 --no-deps --no-build-isolation -d ../pybgs-build/src
    tar xzf ../pybgs-build/src/pybgs-3.3.1.tar.gz -C ../pybgs-build/src
    ../peers-venv/bin/python benchmarks/peer_detectors.py --trim-pybgs ../pybgs-build/src/pybgs-3.3.1
    cmake -S ../pybgs-build/src/pybgs-3.3.1 -B ../pybgs-build/build -DCMAKE_BUILD_TYPE=Release \\
        -DPYTHON_EXECUTABLE="$PWD/../peers-venv/bin/python" -DBGS_CORE_STATIC=ON \\
        -DBGS_PYTHON_SUPPORT=ON -DBGS_PYTHON_ONLY=ON -DBGS_PYTHON_VERSION=3.11
    nice -n 15 cmake --build ../pybgs-build/build -- -j1          # one core: the machine is shared
    cp ../pybgs-build/build/pybgs*.so ../peers-venv/lib/python3.11/site-packages/

The cmake options are those of pybgs's ``setup.py`` (whose build step hard-codes ``make -j8``).
``--trim-pybgs`` (:func:`trim_pybgs`) removes every algorithm but the four peers from the unpacked
source first: the library is about a hundred C++ files, the four peers twelve (about ten
minutes on one shared core instead of most of an hour); the peers' own code is not touched.

Results go to ``--json`` (default ``benchmarks/results/peers.json``), rewritten atomically after
every finished (peer, sequence) task; a re-run skips the tasks already there, so an interrupted run
resumes. A peer whose library is missing is a one-line error before any work starts.

Usage::

    NUMBA_NUM_THREADS=1 nice -n 10 ../peers-venv/bin/python benchmarks/peer_detectors.py
    ../peers-venv/bin/python benchmarks/peer_detectors.py --peers gsoc --sequences highway
    ../peers-venv/bin/python benchmarks/peer_detectors.py --table     # print the table only

One OpenCV thread per process; ``--processes`` worker processes (1 by default), one task each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detector_accuracy import load_sequence
from video_data import VIDEO_ROOT, check_sequences

SEQUENCES = ("highway", "office", "pedestrians", "traffic", "canoe", "pets2001_illumination")
FOLIAGE = "wallflower_WavingTrees"
FOLIAGE_FRAMES = 241  # frames 1-241 hold no foreground
FOLIAGE_WARMUP = 100  # also reported over frames 101-241 only
#: peer -> (module that provides it, name in that module)
PEERS = {
    "subsense": ("pybgs", "SuBSENSE"),
    "pawcs": ("pybgs", "PAWCS"),
    "pbas": ("pybgs", "PixelBasedAdaptiveSegmenter"),
    "lobster": ("pybgs", "LOBSTER"),
    "gsoc": ("cv2.bgsegm", "createBackgroundSubtractorGSOC"),
}
RAND_USERS = ("subsense", "pawcs", "lobster")  # the peers that call C's rand()
LIBC_SEED = 1  # srand() before every task: C's initial state (see seed_libc_rand)
RESULTS = Path(__file__).resolve().parent / "results" / "peers.json"
#: the issue 33 table (F, library defaults, measured elsewhere with an independent scorer)
ISSUE_TABLE = {
    "highway": {"subsense": 0.944, "pawcs": 0.944, "lobster": 0.894, "gsoc": 0.951},
    "office": {"subsense": 0.961, "pawcs": None, "lobster": 0.942, "gsoc": 0.637},
    "pedestrians": {"subsense": 0.955, "pawcs": 0.948, "lobster": 0.918, "gsoc": 0.916},
    "traffic": {"subsense": 0.795, "pawcs": 0.832, "lobster": 0.704, "gsoc": 0.716},
    "canoe": {"subsense": 0.741, "pawcs": 0.812, "lobster": 0.842, "gsoc": 0.792},
    "pets2001_illumination": {"subsense": 0.495, "pawcs": 0.455, "lobster": 0.053, "gsoc": 0.032},
}


#: pybgs classes kept by :func:`trim_pybgs`, and the sources they need (relative to bgslibrary/)
PYBGS_CLASSES = ("PixelBasedAdaptiveSegmenter", "SuBSENSE", "LOBSTER", "PAWCS")
PYBGS_SOURCES = ("algorithms/LBSP/", "algorithms/PBAS/") + tuple(f"algorithms/{c}.cpp" for c in PYBGS_CLASSES)


def trim_pybgs(src: Path) -> int:
    """Cut an unpacked pybgs source tree down to the four peers; returns the C++ files left.

    Deletes the other algorithms' and the tools' sources (the CMake build globs what is there), keeps
    only the four peers' headers in ``algorithms/algorithms.h`` and only their bindings in the
    Python module. A one-line error when ``src`` is not a pybgs source tree.
    """
    import re

    lib, module = src / "bgslibrary", src / "wrapper" / "python" / "bgslibrary_module.cpp"
    header = lib / "algorithms" / "algorithms.h"
    if not (header.is_file() and module.is_file()):
        sys.exit(
            f"{src}: not an unpacked pybgs source tree (no {header.relative_to(src)} or "
            f"{module.relative_to(src)})"
        )
    for f in list(lib.rglob("*.cpp")) + list(lib.rglob("*.c")):
        if not f.relative_to(lib).as_posix().startswith(PYBGS_SOURCES):
            f.unlink()
    keep = tuple(f'"{c}.h"' for c in PYBGS_CLASSES)
    lines = header.read_text().splitlines()
    header.write_text(
        "\n".join(ln for ln in lines if not ln.startswith("#include") or ln.endswith(keep)) + "\n"
    )
    text = re.sub(
        r"\n\s*py::class_<(\w+)>.*?\n\s*;\n",
        lambda m: m.group(0) if m.group(1) in PYBGS_CLASSES else "\n",
        module.read_text(),
        flags=re.DOTALL,
    )
    missing = [c for c in PYBGS_CLASSES if f"py::class_<{c}>" not in text]
    if missing:
        sys.exit(f"{module}: no binding of {', '.join(missing)}; expected pybgs 3.3's module source")
    module.write_text(text)
    return len(list(lib.rglob("*.cpp")))


def _module(name: str):
    if name == "cv2.bgsegm":
        if not hasattr(cv2, "bgsegm"):
            raise ImportError("cv2.bgsegm is missing: install opencv-contrib-python-headless")
        return cv2.bgsegm
    import importlib

    return importlib.import_module(name)


def check_peers(peers) -> None:
    """Exit with one line, before any work starts, when a peer is unknown or its library missing."""
    for p in peers:
        if p not in PEERS:
            sys.exit(f"--peers: unknown peer {p!r}; expected some of {', '.join(PEERS)}")
        mod, attr = PEERS[p]
        try:
            getattr(_module(mod), attr)
        except (ImportError, AttributeError) as e:
            sys.exit(
                f"peer {p}: {mod}.{attr} is not available ({e}); run this script in the peers "
                "venv (see its docstring)"
            )


@contextmanager
def _in_empty_dir():
    """Work in a fresh empty directory: BGSLibrary loads/saves ./config/<name>.xml there."""
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="peer-") as d:
        os.chdir(d)
        try:
            yield
        finally:
            os.chdir(old)


def make_peer(name: str):
    """A fresh peer detector with its library defaults: an object with ``apply(frame) -> mask``."""
    mod, attr = PEERS[name]
    with _in_empty_dir():
        return getattr(_module(mod), attr)()


class Binariser:
    """A detector's mask as strict 0/255 uint8 (>= 128 is foreground), in a buffer kept per shape."""

    def __init__(self, name: str):
        self.name, self._buf = name, None

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        if mask is None or mask.ndim != 2 or mask.dtype != np.uint8:
            got = None if mask is None else f"{mask.dtype} {mask.shape}"
            raise ValueError(f"{self.name}: mask is {got}; expected a 2-D uint8 mask")
        if self._buf is None or self._buf.shape != mask.shape:
            self._buf = np.empty_like(mask)
        cv2.threshold(mask, 127, 255, cv2.THRESH_BINARY, dst=self._buf)
        return self._buf


def score_sequence(apply, seq, chain, name: str = "detector") -> dict:
    """CDnet counts and F of one detector on one sequence, its raw mask and after ``chain``.

    Parameters
    ----------
    apply : callable
        ``frame -> mask`` (2-D uint8), called on every frame from the first, in order.
    seq : detector_accuracy.Sequence
        The frames, temporal ROI, ROI and ground truth.
    chain : callable
        ``mask -> mask``, the post-processing applied to the raw mask (a ``MaskFilter``).
    name : str
        The detector's name in error messages.

    Returns
    -------
    dict
        ``counts`` (``raw``/``chain`` -> [tp, fp, fn, tn]), ``f_measure`` (``raw``/``chain``),
        ``frames``, ``evaluated`` ([first, last]) and ``cpu_seconds`` of ``apply``.
    """
    from silkvision.evaluation import Counts, confusion_counts, metrics

    binarise = Binariser(name)
    out = np.empty(seq.shape, np.uint8)
    counts = {"raw": Counts(0, 0, 0, 0), "chain": Counts(0, 0, 0, 0)}
    cpu = 0.0
    for i, frame in enumerate(seq.frames, start=1):
        t0 = time.process_time()
        raw = binarise(apply(frame))
        cpu += time.process_time() - t0
        gt = seq.gt.get(i) if seq.first <= i <= seq.last else None
        if gt is None:
            continue
        counts["raw"] = counts["raw"] + confusion_counts(raw, gt, seq.roi, name=name)
        counts["chain"] = counts["chain"] + confusion_counts(chain(raw, out=out), gt, seq.roi, name=name)
    return {
        "frames": len(seq.frames),
        "evaluated": [seq.first, seq.last],
        "counts": {k: [c.tp, c.fp, c.fn, c.tn] for k, c in counts.items()},
        "f_measure": {k: metrics(c)["f_measure"] for k, c in counts.items()},
        "cpu_seconds": round(cpu, 2),
    }


def foreground_share(apply, frames, chain, warmup: int = FOLIAGE_WARMUP, name: str = "detector") -> dict:
    """Mean share of pixels marked foreground over ``frames`` (which hold no foreground).

    Returns ``raw``/``chain`` -> ``{"all": share over every frame, "after_warmup": share over the
    frames after the first ``warmup``}`` and ``cpu_seconds`` of ``apply``.
    """
    binarise = Binariser(name)
    out = np.empty(frames[0].shape[:2], np.uint8)
    share = {"raw": [], "chain": []}
    cpu = 0.0
    for frame in frames:
        t0 = time.process_time()
        raw = binarise(apply(frame))
        cpu += time.process_time() - t0
        share["raw"].append(np.count_nonzero(raw) / raw.size)
        m = chain(raw, out=out)
        share["chain"].append(np.count_nonzero(m) / m.size)
    return {
        "frames": len(frames),
        "warmup": warmup,
        "cpu_seconds": round(cpu, 2),
        "share": {
            k: {"all": float(np.mean(v)), "after_warmup": float(np.mean(v[warmup:]))}
            for k, v in share.items()
        },
    }


def default_chain():
    """silkvision's default mask chain, as the default SILK subtractor holds it."""
    import silkvision as sv

    return sv.create_subtractor("silk").mask_filter


_LOADED: dict = {}  # the worker's last sequence: tasks come sorted by sequence, so it is reused


def _sequence(root: str, seq_name: str):
    path = Path(root) / seq_name
    if path not in _LOADED:
        _LOADED.clear()
        if seq_name == FOLIAGE:
            seq = load_sequence(path, max_frames=FOLIAGE_FRAMES, load_gt=False)
            if len(seq.frames) < FOLIAGE_FRAMES:
                raise ValueError(f"{path}: {len(seq.frames)} frames; expected at least {FOLIAGE_FRAMES}")
        else:
            seq = load_sequence(path)
        _LOADED[path] = seq
    return _LOADED[path]


def seed_libc_rand(seed: int) -> None:
    """Seed C's ``rand()``, which SuBSENSE, PAWCS and LOBSTER draw from and never seed (PBAS and GSOC
    have seeded generators of their own): without it a task's result would depend on the tasks its
    worker process ran before."""
    import ctypes

    ctypes.CDLL(None).srand(ctypes.c_uint(seed))


def run_task(args) -> tuple:
    """One (peer, sequence) task in a worker: returns (key, result)."""
    root, peer, seq_name = args
    cv2.setNumThreads(1)
    seed_libc_rand(LIBC_SEED)
    det = make_peer(peer)
    chain = default_chain()
    name = f"{peer} on {seq_name}"
    seq = _sequence(root, seq_name)
    if seq_name == FOLIAGE:
        res = foreground_share(det.apply, seq.frames, chain, name=name)
    else:
        res = score_sequence(det.apply, seq, chain, name=name)
    res["libc_srand"] = LIBC_SEED
    return f"{peer}/{seq_name}", res


def _versions() -> dict:
    import shutil
    import subprocess

    v = {"python": sys.version.split()[0], "opencv": cv2.__version__}
    # pybgs links the system OpenCV, not the wheel's
    pc = shutil.which("pkg-config")
    out = pc and subprocess.run([pc, "--modversion", "opencv4"], check=False, capture_output=True, text=True)
    v["system_opencv"] = out.stdout.strip() if out and out.returncode == 0 else None
    try:
        from importlib.metadata import PackageNotFoundError, version

        v["pybgs"] = version("pybgs")
    except PackageNotFoundError:  # built by hand (see the docstring): no distribution metadata
        try:
            import pybgs

            v["pybgs"] = getattr(pybgs, "__version__", "built from source 3.3.1")
        except ImportError:
            v["pybgs"] = None
    return v


def load_results(path: Path) -> dict:
    """The results file, or an empty one when it does not exist; a one-line error when unreadable."""
    if not path.exists():
        return {"results": {}}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read it as JSON ({e}); expected a results file of this script")
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        sys.exit(f"{path}: no 'results' object; expected a results file of this script")
    return data


def save_results(path: Path, data: dict) -> None:
    """Write ``data`` atomically (a temporary file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _fmt(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _unseeded(peer: str, r) -> str:
    """'*' for a result of a peer that draws from C's rand() from before the script seeded it."""
    return "*" if r and peer in RAND_USERS and "libc_srand" not in r else ""


def table(data: dict, peers, sequences) -> str:
    """Markdown tables: F raw / with the chain per sequence, the issue's figures, the foliage share."""
    res = data["results"]
    lines = [
        "| sequence | " + " | ".join(f"{p} raw | {p} +chain" for p in peers) + " |",
        "|---|" + "---|---|" * len(peers),
    ]
    for s in sequences:
        cells = []
        for p in peers:
            r = res.get(f"{p}/{s}")
            mark = _unseeded(p, r)
            cells += [_fmt(r and r["f_measure"]["raw"]) + mark, _fmt(r and r["f_measure"]["chain"]) + mark]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    means = []
    for p in peers:
        for k in ("raw", "chain"):
            v = [res[f"{p}/{s}"]["f_measure"][k] for s in sequences if f"{p}/{s}" in res]
            means.append(_fmt(np.mean(v)) + ("" if len(v) == len(sequences) else f" ({len(v)})"))
    lines.append(f"| mean of {len(sequences)} | " + " | ".join(means) + " |")
    lines += [
        "",
        "Issue 33's table (measured elsewhere) beside this run's raw F:",
        "",
        "| sequence | " + " | ".join(f"{p} issue | {p} here" for p in peers if p != "pbas") + " |",
        "|---|" + "---|---|" * len([p for p in peers if p != "pbas"]),
    ]
    for s in sequences:
        cells = []
        for p in peers:
            if p == "pbas":
                continue
            r = res.get(f"{p}/{s}")
            cells += [
                _fmt(ISSUE_TABLE.get(s, {}).get(p)),
                _fmt(r and r["f_measure"]["raw"]) + _unseeded(p, r),
            ]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    lines += [
        "",
        (
            f"Share of pixels marked foreground, {FOLIAGE} frames 1-{FOLIAGE_FRAMES} "
            f"(no foreground; after warm-up: frames {FOLIAGE_WARMUP + 1}-{FOLIAGE_FRAMES}):"
        ),
        "",
        "| peer | raw 1-241 | raw 101-241 | +chain 1-241 | +chain 101-241 |",
        "|---|---|---|---|---|",
    ]
    for p in peers:
        r = res.get(f"{p}/{FOLIAGE}")
        if r is None:
            lines.append(f"| {p} | – | – | – | – |")
            continue
        sh, mark = r["share"], _unseeded(p, r)
        lines.append(
            f"| {p} | "
            + " | ".join(
                f"{100 * sh[k][w]:.3f}%{mark}" for k in ("raw", "chain") for w in ("all", "after_warmup")
            )
            + " |"
        )
    if any(_unseeded(p, res.get(f"{p}/{s}")) for p in peers for s in list(sequences) + [FOLIAGE]):
        lines += [
            "",
            ("\\* run before C's rand() was seeded per task: the state left by the worker's earlier tasks"),
        ]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, default=VIDEO_ROOT)
    ap.add_argument("--peers", nargs="+", default=list(PEERS))
    ap.add_argument(
        "--sequences",
        nargs="+",
        default=list(SEQUENCES) + [FOLIAGE],
        help=f"CDnet sequences to score; {FOLIAGE} gives the foreground share instead",
    )
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--json", type=Path, default=RESULTS)
    ap.add_argument("--table", action="store_true", help="print the table of --json and stop")
    ap.add_argument(
        "--trim-pybgs",
        type=Path,
        metavar="SRC",
        help="cut the unpacked pybgs source SRC down to the four peers and stop",
    )
    args = ap.parse_args(argv)
    if args.trim_pybgs:
        print(f"{args.trim_pybgs}: {trim_pybgs(args.trim_pybgs)} C++ files left")
        return 0
    data = load_results(args.json)
    scored = [s for s in args.sequences if s != FOLIAGE]
    if args.table:
        print(table(data, args.peers, scored))
        return 0
    if args.processes < 1:
        sys.exit(f"--processes: {args.processes}; expected 1 or more")
    check_peers(args.peers)
    check_sequences(args.root, args.sequences)
    data["environment"] = _versions()
    data["chain"] = repr(default_chain())
    # small sequences first: an interrupted run has covered the most sequences
    size = {s: len(list((args.root / s / "input").glob("in*.jpg"))) for s in args.sequences}
    tasks = [
        (str(args.root), p, s)
        for s in sorted(args.sequences, key=size.get)
        for p in args.peers
        if f"{p}/{s}" not in data["results"]
    ]
    print(f"{len(tasks)} tasks to run ({len(data['results'])} already in {args.json})", flush=True)
    t0 = time.time()
    if args.processes > 1 and len(tasks) > 1:
        import multiprocessing as mp

        pool = mp.get_context("spawn").Pool(min(args.processes, len(tasks)))
        done = pool.imap_unordered(run_task, tasks, chunksize=1)
    else:
        pool, done = None, map(run_task, tasks)
    try:
        for key, res in done:
            data["results"][key] = res
            save_results(args.json, data)
            f = res.get("f_measure") or {k: v["after_warmup"] for k, v in res["share"].items()}
            print(f"{key}: {f} ({res['cpu_seconds']} cpu s, {time.time() - t0:.0f} s wall)", flush=True)
    finally:
        if pool is not None:
            pool.terminate()
    print()
    print(table(data, args.peers, scored))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    raise SystemExit(main())
