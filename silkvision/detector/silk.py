r"""Per-pixel SILK novelty detection for background subtraction (Cheng et al., NIPS 2006, Sec. 2, 4).

Every pixel owns a budgeted SILK novelty detector on its colour feature x (8-bit, see
:mod:`silkvision.detector.colour`). The detectors are updated with the frame, all at once, by a numba
kernel (:func:`silkvision.detector.kernels.silk_frame`).

Novelty detection with the implicit update
------------------------------------------
Novelty detection sees one class only (every observation is "normal", y_t = +1), so the hinge loss
(14) becomes L(x_t, f) = (rho - f(x_t))_+ with margin rho > 0, and f(x) = sum_i alpha_i k(x_i, x)
with the Gaussian kernel k(x, x') = exp(-||x - x'||^2 / (2 sigma^2)), so k(x, x) = 1.

* With G(f) = ||f||^2 / 2, step size eta_t = 1 and tau = lambda / (1 + lambda), the implicit update
  (9) reads f_{t+1} = (1 - tau) f_t - (1 - tau) C dL(x_t, f_{t+1}).
* Writing f_{t+1} in the form (10) gives, as in (11) and (12), that every old coefficient decays,
  ``alpha_i <- (1 - tau) alpha_i``, and the new one is ``alpha_t = -(1 - tau) C beta_t`` where
  beta_t k(x_t, .) is a subgradient of L at f_{t+1}. By (15) with y_t = 1, beta_t = 0 if
  f_{t+1}(x_t) > rho, beta_t in [-1, 0] at the hinge and beta_t = -1 below it, so
  alpha_t in [0, (1 - tau) C].
* The coefficient that puts x_t exactly on the margin, rho - f_{t+1}(x_t) = 0 with
  f_{t+1}(x_t) = (1 - tau) f_t(x_t) + alpha_t k(x_t, x_t), is the y_t = 1 case of the
  unclipped step before (16):  alpha_hat = (rho - (1 - tau) f_t(x_t)) / k(x_t, x_t)
  = rho - (1 - tau) f_t(x_t). Combining both requirements as in (16):

      alpha_t = clip(rho - (1 - tau) f_t(x_t), 0, (1 - tau) C).

  A pixel whose colour is already well explained (f_t(x_t) >= rho / (1 - tau)) adds nothing; a
  novel colour (f_t(x_t) ~ 0) gets the largest coefficient, (1 - tau) C. Unrolled, this is the
  exponentially decaying expansion (19).
* SILK buffer (Sec. 2.1): at most omega support vectors per pixel; (x_t, alpha_t) is inserted and,
  when the buffer overflows, the one with the LOWEST coefficient is discarded. Here: the new pair
  replaces the lowest slot iff alpha_t is larger than its coefficient (empty slots have alpha 0).

Score and mask: the score of a pixel is s = f_t(x_t), computed BEFORE the update (kept in
:attr:`SilkSubtractor.scores`); the pixel is foreground iff s < threshold, then a ``median`` x
``median`` median filter, a ``close`` x ``close`` closing and hole filling (``fill_holes``) are
applied to the mask (:class:`~silkvision.detector.postprocess.MaskFilter`).

Refinements (switchable; see ``docs/BENCHMARKS.md`` section 2 for their measured effect)
---------------------------------------------------------------------------------------
* **Soft conservative update** (``conservative``, ``kappa``, ``warmup``, ``warmup_kappa``): under
  the hinge loss a novel colour -- a passing car -- gets the largest coefficient, and "drop the
  lowest" then evicts background colours. For pixels scored foreground (s < threshold) the new coefficient is capped
  at (1 - tau) kappa C instead of (1 - tau) C; a background pixel is still learned normally, and a
  foreground object that stays (parked car) is absorbed slowly. During the first ``warmup``
  learned frames the cap is milder, (1 - tau) warmup_kappa C (``warmup_kappa``; 1 = no cap), so
  that the background is learned first even where the first frames are busy or the light changes;
  a milder cap rather than none keeps the cars that pass during the warm-up from filling the
  buffer with full-size coefficients. The cap is off for one frame after a
  *global* change (``global_change``: more than that fraction of the previous frame was foreground,
  e.g. a light switch), so that a change of the whole scene is absorbed within a few frames while
  a local object is absorbed slowly. (A hard conservative update,
  kappa = 0, never absorbs such objects.)
* **Hold** (``hold``): the cap also applies for ``hold`` learned frames after a pixel was last scored
  foreground. Inside a passing car some pixels score just above the threshold (the car's colour is
  close to colours learned earlier); without the hold they are learned at the full cap, and in busy
  lanes car colours then fill the buffer. A pixel that was foreground in the frame before is
  probably still covered by the object.
* **Kernel width per pixel** (``width_gain``, ``width_max``, ``width_dead_zone``): the pixel-level
  feedback of SuBSENSE (St-Charles et al. 2015) applied to the kernel width. Leaves in wind show a
  pixel many colours in turn; with one narrow sigma the buffer cannot cover them all, and the
  conservative cap keeps them foreground for good. Each pixel keeps SuBSENSE's blinking level v:
  ``v <- min(v + 1, 10)`` when its raw decision flipped since the last learned frame while the
  post-processed mask was background in both frames (flicker that the mask chain removes, not an
  object entering or leaving), ``v <- max(v - 0.1, 0)`` otherwise. Its kernel width is then
  ``sigma w`` with ``w = min(1 + width_gain max(v - width_dead_zone, 0), width_max)``, as
  SuBSENSE's distance threshold R(x) grows with v. The dead zone leaves the occasional flicker of
  a small, far object alone. The decision is still ``f(x) < threshold`` on the kernel expansion,
  and the scores are exact. ``width_gain = 0`` gives one width everywhere. The flicker is read
  from the mask chain's output, so with no median (or an identity chain) the width never changes.
  The study and its figures: ``docs/benchmarks/accuracy.md``.
* **Texture term and shadow test** (``texture_weight``, ``shadow``; off by default). Every pixel
  gets a 16-bit LBSP pattern of its luma (Bilodeau et al. 2013, as in SuBSENSE): bit p is set where
  the p-th of 16 samples in its 5x5 neighbourhood differs from it by more than ``max(0.3 I, 4)``.
  Every support vector keeps the pattern of the frame it was learned from, and the kernel becomes
  the product ``k = exp(-||x - x_i||^2 / (2 sigma^2)) 2^(-texture_weight H(t, t_i))``, H the
  Hamming distance: a car the colour of the road, whose texture is not the road's, is more novel.
  The shadow test (Horprasert et al. 1999's brightness and chromaticity distortion, gated by the
  texture) shows a pixel scored foreground as background when an established support vector is
  0.5-0.95 times as bright, has its chroma (within 10) and its pattern (at most 1 bit apart), and
  the pixel's pattern has at least 3 set bits (two flat patches share the empty pattern: no
  evidence). Its score is then raised to the threshold, so ``apply`` still returns
  ``mask_from_scores(scores)`` (at a higher threshold such a pixel is foreground again); the
  pixel learns from its own decision. Together they raise the
  mean F of the six development sequences from 0.866 to 0.877 at about half the frame rate, which
  is why they are not the default (``docs/benchmarks/accuracy.md``). Switching the texture on or
  off restarts the model (the state's layout changes).
* **Mask post-processing**: median filter (``median``: 0 or an odd size), closing (``close``) and
  hole filling (``fill_holes``). They change the returned mask, and through the width feedback
  above which flicker counts; never a coefficient or the decision rule.
* **Colour space** of the feature (``colour_space``: rgb, ycrcb, lab, gray).

Implementation notes
--------------------
State: support-vector colours (H, omega, C, W) uint8 and coefficients (H, omega, W) float32 stored
divided by one global scale g (all pixels decay by the same factor every frame, so the decay is
``g <- (1 - tau) g``; renormalised when g < 2**-40), plus a uint8 count of the frames since the
pixel was last foreground (``hold``) and, for the width feedback, a float32 blinking level and the
last learned frame's raw and output masks (uint8), i.e. 4 omega + C omega + 7 bytes per pixel
(147 B for omega = 20, RGB), and with the texture term or the shadow test 2 omega bytes more for the
support vectors' patterns (187 B). All buffers are allocated at the first frame (or after
:meth:`~SilkSubtractor.reset` / :meth:`~SilkSubtractor.set_state`); ``apply`` allocates nothing but
its returned mask (pass ``fgmask`` to avoid that too) and, with ``fill_holes``, the small list of
contours OpenCV returns to the hole filling.
"""

