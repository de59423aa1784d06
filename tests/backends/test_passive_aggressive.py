"""PA / PA-I / PA-II: a step worked by hand, and agreement with the NumPy reference."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.passive_aggressive import pa_reference, pa_step_size


def test_pa1_steps_by_hand():
    clf = create("pa1", kernel="linear", C=1.0)
    clf.learn_one([1.0, 2.0], 1)  # f = 0, loss 1, k = 5: tau = min(1, 1/5) = 0.2
    np.testing.assert_allclose(clf.dual_coef_, [0.2])
    clf.learn_one([2.0, 0.0], -1)  # f = 0.2 * 2 = 0.4, loss 1.4, k = 4: tau = 0.35
    np.testing.assert_allclose(clf.dual_coef_, [0.2, -0.35])
    assert clf.decision_function_one([1.0, 1.0]) == pytest.approx(0.2 * 3 - 0.35 * 2)
    clf.learn_one([0.0, 10.0], 1)  # f = 4 >= 1: passive
    assert clf.n_support_ == 2


def test_step_sizes():
    assert pa_step_size(1.0, 5.0, 0, 0.1) == pytest.approx(0.2)  # PA ignores C
    assert pa_step_size(1.0, 5.0, 1, 0.1) == pytest.approx(0.1)  # PA-I caps at C
    assert pa_step_size(1.0, 5.0, 2, 0.5) == pytest.approx(1 / 6)  # PA-II: 1 / (5 + 1/(2*0.5))
    assert pa_step_size(0.0, 5.0, 1, 1.0) == 0.0


@pytest.mark.parametrize("variant,name", [(0, "pa"), (1, "pa1"), (2, "pa2")])
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_matches_reference(variant, name, kernel):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] - X[:, 2] + 0.4 * rng.normal(size=150) > 0, 1.0, -1.0)
    clf = create(name, kernel=kernel, C=0.3)
    pred = clf.progressive_predict(X, y)
    rp, SV, a = pa_reference(X, y, variant, C=0.3, kernel=kernel)
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.support_vectors_, SV)
    np.testing.assert_allclose(clf.dual_coef_, a, rtol=1e-9, atol=1e-12)
