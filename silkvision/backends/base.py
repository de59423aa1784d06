"""Base classes of the online learners, in the style of river (one small base class per task).

* :class:`BinaryClassifier`: labels -1/+1; ``learn_one``, ``predict_one``, ``decision_function_one``.
* :class:`MultiClassifier`: any integer or string labels (``classes_``, in the order they first
  arrive), or the class indices ``0..n_classes-1`` when ``n_classes`` is given upfront (the papers'
  protocol); ``decision_function_one`` returns one score per class of ``classes_``.
* :class:`NoveltyDetector`: ``learn_one(x)`` and ``score_one(x)`` = f(x); LOWER means more novel (the
  same convention as the pixel detectors).

Every estimator also offers NumPy batch helpers. Classifiers: ``partial_fit(X, y)``, ``predict(X)``
and ``progressive_predict(X, y)`` (the online protocol: predict each example, then learn it; returns
the predictions made before learning). Binary classifiers return their predictions as int64 -1/+1.
Novelty detectors (no labels): ``partial_fit(X)``, ``score(X)`` (the score of each row, without
learning) and ``progressive_score(X)`` (score each row, then learn it). Subclasses override
``_progressive`` with a numba loop so that no Python code runs per example in benchmarks.

Features are 1-D arrays (or sequences) of numbers; river's dict features are not supported. The
kernel learners reject an example whose ``k(x, x)`` overflows (finite but huge features with the
linear or polynomial kernel) with a ``ValueError`` before learning it
(:func:`~silkvision.backends.mercer.check_kernel_finite`).
"""

from __future__ import annotations

import copy
import functools
import inspect
import sys
from typing import Any

import numpy as np

from silkvision.backends.mercer import check_kernel_finite
from silkvision.errors import parameter_typo, plain

__all__ = [
    "Estimator",
    "BinaryClassifier",
    "MultiClassifier",
    "NoveltyDetector",
    "check_x",
    "check_X",
    "check_binary_y",
    "check_multiclass_y",
]


