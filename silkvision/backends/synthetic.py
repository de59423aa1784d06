"""Synthetic binary data sets of the OnlineSVM^R paper (Wang & Vucetic, ICDM 2009, Section V).

* :func:`checkerboard` -- the *Checkerboard* set: 2-D points uniform on a ``grid x grid`` board
  (default 4 x 4 on ``[0, 4)^2``), the label alternating from cell to cell like the colours of a
  chess board. The paper does not spell out the board; 4 x 4 uniform is the version used by the same
  group's later papers (e.g. Wang, Crammer & Vucetic, JMLR 2012), so it is what we generate.
* :func:`noisy_checkerboard` -- *NCheckerboard*: the same, with the class of 15 % of randomly chosen
  examples switched (Section V.A: "class assignment was switched for 15% of the randomly selected
  examples"; the paper tests both on the noise-free Checkerboard).
* :func:`gauss` -- *Gauss*: "two overlapping 2-D Gaussian distributions" from Haykin's *Neural
  Networks* [10]: class +1 ~ N((0, 0), I), class -1 ~ N((2, 0), 4 I), equal priors. Its Bayes-optimal
  accuracy is about 81.5 % (Haykin); :func:`gauss_bayes_predict` is that optimal rule, for checks.

Every generator takes ``seed`` (``None``, an int or a :class:`numpy.random.Generator`) and is
deterministic for a given integer seed. Labels are -1/+1 float64, the convention of
:class:`~silkvision.backends.base.BinaryClassifier`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["checkerboard", "noisy_checkerboard", "gauss", "gauss_bayes_predict", "flip_labels"]


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _check_n(n) -> int:
    if int(n) != n or n < 0:
        raise ValueError(f"n: {n!r} must be an integer >= 0")
    return int(n)


def _check_noise(noise) -> float:
    if not np.isfinite(noise) or not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise: {noise!r} must be a fraction in [0, 1]")
    return float(noise)


def flip_labels(y: np.ndarray, noise: float, seed=None) -> np.ndarray:
    """Copy of ``y`` with the sign of ``round(noise * n)`` randomly chosen labels switched.

    Parameters
    ----------
    y : ndarray of -1/+1
    noise : float in [0, 1]
        Fraction of the examples whose class is switched (exactly ``round(noise * n)`` of them).
    seed : None, int or numpy Generator
    """
    noise = _check_noise(noise)
    y = np.array(y, dtype=np.float64, copy=True)
    k = int(round(noise * y.shape[0]))
    if k:
        idx = _rng(seed).choice(y.shape[0], size=k, replace=False)
        y[idx] = -y[idx]
    return y


def checkerboard(n: int, *, grid: int = 4, noise: float = 0.0, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """Checkerboard data: ``n`` points uniform on ``[0, grid)^2``.

    The label is +1 when ``floor(x1) + floor(x2)`` is even, -1 otherwise; then the class of
    ``round(noise * n)`` randomly chosen points is switched (``noise=0``: the clean board).

    Returns
    -------
    X : ndarray, shape (n, 2), float64
    y : ndarray, shape (n,), float64 in {-1, +1}
    """
    n = _check_n(n)
    if int(grid) != grid or grid < 1:
        raise ValueError(f"grid: {grid!r} must be an integer >= 1")
    noise = _check_noise(noise)
    rng = _rng(seed)
    X = rng.uniform(0.0, float(grid), size=(n, 2))
    cell = np.floor(X).astype(np.int64).sum(axis=1)
    y = np.where(cell % 2 == 0, 1.0, -1.0)
    if noise > 0:
        y = flip_labels(y, noise, rng)
    return X, y


def noisy_checkerboard(
    n: int, *, noise: float = 0.15, grid: int = 4, seed=None
) -> tuple[np.ndarray, np.ndarray]:
    """*NCheckerboard*: :func:`checkerboard` with the class of 15 % of the examples switched."""
    return checkerboard(n, grid=grid, noise=noise, seed=seed)


def gauss(n: int, *, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """*Gauss* (Haykin): class +1 ~ N((0,0), I), class -1 ~ N((2,0), 4 I), each with prior 1/2.

    Returns
    -------
    X : ndarray, shape (n, 2), float64
    y : ndarray, shape (n,), float64 in {-1, +1}
    """
    n = _check_n(n)
    rng = _rng(seed)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    z = rng.standard_normal((n, 2))
    neg = y < 0
    X = z.copy()
    X[neg] = 2.0 * z[neg] + np.array([2.0, 0.0])
    return X, y


def gauss_bayes_predict(X) -> np.ndarray:
    """Bayes-optimal labels for :func:`gauss` data (equal priors; likelihood-ratio rule).

    +1 when ``N(x; 0, I) >= N(x; (2,0), 4I)``, i.e. when
    ``||x||^2 / 2 - ||x - (2,0)||^2 / 8 <= log 4`` (a circle: the optimal boundary).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X: expected shape (n, 2), got {X.shape}")
    a = 0.5 * (X**2).sum(1)
    b = 0.125 * ((X - np.array([2.0, 0.0])) ** 2).sum(1)
    return np.where(a - b <= np.log(4.0), 1.0, -1.0)
