"""The growable support-vector store and its numba helpers."""

from __future__ import annotations

import numpy as np
import pytest

from silkvision.backends._support import (
    SupportStore,
    check_budget,
    check_positive,
    check_range,
    grow_cols,
    grow_rows,
    grow_vec,
    sv_argmin_abs,
    sv_decision,
)
from silkvision.backends.mercer import kernel_matrix_reference, make_kernel


def test_store_grows_and_keeps_rows(rng):
    st = SupportStore(3, capacity=2)
    P = rng.normal(size=(37, 3))
    for i, p in enumerate(P):
        assert st.append(p, float(i), t=100 + i) == i
    assert st.n == 37 and st.capacity >= 37
    X, c, s = st.valid()
    np.testing.assert_array_equal(X, P)
    np.testing.assert_array_equal(c, np.arange(37.0))
    np.testing.assert_array_equal(s, 100 + np.arange(37))


def test_remove_swaps_last_row_in(rng):
    st = SupportStore(2)
    for i in range(5):
        st.append([i, i], i, t=i)
    st.remove(1)
    np.testing.assert_array_equal(st.stamp[: st.n], [0, 4, 2, 3])
    np.testing.assert_array_equal(st.X[1], [4, 4])
    with pytest.raises(IndexError):
        st.remove(4)


def test_decision_matches_numpy_reference(rng):
    k = make_kernel("rbf", sigma=1.7)
    st = SupportStore(4)
    P, a = rng.normal(size=(20, 4)), rng.normal(size=20)
    for p, v in zip(P, a):
        st.append(p, v)
    x = rng.normal(size=4)
    ref = kernel_matrix_reference(P, x[None], k)[:, 0] @ a
    assert st.decision(x, k) == pytest.approx(ref, rel=1e-12)
    assert sv_decision(st.X, st.coef, 0, x, *k.args) == 0.0


def test_multi_output_store_widens(rng):
    k = make_kernel("linear")
    st = SupportStore(2, n_outputs=1)
    st.append([1.0, 0.0], [2.0])
    st.ensure_outputs(3)
    st.append([0.0, 1.0], [0.0, 1.0, -1.0])
    np.testing.assert_array_equal(st.coef[:2], [[2, 0, 0], [0, 1, -1]])
    np.testing.assert_allclose(st.decision(np.array([1.0, 2.0]), k), [2.0, 2.0, -2.0])
    with pytest.raises(ValueError, match="n_outputs"):
        SupportStore(2).ensure_outputs(2)


def test_grow_helpers_and_argmin():
    A = np.arange(6.0).reshape(3, 2)
    B = grow_rows(A, 3, 4)
    assert B.shape == (8, 2) and np.all(B[:3] == A) and np.all(B[3:] == 0)
    assert grow_rows(A, 3, 3) is A
    v = grow_vec(np.array([1, 2], dtype=np.int64), 2, 5)
    assert v.dtype == np.int64 and v.shape[0] >= 5
    C = grow_cols(A, 2, 4)
    assert C.shape == (3, 4) and np.all(C[:2, :2] == A[:2])
    assert sv_argmin_abs(np.array([3.0, -0.5, 1.0, 0.1]), 3) == 1
    assert sv_argmin_abs(np.zeros(3), 0) == -1


def test_parameter_checks_name_the_parameter():
    with pytest.raises(ValueError, match="C"):
        check_positive("C", 0)
    assert check_positive("lam", 0, allow_zero=True) == 0
    with pytest.raises(ValueError, match="tau"):
        check_range("tau", 1.0, 0, 1, hi_open=True)
    with pytest.raises(ValueError, match="omega"):
        check_budget("omega", 2.5)
    with pytest.raises(ValueError, match="omega"):
        check_budget("omega", None, allow_none=False)
    with pytest.raises(ValueError, match="n_features"):
        SupportStore(0)
