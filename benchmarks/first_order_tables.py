"""Reproduce the first-order peers of the JMLR DUOL paper (Zhao, Hoi & Jin 2011), Tables 2 and 4.

Protocol of the paper (section 5.1 / 5.5), run by :mod:`silkvision.backends.bench` (the code of
``silkvision online-bench``): Gaussian kernel exp(-|x - y|^2 / (2 * 8^2)), C = 5 for the binary
tables (PA-I/PA-II), C = 10 for the multiclass ones, ALMA_2(0.9) (its own defaults), data as stored,
20 runs on the stored 1-based orderings of the ``*.hoi.mat`` files where there are some, otherwise
seeded random permutations (``bench.make_orderings``); online mistake rate = mistakes / n.
Multiclass learners are told the number of classes upfront (as the paper's code).

Optionally also runs our ILK/SILK/NORMA learners on the same protocol (``--extra``); the paper has
no numbers for them and their parameters are fixed a priori (not tuned on these data).

Usage::

    .venv/bin/python benchmarks/first_order_tables.py                 # both tables, 20 runs
    .venv/bin/python benchmarks/first_order_tables.py --table 2 --runs 5 --datasets german
    .venv/bin/python benchmarks/first_order_tables.py --extra --json out.json

Prints a markdown table (ours vs paper, "yes" when our mean lies within one paper standard deviation).
"""

from __future__ import annotations

import argparse
import json
import sys

import numba
import numpy as np

from silkvision.backends import bench, create, datasets

# paper values: mistake rate % (mean, std), support vectors (mean)
PAPER = {
    "sonar": {
        "perceptron": (38.125, 3.815, 79.30),
        "romma": (36.587, 2.976, 76.10),
        "aggromma": (34.928, 2.860, 130.05),
        "alma": (36.370, 3.572, 86.25),
        "pa1": (40.986, 2.837, 154.15),
        "pa2": (40.481, 3.023, 162.40),
    },
    "german": {
        "perceptron": (34.760, 0.947, 347.60),
        "romma": (34.725, 1.009, 347.25),
        "aggromma": (32.925, 1.184, 633.40),
        "alma": (33.480, 0.681, 394.75),
        "pa1": (33.010, 1.025, 721.10),
        "pa2": (32.630, 1.016, 749.50),
    },
    "spambase": {
        "perceptron": (24.987, 0.525, 1149.65),
        "romma": (23.953, 0.510, 1102.10),
        "aggromma": (21.242, 0.384, 2550.70),
        "alma": (23.579, 0.411, 1550.15),
        "pa1": (22.112, 0.374, 2861.50),
        "pa2": (21.907, 0.340, 3029.10),
    },
    "w7a": {
        "perceptron": (4.027, 0.095, 994.40),
        "romma": (4.158, 0.087, 1026.75),
        "aggromma": (3.500, 0.061, 2318.65),
        "alma": (3.518, 0.071, 1031.05),
        "pa1": (3.701, 0.057, 2839.60),
        "pa2": (3.571, 0.053, 3391.50),
    },
    "vehicle": {
        "perceptron_max": (64.882, 1.643, 548.90),
        "perceptron_uniform": (65.934, 1.554, 557.80),
        "perceptron_prop": (66.678, 1.757, 564.10),
        "mpa1": (67.086, 1.479, 781.70),
        "mpa2": (66.909, 1.475, 789.30),
    },
    "dna": {
        "perceptron_max": (20.460, 0.770, 409.20),
        "perceptron_uniform": (19.875, 0.427, 397.50),
        "perceptron_prop": (20.268, 0.555, 405.35),
        "mpa1": (15.503, 0.474, 1224.35),
        "mpa2": (15.398, 0.467, 1237.50),
    },
    "segment": {
        "perceptron_max": (41.342, 1.013, 955.00),
        "perceptron_uniform": (41.468, 0.550, 957.90),
        "perceptron_prop": (41.589, 0.714, 960.70),
        "mpa1": (39.775, 0.665, 1852.75),
        "mpa2": (39.842, 0.655, 1870.70),
    },
    "satimage": {
        "perceptron_max": (29.628, 0.561, 1314.00),
        "perceptron_uniform": (28.440, 0.398, 1261.30),
        "perceptron_prop": (28.878, 0.467, 1280.75),
        "mpa1": (27.377, 0.361, 2676.40),
        "mpa2": (27.258, 0.429, 2709.50),
    },
    "letter": {
        "perceptron_max": (71.562, 0.538, 10734.35),
        "perceptron_uniform": (71.973, 0.280, 10795.90),
        "perceptron_prop": (72.033, 0.273, 10804.95),
        "mpa1": (72.283, 0.338, 14708.55),
        "mpa2": (72.339, 0.380, 14735.55),
    },
}
FILES = {
    "sonar": "sonar/sonar.hoi.mat",
    "german": "german/german.hoi.mat",
    "spambase": "spambase/spambase.hoi.mat",
    "w7a": "w7a/w7a",
    "vehicle": "vehicle/vehicle.scale",
    "dna": "dna/dna.hoi.mat",
    "segment": "segment/segment.libol.mat",
    "satimage": "satimage/satimage.hoi.mat",
    "letter": "letter/letter.scale",
}
TABLES = {2: ["sonar", "german", "spambase", "w7a"], 4: ["vehicle", "dna", "segment", "satimage", "letter"]}
LABEL = {
    "perceptron": "Perceptron",
    "romma": "ROMMA",
    "aggromma": "agg-ROMMA",
    "alma": "ALMA_2(0.9)",
    "pa1": "PA-I",
    "pa2": "PA-II",
    "perceptron_max": "Max",
    "perceptron_uniform": "Uniform",
    "perceptron_prop": "Prop",
    "mpa1": "PA-I",
    "mpa2": "PA-II",
}
# our learners without a paper value, parameters fixed a priori (C of the table, mild decay)
EXTRA_BINARY = {
    "ilk": dict(C=5.0, tau=1e-3),
    "silk": dict(C=5.0, tau=1e-3, omega=200),
    "norma": dict(eta=0.5, lam=1e-3, rho=1.0),
    "tnorma": dict(eta=0.5, lam=1e-3, rho=1.0, omega=200),
}
EXTRA_MULTI = {"silk_multi": dict(C=10.0, tau=1e-3, omega=None)}


