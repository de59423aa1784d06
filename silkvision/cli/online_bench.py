"""``silkvision online-bench``: the online-learning protocol of the DUOL/LIBOL papers on one data set.

Examples::

    silkvision online-bench --dataset german --algorithms duol,pa1,perceptron
    silkvision online-bench --dataset ../data/train.libsvm --algorithms duol --runs 5 --json
    silkvision online-bench --dataset dna --algorithms mduol --set C=10 --set mduol.rho=0.1

Defaults are the JMLR 2011 settings: Gaussian kernel with sigma = 8 (exp(-|x-y|^2 / (2 * 8^2))),
C = 5, rho = 0 for binary data; C = 10 for multiclass data. The table goes to stdout (or, with
``--json``, exactly one JSON object); progress goes to stderr, one line per run.

Ctrl-C stops the benchmark: the table (or the JSON object, with ``"partial": true``, ``"runs_done"``
per learner and ``"not_run"``) of the runs that finished is printed to stdout, then
``silkvision: interrupted`` to stderr, exit status 130; when no run had finished, the results are
empty and every learner is in ``"not_run"``. A Ctrl-C that numba swallows while it compiles (it
arrives inside a compiler callback) still stops the benchmark after the run in progress. The
orderings are generated one per run, so a large ``--runs`` takes time, not memory.

``--set PARAM=VALUE`` reads VALUE as every command's ``--set`` does
(:func:`silkvision.config.loader.parse_value`): a decimal number (``10``, ``0.5``, ``1e-3``; ``010``
is 10), ``true``/``false``, ``null``/``None``, or else text; YAML 1.1's other number forms
(``0x10``, ``1_0``, ``1:30``) are refused rather than silently read as 16, 10 and 90.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from silkvision.errors import ConfigError, SilkvisionError, Terminated

NAME = "online-bench"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        NAME,
        help="mistake rate, model size and time of online classifiers (JMLR DUOL protocol)",
        description="Run online learners over a data set in the online protocol (predict each "
        "example, then learn it) for several orderings and report the mean mistake rate, "
        "number of support vectors and seconds per run. Defaults: Gaussian kernel sigma=8, "
        "C=5, rho=0 (binary) or C=10 (multiclass), as in Zhao, Hoi & Jin (JMLR 2011).",
        epilog='Ctrl-C prints the table (with --json: the JSON object, with "partial": true and '
        '"runs_done" per learner) of the runs that finished, then exits with status 130.',
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the learner names with one-line descriptions, and the named data sets",
    )
    p.add_argument(
        "--dataset",
        metavar="NAME|PATH",
        help="a data-set name under the online-data root (e.g. german, spambase, dna) or a "
        "file (.mat, LIBSVM, CSV, ARFF; a CSV's label is its header column y/label/class/"
        "target, else the first column: see --label-column)",
    )
    p.add_argument("--algorithms", "-a", metavar="A,B,...", help="comma-separated learner names (see --list)")
    p.add_argument(
        "--runs",
        type=int,
        default=20,
        help="number of orderings (default 20; the stored ones first, then seeded random "
        "ones, generated one per run)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the random orderings, an integer >= 0 (default 0)"
    )
    p.add_argument(
        "--set",
        metavar="PARAM=VALUE",
        action="append",
        default=[],
        dest="params",
        help="learner parameter, for all learners that take it (C=10) or one (duol.rho=0.1); repeatable",
    )
    p.add_argument(
        "--data-root",
        metavar="DIR",
        default=None,
        help="folder of named data sets (default $SILKVISION_ONLINE_DATA or ../shared/data/online)",
    )
    p.add_argument(
        "--label-column",
        metavar="INDEX",
        type=int,
        default=None,
        help="0-based column of the label in a CSV or ARFF file; -1 = the last (default: "
        "CSV: the header column named y/label/class/target, else the first; ARFF: the "
        "last attribute). An error for LIBSVM and .mat files, whose label is always first",
    )
    p.add_argument(
        "--header",
        choices=("auto", "yes", "no"),
        default="auto",
        help="whether a CSV file's first line is a header (default auto: detected from its "
        "cells; an error for other formats when not auto)",
    )
    p.add_argument(
        "--format",
        choices=("mat", "libsvm", "csv", "arff"),
        default=None,
        dest="fmt",
        help="read the file as this format (default: from its suffix, else from its content)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def _scalar(key: str, text: str):
    """One ``--set`` value, read as every command's ``--set`` reads it
    (:func:`silkvision.config.loader.parse_value`); ``None`` is null too, and a list or mapping is
    refused (no learner parameter takes one)."""
    from silkvision.config.loader import parse_value

    t = text.strip()
    if not t:
        return text
    if t in ("None", "none"):
        return None
    v = parse_value(t, key)
    if isinstance(v, (list, dict)):
        raise ConfigError(
            f"--set {key}: expected a number, true/false, null or a name, got a YAML "
            f"{'list' if isinstance(v, list) else 'mapping'}"
        )
    return v


def _parse_params(items: list[str]) -> dict:
    out = {}
    for it in items:
        key, sep, val = it.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"--set {it!r}: expected PARAM=VALUE, e.g. C=10 or duol.rho=0.1")
        out[key] = _scalar(key, val)
    return out


def format_table(res: dict) -> str:
    """The results as a fixed-width text table (a partial result ends with a line saying so)."""
    w = max([14] + [len(a) for a in res["results"]])
    lines = [
        f"dataset {res['dataset']}: {res['n_samples']} examples, {res['n_features']} features, "
        f"{res['n_classes']} classes; {res['runs']} run{'s' if res['runs'] != 1 else ''}, orderings: "
        f"{res['orderings']}",
        f"{'algorithm':<{w}} {'mistakes (%)':>20} {'support vectors (#)':>22} {'time (s)':>10}",
    ]
    active = any("n_queried_mean" in r for r in res["results"].values())
    if active:
        lines[-1] += f" {'labels queried':>15}"
    for a, r in res["results"].items():
        ms, ss = r["mistake_rate_std"], r["n_support_std"]  # None after one run: no spread
        line = (
            f"{a:<{w}} {r['mistake_rate_mean']:>10.3f} +- {'n/a' if ms is None else f'{ms:.3f}':<6} "
            f"{r['n_support_mean']:>12.2f} +- {'n/a' if ss is None else f'{ss:.2f}':<7} "
            f"{r['seconds_mean']:>10.3f}"
        )
        if active:
            q = r.get("n_queried_mean")
            line += f" {q:>15.1f}" if q is not None else f" {'(all)':>15}"
        lines.append(line)
    if res.get("partial"):
        done = [f"{a} {r.get('runs_done', '?')} of {res['runs']} runs" for a, r in res["results"].items()]
        done += [f"{a} none" for a in res.get("not_run", [])]
        lines.append("interrupted, partial results: " + ", ".join(done))
    return "\n".join(lines)


def run(args) -> int:
    from silkvision.backends import available, bench, datasets

    if args.list:
        from silkvision.backends.base import BinaryClassifier, MultiClassifier
        from silkvision.backends.registry import get_class

        learners = available()
        classifiers = {
            n: t for n, t in learners.items() if issubclass(get_class(n), (BinaryClassifier, MultiClassifier))
        }
        novelty = {n: t for n, t in learners.items() if n not in classifiers}
        names = datasets.available_names(args.data_root)  # empty when the data root is absent
        root = args.data_root if args.data_root is not None else datasets.default_root()
        root = None if root is None else str(root)
        if args.json:
            _write(
                json.dumps(
                    {
                        "learners": classifiers,
                        "novelty_detectors": novelty,
                        "datasets": names,
                        "data_root": root,
                    }
                )
                + "\n"
            )
            return 0
        lines = [f"{n:<22} {t}" for n, t in classifiers.items()]
        if novelty:
            lines.append(
                "\nnovelty detectors (Python API only; online-bench runs classifiers): " + ", ".join(novelty)
            )
        where = "there is no data root" if root is None else f"{root} does not exist or holds none"
        lines.append(
            f"\ndata sets under {root}: " + ", ".join(names)
            if names
            else f"\nno named data sets: {where} (use --data-root DIR, or $SILKVISION_ONLINE_DATA; "
            f"--dataset also takes a file)"
        )
        _write("\n".join(lines) + "\n")
        return 0
    for opt in ("dataset", "algorithms"):
        if not getattr(args, opt):
            raise ConfigError(f"--{opt}: required (or use --list)")
    algos = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    if not algos:
        raise ConfigError("--algorithms: give at least one learner name")
    twice = sorted({a for a in algos if algos.count(a) > 1})
    if twice:  # results are keyed by name: a second run of a learner would replace the first
        raise ConfigError(f"--algorithms: {', '.join(twice)} given twice; name each learner once")
    if not 1 <= args.runs <= bench.MAX_RUNS:
        raise ConfigError(f"--runs: {args.runs} must be an integer 1..{bench.MAX_RUNS}")
    if args.seed < 0:
        raise ConfigError(f"--seed: {args.seed} must be an integer >= 0")
    overrides = _parse_params(args.params)
    ctrl_c = _CtrlC()
    try:
        with ctrl_c:
            return _run(args, algos, overrides, bench, datasets, ctrl_c)
    except bench.Interrupted as e:
        # the runs that finished; then main() reports Ctrl-C (130) or SIGTERM (143), as it does
        # for a signal anywhere else, also one that surfaces from numba as a SystemError
        if e.result is not None:
            try:
                _print_result(e.result, args.json)
            except (OSError, SilkvisionError):  # a closed pipe must not turn Ctrl-C into another status
                pass
        if ctrl_c.caught is Terminated:  # (a swallowed SIGTERM leaves no Terminated in the chain)
            raise Terminated() from e
        raise


class _CtrlC:
    """Ctrl-C (SIGINT) and SIGTERM raise as usual (KeyboardInterrupt, :class:`Terminated`) and are
    also remembered in :attr:`caught`: numba's compiler may catch the exception inside a callback
    and go on, so the benchmark checks :attr:`pressed` after every run, and takes an error raised
    after it as the interruption (the compiler may fail in its own way when interrupted). A
    swallowed signal's "Exception ignored" report is not printed. Installed only in the main thread,
    and a signal the process inherited as ignored (``cmd &`` ignores SIGINT) stays ignored."""

    def __init__(self):
        self.caught: type | None = None
        self._old: dict = {}
        self._old_hook = None

    @property
    def pressed(self) -> bool:
        return self.caught is not None

    def _handler(self, signum, frame):
        self.caught = Terminated if signum == signal.SIGTERM else KeyboardInterrupt
        raise self.caught()

    def _unraisable(self, u):
        if isinstance(u.exc_value, KeyboardInterrupt):  # (Terminated is one)
            self.caught = self.caught or type(u.exc_value)
            return
        self._old_hook(u)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(sig) is not signal.SIG_IGN:
                    self._old[sig] = signal.signal(sig, self._handler)
            self._old_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        return self

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, old)
        if self._old_hook is not None:
            sys.unraisablehook = self._old_hook
        return False


def _write(text: str) -> None:
    """Write to stdout; a full disk or closed file is one line (a closed pipe is main()'s)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise SilkvisionError(f"cannot write the results to stdout: {e.strerror or e}") from None


def _print_result(res: dict, as_json: bool) -> None:
    _write(json.dumps(res) + "\n" if as_json else format_table(res) + "\n")


def _run(args, algos, overrides, bench, datasets, ctrl_c) -> int:
    header = {"auto": "auto", "yes": True, "no": False}[args.header]
    ds = datasets.load(
        args.dataset, root=args.data_root, label_column=args.label_column, header=header, fmt=args.fmt
    )

    def progress(algo, i, total, r):
        if not args.quiet:
            print(
                f"[{algo}] run {i + 1}/{total}: mistakes {r.mistake_rate:.3f}%, "
                f"{r.n_support} SVs, {r.seconds:.3f} s",
                file=sys.stderr,
                flush=True,
            )
        if ctrl_c.pressed:  # a signal that the compiler swallowed: stop after this run
            raise ctrl_c.caught()

    if not args.quiet:
        print(f"{ds!r}", file=sys.stderr, flush=True)
    res = bench.benchmark(
        ds,
        algos,
        runs=args.runs,
        seed=args.seed,
        overrides=overrides,
        progress=progress,
        stop_requested=lambda: ctrl_c.pressed,
    )
    _print_result(res, args.json)
    for w in sigma_warnings(ds, res, overrides):
        print(f"silkvision: warning: {w}", file=sys.stderr, flush=True)
    return 0


#: pairs of examples the median distance of :func:`median_distance` is taken over (at most)
SIGMA_SAMPLE = 1000
#: a sigma within this factor of the median distance is not questioned
SIGMA_FACTOR = 2.0


def median_distance(X, sample: int = SIGMA_SAMPLE, seed: int = 0) -> float:
    """The median Euclidean distance between two examples of ``X`` (rows), over a seeded sample of
    at most ``sample`` rows: the usual starting point for an RBF kernel's width (the "median
    heuristic"), at which exp(-d^2 / (2 sigma^2)) is exp(-1/2) for a typical pair.

    Parameters
    ----------
    X : ndarray, shape (n, d)
    sample : int
        Rows drawn without replacement (all rows when there are fewer).
    seed : int

    Returns
    -------
    float
        0.0 when fewer than two rows.
    """
    import numpy as np

    X = np.asarray(X, dtype=np.float64)
    if len(X) < 2:
        return 0.0
    if len(X) > sample:
        X = X[np.random.default_rng(seed).choice(len(X), size=sample, replace=False)]
    X = X - X.mean(axis=0)  # the distances are the same; the sum below cancels less
    sq = np.einsum("ij,ij->i", X, X)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    iu = np.triu_indices(len(X), 1)
    return float(np.sqrt(max(np.median(d2[iu]), 0.0)))


def sigma_warnings(ds, res: dict, overrides: dict) -> list[str]:
    """One line per RBF width that looks wrong for the data: a learner with that sigma made at
    least as many mistakes as always predicting the most frequent class would, and sigma is more
    than :data:`SIGMA_FACTOR` times from :func:`median_distance` (the paper's sigma = 8 was chosen
    for its data sets; a standardised CSV with a few features has typical distances near 1-3, where
    every kernel value is close to 1). Suggests the median distance."""
    import numpy as np

    from silkvision.backends import bench

    counts = np.unique(ds.y, return_counts=True)[1]
    chance = 100.0 * (1.0 - counts.max() / counts.sum())  # mistakes of the majority guess
    by_sigma: dict = {}
    for a, r in res["results"].items():
        p = bench.resolve_params(a, not ds.is_binary, overrides, ds.n_classes)
        if (
            p.get("kernel") in ("rbf", "gaussian")
            and r.get("mistake_rate_mean") is not None
            and r["mistake_rate_mean"] >= chance
        ):
            by_sigma.setdefault(float(p["sigma"]), []).append(a)
    if not by_sigma:
        return []
    m = median_distance(ds.X)
    out = []
    for sigma, names in by_sigma.items():
        if m <= 0 or 1 / SIGMA_FACTOR <= sigma / m <= SIGMA_FACTOR:
            continue
        out.append(
            f"{', '.join(names)}: no fewer mistakes than always predicting the most frequent "
            f"class ({chance:.1f} %) with the RBF kernel's sigma = {sigma:g}, which is "
            f"{sigma / m:.3g} times the median distance between examples ({m:.3g}); try "
            f"--set sigma={m:.3g}"
        )
    return out
