"""Every check of ``contract.py`` on every registered background subtractor.

The detectors come from the registry (:func:`silkvision.detector.available_subtractors`); those
that need a package this installation lacks (GSOC and CNT need opencv-contrib) are skipped with
the reason.
"""

from __future__ import annotations

import pytest

from silkvision.config import ALGORITHMS
from silkvision.detector import available_subtractors

from .contract import CHECKS

AVAILABLE = set(available_subtractors())

# Where a detector breaks the contract for a reason outside silkvision: the check is expected to
# fail (strictly: a fixed OpenCV makes the test fail until the entry is removed).
KNOWN_BREAKS = {
    (
        "knn",
        "check_learning_rate_zero_does_not_learn",
    ): "OpenCV's KNN keeps updating its model at learningRate=0 (opencv/opencv#24226)",
    (
        "gsoc",
        "check_learning_rate_zero_does_not_learn",
    ): "OpenCV's GSOC keeps updating its model at learningRate=0 (opencv/opencv_contrib#3557)",
}


def _cases():
    for name in ALGORITHMS:
        for check in CHECKS:
            marks = []
            if name not in AVAILABLE:
                marks.append(pytest.mark.skip(reason=f"{name} is not available here (needs opencv-contrib)"))
            elif (name, check.__name__) in KNOWN_BREAKS:
                marks.append(pytest.mark.xfail(reason=KNOWN_BREAKS[name, check.__name__], strict=True))
            yield pytest.param(name, check, id=f"{name}-{check.__name__.removeprefix('check_')}", marks=marks)


def test_the_registry_holds_the_core_detectors():
    """SILK, NORMA, MOG2 and KNN are always available; every available name is a known algorithm."""
    assert {"silk", "norma", "mog2", "knn"} <= AVAILABLE <= set(ALGORITHMS)


@pytest.mark.parametrize("name,check", list(_cases()))
def test_contract(name, check):
    check(name)
