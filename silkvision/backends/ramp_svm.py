r"""OnlineSVM^R and OnlineASVM^R: online training of ramp-loss SVMs (Wang & Vucetic, ICDM 2009).

The model is a zero-bias kernel expansion :math:`f(x) = \sum_i y_i \alpha_i k(x_i, x)` (eq. 4) that
minimises the ramp-loss SVM objective (eq. 7)

.. math:: P^R(w) = \tfrac12 \|w\|^2 + C \sum_i R_s(y_i f(x_i)),\qquad
          R_s(z) = \min(1 - s, \max(0, 1 - z))

(the paper's ramp, eq. 6, is ``s = -1``: loss 2 for ``y f < -1``). CCCP (eqs. 8-11) turns this into a
sequence of hinge-loss SVMs on the active set ``V = {i : y_i f(x_i) >= s}`` (eq. 10), i.e. on the
examples whose gradient ``g_i = 1 - y_i f(x_i)`` (eq. 3) is ``<= 1 - s``.

:class:`OnlineSVMR` (``online_svm_r``) is **Algorithm 1**. Every example seen is kept in ``I`` with its
``alpha_i`` and ``g_i``. A new example with ``g in [0, 1 - s]`` joins ``V`` and the solution is repaired
by single-example SMO steps:

* working-set choice, eq. (13): among the KKT violators of ``V`` (eq. 3, tolerance ``tol``) take the
  one whose step increases the dual (11) the most,
  ``gain_j = Q_jj (a_j^2 - a_j'^2)/2 + (g_j + Q_jj a_j)(a_j' - a_j)``;
* the step, eq. (14): ``a_j' = clip(a_j + g_j / Q_jj, 0, C)``;
* the gradient update, eq. (15): ``g_k <- g_k - y_k y_j (a_j' - a_j) k(x_j, x_k)`` for all ``k`` in
  ``I`` (the paper's last line of eq. 15 prints ``+``, but its own first lines,
  ``g = 1 - y f``, give ``-``; we use the consistent sign and test ``g == 1 - y f``);
* the two stopping criteria of Section III.B: stop when no example of ``V`` violates eq. (3) by more
  than ``tol`` (default 1e-3) **or** when the best gain (13) is below ``eps`` (default 1e-5) (the
  paper's "while (violator or not improved much)" reads as "while a violator exists and the
  improvement is not small"; both thresholds are the paper's defaults);
* CCCP re-assignment (steps 16-26): every ``i`` of ``I`` with ``g_i <= 1 - s`` joins ``V``, every one
  with ``g_i > 1 - s`` leaves it and is unlearned (``alpha_i = 0``, eq. 15); repeat until ``V`` is
  unchanged (at most ``max_cccp`` rounds).
* the re-assignment has a dead band: an example leaves V only when ``g > 1 - s + b`` and joins it
  only when ``g <= 1 - s - b``, with ``b = max(tol, sqrt(2 eps Q_ii))`` by default (``cccp_tol``).
  SMO solves (11) only to that accuracy (an unclipped step whose gain (13), ``g^2 / (2 Q_ii)``, is
  below ``eps`` is not taken), so a ``g`` within ``b`` of the ramp's corner is on neither side for
  certain. With the literal test (``cccp_tol=0``) such examples leave and re-join V round after
  round: on 3000 Gauss examples (C = 0.1, delta^2 = M/64) 860 of them ran into ``max_cccp`` and the
  pass took 92 s; with the band none did and it took 0.33 s (``benchmarks/ramp_cccp_band.py``).
  Where the literal test converges the two agree except for examples that end within ``b`` of the
  corner.

**Removal step (Algorithm 2), parameter ``m``.** With ``m=None`` (default) every example is kept in
``I`` (the exact algorithm; memory and time grow with the stream). With an integer ``m >= 0``, after
each example the non-SVs (``alpha = 0``) beyond ``m`` are discarded from ``I``, largest ``|1 - g|`` (i.e.
farthest from the boundary) first, so ``|I| <= n_support_ + m`` at all times. The same algorithm is
also registered as ``online_svm_r_removal`` with ``m=100`` by default (the paper's recommended value,
Section V.D).

:class:`OnlineASVMR` (``online_asvm_r``) is **Algorithm 3** (online active learning): the label of an
example is used ("queried") only when ``|f(x)| <= max(1, -s)`` (the ramp region; ``|f(x)| <= 1`` for the
paper's ``s = -1``); only queried examples enter ``I``. ``n_queried_`` counts the labels used.

An example with ``k(x, x) <= 0`` (``x = 0`` with the linear kernel, or a polynomial one with
``coef = 0``; then ``k(x, .) = 0`` and ``f(x) = 0``, predicted +1) carries nothing to learn: it is
predicted and counted in ``n_seen_``, but not put in ``I`` and its label is not used (not queried),
as in DUOL and PA. So every example of ``I`` has ``Q_ii > 0``.

Implementation. All per-example work runs in one numba loop (:func:`_process`, in
:mod:`silkvision.backends._ramp_kernels`) over slot arrays that double when full; removed examples
free their slot for reuse. Rows ``k(x_j, .)`` over ``I`` are kept in an LRU cache of ``cache_mb`` MiB
(a row stays complete: each new example fills its column in every cached row), so SMO steps on
recently updated support vectors cost no kernel evaluations. A pickle leaves the cache out; it is
recomputed (same values, same rows) when the restored model next learns.
With ``shrinking=True`` (default) an SMO step updates g only for the tracked examples (support
vectors and examples of V near the margin) while a Cauchy-Schwarz bound proves that no other example
can turn into a KKT violator; the others get the summed update before V is re-assigned. The steps are
then exactly those of eq. (13) (same count, same choices; only rounding differs) at a fraction of the
cost when C is large. ``shrinking=False`` applies eq. (15) to all of I at every step, as written.
:class:`RampSVMReference` is a plain Python/NumPy version of the same steps (no cache) used by the
tests to check the numba code.
"""

