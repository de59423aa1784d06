r"""Per-pixel truncated NORMA novelty detection (Kivinen, Smola and Williamson, "Online learning with
kernels", IEEE Trans. Signal Processing 52(8), 2004) -- the baseline of SILK's video experiment
(Cheng et al. 2006, Sec. 4: "SILK vs. truncated NORMA", omega = 20 for both). NORMA's paper is
cited by title and formula: it is not among the project's stored papers, so no equation numbers are
given here.

NORMA's novelty detection minimises the regularised nu-loss
(lambda / 2) ||f||^2 + (rho - f(x_t))_+ - nu rho by stochastic gradient descent with learning
rate eta (explicit update, eq. 4 of the SILK paper). With sigma_t = 1 if f_t(x_t) < rho_t, else 0:

    alpha_i <- (1 - eta lambda) alpha_i          (every old term decays)
    alpha_t  = eta sigma_t                       (a new term only when x_t is inside the margin)
    rho_{t+1} = rho_t - eta (sigma_t - nu)       (falls by eta (1 - nu), or rises by eta nu)

Truncation: only the last ``omega`` (non-zero) terms are kept -- a first-in first-out ring buffer,
the "least recently used" rule that SILK's lowest-coefficient rule replaces. rho starts at 1.

Score: the bare f_t(x_t) = sum_i alpha_i k(x_i, x_t) before the update (kept in
:attr:`NormaSubtractor.scores`), foreground iff f < threshold. NORMA's own decision value
(f - rho) / eta is NOT used: rho falls by eta (1 - nu) every time a foreground object passes, which
erases the gap between background and foreground (CDnet highway F 0.15 with it).

The same whole-frame machinery as SILK (row layout, global decay scale, fast exp): see
:mod:`silkvision.detector.silk` and :func:`silkvision.detector.kernels.norma_frame`.
"""

from __future__ import annotations

import numpy as np

from silkvision.config.schema import SCHEMA
from silkvision.detector import kernels as _k
from silkvision.detector.numba_threads import run_kernel
from silkvision.detector.pixel import KernelPixelSubtractor, check_param
from silkvision.detector.pixel import schema_default as _default

__all__ = ["NormaSubtractor", "RHO0"]

_F = np.float32

#: initial offset rho of every pixel
RHO0 = 1.0


