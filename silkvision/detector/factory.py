"""``create_subtractor``: build any registered background subtractor from the configuration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silkvision.config import ALGORITHMS, validate
from silkvision.detector.base import BackgroundSubtractor
from silkvision.errors import ConfigError

__all__ = ["create_subtractor", "available_subtractors"]

SHARED_KEYS = ("colour_space", "median", "close", "fill_holes", "filter_width")


def available_subtractors() -> list[str]:
    """Names accepted by :func:`create_subtractor` on this installation."""
    from silkvision.detector.opencv import opencv_available

    return [a for a in ALGORITHMS if a in ("silk", "norma") or opencv_available(a)]


def create_subtractor(
    name: str | None = None, config: Mapping | None = None, **overrides: Any
) -> BackgroundSubtractor:
    """Create a background subtractor.

    Parameters
    ----------
    name : str, optional
        ``"silk"``, ``"norma"``, ``"mog2"``, ``"knn"`` (``"gsoc"``, ``"cnt"`` when opencv-contrib is
        installed). Default: ``config["detector"]["algorithm"]``.
    config : mapping, optional
        A (partial) configuration as loaded by :func:`silkvision.load_config`; default: built-in
        defaults.
    **overrides
        Keys of the algorithm's config section (e.g. ``tau=0.02``, ``omega=10``) or of the shared
        detector keys (``median``, ``close``, ``fill_holes``, ``filter_width``; ``colour_space`` for SILK/NORMA only:
        MOG2/KNN model BGR, and refuse it).

    Returns
    -------
    BackgroundSubtractor

    Examples
    --------
    >>> import silkvision as sv
    >>> det = sv.create_subtractor("silk", tau=0.02)
    """
    cfg = validate(config or {}, "config", cross=False)  # rules between keys: after the overrides
    if name is None:
        name = cfg["detector"]["algorithm"]
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise ConfigError(f"algorithm {name!r} is unknown; expected one of {', '.join(ALGORITHMS)}")
    section: dict | None = {"gsoc": {}, "cnt": {}}.get(name, None)
    det_cfg = cfg["detector"]
    params = dict(det_cfg.get(name, {}) if section is None else {})
    shared = {k: det_cfg[k] for k in SHARED_KEYS}
    # the OpenCV baselines model BGR themselves: a colour_space override would be ignored
    own = SHARED_KEYS if name in ("silk", "norma") else tuple(k for k in SHARED_KEYS if k != "colour_space")
    if name == "norma" and "lam" in overrides:  # NormaSubtractor's own name of "lambda" (repr, set_params)
        if "lambda" in overrides:
            raise ConfigError("norma: give lambda or lam, not both")
        overrides = {("lambda" if k == "lam" else k): v for k, v in overrides.items()}
    for k, v in overrides.items():
        if k in own:
            shared[k] = v
        elif k in params:
            params[k] = v
        else:
            allowed = ", ".join([*(("lambda (or lam)" if p == "lambda" else p) for p in params), *own])
            why = " (colour_space is SILK/NORMA's pixel feature)" if k == "colour_space" else ""
            raise ConfigError(f"{name}: unknown parameter {k!r}{why}; allowed: {allowed}")
    # re-validate the merged values so keyword overrides get the same checks as the config file
    check = {"detector": {**shared, **({name: params} if section is None else {})}}
    validate(check, "create_subtractor")
    if name == "silk":
        from silkvision.detector.silk import SilkSubtractor

        return SilkSubtractor(**params, **shared)
    if name == "norma":
        from silkvision.detector.norma import NormaSubtractor

        params["lam"] = params.pop("lambda")  # "lambda" is a Python keyword
        return NormaSubtractor(**params, **shared)
    from silkvision.detector.opencv import OpenCVSubtractor

    return OpenCVSubtractor(
        name,
        median=shared["median"],
        close=shared["close"],
        fill_holes=shared["fill_holes"],
        filter_width=shared["filter_width"],
        **params,
    )
