"""Multiclass kernel learners: Perceptron with Max / Uniform / Prop updates, PA-I / PA-II, and SILK with
the graph-structured loss. Crammer & Singer (2003) and Crammer et al. (2006) are cited by title,
section and formula: they are not among the project's stored papers, so no equation numbers are given
here; SILK's graph-structured loss is eqs. 17-18 of the SILK paper.

All share one set of support vectors with a coefficient per class, ``f(x, r) = sum_j A[j, r]
k(x_j, x)``; the prediction is ``argmax_r f(x, r)`` over the ``K`` classes (the labels seen so far, in
the order they arrived, or the indices ``0..n_classes-1`` when ``n_classes`` is given; see
:class:`~silkvision.backends.base.MultiClassifier`). ``s`` denotes the runner-up
``argmax_{r != y_t} f(x_t, r)``.

* **Perceptron Max / Uniform / Prop** (Crammer & Singer, "Ultraconservative online algorithms for
  multiclass problems", JMLR 3, 2003, section 4; the "Max", "Uniform", "Prop" peers of the JMLR DUOL
  paper, section 5.5, results in its Table 4). On a mistake, with the error set
  ``E = {r != y_t : f(x_t, r) >= f(x_t, y_t)}``,
  add ``x_t`` with ``A[t, y_t] = 1`` and ``A[t, r] = -tau_r`` where Max: ``tau_s = 1``; Uniform:
  ``tau_r = 1/|E|`` for ``r`` in ``E``; Prop: ``tau_r = (f_r - f_y) / sum_{q in E} (f_q - f_y)`` (uniform
  when that sum is 0).
* **Multiclass PA-I / PA-II** (Crammer et al., JMLR 7, 2006, section 7, max-loss variant): loss
  ``l = max(0, 1 - f(x_t, y_t) + f(x_t, s))``; ``||Phi(x, y) - Phi(x, s)||^2 = 2 k(x, x)``, so
  PA-I: ``tau = min(C, l / (2 k))``, PA-II: ``tau = l / (2 k + 1 / (2 C))``; add ``x_t`` with
  ``A[t, y_t] = tau``, ``A[t, s] = -tau``.
* **SILK multiclass** (Cheng et al., NIPS 2006, graph-structured loss, eqs. 17-18) with the kernel
  ``k((x, y), (x', y')) = k(x, x') [y = y']`` and ``Delta(y, r) = rho`` for ``r != y``: old
  coefficients decay by ``(1 - tau)``; ``alpha_hat = (rho - (1 - tau)(f_y - f_s)) / (2 k(x, x))``
  clipped to ``[0, (1 - tau) C]``; ``A[t, y_t] = alpha``, ``A[t, s] = -alpha``; a buffer of ``omega``
  vectors drops the one whose largest ``|A[j, r]|`` is smallest (``omega=None``: ILK). The paper
  (section 2.1) discards "the point with the lowest coefficient value"; a row holds the signed pair
  ``(alpha_j, -alpha_j)``, so which number is "the coefficient" is our reading: we take the point's
  ``alpha_j = max_r |A[j, r]| >= 0`` (eq. 18's ``alpha_t``, decayed) and drop the smallest, not the
  most negative entry. (For the novelty/pixel detectors ``alpha >= 0`` and this is the paper's rule.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from silkvision.backends._support import (
    MultiKernelClassifier,
    check_budget,
    check_positive,
    check_range,
    reference_decision,
    sv_append_multi,
    sv_remove_multi,
)
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register
from silkvision.backends.sparse import cols_append, cols_remove, decision_any_multi, row_buffers

__all__ = [
    "MulticlassPerceptron",
    "PerceptronMax",
    "PerceptronUniform",
    "PerceptronProp",
    "MulticlassPA1",
    "MulticlassPA2",
    "SILKMulticlass",
    "multiclass_reference",
]

MAX, UNIFORM, PROP = 0, 1, 2  # _perceptron_loop's updates (indices into MulticlassPerceptron._updates)
STEP_PA1, STEP_PA2, STEP_SILK = 1, 2, 3  # _pa_silk_loop's updates


@njit(cache=True)
def _argmax(F, K):
    """First index of the largest of ``F[:K]`` (0 if K == 0), like ``np.argmax``."""
    best = 0
    for r in range(1, K):
        if F[r] > F[best]:
            best = r
    return best


@njit(cache=True)
def _runner_up(F, K, y):
    """``argmax_{r != y, r < K} F[r]`` (first index on ties), -1 if there is no other class."""
    best = -1
    for r in range(K):
        if r != y and (best < 0 or F[r] > F[best]):
            best = r
    return best


@njit(cache=True)
def sv_argmin_rowmax(A, n):
    """Row ``j < n`` whose largest ``|A[j, r]|`` is smallest (the weakest support vector)."""
    best = 0
    bv = np.inf
    for j in range(n):
        v = 0.0
        for r in range(A.shape[1]):
            a = abs(A[j, r])
            if a > v:
                v = a
        if v < bv:
            bv = v
            best = j
    return best


@njit(cache=True)
def _perceptron_loop(X, y, SV, A, stamp, n, t0, state, variant, kind, sigma, degree, c0, cols, XT, sqn):
    m = X.shape[0]
    Kc = A.shape[1]
    pred = np.empty(m, dtype=np.int64)
    F = np.zeros(Kc)
    row = np.zeros(Kc)
    idx, val, work = row_buffers(X.shape[1], n)
    Ks = int(state[0])
    for i in range(m):
        x = X[i]
        yt = y[i]
        work = decision_any_multi(SV, A, n, x, kind, sigma, degree, c0, cols, XT, sqn, idx, val, work, F)
        p = _argmax(F, Ks)
        pred[i] = p
        if yt + 1 > Ks:
            Ks = yt + 1
        if p == yt or kernel_eval(x, x, kind, sigma, degree, c0) <= 0.0:  # k(x, x) = 0: nothing to add
            continue
        row[:] = 0.0
        row[yt] = 1.0
        fy = F[yt]
        if variant == MAX:
            row[_runner_up(F, Ks, yt)] = -1.0
        else:  # UNIFORM, or PROP
            ne = 0
            tot = 0.0
            for r in range(Ks):
                if r != yt and F[r] >= fy:
                    ne += 1
                    tot += F[r] - fy
            for r in range(Ks):
                if r != yt and F[r] >= fy:
                    if variant == PROP and tot > 0.0:
                        row[r] = -(F[r] - fy) / tot
                    else:
                        row[r] = -1.0 / ne
        SV, A, stamp = sv_append_multi(SV, A, stamp, n, x, row, t0 + i)
        if cols:
            XT, sqn = cols_append(XT, sqn, n, x)
        n += 1
    state[0] = Ks
    return pred, SV, A, stamp, n, XT, sqn


@njit(cache=True)
def _pa_silk_loop(
    X, y, SV, A, stamp, n, t0, state, variant, C, tau, rho, omega, kind, sigma, degree, c0, cols, XT, sqn
):
    """variant STEP_PA1: PA-I, STEP_PA2: PA-II (tau unused), STEP_SILK: SILK (graph-structured loss)."""
    m = X.shape[0]
    Kc = A.shape[1]
    pred = np.empty(m, dtype=np.int64)
    F = np.zeros(Kc)
    row = np.zeros(Kc)
    idx, val, work = row_buffers(X.shape[1], n)
    Ks = int(state[0])
    om = 1.0 - tau
    for i in range(m):
        x = X[i]
        yt = y[i]
        work = decision_any_multi(SV, A, n, x, kind, sigma, degree, c0, cols, XT, sqn, idx, val, work, F)
        pred[i] = _argmax(F, Ks)
        if yt + 1 > Ks:
            Ks = yt + 1
        s = _runner_up(F, Ks, yt)
        a = 0.0
        if s >= 0:
            kxx = kernel_eval(x, x, kind, sigma, degree, c0)
            if kxx > 0.0:
                if variant == STEP_SILK:
                    a = (rho - om * (F[yt] - F[s])) / (2.0 * kxx)
                    if a > om * C:
                        a = om * C
                else:
                    loss = 1.0 - F[yt] + F[s]
                    if loss > 0.0:
                        if variant == STEP_PA1:
                            a = min(C, loss / (2.0 * kxx))
                        else:
                            a = loss / (2.0 * kxx + 1.0 / (2.0 * C))
        if variant == STEP_SILK:
            for j in range(n):
                for r in range(Kc):
                    A[j, r] *= om
        if a > 0.0:
            row[:] = 0.0
            row[yt] = a
            row[s] = -a
            SV, A, stamp = sv_append_multi(SV, A, stamp, n, x, row, t0 + i)
            if cols:
                XT, sqn = cols_append(XT, sqn, n, x)
            n += 1
            if omega > 0 and n > omega:
                j = sv_argmin_rowmax(A, n)
                if cols:
                    cols_remove(XT, sqn, n, j)
                n = sv_remove_multi(SV, A, stamp, n, j)
    state[0] = Ks
    return pred, SV, A, stamp, n, XT, sqn


class MulticlassPerceptron(MultiKernelClassifier):
    """Multiclass kernel Perceptron (Crammer & Singer 2003).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    update : {"max", "uniform", "prop"}, default "max"
        How the unit of negative weight is spread over the error set.
    n_classes : int or None, default None
        Number of classes when known upfront (the labels must then be the indices
        ``0..n_classes-1``; every score, including those of classes not seen yet, takes part from
        the start, as in the papers' experiments); ``None``: any integer or string labels, the
        classes grow as new labels arrive (``classes_``).
    """

    _updates = ("max", "uniform", "prop")

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        update: str = "max",
        n_classes: int | None = None,
    ):
        if update not in self._updates:
            raise ValueError(f"update: {update!r} is unknown; expected 'max', 'uniform' or 'prop'")
        self.update = update
        self._variant = self._updates.index(update)
        self._init_classes(n_classes)
        self._init_kernel(kernel, sigma, degree, coef)

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _perceptron_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._state,
            self._variant,
            *self.kernel_.args,
            st.columns,
            *st.cols_args(),
        )
        st.keep_cols(XT, sqn)
        return pred


@register("perceptron_max", "multiclass kernel Perceptron, max-score update (Crammer & Singer 2003)")
class PerceptronMax(MulticlassPerceptron):
    """Multiclass kernel Perceptron with the Max update.

    Parameters
    ----------
    kernel, sigma, degree, coef, n_classes : as :class:`MulticlassPerceptron` (``update="max"``).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        n_classes: int | None = None,
    ):
        super().__init__(kernel, sigma, degree, coef, "max", n_classes)