def run(dataset: str, names: list[str], runs: int, log=sys.stderr) -> list[dict]:
    """The paper's protocol through :mod:`silkvision.backends.bench` (the code behind
    ``silkvision online-bench``): stored orderings where the file has them, else seeded ones."""
    d = datasets.load(FILES[dataset])
    multi = d.n_classes > 2
    orders, how = bench.make_orderings(d, min(runs, len(d.orderings)) if d.orderings is not None else runs)
    rows = []
    for name in names:
        kw = bench.resolve_params(name, multi, None, d.n_classes)
        kw.update((EXTRA_MULTI if multi else EXTRA_BINARY).get(name, {}))
        res = bench.run_protocol(create(name, **kw), d.X, d.y, orders)
        err = np.array([r.mistake_rate for r in res])
        sv = np.array([r.n_support for r in res], dtype=float)
        paper = PAPER.get(dataset, {}).get(name)
        row = {
            "dataset": dataset,
            "algorithm": name,
            "params": kw,
            "runs": len(res),
            "n": len(d.y),
            "ordering": how,
            "mistake_mean": float(err.mean()),
            "mistake_std": float(err.std(ddof=1)) if len(res) > 1 else 0.0,
            "sv_mean": float(sv.mean()),
            "seconds_per_run": float(np.median([r.seconds for r in res])),
        }
        if paper:
            row.update(
                paper_mean=paper[0],
                paper_std=paper[1],
                paper_sv=paper[2],
                within_1std=bool(abs(row["mistake_mean"] - paper[0]) <= paper[1]),
            )
        print(
            f"{dataset:9s} {name:18s} {row['mistake_mean']:7.3f} ± {row['mistake_std']:.3f}  "
            f"SV {row['sv_mean']:9.2f}  {row['seconds_per_run']:.3f} s/run"
            + (f"   paper {paper[0]:.3f} ± {paper[1]:.3f}, SV {paper[2]}" if paper else ""),
            file=log,
            flush=True,
        )
        rows.append(row)
    return rows


def markdown(rows: list[dict]) -> str:
    out = [
        "| data set | algorithm | ours: mistakes % (20 runs) | ours: #SV | s/run | paper: mistakes % | paper: #SV "
        "| within 1 std |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        label = LABEL.get(r["algorithm"], r["algorithm"])
        runs = "" if r["runs"] == 20 else f" ({r['runs']} runs)"
        ours = f"{r['mistake_mean']:.3f} ± {r['mistake_std']:.3f}{runs}"
        if "paper_mean" in r:
            paper = f"{r['paper_mean']:.3f} ± {r['paper_std']:.3f}"
            ok = "yes" if r["within_1std"] else "**no**"
            psv = f"{r['paper_sv']:.2f}"
        else:
            paper, ok, psv = "-", "-", "-"
        out.append(
            f"| {r['dataset']} | {label} | {ours} | {r['sv_mean']:.2f} | {r['seconds_per_run']:.3f} | "
            f"{paper} | {psv} | {ok} |"
        )
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", choices=["2", "4", "all"], default="all")
    ap.add_argument("--runs", type=int, default=20, help="runs (orderings) per data set (default 20)")
    ap.add_argument(
        "--large-runs", type=int, default=None, help="runs for the large sets (w7a, letter); default: --runs"
    )
    ap.add_argument("--datasets", nargs="*", help="subset of the data sets")
    ap.add_argument("--algos", nargs="*", help="subset of the algorithms")
    ap.add_argument("--extra", action="store_true", help="also run ILK/SILK/NORMA (no paper values)")
    ap.add_argument("--threads", type=int, default=1, help="numba threads (default 1; the loops are serial)")
    ap.add_argument("--json", help="write the rows to this JSON file")
    a = ap.parse_args(argv)
    numba.set_num_threads(a.threads)
    tables = [2, 4] if a.table == "all" else [int(a.table)]
    rows = []
    for tb in tables:
        for ds in TABLES[tb]:
            if a.datasets and ds not in a.datasets:
                continue
            names = list(next(iter([PAPER[ds]])))
            if a.extra:
                names += list(EXTRA_BINARY if tb == 2 else EXTRA_MULTI)
            if a.algos:
                names = [n for n in names if n in a.algos]
            runs = a.large_runs if (a.large_runs and ds in ("w7a", "letter")) else a.runs
            rows += run(ds, names, runs)
    print(markdown(rows))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
