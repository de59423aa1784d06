"""Time of ``import silkvision`` in fresh interpreters: this checkout against another one.

Each run is a new process (``python -c``) timing the import itself with ``time.perf_counter``; the
two checkouts alternate, and the script prints the median, min and max per checkout and whether
the import loaded numba.

    .venv/bin/python benchmarks/import_time.py --other /path/to/another/checkout --runs 9
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

CODE = (
    "import time; t = time.perf_counter(); import silkvision, sys; "
    "print(time.perf_counter() - t, 'numba' in sys.modules, silkvision.__file__)"
)


def one(checkout: Path) -> tuple[float, bool, str]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True, cwd="/"
    ).stdout.split()
    return float(out[0]), out[1] == "True", out[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--other", type=Path, help="another checkout to compare with (e.g. a git worktree)")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    checkouts = {"this checkout": Path(__file__).resolve().parents[1]}
    if args.other is not None:
        checkouts[f"{args.other}"] = args.other.resolve()
    times = {k: [] for k in checkouts}
    info = {}
    for _ in range(args.runs):
        for label, path in checkouts.items():
            t, numba, where = one(path)
            if not where.startswith(str(path)):
                sys.exit(f"{label}: imported {where}, not the checkout's own package")
            times[label].append(t)
            info[label] = numba
    for label, v in times.items():
        print(
            f"{label}: import silkvision median {statistics.median(v) * 1e3:.0f} ms "
            f"(min {min(v) * 1e3:.0f}, max {max(v) * 1e3:.0f}; {len(v)} runs), numba loaded: {info[label]}"
        )


if __name__ == "__main__":
    main()
