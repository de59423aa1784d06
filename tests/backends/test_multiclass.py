"""Multiclass Perceptron Max/Uniform/Prop, PA-I/PA-II and SILK: updates by hand, reference agreement."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends import MultiClassifier, available, create, get_class
from silkvision.backends.multiclass import multiclass_reference

ONE = [1.0]
MULTI = [n for n in sorted(available()) if issubclass(get_class(n), MultiClassifier)]


@pytest.mark.parametrize(
    "name,second_row",
    [
        ("perceptron_max", [1.0, 0.0, -1.0]),
        ("perceptron_uniform", [1.0, -0.5, -0.5]),
        ("perceptron_prop", [1.0, 0.0, -1.0]),
    ],
)
def test_perceptron_updates_by_hand(name, second_row):
    clf = create(name, kernel="linear", n_classes=3)
    assert clf.predict_one(ONE) == 0  # all scores 0: the lowest index
    clf.learn_one(ONE, 2)  # predicted 0: mistake; classes 0,1 tie at 0
    first = {"perceptron_max": [-1.0, 0.0, 1.0]}.get(name, [-0.5, -0.5, 1.0])
    np.testing.assert_allclose(clf.dual_coef_, [first])
    assert clf.n_classes_ == 3
    # scores now first-row values; label 0 -> Max: runner-up 2; Uniform/Prop: error set
    # {1 (gap 0), 2 (gap 1.5)} -> (-0.5, -0.5) / (0, -1)
    np.testing.assert_allclose(clf.decision_function_one(ONE), first)
    clf.learn_one(ONE, 0)
    np.testing.assert_allclose(clf.dual_coef_[1], second_row)


def test_pa_and_silk_steps_by_hand():
    x = [1.0, 0.0]
    pa = create("mpa1", kernel="linear", C=1.0, n_classes=2)
    pa.learn_one(x, 1)  # runner-up class 0, loss 1, tau = min(1, 1/(2*1)) = 0.5
    np.testing.assert_allclose(pa.dual_coef_, [[-0.5, 0.5]])
    pa2 = create("mpa2", kernel="linear", C=0.5, n_classes=2)
    pa2.learn_one(x, 1)  # tau = 1 / (2 + 1/(2*0.5)) = 1/3
    np.testing.assert_allclose(pa2.dual_coef_, [[-1 / 3, 1 / 3]])
    silk = create("silk_multi", kernel="linear", C=10.0, tau=0.5, rho=1.0, n_classes=2)
    silk.learn_one(x, 1)  # alpha_hat = (1 - 0.5 * 0) / 2 = 0.5
    np.testing.assert_allclose(silk.dual_coef_, [[-0.5, 0.5]])
    silk.learn_one(x, 1)  # f_1 - f_0 = 1: alpha_hat = (1 - 0.5) / 2 = 0.25; old row halves
    np.testing.assert_allclose(silk.dual_coef_, [[-0.25, 0.25], [-0.25, 0.25]])
    # a first example of class 0 alone has no runner-up: nothing to learn
    lone = create("mpa1")
    lone.learn_one(x, 0)
    assert lone.n_support_ == 0 and lone.predict_one(x) == 0


@pytest.mark.parametrize("label", [0, 1])
def test_silk_multi_step_is_clipped_to_the_decayed_box_not_to_c(label):
    """alpha_hat = rho / (2 k) = 0.995 lies in the band ``((1 - tau) C, C]``: it must be clipped to
    ``(1 - tau) C = 0.99`` (the steps by hand above never reach the box)."""
    clf = create("silk_multi", C=1.0, tau=0.01, rho=1.99, omega=None, n_classes=2)
    clf.partial_fit([[0.0, 0.0]], [label])  # RBF: k = 1, all scores 0
    row = [0.99, -0.99] if label == 0 else [-0.99, 0.99]
    np.testing.assert_allclose(clf.dual_coef_, [row], rtol=1e-15)
    _, _, A = multiclass_reference([[0.0, 0.0]], [label], "silk", C=1.0, tau=0.01, rho=1.99, n_classes=2)
    np.testing.assert_allclose(A, [row], rtol=1e-15)


def test_silk_multi_buffer_evicts_the_weakest_row():
    clf = create("silk_multi", sigma=1.0, C=10.0, tau=0.1, omega=2)
    clf.learn_one([0.0, 0.0], 1)  # row alpha 0.5
    clf.learn_one([100.0, 0.0], 0)  # first row decays to 0.45; new 0.5
    clf.learn_one([-100.0, 0.0], 1)  # rows 0.405, 0.45, new 0.5 -> drop the first
    assert clf.n_support_ == 2
    assert sorted(np.abs(clf.dual_coef_).max(axis=1)) == pytest.approx([0.45, 0.5])


DATA = np.random.default_rng(7)


@pytest.mark.parametrize(
    "name,alg,kw",
    [
        ("perceptron_max", "max", {}),
        ("perceptron_uniform", "uniform", {}),
        ("perceptron_prop", "prop", {}),
        ("mpa1", "pa1", {"C": 0.4}),
        ("mpa2", "pa2", {"C": 0.4}),
        ("silk_multi", "silk", {"C": 2.0, "tau": 0.02, "omega": None}),
        ("silk_multi", "silk", {"C": 2.0, "tau": 0.02, "omega": 25}),
    ],
)
def test_matches_reference(name, alg, kw):
    rng = np.random.default_rng(8)
    centres = rng.normal(size=(4, 3)) * 1.5
    y = rng.integers(0, 4, 150)
    X = centres[y] + rng.normal(size=(150, 3))
    # the learner numbers classes as they arrive, the reference takes labels as indices: relabel so
    # that both number them alike
    y = np.array([list(dict.fromkeys(y.tolist())).index(v) for v in y])
    clf = create(name, sigma=1.3, **kw)
    pred = clf.progressive_predict(X, y)
    rp, SV, A = multiclass_reference(X, y, alg, sigma=1.3, **kw)
    order = np.argsort(clf._store.stamp[: clf.n_support_])
    assert pred[0] is None  # no class to predict before the first label
    np.testing.assert_array_equal(pred[1:].astype(np.int64), rp[1:])
    np.testing.assert_allclose(clf.support_vectors_[order], SV)
    np.testing.assert_allclose(clf.dual_coef_[order], A, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["perceptron_max", "mpa1", "silk_multi", "mduol"])
def test_new_labels_extend_the_scores(name):
    """Without ``n_classes`` the classes are the labels that arrived, in that order; a label that
    never arrived is never predicted (labels 4 and 9 leave no phantom classes 0-3 or 5-8)."""
    clf = create(name, sigma=1.0)
    assert clf.predict_one([0.0, 0.0]) is None and clf.decision_function_one([0.0, 0.0]).shape == (0,)
    clf.learn_one([0.0, 0.0], 4)
    assert clf.decision_function_one([0.0, 0.0]).shape == (1,) and clf.predict_one([0.0, 0.0]) == 4
    for _ in range(3):
        clf.learn_one([3.0, 3.0], 9)
        clf.learn_one([0.0, 0.0], 4)
    assert clf.n_classes_ == 2 and list(clf.classes_) == [4, 9]
    assert clf.decision_function_one([0.0, 0.0]).shape == (2,)
    assert clf.predict_one([3.0, 3.0]) == 9 and clf.predict_one([0.0, 0.0]) == 4
    assert set(clf.predict(np.array([[50.0, 50.0], [3.0, 3.0], [0.0, 0.0]]))) <= {4, 9}


@pytest.mark.parametrize("name", ["perceptron_uniform", "mpa2", "mduol_iter"])
def test_string_labels_round_trip(name):
    rng = np.random.default_rng(3)
    names = np.array(["cat", "dog", "owl"])
    y = rng.integers(0, 3, 90)
    X = np.array([[3.0, 0.0], [-3.0, 0.0], [0.0, 3.0]])[y] + 0.3 * rng.normal(size=(90, 2))
    clf = create(name, sigma=1.0)
    pred = clf.progressive_predict(X, names[y])
    assert pred[0] is None and set(pred[1:]) <= set(names)
    assert np.mean(pred[30:] != names[y][30:]) < 0.1
    assert set(clf.classes_) == set(names) and clf.predict(X[:5]).dtype.kind == "U"
    with pytest.raises(ValueError, match="y"):
        clf.learn_one(X[0], 2.5)


@pytest.mark.parametrize("name", MULTI)
def test_predict_keeps_the_label_types(name):
    """``predict`` returns what ``predict_one`` returns: with ints and strings mixed, an object array
    (NumPy would turn the ints 1 and 2 into the strings '1' and '2'); for an empty ``X`` an array of
    the labels' dtype, in ``predict`` and ``progressive_predict``."""
    X = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0], [10.0, 10.0]])
    clf = create(name, sigma=1.0)
    clf.partial_fit(np.tile(X, (5, 1)), np.tile(np.array([1, "1", 2, "b"], dtype=object), 5))
    pred = clf.predict(X)
    assert pred.dtype == object and clf.classes_.dtype == object
    assert (
        [(type(p), p) for p in pred]
        == [(type(p), p) for p in map(clf.predict_one, X)]
        == [(int, 1), (str, "1"), (int, 2), (str, "b")]
    )
    assert clf.predict(np.empty((0, 2))).dtype == object
    for labels, kind in ((["a", "b", "a", "c"], "U"), ([3, 5, 3, 5], "i")):
        clf = create(name, sigma=1.0).partial_fit(X, labels)
        assert clf.predict(np.empty((0, 2))).dtype.kind == kind
        assert clf.progressive_predict(np.empty((0, 2)), []).dtype.kind == kind
        assert clf.predict(X).dtype.kind == kind
    assert create(name).predict(np.empty((0, 2))).dtype == np.int64  # no class yet
    assert create(name).predict(X).tolist() == [None] * 4


