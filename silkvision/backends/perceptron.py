"""Kernel Perceptron.

References (cited by title and formula; none of these papers is among the project's stored papers,
so no equation numbers are given): F. Rosenblatt, "The perceptron: a probabilistic model for
information storage and organization in the brain", Psychological Review 65(6):386-408, 1958 (the
algorithm); Y. Freund & R. E. Schapire, "Large margin classification using the perceptron
algorithm", Machine Learning 37(3):277-296, 1999 (its kernel form, the hypothesis kept as the list of
mistakes); the kernel expansion as written below as in J. Kivinen, A. J. Smola & R. C. Williamson,
"Online learning with kernels", IEEE Trans. Signal Processing 52(8):2165-2176, 2004 (NIPS 14, 2001),
the "Kivinen et al." that the JMLR DUOL paper cites for this peer.

The peer "Perceptron" of the JMLR DUOL paper (Zhao, Hoi & Jin 2011, section 5.1, Table 2)::

    f(x) = sum_j alpha_j k(x_j, x)
    predict  y_hat_t = +1 if f(x_t) >= 0 else -1
    if y_hat_t != y_t:  add x_t with alpha_t = y_t          (no margin, no step size)

The number of support vectors therefore equals the number of mistakes. An example with
``k(x_t, x_t) = 0`` (a zero vector under the linear kernel) adds nothing to ``f`` and is not stored,
as in every learner of this package; its mistake still counts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import BinaryKernelClassifier, reference_decision, sv_append
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register
from silkvision.backends.sparse import cols_append, decision_any, row_buffers

__all__ = ["Perceptron", "perceptron_reference"]


@njit(cache=True)
def _perceptron_loop(X, y, SV, coef, stamp, n, t0, kind, sigma, degree, c0, cols, XT, sqn):
    m = X.shape[0]
    pred = np.empty(m)
    idx, val, work = row_buffers(X.shape[1], n)
    for i in range(m):
        x = X[i]
        f, work = decision_any(SV, coef, n, x, kind, sigma, degree, c0, cols, XT, sqn, idx, val, work)
        p = 1.0 if f >= 0.0 else -1.0
        pred[i] = p
        if p != y[i] and kernel_eval(x, x, kind, sigma, degree, c0) > 0.0:
            SV, coef, stamp = sv_append(SV, coef, stamp, n, x, y[i], t0 + i)
            if cols:
                XT, sqn = cols_append(XT, sqn, n, x)
            n += 1
    return pred, SV, coef, stamp, n, XT, sqn


@register("perceptron", "kernel Perceptron: add y_t k(x_t, .) on each mistake (Rosenblatt; DUOL paper peer)")
class Perceptron(BinaryKernelClassifier):
    """Kernel Perceptron.

    Parameters
    ----------
    kernel : {"rbf", "poly", "linear"}
    sigma, degree, coef : kernel parameters (see :func:`~silkvision.backends.mercer.make_kernel`).

    Examples
    --------
    >>> from silkvision.backends import create
    >>> clf = create("perceptron", sigma=8)
    >>> clf.learn_one([0.0, 1.0], 1).predict_one([0.0, 1.0])
    1
    """

    def __init__(self, kernel: str = "rbf", sigma: float = 1.0, degree: int = 2, coef: float = 1.0):
        self._init_kernel(kernel, sigma, degree, coef)

    _columns_path = True

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _perceptron_loop(
            X, y, st.X, st.coef, st.stamp, st.n, self._t, *self.kernel_.args, st.columns, *st.cols_args()
        )
        st.keep_cols(XT, sqn)
        return pred


def perceptron_reference(X, y, kernel="rbf", sigma=1.0, degree=2, coef=1.0):
    """Plain NumPy kernel Perceptron; returns ``(predictions, support vectors, coefficients)``
    (``(0, d)`` and ``(0,)`` arrays when nothing is stored)."""
    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    SV, a, pred = [], [], []
    for x, yt in zip(X, np.asarray(y, float)):
        p = 1.0 if reference_decision(SV, a, x, k) >= 0 else -1.0
        pred.append(p)
        if p != yt and k(x, x) > 0:
            SV.append(x)
            a.append(yt)
    return np.array(pred), np.array(SV, float).reshape(len(SV), X.shape[1]), np.array(a, float)
