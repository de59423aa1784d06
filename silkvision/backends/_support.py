"""A small growable support-vector store for the kernel learners.

A kernel expansion ``f(x) = sum_j coef[j] k(X[j], x)`` is kept in preallocated arrays:

* ``X``      -- ``(capacity, d)`` float64, the support vectors (first ``n`` rows valid);
* ``coef``   -- ``(capacity,)`` float64 for binary / novelty learners, or ``(capacity, K)`` for
  multiclass learners (one coefficient per class, the support vectors are shared);
* ``stamp``  -- ``(capacity,)`` int64, the time step at which each vector was added (for learners that
  drop the oldest vector, e.g. truncated NORMA);
* ``n``      -- the number of valid rows.

The capacity doubles when full, so appending is amortised O(d). The arrays are plain NumPy arrays,
so numba loops take them as arguments and hand back the (possibly re-allocated) arrays; the numba
helpers below (:func:`sv_append`, :func:`sv_remove`, :func:`sv_decision`, ...) do the bookkeeping.
:class:`SupportStore` is the Python-side owner that an estimator keeps between calls::

    st = SupportStore(n_features=3)
    st.X, st.coef, st.stamp = sv_append(st.X, st.coef, st.stamp, st.n, x, 0.5, t)
    st.n += 1

Removal swaps the last row into the hole (order is not preserved; use ``stamp`` for age).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends.mercer import kernel_eval

__all__ = [
    "SupportStore",
    "grow_rows",
    "grow_vec",
    "grow_cols",
    "sv_append",
    "sv_append_multi",
    "sv_remove",
    "sv_remove_multi",
    "sv_decision",
    "sv_decision_multi",
    "sv_argmin_abs",
]


@njit(cache=True)
def grow_rows(A, n, need):
    """Return a 2-D array with at least ``need`` rows whose first ``n`` rows equal ``A``'s.

    ``A`` itself is returned when it is large enough; otherwise the capacity is doubled (or set to
    ``need`` if that is larger).
    """
    cap = A.shape[0]
    if need <= cap:
        return A
    new = max(need, 2 * cap, 8)
    B = np.zeros((new, A.shape[1]), dtype=A.dtype)
    B[:n] = A[:n]
    return B


@njit(cache=True)
def grow_vec(a, n, need):
    """1-D version of :func:`grow_rows`."""
    cap = a.shape[0]
    if need <= cap:
        return a
    new = max(need, 2 * cap, 8)
    b = np.zeros(new, dtype=a.dtype)
    b[:n] = a[:n]
    return b


@njit(cache=True)
def grow_cols(A, n, k):
    """Return ``A`` with at least ``k`` columns (new columns zero); the first ``n`` rows are kept."""
    if A.shape[1] >= k:
        return A
    B = np.zeros((A.shape[0], k), dtype=A.dtype)
    B[:n, : A.shape[1]] = A[:n]
    return B


@njit(cache=True)
def sv_append(X, coef, stamp, n, x, c, t):
    """Store ``x`` with coefficient ``c`` and stamp ``t`` in row ``n``; returns ``(X, coef, stamp)``.

    The caller increments its count. Arrays are re-allocated (doubled) only when full.
    """
    X = grow_rows(X, n, n + 1)
    coef = grow_vec(coef, n, n + 1)
    stamp = grow_vec(stamp, n, n + 1)
    X[n, :] = x
    coef[n] = c
    stamp[n] = t
    return X, coef, stamp


@njit(cache=True)
def sv_append_multi(X, coef, stamp, n, x, c, t):
    """Multiclass :func:`sv_append`: ``coef`` is ``(capacity, K)`` and ``c`` a length-K vector."""
    X = grow_rows(X, n, n + 1)
    coef = grow_rows(coef, n, n + 1)
    stamp = grow_vec(stamp, n, n + 1)
    X[n, :] = x
    coef[n, :] = c
    stamp[n] = t
    return X, coef, stamp


@njit(cache=True)
def sv_remove(X, coef, stamp, n, i):
    """Remove row ``i`` of ``n`` (the last row moves into its place); returns the new count."""
    last = n - 1
    if i != last:
        X[i, :] = X[last, :]
        coef[i] = coef[last]
        stamp[i] = stamp[last]
    return last


@njit(cache=True)
def sv_remove_multi(X, coef, stamp, n, i):
    """Multiclass :func:`sv_remove` (``coef`` is 2-D)."""
    last = n - 1
    if i != last:
        X[i, :] = X[last, :]
        coef[i, :] = coef[last, :]
        stamp[i] = stamp[last]
    return last


@njit(cache=True)
def sv_decision(X, coef, n, x, kind, sigma, degree, coef0):
    """``sum_{j<n} coef[j] k(X[j], x)``."""
    s = 0.0
    for j in range(n):
        s += coef[j] * kernel_eval(X[j], x, kind, sigma, degree, coef0)
    return s


@njit(cache=True)
def sv_decision_multi(X, coef, n, x, kind, sigma, degree, coef0, out):
    """``out[k] = sum_{j<n} coef[j, k] k(X[j], x)`` for every column ``k`` of ``out``."""
    out[:] = 0.0
    K = out.shape[0]
    for j in range(n):
        kv = kernel_eval(X[j], x, kind, sigma, degree, coef0)
        for k in range(K):
            out[k] += coef[j, k] * kv
    return out


@njit(cache=True)
def sv_argmin_abs(coef, n):
    """Index of the coefficient of smallest absolute value among the first ``n`` (-1 if empty)."""
    best = -1
    bv = np.inf
    for j in range(n):
        v = abs(coef[j])
        if v < bv:
            bv = v
            best = j
    return best


class SupportStore:
    """Owner of the support-vector arrays of one kernel expansion.

    Parameters
    ----------
    n_features : int
        Dimension ``d`` of the vectors.
    capacity : int, default 16
        Initial number of preallocated rows (doubles when full).
    n_outputs : int or None, default None
        ``None`` for one coefficient per vector (binary / novelty); an integer ``K`` for a
        ``(capacity, K)`` coefficient matrix (multiclass; :meth:`ensure_outputs` widens it).
    """

    def __init__(self, n_features: int, capacity: int = 16, n_outputs: int | None = None):
        if int(n_features) != n_features or n_features < 1:
            raise ValueError(f"n_features: {n_features!r} must be an integer >= 1")
        if int(capacity) != capacity or capacity < 1:
            raise ValueError(f"capacity: {capacity!r} must be an integer >= 1")
        if n_outputs is not None and (int(n_outputs) != n_outputs or n_outputs < 1):
            raise ValueError(f"n_outputs: {n_outputs!r} must be None or an integer >= 1")
        self.n_features = int(n_features)
        self.n_outputs = None if n_outputs is None else int(n_outputs)
        self.X = np.zeros((int(capacity), self.n_features))
        if self.n_outputs is None:
            self.coef = np.zeros(int(capacity))
        else:
            self.coef = np.zeros((int(capacity), self.n_outputs))
        self.stamp = np.zeros(int(capacity), dtype=np.int64)
        self.n = 0
        self.XT = None  # feature-major copy (d, capacity); see enable_columns
        self.sqn = None

    @property
    def columns(self) -> bool:
        """Whether the feature-major copy (:mod:`silkvision.backends.sparse`) is kept."""
        return self.XT is not None

    def enable_columns(self) -> None:
        """Keep a feature-major copy ``XT`` and squared norms ``sqn`` of the vectors from now on."""
        if self.XT is None:
            from silkvision.backends.sparse import cols_from_rows

            self.XT, self.sqn = cols_from_rows(self.X, self.n, self.X.shape[0])

    def cols_args(self):
        """``(XT, sqn)`` for a numba loop: the real arrays, or 1-element dummies when not kept."""
        if self.XT is None:
            return np.zeros((self.n_features, 1)), np.zeros(1)
        return self.XT, self.sqn

    def keep_cols(self, XT, sqn) -> None:
        """Take back the (possibly re-allocated) ``(XT, sqn)`` a numba loop returned, if kept."""
        if self.columns:
            self.XT, self.sqn = XT, sqn

    @property
    def capacity(self) -> int:
        return self.X.shape[0]

    def __len__(self) -> int:
        return self.n

    def ensure_outputs(self, k: int) -> None:
        """Widen a multiclass coefficient matrix to at least ``k`` columns (zeros)."""
        if self.n_outputs is None:
            raise ValueError("n_outputs: this store has one coefficient per vector")
        if k > self.coef.shape[1]:
            self.coef = grow_cols(self.coef, self.n, k)
            self.n_outputs = self.coef.shape[1]

    def append(self, x, c, t: int = 0) -> int:
        """Add vector ``x`` with coefficient(s) ``c``; returns its row index."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        if self.n_outputs is None:
            self.X, self.coef, self.stamp = sv_append(
                self.X, self.coef, self.stamp, self.n, x, float(c), int(t)
            )
        else:
            c = np.ascontiguousarray(c, dtype=np.float64)
            self.X, self.coef, self.stamp = sv_append_multi(
                self.X, self.coef, self.stamp, self.n, x, c, int(t)
            )
        if self.XT is not None:
            from silkvision.backends.sparse import cols_append

            self.XT, self.sqn = cols_append(self.XT, self.sqn, self.n, x)
        self.n += 1
        return self.n - 1

    def remove(self, i: int) -> None:
        """Remove row ``i`` (the last row takes its place)."""
        if not 0 <= i < self.n:
            raise IndexError(f"row {i} out of range for {self.n} support vectors")
        if self.XT is not None:
            from silkvision.backends.sparse import cols_remove

            cols_remove(self.XT, self.sqn, self.n, i)
        if self.n_outputs is None:
            self.n = sv_remove(self.X, self.coef, self.stamp, self.n, i)
        else:
            self.n = sv_remove_multi(self.X, self.coef, self.stamp, self.n, i)

    def decision(self, x, kernel) -> float | np.ndarray:
        """f(x) with a :class:`~silkvision.backends.mercer.Kernel` (vector of K scores if multiclass)."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        if self.n_outputs is None:
            return float(sv_decision(self.X, self.coef, self.n, x, *kernel.args))
        out = np.zeros(self.coef.shape[1])
        return sv_decision_multi(self.X, self.coef, self.n, x, *kernel.args, out)

    def valid(self):
        """Views of the valid rows: ``(X[:n], coef[:n], stamp[:n])``."""
        return self.X[: self.n], self.coef[: self.n], self.stamp[: self.n]

    def copy(self) -> SupportStore:
        new = SupportStore.__new__(SupportStore)
        new.n_features, new.n_outputs, new.n = self.n_features, self.n_outputs, self.n
        new.X, new.coef, new.stamp = self.X.copy(), self.coef.copy(), self.stamp.copy()
        new.XT = None if self.XT is None else self.XT.copy()
        new.sqn = None if self.sqn is None else self.sqn.copy()
        return new


# ---------------------------------------------------------------------------------------------
# Parameter checks and the shared plumbing of the kernel-expansion learners (perceptron, PA,
# ROMMA, ALMA, NORMA, ILK/SILK, multiclass, novelty). Each learner supplies one numba loop over a
# stream; ``learn_one`` runs that same loop on a single example.
# ---------------------------------------------------------------------------------------------


def as_number(name: str, value) -> float:
    """``value`` (an int or float, also NumPy's) as a float; ValueError naming ``name`` for anything
    else: strings (``"8"`` too), booleans (``True`` is not 1.0 here), None, lists. An int too large
    for a float gives ``inf``, which the range checks then refuse."""
    if isinstance(value, str):
        try:
            f = float(value)
        except ValueError:
            f = None
        if f is not None and not np.isfinite(f):  # --set C=inf: YAML reads only .inf as a number
            raise ValueError(f"{name}: {value!r} must be a finite number")
        if f is not None:
            raise ValueError(f"{name}: {value!r} is a string; it must be a number (not quoted)")
    if value is None or isinstance(value, (bool, np.bool_, str, bytes)):
        raise ValueError(f"{name}: {value!r} must be a number")
    try:
        return float(value)
    except OverflowError:
        return np.inf
    except (TypeError, ValueError):
        raise ValueError(f"{name}: {value!r} must be a number") from None


def check_positive(name: str, value, allow_zero: bool = False) -> float:
    """``value`` as a float, > 0 (or >= 0); ValueError naming ``name`` otherwise."""
    v = as_number(name, value)
    if not np.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name}: {value!r} must be a finite number {'>=' if allow_zero else '>'} 0")
    return v


def check_range(
    name: str, value, lo: float, hi: float, lo_open: bool = False, hi_open: bool = False
) -> float:
    """``value`` as a float in the interval [lo, hi] (ends open if asked); ValueError otherwise."""
    v = as_number(name, value)
    ok = np.isfinite(v) and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
    if not ok:
        raise ValueError(
            f"{name}: {value!r} must lie in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
        )
    return v


def check_budget(name: str, value, allow_none: bool = True) -> int | None:
    """A support-vector budget: ``None`` (unbounded, if allowed) or an integer in ``[1, 2**62]``.

    Larger integers are rejected, not clamped (the numba loops use int64; ``None`` is the way to ask
    for no bound).
    """
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 2**62:
        raise ValueError(
            f"{name}: {value!r} must be an integer >= 1 (at most 2**62)" + (" or None" if allow_none else "")
        )
    return int(value)


def check_n_classes(value) -> int | None:
    """A multiclass learner's ``n_classes``: ``None`` (classes as they come) or an integer >= 2
    (one class is not a classification problem)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 2 <= value <= 2**62:
        raise ValueError(
            f"n_classes: {value!r} must be None or an integer >= 2 (at most 2**62; a "
            f"classifier needs two classes)"
        )
    return int(value)


def check_seed(value, allow_none: bool = False, name: str = "seed") -> int | None:
    """A random seed: an integer >= 0 (not a bool or a float), or ``None`` if allowed."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name}: {value!r} must be {'None or ' if allow_none else ''}an integer >= 0")
    return int(value)


def check_choice(name: str, value, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name}: {value!r} is unknown; expected one of {', '.join(map(repr, choices))}")
    return value


class KernelExpansionMixin:
    """State handling shared by the learners whose model is ``f = sum_j coef_j k(X_j, .)``.

    Subclasses call :meth:`_init_kernel` in ``__init__``, set ``_n_outputs`` (``None`` for one
    coefficient per vector, ``0`` for a multiclass matrix that grows with the labels) and
    ``_n_state`` (algorithm scalars kept in ``self._state``, a float64 array the numba loops update
    in place), and implement ``_run(X, y)`` (binary/multiclass) or ``_run(X)`` (novelty).
    """

    _n_outputs: int | None = None
    _n_state: int = 1

    def _init_kernel(self, kernel, sigma, degree, coef):
        from silkvision.backends.mercer import make_kernel

        self.kernel, self.sigma, self.degree, self.coef = kernel, sigma, degree, coef
        self.kernel_ = make_kernel(kernel, sigma, degree, coef)
        self._reset()

    def _reset(self):
        self._store: SupportStore | None = None
        self._state = np.zeros(max(self._n_state, 1))
        self._t = 0
        self.n_features_ = None

    def _ensure_store(self, d: int) -> SupportStore:
        if self._store is None:
            self._store = SupportStore(d, 16, None if self._n_outputs is None else 1)
        return self._store

    @property
    def n_support_(self) -> int:
        return 0 if self._store is None else self._store.n

    @property
    def support_vectors_(self) -> np.ndarray:
        """``(n_support_, d)`` copy of the support vectors."""
        return (
            np.empty((0, self.n_features_ or 0))
            if self._store is None
            else self._store.X[: self._store.n].copy()
        )

    @property
    def dual_coef_(self) -> np.ndarray:
        """Copy of the expansion coefficients (``(n_support_,)`` or ``(n_support_, K)``)."""
        if self._store is None:
            return np.zeros(0) if self._n_outputs is None else np.zeros((0, 0))
        return self._store.coef[: self._store.n].copy()

    def _raw_decision(self, x):
        """f(x) = sum_j coef_j k(X_j, x) on a validated x (0 / zeros when there is no model)."""
        st = self._store
        if st is None or st.n == 0:
            return 0.0 if self._n_outputs is None else np.zeros(0 if st is None else st.coef.shape[1])
        return st.decision(x, self.kernel_)


from silkvision.backends.base import (  # noqa: E402
    BinaryClassifier,
    MultiClassifier,
    NoveltyDetector,
    check_binary_y,
    check_X,
)


class BinaryKernelClassifier(KernelExpansionMixin, BinaryClassifier):
    """Binary learner with a kernel expansion; subclasses implement ``_run(X, y, store)``, a call
    of their numba loop that returns the predictions (made before each update) and stores the
    new arrays in ``store``.

    Subclasses whose loop supports the feature-major path (:mod:`silkvision.backends.sparse`) set
    ``_columns_path = True``; it is switched on when the first batch the model learns has enough
    features (:func:`~silkvision.backends.sparse.use_columns`).
    """

    _columns_path = False

    def decision_function_one(self, x) -> float:
        """f(x) = sum_j coef_j k(X_j, x)."""
        x = self._check_one(x)
        return float(self._raw_decision(x))

    def learn_one(self, x, y):
        """Learn one example (runs the numba loop on it)."""
        x = self._check_one(x)
        y = check_binary_y(y, 1)
        self._check_kernel(x[None, :], "x")
        self._learned_features(x.shape[0])
        self._progressive(x[None, :], y)
        return self

    def _progressive(self, X, y):
        if len(X) == 0:
            return np.empty(0)
        new = self._store is None
        st = self._ensure_store(X.shape[1])
        if new and self._columns_path:
            from silkvision.backends.sparse import use_columns

            if use_columns(X):
                st.enable_columns()
        pred = self._run(np.ascontiguousarray(X), np.ascontiguousarray(y, dtype=np.float64), st)
        self._t += len(X)
        return pred

    def _run(self, X, y, st):  # pragma: no cover - abstract
        raise NotImplementedError


class MultiKernelClassifier(KernelExpansionMixin, MultiClassifier):
    """Multiclass learner with shared support vectors and a ``(n, K)`` coefficient matrix.

    The numba loops see class codes ``0..K-1`` (:class:`~silkvision.backends.base.MultiClassifier`
    maps the user's labels to them). ``self._state[0]`` holds the number ``K`` of classes the scores
    cover: ``n_classes`` when the learner was told the classes upfront (as in the papers'
    experiments), else the number of labels seen so far. Predictions are the argmax over those ``K``
    scores. The support vectors are also kept feature-major (:mod:`silkvision.backends.sparse`) when
    the first batch has enough features (:func:`~silkvision.backends.sparse.use_columns`).
    """

    _n_outputs = 0
    n_classes: int | None = None

    def _init_classes(self, n_classes):
        """Validate ``n_classes`` (None: the label set grows; an int: all classes known upfront)."""
        self.n_classes = n_classes
        self._n_classes = check_n_classes(n_classes)

    def _reset(self):
        super()._reset()
        self._state[0] = float(getattr(self, "_n_classes", None) or 0)

    @property
    def n_classes_(self) -> int:
        """Number of classes the scores cover: ``n_classes`` if given, else the number of labels seen."""
        return int(self._state[0])

    def decision_function_one(self, x) -> np.ndarray:
        """Scores f(x, k) = sum_j coef_jk k(X_j, x) of the classes of ``classes_``."""
        x = self._check_one(x)
        K = self.n_classes_
        if self._store is None or self._store.n == 0:
            return np.zeros(K)
        return np.asarray(self._raw_decision(x))[:K]

    def _progressive(self, X, y):
        """Learn class codes ``y`` (validated by :meth:`MultiClassifier._check_y`)."""
        if len(X) == 0:
            return np.empty(0, dtype=np.int64)
        known = getattr(self, "_n_classes", None)
        new = self._store is None
        st = self._ensure_store(X.shape[1])
        if new:
            from silkvision.backends.sparse import use_columns

            if use_columns(X):
                st.enable_columns()
        st.ensure_outputs(max(int(y.max()) + 1, st.coef.shape[1], known or 0))
        pred = self._run(np.ascontiguousarray(X), np.ascontiguousarray(y, dtype=np.int64), st)
        self._t += len(X)
        return pred

    def _run(self, X, y, st):  # pragma: no cover - abstract
        raise NotImplementedError


class NoveltyKernelDetector(KernelExpansionMixin, NoveltyDetector):
    """Novelty detector with a kernel expansion; ``_run(X, store)`` returns the scores f(x)
    computed before each update."""

    def score_one(self, x) -> float:
        """f(x) = sum_j coef_j k(X_j, x); lower = more novel."""
        x = self._check_one(x)
        return float(self._raw_decision(x))

    def learn_one(self, x):
        """Learn one example (runs the numba loop on it)."""
        x = self._check_one(x)
        self._check_kernel(x[None, :], "x")
        self._learned_features(x.shape[0])
        self._score_and_learn(x[None, :])
        return self

    def progressive_score(self, X) -> np.ndarray:
        """Score each row of ``X`` (before learning it), then learn it; one numba loop."""
        X = check_X(X, self.n_features_)
        self._check_kernel(X)
        if len(X):
            self._learned_features(X.shape[1])
        return self._score_and_learn(X)

    def _score_and_learn(self, X):
        if len(X) == 0:
            return np.empty(0)
        st = self._ensure_store(X.shape[1])
        out = self._run(np.ascontiguousarray(X), st)
        self._t += len(X)
        return out

    def _run(self, X, st):  # pragma: no cover - abstract
        raise NotImplementedError


def reference_decision(SV: list, coef: list, x: np.ndarray, kernel) -> float | np.ndarray:
    """Plain NumPy f(x) for the reference implementations: ``sum_j coef[j] k(SV[j], x)``."""
    from silkvision.backends.mercer import kernel_matrix_reference

    if not SV:
        return 0.0
    k = kernel_matrix_reference(np.asarray(SV), np.asarray(x)[None, :], kernel)[:, 0]
    return k @ np.asarray(coef)
