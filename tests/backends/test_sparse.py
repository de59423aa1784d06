"""The feature-major kernel path agrees with the dense (row-major) one."""

import numpy as np
import pytest

from silkvision.backends import create, sparse
from silkvision.backends._support import SupportStore
from silkvision.backends.mercer import kernel_matrix_reference, make_kernel


def _sparse_data(n=400, d=60, nnz=4, integer=True, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    for i in range(n):
        cols = rng.choice(d, nnz, replace=False)
        X[i, cols] = 1.0 if integer else rng.normal(0, 1, nnz)
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.1 * rng.normal(size=n) >= 0, 1.0, -1.0)
    return X, y


def test_use_columns_rule():
    X, _ = _sparse_data()
    assert sparse.use_columns(X) and sparse.use_columns(np.ones((10, 60)))  # sparse or dense
    assert sparse.use_columns(X[:, :8]) and not sparse.use_columns(X[:, :7])
    assert not sparse.use_columns(np.ones((0, 60))) and not sparse.use_columns(np.ones(60))


@pytest.mark.parametrize("kernel", ["rbf", "poly", "linear"])
def test_kernel_row_matches_numpy_reference(kernel):
    X, _ = _sparse_data(50, 40, 5, integer=False, seed=1)
    k = make_kernel(kernel, sigma=1.3, degree=2, coef=0.5)
    XT, sqn = sparse.cols_from_rows(X, 30, 32)
    x = X[40]
    idx, val = np.empty(40, np.int64), np.empty(40)
    nnz = sparse.nonzeros(x, idx, val)
    out = np.empty(30)
    sparse.cols_kernel_row(XT, sqn, 30, idx, val, nnz, float(x @ x), *k.args, out, X, x)
    np.testing.assert_allclose(
        out, kernel_matrix_reference(X[:30], x[None, :], k)[:, 0], rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize("offset", [0.0, 300.0, 1e4, 1e7, 1e8, 1e9])
@pytest.mark.parametrize("sparse_x", [False, True])
@pytest.mark.parametrize("sigma", [1.0, 8.0])
def test_rbf_row_stays_exact_under_a_large_offset(offset, sparse_x, sigma):
    """|X_j|^2 + |x|^2 - 2 X_j.x cancels when the norms dwarf the distance; such pairs are summed
    directly, so every value stays within 1e-10 of the direct sum (at 1e7 it was 3 % off). At offsets
    300 and 1e4 the size of the kernel value decides (e < 1e-3), at 1e7 and above the bound alone,
    also where the expanded d2 came out so wrong that its kernel value looked negligible (sigma 8 at
    1e9: 0.82 off when a small value was trusted)."""
    assert sparse.KERNEL_ABS_TOL <= 1e-10
    rng = np.random.default_rng(4)
    X = rng.normal(scale=sigma, size=(40, 12)) + offset
    X[35] = X[3] + 1e-3 * sigma * rng.normal(size=12)  # a near-duplicate: the worst case
    if sparse_x:
        X[:, ::3] = 0.0
    k = make_kernel("rbf", sigma=sigma)
    XT, sqn = sparse.cols_from_rows(X, 30, 32)
    idx, val = np.empty(12, np.int64), np.empty(12)
    ref = kernel_matrix_reference(X[:30], X[30:], k)
    for t in range(10):
        x = X[30 + t]
        nnz = sparse.nonzeros(x, idx, val)
        out = np.empty(30)
        sparse.cols_kernel_row(XT, sqn, 30, idx, val, nnz, float(x @ x), *k.args, out, X, x)
        np.testing.assert_allclose(out, ref[:, t], rtol=0, atol=1e-10)
        assert out.max() <= 1.0
    assert ref[3, 5] > 0.99  # the near-duplicate pair was checked
    for j in range(30):  # a stored vector itself: d2 = 0, k = 1
        nnz = sparse.nonzeros(X[j], idx, val)
        sparse.cols_kernel_row(XT, sqn, 30, idx, val, nnz, float(X[j] @ X[j]), *k.args, out, X, X[j])
        assert out[j] == pytest.approx(1.0, abs=1e-10) and out.max() <= 1.0


@pytest.mark.parametrize("offsets", [[1e7], [0.0, 1e7], [1e7, 0.0]])
def test_rbf_row_is_checked_with_a_single_large_stored_vector(offsets):
    """The check runs when any one stored vector is large, the only one or beside small ones (with a
    single vector at 1e7 the expanded value was 0.472 instead of 0.592)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(len(offsets), 12)) + np.asarray(offsets)[:, None]
    x = X[offsets.index(1e7)] + rng.normal(scale=0.3, size=12)
    k = make_kernel("rbf", sigma=1.0)
    XT, sqn = sparse.cols_from_rows(X, len(X), 4)
    idx, val = np.empty(12, np.int64), np.empty(12)
    nnz = sparse.nonzeros(x, idx, val)
    out = np.empty(len(X))
    sparse.cols_kernel_row(XT, sqn, len(X), idx, val, nnz, float(x @ x), *k.args, out, X, x)
    np.testing.assert_allclose(out, kernel_matrix_reference(X, x[None, :], k)[:, 0], rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", ["pa1", "duol", "perceptron", "romma", "alma"])
def test_rbf_learners_are_shift_invariant(name):
    """The RBF kernel ignores a common offset; so must the learners on the feature-major path, and
    predict_one must agree with the decisions the learner made (it uses the direct sum)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 10))
    y = np.where(X[:, 0] + X[:, 1] * X[:, 2] > 0, 1, -1)
    base = create(name, kernel="rbf", sigma=1.0).progressive_predict(X, y)
    shifted = create(name, kernel="rbf", sigma=1.0)
    np.testing.assert_array_equal(shifted.progressive_predict(X + 1e7, y), base)
    assert shifted._cols if name == "duol" else shifted._store.columns
    step = create(name, kernel="rbf", sigma=1.0)
    seen = []
    for x, t in zip(X + 1e7, y):
        seen.append(step.predict_one(x))
        step.learn_one(x, int(t))
    np.testing.assert_array_equal(np.asarray(seen), base)