class NormaSubtractor(KernelPixelSubtractor):
    """Per-pixel truncated NORMA novelty detector (see the module docstring).

    Parameters
    ----------
    omega : int
        Truncation: the last omega terms are kept (paper: 20).
    eta : float
        Learning rate (the coefficient of a new term).
    lam : float
        Regulariser lambda: old terms decay by (1 - eta lam) per frame; eta lam must be < 1. The
        config key ``lambda`` is accepted too (``NormaSubtractor(**{"lambda": 0.1})``), so
        ``NormaSubtractor(**det.get_params())`` makes a twin of ``det``.
    nu : float
        nu in [0, 1] of the nu-loss (offset update).
    sigma : float
        Gaussian kernel width in 8-bit colour units; at least
        :data:`~silkvision.detector.pixel.SIGMA_MIN` (1e-6).
    threshold : float
        Foreground iff f(x) < threshold.
    colour_space : {"rgb", "ycrcb", "lab", "gray"}
    median : int
        Median filter size of the mask (0 = off).
    close : int
        Size of the elliptic closing of the mask after the median (0 = off).
    fill_holes : bool
        Fill enclosed background holes of the mask after the closing.
    filter_width : int
        ``median`` and ``close`` are sizes for frames this wide; wider frames get windows grown
        in proportion (odd, at most 15); 0 = the sizes as given.
    """

    name = "norma"
    _PARAM_NAMES = (
        "omega",
        "eta",
        "lam",
        "nu",
        "sigma",
        "threshold",
        "colour_space",
        "median",
        "close",
        "fill_holes",
        "filter_width",
    )

    def __init__(
        self,
        omega: int = _default("norma", "omega"),
        eta: float = _default("norma", "eta"),
        lam: float = _default("norma", "lambda"),
        nu: float = _default("norma", "nu"),
        sigma: float = _default("norma", "sigma"),
        threshold: float = _default("norma", "threshold"),
        colour_space: str = SCHEMA["detector"]["colour_space"].default,
        median: int = SCHEMA["detector"]["median"].default,
        close: int = SCHEMA["detector"]["close"].default,
        fill_holes: bool = SCHEMA["detector"]["fill_holes"].default,
        filter_width: int = SCHEMA["detector"]["filter_width"].default,
        **config_key,
    ):
        if config_key:  # ``lambda``, the config key and get_params' name, which Python cannot spell
            unknown = set(config_key) - {"lambda"}
            if unknown:
                raise TypeError(
                    f"NormaSubtractor() got an unexpected keyword argument {sorted(unknown)[0]!r}"
                )
            if lam != _default("norma", "lambda"):
                raise ValueError("lam, lambda: give one of them, not both")
            lam = config_key["lambda"]
        super().__init__(
            omega=omega,
            eta=eta,
            lam=lam,
            nu=nu,
            sigma=sigma,
            threshold=threshold,
            colour_space=colour_space,
            median=median,
            close=close,
            fill_holes=fill_holes,
            filter_width=filter_width,
        )

    def _set(self, params: dict, initial: bool = False) -> bool:
        if "lambda" in params:  # accept the config key too
            params = dict(params)
            params["lam"] = params.pop("lambda")
        return super()._set(params, initial)

    def _attribute_params(self) -> tuple:
        # getattr(det, "lambda") / setattr(det, "lambda", v): the config key, as det.lam
        names = super()._attribute_params()
        return (*names, "lambda") if names else ()

    def _attribute_value(self, name: str):
        return self._p["lam" if name == "lambda" else name]

    def get_params(self) -> dict:
        """Current parameters with config keys (``lambda``, not ``lam``)."""
        p = dict(self._p)
        p["lambda"] = p.pop("lam")
        return p

    def _check(self, p: dict) -> dict:
        p["eta"] = check_param("norma", "eta", p["eta"])
        p["lam"] = check_param("norma", "lambda", p["lam"])
        if p["eta"] * p["lam"] >= 1.0:  # named by the config key (lambda) the GUI and YAML use
            raise ValueError(
                f"eta, lambda: eta * lambda = {p['eta'] * p['lam']!r} must be < 1 "
                f"(eta={p['eta']!r}, lambda={p['lam']!r})"
            )
        for key in ("nu", "sigma", "threshold"):
            p[key] = check_param("norma", key, p[key])
        return p

    def _score_bound(self) -> float:
        return self._p["omega"] * self._p["eta"]

    def _extra_state_shapes(self, H, W) -> dict:
        return {"ptr": ((H, W), np.uint8, 0), "rho": ((H, W), np.float32, RHO0)}

    def _check_state_arrays(self, arrays: dict) -> None:
        # the kernel writes slot ptr without a bounds check
        if arrays["ptr"].max() >= self._p["omega"]:
            raise ValueError(
                f"state: 'ptr' holds slot {int(arrays['ptr'].max())}, must be < omega ({self._p['omega']})"
            )

    def kernel_args(self, learn: bool) -> tuple:
        """Scalar arguments of :func:`~silkvision.detector.kernels.norma_frame`: ``(scale,
        alpha_new, rho_down, rho_up, threshold, nl, learn)``."""
        p = self._p
        g_new = self._scale * (1.0 - p["eta"] * p["lam"]) if learn else self._scale
        return (
            _F(self._scale),
            _F(p["eta"] / g_new),
            _F(p["eta"] * (1.0 - p["nu"])),
            _F(p["eta"] * p["nu"]),
            _F(p["threshold"]),
            _k.kernel_log2_scale(p["sigma"]),
            bool(learn),
        )

    def _run(self, feat: np.ndarray, learn: bool) -> None:
        a = self.kernel_args(learn)
        run_kernel(
            _k.norma_frame,
            _k.norma_frame_serial,
            feat,
            self._colours,
            self._alphas,
            self._extra["ptr"],
            self._extra["rho"],
            *a,
            self._scores,
            self._raw,
            self._scr_f,
        )
        if learn:
            self._scale *= 1.0 - self._p["eta"] * self._p["lam"]
