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
import operator
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from silkvision.backends._support import check_seed
from silkvision.backends.base import BinaryClassifier, MultiClassifier
from silkvision.backends.datasets import Dataset
from silkvision.backends.registry import available, get_class
from silkvision.errors import ConfigError, DataError, signal_behind

__all__ = [
    "JMLR_BINARY",
    "JMLR_MULTICLASS",
    "RunResult",
    "AlgorithmResult",
    "Orderings",
    "Interrupted",
    "is_interrupt",
    "make_orderings",
    "resolve_params",
    "run_protocol",
    "benchmark",
]

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
        # MATLAB's std (n - 1), as in the papers' tables; undefined (None, JSON null) for one run
        several = len(self.runs) > 1
        out = {
            "mistake_rate_mean": float(m.mean()),
            "mistake_rate_std": float(m.std(ddof=1)) if several else None,
            "n_support_mean": float(s.mean()),
            "n_support_std": float(s.std(ddof=1)) if several else None,
            "seconds_mean": float(t.mean()),
            "params": {k: v for k, v in self.params.items()},
        }
        q = [r.n_queried for r in self.runs]
        if q and all(v is not None for v in q):
            out["n_queried_mean"] = float(np.mean(q))
        return out


class Orderings(Sequence):
    """The orderings of a benchmark, generated lazily: the stored ones, then seeded permutations.

    Iterating yields one ``int64`` permutation of ``0..n-1`` at a time, so memory does not grow with
    ``runs``; each iteration starts a fresh ``numpy.random.default_rng(seed)`` and draws one
    ``rng.permutation(n)`` per random run, so every pass (one per learner) sees the same orderings,
    the same ones as ``[rng.permutation(n) for _ in range(runs - stored)]``. Indexing and slicing
    work too (``orders[0]``, ``orders[:2]``; a random row costs drawing the permutations before it),
    and ``numpy.asarray(orders)`` builds the whole ``runs x n`` array.
    """

    def __init__(self, stored: np.ndarray | None, n: int, runs: int, seed: int = 0):
        self._stored = (
            np.empty((0, n), dtype=np.int64) if stored is None else np.asarray(stored, dtype=np.int64)
        )
        self.n = int(n)
        self.runs = int(runs)
        self.seed = int(seed)
        self.n_stored = min(self.runs, len(self._stored))

    @property
    def n_random(self) -> int:
        return self.runs - self.n_stored

    @property
    def shape(self) -> tuple[int, int]:
        return (self.runs, self.n)

    def __len__(self) -> int:
        return self.runs

    def __iter__(self):
        for i in range(self.n_stored):
            yield self._stored[i]
        if self.n_random:
            rng = np.random.default_rng(self.seed)
            for _ in range(self.n_random):
                yield rng.permutation(self.n).astype(np.int64, copy=False)

    def __getitem__(self, index):
        if isinstance(index, slice):
            idx = range(self.runs)[index]
            if not len(idx):
                return np.empty((0, self.n), dtype=np.int64)
            want, last = set(idx), max(idx)
            rows = {}
            for i, o in enumerate(self):
                if i in want:
                    rows[i] = o
                if i >= last:
                    break
            return np.array([rows[i] for i in idx], dtype=np.int64).reshape(len(idx), self.n)
        i = operator.index(index)
        if i < 0:
            i += self.runs
        if not 0 <= i < self.runs:
            raise IndexError(f"ordering {index} out of range for {self.runs} runs")
        for k, o in enumerate(self):
            if k == i:
                return o
        raise AssertionError("unreachable")  # pragma: no cover

    def __array__(self, dtype=None, copy=None):
        a = self[:]
        return a if dtype is None else a.astype(dtype)

    def __repr__(self) -> str:
        return f"Orderings(runs={self.runs}, n={self.n}, stored={self.n_stored}, seed={self.seed})"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_protocol` or :func:`benchmark`, carrying what had finished.

    It is a :class:`KeyboardInterrupt`, so callers that do not know it still stop as usual.
    ``runs``: the :class:`RunResult` of the finished runs of the learner that was running;
    ``result`` (from :func:`benchmark`): the result dict of everything that finished, with
    ``"partial": True`` (with empty ``"results"`` when no run had finished; None from
    :func:`run_protocol`).
    """

    def __init__(self, runs: list | None = None, result: dict | None = None):
        super().__init__("interrupted")
        self.runs = list(runs or [])
        self.result = result


def is_interrupt(exc: BaseException, stop_requested: Callable[[], bool] | None = None) -> bool:
    """Whether ``exc`` is Ctrl-C or SIGTERM, also when it surfaces from a numba-compiled call as a
    SystemError (:func:`silkvision.errors.signal_behind`). Other SystemErrors are not.

    With ``stop_requested`` (a caller's "was Ctrl-C pressed?"), any ``Exception`` raised after it
    returns True counts too: a Ctrl-C inside numba's compiler can surface as an unrelated error
    (``RuntimeError: no compiled object yet for <Library ...>``)."""
    if signal_behind(exc) is not None:
        return True
    return stop_requested is not None and isinstance(exc, Exception) and bool(stop_requested())


#: Most orderings one benchmark runs (a million passes over even a tiny data set take hours).
MAX_RUNS = 1_000_000


def make_orderings(dataset: Dataset, runs: int, seed: int = 0) -> tuple[Orderings, str]:
    """``runs`` orderings of the examples and a description of where they come from.

    The stored orderings are used first; any further runs (or all of them when the file has none)
    are seeded random permutations (``numpy.random.default_rng(seed)``, one ``permutation(n)`` per
    run). The orderings are an :class:`Orderings` sequence, generated one at a time as they are
    used, so a large ``runs`` costs time, not memory.
    """
    if isinstance(runs, (bool, np.bool_)) or int(runs) != runs or not 1 <= runs <= MAX_RUNS:
        raise ValueError(f"runs: {runs!r} must be an integer 1..{MAX_RUNS}")
    seed = check_seed(seed)
    orders = Orderings(dataset.orderings, dataset.n_samples, int(runs), seed)
    take, rest = orders.n_stored, orders.n_random
    if take and rest:
        how = f"stored ({take}) + random permutations ({rest}, seed {seed})"
    elif take:
        n_stored = 0 if dataset.orderings is None else len(dataset.orderings)
        how = f"stored ({take} of {n_stored})"
    else:
        how = f"random permutations (seed {seed}; the data file stores none)"
    return orders, how


#: Learners whose ``C`` (and, for the DUOL family, ``rho``) mean what they mean in the JMLR paper:
#: the weight bound of PA-I / DUOL. Other learners' ``C`` is a different constant (ALMA's, ILK's, the
#: SVM's), so the paper's C = 5 / 10 is not passed to them; they keep their own defaults.
PAPER_C = {
    "pa",
    "pa1",
    "pa2",
    "mpa1",
    "mpa2",
    "duol",
    "duol_appr",
    "duol_iter",
    "duol_rand",
    "mduol",
    "mduol_appr",
    "mduol_iter",
}


def _accepted(cls) -> set:
    return {k for k in inspect.signature(cls.__init__).parameters if k != "self"}


def resolve_params(
    name: str, multiclass: bool, overrides: dict | None = None, n_classes: int | None = None
) -> dict:
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
            raise ConfigError(
                f"--set {key}: {name} has no parameter {p!r}; it takes {', '.join(sorted(acc))}"
            )
    return params


def run_protocol(
    estimator,
    X: np.ndarray,
    y: np.ndarray,
    orders: Iterable[np.ndarray],
    progress: Callable[[int, RunResult], None] | None = None,
    warmup: bool = True,
    stop_requested: Callable[[], bool] | None = None,
) -> list:
    """The online protocol: for each ordering a fresh clone and one ``progressive_predict`` pass.

    ``warmup`` first runs a throw-away clone on a few examples so that the numba compilation (or
    cache load) is not timed. ``orders`` is consumed one ordering at a time (a lazy
    :class:`Orderings` is never materialised). ``stop_requested``: see :func:`is_interrupt`.

    Raises
    ------
    Interrupted
        On Ctrl-C (also when it surfaces from a numba call as a SystemError); its ``runs`` are the
        runs that had finished.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = []
    try:
        if warmup and len(X):
            est = estimator.clone()
            est.progressive_predict(X[: min(len(X), 8)], y[: min(len(X), 8)])
        for i, o in enumerate(orders):
            est = estimator.clone()
            Xo = np.ascontiguousarray(X[o])
            yo = y[o]
            t0 = time.perf_counter()
            pred = est.progressive_predict(Xo, yo)
            dt = time.perf_counter() - t0
            wrong = int(np.count_nonzero(np.asarray(pred) != yo))
            q = getattr(est, "n_queried_", None)
            r = RunResult(
                100.0 * wrong / max(len(yo), 1), int(est.n_support_), dt, wrong, None if q is None else int(q)
            )
            out.append(r)
            if progress is not None:
                progress(i, r)
    except Interrupted as e:
        if not e.runs:
            e.runs = list(out)
        raise
    except BaseException as e:
        if is_interrupt(e, stop_requested):
            raise Interrupted(out) from e
        raise
    return out


def _bool_override_error(key: str, val, algorithms: list) -> str | None:
    """The message for ``--set key=<boolean>`` when a learner's parameter is not a boolean one.

    YAML reads ``true``/``yes``/``on`` as True, and ``C=True`` would silently mean C = 1."""
    if not isinstance(val, (bool, np.bool_)):
        return None
    algo, _, p = key.rpartition(".")
    for a in algorithms:
        if algo and algo != a:
            continue
        par = inspect.signature(get_class(a).__init__).parameters.get(p)
        if par is None or isinstance(par.default, bool):
            continue
        d = par.default
        want = (
            "a string"
            if isinstance(d, str)
            else "a number"
            if isinstance(d, (int, float)) or d is None
            else f"a {type(d).__name__}"
        )
        return (
            f"--set {key}: the value is a boolean ({str(bool(val)).lower()}; YAML reads "
            f"true/false/yes/no/on/off as booleans), but {a}'s {p} takes {want}"
        )
    return None


def benchmark(
    dataset: Dataset,
    algorithms: Iterable[str],
    runs: int = 20,
    seed: int = 0,
    overrides: dict | None = None,
    progress: Callable[[str, int, int, RunResult], None] | None = None,
    stop_requested: Callable[[], bool] | None = None,
) -> dict:
    """Run the online protocol for several learners on one data set.

    Every learner and parameter is checked before the first run. The orderings are generated
    lazily (:class:`Orderings`), one per run. ``stop_requested``: see :func:`is_interrupt`.

    Returns
    -------
    dict
        ``{"dataset", "runs", "orderings", "n_samples", "n_features", "n_classes",
        "results": {algorithm: {"mistake_rate_mean", "mistake_rate_std", "n_support_mean",
        "n_support_std", "seconds_mean", "params"}}}`` (rates in percent; the standard deviations
        are None after a single run); active learners
        (OnlineASVM^R, Algorithm 3) add ``"n_queried_mean"``, the labels they used per run.

    Raises
    ------
    ConfigError
        Unknown learner, a parameter it rejects (or a boolean for a numeric one), a binary learner
        on multiclass data, or a bad ``runs``/``seed``.
    Interrupted
        On Ctrl-C. Its ``result`` is the dict above for the runs that finished, with ``"partial":
        True``, ``"runs_done"`` in each learner's entry (only learners with at least one finished
        run are in ``"results"``, which is empty when no run had finished) and ``"not_run"``, the
        learners that had not finished a run.
    """
    algorithms = list(algorithms)
    if not dataset.n_samples:
        raise DataError(f"{dataset.path or dataset.name}: no examples")
    names = available()
    for a in algorithms:
        if a not in names:
            raise ConfigError(f"algorithm {a!r} is unknown; available: {', '.join(names)}")
    multiclass = not dataset.is_binary
    for key, val in (overrides or {}).items():
        algo, _, p = key.rpartition(".")
        if algo and algo not in algorithms:
            raise ConfigError(
                f"--set {key}: {algo!r} is not among the algorithms run ({', '.join(algorithms)})"
            )
        if not algo and not any(p in _accepted(get_class(a)) for a in algorithms):
            raise ConfigError(
                f"--set {key}: no algorithm among {', '.join(algorithms)} takes a parameter {p!r}"
            )
        msg = _bool_override_error(key, val, algorithms)
        if msg:
            raise ConfigError(msg)
    try:
        orders, how = make_orderings(dataset, runs, seed)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    plan = []  # every learner is built (and its parameters checked) before the first run
    for a in algorithms:
        cls = get_class(a)
        if multiclass and not issubclass(cls, MultiClassifier):
            raise ConfigError(
                f"algorithm {a!r} is a binary classifier but {dataset.name} has {dataset.n_classes} classes"
            )
        if not multiclass and not issubclass(cls, (BinaryClassifier, MultiClassifier)):
            raise ConfigError(f"algorithm {a!r} is not a classifier")
        params = resolve_params(a, multiclass, overrides, dataset.n_classes)
        k = params.get("n_classes")
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 < k < dataset.n_classes:
            raise ConfigError(
                f"{a}: n_classes={k} is fewer than the {dataset.n_classes} classes of {dataset.name}"
            )
        try:
            est = cls(**params)
        except ValueError as e:
            raise ConfigError(f"{a}: {e}") from None
        y = dataset.y
        if not multiclass and issubclass(cls, MultiClassifier):
            y = ((dataset.y + 1) // 2).astype(np.int64)  # -1/+1 -> 0/1
        plan.append((a, est, y, params))

    def report(results: dict) -> dict:
        return {
            "dataset": dataset.name,
            "runs": int(runs),
            "orderings": how,
            "n_samples": dataset.n_samples,
            "n_features": dataset.n_features,
            "n_classes": dataset.n_classes,
            "results": results,
        }

    results: dict = {}
    current = None
    try:
        for a, est, y, params in plan:
            current = AlgorithmResult(a, params)
            cb = None if progress is None else (lambda i, r, a=a: progress(a, i, len(orders), r))
            try:
                current.runs = run_protocol(est, dataset.X, y, orders, cb, stop_requested=stop_requested)
            except Interrupted as e:
                current.runs = e.runs
                raise
            except ValueError as e:
                # an example the learner refuses with these settings (a kernel value that
                # overflows, a label outside n_classes): the learner's own one-line message.
                # Other exceptions are bugs and keep their traceback
                msg = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise DataError(f"{a} on {dataset.name}: {msg}") from None
            results[a] = current.summary()
            current = None
    except BaseException as e:
        if not is_interrupt(e, stop_requested):
            raise
        if current is not None and current.runs and current.algorithm not in results:
            results[current.algorithm] = current.summary()
        done = {
            a: (len(orders) if current is None or a != current.algorithm else len(current.runs))
            for a in results
        }
        for a in results:
            results[a]["runs_done"] = done[a]
        partial = report(results)
        partial["partial"] = True
        partial["not_run"] = [a for a in algorithms if a not in results]
        raise Interrupted(current.runs if current is not None else [], partial) from e
    return report(results)
