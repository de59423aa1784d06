"""Base classes of the online learners, in the style of river (one small base class per task).

* :class:`BinaryClassifier`: labels -1/+1; ``learn_one``, ``predict_one``, ``decision_function_one``.
* :class:`MultiClassifier`: integer labels ``0..K-1`` (K may grow as new labels arrive);
  ``decision_function_one`` returns one score per class.
* :class:`NoveltyDetector`: ``learn_one(x)`` and ``score_one(x)`` = f(x); LOWER means more novel (the
  same convention as the pixel detectors).

Every estimator also offers NumPy batch helpers: ``partial_fit(X, y)``, ``predict(X)`` and
``progressive_predict(X, y)`` (the online protocol: predict each example, then learn it; returns the
predictions made before learning). Subclasses override ``_progressive`` with a numba loop so that no
Python code runs per example in benchmarks.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import numpy as np

__all__ = ["Estimator", "BinaryClassifier", "MultiClassifier", "NoveltyDetector", "check_x", "check_X",
           "check_binary_y", "check_multiclass_y"]


def check_x(x: Any, n_features: int | None, name: str = "x") -> np.ndarray:
    """Validate one example: a finite 1-D float array of the right length."""
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of features, got shape {a.shape}")
    if n_features is not None and a.shape[0] != n_features:
        raise ValueError(f"{name}: expected {n_features} features, got {a.shape[0]}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return np.ascontiguousarray(a)


def check_X(X: Any, n_features: int | None, name: str = "X") -> np.ndarray:
    """Validate a batch: a finite 2-D float array (n_samples, n_features)."""
    a = np.asarray(X, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array (n_samples, n_features), got shape {a.shape}")
    if n_features is not None and a.shape[1] != n_features:
        raise ValueError(f"{name}: expected {n_features} features, got {a.shape[1]}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return np.ascontiguousarray(a)


def check_binary_y(y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
    """Validate binary labels: every value must be -1 or +1."""
    a = np.atleast_1d(np.asarray(y))
    if n is not None and a.shape != (n,):
        raise ValueError(f"{name}: expected {n} labels, got shape {a.shape}")
    if a.size and not np.all((a == 1) | (a == -1)):
        bad = a[(a != 1) & (a != -1)][0]
        raise ValueError(f"{name}: binary labels must be -1 or +1, got {bad!r}")
    return a.astype(np.float64)


def check_multiclass_y(y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
    """Validate multiclass labels: non-negative integers."""
    a = np.atleast_1d(np.asarray(y))
    if n is not None and a.shape != (n,):
        raise ValueError(f"{name}: expected {n} labels, got shape {a.shape}")
    if a.size:
        if not np.all(np.isfinite(a.astype(np.float64))) or not np.all(a == np.round(a)) or a.min() < 0:
            raise ValueError(f"{name}: multiclass labels must be integers >= 0")
    return a.astype(np.int64)


class Estimator:
    """Parameters are the ``__init__`` arguments, stored under the same names (river convention)."""

    def _get_params(self) -> dict:
        sig = inspect.signature(type(self).__init__)
        return {k: getattr(self, k) for k in sig.parameters if k != "self"}

    def clone(self, **new_params):
        """A fresh, unfitted copy with the same parameters (optionally some changed)."""
        params = copy.deepcopy(self._get_params())
        params.update(new_params)
        return type(self)(**params)

    @property
    def n_support_(self) -> int:
        """Number of support vectors (model size)."""
        return 0

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._get_params().items())
        return f"{type(self).__name__}({args})"


class _Supervised(Estimator):
    n_features_: int | None = None

    def _check_one(self, x):
        x = check_x(x, self.n_features_)
        if self.n_features_ is None:
            self.n_features_ = x.shape[0]
        return x

    def learn_one(self, x, y):
        raise NotImplementedError

    def predict_one(self, x):
        raise NotImplementedError

    def decision_function_one(self, x):
        raise NotImplementedError

    def _progressive(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Default online loop in Python; fast backends override this with a numba loop."""
        out = np.empty(len(X), dtype=np.int64 if isinstance(self, MultiClassifier) else np.float64)
        for i in range(len(X)):
            out[i] = self.predict_one(X[i])
            self.learn_one(X[i], y[i])
        return out

    def progressive_predict(self, X, y) -> np.ndarray:
        """Online protocol over a stream: predict ``X[i]``, then learn ``(X[i], y[i])``, for each i.

        Returns
        -------
        ndarray
            The predictions made before each example was learned (mistakes = ``pred != y``).
        """
        X = check_X(X, self.n_features_)
        y = self._check_y(y, len(X))
        if self.n_features_ is None and len(X):
            self.n_features_ = X.shape[1]
        return self._progressive(X, y)

    def partial_fit(self, X, y):
        """Learn the examples of ``X`` one after the other (online)."""
        self.progressive_predict(X, y)
        return self

    def predict(self, X) -> np.ndarray:
        """Predict each row of ``X`` without learning."""
        X = check_X(X, self.n_features_)
        return np.array([self.predict_one(x) for x in X])


class BinaryClassifier(_Supervised):
    """Online binary classifier; labels are -1 and +1."""

    def _check_y(self, y, n):
        return check_binary_y(y, n)

    def predict_one(self, x) -> int:
        return 1 if self.decision_function_one(x) >= 0 else -1


class MultiClassifier(_Supervised):
    """Online multiclass classifier; labels are integers 0..K-1."""

    def _check_y(self, y, n):
        return check_multiclass_y(y, n)

    def predict_one(self, x) -> int:
        return int(np.argmax(self.decision_function_one(x)))


class NoveltyDetector(Estimator):
    """Online novelty detector: ``learn_one(x)``; ``score_one(x)`` = f(x), lower = more novel."""

    n_features_: int | None = None

    def _check_one(self, x):
        x = check_x(x, self.n_features_)
        if self.n_features_ is None:
            self.n_features_ = x.shape[0]
        return x

    def learn_one(self, x):
        raise NotImplementedError

    def score_one(self, x) -> float:
        raise NotImplementedError

    def progressive_score(self, X) -> np.ndarray:
        """Score each row before learning it; returns the scores."""
        X = check_X(X, self.n_features_)
        out = np.empty(len(X))
        for i in range(len(X)):
            out[i] = self.score_one(X[i])
            self.learn_one(X[i])
        return out