def test_store_keeps_columns_in_step_with_rows():
    X, _ = _sparse_data(40, 40, 3, integer=False)
    st = SupportStore(40, capacity=2)
    st.append(X[0], 1.0)
    st.enable_columns()  # built from the rows already there
    for i in range(1, 30):
        st.append(X[i], float(i))  # grows past the initial capacity
    for i in (3, 0, 27, 5):
        st.remove(i)
    n = st.n
    np.testing.assert_array_equal(st.XT[:, :n], st.X[:n].T)
    np.testing.assert_allclose(st.sqn[:n], (st.X[:n] ** 2).sum(1))
    cp = st.copy()
    st.append(X[31], 2.0)
    assert cp.n == n and cp.XT is not st.XT


@pytest.mark.parametrize(
    "name,params",
    [
        ("perceptron", {}),
        ("pa1", {"C": 5.0}),
        ("pa2", {"C": 5.0}),
        ("duol", {"C": 5.0}),
        ("romma", {}),
        ("aggromma", {}),
        ("alma", {}),
    ],
)
def test_sparse_path_is_bit_identical_on_integer_data(name, params, monkeypatch):
    """Binary features: every squared distance is an exact integer, so both paths agree exactly."""
    X, y = _sparse_data()
    dense = create(name, sigma=2.0, **params)
    monkeypatch.setattr(sparse, "COLUMNS_MIN_FEATURES", 10**9)  # dense path
    p_dense = dense.progressive_predict(X, y)
    monkeypatch.setattr(sparse, "COLUMNS_MIN_FEATURES", 8)
    cols = create(name, sigma=2.0, **params)
    p_cols = cols.progressive_predict(X, y)
    uses = cols._cols if name == "duol" else cols._store.columns
    assert uses and not (dense._cols if name == "duol" else dense._store.columns)
    np.testing.assert_array_equal(p_cols, p_dense)
    np.testing.assert_array_equal(cols.dual_coef_, dense.dual_coef_)
    assert cols.n_support_ == dense.n_support_ > 10
    # learn_one after the batch goes on through the same path
    cols.learn_one(X[0], y[0])
    dense.learn_one(X[0], y[0])
    np.testing.assert_array_equal(cols.dual_coef_, dense.dual_coef_)
    assert cols.decision_function_one(X[1]) == pytest.approx(dense.decision_function_one(X[1]), abs=1e-12)


