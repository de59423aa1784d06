"""The plain NumPy ``*_reference`` helpers on streams that store nothing: an empty stream, and a stream
of zero vectors under the linear kernel (``k(x, x) = 0``, which no learner stores). They must return
``(0, d)`` support-vector arrays and agree with their learners, not crash on ``reshape(0, -1)`` or
divide by ``k(x, x)``."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import create
from silkvision.backends.alma import alma_reference
from silkvision.backends.ilk import ilk_reference
from silkvision.backends.multiclass import multiclass_reference
from silkvision.backends.norma import norma_reference
from silkvision.backends.novelty import norma_novelty_reference, silk_novelty_reference
from silkvision.backends.passive_aggressive import pa_reference
from silkvision.backends.perceptron import perceptron_reference
from silkvision.backends.romma import romma_reference

# learner, kind, its reference helper and the helper's arguments for that learner
CASES = [
    ("norma", "binary", norma_reference, {}),
    ("tnorma", "binary", norma_reference, {"omega": 100}),
    ("ilk", "binary", ilk_reference, {}),
    ("silk", "binary", ilk_reference, {"omega": 100}),
    ("pa", "binary", pa_reference, {"variant": 0}),
    ("pa1", "binary", pa_reference, {"variant": 1}),
    ("pa2", "binary", pa_reference, {"variant": 2}),
    ("perceptron", "binary", perceptron_reference, {}),
    ("romma", "binary", romma_reference, {}),
    ("aggromma", "binary", romma_reference, {"aggressive": True}),
    ("alma", "binary", alma_reference, {}),
    ("silk_novelty", "novelty", silk_novelty_reference, {}),
    ("norma_novelty", "novelty", norma_novelty_reference, {}),
]
CASES += [
    (name, "multi", multiclass_reference, {"algorithm": alg})
    for name, alg in [
        ("perceptron_max", "max"),
        ("perceptron_uniform", "uniform"),
        ("perceptron_prop", "prop"),
        ("mpa1", "pa1"),
        ("mpa2", "pa2"),
        ("silk_multi", "silk"),
    ]
]
D = 3


def _reference(ref, kind, X, y, **kw):
    return ref(X, kernel="linear", **kw) if kind == "novelty" else ref(X, y, kernel="linear", **kw)


@pytest.mark.parametrize("name,kind,ref,kw", CASES)
def test_reference_on_an_empty_stream_returns_empty_arrays(name, kind, ref, kw):
    """No example, nothing stored: ``(0, d)`` support vectors, ``(0,)`` coefficients (``(0, K)`` for
    the multiclass helper, K = ``n_classes``) and no predictions."""
    if kind == "multi":
        kw = dict(kw, n_classes=4)
    out = _reference(ref, kind, np.zeros((0, D)), np.zeros(0), **kw)
    assert out[0].shape == (0,)
    assert out[1].shape == (0, D) and out[1].dtype == np.float64
    assert out[2].shape == ((0, 4) if kind == "multi" else (0,)) and out[2].dtype == np.float64


@pytest.mark.parametrize("name,kind,ref,kw", CASES)
def test_reference_on_zero_vectors_stores_nothing_like_its_learner(name, kind, ref, kw):
    """Six zero vectors under the linear kernel: the learner stores none of them, so the helper must
    store none either (some divided by ``k(x, x) = 0`` or stored an infinite step) and return
    ``(0, d)`` support vectors, with the learner's predictions or scores."""
    X = np.zeros((6, D))
    y = np.array([1.0, -1.0] * 3) if kind == "binary" else np.array([0, 1, 2] * 2)
    est = create(name, kernel="linear")
    got = est.progressive_score(X) if kind == "novelty" else est.progressive_predict(X, y)
    assert est.n_support_ == 0
    with np.errstate(all="raise"):
        out = _reference(ref, kind, X, y, **kw)
    assert out[1].shape == (0, D)
    assert out[2].shape == ((0, 3) if kind == "multi" else (0,))
    if kind != "multi":  # the multiclass learners predict None before the first label
        np.testing.assert_array_equal(out[0], got)
