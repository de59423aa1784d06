"""Small streams shared by the backend tests."""

from __future__ import annotations

import numpy as np

from silkvision.backends import create


def with_and_without_zero_rows(name: str, **params):
    """Learn a 120-example stream whose rows are 30 % zero vectors, and the same stream without them.

    Returns ``(predictions on the full stream, zero-row mask, learner on the full stream, learner on
    the stream without the zero rows)``: a learner that skips ``k(x, x) = 0`` examples must end up
    with the same model either way.
    """
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=120) > 0, 1.0, -1.0)
    zero = rng.random(120) < 0.3
    X[zero] = 0.0
    with_zeros = create(name, **params)
    pred = with_zeros.progressive_predict(X, y)
    without = create(name, **params)
    without.progressive_predict(X[~zero], y[~zero])
    return pred, zero, with_zeros, without
