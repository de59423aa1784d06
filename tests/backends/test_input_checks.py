"""Input checks of the online learners: zero-norm examples (DUOL), empty batches (ramp SVMs), bad
parameters (a ValueError naming the parameter, never a raw TypeError or a crash inside numba) and
``duol_rand(seed=None)``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from silkvision.backends import NoveltyDetector, available, create, get_class
from silkvision.backends.duol import duol_reference
from silkvision.backends.mercer import make_kernel
from tests.backends.streams import with_and_without_zero_rows

NAMES = sorted(available())
DUOL_NAMES = ["duol", "duol_appr", "duol_iter", "duol_nips", "duol_rand"]
RAMP_NAMES = ["online_svm_r", "online_svm_r_removal", "online_asvm_r"]


def _params(name) -> set:
    return set(inspect.signature(get_class(name).__init__).parameters) - {"self"}


# --------------------------------------------------------------------------- zero-norm examples
@pytest.mark.parametrize(
    "kernel", [dict(kernel="linear"), dict(kernel="poly", coef=0.0), dict(kernel="linear", cache_mb=0)]
)
@pytest.mark.parametrize("name", DUOL_NAMES)
def test_duol_skips_an_example_with_zero_kernel_norm(name, kernel):
    m = create(name, **kernel)
    m.learn_one([0.0, 0.0], 1)  # was a ZeroDivisionError in the numba loop
    assert m.n_support_ == 0 and m.n_updates_ == 0 and len(m.support_vectors_) == 0
    assert m.decision_function_one([0.0, 0.0]) == 0.0 and m.predict_one([0.0, 0.0]) == 1
    # in a stream, zero rows are predicted but change nothing: same model as without them
    pred, zero, with_zeros, without = with_and_without_zero_rows(name, **kernel)
    assert np.all(pred[zero] == 1.0)  # f(0) = 0 -> +1
    np.testing.assert_array_equal(with_zeros.support_vectors_, without.support_vectors_)
    np.testing.assert_array_equal(with_zeros.weights_, without.weights_)
    assert with_zeros.n_updates_ == without.n_updates_


@pytest.mark.parametrize("variant", ["exact", "appr", "iter", "rand"])
def test_duol_reference_skips_zero_norm_examples(variant):
    X = np.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.5], [0.0, 0.0], [0.5, -1.0]])
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0])
    _, S, _ = duol_reference(X, y, make_kernel("linear"), variant=variant)
    assert 1 not in S and 3 not in S


# --------------------------------------------------------------------------- empty batches
@pytest.mark.parametrize("name", RAMP_NAMES)
def test_ramp_empty_batch_is_a_no_op(name):
    m = create(name)
    assert m.progressive_predict(np.empty((0, 3)), []).shape == (0,)
    m.partial_fit(np.empty((0, 3)), [])
    assert m.n_features_ is None and m.n_support_ == 0 and m.n_seen_ == 0
    m.learn_one([1.0, 2.0], 1)  # was a numba shape error (state allocated with d=3)
    assert m.n_features_ == 2 and m.n_seen_ == 1
    assert m.predict(np.ones((2, 2))).shape == (2,)
    with pytest.raises(ValueError, match="features"):
        m.predict(np.ones((2, 3)))


# --------------------------------------------------------------------------- parameters
BIG = 10**20  # above int64
BAD = [
    ("sigma", "x"),
    ("sigma", None),
    ("sigma", [1, 2]),
    ("sigma", 10**400),
    ("coef", "x"),
    ("coef", None),
    ("coef", float("inf")),
    ("degree", None),
    ("degree", "x"),
    ("degree", float("nan")),
    ("degree", float("inf")),
    ("degree", BIG),
    ("kernel", ["rbf"]),
    ("kernel", None),
    ("C", "abc"),
    ("C", None),
    ("C", 10**400),
    ("C", "5"),
    ("C", True),
    ("sigma", "8"),
    ("sigma", True),
    ("coef", "1"),
    ("degree", True),
    ("degree", "2"),
    ("s", "0"),
    ("rho", "x"),
    ("rho", None),
    ("cache_mb", "x"),
    ("cache_mb", None),
    ("seed", float("inf")),
    ("seed", float("nan")),
    ("seed", "x"),
    ("seed", 2.0),
    ("seed", 1e300),
    ("coef", -1.0),
    ("coef", -1e-300),
    ("omega", BIG),
    ("omega", 2**63),
    ("n_classes", BIG),
    ("n_classes", 2**63),
    ("m", BIG),
    ("max_smo", BIG),
    ("max_cccp", 2**63),
]


@pytest.mark.parametrize("name", NAMES)
def test_bad_parameter_values_raise_value_error_naming_them(name):
    for param, value in BAD:
        if param in _params(name):
            with pytest.raises(ValueError, match=rf"^{param}: "):
                create(name, **{param: value})


@pytest.mark.parametrize("name", NAMES)
def test_large_values_are_accepted(name):
    good = {
        "sigma": 2,
        "cache_mb": BIG,
        "omega": 2**62,
        "m": 2**62,
        "max_smo": 2**62,
        "max_cccp": 2**62,
        "seed": 10**30,
    }
    est = create(name, **{p: v for p, v in good.items() if p in _params(name)})
    x = [0.0, 1.0]
    if isinstance(est, NoveltyDetector):
        est.learn_one(x)
        assert np.isfinite(est.score_one(x))
    else:
        est.learn_one(x, 1)  # the int64 values reach the numba loops
        est.predict_one(x)
    assert est.n_features_ == 2


def test_kernel_aliases_are_documented_and_named_in_the_error():
    """``gaussian`` and ``polynomial`` are accepted aliases: the error for an unknown kernel and the
    kernels module's docstring list them; the model uses the canonical kernel while its ``kernel``
    parameter (and so ``repr`` and ``clone``) keeps the name as given."""
    from silkvision.backends import mercer as kernels

    with pytest.raises(
        ValueError,
        match=r"^kernel: 'bogus' is unknown; expected 'rbf' \(alias 'gaussian'\), "
        r"'poly' \(alias 'polynomial'\) or 'linear'$",
    ):
        create("pa1", kernel="bogus")
    for alias, name in (("gaussian", "rbf"), ("polynomial", "poly")):
        m = create("pa1", kernel=alias)
        assert m.kernel_.name == name and m.kernel == alias and f"kernel={alias!r}" in repr(m)
        assert f'``"{alias}"``' in kernels.__doc__


def test_unhashable_backend_name():
    with pytest.raises(ValueError, match="backend"):
        create(["duol"])
    with pytest.raises(ValueError, match="backend"):
        get_class(None)


# --------------------------------------------------------------------------- duol_rand(seed=None)
def test_duol_rand_seed_none_draws_fresh_entropy():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=300) > 0, 1.0, -1.0)
    runs = []
    for seed in (None, None, 0):
        m = create("duol_rand", seed=seed)
        m.progressive_predict(X, y)
        runs.append(m.weights_)
    assert not np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2])
    assert "None" in get_class("duol_rand").__doc__


@pytest.mark.parametrize("name", ["pa1", "duol", "mduol", "online_svm_r", "silk_novelty"])
def test_clone_dict_features_and_boolean_labels_are_value_errors(name):
    est = create(name)
    with pytest.raises(ValueError, match="unknown parameter 'bad'"):
        est.clone(bad=1)
    learn = est.learn_one if isinstance(est, NoveltyDetector) else (lambda x: est.learn_one(x, 1))
    with pytest.raises(ValueError, match="^x: a dict of features"):
        learn({"a": 1.0})
    with pytest.raises(ValueError, match="^x: expected an array of numbers"):
        learn(["a", "b"])
    if name in ("pa1", "duol", "online_svm_r"):
        for label in (True, False):
            with pytest.raises(ValueError, match="booleans"):
                est.learn_one([1.0, 2.0], label)


def test_bad_labels_are_shown_as_given():
    """Messages used to show NumPy reprs (np.int64(0), np.str_('1')) of plain Python labels."""
    for label, shown in ((0, "0"), (np.int8(2), "2")):
        with pytest.raises(ValueError, match=f"^y: binary labels must be -1 or \\+1, got {shown}$"):
            create("pa1").learn_one([0.0, 1.0], label)
    # a label read as text from a file: the message says it is a string, not a bad number
    for label in ("1", np.array(["-1", "1"])):
        with pytest.raises(
            ValueError,
            match=r"^y: binary labels must be the numbers -1 or \+1, got the "
            r"string '-?1' \(convert the labels to numbers, e.g. y.astype\(int\)\)",
        ):
            create("pa1").partial_fit(np.zeros((np.size(label), 2)), np.atleast_1d(label))
    with pytest.raises(
        ValueError, match=r"got the string 'spam' \(convert the labels to numbers, e.g. np.where"
    ):
        create("pa1").partial_fit(np.zeros((2, 2)), np.array(["spam", "ham"]))
    with pytest.raises(ValueError, match="^y: multiclass labels must be integers or strings, got 2.5$"):
        create("mpa1").partial_fit(np.zeros((1, 2)), np.array([np.float32(2.5)], dtype=object))


@pytest.mark.parametrize("name", ["pa1", "duol", "mduol", "online_svm_r", "silk_novelty", "mpa1"])
def test_a_rejected_example_or_a_prediction_does_not_fix_the_feature_count(name):
    est = create(name)
    novelty = isinstance(est, NoveltyDetector)
    (est.score_one if novelty else est.predict_one)([1.0, 2.0])  # a prediction on 2 features
    if not novelty:
        with pytest.raises(ValueError, match="y"):
            est.learn_one([1.0, 2.0], 2.5)  # a rejected label
    assert est.n_features_ is None
    est.learn_one([1.0, 2.0, 3.0]) if novelty else est.learn_one([1.0, 2.0, 3.0], 1)
    assert est.n_features_ == 3
    with pytest.raises(ValueError, match="features"):
        (est.score_one if novelty else est.predict_one)([1.0, 2.0])


@pytest.mark.parametrize("name", ["pa1", "perceptron", "duol", "mpa1", "norma"])
def test_a_prediction_whose_kernel_overflows_is_refused_not_nan(name):
    """x = 1e308 under the linear kernel: k(x, x) = inf would make f(x) NaN and predict_one answer -1."""
    est = create(name, kernel="linear")
    est.partial_fit(
        np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 1.0]]),
        np.array([1, -1, 1]) if name != "mpa1" else np.array([0, 1, 0]),
    )
    x = np.array([1e308, 1e308])
    for f in (est.decision_function_one, est.predict_one, lambda v: est.predict(v[None, :])):
        with pytest.raises(ValueError, match=r"^x: k\(x, x\) = inf overflows .*neither learned nor scored"):
            f(x)


@pytest.mark.parametrize(
    "value, msg",
    [
        ("inf", "'inf' must be a finite number"),
        ("8", "'8' is a string; it must be a number"),
        ("abc", "'abc' must be a number"),
    ],
)
def test_a_numeric_string_parameter_is_named_as_a_string(value, msg):
    with pytest.raises(ValueError, match=f"^C: {msg}"):
        create("pa1", C=value)


@pytest.mark.parametrize("name", ["mduol", "mduol_appr", "mpa1", "perceptron_max", "silk_multi"])
def test_one_class_is_not_a_multiclass_problem(name):
    for bad in (1, 0, -3, 2.5, True):
        with pytest.raises(ValueError, match=rf"^n_classes: {bad!r} must be None or an integer >= 2"):
            create(name, n_classes=bad)
    assert create(name, n_classes=2).n_classes == 2
