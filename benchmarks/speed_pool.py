"""Pool the paired per-repeat ratios of several ``detector_speed.py --json`` runs.

A single run's median ratio moves between runs on this shared machine (0.95x to 1.15x for the same
code), so this prints, per run and pooled over all repeats of all runs, the median of
``fps[detector] / fps[baseline]`` taken within each repeat, and the share of repeats where the
detector was at least as fast as the baseline.

Usage::

    .venv/bin/python benchmarks/speed_pool.py /tmp/speed14b.json /tmp/speed18.json ... \\
        --size 320x240 --threads 1 --detector silk+post --baseline mog2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def paired_ratios(path: Path, size: str, threads: int, detector: str, baseline: str) -> list[float]:
    """The per-repeat ratios of one run (empty if it has no such cell)."""
    for entry in json.loads(path.read_text()):
        if entry["size"] == size and entry["threads"] == threads:
            fps = entry["all_fps"]
            if detector in fps and baseline in fps:
                return [a / b for a, b in zip(fps[detector], fps[baseline])]
    return []


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="JSON files written by detector_speed.py --json")
    ap.add_argument("--size", default="320x240")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--detector", default="silk+post")
    ap.add_argument("--baseline", default="mog2")
    a = ap.parse_args(argv)
    pooled = []
    for path in a.runs:
        if not path.is_file():
            sys.exit(f"speed_pool: {path}: no such file")
        r = paired_ratios(path, a.size, a.threads, a.detector, a.baseline)
        if not r:
            print(f"{path.stem}: no {a.detector}/{a.baseline} cell at {a.size}, {a.threads} thread(s)")
            continue
        pooled += r
        print(
            f"{path.stem}: {len(r)} repeats, median {statistics.median(r):.3f}, "
            f"at least as fast in {sum(x >= 1 for x in r) / len(r):.0%}"
        )
    if pooled:
        print(
            f"pooled: {len(pooled)} repeats, median {statistics.median(pooled):.3f}, "
            f"quartiles {statistics.quantiles(pooled, n=4)[0]:.3f}-{statistics.quantiles(pooled, n=4)[2]:.3f}, "
            f"at least as fast in {sum(x >= 1 for x in pooled) / len(pooled):.0%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
