"""Sample data shipped with silkvision (in the spirit of ``skimage.data``).

>>> import silkvision as sv
>>> seq = sv.samples.highway()     # Path of a CDnet-layout folder (input/, groundtruth/, ...)
"""

from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path

from silkvision.errors import SourceError

__all__ = ["samples_dir", "highway"]

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
    raise SourceError("sample clip not found (looked in " + ", ".join(map(str, cands))
                      + "); reinstall silkvision (pip install .) or use a checkout of its source tree")


def highway() -> Path:
    """CDnet-layout clip cut from CDnet2014 baseline/highway (400 frames, 320x240, with ground
    truth, ``temporalROI.txt`` and ``ROI.bmp``). See ``samples/README.md`` for its provenance."""
    p = samples_dir() / "highway"
    if not (p / "input").is_dir():
        raise SourceError(f"{p}: sample clip is missing its input/ folder")
    return p
