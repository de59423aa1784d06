"""Mercer kernels (Gaussian, polynomial, linear) of the online learners; the numba whole-frame
kernels of the pixel detectors are another thing, in ``silkvision/detector/kernels.py``.

* ``"rbf"`` (alias ``"gaussian"``): k(x, y) = exp(-||x - y||^2 / (2 sigma^2)), with
  ``sigma >= SIGMA_MIN`` = 1e-150 (below about 1e-162 ``2 sigma^2`` underflows to 0). The DUOL papers
  (JMLR 2011 sections 5.1 and 5.5, NIPS 2009 section 4.1) only say "Gaussian kernel with sigma = 8"
  and do not write the kernel out; the ``2 sigma^2`` form follows the ICDM 2009 ramp-loss SVM paper
  (section V.A, ``exp(-||x_i - x_j||^2 / 2 delta^2)``) and the Hoi group's MATLAB code for these
  learners.
* ``"poly"`` (alias ``"polynomial"``): k(x, y) = (x . y + coef)^degree
* ``"linear"``: k(x, y) = x . y

:func:`make_kernel` validates the parameters (every learner's ``kernel``, ``sigma``, ``degree`` and
``coef`` go through it) and stores an alias under its canonical name (``Kernel.name``); the learners'
``kernel`` parameter, and so their ``repr``, keeps the name as given.

A kernel is passed to numba code as ``(kind, sigma, degree, coef)`` with ``kind`` one of
:data:`RBF`, :data:`POLY`, :data:`LINEAR`; :func:`kernel_row` evaluates k(SV_j, x) for the first
``n`` rows of a support-vector array in one compiled loop. :func:`kernel_matrix_reference` is the
plain NumPy reference used by the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = [
    "Kernel",
    "make_kernel",
    "SIGMA_MIN",
    "kernel_eval",
    "kernel_row",
    "kernel_matrix_reference",
    "check_kernel_finite",
    "RBF",
    "POLY",
    "LINEAR",
]

RBF, POLY, LINEAR = 0, 1, 2
_KINDS = {"rbf": RBF, "gaussian": RBF, "poly": POLY, "polynomial": POLY, "linear": LINEAR}
_ALIASES = {"gaussian": "rbf", "polynomial": "poly"}

#: Smallest accepted Gaussian width. The kernel divides by ``2 sigma^2``, which underflows to 0 for
#: sigma below about 1e-162; at 1e-150 it is 2e-300 and ``1 / (2 sigma^2)`` is finite.
SIGMA_MIN = 1e-150


@dataclass(frozen=True)
class Kernel:
    """A validated kernel specification."""

    name: str
    sigma: float = 1.0
    degree: int = 2
    coef: float = 1.0

    @property
    def kind(self) -> int:
        return _KINDS[self.name]

    @property
    def args(self) -> tuple:
        """``(kind, sigma, degree, coef)`` for the numba functions."""
        return (self.kind, float(self.sigma), int(self.degree), float(self.coef))

    def __call__(self, x, y) -> float:
        return float(kernel_eval(np.asarray(x, np.float64), np.asarray(y, np.float64), *self.args))


def make_kernel(kernel: str = "rbf", sigma: float = 1.0, degree: int = 2, coef: float = 1.0) -> Kernel:
    """Validate kernel parameters; raises ``ValueError`` naming the bad one.

    Parameters
    ----------
    kernel : {"rbf", "gaussian", "poly", "polynomial", "linear"}
        ``"gaussian"`` is an alias of ``"rbf"``, ``"polynomial"`` one of ``"poly"``.
    sigma : float
        Gaussian width, a finite number >= :data:`SIGMA_MIN` (1e-150); checked for every kernel.
    degree : int
        Polynomial degree, an integer in ``[1, 2**62]`` (the numba loops use int64).
    coef : float
        Polynomial offset, a finite number >= 0 (``coef < 0`` does not give a positive
        semi-definite kernel).
    """
    from silkvision.backends._support import as_number

    if not isinstance(kernel, str) or kernel not in _KINDS:
        raise ValueError(
            f"kernel: {kernel!r} is unknown; expected 'rbf' (alias 'gaussian'), 'poly' "
            f"(alias 'polynomial') or 'linear'"
        )
    width = as_number("sigma", sigma)
    if not (np.isfinite(width) and width >= SIGMA_MIN):
        raise ValueError(
            f"sigma: {sigma!r} must be a finite number >= {SIGMA_MIN:g} (2 sigma^2 "
            f"underflows to 0 below about 1e-162)"
        )
    try:
        ok = not isinstance(degree, (bool, str)) and int(degree) == degree and 1 <= degree <= 2**62
    except (TypeError, ValueError, OverflowError):  # None, "x", NaN, inf
        ok = False
    if not ok:
        raise ValueError(f"degree: {degree!r} must be an integer >= 1 (at most 2**62)")
    c = as_number("coef", coef)
    if not (np.isfinite(c) and c >= 0):
        # with coef < 0, (x.z + coef)^degree is not a positive semi-definite kernel: k(x, x) can be
        # negative, and a finite k(x, x) no longer bounds k(x, z), so a model could answer inf
        raise ValueError(
            f"coef: {coef!r} must be a finite number >= 0 (a negative offset does not "
            f"give a positive semi-definite kernel)"
        )
    return Kernel(_ALIASES.get(kernel, kernel), width, int(degree), c)


@njit(cache=True, fastmath={"reassoc", "contract"})
def kernel_eval(x, y, kind, sigma, degree, coef):
    """k(x, y) for one pair of 1-D float64 arrays.

    The feature sum may be reassociated (SIMD, several times faster for d >= 50): the result can
    differ from the sequential sum in the last bits, so tests compare with a tolerance.
    """
    if kind == 0:
        s = 0.0
        for i in range(x.shape[0]):
            d = x[i] - y[i]
            s += d * d
        return np.exp(-s / (2.0 * sigma * sigma))
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    if kind == 1:
        return (s + coef) ** degree
    return s


@njit(cache=True)
def kernel_row(SV, n, x, kind, sigma, degree, coef, out):
    """out[j] = k(SV[j], x) for j < n (SV is (capacity, d) float64)."""
    for j in range(n):
        out[j] = kernel_eval(SV[j], x, kind, sigma, degree, coef)
    return out


@njit(cache=True)
def _first_nonfinite_diag(X, kind, sigma, degree, coef):
    """Index of the first row ``x`` of ``X`` whose ``k(x, x)`` is not finite (-1 if none)."""
    for i in range(X.shape[0]):
        v = kernel_eval(X[i], X[i], kind, sigma, degree, coef)
        if not np.isfinite(v):
            return i
    return -1


def check_kernel_finite(X: np.ndarray, kernel: Kernel, name: str = "X") -> None:
    """Raise ``ValueError`` if ``k(x, x)`` overflows (is not finite) for a row ``x`` of ``X``.

    Finite but huge features can overflow the linear and polynomial kernels (e.g. ``x = 1e200``
    with the linear kernel, or ``x = 1e10`` with ``degree=50``); a learner that took such an example
    would answer NaN or inf for every later prediction. The learners call this on every example
    before learning it, so a rejected example (or batch) leaves the model unchanged. For kernels
    with ``|k(x, z)| <= sqrt(k(x, x) k(z, z))`` (every kernel :func:`make_kernel` accepts) a finite
    ``k(x, x)`` also keeps every ``k(x, z)`` between stored examples finite. The Gaussian kernel
    cannot overflow (``k(x, x) = 1``) and is not checked.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated (finite, C-contiguous float64) examples.
    kernel : Kernel
    name : str, default "X"
        How the error names the input: ``"X"`` gives ``X[i]``; ``"x"`` (one example) gives ``x``.

    Raises
    ------
    ValueError
        Naming the first offending row and the kernel, and suggesting to scale the features.
    """
    if kernel.kind == RBF or len(X) == 0:
        return
    i = int(_first_nonfinite_diag(X, *kernel.args))
    if i < 0:
        return
    where = name if name == "x" else f"{name}[{i}]"
    spec = (
        "linear kernel"
        if kernel.kind == LINEAR
        else f"poly kernel (degree={kernel.degree}, coef={kernel.coef:g})"
    )
    v = float(kernel_eval(X[i], X[i], *kernel.args))
    big = float(np.max(np.abs(X[i])))
    kept = "it was refused (neither learned nor scored)" if name == "x" else f"no row of {name} was learned"
    alt = "" if kernel.kind == LINEAR else ", or use a lower degree or the rbf kernel"
    raise ValueError(
        f"{where}: k(x, x) = {v} overflows with the {spec} (largest |feature| {big:.3g}); "
        f"{kept}. Scale the features (e.g. standardise them){alt}"
    )


def kernel_matrix_reference(A: np.ndarray, B: np.ndarray, kernel: Kernel) -> np.ndarray:
    """Plain NumPy Gram matrix K[i, j] = k(A[i], B[j]) (reference for tests).

    The RBF distances are sums of squared differences, one column at a time: the expansion
    ``|a|^2 + |b|^2 - 2 a.b`` would cancel on data with a large offset."""
    A = np.asarray(A, np.float64)
    B = np.asarray(B, np.float64)
    if kernel.name == "rbf":
        d2 = np.empty((A.shape[0], B.shape[0]))
        for j in range(B.shape[0]):
            d2[:, j] = ((A - B[j]) ** 2).sum(1)
        return np.exp(-d2 / (2 * kernel.sigma**2))
    G = A @ B.T
    if kernel.name == "poly":
        return (G + kernel.coef) ** kernel.degree
    return G
