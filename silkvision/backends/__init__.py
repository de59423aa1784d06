"""Online kernel learners of the papers behind one API (``learn_one`` / ``predict_one`` /
``decision_function_one`` / ``score_one``), with numba hot loops.

>>> from silkvision import backends
>>> clf = backends.create("duol", kernel="rbf", sigma=8, C=5, rho=0)
>>> sorted(backends.available())[:3]           # doctest: +SKIP
"""

import silkvision._numba_cache  # noqa: F401  (before any @njit(cache=True) of the learners)
from silkvision.backends.base import BinaryClassifier, Estimator, MultiClassifier, NoveltyDetector
from silkvision.backends.registry import available, create, get_class, register

__all__ = [
    "Estimator",
    "BinaryClassifier",
    "MultiClassifier",
    "NoveltyDetector",
    "create",
    "available",
    "get_class",
    "register",
]