@pytest.mark.parametrize("name", ["perceptron", "pa1", "duol", "romma", "alma"])
def test_sparse_path_agrees_on_real_valued_data(name, monkeypatch):
    X, y = _sparse_data(integer=False, seed=3)
    monkeypatch.setattr(sparse, "COLUMNS_MIN_FEATURES", 10**9)
    dense = create(name, sigma=1.5)
    p_dense = dense.progressive_predict(X[:150], y[:150])  # the path is chosen on the first batch
    monkeypatch.setattr(sparse, "COLUMNS_MIN_FEATURES", 8)
    cols = create(name, sigma=1.5)
    p_cols = cols.progressive_predict(X[:150], y[:150])
    uses = (lambda m: m._cols) if name == "duol" else (lambda m: m._store.columns)
    assert uses(cols) and not uses(dense)
    # the kernel differs in the last bits only; on this stream no prediction flips
    np.testing.assert_array_equal(p_cols, p_dense)
    np.testing.assert_allclose(cols.dual_coef_, dense.dual_coef_, rtol=1e-9, atol=1e-12)


def _multiclass_data(n=300, d=40, k=4, integer=True, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)).astype(float) if integer else rng.normal(0, 1, (n, d))
    W = rng.normal(size=(d, k))
    y = np.argmax(X @ W + 0.5 * rng.normal(size=(n, k)), axis=1)
    return X, y


@pytest.mark.parametrize(
    "name,params",
    [
        ("perceptron_max", {}),
        ("perceptron_prop", {}),
        ("mpa1", {"C": 10.0}),
        ("silk_multi", {"omega": 40}),
        ("silk_multi", {}),
    ],
)
@pytest.mark.parametrize("integer", [True, False])
def test_multiclass_columns_path_agrees_with_the_row_major_loop(name, params, integer, monkeypatch):
    """Integer features: bit-identical; real-valued: the same predictions and coefficients to rounding.
    silk_multi with omega also exercises the removal of support vectors."""
    X, y = _multiclass_data(integer=integer)
    monkeypatch.setattr(sparse, "COLUMNS_MIN_FEATURES", 10**9)
    dense = create(name, sigma=3.0, **params)
    p_dense = dense.progressive_predict(X, y)  # the path is chosen on the first batch
    monkeypatch.setattr(sparse, "COLUMNS_MIN_FEATURES", 8)
    cols = create(name, sigma=3.0, **params)
    p_cols = cols.progressive_predict(X, y)
    assert cols._store.columns and not dense._store.columns
    np.testing.assert_array_equal(p_cols, p_dense)
    assert cols.n_support_ == dense.n_support_ > 10
    assert cols.n_support_ == params.get("omega", cols.n_support_)  # the budget was reached: removals ran
    if integer:
        np.testing.assert_array_equal(cols._store.coef, dense._store.coef)
    else:
        np.testing.assert_allclose(cols._store.coef, dense._store.coef, rtol=1e-9, atol=1e-12)
    n = cols._store.n
    np.testing.assert_array_equal(cols._store.XT[:, :n], cols._store.X[:n].T)  # kept in step
