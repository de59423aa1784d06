"""Registry of the online learners: ``create(name, **params)`` and ``available()``."""

from __future__ import annotations

import importlib
from typing import Callable

__all__ = ["register", "create", "available", "get_class"]

_REGISTRY: dict[str, tuple[type, str]] = {}

# modules that register estimators when imported (each algorithm family in its own module)
_MODULES = ["perceptron", "passive_aggressive", "romma", "alma", "norma", "ilk", "duol", "mduol",
            "multiclass", "ramp_svm", "novelty"]


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
    for m in _MODULES:
        try:
            importlib.import_module(f"silkvision.backends.{m}")
        except ModuleNotFoundError as e:
            if e.name != f"silkvision.backends.{m}":
                raise


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