from __future__ import annotations

import math

import numpy as np

from silkvision.backends._ramp_kernels import (
    _HW,
    _NACT,
    _NEVAL,
    _NLIMIT,
    _NMETA,
    _NQUERY,
    _NSEEN,
    _NSMO,
    _decision_batch,
    _fill_cache,
    _process,
    smo_step,
)
from silkvision.backends._support import as_number, check_positive
from silkvision.backends.base import BinaryClassifier, check_X
from silkvision.backends.mercer import kernel_eval, make_kernel
from silkvision.backends.registry import register

__all__ = ["OnlineSVMR", "OnlineSVMRRemoval", "OnlineASVMR", "RampSVMReference", "smo_step"]


# ----------------------------------------------------------------------------------- estimators
def _check_pos(name, v, allow_zero=False):
    check_positive(name, v, allow_zero)


def _check_int(name, v, lo):
    """An integer in ``[lo, 2**62]``; larger ones are rejected, not clamped (numba uses int64)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= 2**62:
        raise ValueError(f"{name}: {v!r} must be an integer >= {lo} (at most 2**62)")


class _RampSVMBase(BinaryClassifier):
    _active = False

    def __init__(
        self,
        C: float = 1.0,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        s: float = -1.0,
        m: int | None = None,
        tol: float = 1e-3,
        eps: float = 1e-5,
        cache_mb: float = 128.0,
        shrinking: bool = True,
        max_smo: int = 100000,
        max_cccp: int = 100,
        cccp_tol: float | None = None,
    ):
        _check_pos("C", C)
        self._kernel = make_kernel(kernel, sigma, degree, coef)
        s_val = as_number("s", s)
        if not (math.isfinite(s_val) and s_val < 1.0):
            raise ValueError(f"s: {s!r} must be a finite number < 1 (the ramp's flat part starts at y f = s)")
        if m is not None:
            _check_int("m", m, 0)
        _check_pos("tol", tol)
        _check_pos("eps", eps, allow_zero=True)
        _check_pos("cache_mb", cache_mb, allow_zero=True)
        if not isinstance(shrinking, (bool, np.bool_)):
            raise ValueError(f"shrinking: {shrinking!r} must be True or False")
        _check_int("max_smo", max_smo, 1)
        _check_int("max_cccp", max_cccp, 1)
        if cccp_tol is not None:
            _check_pos("cccp_tol", cccp_tol, allow_zero=True)
        self.C = C
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef = coef
        self.s = s
        self.m = m
        self.tol = tol
        self.eps = eps
        self.cache_mb = cache_mb
        self.shrinking = bool(shrinking)
        self.max_smo = max_smo
        self.max_cccp = max_cccp
        self.cccp_tol = cccp_tol
        self._st = None
        self.n_features_ = None

    # ----------------------------------------------------------------- state
    def _alloc(self, d: int, cap: int = 64) -> None:
        st = {
            "SX": np.zeros((cap, d)),
            "SY": np.zeros(cap),
            "A": np.zeros(cap),
            "G": np.zeros(cap),
            "QD": np.zeros(cap),
            "ACT": np.zeros(cap, np.int8),
            "INV": np.zeros(cap, np.int8),
            "MARK": np.zeros(cap, np.int64),
            "FREE": np.zeros(cap, np.int64),
            "C_OF": np.full(cap, -1, np.int64),
            "NEWROW": np.zeros(cap),
            "SCRATCH": np.zeros(cap),
            "REMOVED": np.zeros(cap, np.int64),
            "META": np.zeros(_NMETA, np.int64),
            "WIDX": np.zeros(cap, np.int64),
            "TRK": np.zeros(cap, np.int8),
            "D": np.zeros(cap),
            "CHG": np.zeros(cap, np.int64),
            "CHGF": np.zeros(cap, np.int8),
        }
        nrows = self._cache_rows(cap)
        st["CROW"] = np.zeros((nrows, cap))
        st["S_OF"] = np.full(nrows, -1, np.int64)
        st["LRU"] = np.zeros(nrows, np.int64)
        self._st = st

    #: tracked set W of the shrinking SMO: the examples of V with alpha > 0 or g > tol - margin
    _shrink_margin = 1.0

    def _margin(self) -> float:
        # the skip bound needs |k(x, z)| <= sqrt(k(x, x) k(z, z)): true for PSD kernels only
        psd = self._kernel.name != "poly" or self._kernel.coef >= 0
        return float(self._shrink_margin) if self.shrinking and psd else -1.0

    def _band(self) -> float:
        return -1.0 if self.cccp_tol is None else float(self.cccp_tol)  # -1: _smo_accuracy per example

    def _cache_rows(self, cap: int) -> int:
        return int(min(cap, (self.cache_mb * 2**20) // (8 * cap)))

    def _grow(self) -> None:
        st = self._st
        old = st["SX"].shape[0]
        cap = 2 * old
        for key in (
            "SX",
            "SY",
            "A",
            "G",
            "QD",
            "ACT",
            "INV",
            "MARK",
            "NEWROW",
            "SCRATCH",
            "REMOVED",
            "FREE",
            "WIDX",
            "TRK",
            "D",
            "CHG",
            "CHGF",
        ):
            a = st[key]
            b = np.zeros((cap,) + a.shape[1:], a.dtype)
            b[:old] = a
            st[key] = b
        c_of = np.full(cap, -1, np.int64)
        nrows = self._cache_rows(cap)
        crow = np.zeros((nrows, cap))
        s_of = np.full(nrows, -1, np.int64)
        lru = np.zeros(nrows, np.int64)
        # keep the most recently used rows that still fit
        used = np.flatnonzero(st["S_OF"] >= 0)
        used = used[np.argsort(-st["LRU"][used], kind="stable")][:nrows]
        for r_new, r_old in enumerate(used):
            j = st["S_OF"][r_old]
            crow[r_new, :old] = st["CROW"][r_old]
            s_of[r_new] = j
            lru[r_new] = st["LRU"][r_old]
            c_of[j] = r_new
        st["CROW"], st["S_OF"], st["LRU"], st["C_OF"] = crow, s_of, lru, c_of

    def __getstate__(self) -> dict:
        """The pickled state, without the row cache ``CROW`` (up to ``cache_mb`` MiB: 34 MB for 710
        support vectors); :meth:`_run` recomputes it before the restored model learns again."""
        state = self.__dict__.copy()
        if self._st is not None and self._st["CROW"] is not None:
            st = state["_st"] = dict(self._st)
            st["CROW_SHAPE"] = st["CROW"].shape
            st["CROW"] = None
        return state

    def _run(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        if self._st is None:
            self._alloc(X.shape[1])
        st = self._st
        if st["CROW"] is None:  # unpickled: recompute the cached rows
            st["CROW"] = _fill_cache(
                np.zeros(st.pop("CROW_SHAPE")),
                st["S_OF"],
                st["SX"],
                st["QD"],
                st["ACT"],
                int(st["META"][_HW]),
                *self._kernel.args,
            )
        out = np.zeros(X.shape[0])
        i = 0
        kind, sigma, degree, coef = self._kernel.args
        while True:
            i = _process(
                X,
                y,
                i,
                out,
                st["SX"],
                st["SY"],
                st["A"],
                st["G"],
                st["QD"],
                st["ACT"],
                st["INV"],
                st["MARK"],
                st["FREE"],
                st["CROW"],
                st["C_OF"],
                st["S_OF"],
                st["LRU"],
                st["NEWROW"],
                st["SCRATCH"],
                st["REMOVED"],
                st["META"],
                st["WIDX"],
                st["TRK"],
                st["D"],
                st["CHG"],
                st["CHGF"],
                kind,
                sigma,
                degree,
                coef,
                float(self.C),
                float(self.s),
                float(self.tol),
                float(self.eps),
                -1 if self.m is None else int(self.m),
                bool(self._active),
                int(self.max_smo),
                int(self.max_cccp),
                self._margin(),
                self._band(),
            )
            if i >= X.shape[0]:
                return out
            self._grow()

    # ----------------------------------------------------------------- API
    def learn_one(self, x, y):
        """Algorithm 1 (3 for the active learner) on one example; ``y`` must be -1 or +1."""
        x = self._check_one(x)
        y = self._check_y(y, 1)
        self._check_kernel(x[None, :], "x")
        self._learned_features(x.shape[0])
        self._run(x[None, :], y)
        return self

    @property
    def kernel_(self):
        """The validated :class:`~silkvision.backends.mercer.Kernel`."""
        return self._kernel

    def decision_function_one(self, x) -> float:
        """f(x) = sum_i y_i alpha_i k(x_i, x) (eq. 4); 0 before any example is learned."""
        x = self._check_one(x)
        return float(self._decision(x[None, :])[0])

    def _decision(self, X: np.ndarray) -> np.ndarray:
        out = np.zeros(X.shape[0])
        if self._st is None:
            return out
        st = self._st
        return _decision_batch(
            X, st["SX"], st["SY"], st["A"], st["ACT"], int(st["META"][_HW]), *self._kernel.args, out
        )

    def decision_function(self, X) -> np.ndarray:
        """f(x) for each row of ``X`` (one compiled loop)."""
        X = check_X(X, self.n_features_)
        return self._decision(X)

    def predict(self, X) -> np.ndarray:
        """Labels (-1/+1, int64) for each row of ``X``: +1 where f(x) >= 0."""
        return np.where(self.decision_function(X) >= 0, 1, -1).astype(np.int64)

    def _progressive(self, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        if len(X) == 0:  # no-op: allocating here would fix the feature dimension
            return np.empty(0, dtype=np.int64)
        f = self._run(X, y)
        return np.where(f >= 0, 1, -1).astype(np.int64)

    # ----------------------------------------------------------------- inspection
    def _meta(self, k: int) -> int:
        return 0 if self._st is None else int(self._st["META"][k])

    def _slots(self) -> np.ndarray:
        if self._st is None:
            return np.zeros(0, np.int64)
        hw = self._meta(_HW)
        return np.flatnonzero(self._st["ACT"][:hw])

    @property
    def n_support_(self) -> int:
        """Number of support vectors (alpha > 0)."""
        if self._st is None:
            return 0
        sl = self._slots()
        return int(np.count_nonzero(self._st["A"][sl] > 0))

    @property
    def support_vectors_(self) -> np.ndarray:
        """The support vectors, shape (n_support_, d)."""
        if self._st is None:
            return np.zeros((0, self.n_features_ or 0))
        sl = self._slots()
        sl = sl[self._st["A"][sl] > 0]
        return self._st["SX"][sl].copy()

    @property
    def dual_coef_(self) -> np.ndarray:
        """y_i alpha_i of the support vectors (same order as :attr:`support_vectors_`)."""
        if self._st is None:
            return np.zeros(0)
        sl = self._slots()
        sl = sl[self._st["A"][sl] > 0]
        return self._st["SY"][sl] * self._st["A"][sl]

    def state(self) -> dict:
        """Copy of the examples kept in I, in slot order: ``X, y, alpha, g, in_V`` (for tests/plots)."""
        sl = self._slots()
        if self._st is None:
            return {
                "X": np.zeros((0, self.n_features_ or 0)),
                "y": np.zeros(0),
                "alpha": np.zeros(0),
                "g": np.zeros(0),
                "in_V": np.zeros(0, bool),
                "slots": sl,
            }
        st = self._st
        return {
            "X": st["SX"][sl].copy(),
            "y": st["SY"][sl].copy(),
            "alpha": st["A"][sl].copy(),
            "g": st["G"][sl].copy(),
            "in_V": st["INV"][sl].astype(bool),
            "slots": sl,
        }

    @property
    def n_seen_(self) -> int:
        """Number of examples given to ``learn_one`` / ``partial_fit``."""
        return self._meta(_NSEEN)

    @property
    def n_stored_(self) -> int:
        """|I|: examples kept (SVs and non-SVs); at most ``n_support_ + m`` with the removal step."""
        return self._meta(_NACT)

    @property
    def n_kernel_evals_(self) -> int:
        """Kernel evaluations made while learning (the paper's cost measure, Fig. 4.a)."""
        return self._meta(_NEVAL)

    @property
    def n_smo_steps_(self) -> int:
        """SMO steps (eq. 14 updates) made inside the CCCP loops."""
        return self._meta(_NSMO)

    @property
    def n_limit_hits_(self) -> int:
        """Times ``max_smo`` or ``max_cccp`` cut an optimisation short (0 in normal runs)."""
        return self._meta(_NLIMIT)


@register(
    "online_svm_r",
    "OnlineSVM^R: online ramp-loss SVM by SMO + CCCP (Wang & Vucetic, ICDM 2009, Alg. 1; "
    "the removal step of Alg. 2 when m is given)",
)
class OnlineSVMR(_RampSVMBase):
    """OnlineSVM^R (Algorithm 1 of Wang & Vucetic, ICDM 2009), optionally with the removal step.

    Parameters
    ----------
    C : float, default 1.0
        Regularisation of the ramp-loss SVM (eq. 7); the box of the dual (11).
    kernel, sigma, degree, coef
        Kernel (see :func:`~silkvision.backends.mercer.make_kernel`); RBF
        ``exp(-||x - y||^2 / (2 sigma^2))`` is the paper's kernel (``sigma^2`` = the paper's delta^2).
    s : float, default -1.0
        Ramp parameter: examples with ``y f(x) < s`` lie on the flat part of the ramp and leave the
        active set V (eq. 10 uses ``s = -1``). Must be < 1.
    m : int or None, default None
        Removal step (Algorithm 2): keep at most ``m`` non-support vectors in I (None: keep all;
        integers above 2**62 are rejected).
    tol : float, default 1e-3
        KKT tolerance of the first stopping criterion (eq. 3).
    eps : float, default 1e-5
        Smallest dual improvement (eq. 13) worth a step: the second stopping criterion.
    cache_mb : float, default 128
        Memory for the LRU cache of kernel rows (0: no cache).
    shrinking : bool, default True
        During the SMO steps, update g only for the support vectors and the examples of V near the
        margin; the others are brought up to date in one pass per changed alpha before V is
        re-assigned. A bound (see ``_build_w``) guarantees that no skipped example can be a KKT
        violator, so every step is the one eq. (13) picks over all of V; results equal those of
        ``shrinking=False`` (eq. 15 applied to all of I at every step) up to rounding, and the
        training is many times faster at large C. Off for non-PSD kernels (poly with coef < 0).
    max_smo, max_cccp : int
        Safety limits on SMO steps per CCCP round and CCCP rounds per example (:attr:`n_limit_hits_`
        counts how often they stopped an optimisation); integers in ``[1, 2**62]``.
    cccp_tol : float or None, default None
        Dead band of the CCCP re-assignment of V (eq. 10, steps 16-22): an example of V leaves it
        when ``g > 1 - s + b``, one outside joins when ``g <= 1 - s - b``. None sets ``b`` per example
        to the accuracy of the SMO solution, ``max(tol, sqrt(2 eps Q_ii))`` (the largest violation of
        eq. 3 that the two stopping criteria let through for a step inside the box; 0.0045 for the
        RBF kernel and the default ``eps``), since a ``g`` that close to ``1 - s`` does not tell the
        sides apart. Next to a bound the step is clipped and its gain, about ``g (C - alpha)``,
        can fall below ``eps`` while ``g`` is larger (sonar with flipped labels: g = 0.0185 at
        alpha = 0.99962 C), a change of f of the order of ``eps / g``. ``0`` is the literal test of
        Algorithm 1, which can cycle without end (see the module notes).

    Attributes
    ----------
    n_support_, n_stored_, n_seen_, n_kernel_evals_, n_smo_steps_, support_vectors_, dual_coef_
    """


@register("online_svm_r_removal", "OnlineSVM^R with the removal step (Alg. 2), m=100 non-SVs kept by default")
class OnlineSVMRRemoval(OnlineSVMR):
    """:class:`OnlineSVMR` with the removal step on by default (Section V.D).

    Parameters
    ----------
    C, kernel, sigma, degree, coef, s, tol, eps, cache_mb, shrinking, max_smo, max_cccp, cccp_tol : as
        :class:`OnlineSVMR`.
    m : int or None, default 100
        Removal step (Algorithm 2): keep at most ``m`` non-support vectors in I.
    """

    def __init__(
        self,
        C: float = 1.0,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        coef: float = 1.0,
        s: float = -1.0,
        m: int | None = 100,
        tol: float = 1e-3,
        eps: float = 1e-5,
        cache_mb: float = 128.0,
        shrinking: bool = True,
        max_smo: int = 100000,
        max_cccp: int = 100,
        cccp_tol: float | None = None,
    ):
        super().__init__(
            C=C,
            kernel=kernel,
            sigma=sigma,
            degree=degree,
            coef=coef,
            s=s,
            m=m,
            tol=tol,
            eps=eps,
            cache_mb=cache_mb,
            shrinking=shrinking,
            max_smo=max_smo,
            max_cccp=max_cccp,
            cccp_tol=cccp_tol,
        )


@register(
    "online_asvm_r",
    "OnlineASVM^R: active-learning OnlineSVM^R, queries labels only where |f(x)| <= 1 (ICDM 2009, Alg. 3)",
)
class OnlineASVMR(_RampSVMBase):
    """OnlineASVM^R (Algorithm 3): OnlineSVM^R that uses ("queries") a label only when |f(x)| <= 1.

    ``learn_one(x, y)`` looks at ``y`` only if ``|f(x)| <= max(1, -s)``; otherwise the example is
    dropped (not put in I).

    Parameters
    ----------
    C, kernel, sigma, degree, coef, s, m, tol, eps, cache_mb, shrinking, max_smo, max_cccp, cccp_tol : as
        :class:`OnlineSVMR`.

    Attributes
    ----------
    n_queried_ : int
        Number of labels queried (used) so far; ``n_seen_`` counts all examples offered.
    """

    _active = True

    @property
    def n_queried_(self) -> int:
        return self._meta(_NQUERY)


# ------------------------------------------------------------------------------- reference code
class RampSVMReference:
    """Plain Python/NumPy OnlineSVM^R / OnlineASVM^R (Algorithms 1-3, eqs. 13-15), no row cache.

    A slow, literal transcription used by the tests to check :func:`_process`: NumPy vectors over
    the examples of I, every kernel value from the scalar :func:`~silkvision.backends.mercer.kernel_eval`
    (memoised per pair), and the same slot layout (freed slots are reused last-freed first) so that
    ties resolve identically.
    """

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        sigma=1.0,
        degree=2,
        coef=1.0,
        s=-1.0,
        m=None,
        tol=1e-3,
        eps=1e-5,
        active=False,
        max_smo=100000,
        max_cccp=100,
        cccp_tol=None,
    ):
        self.k = make_kernel(kernel, sigma, degree, coef)
        self.cccp_tol = cccp_tol
        self.C, self.s, self.m, self.tol, self.eps, self.active = float(C), float(s), m, tol, eps, active
        self.max_smo, self.max_cccp = max_smo, max_cccp
        self.X: list = []  # per slot
        self.y = np.zeros(0)
        self.a = np.zeros(0)
        self.g = np.zeros(0)
        self.q = np.zeros(0)  # Q_ii = k(x_i, x_i)
        self.act = np.zeros(0, bool)
        self.inV = np.zeros(0, bool)
        self.free: list = []
        self._K: dict = {}  # (i, j) -> k(x_i, x_j), i < j
        self.n_queried = 0

    def _kv(self, i, j) -> float:
        if i == j:
            return float(self.q[i])
        key = (i, j) if i < j else (j, i)
        v = self._K.get(key)
        if v is None:
            v = self._K[key] = float(kernel_eval(self.X[key[0]], self.X[key[1]], *self.k.args))
        return v

    def _row(self, j) -> np.ndarray:
        return np.array([self._kv(j, k) if self.act[k] else 0.0 for k in range(len(self.X))])

    def decision(self, x) -> float:
        """f(x), eq. (4)."""
        x = np.asarray(x, np.float64)
        f = 0.0
        for j in range(len(self.X)):
            if self.act[j] and self.a[j] > 0.0:
                f += self.y[j] * self.a[j] * float(kernel_eval(self.X[j], x, *self.k.args))
        return f

    def _eq15(self, j, delta):
        upd = self.y * (self.y[j] * delta) * self._row(j)
        self.g = np.where(self.act, self.g - upd, self.g)

    def _eq14_13(self, a, g, q):
        """Vectorised eq. (14) and gain (13) (q > 0: examples with k(x, x) <= 0 are never stored)."""
        an = np.minimum(np.maximum(a + g / q, 0.0), self.C)
        return an, 0.5 * q * (a * a - an * an) + (g + q * a) * (an - a)

    def _violators(self):
        a, g = self.a, self.g
        viol = np.where(a <= 0.0, g > self.tol, np.where(a >= self.C, g < -self.tol, np.abs(g) > self.tol))
        return viol & self.act & self.inV

    def learn(self, x, y) -> float:
        """Predict f(x), then learn (x, y); returns f(x)."""
        x = np.asarray(x, np.float64)
        f = self.decision(x)
        qx = float(kernel_eval(x, x, *self.k.args))
        if qx <= 0.0:
            return f  # k(x, x) = 0: nothing to learn
        if self.active:
            if abs(f) > max(1.0, -self.s):
                return f
            self.n_queried += 1
        if self.free:
            j = self.free.pop()
            self._K = {key: v for key, v in self._K.items() if j not in key}
            self.X[j] = x
        else:
            j = len(self.X)
            self.X.append(x)
            for name in ("y", "a", "g", "q"):
                setattr(self, name, np.append(getattr(self, name), 0.0))
            self.act = np.append(self.act, False)
            self.inV = np.append(self.inV, False)
        self.y[j], self.a[j], self.g[j], self.act[j], self.inV[j] = float(y), 0.0, 1.0 - y * f, True, False
        self.q[j] = qx
        if 0.0 <= self.g[j] <= 1.0 - self.s:  # Alg. 1 steps 4-8
            self.inV[j] = True
            an = min(max(self.g[j] / self.q[j], 0.0), self.C)
            if an != 0.0:
                self.a[j] = an
                self._eq15(j, an)
            self._optimize()
        if self.m is not None:  # Alg. 2
            while np.sum(self.act & (self.a == 0.0)) > self.m:
                d = np.where(self.act & (self.a == 0.0), np.abs(1.0 - self.g), -1.0)
                r = int(np.argmax(d))
                self.act[r], self.inV[r], self.a[r] = False, False, 0.0
                self.free.append(r)
        return f

    def _optimize(self):
        upper = 1.0 - self.s
        for _ in range(self.max_cccp):
            for _it in range(self.max_smo):  # steps 10-15
                viol = self._violators()
                if not viol.any():
                    break
                an, gain = self._eq14_13(self.a, self.g, np.where(viol, self.q, 1.0))
                gain = np.where(viol, gain, -np.inf)
                best = int(np.argmax(gain))
                if gain[best] < self.eps:
                    break
                delta = an[best] - self.a[best]
                self.a[best] = an[best]
                self._eq15(best, delta)
            if self.cccp_tol is None:
                band = np.maximum(self.tol, np.sqrt(2.0 * self.eps * self.q))
            else:
                band = self.cccp_tol
            join = self.act & ~self.inV & (self.g <= upper - band)  # steps 16-22
            leave = self.act & self.inV & (self.g > upper + band)
            self.inV = (self.inV | join) & ~leave
            for j in np.flatnonzero(leave):  # steps 23-26
                if self.a[j] != 0.0:
                    delta = -self.a[j]
                    self.a[j] = 0.0
                    self._eq15(j, delta)
            if not (join.any() or leave.any()):
                return
