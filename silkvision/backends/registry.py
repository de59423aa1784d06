"""Registry of the online learners: ``create(name, **params)`` and ``available()``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

__all__ = ["register", "create", "available", "get_class"]

_REGISTRY: dict[str, tuple[type, str]] = {}

#: Modules that register estimators when imported (each algorithm family in its own module).
#: Every module of ``silkvision/backends`` with a ``@register(...)`` must be listed here, and every
#: listed module must import: ``tests/backends/test_registry.py`` checks both, so that a learner
#: cannot silently drop out of :func:`available` (and of the generic estimator tests).
_MODULES = [
    "perceptron",
    "passive_aggressive",
    "romma",
    "alma",
    "norma",
    "ilk",
    "duol",
    "mduol",
    "multiclass",
    "ramp_svm",
    "novelty",
]


def register(name: str, description: str) -> Callable[[type], type]:
    """Class decorator: make an estimator available as ``create(name)``."""

    def deco(cls):
        if name in _REGISTRY and _REGISTRY[name][0] is not cls:
            raise RuntimeError(f"backend name {name!r} registered twice")
        _REGISTRY[name] = (cls, description)
        cls.registry_name = name
        return cls

    return deco


def _load_all() -> None:
    """Import every module of :data:`_MODULES` (registering its estimators).

    A listed module that fails to import raises (ModuleNotFoundError included): a missing module is
    a packaging error, not an optional backend, and skipping it would hide its learners.
    """
    for m in _MODULES:
        importlib.import_module(f"silkvision.backends.{m}")


def available() -> dict[str, str]:
    """``{name: one-line description}`` of every registered learner, sorted by name."""
    _load_all()
    return {k: _REGISTRY[k][1] for k in sorted(_REGISTRY)}


def get_class(name: str) -> type:
    """The estimator class registered as ``name``; ValueError if there is none (or it is no str)."""
    _load_all()
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"backend {name!r} is unknown; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name][0]


def create(name: str, **params):
    """Create a learner by name, e.g. ``create("duol", kernel="rbf", sigma=8, C=5, rho=0)``.

    Raises
    ------
    ValueError
        Unknown name, unknown parameter, or a parameter out of range (naming it).
    """
    cls = get_class(name)
    import inspect

    sig = inspect.signature(cls.__init__)
    unknown = [k for k in params if k not in sig.parameters]
    if unknown:
        allowed = ", ".join(k for k in sig.parameters if k != "self")
        raise ValueError(f"{name}: unknown parameter {unknown[0]!r}; allowed: {allowed}")
    return cls(**params)