@register("perceptron_uniform", "multiclass kernel Perceptron, uniform update (Crammer & Singer 2003)")
class PerceptronUniform(MulticlassPerceptron):
    """Multiclass kernel Perceptron with the Uniform update.

    Parameters
    ----------
    kernel, sigma, degree, coef, n_classes : as :class:`MulticlassPerceptron` (``update="uniform"``).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        n_classes: int | None = None,
    ):
        super().__init__(kernel, sigma, degree, coef, "uniform", n_classes)


@register("perceptron_prop", "multiclass kernel Perceptron, proportional update (Crammer & Singer 2003)")
class PerceptronProp(MulticlassPerceptron):
    """Multiclass kernel Perceptron with the Prop update.

    Parameters
    ----------
    kernel, sigma, degree, coef, n_classes : as :class:`MulticlassPerceptron` (``update="prop"``).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        n_classes: int | None = None,
    ):
        super().__init__(kernel, sigma, degree, coef, "prop", n_classes)


class _MulticlassPABase(MultiKernelClassifier):
    _variant = STEP_PA1

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        C: float = 1.0,
        n_classes: int | None = None,
    ):
        self.C = C
        self._C = check_positive("C", C)
        self._init_classes(n_classes)
        self._init_kernel(kernel, sigma, degree, coef)

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _pa_silk_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._state,
            self._variant,
            self._C,
            0.0,
            1.0,
            0,
            *self.kernel_.args,
            st.columns,
            *st.cols_args(),
        )
        st.keep_cols(XT, sqn)
        return pred


