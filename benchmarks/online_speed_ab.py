"""A/B of the online learners' speed: another checkout of silkvision (``--other``, e.g. a
``git worktree`` of an earlier revision) against this working tree, on the JMLR paper's data.

Each side runs in its own process (its own package and numba cache), the two alternating round
after round, so that a busy spell of the shared machine hits both. A process times one pass of
each learner over ``--orderings`` orderings (the first pass, which compiles, is not counted) and
reports the median; the script prints each side's median over the rounds and their ratio
(this tree / other).

Usage::

    git worktree add /tmp/old_sv 68989d3
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/online_speed_ab.py --other /tmp/old_sv --rounds 5

Needs ``../shared/data/online`` (or ``--data-root``): spambase (stored orderings) and w7a (seeded).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
from silkvision.backends import create, datasets, sparse
import silkvision; silkvision_file = silkvision.__file__
name, algos, root, k = sys.argv[1], sys.argv[2].split(","), sys.argv[3], int(sys.argv[4])
if sys.argv[5] == "row":                 # this side on the row-major path
    sparse.COLUMNS_MIN_FEATURES = 10 ** 9
rng = np.random.default_rng(0)
if name == "year":                       # a raw year next to 19 standardised features
    X = rng.normal(size=(4000, 20)); X[:, 0] = rng.integers(1990, 2021, size=4000)
    y = np.where(X[:, 1] + X[:, 2] > 0, 1.0, -1.0)
elif name == "offset":                   # 50 standardised features, all shifted by 1e4
    X = rng.normal(size=(3000, 50)); y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0); X += 1e4
else:
    d = datasets.load(name, root=root)
    X, y = d.X, d.y
stored = None if name in ("year", "offset") else d.orderings
orders = list(stored[: k + 1]) if stored is not None else [rng.permutation(len(y)) for _ in range(k + 1)]
out = {}
for a in algos:
    ts = []
    for o in orders:
        m = create(a, sigma=8.0) if a in ("perceptron", "romma", "aggromma") else create(a, sigma=8.0, C=5.0)
        t = time.perf_counter()
        m.progressive_predict(X[o], y[o])
        ts.append(time.perf_counter() - t)
    out[a] = float(np.median(ts[1:]))
print(json.dumps(out))
"""


def run_side(tree: Path, cache: str, name: str, algos: str, root: str, k: int, path: str = "auto") -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=cache)
    env.setdefault("NUMBA_NUM_THREADS", "1")
    # run from the cache folder: ``python -c`` puts the working directory first on sys.path, and
    # from a checkout's top folder that would import the checkout instead of ``tree``
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD + f"\nassert silkvision_file.startswith({str(tree)!r})",
            name,
            algos,
            root,
            str(k),
            path,
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=cache,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--other", required=True, help="the other checkout (its top folder)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--orderings", type=int, default=3, help="timed passes per learner and process")
    ap.add_argument("--data-root", default=str(HERE.parent / "shared" / "data" / "online"))
    ap.add_argument(
        "--sets",
        default="spambase:pa1,duol,perceptron;w7a:pa1,duol",
        help="DATASET:ALGO,ALGO;... (default: %(default)s); DATASET is a name under the data "
        "root, or 'year' / 'offset' (synthetic sets with large norms, where the RBF "
        "cancellation check recomputes many kernel values)",
    )
    ap.add_argument(
        "--this-row-major",
        action="store_true",
        help="run this tree's learners on the row-major path (all inputs)",
    )
    args = ap.parse_args(argv)
    plan = [tuple(s.split(":")) for s in args.sets.split(";")]
    times = {}
    with tempfile.TemporaryDirectory() as c_other, tempfile.TemporaryDirectory() as c_this:
        for r in range(args.rounds):
            for side, tree, cache in (("other", Path(args.other), c_other), ("this", HERE, c_this)):
                for name, algos in plan:
                    path = "row" if side == "this" and args.this_row_major else "auto"
                    for a, t in run_side(
                        tree, cache, name, algos, args.data_root, args.orderings, path
                    ).items():
                        times.setdefault((name, a), {}).setdefault(side, []).append(t)
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print("| data set | learner | other (s/run) | this tree (s/run) | ratio |\n|---|---|---|---|---|")
    for (name, a), v in times.items():
        o, t = statistics.median(v["other"]), statistics.median(v["this"])
        print(f"| {name} | {a} | {o:.4f} | {t:.4f} | {t / o:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
