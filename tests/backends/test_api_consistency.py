"""API consistency across the online learners: prediction dtypes, the novelty batch
helpers, support-vector attributes of the DUOL family, kernel overflow, zero vectors in the ramp SVMs."""

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
    base,
    create,
    get_class,
)
from silkvision.backends.mercer import kernel_matrix_reference
from tests.backends.streams import with_and_without_zero_rows

NAMES = sorted(available())
BINARY = [n for n in NAMES if issubclass(get_class(n), BinaryClassifier)]
MULTI = [n for n in NAMES if issubclass(get_class(n), MultiClassifier)]
NOVELTY = [n for n in NAMES if issubclass(get_class(n), NoveltyDetector)]
RAMP = ["online_svm_r", "online_svm_r_removal", "online_asvm_r"]
DUOL = ["duol", "duol_appr", "duol_iter", "duol_nips", "duol_rand"]
MDUOL = ["mduol", "mduol_appr", "mduol_iter"]


def _make(name, **kw):
    if "seed" in inspect.signature(get_class(name).__init__).parameters:
        kw.setdefault("seed", 0)
    return create(name, **kw)


def _binary(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 1.0], n)
    return y[:, None] + 0.8 * rng.normal(size=(n, 2)), y


# ------------------------------------------------------------------ 1. binary predictions are int64
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.slow
def test_binary_predictions_are_int64(name):
    X, y = _binary()
    m = _make(name)
    p = m.progressive_predict(X, y)
    assert p.dtype == np.int64 and set(np.unique(p)) <= {-1, 1}
    q = m.predict(X)
    assert q.dtype == np.int64 and set(np.unique(q)) <= {-1, 1}
    assert q.tolist() == [m.predict_one(x) for x in X]
    assert m.predict(np.zeros((0, 2))).dtype == np.int64
    assert m.progressive_predict(np.zeros((0, 2)), []).dtype == np.int64
    assert _make(name).progressive_predict(np.zeros((0, 2)), []).dtype == np.int64  # unfitted, empty
    m.partial_fit(X[:5], y[:5])  # partial_fit still returns the estimator
    assert type(m.learn_one(X[0], y[0])) is type(m)


# ------------------------------------------------------------------ 2. novelty batch helpers
def test_base_docstring_describes_the_novelty_helpers():
    doc = base.__doc__
    assert "partial_fit(X)" in doc and "score(X)" in doc and "progressive_score(X)" in doc
    for meth in ("partial_fit", "score", "progressive_score"):
        assert getattr(NoveltyDetector, meth).__doc__


@pytest.mark.parametrize("name", NOVELTY)
@pytest.mark.slow
def test_novelty_partial_fit_and_score(name):
    rng = np.random.default_rng(1)
    X, Q = rng.normal(size=(80, 2)), rng.normal(size=(15, 2)) * 2
    a, b = _make(name), _make(name)
    assert a.partial_fit(X[:30]) is a
    a.partial_fit(X[30:])
    for x in X:
        b.learn_one(x)
    s = a.score(Q)
    assert s.dtype == np.float64 and s.shape == (15,)
    np.testing.assert_allclose(s, [b.score_one(q) for q in Q], rtol=1e-10, atol=1e-12)
    assert a.n_support_ == b.n_support_
    # score does not learn
    before = a.dual_coef_.copy()
    a.score(Q)
    np.testing.assert_array_equal(a.dual_coef_, before)
    np.testing.assert_allclose(a.score(Q), s, rtol=0, atol=0)
    assert a.score(np.zeros((0, 2))).shape == (0,)
    assert _make(name).score(Q).tolist() == [0.0] * 15  # nothing learned yet
    with pytest.raises(ValueError):
        a.score(np.zeros((3, 5)))  # wrong feature count
    with pytest.raises(ValueError):
        a.partial_fit(np.array([[np.nan, 0.0]]))


# ------------------------------------------------------------------ 3. DUOL support vectors
def _consistent_binary(m):
    sv, dc, w, sc = m.support_vectors_, m.dual_coef_, m.weights_, m.scores_
    assert len(sv) == len(dc) == len(w) == len(sc) == m.n_support_
    assert np.all(w != 0)
    rng = np.random.default_rng(2)
    for x in rng.normal(size=(5, sv.shape[1])):
        f = kernel_matrix_reference(sv, x[None, :], m.kernel_)[:, 0] @ dc
        assert f == pytest.approx(m.decision_function_one(x), rel=1e-9, abs=1e-9)


