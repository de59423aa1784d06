"""Sample data shipped with silkvision (in the spirit of ``skimage.data``).

Three short CDnet-layout clips with ground truth, each a different kind of scene (see
``samples/README.md`` for their provenance):

>>> import silkvision as sv
>>> seq = sv.samples.highway()     # Path of a CDnet-layout folder (input/, groundtruth/, ...)
>>> sv.samples.CLIPS                # doctest: +NORMALIZE_WHITESPACE
('highway', 'office', 'pets2001_illumination')
"""

from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path

from silkvision.errors import SourceError

__all__ = ["CLIPS", "SCENES", "samples_dir", "clip", "highway", "office", "pets2001_illumination"]

#: What each shipped clip shows, by name (the order in which ``silkvision demo`` runs them).
SCENES = {
    "highway": "outdoor traffic, cars all the time",
    "office": "indoor, a person walks in and stands still",
    "pets2001_illumination": "outdoor, clouds change the light",
}
CLIPS = tuple(SCENES)

# ``samples/`` at the top of a source tree (an editable install or a checkout on sys.path).
_SOURCE_SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def _candidates() -> list[Path]:
    """Where the samples may be: the source tree (editable install), then the ``share/`` folder a
    wheel installs its data files into (``pyproject.toml``, ``[tool.setuptools.data-files]``) for
    the environment, the Python prefix and a ``--user`` install."""
    out = [_SOURCE_SAMPLES]
    bases = [sysconfig.get_path("data"), sys.prefix]
    user = getattr(site, "USER_BASE", None)
    if user:
        bases.append(user)
    for base in bases:
        cand = Path(base) / "share" / "silkvision" / "samples"
        if cand not in out:
            out.append(cand)
    return out


def samples_dir() -> Path:
    """Folder holding the shipped samples: ``samples/`` at the top of the source tree, or
    ``<prefix>/share/silkvision/samples`` after a wheel install."""
    cands = _candidates()
    for cand in cands:
        if (cand / "highway").is_dir():
            return cand
    raise SourceError(
        "sample clip not found (looked in "
        + ", ".join(map(str, cands))
        + "); reinstall silkvision (pip install .) or use a checkout of its source tree"
    )


def clip(name: str) -> Path:
    """The shipped clip ``name`` (one of :data:`CLIPS`): a CDnet-layout folder with ``input/``,
    ``groundtruth/`` and ``temporalROI.txt``."""
    if name not in SCENES:
        raise SourceError(f"sample {name!r} is unknown; expected one of {', '.join(CLIPS)}")
    p = samples_dir() / name
    if not (p / "input").is_dir():
        raise SourceError(f"{p}: sample clip is missing its input/ folder")
    return p


def highway() -> Path:
    """CDnet-layout clip cut from CDnet2014 baseline/highway (400 frames, 320x240, with ground
    truth, ``temporalROI.txt`` and ``ROI.bmp``). See ``samples/README.md`` for its provenance."""
    return clip("highway")


def office() -> Path:
    """CDnet-layout clip cut from CDnet2014 baseline/office (330 frames, 360x240): a person walks
    in and stands still, reading, for the last 120 frames. See ``samples/README.md``."""
    return clip("office")


def pets2001_illumination() -> Path:
    """CDnet-layout clip of PETS2001 Dataset 3 (201 frames, 320x240): people on a campus while
    clouds brighten and darken the scene. See ``samples/README.md``."""
    return clip("pets2001_illumination")