@register("mpa1", "multiclass kernel PA-I (Crammer et al. 2006), max-loss runner-up update; DUOL paper peer")
class MulticlassPA1(_MulticlassPABase):
    """Multiclass kernel PA-I.

    Parameters
    ----------
    kernel, sigma, degree, coef, n_classes : as :class:`MulticlassPerceptron`.
    C : float, default 1.0
        Aggressiveness cap (the DUOL paper uses 10).
    """

    _variant = STEP_PA1


@register("mpa2", "multiclass kernel PA-II (Crammer et al. 2006), max-loss runner-up update; DUOL paper peer")
class MulticlassPA2(_MulticlassPABase):
    """Multiclass kernel PA-II.

    Parameters
    ----------
    kernel, sigma, degree, coef, n_classes : as :class:`MulticlassPerceptron`.
    C : float, default 1.0
        Weight of the squared slack.
    """

    _variant = STEP_PA2


@register("silk_multi", "multiclass SILK (Cheng et al. 2006): implicit update, graph-structured hinge loss")
class SILKMulticlass(MultiKernelClassifier):
    """Multiclass SILK with the graph-structured (0/rho) loss, eqs. (17)-(18).

    Parameters
    ----------
    kernel, sigma, degree, coef : the kernel.
    C : float, default 1.0
        Box constraint: ``0 <= alpha_t <= (1 - tau) C``.
    tau : float in [0, 1), default 0.01
        Decay of old coefficients per example.
    rho : float, default 1.0
        Label margin ``Delta(y, r)`` for ``r != y``.
    omega : int or None, default 100
        Buffer size; ``None`` keeps every term (multiclass ILK).
    n_classes : int or None, default None
        Number of classes when known upfront (see :class:`MulticlassPerceptron`).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        C: float = 1.0,
        tau: float = 0.01,
        rho: float = 1.0,
        omega: int | None = 100,
        n_classes: int | None = None,
    ):
        self.C, self.tau, self.rho, self.omega = C, tau, rho, omega
        self._init_classes(n_classes)
        self._C = check_positive("C", C)
        self._tau = check_range("tau", tau, 0.0, 1.0, hi_open=True)
        self._rho = check_positive("rho", rho)
        self._omega = check_budget("omega", omega)
        self._init_kernel(kernel, sigma, degree, coef)

    def _run(self, X, y, st):
        pred, st.X, st.coef, st.stamp, st.n, XT, sqn = _pa_silk_loop(
            X,
            y,
            st.X,
            st.coef,
            st.stamp,
            st.n,
            self._t,
            self._state,
            STEP_SILK,
            self._C,
            self._tau,
            self._rho,
            self._omega or 0,
            *self.kernel_.args,
            st.columns,
            *st.cols_args(),
        )
        st.keep_cols(XT, sqn)
        return pred


def multiclass_reference(
    X,
    y,
    algorithm="max",
    C=1.0,
    tau=0.01,
    rho=1.0,
    omega=None,
    kernel="rbf",
    sigma=1.0,
    degree=2,
    coef=1.0,
    n_classes=None,
):
    """Plain NumPy version of every learner of this module.

    ``algorithm`` is ``"max"``, ``"uniform"``, ``"prop"``, ``"pa1"``, ``"pa2"`` or ``"silk"``. Returns
    ``(predictions, support vectors, coefficient matrix (n, K))`` with the vectors in insertion order
    and ``K`` = ``n_classes`` or 1 + the largest label. ``y`` holds class codes as the numba loops
    see them (the labels themselves when they first arrive in the order 0, 1, 2, ...). When nothing
    is stored the arrays are ``(0, d)`` and ``(0, K)``; an example with ``k(x, x) = 0`` is skipped by
    every algorithm, as by the learners.
    """
    k = make_kernel(kernel, sigma, degree, coef)
    X = np.asarray(X, float)
    y = np.asarray(y, int)
    Kmax = n_classes or (int(y.max()) + 1 if len(y) else 0)
    SV, A, pred = [], [], []
    K = n_classes or 0
    for x, yt in zip(X, y):
        F = reference_decision(SV, A, x, k) if SV else np.zeros(Kmax)
        pred.append(int(np.argmax(F[:K])) if K else 0)
        K = max(K, yt + 1)
        others = [r for r in range(K) if r != yt]
        s = max(others, key=lambda r: (F[r], -r)) if others else -1
        row = np.zeros(Kmax)
        kxx = k(x, x)
        if algorithm in ("max", "uniform", "prop"):
            if pred[-1] == yt or kxx <= 0:
                continue
            E = [r for r in others if F[r] >= F[yt]]
            row[yt] = 1
            if algorithm == "max":
                row[s] = -1
            else:
                gaps = np.array([F[r] - F[yt] for r in E])
                w = (
                    gaps / gaps.sum()
                    if algorithm == "prop" and gaps.sum() > 0
                    else np.full(len(E), 1 / len(E))
                )
                row[E] = -w
            SV.append(x)
            A.append(row)
            continue
        a = 0.0
        if s >= 0 and kxx > 0:
            if algorithm == "silk":
                a = float(np.clip((rho - (1 - tau) * (F[yt] - F[s])) / (2 * kxx), 0, (1 - tau) * C))
            else:
                loss = max(0.0, 1 - F[yt] + F[s])
                a = min(C, loss / (2 * kxx)) if algorithm == "pa1" else loss / (2 * kxx + 1 / (2 * C))
        if algorithm == "silk":
            A = [(1 - tau) * r for r in A]
        if a > 0:
            row[yt], row[s] = a, -a
            SV.append(x)
            A.append(row)
            if algorithm == "silk" and omega is not None and len(SV) > omega:
                j = int(np.argmin([np.abs(r).max() for r in A]))
                del SV[j], A[j]
    return (
        np.array(pred),
        np.array(SV, float).reshape(len(SV), X.shape[1]),
        np.array(A, float).reshape(len(A), Kmax),
    )
