"""Shared fixtures. Tests that need ``../shared/data`` are skipped cleanly when it is absent."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A suite started in the background (``make test &``, some CI runners) inherits SIGINT as ignored,
# and silkvision deliberately keeps an inherited SIG_IGN (export, online-bench); the Ctrl-C tests
# would then see no Ctrl-C. They need Python's default handler, here and in their child processes.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("SILKVISION_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (skips the test when absent)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} not present")
    return SHARED_DATA


@pytest.fixture(scope="session")
def sample_seq() -> Path:
    """The shipped CDnet-layout sample clip."""
    import silkvision as sv

    return sv.samples.highway()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)
