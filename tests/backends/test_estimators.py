"""Generic checks that EVERY registered online learner must pass (river style).

Each test is parametrised over :func:`silkvision.backends.available`; the data (binary, multiclass or
novelty) is picked from the learner's base class. Algorithm-specific maths is tested in the
``test_<module>.py`` files.
"""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest

from silkvision.backends import (
    BinaryClassifier,
    MultiClassifier,
    NoveltyDetector,
    available,
    create,
    get_class,
)
from silkvision.backends.mercer import SIGMA_MIN, kernel_matrix_reference

NAMES = sorted(available())


def _params(name) -> set:
    return set(inspect.signature(get_class(name).__init__).parameters) - {"self"}


def _make(name, **kw):
    if "seed" in _params(name):
        kw.setdefault("seed", 0)
    return create(name, **kw)


def _kind(name) -> str:
    cls = get_class(name)
    if issubclass(cls, BinaryClassifier):
        return "binary"
    if issubclass(cls, MultiClassifier):
        return "multi"
    assert issubclass(cls, NoveltyDetector), f"{name}: unknown base class"
    return "novelty"


def _data(kind, n=200, seed=1):
    """Well-separated blobs (binary: 2 classes, multi: 3 classes); novelty: a single blob."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        y = rng.choice([-1.0, 1.0], n)
        X = y[:, None] * np.array([2.0, 2.0]) + 0.7 * rng.normal(size=(n, 2))
        return X, y
    if kind == "multi":
        centres = np.array([[3.0, 0.0], [-1.5, 2.6], [-1.5, -2.6]])
        y = rng.integers(0, 3, n)
        return centres[y] + 0.7 * rng.normal(size=(n, 2)), y
    return rng.normal(size=(n, 2)), None


def _stream(est, X, y):
    if isinstance(est, NoveltyDetector):
        return est.progressive_score(X)
    return est.progressive_predict(X, y)


def _python_loop(est, X, y):
    out = []
    for i in range(len(X)):
        if isinstance(est, NoveltyDetector):
            out.append(est.score_one(X[i]))
            est.learn_one(X[i])
        else:
            out.append(est.predict_one(X[i]))
            est.learn_one(X[i], y[i])
    return np.array(out)


def test_registry_lists_the_first_order_learners():
    """A spot check of well-known names; that the registry holds *every* learner defined in the
    source (so that none drops out of this suite) is checked by ``test_registry.py``."""
    for name in [
        "perceptron",
        "pa",
        "pa1",
        "pa2",
        "romma",
        "aggromma",
        "alma",
        "norma",
        "tnorma",
        "ilk",
        "silk",
        "perceptron_max",
        "perceptron_uniform",
        "perceptron_prop",
        "mpa1",
        "mpa2",
        "silk_multi",
        "silk_novelty",
        "norma_novelty",
    ]:
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_defaults_kernel_params_and_clone(name):
    est = _make(name)
    assert repr(est).startswith(type(est).__name__)
    for p in ("kernel", "sigma", "degree", "coef"):
        assert p in _params(name), f"{name} must accept {p}"
    X, y = _data(_kind(name), 30)
    _stream(est, X, y)
    twin = est.clone()
    assert type(twin) is type(est) and twin._get_params() == est._get_params()
    assert twin.n_support_ == 0 and twin.n_features_ is None
    other = est.clone(sigma=2.5)
    assert other.sigma == 2.5 and other.kernel == est.kernel


@pytest.mark.parametrize("name", NAMES)
def test_get_params_rebuilds_the_same_learner(name):
    est = _make(name)
    params = est.get_params()
    assert list(params) == [p for p in inspect.signature(get_class(name).__init__).parameters if p != "self"]
    assert repr(create(name, **params)) == repr(est)


@pytest.mark.parametrize("name", NAMES)
def test_parameters_cannot_be_assigned_after_construction(name):
    """``clf.C = x`` used to be read back (and shown by repr and clone) while the learner kept
    using the value it was built with."""
    est = _make(name)
    for p in _params(name):
        before = getattr(est, p)
        with pytest.raises(AttributeError, match=f"^{p}: parameters are fixed .*clone\\({p}="):
            setattr(est, p, before)
        assert getattr(est, p) is before
    est.note = "mine"  # other attributes stay free
    assert est.note == "mine"
    for p in _params(name):  # a misspelt parameter made a new, unread attribute
        typo = p.swapcase() if p.swapcase() != p else p + "x"
        with pytest.raises(AttributeError, match=f"no parameter '{typo}'; did you mean '{p}'"):
            setattr(est, typo, 1)


@pytest.mark.parametrize("name", NAMES)
def test_bad_parameters_raise_value_error_naming_them(name):
    with pytest.raises(ValueError, match="sigma"):
        _make(name, sigma=-1.0)
    with pytest.raises(ValueError, match="kernel"):
        _make(name, kernel="bogus")
    with pytest.raises(ValueError, match="nonsense"):
        _make(name, nonsense=1)
    for p in ("C", "eta", "tau", "omega", "lam"):
        if p in _params(name):
            with pytest.raises(ValueError, match=p):
                _make(name, **{p: -1})


# learners whose decision function is the expansion over the normalised input x / sqrt(k(x, x))
NORMALISED_DECISION = {"alma"}


@pytest.mark.parametrize("kernel", ["linear", "poly"])
@pytest.mark.parametrize("name", NAMES)
def test_other_kernels_run(name, kernel):
    """Under the linear and polynomial kernels every learner (1) learns a model, (2) whose decision
    function is the expansion ``sum_i dual_coef_[i] k(support_vectors_[i], x)`` computed independently
    by :func:`kernel_matrix_reference` (divided by ``sqrt(k(x, x))`` for :data:`NORMALISED_DECISION`),
    and (3) predicts a stream that is linearly separable through the origin far above chance."""
    kind = _kind(name)
    est = _make(name, kernel=kernel)
    X, y = _data(kind, 200, seed=2)
    out = _stream(est, X, y)
    if kind == "multi":  # nothing to predict before the first label arrives
        assert out[0] is None
        out = out[1:].astype(np.int64)
    assert out.shape == (200 - (kind == "multi"),) and np.all(np.isfinite(out))
    assert est.kernel_.name == kernel
    sv, dc = est.support_vectors_, est.dual_coef_
    assert est.n_support_ > 0 and len(sv) == len(dc) == est.n_support_, f"{name} learned no model"
    assert np.any(dc != 0)
    Q = np.vstack([X[:8], np.random.default_rng(9).normal(scale=2.0, size=(8, 2))])
    f_ref = kernel_matrix_reference(Q, sv, est.kernel_) @ dc
    if name in NORMALISED_DECISION:
        f_ref = f_ref / np.sqrt(np.diag(kernel_matrix_reference(Q, Q, est.kernel_)))
    if kind == "novelty":
        f = np.array([est.score_one(q) for q in Q])
    else:
        f = np.array([est.decision_function_one(q) for q in Q])
    np.testing.assert_allclose(f, f_ref, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(f_ref).max()))
    if kind == "binary":  # chance: 0.5
        assert np.mean(out != y) < 0.1
        np.testing.assert_array_equal(est.predict(Q), np.where(f_ref >= 0, 1, -1))
    elif kind == "multi":  # chance: 0.67
        assert np.mean(out != y[1:]) < 0.15
        np.testing.assert_array_equal([est.predict_one(q) for q in Q], est.classes_[np.argmax(f_ref, axis=1)])


@pytest.mark.parametrize("name", NAMES)
def test_learns_a_small_stream(name):
    kind = _kind(name)
    X, y = _data(kind)
    est = _make(name)
    out = _stream(est, X, y)
    if kind == "binary":
        assert set(np.unique(out)) <= {-1, 1}
        assert np.mean(out != y) < 0.2  # chance: 0.5
        est_pred = est.predict(X)
        assert np.mean(est_pred != y) < 0.15
    elif kind == "multi":
        assert out[0] is None and set(out[1:]) <= {0, 1, 2}  # labels only, none before the first
        assert est.predict(X).dtype.kind == "i"
        assert np.mean(out != y) < 0.3  # chance: 0.67
        assert np.mean(est.predict(X) != y) < 0.2
    else:
        rng = np.random.default_rng(5)
        inl = np.array([est.score_one(x) for x in 0.5 * rng.normal(size=(50, 2))])
        outl = np.array([est.score_one(x) for x in 6.0 + rng.normal(size=(50, 2))])
        auc = np.mean(inl[:, None] > outl[None, :]) + 0.5 * np.mean(inl[:, None] == outl[None, :])
        assert auc > 0.9  # lower score = more novel
        assert est.n_support_ > 0


@pytest.mark.parametrize("name", NAMES)
def test_deterministic(name):
    X, y = _data(_kind(name), 120, seed=3)
    a = _stream(_make(name), X, y)
    b = _stream(_make(name), X, y)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", NAMES)
def test_progressive_loop_matches_python_loop(name):
    """The numba stream loop and a Python loop of predict_one/learn_one give the same answers."""
    X, y = _data(_kind(name), 120, seed=4)
    fast = _make(name)
    a = _stream(fast, X[:70], None if y is None else y[:70])
    # continue the same model in a second call: state must carry over between calls
    a = np.concatenate([a, _stream(fast, X[70:], None if y is None else y[70:])])
    slow = _make(name)
    b = _python_loop(slow, X, y)
    if _kind(name) == "novelty":
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_array_equal(a, b)
    assert fast.n_support_ == slow.n_support_
    x = X[0] + 0.1
    if _kind(name) == "novelty":
        assert fast.score_one(x) == pytest.approx(slow.score_one(x), rel=1e-10, abs=1e-12)
    else:
        np.testing.assert_allclose(
            fast.decision_function_one(x), slow.decision_function_one(x), rtol=1e-10, atol=1e-12
        )


@pytest.mark.parametrize("name", NAMES)
def test_single_class_stream(name):
    kind = _kind(name)
    if kind == "novelty":
        pytest.skip("a novelty detector always sees a single class")
    rng = np.random.default_rng(6)
    X = rng.normal(size=(100, 2))
    for label in [-1.0, 1.0] if kind == "binary" else [0, 2]:
        y = np.full(100, label, dtype=float if kind == "binary" else int)
        est = _make(name)
        out = est.progressive_predict(X, y)
        assert out.shape == (100,)
        assert np.mean(out[50:] != label) <= 0.1, f"{name} does not settle on the only class {label}"


@pytest.mark.parametrize("name", NAMES)
def test_rejects_nan_inf_and_bad_shapes(name):
    kind = _kind(name)
    X, y = _data(kind, 20)
    est = _make(name)
    label = None if y is None else y[0]

    def learn(x):
        return est.learn_one(x) if kind == "novelty" else est.learn_one(x, label)

    for bad in ([np.nan, 0.0], [np.inf, 0.0], [[1.0, 2.0]], 3.0):
        with pytest.raises(ValueError):
            learn(bad)
    _stream(est, X, y)
    with pytest.raises(ValueError):
        learn([1.0, 2.0, 3.0])  # wrong number of features once fitted
    with pytest.raises(ValueError):
        (est.score_one if kind == "novelty" else est.predict_one)([np.nan, 1.0])
    bad_X = X.copy()
    bad_X[3, 1] = np.nan
    with pytest.raises(ValueError):
        _stream(est.clone(), bad_X, y)
    with pytest.raises(ValueError):
        _stream(est.clone(), X[:, :1].ravel(), y)  # 1-D batch
    if kind == "binary":
        with pytest.raises(ValueError):
            est.clone().progressive_predict(X, np.where(y > 0, 1, 0))
    elif kind == "multi":
        for bad_y in (y + 0.5, np.where(y > 0, np.nan, 0.0)):
            with pytest.raises(ValueError, match="y"):
                est.clone().progressive_predict(X, bad_y)
        with pytest.raises(ValueError, match="y"):  # with n_classes the labels are indices
            est.clone(n_classes=3).progressive_predict(X, y - 1)
    if kind != "novelty":
        with pytest.raises(ValueError):
            est.clone().progressive_predict(X, y[:-1])


@pytest.mark.parametrize("name", [n for n in NAMES if "omega" in _params(n)])
def test_budget_bounds_support_size(name):
    X, y = _data(_kind(name), 150, seed=7)
    est = _make(name, omega=7)
    for i in range(0, 150, 30):
        _stream(est, X[i : i + 30], None if y is None else y[i : i + 30])
        assert est.n_support_ <= 7
    assert est.n_support_ > 0


def _outputs(est, X) -> np.ndarray:
    """The real-valued outputs of ``est`` on the rows of ``X`` (scores or decision values)."""
    if isinstance(est, NoveltyDetector):
        return est.score(X)
    return np.array([est.decision_function_one(x) for x in X], dtype=float)


@pytest.mark.parametrize("name", NAMES)
def test_sigma_below_the_floor_is_refused(name):
    """A sigma whose ``2 sigma^2`` underflows to 0 (below about 1e-162) used to pass validation and
    then raise ZeroDivisionError in the first kernel evaluation; it is refused at creation with the
    smallest accepted value, and that value itself learns with finite outputs."""
    for tiny in (1e-200, 5e-324, float(np.nextafter(SIGMA_MIN, 0))):
        with pytest.raises(ValueError, match=r"^sigma: .* must be a finite number >= 1e-150"):
            _make(name, sigma=tiny)
    X, y = _data(_kind(name), 40)
    est = _make(name, sigma=SIGMA_MIN)
    _stream(est, X, y)
    assert np.all(np.isfinite(_outputs(est, X)))


@pytest.mark.parametrize("name", NAMES)
def test_rejects_sparse_and_complex_input(name):
    """scipy.sparse input gets an error that says so (not "expected an array of numbers"), and
    complex input is refused instead of losing its imaginary part; nothing is learned."""
    sparse = pytest.importorskip("scipy.sparse")
    kind = _kind(name)
    X, y = _data(kind, 20)
    est = _make(name)

    def learn(x):
        return est.learn_one(x) if kind == "novelty" else est.learn_one(x, y[0])

    with pytest.raises(ValueError, match=r"^X: scipy\.sparse matrices are not supported.*X\.toarray\(\)"):
        _stream(est, sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match=r"^x: scipy\.sparse matrices are not supported.*x\.toarray\(\)"):
        learn(sparse.csr_matrix(X[0]))
    for bad in (X + 1j, X.astype(complex)):  # a zero imaginary part is complex input too
        with pytest.raises(ValueError, match="^X: expected real numbers"):
            _stream(est, bad, y)
    with pytest.raises(ValueError, match="^x: expected real numbers"):
        learn(list(X[0] + 0.5j))
    with pytest.raises(ValueError, match="^x: expected an array of numbers"):
        learn([[1.0, 2.0], [3.0]])  # ragged: still the plain message
    assert est.n_features_ is None and est.n_support_ == 0
    _stream(est, X, y)
    with pytest.raises(ValueError, match="^X: expected real numbers"):
        est.score(X + 1j) if kind == "novelty" else est.predict(X + 1j)


@pytest.mark.parametrize("name", NAMES)
def test_pickled_model_continues_as_the_original(name):
    """A pickled-and-restored model (whose pickle leaves kernel caches out) learns the rest of the
    stream exactly as the original: same predictions, support vectors and coefficients."""
    X, y = _data(_kind(name), 160, seed=8)
    orig = _make(name)
    _stream(orig, X[:100], None if y is None else y[:100])
    copy = pickle.loads(pickle.dumps(orig))
    rest = None if y is None else y[100:]
    np.testing.assert_array_equal(_stream(copy, X[100:], rest), _stream(orig, X[100:], rest))
    np.testing.assert_array_equal(copy.support_vectors_, orig.support_vectors_)
    np.testing.assert_array_equal(copy.dual_coef_, orig.dual_coef_)
    np.testing.assert_array_equal(_outputs(copy, X[:20]), _outputs(orig, X[:20]))


@pytest.mark.parametrize("name", NAMES)
def test_copy_copy_shares_no_array_with_the_original(name):
    """``copy.copy`` of a fitted learner shared its arrays: learning on the copy changed the original."""
    import copy as _copy

    X, y = _data(_kind(name), 120, seed=9)
    orig = _make(name)
    _stream(orig, X[:60], None if y is None else y[:60])
    before = _outputs(orig, X[:20])
    _stream(_copy.copy(orig), X[60:], None if y is None else y[60:])
    np.testing.assert_array_equal(_outputs(orig, X[:20]), before)


@pytest.mark.parametrize("name", NAMES)
def test_an_example_with_zero_kernel_norm_is_not_stored(name):
    """README: an example whose k(x, x) is 0 (a zero vector under the linear kernel) is predicted but
    not learned. A mistake on one must not add a support vector (the Perceptrons used to)."""
    kind = _kind(name)
    X, y = _data(kind, n=40)
    est = _make(name, kernel="linear")
    for i in range(len(X)):
        est.learn_one(X[i]) if kind == "novelty" else est.learn_one(X[i], y[i])
    before = est.n_support_
    zero = np.zeros(X.shape[1])
    for label in [None] if kind == "novelty" else sorted(set(y.tolist())):
        est.learn_one(zero) if kind == "novelty" else est.learn_one(zero, label)
        assert est.n_support_ <= before


@pytest.mark.parametrize("name", NAMES)
def test_help_documents_parameters_and_the_per_example_methods(name):
    """``help()`` on a learner shows a NumPy-style Parameters section naming every parameter, and
    its per-example methods show their Parameters/Returns/Raises."""
    cls = get_class(name)
    doc = inspect.getdoc(cls)
    section = doc[doc.index("Parameters\n----------\n") :].split("\n")[2:]
    end = next((i for i, line in enumerate(section) if set(line) == {"-"}), len(section))
    entries = section[: end - 1 if end < len(section) else end]  # up to the next section's title
    named = {
        n.strip()
        for line in entries
        if line and not line[0].isspace()  # "a, b : type" or "a, b"
        for n in line.split(" : ")[0].split(",")
    }
    assert _params(name) <= named, f"{name}: {sorted(_params(name) - named)} have no entry"
    methods = ("score_one",) if _kind(name) == "novelty" else ("predict_one", "decision_function_one")
    for m in ("learn_one",) + methods:
        text = inspect.getdoc(getattr(cls, m))
        assert "Parameters\n" in text and "Returns\n" in text and "Raises\n" in text, f"{name}.{m}"
