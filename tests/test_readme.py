"""The README's Python API block runs as pasted, and does what its comments say."""

import re
from pathlib import Path

import numpy as np
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.slow
def test_python_api_block_runs_as_pasted():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Python API\n\n```python\n(.*?)```", text, re.S).group(1)
    ns: dict = {}
    exec(compile(block, "README.md (Python API)", "exec"), ns)
    det, mask, clf = ns["det"], ns["mask"], ns["clf"]
    assert mask.shape == (240, 320) and mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 255}
    assert det.frames_seen == 400  # the sample's frames, and the state restored from its checkpoint
    assert det.get_background_image().shape == (240, 320, 3)
    assert ns["preds"].shape == (200,) and set(np.unique(ns["preds"])) <= {-1, 1}
    assert clf.n_support_ > 0 and "duol" in ns["backends"].available()
