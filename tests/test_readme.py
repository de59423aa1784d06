"""The README and the docs' code blocks run as pasted, and do what their comments say."""

import re
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PYTHON_API = REPO / "docs" / "python-api.md"


def _block(path: Path, heading: str) -> str:
    text = path.read_text(encoding="utf-8")
    return re.search(rf"{re.escape(heading)}\n\n(?:[^\n]+\n)*?\n?```python\n(.*?)```", text, re.S).group(1)


def test_readme_python_example_runs_as_pasted():
    block = _block(README, "## Python")
    assert len(block.strip().splitlines()) <= 8  # a short example, not the API tour
    ns: dict = {}
    exec(compile(block, "README.md (Python)", "exec"), ns)
    det, mask = ns["det"], ns["mask"]
    assert mask.shape == (240, 320) and mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 255}
    assert det.frames_seen == 400  # the whole sample clip
    assert det.scores.shape == (240, 320) and det.scores.dtype == np.float32


@pytest.mark.slow
def test_python_api_block_runs_as_pasted():
    block = _block(PYTHON_API, "# Python API")
    ns: dict = {}
    exec(compile(block, "docs/python-api.md", "exec"), ns)
    det, mask, clf = ns["det"], ns["mask"], ns["clf"]
    assert mask.shape == (240, 320) and mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 255}
    assert det.frames_seen == 400  # the sample's frames, and the state restored from its checkpoint
    assert det.get_background_image().shape == (240, 320, 3)
    assert ns["preds"].shape == (200,) and set(np.unique(ns["preds"])) <= {-1, 1}
    assert clf.n_support_ > 0 and "duol" in ns["backends"].available()


def test_readme_stays_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 160
