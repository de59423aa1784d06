"""The online-learning protocol of the DUOL/LIBOL papers, for any registered learner.

For each run (one ordering of the data set): a fresh clone of the learner, one pass of
``progressive_predict`` over the permuted stream (predict each example, then learn it), and the
*mistake rate* (percentage of wrong predictions), the model size (``n_support_``) and the wall time
of that pass. Orderings come from the data file (the papers' 20 stored permutations) when present,
otherwise from a seeded random generator.

>>> from silkvision.backends import bench, datasets        # doctest: +SKIP
>>> ds = datasets.load("german")                            # doctest: +SKIP
>>> res = bench.benchmark(ds, ["duol", "pa1"], runs=20)     # doctest: +SKIP
>>> res["results"]["duol"]["mistake_rate_mean"]             # doctest: +SKIP
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from silkvision.backends.base import BinaryClassifier, MultiClassifier
from silkvision.backends.datasets import Dataset
from silkvision.backends.registry import available, get_class
from silkvision.errors import ConfigError, DataError

__all__ = ["JMLR_BINARY", "JMLR_MULTICLASS", "RunResult", "AlgorithmResult", "make_orderings",
           "resolve_params", "run_protocol", "benchmark"]

#: Settings of the JMLR 2011 experiments (section 5.1): Gaussian kernel sigma = 8, C = 5, rho = 0.
JMLR_BINARY = {"kernel": "rbf", "sigma": 8.0, "C": 5.0, "rho": 0.0}
#: Multiclass experiments (section 5.5): sigma = 8, C = 10, rho = 0.
JMLR_MULTICLASS = {"kernel": "rbf", "sigma": 8.0, "C": 10.0, "rho": 0.0}


@dataclass
class RunResult:
    """One pass over one ordering."""

    mistake_rate: float  # percent
    n_support: int
    seconds: float
    mistakes: int
    n_queried: int | None = None  # labels used by an active learner (OnlineASVM^R), else None


@dataclass
class AlgorithmResult:
    """All runs of one learner."""

    algorithm: str
    params: dict
    runs: list = field(default_factory=list)

    def summary(self) -> dict:
        m = np.array([r.mistake_rate for r in self.runs])
        s = np.array([r.n_support for r in self.runs], dtype=np.float64)
        t = np.array([r.seconds for r in self.runs])
        ddof = 1 if len(self.runs) > 1 else 0  # MATLAB's std, as in the papers' tables
        out = {
            "mistake_rate_mean": float(m.mean()),
            "mistake_rate_std": float(m.std(ddof=ddof)),
            "n_support_mean": float(s.mean()),
            "n_support_std": float(s.std(ddof=ddof)),
            "seconds_mean": float(t.mean()),
            "params": {k: v for k, v in self.params.items()},
        }
        q = [r.n_queried for r in self.runs]
        if q and all(v is not None for v in q):
            out["n_queried_mean"] = float(np.mean(q))
        return out


def make_orderings(dataset: Dataset, runs: int, seed: int = 0) -> tuple[np.ndarray, str]:
    """``runs`` orderings of the examples and a description of where they come from.

    The stored orderings are used first; any further runs (or all of them when the file has none)
    are seeded random permutations (``numpy.random.default_rng(seed)``).
    """
    if int(runs) != runs or runs < 1:
        raise ValueError(f"runs: {runs!r} must be an integer >= 1")
    n = dataset.n_samples
    stored = dataset.orderings if dataset.orderings is not None else np.empty((0, n), dtype=np.int64)
    take = min(runs, len(stored))
    rest = runs - take
    parts = [stored[:take]]
    if rest:
        rng = np.random.default_rng(seed)
        parts.append(np.array([rng.permutation(n) for _ in range(rest)], dtype=np.int64).reshape(rest, n))
    orders = np.concatenate(parts).astype(np.int64)
    if take and rest:
        how = f"stored ({take}) + random permutations ({rest}, seed {seed})"
    elif take:
        how = f"stored ({take} of {len(stored)})"
    else:
        how = f"random permutations (seed {seed}; the data file stores none)"
    return orders, how


#: Learners whose ``C`` (and, for the DUOL family, ``rho``) mean what they mean in the JMLR paper:
#: the weight bound of PA-I / DUOL. Other learners' ``C`` is a different constant (ALMA's, ILK's, the
#: SVM's), so the paper's C = 5 / 10 is not passed to them; they keep their own defaults.
PAPER_C = {"pa", "pa1", "pa2", "mpa1", "mpa2", "duol", "duol_appr", "duol_iter", "duol_rand", "mduol",
           "mduol_appr", "mduol_iter"}


def _accepted(cls) -> set:
    return {k for k in inspect.signature(cls.__init__).parameters if k != "self"}


def resolve_params(name: str, multiclass: bool, overrides: dict | None = None,
                   n_classes: int | None = None) -> dict:
    """The parameters a learner gets in a benchmark: the JMLR settings it accepts, then overrides.

    The kernel settings go to every learner that takes them; ``C`` and ``rho`` only to the learners
    of :data:`PAPER_C`.

    ``overrides`` maps ``param`` (applied to every learner that accepts it) or ``algorithm.param``
    (that learner only) to a value.
    """
    cls = get_class(name)
    acc = _accepted(cls)
    base = JMLR_MULTICLASS if multiclass else JMLR_BINARY
    params = {k: v for k, v in base.items() if k in acc and (k not in ("C", "rho") or name in PAPER_C)}
    if n_classes is not None and "n_classes" in acc:  # classes known upfront (binary data: 0/1)
        params["n_classes"] = int(n_classes)
    for key, val in (overrides or {}).items():
        algo, _, p = key.rpartition(".")
        if algo and algo != name:
            continue
        if p in acc:
            params[p] = val
        elif algo:
            raise ConfigError(f"--set {key}: {name} has no parameter {p!r}; it takes {', '.join(sorted(acc))}")
    return params


def run_protocol(estimator, X: np.ndarray, y: np.ndarray, orders: Iterable[np.ndarray],
                 progress: Callable[[int, RunResult], None] | None = None, warmup: bool = True) -> list:
    """The online protocol: for each ordering a fresh clone and one ``progressive_predict`` pass.

    ``warmup`` first runs a throw-away clone on a few examples so that the numba compilation (or
    cache load) is not timed.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    if warmup and len(X):
        est = estimator.clone()
        est.progressive_predict(X[:min(len(X), 8)], y[:min(len(X), 8)])
    out = []
    for i, o in enumerate(orders):
        est = estimator.clone()
        Xo = np.ascontiguousarray(X[o])
        yo = y[o]
        t0 = time.perf_counter()
        pred = est.progressive_predict(Xo, yo)
        dt = time.perf_counter() - t0
        wrong = int(np.count_nonzero(np.asarray(pred) != yo))
        q = getattr(est, "n_queried_", None)
        r = RunResult(100.0 * wrong / max(len(yo), 1), int(est.n_support_), dt, wrong,
                      None if q is None else int(q))
        out.append(r)
        if progress is not None:
            progress(i, r)
    return out