def _as_float_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a float64 array; ValueError naming ``name`` when it is not real numbers: a dict of
    features (river's format), a ``scipy.sparse`` matrix, complex numbers (whose imaginary part a
    conversion would drop) or anything else that does not convert."""
    if isinstance(x, dict):
        raise ValueError(f"{name}: a dict of features is not supported; pass an array of numbers")
    sp = sys.modules.get("scipy.sparse")  # not imported: x cannot be a scipy.sparse matrix
    if sp is not None and sp.issparse(x):
        raise ValueError(
            f"{name}: scipy.sparse matrices are not supported; pass a dense array ({name}.toarray())"
        )
    try:
        a = np.asarray(x)  # converted once on the per-example path
        if a.dtype.kind in "biuf":
            return a.astype(np.float64, copy=False)
        if a.dtype.kind != "c":  # text, objects: NumPy's own message below
            return np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: expected an array of numbers ({e})") from None
    raise ValueError(f"{name}: expected real numbers, got complex values")


def check_x(x: Any, n_features: int | None, name: str = "x") -> np.ndarray:
    """Validate one example: a finite 1-D float array of the right length (at least one feature)."""
    a = _as_float_array(x, name)
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of features, got shape {a.shape}")
    if a.shape[0] == 0:
        raise ValueError(f"{name}: has no features; expected at least one")
    if n_features is not None and a.shape[0] != n_features:
        raise ValueError(f"{name}: expected {n_features} features, got {a.shape[0]}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return np.ascontiguousarray(a)


def check_X(X: Any, n_features: int | None, name: str = "X") -> np.ndarray:
    """Validate a batch: a finite 2-D float array (n_samples, n_features)."""
    a = _as_float_array(X, name)
    if a.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array (n_samples, n_features), got shape {a.shape}")
    if a.shape[1] == 0:
        raise ValueError(f"{name}: has no features (shape {a.shape}); expected at least one column")
    if n_features is not None and a.shape[1] != n_features:
        raise ValueError(f"{name}: expected {n_features} features, got {a.shape[1]}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return np.ascontiguousarray(a)


def check_binary_y(y: Any, n: int | None = None, name: str = "y") -> np.ndarray:
    """Validate binary labels: every value must be -1 or +1 (not a boolean)."""
    a = np.atleast_1d(np.asarray(y))
    if a.dtype == bool or (a.dtype == object and any(isinstance(v, (bool, np.bool_)) for v in a.tolist())):
        raise ValueError(f"{name}: binary labels must be -1 or +1, got booleans")
    if n is not None and a.shape != (n,):
        raise ValueError(f"{name}: expected {n} label{'s' if n != 1 else ''}, got shape {a.shape}")
    if a.size and not np.all((a == 1) | (a == -1)):
        bad = a[(a != 1) & (a != -1)][0]
        if isinstance(plain(bad), str):
            try:
                pm1 = float(plain(bad)) in (-1.0, 1.0)
            except ValueError:
                pm1 = False
            how = "e.g. y.astype(int)" if pm1 else "e.g. np.where(y == 'spam', 1, -1)"
            raise ValueError(
                f"{name}: binary labels must be the numbers -1 or +1, got the string {plain(bad)!r} "
                f"(convert the labels to numbers, {how})"
            )
        raise ValueError(f"{name}: binary labels must be -1 or +1, got {plain(bad)!r}")
    return a.astype(np.float64)


_MAX_INDEX = 2**31  # largest class index + 1 accepted where labels are indices (memory is O(K))


def _label_key(v: Any, name: str):
    """One multiclass label as a dictionary key: an ``int`` (also for 2.0 or ``np.int8(2)``) or a
    ``str``; ValueError naming ``name`` for anything else (NaN, 2.5, None, bool, ...)."""
    if isinstance(v, (str, np.str_)):
        return str(v)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name}: multiclass labels must be integers or strings, got {plain(v)!r}")
    if isinstance(v, (float, np.floating)):
        if not np.isfinite(v) or v != int(v):
            raise ValueError(f"{name}: multiclass labels must be integers or strings, got {plain(v)!r}")
    return int(v)


def check_multiclass_y(
    y: Any, n: int | None = None, name: str = "y", n_classes: int | None = None
) -> np.ndarray:
    """Validate class indices: integers in ``0..n_classes-1`` (``>= 0`` if ``n_classes`` is None).

    Returns them as int64. Used where the labels *are* the class indices (the papers' protocol, a
    :class:`MultiClassifier` given ``n_classes``).
    """
    a = np.atleast_1d(np.asarray(y, dtype=object))
    if n is not None and a.shape != (n,):
        raise ValueError(f"{name}: expected {n} labels, got shape {a.shape}")
    keys = [_label_key(v, name) for v in a.tolist()]
    for k in keys:
        if isinstance(k, str) or not 0 <= k < (_MAX_INDEX if n_classes is None else n_classes):
            want = f"0..{(n_classes or _MAX_INDEX) - 1}"
            raise ValueError(
                f"{name}: label {k!r} is not a class index ({want})"
                + (f"; n_classes={n_classes}" if n_classes is not None else "")
            )
    return np.array(keys, dtype=np.int64)


@functools.cache
def _param_names(cls) -> frozenset:
    """The ``__init__`` argument names of ``cls`` (its parameters)."""
    return frozenset(k for k in inspect.signature(cls.__init__).parameters if k != "self")


#: methods whose docstring a subclass's short one is completed from (see Estimator.__init_subclass__)
_DOC_INHERITED = ("learn_one", "predict_one", "decision_function_one", "score_one")


class Estimator:
    """Parameters are the ``__init__`` arguments, stored under the same names (river convention).

    They are fixed once the learner is built: the learner validated them and derived its state from
    them, so assigning a new value (``clf.C = 1.0``) raises ``AttributeError``; use
    ``clone(C=1.0)`` for a learner with another value.
    """

    n_features_: int | None = None

    def __init_subclass__(cls, **kw):
        """A per-example method that a learner overrides with a docstring of its own but no
        sections (``"f(x) = sum_j coef_j k(X_j, x)."``) gets the Parameters/Returns/Raises of the
        method it overrides, so ``help()`` shows both."""
        super().__init_subclass__(**kw)
        for name in _DOC_INHERITED:
            own = cls.__dict__.get(name)
            doc = getattr(own, "__doc__", None)
            if own is None or not doc or "Parameters\n" in doc:
                continue
            base = next((getattr(b, name) for b in cls.__mro__[1:] if name in b.__dict__), None)
            base_doc = inspect.getdoc(base) or ""
            at = base_doc.find("Parameters\n")
            if at >= 0:
                own.__doc__ = inspect.cleandoc(doc) + "\n\n" + base_doc[at:]

    def __setattr__(self, name, value):
        params = _param_names(type(self))
        if name in self.__dict__ and name in params:
            raise AttributeError(
                f"{name}: parameters are fixed once {type(self).__name__} is built "
                f"(its state was derived from them); use clone({name}=...) for a "
                f"learner with another value"
            )
        meant = parameter_typo(self, name, params)
        if meant is not None:
            raise AttributeError(
                f"{type(self).__name__} has no parameter {name!r}; did you mean "
                f"{meant!r}? (parameters are fixed once it is built: use "
                f"clone({meant}=...))"
            )
        super().__setattr__(name, value)

    def __copy__(self):
        """A copy shares no array with the original: ``copy.copy`` of a learner is its
        ``copy.deepcopy`` (a shallow copy shared the model's arrays, and learning on one corrupted
        the other)."""
        return copy.deepcopy(self)

    def _check_one(self, x):
        """Validate one example (its length must match once the model has learned, and ``k(x, x)``
        must not overflow: a prediction would be NaN, read as class -1)."""
        x = check_x(x, self.n_features_)
        self._check_kernel(x[None, :], "x")
        return x

    def _learned_features(self, d: int) -> None:
        """Fix ``n_features_`` when the first example is learned (after every check has passed,
        so that a rejected example or a prediction does not fix it)."""
        if self.n_features_ is None:
            self.n_features_ = int(d)

    def get_params(self) -> dict:
        """The parameters, ``{name: value}`` in the order of ``__init__`` (as the detectors'
        ``get_params``; ``create(name, **est.get_params())`` builds the same unfitted learner)."""
        return self._get_params()

    def _get_params(self) -> dict:
        sig = inspect.signature(type(self).__init__)  # in order, for repr
        return {k: getattr(self, k) for k in sig.parameters if k != "self"}

    def clone(self, **new_params):
        """A fresh, unfitted copy with the same parameters (optionally some changed)."""
        params = copy.deepcopy(self._get_params())
        unknown = [k for k in new_params if k not in params]
        if unknown:
            raise ValueError(
                f"{type(self).__name__}: unknown parameter {unknown[0]!r}; allowed: {', '.join(params)}"
            )
        params.update(new_params)
        return type(self)(**params)

    @property
    def n_support_(self) -> int:
        """Number of support vectors (model size)."""
        return 0

    def _check_kernel(self, X: np.ndarray, name: str = "X") -> None:
        """ValueError if ``k(x, x)`` overflows for a row of ``X`` (kernel learners: ``kernel_``)."""
        k = getattr(self, "kernel_", None)
        if k is not None:
            check_kernel_finite(X, k, name)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._get_params().items())
        return f"{type(self).__name__}({args})"


class _Supervised(Estimator):
    def learn_one(self, x, y):
        """Learn one example (the model changes only if the example passes every check).

        Parameters
        ----------
        x : array-like of shape (n_features,)
            Finite numbers; the width of the first example learned fixes ``n_features_``.
        y : int or str
            The label: -1 or +1 for a binary classifier, any integer or string for a multiclass one
            (``0..n_classes-1`` when ``n_classes`` is given).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            ``x`` is not a 1-D array of finite numbers of the learned width, ``y`` is not a valid
            label, or ``k(x, x)`` overflows under the chosen kernel.
        """
        raise NotImplementedError

    def predict_one(self, x):
        """The predicted label of one example, without learning.

        Parameters
        ----------
        x : array-like of shape (n_features,)

        Returns
        -------
        int or label
            -1 or +1 (binary); one of ``classes_`` (multiclass, ``None`` before any label arrived).

        Raises
        ------
        ValueError
            As :meth:`learn_one`'s, for ``x``.
        """
        raise NotImplementedError

    def decision_function_one(self, x):
        """The decision value of one example, without learning.

        Parameters
        ----------
        x : array-like of shape (n_features,)

        Returns
        -------
        float or ndarray
            ``f(x)`` (binary: the sign is the prediction; 0.0 before anything was learned), or the
            scores of the classes in the order of ``classes_`` (multiclass).

        Raises
        ------
        ValueError
            As :meth:`learn_one`'s, for ``x``.
        """
        raise NotImplementedError

    def _progressive(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Default online loop in Python; fast backends override this with a numba loop."""
        out = np.empty(len(X), dtype=np.int64)
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
        self._check_kernel(X)
        if len(X):
            self._learned_features(X.shape[1])
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
    """Online binary classifier; labels are -1 and +1 (predictions are int64 -1/+1)."""

    def _check_y(self, y, n):
        return check_binary_y(y, n)

    def predict_one(self, x) -> int:
        """+1 if ``decision_function_one(x) >= 0``, else -1."""
        return 1 if self.decision_function_one(x) >= 0 else -1

    def progressive_predict(self, X, y) -> np.ndarray:
        """Online protocol over a stream: predict ``X[i]``, then learn ``(X[i], y[i])``, for each i.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels -1 or +1.

        Returns
        -------
        ndarray of shape (n_samples,), int64
            The predictions (-1 or +1) made before each example was learned (mistakes =
            ``pred != y``).
        """
        return np.asarray(super().progressive_predict(X, y), dtype=np.int64)

    def predict(self, X) -> np.ndarray:
        """Predict each row of ``X`` without learning.

        Returns
        -------
        ndarray of shape (n_samples,), int64
            -1 or +1 for each row (+1 where the decision value is >= 0).
        """
        X = check_X(X, self.n_features_)
        return np.array([self.predict_one(x) for x in X], dtype=np.int64)