from __future__ import annotations

import numpy as np

from silkvision.config.schema import SCHEMA
from silkvision.detector import kernels as _k
from silkvision.detector.numba_threads import run_kernel
from silkvision.detector.pixel import SIGMA_MIN, KernelPixelSubtractor, check_param
from silkvision.detector.pixel import schema_default as _default

__all__ = ["SilkSubtractor", "KernelPixelSubtractor", "SIGMA_MIN"]

_F = np.float32
#: SuBSENSE's blinking level (St-Charles et al. 2015): +1 per counted flip, -0.1 per frame, at most 10
BLINK_INC, BLINK_DEC, BLINK_MAX = _F(1.0), _F(0.1), _F(10.0)


class SilkSubtractor(KernelPixelSubtractor):
    """Per-pixel SILK novelty detector (see the module docstring for the maths).

    Parameters
    ----------
    omega : int
        Support-vector buffer size per pixel (paper: 20).
    tau : float
        Decay in (0, 1): old coefficients are multiplied by (1 - tau) every frame.
    C : float
        Box constraint: a new coefficient is at most (1 - tau) C.
    rho : float
        Margin of the novelty hinge loss.
    sigma : float
        Gaussian kernel width, in 8-bit units of the colour space; at least :data:`SIGMA_MIN`
        (1e-6: much smaller widths overflow the kernel's float32 scale).
    threshold : float
        Foreground iff score < threshold.
    conservative : bool
        Soft conservative update: cap the new coefficient of pixels scored foreground at
        (1 - tau) kappa C.
    kappa : float
        Cap factor in [0, 1] of the conservative update.
    warmup : int
        Number of learned frames with the milder warm-up cap (``warmup_kappa``) before the
        conservative cap ``kappa`` starts.
    warmup_kappa : float
        Cap factor in [0, 1] for pixels scored foreground during the warm-up (1 = no cap).
    hold : int
        The cap also applies for this many learned frames after a pixel was last scored
        foreground (0..100).
    global_change : float
        In (0, 1]: when more than this fraction of the previous learned frame's pixels were
        foreground (raw mask), the frame is learned without the conservative cap (1 = never).
    width_gain : float
        Kernel width per pixel: sigma grows by this factor per unit of blinking level above
        ``width_dead_zone`` (0..10); 0 = sigma everywhere.
    width_max : float
        Largest kernel width of a pixel, in units of sigma (>= 1).
    width_dead_zone : float
        Blinking level up to which a pixel keeps the width sigma.
    texture_weight : float
        Texture term of the kernel (0..8): every bit in which the pixel's 16-bit LBSP pattern
        differs from a support vector's multiplies their kernel value by ``2^-texture_weight``;
        0 = colour only.
    shadow : bool
        Shadow test: a pixel scored foreground that is a darker copy of an established support
        vector with the same chroma and texture is shown as background (its score is raised to the
        threshold); it still learns from its own decision. Needs a luma-first colour space
        (ycrcb, lab, gray): off with rgb.
    colour_space : {"rgb", "ycrcb", "lab", "gray"}
        Pixel feature.
    median : int
        Median filter size of the mask (0 = off).
    close : int
        Size of the elliptic closing of the mask after the median (0 = off).
    fill_holes : bool
        Fill enclosed background holes of the mask after the closing.
    filter_width : int
        ``median`` and ``close`` are sizes for frames this wide; wider frames get windows grown
        in proportion (odd, at most 15); 0 = the sizes as given.

    Examples
    --------
    >>> import numpy as np
    >>> det = SilkSubtractor()
    >>> mask = det.apply(np.zeros((4, 6, 3), np.uint8))
    >>> mask.shape, det.scores.dtype
    ((4, 6), dtype('float32'))
    """

    name = "silk"
    # work buffers of the texture term and the shadow test (None until the first frame)
    _tex: np.ndarray | None
    _lum: np.ndarray | None
    _shown: np.ndarray | None
    _PARAM_NAMES = (
        "omega",
        "tau",
        "C",
        "rho",
        "sigma",
        "threshold",
        "conservative",
        "kappa",
        "warmup",
        "warmup_kappa",
        "hold",
        "global_change",
        "width_gain",
        "width_max",
        "width_dead_zone",
        "texture_weight",
        "shadow",
        "colour_space",
        "median",
        "close",
        "fill_holes",
        "filter_width",
    )

    def __init__(
        self,
        omega: int = _default("silk", "omega"),
        tau: float = _default("silk", "tau"),
        C: float = _default("silk", "C"),
        rho: float = _default("silk", "rho"),
        sigma: float = _default("silk", "sigma"),
        threshold: float = _default("silk", "threshold"),
        conservative: bool = _default("silk", "conservative"),
        kappa: float = _default("silk", "kappa"),
        warmup: int = _default("silk", "warmup"),
        warmup_kappa: float = _default("silk", "warmup_kappa"),
        hold: int = _default("silk", "hold"),
        global_change: float = _default("silk", "global_change"),
        width_gain: float = _default("silk", "width_gain"),
        width_max: float = _default("silk", "width_max"),
        width_dead_zone: float = _default("silk", "width_dead_zone"),
        texture_weight: float = _default("silk", "texture_weight"),
        shadow: bool = _default("silk", "shadow"),
        colour_space: str = SCHEMA["detector"]["colour_space"].default,
        median: int = SCHEMA["detector"]["median"].default,
        close: int = SCHEMA["detector"]["close"].default,
        fill_holes: bool = SCHEMA["detector"]["fill_holes"].default,
        filter_width: int = SCHEMA["detector"]["filter_width"].default,
    ):
        super().__init__(
            omega=omega,
            tau=tau,
            C=C,
            rho=rho,
            sigma=sigma,
            threshold=threshold,
            conservative=conservative,
            kappa=kappa,
            warmup=warmup,
            warmup_kappa=warmup_kappa,
            hold=hold,
            global_change=global_change,
            width_gain=width_gain,
            width_max=width_max,
            width_dead_zone=width_dead_zone,
            texture_weight=texture_weight,
            shadow=shadow,
            colour_space=colour_space,
            median=median,
            close=close,
            fill_holes=fill_holes,
            filter_width=filter_width,
        )

    def _check(self, p: dict) -> dict:
        for key in (
            "tau",
            "C",
            "rho",
            "sigma",
            "threshold",
            "kappa",
            "warmup",
            "warmup_kappa",
            "hold",
            "global_change",
            "conservative",
            "width_gain",
            "width_max",
            "width_dead_zone",
            "texture_weight",
            "shadow",
        ):
            p[key] = check_param("silk", key, p[key])
        return p

    def _score_bound(self) -> float:
        return self._p["omega"] * self._p["C"]

    def _extra_state_shapes(self, H, W) -> dict:
        return {
            "since": ((H, W), np.uint8, 255),
            # the width feedback: blinking level, and the last learned frame's raw and output masks
            "blink": ((H, W), np.float32, 0.0),
            "prev_raw": ((H, W), np.uint8, 0),
            "prev_out": ((H, W), np.uint8, 0),
            # the LBSP pattern of every support vector, with the texture term or the shadow test
            "textures": ((H, self._p["omega"], W) if any(self._textured()) else (0, 0, 0), np.uint16, 0),
        }

    def _textured(self) -> tuple[bool, bool]:
        """(texture term on, shadow test on) with the current parameters."""
        p = self._p
        return p["texture_weight"] > 0, bool(p["shadow"]) and p["colour_space"] != "rgb"

    def _set(self, params: dict, initial: bool = False) -> bool:
        # switching the texture on or off changes the state's layout (the slots' patterns): a restart
        before = None if initial else any(self._textured())
        restart = super()._set(params, initial)
        return restart or (before is not None and before != any(self._textured()))

    def _allocate(self, H: int, W: int) -> None:
        super()._allocate(H, W)
        self._allocate_work(H, W)

    def _allocate_work(self, H: int, W: int) -> None:
        # not state: this frame's patterns, the luma planes they come from, the shadow-tested mask
        if not any(self._textured()):
            H = W = 0  # (the kernels never read them then)
        self._tex = np.zeros((H, W), np.uint16)
        self._lum = np.zeros((2, H, W), np.uint8)
        self._shown = np.zeros((H, W), np.uint8)

    def reset(self) -> None:
        super().reset()
        self._tex = self._lum = self._shown = None

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if self._shape is not None and getattr(self, "_tex", None) is None:  # pickles of older versions
            self._allocate_work(*self._shape)

    def nbytes_for(self, H: int, W: int) -> int:
        return super().nbytes_for(H, W) + (5 * H * W if any(self._textured()) else 0)  # + _allocate_work

    def _shown_mask(self) -> np.ndarray:
        if self._textured()[1]:
            assert self._shown is not None  # allocated with the state
            return self._shown
        return super()._shown_mask()

    def _decay(self) -> float:
        """Factor of the old coefficients in the next learned frame: ``1 - tau``."""
        return 1.0 - self._p["tau"]

    def kernel_args(self, learn: bool) -> tuple:
        """The scalar arguments of :func:`~silkvision.detector.kernels.silk_frame` for the next
        frame: ``(scale, inv_scale_new, decay, rho, cap, cap_fg, threshold, hold, nl, learn, wgain,
        wmax, wzero, tw, shadow)``."""
        p = self._p
        decay = self._decay()
        g_new = self._scale * decay if learn else self._scale
        cap = decay * p["C"]
        # (the fraction is at most 1: global_change = 1 never needs it counted)
        capped = p["conservative"] and (p["global_change"] >= 1.0 or self._fg_now() <= p["global_change"])
        kappa = p["kappa"] if self._frames >= p["warmup"] else p["warmup_kappa"]
        cap_fg = decay * kappa * p["C"] if capped else cap
        return (
            _F(self._scale),
            _F(1.0 / g_new),
            _F(decay),
            _F(p["rho"]),
            _F(cap),
            _F(cap_fg),
            _F(p["threshold"]),
            np.int32(p["hold"]),
            _k.kernel_log2_scale(p["sigma"]),
            bool(learn),
            _F(p["width_gain"]),
            _F(p["width_max"]),
            _F(p["width_dead_zone"]),
            _F(p["texture_weight"]),
            self._textured()[1],
        )

    def _run(self, feat: np.ndarray, learn: bool) -> None:
        args = self.kernel_args(learn)
        if any(self._textured()):
            run_kernel(_k.lbsp_frame, _k.lbsp_frame_serial, feat, self._lum, self._tex)
        run_kernel(
            _k.silk_frame,
            _k.silk_frame_serial,
            feat,
            self._colours,
            self._alphas,
            self._extra["since"],
            self._extra["blink"],
            self._extra["textures"],
            self._tex,
            *args,
            self._scores,
            self._raw,
            self._shown,
            self._scr_f,
            self._scr_i,
        )
        if learn:
            self._scale *= self._decay()

    def apply(
        self, frame: np.ndarray, learningRate: float = -1, fgmask: np.ndarray | None = None
    ) -> np.ndarray:
        out = super().apply(frame, learningRate, fgmask)
        if self._p["width_gain"] > 0 and learningRate != 0:
            # after the mask chain: its output tells flicker from objects (module notes)
            e = self._extra
            run_kernel(
                _k.silk_feedback,
                _k.silk_feedback_serial,
                self._raw,
                np.ascontiguousarray(out),
                e["prev_raw"],
                e["prev_out"],
                e["blink"],
                BLINK_INC,
                BLINK_DEC,
                BLINK_MAX,
            )
        return out

    apply.__doc__ = KernelPixelSubtractor.apply.__doc__