def test_duol_rand_attributes_skip_zero_weights():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=400) > 0, 1.0, -1.0)
    m = create("duol_rand", seed=0)
    m.progressive_predict(X, y)
    assert np.count_nonzero(m._gam[: m._n] == 0) > 0  # the stream does leave zero weights
    _consistent_binary(m)


@pytest.mark.parametrize("name", DUOL)
def test_duol_attributes_match_n_support(name):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=150) > 0, 1.0, -1.0)
    m = create(name)
    assert m.support_vectors_.shape == (0, 0) and m.dual_coef_.shape == (0,)
    m.progressive_predict(X, y)
    _consistent_binary(m)


@pytest.mark.parametrize("name", MDUOL)
@pytest.mark.parametrize("labels", [None, ["b", "a", "c"]])
@pytest.mark.slow
def test_mduol_support_vectors_and_dual_coef(name, labels):
    rng = np.random.default_rng(4)
    centres = np.array([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    k = rng.integers(0, 3, 150)
    X = centres[k] + 0.8 * rng.normal(size=(150, 2))
    y = k if labels is None else np.array(labels)[k]
    m = create(name, sigma=1.0)
    assert m.support_vectors_.shape[0] == 0 and m.dual_coef_.shape[0] == 0
    m.progressive_predict(X, y)
    sv, A = m.support_vectors_, m.dual_coef_
    assert sv.shape == (m.n_support_, 2) and A.shape == (m.n_support_, len(m.classes_))
    assert len(m.weights_) == len(m.pairs_) == len(m.scores_) == m.n_support_
    np.testing.assert_allclose(A.sum(axis=1), 0.0, atol=1e-12)  # gamma (e_r - e_s)
    np.testing.assert_allclose(np.abs(A).max(axis=1), m.weights_)
    for x in X[:5] + 0.1:
        f = kernel_matrix_reference(sv, x[None, :], m.kernel_)[:, 0] @ A
        np.testing.assert_allclose(f, m.decision_function_one(x), rtol=1e-9, atol=1e-9)
        assert m.predict_one(x) == m.classes_[int(np.argmax(f))]


# ------------------------------------------------------------------ 4. kernel overflow
OVERFLOW = [(dict(kernel="poly", degree=50), 1e10), (dict(kernel="linear"), 1e200)]


def _stream_of(name, kind):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(20, 2))
    if kind == "novelty":
        return X, None
    if kind == "multi":
        return X, np.arange(20) % 3
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


def _kind(name):
    return "binary" if name in BINARY else "multi" if name in MULTI else "novelty"


@pytest.mark.parametrize("kernel, big", OVERFLOW)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.slow
def test_kernel_overflow_is_a_clear_error_and_changes_nothing(name, kernel, big):
    kind = _kind(name)
    X, y = _stream_of(name, kind)
    m = _make(name, **kernel)
    label = None if y is None else y[0]

    def learn(x, label=label):
        return m.learn_one(x) if kind == "novelty" else m.learn_one(x, label)

    def classes():  # all or nothing: a refused example's label does not become a class
        return None if kind != "multi" else (list(m.classes_), len(m.decision_function_one(X[0])))

    learn(X[0])
    before = m.n_support_, classes()
    with pytest.raises(ValueError, match=r"^x: k\(x, x\) = (inf|nan).*kernel.*[Ss]cale the features"):
        learn([big, 0.0], "new" if kind == "multi" else label)
    assert (m.n_support_, classes()) == before
    Xb = X.copy()
    Xb[7] = [0.0, big]
    with pytest.raises(ValueError, match=r"^X\[7\]: .*kernel.*no row of X was learned"):
        if kind == "novelty":
            m.progressive_score(Xb)
        else:
            m.progressive_predict(Xb, y)
    assert (m.n_support_, classes()) == before
    with pytest.raises(ValueError, match=r"X\[7\]"):
        m.partial_fit(Xb) if kind == "novelty" else m.partial_fit(Xb, y)
    # the model is intact: every later decision is finite
    if kind == "novelty":
        m.progressive_score(X)
        assert np.isfinite(m.score(X)).all()
    else:
        m.progressive_predict(X, y)
        assert np.all([np.all(np.isfinite(m.decision_function_one(x))) for x in X])


def test_kernel_overflow_message_names_the_kernel():
    with pytest.raises(ValueError, match=r"poly kernel \(degree=50, coef=1\)"):
        create("perceptron", kernel="poly", degree=50).learn_one([1e10, 0.0], 1)
    with pytest.raises(ValueError, match="linear kernel"):
        create("duol", kernel="linear").learn_one([1e200, 0.0], 1)
    m = create("perceptron", kernel="linear")  # large values that do not overflow are fine
    m.progressive_predict(np.array([[1e150, 0.0], [0.0, -1e150]]), [1, -1])
    assert np.isfinite(m.decision_function_one([1e150, 1e150]))


# ------------------------------------------------------------------ 5. ramp SVMs skip k(x, x) = 0
@pytest.mark.parametrize("kernel", [dict(kernel="linear"), dict(kernel="poly", coef=0.0)])
@pytest.mark.parametrize("name", RAMP)
def test_ramp_skips_an_example_with_zero_kernel_norm(name, kernel):
    m = create(name, **kernel)
    m.learn_one([0.0, 0.0], 1)
    assert m.n_support_ == 0 and m.n_stored_ == 0 and m.n_seen_ == 1
    assert len(m.support_vectors_) == 0 and m.predict_one([0.0, 0.0]) == 1
    if name == "online_asvm_r":
        assert m.n_queried_ == 0  # no label needed
    pred, zero, with_zeros, without = with_and_without_zero_rows(name, **kernel)
    assert np.all(pred[zero] == 1)  # f(0) = 0 -> +1
    np.testing.assert_array_equal(with_zeros.support_vectors_, without.support_vectors_)
    np.testing.assert_array_equal(with_zeros.dual_coef_, without.dual_coef_)
    assert with_zeros.n_stored_ == without.n_stored_
    assert with_zeros.n_seen_ == 120


def test_ramp_reference_skips_zero_vectors_too():
    from silkvision.backends.ramp_svm import RampSVMReference

    ref = RampSVMReference(kernel="linear")
    ref.learn([0.0, 0.0], 1.0)
    assert len(ref.X) == 0 and ref.n_queried == 0


# ------------------------------------------------------------------ 6. pickles leave the kernel caches out
def _cache_bytes(m) -> int:
    """Size of the kernel cache: the Gram matrix of the DUOL learners, the row cache of the ramp SVMs."""
    return m._st["CROW"].nbytes if m.registry_name in RAMP else m._G.nbytes


@pytest.mark.parametrize("cache_mb", [None, 0.05])
@pytest.mark.parametrize("name", DUOL + MDUOL + RAMP)
@pytest.mark.slow
def test_pickle_leaves_the_kernel_cache_out(name, cache_mb):
    """The pickle holds the model, not its kernel cache (it was 34 MB for 710 support vectors); the
    restored model rebuilds the cache and continues exactly as the original, also on 10 sparse
    features (the feature-major path) and with a small cache (LRU eviction, the Gram cache
    dropped once it outgrows ``cache_mb``)."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(600, 10)) * (rng.random((600, 10)) < 0.5)
    y = (
        (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
        if name in MDUOL
        else np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=600) > 0, 1, -1)
    )
    m = _make(name, sigma=1.0, **({} if cache_mb is None else {"cache_mb": cache_mb}))
    m.partial_fit(X[:450], y[:450])
    blob = pickle.dumps(m)
    if cache_mb is None:
        assert _cache_bytes(m) > 1_000_000 and len(blob) < _cache_bytes(m) / 4
    copy = pickle.loads(blob)
    np.testing.assert_array_equal(
        copy.progressive_predict(X[450:], y[450:]), m.progressive_predict(X[450:], y[450:])
    )
    np.testing.assert_array_equal(copy.support_vectors_, m.support_vectors_)
    np.testing.assert_array_equal(copy.dual_coef_, m.dual_coef_)
    np.testing.assert_array_equal(
        copy.scores_ if name not in RAMP else copy.state()["g"],
        m.scores_ if name not in RAMP else m.state()["g"],
    )
    if name in RAMP:
        assert copy.n_kernel_evals_ == m.n_kernel_evals_  # the rebuild is not counted