def benchmark(dataset: Dataset, algorithms: Iterable[str], runs: int = 20, seed: int = 0,
              overrides: dict | None = None,
              progress: Callable[[str, int, int, RunResult], None] | None = None) -> dict:
    """Run the online protocol for several learners on one data set.

    Returns
    -------
    dict
        ``{"dataset", "runs", "orderings", "n_samples", "n_features", "n_classes",
        "results": {algorithm: {"mistake_rate_mean", "mistake_rate_std", "n_support_mean",
        "n_support_std", "seconds_mean", "params"}}}`` (rates in percent); active learners
        (OnlineASVM^R, Algorithm 3) add ``"n_queried_mean"``, the labels they used per run.

    Raises
    ------
    ConfigError
        Unknown learner, a parameter it rejects, or a binary learner on multiclass data.
    """
    algorithms = list(algorithms)
    if not dataset.n_samples:
        raise DataError(f"{dataset.path or dataset.name}: no examples")
    names = available()
    for a in algorithms:
        if a not in names:
            raise ConfigError(f"algorithm {a!r} is unknown; available: {', '.join(names)}")
    multiclass = not dataset.is_binary
    for key in overrides or {}:
        algo, _, p = key.rpartition(".")
        if algo and algo not in algorithms:
            raise ConfigError(f"--set {key}: {algo!r} is not among the algorithms run ({', '.join(algorithms)})")
        if not algo and not any(p in _accepted(get_class(a)) for a in algorithms):
            raise ConfigError(f"--set {key}: no algorithm among {', '.join(algorithms)} takes a parameter {p!r}")
    orders, how = make_orderings(dataset, runs, seed)
    results = {}
    for a in algorithms:
        cls = get_class(a)
        if multiclass and not issubclass(cls, MultiClassifier):
            raise ConfigError(f"algorithm {a!r} is a binary classifier but {dataset.name} has "
                              f"{dataset.n_classes} classes")
        if not multiclass and not issubclass(cls, (BinaryClassifier, MultiClassifier)):
            raise ConfigError(f"algorithm {a!r} is not a classifier")
        params = resolve_params(a, multiclass, overrides, dataset.n_classes)
        try:
            est = cls(**params)
        except ValueError as e:
            raise ConfigError(f"{a}: {e}") from None
        y = dataset.y
        if not multiclass and issubclass(cls, MultiClassifier):
            y = ((dataset.y + 1) // 2).astype(np.int64)  # -1/+1 -> 0/1
        res = AlgorithmResult(a, params)
        cb = None if progress is None else (lambda i, r, a=a: progress(a, i, len(orders), r))
        res.runs = run_protocol(est, dataset.X, y, orders, cb)
        results[a] = res.summary()
    return {"dataset": dataset.name, "runs": int(runs), "orderings": how, "n_samples": dataset.n_samples,
            "n_features": dataset.n_features, "n_classes": dataset.n_classes, "results": results}