class MultiClassifier(_Supervised):
    """Online multiclass classifier.

    Labels are integers or strings. Without ``n_classes`` the classes are numbered in the order
    their labels first arrive (``classes_``); the scores of :meth:`decision_function_one` follow that
    order and predictions return the user's labels, so a class that never arrived is never
    predicted. Before any label has arrived :meth:`predict_one` returns ``None`` (so does the first
    prediction of :meth:`progressive_predict` on a new model, whose array then has dtype object).
    With ``n_classes`` given (the papers' protocol: all classes known upfront and scored from the
    first example), the labels must be the class indices ``0..n_classes-1``.

    Subclasses learn on the class codes (int64 ``0..K-1``) and set ``self.n_classes`` in ``__init__``.
    """

    n_classes: int | None = None

    def _labels(self) -> list:
        lab = self.__dict__.get("_classes")
        if lab is None:
            lab = self.__dict__["_classes"] = []
            self.__dict__["_codes"] = {}
        return lab

    @property
    def classes_(self) -> np.ndarray:
        """The labels, in the order of the scores (``arange(n_classes)`` when given upfront)."""
        if self.n_classes is not None:
            return np.arange(int(self.n_classes))
        lab = self._labels()
        mixed = len({type(v) for v in lab}) > 1
        return np.array(lab, dtype=object if mixed else None)

    def _check_y(self, y, n):
        """Validate ``n`` labels and return their class codes (new labels get the next codes).

        New labels are added to ``classes_`` only after every label has passed, so the callers run
        this after their other checks (a refused example must not leave its label behind)."""
        if self.n_classes is not None:
            return check_multiclass_y(y, n, n_classes=int(self.n_classes))
        a = np.atleast_1d(np.asarray(y, dtype=object))
        if a.shape != (n,):
            raise ValueError(f"y: expected {n} label{'s' if n != 1 else ''}, got shape {a.shape}")
        keys = [_label_key(v, "y") for v in a.tolist()]
        labels, codes = self._labels(), self.__dict__["_codes"]
        for k in keys:
            if k not in codes:
                codes[k] = len(labels)
                labels.append(k)
        return np.array([codes[k] for k in keys], dtype=np.int64)

    def _progressive(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The online loop over class codes ``y``; every multiclass learner implements it (the
        generic Python loop of :class:`_Supervised` would pass codes where labels are expected)."""
        raise NotImplementedError(f"{type(self).__name__} must implement _progressive on class codes")

    def _decode(self, code):
        """The label of class code ``code``."""
        return code if self.n_classes is not None else self._labels()[int(code)]

    def _label_array(self, codes) -> np.ndarray:
        """The labels of class codes ``codes`` as an array of ``classes_``' dtype (object when the
        labels mix ints and strings, so that each keeps its type); int64 while there is no class."""
        codes = np.asarray(codes, dtype=np.int64)
        classes = self.classes_
        return classes[codes] if len(classes) else codes

    def progressive_predict(self, X, y) -> np.ndarray:
        """Online protocol over a stream (see :meth:`_Supervised.progressive_predict`); returns labels."""
        X = check_X(X, self.n_features_)
        self._check_kernel(X)
        fresh = self.n_classes is None and not self._labels()
        codes = self._check_y(y, len(X))
        if len(X):
            self._learned_features(X.shape[1])
        pred = self._progressive(X, codes)
        out = self._label_array(pred)
        if fresh and len(out):  # no class had arrived when the first example was predicted
            out = out.astype(object)
            out[0] = None
        return out

    def learn_one(self, x, y):
        """Learn one example (all or nothing: a refused example adds no class to ``classes_``)."""
        x = self._check_one(x)
        self._check_kernel(x[None, :], "x")
        codes = self._check_y(y, 1)  # registers a new label: the last check before learning
        self._learned_features(x.shape[0])
        self._progressive(x[None, :], codes)
        return self

    def predict_one(self, x):
        """The label with the largest score (``None`` before any label has arrived)."""
        s = self.decision_function_one(x)
        return self._decode(int(np.argmax(s))) if len(s) else None

    def predict(self, X) -> np.ndarray:
        """Predict each row of ``X`` without learning.

        Returns
        -------
        ndarray of shape (n_samples,)
            The labels :meth:`predict_one` gives, with the dtype of ``classes_`` (object when the
            labels mix ints and strings), also for an empty ``X``. Before any label has arrived every
            prediction is ``None`` (dtype object; int64 for an empty ``X``).
        """
        X = check_X(X, self.n_features_)
        out = [self.predict_one(x) for x in X]
        if self.n_classes is None and not self._labels():
            return np.array(out, dtype=object) if out else np.empty(0, dtype=np.int64)
        return np.array(out, dtype=self.classes_.dtype)


class NoveltyDetector(Estimator):
    """Online novelty detector: ``learn_one(x)``; ``score_one(x)`` = f(x), lower = more novel.

    Batch helpers: :meth:`partial_fit` (learn each row), :meth:`score` (score each row without
    learning) and :meth:`progressive_score` (score each row, then learn it). There are no labels, so
    there is no ``predict``: a threshold on the scores (e.g. ``rho_`` of NORMA) flags novelties.
    """

    def learn_one(self, x):
        """Learn one example.

        Parameters
        ----------
        x : array-like of shape (n_features,)
            Finite numbers; the width of the first example learned fixes ``n_features_``.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            ``x`` is not a 1-D array of finite numbers of the learned width, or ``k(x, x)``
            overflows under the chosen kernel.
        """
        raise NotImplementedError

    def score_one(self, x) -> float:
        """The score ``f(x)`` of one example, without learning (lower = more novel).

        Parameters
        ----------
        x : array-like of shape (n_features,)

        Returns
        -------
        float
            0.0 before anything was learned.

        Raises
        ------
        ValueError
            As :meth:`learn_one`'s.
        """
        raise NotImplementedError

    def progressive_score(self, X) -> np.ndarray:
        """Score each row before learning it; returns the scores."""
        X = check_X(X, self.n_features_)
        self._check_kernel(X)
        out = np.empty(len(X))
        for i in range(len(X)):
            out[i] = self.score_one(X[i])
            self.learn_one(X[i])
        return out

    def partial_fit(self, X):
        """Learn the rows of ``X`` one after the other (online; the same model as a loop of
        :meth:`learn_one`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        self
        """
        self.progressive_score(X)
        return self

    def score(self, X) -> np.ndarray:
        """The score f(x) of each row of ``X``, without learning (lower = more novel).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), float64
            ``score_one`` of each row (0.0 for every row before anything was learned).
        """
        X = check_X(X, self.n_features_)
        return np.array([self.score_one(x) for x in X], dtype=np.float64)