def test_parameters():
    from silkvision.backends.multiclass import MulticlassPerceptron

    with pytest.raises(ValueError, match="update"):
        MulticlassPerceptron(update="softmax")
    with pytest.raises(ValueError, match="rho"):
        create("silk_multi", rho=0)


@pytest.mark.parametrize(
    "name,alg",
    [("perceptron_uniform", "uniform"), ("perceptron_prop", "prop"), ("mpa1", "pa1"), ("silk_multi", "silk")],
)
def test_classes_known_upfront(name, alg):
    """With ``n_classes`` every score takes part from the first example (the papers' protocol)."""
    rng = np.random.default_rng(12)
    y = rng.integers(1, 4, 100)  # class 0 never occurs, still scored
    X = np.eye(5)[y][:, :4] * 2 + rng.normal(size=(100, 4))
    clf = create(name, n_classes=5)
    assert clf.n_classes_ == 5 and clf.decision_function_one(X[0]).shape == (5,)
    pred = clf.progressive_predict(X, y)
    rp, SV, A = multiclass_reference(X, y, alg, n_classes=5)
    order = np.argsort(clf._store.stamp[: clf.n_support_])
    np.testing.assert_array_equal(pred, rp)
    np.testing.assert_allclose(clf.dual_coef_[order], A, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="n_classes"):
        clf.learn_one(X[0], 5)
    with pytest.raises(ValueError, match="n_classes"):
        create(name, n_classes=0)


def test_multiclass_silk_without_decay_or_budget_is_multiclass_pa1():
    """tau = 0 and no budget: multiclass SILK (eq. 18 loss) makes multiclass PA-I's predictions,
    as BENCHMARKS section 7 says (the decay is then the only difference)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 5))
    y = rng.integers(0, 4, 300)
    a = create("silk_multi", tau=0.0, C=0.7, omega=None, n_classes=4).progressive_predict(X, y)
    b = create("mpa1", C=0.7, n_classes=4).progressive_predict(X, y)
    np.testing.assert_array_equal(a, b)
